#!/bin/sh
# A live Counter32 wrap through fabsim's SNMP agent (issue #5), end to
# end through fabmond. fabsim starts every switch counter at
# 2^32 - 10^9 (--counter-base) and a 2 Gb/s flow host0 -> host1 makes
# leaf0's ifInOctets on host0's port wrap about 4 s after it starts.
# fabmond polls that agent every second twice: target w32 through a
# profile that maps only the 32-bit ifTable columns, target hc through
# snmp-generic (the Counter64 ifXTable columns).
#  - Before any traffic both totals equal the base.
#  - While the flow runs, w32's byte total only grows, crosses 2^32
#    without a spike, its rate stays within a factor 2 of the flow's
#    (the model's: the flow is alone on its links), and
#    fabmon_series_resets_total does not move.
#  - Once the flow stops, w32's totals equal hc's exactly: the wrap was
#    accounted for to the byte.
#  - One GET of both columns: ifHCInOctets went on past 2^32 where
#    ifInOctets wrapped, and the latter is the former's low 32 bits.
# Skips (77) when python3, net-snmp's snmpget or fabsim is missing.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
command -v snmpget >/dev/null 2>&1 || skip "net-snmp's snmpget not installed"
FABSIM_BIN="$top_builddir/fabsim"
[ -x "$FABSIM_BIN" ] || skip "fabsim not built"

TWO32=4294967296
BASE=3294967296 # 2^32 - 1e9: 4 s of a 2 Gb/s flow
GBPS=2

"$FABSIM_BIN" --spines 1 --leaves 1 --hosts 2 --nics 1 --speed 100G \
	--host-speed 100G --counter-base "$BASE" --control 127.0.0.1:0 \
	--emit-config "$WORK/emitted.yaml" >"$WORK/fabsim.log" 2>&1 &
PIDS="$PIDS $!"
wait_for 30 test -s "$WORK/emitted.yaml" || fail "fabsim did not emit its config"
CTL=$(sed -n 's/^# fabsim control: //p' "$WORK/emitted.yaml")
AGENT=$(awk '/name: "leaf0"/ { l = 1 }
	l && /address: "udp:/ { gsub(/"/, "", $2); print $2; exit }' \
	"$WORK/emitted.yaml")
PORT=$(sed -n 's/.*{a: "leaf0:\([^"]*\)", b: "host0:mlx5_0"}.*/\1/p' \
	"$WORK/emitted.yaml")
[ -n "$CTL" ] && [ -n "$AGENT" ] && [ -n "$PORT" ] ||
	fail "emitted config: control '$CTL', leaf0 agent '$AGENT', host0's port '$PORT'"
case "$AGENT" in udp:127.0.0.1:*) ;; *) fail "leaf0's agent is not on loopback: $AGENT" ;; esac

# The test profile: the 32-bit ifTable columns only.
mkdir -p "$WORK/profiles"
cp "$top_srcdir/etc/profiles/snmp-generic.yaml" "$WORK/profiles/"
cat >"$WORK/profiles/snmp-wrap32.yaml" <<'EOF2'
name: snmp-wrap32
description: IF-MIB ifTable Counter32 octets and unicast packets only
columns:
  - name: ifInOctets
    oid: 1.3.6.1.2.1.2.2.1.10
    counter: bytes_rx
  - name: ifInUcastPkts
    oid: 1.3.6.1.2.1.2.2.1.11
    counter: packets_rx
EOF2
cat >"$WORK/fabmon.yaml" <<EOF2
listen: ["127.0.0.1:0"]
interval: 1s
profiles_dir: $WORK/profiles
targets:
  - name: w32
    snmp: { address: "$AGENT", profile: snmp-wrap32, timeout: 2s }
  - name: hc
    snmp: { address: "$AGENT", profile: snmp-generic, timeout: 2s }
EOF2
start_fabmond fabmond -c "$WORK/fabmon.yaml"

scrape() { http_get "http://127.0.0.1:$FABMOND_PORT/metrics" >"$WORK/metrics.txt"; }
val() { # family device: the rx total of host0's port, "" if none
	grep -F "$1{device=\"$2\",port=\"$PORT\",direction=\"rx\"} " \
		"$WORK/metrics.txt" | awk '{print $2}'
}
resets() { awk '$1 == "fabmon_series_resets_total" {print $2}' "$WORK/metrics.txt"; }
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a == b) }'; }
rx_bps() { # device: rx_bps of host0's port, "null" if unknown
	http_get "http://127.0.0.1:$FABMOND_PORT/api/v1/ports?device=$1&port=$PORT" |
		python3 -c 'import json, sys
p = json.load(sys.stdin)["ports"]
v = p[0]["rx_bps"] if p else None
print("null" if v is None else v)'
}
both() {
	scrape && [ -n "$(val fabmon_bytes_total w32)" ] &&
		[ -n "$(val fabmon_bytes_total hc)" ] &&
		[ -n "$(val fabmon_packets_total w32)" ] &&
		[ -n "$(val fabmon_packets_total hc)" ]
}
wait_for 60 both || fail "no byte and packet series from both targets on $PORT"
for fam in fabmon_bytes_total fabmon_packets_total; do
	for dev in w32 hc; do
		num_eq "$(val $fam $dev)" "$BASE" ||
			fail "$dev: $fam $(val $fam $dev) before any traffic, the base is $BASE"
	done
done
r0=$(resets)
[ -n "$r0" ] || fail "no fabmon_series_resets_total"
pass "before traffic, the 32-bit and the HC totals of $PORT equal the counter base"

ans=$(curl -sS --max-time 10 -X POST --data \
	"{do: flows, name: wrap, from: [host0:mlx5_0], to: host1:mlx5_0, gbps: $GBPS}" \
	"$CTL/events") || fail "control: POST /events failed"
FLOW=$(echo "$ans" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
[ -n "$FLOW" ] || fail "control: no event id in $ans"

# Follow the wrap: each scrape's w32 total is at least the previous one,
# below 2^33 (a wrap taken for a reset, or counted twice, would show),
# with no reset counted; once 2 s of traffic are in, w32's rate is never
# unknown and within a factor 2 of the flow's. Until 2 s past 2^32.
prev=$BASE
n_rates=0
i=0
while :; do
	i=$((i + 1))
	[ $i -le 400 ] || fail "w32: total $prev never got 2 s past 2^32"
	scrape
	v=$(val fabmon_bytes_total w32)
	r=$(resets)
	awk -v a="$prev" -v b="$v" -v m="$TWO32" 'BEGIN { exit !(b >= a && b < 2 * m) }' ||
		fail "w32: bytes total went $prev -> $v (spike or drop)"
	[ "$r" = "$r0" ] || fail "a reset was counted ($r0 -> $r) with w32 at $v"
	if awk -v b="$v" -v base="$BASE" 'BEGIN { exit !(b - base > 5e8) }'; then
		rate=$(rx_bps w32)
		[ "$rate" != null ] || fail "w32: no rate at total $v (a reset?)"
		awk -v r="$rate" -v g="$GBPS" 'BEGIN { exit !(r >= g * 0.5e9 && r <= g * 2e9) }' ||
			fail "w32: rx $rate b/s at total $v, the flow sends $GBPS Gb/s"
		n_rates=$((n_rates + 1))
	fi
	prev=$v
	awk -v b="$v" -v m="$TWO32" 'BEGIN { exit !(b > m + 5e8) }' && break
	sleep 0.25
done
[ "$n_rates" -gt 0 ] || fail "w32: no rate checked"
r=$(resets)
[ "$r" = "$r0" ] || fail "resets_total moved ($r0 -> $r)"
pass "ifInOctets wraps: the total grows smoothly past 2^32 ($v), rate ~${GBPS} Gb/s at each of $n_rates checks, no reset counted"

curl -sS --max-time 10 -X DELETE "$CTL/events/$FLOW" >/dev/null ||
	fail "control: DELETE /events/$FLOW failed"
# Once the counters stop, both targets read the same agent state.
same() {
	scrape && num_eq "$(val fabmon_bytes_total w32)" "$(val fabmon_bytes_total hc)" &&
		num_eq "$(val fabmon_packets_total w32)" "$(val fabmon_packets_total hc)"
}
settled() {
	same || return 1
	a=$(val fabmon_bytes_total hc)
	sleep 1.5
	same && num_eq "$(val fabmon_bytes_total hc)" "$a"
}
wait_for 60 settled ||
	fail "after the flow: w32 $(val fabmon_bytes_total w32) bytes, hc $(val fabmon_bytes_total hc)"
total=$(val fabmon_bytes_total w32)
awk -v b="$total" -v m="$TWO32" 'BEGIN { exit !(b > m) }' ||
	fail "settled below 2^32 ($total)"
[ "$(resets)" = "$r0" ] || fail "resets_total moved ($r0 -> $(resets))"
pass "the 32-bit byte and packet totals equal the HC ones exactly ($total bytes)"

# The HC column did not wrap at the same point: one GET of both.
idx=$(snmpwalk -v2c -c public -On -t 2 -r 1 "$AGENT" 1.3.6.1.2.1.31.1.1.1.1 |
	sed -n "s/^\.1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.1\.\([0-9]*\) = STRING: \"$PORT\"\$/\1/p")
[ -n "$idx" ] || fail "no ifIndex for $PORT"
snmpget -v2c -c public -On -t 2 -r 1 "$AGENT" 1.3.6.1.2.1.31.1.1.1.6."$idx" \
	1.3.6.1.2.1.2.2.1.10."$idx" >"$WORK/get.txt" || fail "snmpget failed"
hc=$(sed -n 's/^\.1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.6\.[0-9]* = Counter64: //p' "$WORK/get.txt")
c32=$(sed -n 's/^\.1\.3\.6\.1\.2\.1\.2\.2\.1\.10\.[0-9]* = Counter32: //p' "$WORK/get.txt")
[ -n "$hc" ] && [ -n "$c32" ] || fail "snmpget: $(cat "$WORK/get.txt")"
awk -v h="$hc" -v c="$c32" -v m="$TWO32" -v base="$BASE" \
	'BEGIN { exit !(h > m && c < base && h - m == c) }' ||
	fail "ifHCInOctets $hc, ifInOctets $c32: the HC column should go past 2^32 where the 32-bit one wraps"
num_eq "$hc" "$total" || fail "ifHCInOctets $hc, fabmond's total $total"
pass "ifHCInOctets went past 2^32 ($hc) where ifInOctets wrapped ($c32)"

if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/metrics.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool: $(cat "$WORK/promtool.log")"
	pass "promtool check metrics passes"
fi
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited with $STOP_STATUS"
pass "fabmond stops cleanly"
