#!/bin/sh
# integration_files: files named by the configuration or found in a NIC
# tree that are not regular files (issue #16). --check-config refuses a
# FIFO or a device as ca or profile with file:line:col and the key, and
# fabmond does not start with one; a FIFO among the profiles of
# profiles_dir (found only when the target starts) leaves fabmond
# serving with the target down and the reason; a FIFO among a NIC's
# counter files is skipped and counted while the rest is read; and
# SIGTERM stops fabmond in every case. Before the fix each of these hung
# (open() of a FIFO waits for a writer) or passed unnoticed.
. "${top_srcdir:-.}/tests/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
command -v timeout >/dev/null || skip "timeout is not installed"

mkfifo "$WORK/fifo" || skip "cannot make a FIFO"

# check_rejects NAME TEXT: --check-config on $WORK/NAME.yaml fails (within
# a generous bound: a hang is a failure too) and says TEXT.
check_rejects() {
	st=0
	timeout 20 "$FABMOND" --check-config -c "$WORK/$1.yaml" \
		>/dev/null 2>"$WORK/$1.err" || st=$?
	[ "$st" = 124 ] && fail "$1: --check-config hung"
	[ "$st" = 0 ] && fail "$1: --check-config accepted it"
	grep -qF "$2" "$WORK/$1.err" ||
		fail "$1: --check-config said: $(cat "$WORK/$1.err")"
}

gnmi_yaml() { # NAME KEY VALUE
	cat >"$WORK/$1.yaml" <<YAML
targets:
  - name: leaf1
    gnmi:
      address: 127.0.0.1:1
      $2: $3
YAML
}

gnmi_yaml fifo_ca ca "$WORK/fifo"
check_rejects fifo_ca \
	"fifo_ca.yaml:5:11: targets[0].gnmi.ca: \"$WORK/fifo\": not a regular file (fifo)"
gnmi_yaml zero_ca ca /dev/zero
check_rejects zero_ca \
	"zero_ca.yaml:5:11: targets[0].gnmi.ca: \"/dev/zero\": not a regular file (character device)"
gnmi_yaml fifo_key key "$WORK/fifo"
check_rejects fifo_key "targets[0].gnmi.key: \"$WORK/fifo\": not a regular file (fifo)"
gnmi_yaml fifo_profile profile "$WORK/fifo"
check_rejects fifo_profile \
	"fifo_profile.yaml:5:16: targets[0].gnmi.profile: \"$WORK/fifo\": not a regular file (fifo)"
pass "--check-config refuses a FIFO or a device as ca, key or profile"

# The daemon's own config may come through a pipe (-c <(generate)):
# read from a FIFO once its writer comes; a device is still refused.
mkfifo "$WORK/cfg.fifo"
printf 'targets:\n  - name: leaf1\n    gnmi: {address: "127.0.0.1:1", insecure: true}\n' \
	>"$WORK/cfg.fifo" &
st=0
timeout 20 "$FABMOND" --check-config -c "$WORK/cfg.fifo" >"$WORK/cfgfifo.out" 2>&1 ||
	st=$?
[ "$st" = 0 ] || fail "a config through a FIFO: exit $st: $(cat "$WORK/cfgfifo.out")"
grep -q "configuration OK (1 target)" "$WORK/cfgfifo.out" ||
	fail "a config through a FIFO: $(cat "$WORK/cfgfifo.out")"
st=0
timeout 20 "$FABMOND" --check-config -c /dev/zero >/dev/null 2>"$WORK/cfgzero.err" ||
	st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] &&
	grep -qF "not a regular file (character device)" "$WORK/cfgzero.err" ||
	fail "/dev/zero as the config: exit $st: $(cat "$WORK/cfgzero.err")"
pass "the config itself may come through a FIFO; a device is refused"

st=0
timeout 20 "$FABMOND" -f -c "$WORK/fifo_ca.yaml" 2>"$WORK/start_ca.log" || st=$?
[ "$st" = 124 ] && fail "fabmond hung at start on a FIFO ca"
[ "$st" = 1 ] || fail "fabmond with a FIFO ca exited $st"
grep -qF "not a regular file (fifo)" "$WORK/start_ca.log" ||
	fail "no reason in the log: $(cat "$WORK/start_ca.log")"
pass "fabmond does not start with a FIFO ca, and says why"

# stop_bounded PID: stop_pid with a 20 s guard; fails unless it exited 0
# (a hang guard: shutdown is bounded well below it).
stop_bounded() {
	stop_pid "$1" 20
	[ "$STOP_STATUS" = 0 ] ||
		fail "fabmond did not stop on SIGTERM (status $STOP_STATUS)"
}

api_field() { # TARGET PROTOCOL FIELD
	http_get "http://127.0.0.1:$FABMOND_PORT/api/v1/targets" \
		>"$WORK/targets.json" || return 1
	python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t["target"] == sys.argv[2] and t["protocol"] == sys.argv[3]:
        print(t[sys.argv[4]])' "$WORK/targets.json" "$1" "$2" "$3"
}
field_has() { # TARGET PROTOCOL FIELD TEXT
	api_field "$1" "$2" "$3" | grep -qF "$4"
}

# A named profile is found in profiles_dir when the target starts.
mkdir "$WORK/profiles"
mkfifo "$WORK/profiles/stuck.yaml"
cat >"$WORK/named.yaml" <<YAML
listen: ["127.0.0.1:0"]
profiles_dir: $WORK/profiles
targets:
  - name: leaf1
    gnmi:
      address: 127.0.0.1:1
      insecure: true
      profile: stuck
YAML
timeout 20 "$FABMOND" --check-config -c "$WORK/named.yaml" >/dev/null ||
	fail "--check-config refused a profile name"
start_fabmond named -c "$WORK/named.yaml"
wait_for 20 field_has leaf1 gnmi last_error "not a regular file (fifo)" ||
	fail "leaf1: last_error is '$(api_field leaf1 gnmi last_error)'"
stop_bounded "$FABMOND_PID"
pass "a FIFO profile in profiles_dir: fabmond serves, the target says why, SIGTERM stops it"

# A FIFO among a NIC's counter files.
cp -r "$top_srcdir/tests/data/nic-roce" "$WORK/h1"
chmod -R u+w "$WORK/h1"
HW="$WORK/h1/sys/class/infiniband/mlx5_0/ports/1/hw_counters"
rm "$HW/out_of_buffer"
mkfifo "$HW/out_of_buffer"
cat >"$WORK/nic.yaml" <<YAML
listen: ["127.0.0.1:0"]
nic:
  interval: 100ms
  hosts:
    - {device: h1, sysfs_root: $WORK/h1/sys, ethtool_dir: $WORK/h1/ethtool}
YAML
start_fabmond nic -c "$WORK/nic.yaml"
up_is_1() { field_has h1 nic up True; }
wait_for 20 up_is_1 || fail "h1 is not up: $(cat "$WORK/targets.json")"
wait_for 20 field_has h1 nic last_error "out_of_buffer: not a regular file (fifo)" ||
	fail "h1: last_error is '$(api_field h1 nic last_error)'"
errors() {
	http_get "http://127.0.0.1:$FABMOND_PORT/metrics" |
		awk '/^fabmon_target_errors_total\{target="h1",protocol="nic"\}/ { print $2 }'
}
errors_positive() { [ "$(errors)" -gt 0 ] 2>/dev/null; }
wait_for 20 errors_positive || fail "the FIFO was not counted: '$(errors)'"
has_cnp() {
	http_get "http://127.0.0.1:$FABMOND_PORT/metrics" |
		grep -q '^fabmon_cnp_sent_packets_total{device="h1",port="mlx5_0"} 800$'
}
wait_for 20 has_cnp || fail "the other counters were not read"
# Rescans happen every second here; the file is named once in the log.
wait_for 20 grep -q "out_of_buffer: not a regular file" "$WORK/nic.log" ||
	fail "the FIFO is not in the log"
sleep 2
n=$(grep -c "out_of_buffer: not a regular file" "$WORK/nic.log")
[ "$n" = 1 ] || fail "the FIFO was logged $n times"
stop_bounded "$FABMOND_PID"
pass "a FIFO among NIC counters: skipped, counted, named once; SIGTERM stops fabmond"
