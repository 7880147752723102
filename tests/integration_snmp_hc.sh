#!/bin/sh
# HC columns answered with 32-bit types (issue #16), end to end: an
# snmpsim agent whose ifHCInOctets is typed Counter32 (a non-conforming
# agent) while ifHCOutOctets is a true Counter64. fabmond refuses the
# Counter32 values of the 64-bit column, counts them as decode errors,
# says so once, and takes the column's 32-bit fallback (ifInOctets,
# given a value one higher here so that the test sees which column
# fed the total); the Counter64 column is used as it is.
# Skips (77) when snmpsim or python3 is missing.
. "${top_srcdir:-.}/tests/lib.sh"

command -v snmpsimd >/dev/null 2>&1 || skip "snmpsim (snmpsimd) not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"

mkdir -p "$WORK/snmpsim/data"
cat >"$WORK/snmpsim/data/hc32.snmprec" <<'EOF2'
1.3.6.1.2.1.1.2.0|6|1.3.6.1.4.1.8072.3.2.10
1.3.6.1.2.1.1.3.0|67|1000
1.3.6.1.2.1.2.1.0|2|2
1.3.6.1.2.1.2.2.1.10.1|65|4000000001
1.3.6.1.2.1.2.2.1.10.2|65|123457
1.3.6.1.2.1.31.1.1.1.1.1|4|Ethernet0
1.3.6.1.2.1.31.1.1.1.1.2|4|Ethernet4
1.3.6.1.2.1.31.1.1.1.6.1|65|4000000000
1.3.6.1.2.1.31.1.1.1.6.2|65|123456
1.3.6.1.2.1.31.1.1.1.10.1|70|5000000000
1.3.6.1.2.1.31.1.1.1.10.2|70|6000000000
EOF2
start_snmpsim
wait_for 60 snmpget -v2c -c hc32 -t 1 -r 0 "127.0.0.1:$SIM_PORT" \
	1.3.6.1.2.1.1.3.0 || fail "snmpsim did not answer"

cat >"$WORK/fabmon.yaml" <<EOF2
listen: ["127.0.0.1:0"]
interval: 1s
profiles_dir: $top_srcdir/etc/profiles
targets:
  - name: hc32
    snmp: { address: "127.0.0.1:$SIM_PORT", community: hc32, profile: snmp-generic, timeout: 5s, retries: 1 }
EOF2
start_fabmond fabmond -c "$WORK/fabmon.yaml"

scrape() { http_get "http://127.0.0.1:$FABMOND_PORT/metrics" >"$WORK/metrics.txt"; }
val() { # port direction
	grep -F "fabmon_bytes_total{device=\"hc32\",port=\"$1\",direction=\"$2\"} " \
		"$WORK/metrics.txt" | awk '{print $2}'
}
decode_errors() {
	grep -F 'fabmon_target_decode_errors_total{target="hc32"' "$WORK/metrics.txt" |
		awk '{print $2}'
}
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a == b) }'; }
ready() { scrape && [ -n "$(val Ethernet0 rx)" ] && [ -n "$(val Ethernet4 rx)" ]; }
wait_for 60 ready || fail "no rx byte series: $(grep bytes_total "$WORK/metrics.txt")"
num_eq "$(val Ethernet0 rx)" 4000000001 ||
	fail "Ethernet0 rx total $(val Ethernet0 rx): not ifInOctets' 4000000001 (the Counter32 of ifHCInOctets was taken?)"
num_eq "$(val Ethernet4 rx)" 123457 ||
	fail "Ethernet4 rx total $(val Ethernet4 rx): not ifInOctets' 123457"
pass "a Counter32 in ifHCInOctets is refused; the totals come from the ifInOctets fallback"

num_eq "$(val Ethernet0 tx)" 5000000000 && num_eq "$(val Ethernet4 tx)" 6000000000 ||
	fail "tx totals $(val Ethernet0 tx) $(val Ethernet4 tx): the Counter64 column should be used as is"
pass "the Counter64 ifHCOutOctets is used as it is"

awk -v n="$(decode_errors)" 'BEGIN { exit !(n >= 2) }' ||
	fail "decode errors $(decode_errors): the two refused values are not counted"
n=$(grep -c 'is a 64-bit column but the agent answers Counter32' "$WORK/fabmond.log")
[ "$n" -eq 1 ] || fail "the refusal was logged $n times"
grep -q 'using the 32-bit ifInOctets' "$WORK/fabmond.log" ||
	fail "the fallback to ifInOctets was not logged"
pass "refused values counted ($(decode_errors) decode errors), logged once, fallback announced"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited with $STOP_STATUS"
pass "fabmond stops cleanly"
