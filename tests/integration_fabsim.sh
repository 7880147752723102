#!/bin/sh
# integration_fabsim: the real fabsim on 127.0.0.1 (ports the kernel
# picks) with a small fabric of every switch flavour and a NIC PFC storm,
# its emitted config fed to the real fabmond: every switch's series on
# /metrics with device/port/priority labels, the storm port's PFC
# counters rising and an unrelated switch's not, every target up,
# promtool on a scrape; target faults through the control endpoint (the
# faulted target goes down, the others keep updating); live events;
# --unmonitored and --no-lldp in the emitted config and over SNMP;
# a bad topology's file:line:col and exit 2; SIGTERM exits 0.
. "${top_srcdir:-.}/tests/lib.sh"

FABSIM="$top_builddir/fabsim"
command -v curl >/dev/null || skip "curl is not installed"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"

# Three spines and three leaves, one of each flavour per tier, one host
# per leaf. host1's NIC (on leaf1, SONiC) stops draining at 2 s and stall
# prevention is off, so it pauses leaf1's Ethernet0 for good.
storm_fabric "$WORK" 3 3 "sonic, arista, openconfig" \
	"openconfig, sonic, arista" 2 leaf1:Ethernet0

# A bad topology: the loader's file:line:col and exit status 2.
printf 'spines: {count: 2}\nleaves: {count: x}\nhosts: {count: 1}\n' \
	>"$WORK/bad.yaml"
st=0
"$FABSIM" -t "$WORK/bad.yaml" --no-snmp 2>"$WORK/bad.err" || st=$?
[ "$st" = 2 ] || fail "bad topology: exit $st, not 2"
grep -q 'bad.yaml:2:[0-9]*: leaves.count: ' "$WORK/bad.err" ||
	fail "bad topology message: $(cat "$WORK/bad.err")"
pass "a bad topology exits 2 with file:line:col: key: message"

st=0
"$FABSIM" -t "$WORK/fabric.yaml" --address 10.1.2.3 2>"$WORK/remote.err" ||
	st=$?
[ "$st" = 2 ] && grep -q "not a loopback" "$WORK/remote.err" ||
	fail "a remote address was not refused: $st $(cat "$WORK/remote.err")"
pass "a non-loopback address needs --allow-remote"

"$FABSIM" -s "$WORK/storm.yaml" --no-snmp --control 127.0.0.1:0 \
	--nic-dir "$WORK/nic" --nic-hosts host1,host2 \
	--emit-config "$WORK/fabmon.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" -v 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 20 test -s "$WORK/fabmon.yaml" || fail "no config emitted"
"$FABMOND" --check-config -c "$WORK/fabmon.yaml" >"$WORK/check.out" ||
	fail "emitted config rejected: $(cat "$WORK/check.out")"
grep -q "configuration OK (6 targets)" "$WORK/check.out" ||
	fail "check-config said: $(cat "$WORK/check.out")"
[ "$(grep -c '^    - device: "host[12]"$' "$WORK/fabmon.yaml")" = 2 ] ||
	fail "no nic hosts in: $(cat "$WORK/fabmon.yaml")"
[ -f "$WORK/nic/host1/ethtool/ens0np0" ] || fail "no ethtool file for host1"
[ ! -e "$WORK/nic/host0" ] || fail "host0 has a NIC tree with --nic-hosts host1,host2"
pass "--emit-config writes a config fabmond accepts (6 targets, 2 NIC hosts)"

ctl=$(sed -n 's|^# fabsim control: \(http://.*\)$|\1|p' "$WORK/fabmon.yaml")
# With SNMP agents: every target gets an snmp block too; --duration
# ends the run with status 0.
st=0
"$FABSIM" -t "$WORK/fabric.yaml" --emit-config "$WORK/snmp.yaml" \
	--duration 1s --profiles-dir "$top_srcdir/etc/profiles" \
	2>"$WORK/snmp.log" || st=$?
[ "$st" = 0 ] || fail "fabsim --duration 1s exited $st: $(cat "$WORK/snmp.log")"
[ "$(grep -c '^    snmp:$' "$WORK/snmp.yaml")" = 6 ] ||
	fail "no snmp blocks: $(cat "$WORK/snmp.yaml")"
"$FABMOND" --check-config -c "$WORK/snmp.yaml" >"$WORK/check2.out" ||
	fail "emitted SNMP config rejected: $(cat "$WORK/check2.out")"
pass "with SNMP, every switch also gets an snmp target fabmond accepts"

# The publish noise's options: -v counts the lost publishes; with
# --sample-loss 1 every one is lost, with --quiet-baseline none.
"$FABSIM" --spines 2 --leaves 2 --hosts 2 --nics 1 --no-snmp \
	--sample-loss 1 --duration 3s -v 2>"$WORK/loss.log" ||
	fail "fabsim --sample-loss 1: $(cat "$WORK/loss.log")"
grep -q '(0 switch publishes, [1-9][0-9]* lost)' "$WORK/loss.log" ||
	fail "--sample-loss 1 lost nothing: $(tail -1 "$WORK/loss.log")"
"$FABSIM" --spines 2 --leaves 2 --hosts 2 --nics 1 --no-snmp \
	--quiet-baseline --duration 3s -v 2>"$WORK/quiet.log" ||
	fail "fabsim --quiet-baseline: $(cat "$WORK/quiet.log")"
grep -q ' publishes, 0 lost)' "$WORK/quiet.log" ||
	fail "--quiet-baseline lost publishes: $(tail -1 "$WORK/quiet.log")"
st=0
"$FABSIM" --spines 1 --leaves 1 --hosts 1 --nics 1 --sample-loss 2 \
	2>"$WORK/loss2.log" || st=$?
[ "$st" = 2 ] || fail "--sample-loss 2 exited $st"
pass "--sample-loss and --quiet-baseline set the lost publishes"

# Partial visibility: spine2 and host0 are not targets at all (nothing
# of them in the config, no cable to them, no NIC tree), leaf1 exports
# no LLDP; over SNMP the other switches' LLDP-MIB still names spine2
# (it runs LLDP) but not the unmonitored host0.
"$FABSIM" -t "$WORK/fabric.yaml" --emit-config "$WORK/vis.yaml" \
	--unmonitored spine2,host0 --no-lldp leaf1 --nic-dir "$WORK/visnic" \
	--duration 60s --profiles-dir "$top_srcdir/etc/profiles" \
	2>"$WORK/vis.log" &
VIS_PID=$!
PIDS="$PIDS $VIS_PID"
wait_for 20 test -s "$WORK/vis.yaml" || fail "no config with --unmonitored"
"$FABMOND" --check-config -c "$WORK/vis.yaml" >"$WORK/check3.out" ||
	fail "--unmonitored config rejected: $(cat "$WORK/check3.out")"
grep -q "configuration OK (5 targets)" "$WORK/check3.out" ||
	fail "--unmonitored: check-config said: $(cat "$WORK/check3.out")"
grep -v '^#' "$WORK/vis.yaml" | grep -q 'spine2\|host0' &&
	fail "unmonitored nodes in the config: $(cat "$WORK/vis.yaml")"
grep -q '{a: "leaf[0-9]:[^"]*", b: "host[12]:' "$WORK/vis.yaml" ||
	fail "monitored hosts lost their links: $(cat "$WORK/vis.yaml")"
[ ! -e "$WORK/visnic/host0" ] && [ -d "$WORK/visnic/host1" ] ||
	fail "NIC trees: $(ls "$WORK/visnic")"
pass "--unmonitored leaves nodes, their cables and NIC trees out of the config"
if command -v snmpwalk >/dev/null 2>&1; then
	snmp_of() {
		sed -n "/name: \"$1\"/,/community/s|.*address: \"udp:\(.*\)\"|\1|p" \
			"$WORK/vis.yaml"
	}
	lldp_names() { # lldpRemSysName
		snmpwalk -v2c -c public -Oqv -t 2 -r 1 "$(snmp_of "$1")" \
			1.0.8802.1.1.2.1.4.1.1.9
	}
	lldp_names leaf1 >"$WORK/l1.txt" 2>&1 || true
	grep -q 'spine\|host' "$WORK/l1.txt" &&
		fail "leaf1 (--no-lldp) serves LLDP-MIB: $(cat "$WORK/l1.txt")"
	lldp_names spine0 >"$WORK/s0.txt" || fail "no LLDP-MIB on spine0"
	grep -q leaf1 "$WORK/s0.txt" || fail "spine0 LLDP: $(cat "$WORK/s0.txt")"
	all=$(for l in leaf0 leaf2; do lldp_names $l; done)
	echo "$all" | grep -q spine2 || fail "no leaf names spine2: $all"
	echo "$all" | grep -q host0 && fail "LLDP names unmonitored host0: $all"
	pass "LLDP-MIB: absent with --no-lldp, names unmonitored switches, not hosts"
fi
stop_pid "$VIS_PID"

[ -n "$ctl" ] || fail "no control address in the emitted config"

start_fabmond fabmond -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
scrape() {
	http_get "$base/metrics" >"$WORK/$1.txt"
}
all_up() {
	scrape up || return 1
	n=$(grep -c '^fabmon_target_up{target="[a-z0-9]*",protocol="gnmi"} 1$' \
		"$WORK/up.txt")
	[ "$n" = 6 ]
}
wait_for 30 all_up || fail "not every target up: $(grep target_up "$WORK/up.txt")"
nic_up() {
	scrape nicup || return 1
	grep -q '^fabmon_target_up{target="host1",protocol="nic"} 1$' "$WORK/nicup.txt" &&
		grep -q '^fabmon_target_up{target="host2",protocol="nic"} 1$' "$WORK/nicup.txt"
}
wait_for 30 nic_up || fail "NIC hosts not up: $(grep 'protocol="nic"' "$WORK/nicup.txt")"
pass "fabmon_target_up is 1 for all six switches and both NIC hosts"

# Every switch has series with device and port labels; SONiC and Arista
# switches PFC per priority, OpenConfig ones queues.
has_series() {
	scrape series || return 1
	for sw in spine0 spine1 spine2 leaf0 leaf1 leaf2; do
		grep -q "^fabmon_bytes_total{device=\"$sw\",port=\"[^\"]*\",direction=\"rx\"}" \
			"$WORK/series.txt" || return 1
	done
	for sw in spine0 spine1 leaf1 leaf2; do
		grep -q "^fabmon_pfc_frames_total{device=\"$sw\",port=\"[^\"]*\",priority=\"3\",direction=\"rx\"}" \
			"$WORK/series.txt" || return 1
	done
	for sw in spine2 leaf0; do
		grep -q "^fabmon_queue_transmitted_packets_total{device=\"$sw\",port=\"[^\"]*\",queue=\"3\"}" \
			"$WORK/series.txt" || return 1
	done
	# SONiC's PG drops, through COUNTERS_PG_NAME_MAP.
	for sw in spine0 leaf1; do
		grep -q "^fabmon_priority_group_dropped_packets_total{device=\"$sw\",port=\"Ethernet0\",priority=\"3\"" \
			"$WORK/series.txt" || return 1
	done
}
wait_for 30 has_series || fail "missing series: $(grep -c . "$WORK/series.txt") lines"
pass "every switch's series carry device, port and priority or queue labels"

# The storm: leaf1's port to host1 receives PFC and its count rises;
# leaf2 (no flow of the storm crosses it) receives none.
pfc() { # FILE DEVICE PORT
	sed -n "s|^fabmon_pfc_frames_total{device=\"$2\",port=\"$3\",priority=\"3\",direction=\"rx\"} \([0-9.e+]*\)\$|\1|p" "$1"
}
leaf2_rx() { # FILE: PFC frames received by all of leaf2's ports
	grep "^fabmon_pfc_frames_total{device=\"leaf2\",.*direction=\"rx\"}" "$1" |
		awk '{s += $2} END {printf "%.0f", s}'
}
storm_started() {
	scrape s1 || return 1
	v=$(pfc "$WORK/s1.txt" leaf1 Ethernet0)
	[ -n "$v" ] && awk -v v="$v" 'BEGIN {exit !(v > 0)}'
}
wait_for 30 storm_started || fail "no PFC on leaf1:Ethernet0"
a=$(pfc "$WORK/s1.txt" leaf1 Ethernet0)
q1=$(leaf2_rx "$WORK/s1.txt")
rising() {
	scrape s2 || return 1
	b=$(pfc "$WORK/s2.txt" leaf1 Ethernet0)
	awk -v a="$a" -v b="$b" 'BEGIN {exit !(b > a)}'
}
wait_for 30 rising || fail "leaf1:Ethernet0 PFC frames not rising ($a)"
q2=$(leaf2_rx "$WORK/s2.txt")
[ "$q1" = "$q2" ] || fail "leaf2 received PFC: $q1 -> $q2"
pass "the storm port's PFC frames rise ($a -> $b), an unrelated switch's do not"

# The storm NIC itself, read by fabmond's NIC collector from the tree
# fabsim writes: it sends PFC (tx) and its count rises.
nic_tx() { # FILE
	sed -n 's|^fabmon_pfc_frames_total{device="host1",port="mlx5_0[^"]*",priority="3",direction="tx"} \([0-9.e+]*\)$|\1|p' "$1"
}
nic_seen() {
	scrape s4 || return 1
	n1=$(nic_tx "$WORK/s4.txt")
	[ -n "$n1" ]
}
wait_for 30 nic_seen || fail "no PFC tx series for host1's NIC"
nic_rising() {
	scrape s5 || return 1
	n2=$(nic_tx "$WORK/s5.txt")
	[ -n "$n2" ] && awk -v a="$n1" -v b="$n2" 'BEGIN {exit !(b > a)}'
}
wait_for 30 nic_rising || fail "host1's NIC PFC tx frames not rising (${n1:-none})"
pass "the storm NIC's own PFC tx frames rise in fabsim's NIC tree ($n1 -> $n2)"

if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/s2.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool check metrics: $(cat "$WORK/promtool.log")"
	pass "promtool check metrics passes on a scrape with fabsim's series"
else
	echo "# promtool not found: not checked"
fi

# The control endpoint.
http_get "$ctl/status" >"$WORK/status.json" || fail "GET /status"
grep -q '"name":"leaf1","kind":"leaf","flavour":"sonic","gnmi_port":[0-9]*' \
	"$WORK/status.json" || fail "status: $(cat "$WORK/status.json")"
grep -q '"file":"[^"]*storm.yaml","position_s":' "$WORK/status.json" ||
	fail "status lacks the scenario: $(cat "$WORK/status.json")"
pass "GET /status lists the scenario and every switch's ports"

updates() { # TARGET: fabmon_target_updates_total
	http_get "$base/metrics" |
		sed -n "s/^fabmon_target_updates_total{target=\"$1\",protocol=\"gnmi\"} //p"
}
target_is() { # TARGET 0|1 (grep reads all: curl must not see EPIPE)
	http_get "$base/metrics" |
		grep "^fabmon_target_up{target=\"$1\",protocol=\"gnmi\"} $2\$" \
			>/dev/null
}
age() { # TARGET: fabmon_target_last_update_age_seconds
	http_get "$base/metrics" |
		sed -n "s/^fabmon_target_last_update_age_seconds{target=\"$1\",protocol=\"gnmi\"} //p"
}
stale() { # TARGET: no data for more than 3 intervals
	awk -v a="$(age "$1")" 'BEGIN {exit !(a > 3.5)}'
}
leaf0_moves() { # U0: leaf0's update count went past U0
	[ "$(updates leaf0)" -gt "$1" ]
}
for fault in silent refuse; do
	code=$(http_get -o "$WORK/fault.json" -w '%{http_code}' \
		-X POST --data "$fault" "$ctl/targets/spine1/fault")
	[ "$code" = 200 ] || fail "POST fault $fault: $code $(cat "$WORK/fault.json")"
	u0=$(updates leaf0)
	if [ $fault = silent ]; then
		# fabmond's collector resubscribes to a silent stream but
		# does not mark it down (see fabsim's report): its data
		# stops and ages.
		wait_for 30 stale spine1 || fail "spine1 still updating while silent"
	else
		wait_for 30 target_is spine1 0 || fail "spine1 still up while refusing"
	fi
	wait_for 30 leaf0_moves "$u0" ||
		fail "leaf0 stopped updating while spine1 was $fault"
	target_is leaf2 1 || fail "leaf2 went down with spine1"
	http_get -o /dev/null -X POST --data ok "$ctl/targets/spine1/fault" ||
		fail "POST fault ok"
	wait_for 30 target_is spine1 1 || fail "spine1 did not come back after $fault"
	wait_for 30 sh -c "! awk -v a=\"\$(curl -s $base/metrics | sed -n 's/^fabmon_target_last_update_age_seconds{target=\"spine1\",protocol=\"gnmi\"} //p')\" 'BEGIN {exit !(a > 2)}'" ||
		fail "spine1's data did not resume after $fault"
	pass "a $fault target stops (data ages / target_up 0), the others keep updating, ok brings it back"
done

code=$(http_get -o "$WORK/e.json" -w '%{http_code}' -X POST \
	--data 'do: reboto' "$ctl/events")
[ "$code" = 400 ] || fail "a bad event gave $code"
grep -q 'event:1:5: do: unknown event' "$WORK/e.json" ||
	fail "bad event message: $(cat "$WORK/e.json")"
code=$(http_get -o "$WORK/e.json" -w '%{http_code}' -X POST \
	--data 'do: flows' "$ctl/events")
[ "$code" = 400 ] && grep -q 'needs' "$WORK/e.json" ||
	fail "an incomplete event gave $code $(cat "$WORK/e.json")"
code=$(http_get -o /dev/null -w '%{http_code}' -X POST --data x \
	"$ctl/targets/nosuch/fault")
[ "$code" = 404 ] || fail "unknown switch gave $code"
code=$(http_get -o /dev/null -w '%{http_code}' -X POST --data maybe \
	"$ctl/targets/spine1/fault")
[ "$code" = 400 ] || fail "a bad fault gave $code"
pass "bad events and faults get 400/404 with a message"

code=$(http_get -o "$WORK/e.json" -w '%{http_code}' -X POST \
	--data '{do: pause, port: "host2:mlx5_0", priority: 3, ratio: 0.5}' \
	"$ctl/events")
[ "$code" = 201 ] || fail "a live pause gave $code $(cat "$WORK/e.json")"
id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$WORK/e.json")
leaf2_paused() {
	scrape s3 || return 1
	[ "$(leaf2_rx "$WORK/s3.txt")" != "$q2" ]
}
wait_for 30 leaf2_paused || fail "the live pause did not reach leaf2"
code=$(http_get -o /dev/null -w '%{http_code}' -X DELETE "$ctl/events/$id")
[ "$code" = 200 ] || fail "DELETE /events/$id gave $code"
code=$(http_get -o /dev/null -w '%{http_code}' -X DELETE "$ctl/events/$id")
[ "$code" = 409 ] || fail "a second DELETE gave $code"
pass "a live event starts PFC at leaf2 and DELETE stops it"

stop_pid "$FABMOND_PID"
stop_pid "$SIM_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabsim exited $STOP_STATUS on SIGTERM"
pass "SIGTERM stops fabsim with status 0"

echo "# $CHECKS_PASSED checks passed"
