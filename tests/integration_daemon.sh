#!/bin/sh
# integration_daemon: a real fabmond on 127.0.0.1 with a port the kernel
# picks: scrape /metrics and check it with promtool, the JSON API and its
# errors, reload with a bad file and then a good one, systemd
# notifications and the watchdog, --check-config, background mode and a
# clean stop.
. "${top_srcdir:-.}/tests/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
interval: 1s
lossless_priorities: [3]
targets:
  - name: leaf1
    gnmi:
      address: 127.0.0.1:1
      insecure: true
  - name: spine1
    snmp:
      address: 127.0.0.1:1
YAML

# --check-config
out=$("$FABMOND" --check-config -c "$WORK/fabmon.yaml") ||
	fail "--check-config rejected a good file"
echo "$out" | grep -q "configuration OK (2 targets)" ||
	fail "--check-config said: $out"
pass "--check-config accepts a good file"

sed 's/interval: 1s/interval: 5x/' "$WORK/fabmon.yaml" >"$WORK/bad.yaml"
if "$FABMOND" --check-config -c "$WORK/bad.yaml" 2>"$WORK/check.err"; then
	fail "--check-config accepted a bad interval"
fi
grep -q "bad.yaml:2:11: interval: \"5x\" is not a duration" "$WORK/check.err" ||
	fail "--check-config message: $(cat "$WORK/check.err")"
pass "--check-config rejects a bad file with file:line:col and key"

# A gNMI subscription path is parsed before anything starts (issue #14).
cat >"$WORK/badpath.yaml" <<'YAML'
targets:
  - name: leaf1
    gnmi:
      address: 127.0.0.1:1
      insecure: true
      subscriptions:
        - path: /interfaces/interface[name=*/state
YAML
if "$FABMOND" --check-config -c "$WORK/badpath.yaml" 2>"$WORK/check.err"; then
	fail "--check-config accepted a broken gNMI path"
fi
grep -q "badpath.yaml:7:38: targets\[0\].gnmi.subscriptions\[0\].path: column 22: unterminated key" \
	"$WORK/check.err" ||
	fail "--check-config message: $(cat "$WORK/check.err")"
pass "--check-config rejects a broken gNMI path at file:line:col"

# A running daemon.
start_fabmond daemon -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"

http_get -D "$WORK/metrics.hdr" -o "$WORK/metrics.txt" "$base/metrics" ||
	fail "scrape failed"
grep -qi "^content-type: text/plain; version=0.0.4" "$WORK/metrics.hdr" ||
	fail "wrong content type: $(cat "$WORK/metrics.hdr")"
grep -q '^fabmon_build_info{version="' "$WORK/metrics.txt" ||
	fail "no fabmon_build_info"
grep -q '^fabmon_target_up{target="leaf1",protocol="gnmi"} 0' \
	"$WORK/metrics.txt" || fail "no fabmon_target_up for leaf1"
grep -q '^fabmon_config_last_reload_successful 1' "$WORK/metrics.txt" ||
	fail "reload state not 1 at start"
pass "/metrics serves fabmond's own health"

if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/metrics.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool check metrics: $(cat "$WORK/promtool.log")"
	pass "promtool check metrics passes on a live scrape"
elif [ "${CI:-}" = true ]; then
	fail "promtool is missing in CI"
else
	echo "# promtool not found: not checked"
fi

http_get -H 'Accept-Encoding: gzip' -D "$WORK/gz.hdr" -o "$WORK/metrics.gz" \
	"$base/metrics" || fail "gzip scrape failed"
grep -qi "^content-encoding: gzip" "$WORK/gz.hdr" || fail "no gzip encoding"
gzip -dc "$WORK/metrics.gz" | grep -q '^fabmon_build_info' ||
	fail "gzip body does not inflate to the exposition"
pass "/metrics is gzip-compressed when asked"

code=$(http_get -o /dev/null -w '%{http_code}' "$base/healthz")
[ "$code" = 200 ] || fail "/healthz gave $code"
code=$(http_get -o /dev/null -w '%{http_code}' "$base/nothing/here")
[ "$code" = 404 ] || fail "unknown path gave $code"
code=$(http_get -o /dev/null -w '%{http_code}' -X POST "$base/metrics")
[ "$code" = 405 ] || fail "POST gave $code"
code=$(http_get -o "$WORK/400.json" -w '%{http_code}' \
	"$base/api/v1/ports?sort=nonsense")
[ "$code" = 400 ] || fail "bad sort gave $code"
grep -q "sort" "$WORK/400.json" || fail "400 does not name the parameter"
pass "/healthz 200, unknown path 404, POST 405, bad parameter 400"

http_get "$base/api/v1/targets" >"$WORK/targets.json" || fail "targets API"
python3 - "$WORK/targets.json" <<'PY' || fail "targets JSON: $(cat "$WORK/targets.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
names = sorted((t["target"], t["protocol"], t["up"]) for t in doc["targets"])
assert names == [("leaf1", "gnmi", False), ("spine1", "snmp", False)], names
PY
pass "/api/v1/targets lists the configured targets"

# Reload with a bad file: the old config keeps running.
cp "$WORK/fabmon.yaml" "$WORK/good.yaml"
printf 'listen: ["127.0.0.1:0"]\ntargets:\n  - name: leaf1\n    bogus: 1\n' \
	>"$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID"
wait_for 10 grep -q "reload failed" "$WORK/daemon.log" ||
	fail "no reload failure logged"
grep -q "fabmon.yaml:4:5: targets\[0\].bogus: unknown key" "$WORK/daemon.log" ||
	fail "reload error lacks file:line:col and key"
http_get "$base/metrics" >"$WORK/metrics2.txt" || fail "scrape after bad reload"
grep -q '^fabmon_config_last_reload_successful 0' "$WORK/metrics2.txt" ||
	fail "fabmon_config_last_reload_successful is not 0"
grep -q 'fabmon_target_up{target="spine1"' "$WORK/metrics2.txt" ||
	fail "old config's targets gone after a failed reload"
pass "a bad reload keeps the old config and sets the reload gauge to 0"

# Reload with a good file that drops spine1.
sed '/- name: spine1/,$d' "$WORK/good.yaml" >"$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID"
wait_for 10 grep -q "reloaded" "$WORK/daemon.log" || fail "no reload logged"
http_get "$base/metrics" >"$WORK/metrics3.txt" || fail "scrape after reload"
grep -q '^fabmon_config_last_reload_successful 1' "$WORK/metrics3.txt" ||
	fail "reload gauge not back to 1"
if grep -q 'target="spine1"' "$WORK/metrics3.txt"; then
	fail "removed target still exported"
fi
pass "a good reload applies and withdraws the removed target"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
echo "# fabmond stopped $STOP_SECONDS s after SIGTERM"
grep -q "stopped" "$WORK/daemon.log" || fail "no clean stop logged"
pass "SIGTERM stops fabmond cleanly with status 0"

# systemd notifications: READY, WATCHDOG at half of WATCHDOG_USEC, STOPPING.
cp "$WORK/good.yaml" "$WORK/fabmon.yaml"
python3 - "$WORK/notify.sock" >"$WORK/notify.out" 2>"$WORK/notify.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
end = time.time() + 20
try:
    while time.time() < end:
        msg = s.recv(4096).decode()
        print(msg.replace("\n", " "), flush=True)
        if "STOPPING=1" in msg:
            break
except socket.timeout:
    pass
PY
npid=$!
PIDS="$PIDS $npid"
wait_for 10 test -S "$WORK/notify.sock" || fail "notify listener did not start"
NOTIFY_SOCKET="$WORK/notify.sock" WATCHDOG_USEC=400000 \
	start_fabmond notified -c "$WORK/fabmon.yaml"
wait_for 10 grep -q "READY=1" "$WORK/notify.out" || fail "no READY=1"
wait_for 10 grep -q "WATCHDOG=1" "$WORK/notify.out" || fail "no WATCHDOG=1"
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS"
wait "$npid"
grep -q "STOPPING=1" "$WORK/notify.out" || fail "no STOPPING=1"
pass "sd_notify READY=1, WATCHDOG=1 and STOPPING=1"

# Background mode: the parent returns once the daemon serves.
sed 's/127.0.0.1:0/127.0.0.1:0/' "$WORK/fabmon.yaml" >"$WORK/daemon-mode.yaml"
"$FABMOND" -c "$WORK/daemon-mode.yaml" 2>"$WORK/bg.log" ||
	fail "background start failed"
bgpid=$(pgrep -f -- "-c $WORK/daemon-mode.yaml" | head -n 1)
[ -n "$bgpid" ] || fail "no background fabmond"
kill -TERM "$bgpid"
wait_for 10 sh -c "! kill -0 $bgpid" || fail "background fabmond did not stop"
pass "background mode serves and stops"

# A config that cannot be loaded at start: exit 1 with the message.
if "$FABMOND" -f -c "$WORK/missing.yaml" 2>"$WORK/missing.log"; then
	fail "started without its config"
fi
grep -q "missing.yaml" "$WORK/missing.log" || fail "no message for a missing file"
pass "a missing config file stops the start with a message"

echo "# $CHECKS_PASSED checks passed"
