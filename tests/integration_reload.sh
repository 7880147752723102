#!/bin/sh
# integration_reload: a reload of a big config (100k topology links) does
# not stop fabmond's main loop: while the new file loads, WATCHDOG=1
# pings go on and /healthz answers; a SIGHUP meanwhile is coalesced into
# one more load; a bad file keeps the running config.
#
# The config is a FIFO, so the test decides when a load ends: the
# loader blocks opening it until the test writes the next file. That
# holds the reload open as long as the checks need, with no timing.
. "${top_srcdir:-.}/tests/lib.sh"

# If a check fails while the loader (or, in a daemon that loads on its
# main loop, that loop) waits on the FIFO, give it an end of file so
# that fabmond can stop.
unblock_fifo() {
	[ -p "$WORK/fabmon.fifo" ] || return 0
	exec 3<>"$WORK/fabmon.fifo" && exec 3>&-
}
trap 'unblock_fifo; cleanup' EXIT INT TERM

command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

# big_config FILE TARGETS...: 100k links, the named gNMI targets.
big_config() {
	python3 - "$@" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('listen: ["127.0.0.1:0"]\ninterval: 1s\ntargets:\n')
    for t in sys.argv[2:]:
        f.write("  - name: %s\n    gnmi: {address: \"127.0.0.1:1\", "
                "insecure: true}\n" % t)
    f.write("topology:\n  links:\n")
    for i in range(100000):
        f.write("    - [sw%04d:Ethernet%d, host%06d:mlx5_0]\n"
                % (i // 64, i % 64 * 4, i))
PY
}

big_config "$WORK/a.yaml" leaf1
big_config "$WORK/b.yaml" leaf1 spine1
printf 'listen: ["127.0.0.1:0"]\ntargets:\n  - name: x\n    bogus: 1\n' \
	>"$WORK/bad.yaml"
mkfifo "$WORK/fabmon.fifo"
CFG="$WORK/fabmon.fifo"

# The notify socket's messages, one a line.
python3 - "$WORK/notify.sock" >"$WORK/notify.out" 2>"$WORK/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(300)
try:
    while True:
        msg = s.recv(4096).decode()
        print(msg.replace("\n", " "), flush=True)
        if "STOPPING=1" in msg:
            break
except socket.timeout:
    pass
PY
PIDS="$PIDS $!"
wait_for 10 test -S "$WORK/notify.sock" || fail "notify listener did not start"

count() { grep -c "$1" "$2" || true; }
# more_than N PATTERN FILE: more than N lines of FILE match.
more_than() { [ "$(count "$2" "$3")" -gt "$1" ]; }
# feed FILE: the loader's next read of the FIFO gets FILE.
feed() {
	cat "$1" >"$CFG" &
	PIDS="$PIDS $!"
}

feed "$WORK/a.yaml"
NOTIFY_SOCKET="$WORK/notify.sock" WATCHDOG_USEC=200000 \
	start_fabmond daemon -c "$CFG"
base="http://127.0.0.1:$FABMOND_PORT"
wait_for 60 grep -q "READY=1" "$WORK/notify.out" || fail "no READY=1"
pass "fabmond starts with 100k links"

# SIGHUP: the loader now waits on the FIFO; the main loop must not.
kill -HUP "$FABMOND_PID"
wait_for 20 grep -q "RELOADING=1" "$WORK/notify.out" || fail "no RELOADING=1"
n=$(count "WATCHDOG=1" "$WORK/notify.out")
wait_for 60 more_than $((n + 3)) "WATCHDOG=1" "$WORK/notify.out" ||
	fail "WATCHDOG=1 stopped during the reload"
for i in 1 2 3; do
	code=$(http_get -o /dev/null -w '%{http_code}' "$base/healthz")
	[ "$code" = 200 ] || fail "/healthz gave $code during the reload"
done
grep -q "reloaded" "$WORK/daemon.log" && fail "reloaded before the file came"
pass "WATCHDOG=1 pings go on and /healthz answers while a reload loads"

# A second SIGHUP during the load: one more load follows it.
kill -HUP "$FABMOND_PID"
wait_for 20 grep -q "SIGHUP during a reload" "$WORK/daemon.log" ||
	fail "the second SIGHUP was not taken"
feed "$WORK/b.yaml"
wait_for 120 grep -q "reloaded .*(2 targets)" "$WORK/daemon.log" ||
	fail "the big reload did not apply"
wait_for 20 more_than 1 "SIGHUP: reloading" "$WORK/daemon.log" ||
	fail "the coalesced SIGHUP started no second load"
http_get "$base/api/v1/targets" >"$WORK/targets.json" || fail "targets API"
grep -q '"spine1"' "$WORK/targets.json" ||
	fail "new target missing: $(cat "$WORK/targets.json")"
pass "a 100k-link reload applies; a SIGHUP during it brings one more load"

# That second load gets a bad file: the running config stays.
n=$(count "WATCHDOG=1" "$WORK/notify.out")
wait_for 60 more_than $((n + 3)) "WATCHDOG=1" "$WORK/notify.out" ||
	fail "WATCHDOG=1 stopped during the second load"
feed "$WORK/bad.yaml"
wait_for 60 grep -q "reload failed" "$WORK/daemon.log" ||
	fail "no reload failure logged"
grep -q "reload failed, keeping the running configuration: .*fabmon.fifo:4:5: targets\[0\].bogus: unknown key" \
	"$WORK/daemon.log" || fail "reload error lacks file:line:col and key"
http_get "$base/metrics" >"$WORK/metrics.txt" || fail "scrape"
grep -q '^fabmon_config_last_reload_successful 0' "$WORK/metrics.txt" ||
	fail "fabmon_config_last_reload_successful is not 0"
grep -q 'fabmon_target_up{target="spine1"' "$WORK/metrics.txt" ||
	fail "the running config's targets are gone after a failed reload"
pass "a bad file after a reload keeps the running config, with its message"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
pass "SIGTERM stops fabmond cleanly"

echo "# $CHECKS_PASSED checks passed"
