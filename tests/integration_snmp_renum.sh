#!/bin/sh
# An SNMP switch renumbers two interfaces at run time (issue #16), end
# to end through fabmond. tests/sim_snmp_serve runs one leaf (SONiC
# numbering: Ethernet0 is ifIndex 1, Ethernet8 ifIndex 9, 400G ports)
# with a 100 Gb/s flow in through Ethernet0 and none on Ethernet8; on
# SIGUSR1 it swaps ifIndex 1 and 9: names and counters follow the
# physical ports, sysUpTime and ifNumber do not move. fabmond polls it
# every second.
#  - Before the swap Ethernet0 has a large rx total and Ethernet8 none.
#  - At every scrape after the swap, neither port's rx rate is above
#    its line rate, and Ethernet8's total never takes Ethernet0's
#    counter (no jump of fabmon_bytes_total).
#  - From the poll after the swap on, Ethernet0's total goes on growing
#    at the flow's rate under its own label, from where it was.
#  - fabmond logs the renumbering once.
# Skips (77) when python3 or net-snmp's snmpget is missing.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
SERVE="$top_builddir/tests/sim_snmp_serve"
[ -x "$SERVE" ] || fail "$SERVE not built"

"$SERVE" --spines 1 --leaves 1 --hosts 2 --renumber leaf0,1,9 \
	>"$WORK/serve.out" 2>"$WORK/serve.log" &
SERVE_PID=$!
PIDS="$PIDS $SERVE_PID"
wait_for 20 grep -q '^ready' "$WORK/serve.out" || fail "sim_snmp_serve did not start"
PORT=$(awk '$1 == "leaf0" { print $2 }' "$WORK/serve.out")
[ -n "$PORT" ] || fail "no port for leaf0 in $(cat "$WORK/serve.out")"

cat >"$WORK/fabmon.yaml" <<EOF2
listen: ["127.0.0.1:0"]
interval: 1s
profiles_dir: $top_srcdir/etc/profiles
targets:
  - name: leaf0
    snmp: { address: "127.0.0.1:$PORT", timeout: 2s, retries: 1 }
EOF2
start_fabmond fabmond -c "$WORK/fabmon.yaml"

scrape() { http_get "http://127.0.0.1:$FABMOND_PORT/metrics" >"$WORK/metrics.txt"; }
total() { # port: its rx byte total, "" if none
	grep -F "fabmon_bytes_total{device=\"leaf0\",port=\"$1\",direction=\"rx\"} " \
		"$WORK/metrics.txt" | awk '{print $2}'
}
single() { awk -v m="$1" '$1 == m {print $2}' "$WORK/metrics.txt"; }
rates() { # "Ethernet0 Ethernet8" rx b/s, "null" when unknown
	http_get "http://127.0.0.1:$FABMOND_PORT/api/v1/ports?device=leaf0" |
		python3 -c 'import json, sys
p = {x["port"]: x.get("rx_bps") for x in json.load(sys.stdin)["ports"]}
print(" ".join("null" if p.get(n) is None else str(p[n]) for n in ("Ethernet0", "Ethernet8")))'
}
# gt A B: A (a number, "" fails) is above B (a number or an awk sum).
gt() { awk -v a="$1" "BEGIN { exit !(a != \"\" && a + 0 > ($2)) }"; }

LINE_BPS=400e9
FLOW_BYTES=12.5e9 # a second of the 100 Gb/s flow
# Ethernet0's counter must dwarf any rate before the swap: 8 s of flow.
big() { scrape && [ -n "$(total Ethernet8)" ] && gt "$(total Ethernet0)" 1e11; }
wait_for 60 big || fail "no large rx total on Ethernet0 ($(total Ethernet0)) and one on Ethernet8 ($(total Ethernet8))"
e8=$(total Ethernet8)
gt 1e9 "$e8" || fail "Ethernet8 carries traffic before the swap ($e8)"
pass "before the swap: Ethernet0 rx $(total Ethernet0) bytes, Ethernet8 $e8"

kill -USR1 "$SERVE_PID"
wait_for 10 grep -q '^renumbered' "$WORK/serve.out" || fail "sim_snmp_serve did not renumber: $(cat "$WORK/serve.out")"
scrape
e0=$(total Ethernet0)
# Follow ~10 polls: Ethernet8 never takes Ethernet0's counter, no rate
# above the line, and Ethernet0 grows again by 3 s of the flow.
i=0
grown=""
while [ $i -lt 60 ]; do
	i=$((i + 1))
	scrape
	v8=$(total Ethernet8)
	v0=$(total Ethernet0)
	gt "$v8" "$e8 + 1e9" && fail "Ethernet8's total jumped $e8 -> $v8 (it took Ethernet0's counter)"
	gt "$e0" "$v0" && fail "Ethernet0's total went back $e0 -> $v0"
	set -- $(rates)
	for r in "$1" "$2"; do
		[ "$r" = null ] && continue
		gt "$r" "$LINE_BPS" && fail "rx rate $r b/s above the 400G line after the swap (Ethernet0 $1, Ethernet8 $2)"
	done
	if gt "$v0" "$e0 + 3 * $FLOW_BYTES" && [ -z "$grown" ]; then
		grown=$i
		# A few more polls past the point, then stop.
		break_at=$((i + 8))
	fi
	[ -n "$grown" ] && [ $i -ge "$break_at" ] && break
	sleep 0.5
done
[ -n "$grown" ] || fail "Ethernet0's total did not grow under its label after the swap ($e0 -> $(total Ethernet0))"
gt "$(total Ethernet0)" "$e0 + 3 * $FLOW_BYTES" || fail "Ethernet0 stopped growing"
gt "$(total Ethernet8)" "$e8 + 1e9" && fail "Ethernet8 jumped"
set -- $(rates)
gt "$1" 50e9 || fail "Ethernet0's rx rate is $1 b/s after the swap, the flow sends 100 Gb/s"
pass "after the swap: Ethernet0 rx $e0 -> $(total Ethernet0) at $1 b/s, Ethernet8 stays at $(total Ethernet8), no rate above the line"

n=$(grep -c 'interfaces renumbered' "$WORK/fabmond.log")
[ "$n" -eq 1 ] || fail "the renumbering was logged $n times: $(grep renumbered "$WORK/fabmond.log")"
grep 'interfaces renumbered' "$WORK/fabmond.log" | grep -q 'Ethernet0 1 -> 9' ||
	fail "the log does not say Ethernet0 moved: $(grep renumbered "$WORK/fabmond.log")"
[ -n "$(single fabmon_series_implausible_deltas_total)" ] ||
	fail "no fabmon_series_implausible_deltas_total"
pass "fabmond logged one renumbering (Ethernet0 1 -> 9); implausible deltas $(single fabmon_series_implausible_deltas_total)"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited with $STOP_STATUS"
pass "fabmond stops cleanly"
