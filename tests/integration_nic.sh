#!/bin/sh
# integration_nic: a real fabmond reading NIC trees laid out like the
# kernel's (a RoCE host and the procfs mlx5 fixture): values and units in
# /metrics (checked with promtool) and /api/v1/ports, each port's identity
# (RDMA device and port, netdev, link layer) in fabmon_nic_port_info and
# in the API rows, then the trees
# change under it -- a counter moves, a 32-bit q-counter wraps, a counter
# resets, the ethtool names churn, files go away -- and /metrics follows
# without spikes; a reload adds and removes hosts.
. "${top_srcdir:-.}/tests/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

cp -r "$top_srcdir/tests/data/nic-roce" "$WORK/h1"
cp -r "$top_srcdir/tests/data/nic-procfs-mlx5" "$WORK/ib1"
M0="$WORK/h1/sys/class/infiniband/mlx5_0/ports/1"

cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
interval: 1s
nic:
  interval: 100ms
  hosts:
    - {device: h1, sysfs_root: $WORK/h1/sys, ethtool_dir: $WORK/h1/ethtool}
    - {device: ib1, sysfs_root: $WORK/ib1/sys}
YAML

"$FABMOND" --check-config -c "$WORK/fabmon.yaml" >/dev/null ||
	fail "--check-config rejected the nic hosts form"

start_fabmond daemon -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"

scrape() {
	http_get "$base/metrics" >"$WORK/m.txt.tmp" && mv "$WORK/m.txt.tmp" "$WORK/m.txt"
}
# value SERIES: the value of one exposition line (exact series text).
value() {
	awk -v s="$1" 'index($0, s " ") == 1 { print $2 }' "$WORK/m.txt"
}
# is SERIES VALUE: scrapes and compares numerically.
is() {
	scrape || return 1
	v=$(value "$1")
	[ -n "$v" ] && python3 -c "import sys; sys.exit(0 if abs(float('$v') - float('$2')) <= 1e-9 * max(1, abs(float('$2'))) else 1)"
}
expect() {
	if ! wait_for 10 is "$1" "$2"; then
		kill -0 "$FABMOND_PID" 2>/dev/null || fail "fabmond died"
		fail "$1 is '$(value "$1")', not $2"
	fi
}

H='device="h1",port="mlx5_0"'
expect "fabmon_target_up{target=\"h1\",protocol=\"nic\"}" 1
expect "fabmon_target_up{target=\"ib1\",protocol=\"nic\"}" 1
expect "fabmon_bytes_total{$H,direction=\"tx\"}" 4000000
expect "fabmon_pfc_pause_seconds_total{$H,priority=\"3\",direction=\"rx\"}" 2.5
expect "fabmon_pfc_pause_seconds_total{$H,priority=\"3\",direction=\"tx\"}" 0.75
expect "fabmon_pfc_frames_total{$H,priority=\"3\",direction=\"tx\"}" 22
expect "fabmon_cnp_sent_packets_total{$H}" 800
expect "fabmon_cnp_handled_packets_total{$H}" 700
expect "fabmon_roce_ce_received_packets_total{$H}" 900
expect "fabmon_nic_pause_storm_warning_events_total{$H}" 24
expect "fabmon_link_speed_bytes{$H}" 50000000000
expect "fabmon_link_up{device=\"h1\",port=\"mlx5_1\"}" 0
expect "fabmon_bytes_total{device=\"ib1\",port=\"mlx5_0\",direction=\"rx\"}" 72505381512
expect "fabmon_rdma_ack_timeouts_total{device=\"ib1\",port=\"mlx5_0\"}" 131
pass "/metrics carries the NIC counters in canonical units"

# info LABELS: the fabmon_nic_port_info series with these labels.
info() {
	echo "fabmon_nic_port_info{$1,rdma_device=\"$2\",rdma_port=\"1\",netdev=\"$3\",link_layer=\"$4\"}"
}
expect "$(info "$H" mlx5_0 ens1f0np0 Ethernet)" 1
expect "$(info 'device="h1",port="mlx5_1"' mlx5_1 ens1f1np1 Ethernet)" 1
expect "$(info 'device="h1",port="rxe0"' rxe0 eth9 Ethernet)" 1
expect "$(info 'device="ib1",port="mlx5_0"' mlx5_0 "" InfiniBand)" 1
grep -q '^# TYPE fabmon_nic_port_info gauge$' "$WORK/m.txt" ||
	fail "fabmon_nic_port_info is not a gauge family"
[ "$(grep -c '^fabmon_nic_port_info{' "$WORK/m.txt")" = 4 ] ||
	fail "fabmon_nic_port_info: $(grep -c '^fabmon_nic_port_info{' "$WORK/m.txt") series, want 4"
pass "fabmon_nic_port_info names each NIC port's RDMA device, port and netdev"

if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/m.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool check metrics: $(cat "$WORK/promtool.log")"
	pass "promtool check metrics passes"
else
	echo "# promtool not found: not checked"
fi

http_get "$base/api/v1/ports?device=h1" >"$WORK/ports.json" || fail "ports API"
python3 - "$WORK/ports.json" <<'PY' || fail "ports JSON: $(cat "$WORK/ports.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["port"]: r for r in doc["ports"]}
assert "mlx5_0" in rows, rows.keys()
r = rows["mlx5_0"]
assert r["link_up"] == 1 and r["speed_bps"] == 400e9, r
for k in ("pause_ratio_rx", "pause_ratio_tx", "cnp_sent_pps", "retries_pps"):
    assert k in r, k
for port, netdev in (("mlx5_0", "ens1f0np0"), ("mlx5_1", "ens1f1np1"),
                     ("rxe0", "eth9")):
    r = rows[port]
    assert (r["netdev"], r["rdma_device"], r["rdma_port"]) == (netdev, port, 1), r
PY
pass "/api/v1/ports lists the NIC ports with their netdev, RDMA device and port"
http_get "$base/api/v1/ports?device=ib1" >"$WORK/ports-ib.json" || fail "ports API"
python3 - "$WORK/ports-ib.json" <<'PY' || fail "ports JSON: $(cat "$WORK/ports-ib.json")"
import json, sys
r = {r["port"]: r for r in json.load(open(sys.argv[1]))["ports"]}["mlx5_0"]
assert r["netdev"] is None and r["rdma_device"] == "mlx5_0" and r["rdma_port"] == 1, r
PY
pass "/api/v1/ports: an InfiniBand port without netdev has netdev null"

resets() {
	scrape
	value fabmon_series_resets_total
}
r0=$(resets)

# A counter moves; a 32-bit q-counter wraps (4294967000 + 396 = 100).
echo 830 >"$M0/hw_counters/np_cnp_sent"
echo 100 >"$M0/hw_counters/out_of_buffer"
expect "fabmon_cnp_sent_packets_total{$H}" 830
expect "fabmon_nic_out_of_buffer_packets_total{$H}" 4294967396
[ "$(resets)" = "$r0" ] || fail "the wrap was taken for a reset"
pass "a counter moves and a 32-bit q-counter wraps without a reset"

# The driver reloads: the counter starts again, the total does not move.
# above NAME N: scrapes; the unlabelled NAME is above N.
above() {
	scrape && [ "$(value "$1")" -gt "$2" ]
}
echo 3 >"$M0/hw_counters/np_cnp_sent"
wait_for 10 above fabmon_series_resets_total "$r0" || fail "no reset counted"
expect "fabmon_cnp_sent_packets_total{$H}" 830
echo 13 >"$M0/hw_counters/np_cnp_sent"
expect "fabmon_cnp_sent_packets_total{$H}" 840
pass "a reset gives no spike and counting resumes"

# PFC enabled on priority 5: the ethtool names churn (new lines first).
python3 - "$WORK/h1/ethtool/ens1f0np0" <<'PY'
import os, sys
p = sys.argv[1]
lines = open(p).read().splitlines(True)
new = [lines[0]] + ["     rx_prio5_pause: 4\n", "     rx_prio5_pause_duration: 500000\n",
                    "     tx_prio5_pause: 0\n", "     tx_prio5_pause_duration: 0\n",
                    "     rx_prio5_pause_transition: 4\n"]
for l in lines[1:]:
    if l.startswith("     rx_prio3_pause_duration:"):
        l = "     rx_prio3_pause_duration: 2600000\n"
    new.append(l)
open(p + ".tmp", "w").write("".join(new))
os.rename(p + ".tmp", p)
PY
expect "fabmon_pfc_pause_seconds_total{$H,priority=\"5\",direction=\"rx\"}" 0.5
expect "fabmon_pfc_pause_seconds_total{$H,priority=\"3\",direction=\"rx\"}" 2.6
expect "fabmon_nic_pause_storm_error_events_total{$H}" 25
pass "ethtool name churn maps every value to its counter"

# Files go away: the ethtool file (counted as a read error) and a
# counter file; the rest keeps updating.
e0=$(scrape && value "fabmon_target_errors_total{target=\"h1\",protocol=\"nic\"}")
rm "$WORK/h1/ethtool/ens1f0np0" "$M0/hw_counters/rp_cnp_ignored"
echo 850 >"$M0/hw_counters/rp_cnp_handled"
expect "fabmon_cnp_handled_packets_total{$H}" 850
wait_for 10 above "fabmon_target_errors_total{target=\"h1\",protocol=\"nic\"}" "$e0" ||
	fail "a missing ethtool file is not counted"
expect "fabmon_target_up{target=\"h1\",protocol=\"nic\"}" 1
grep -q "cannot read ethtool statistics" "$WORK/daemon.log" ||
	fail "no log line for the missing ethtool file"
pass "missing files are tolerated and counted"

# Reload: ib1 leaves, h2 comes.
cp -r "$top_srcdir/tests/data/nic-roce" "$WORK/h2"
cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
nic:
  interval: 100ms
  hosts:
    - {device: h1, sysfs_root: $WORK/h1/sys, ethtool_dir: $WORK/h1/ethtool}
    - {device: h2, sysfs_root: $WORK/h2/sys, ethtool_dir: $WORK/h2/ethtool}
YAML
kill -HUP "$FABMOND_PID"
expect "fabmon_cnp_sent_packets_total{device=\"h2\",port=\"mlx5_0\"}" 800
expect "fabmon_target_up{target=\"h2\",protocol=\"nic\"}" 1
scrape
if grep -q 'ib1' "$WORK/m.txt"; then
	fail "removed host ib1 still exported"
fi
expect "fabmon_cnp_handled_packets_total{$H}" 850
expect "$(info 'device="h2",port="mlx5_0"' mlx5_0 ens1f0np0 Ethernet)" 1
pass "a reload adds and removes hosts (their series and identities)"

# A device goes away: its identity is withdrawn at the next scan.
rm -rf "$WORK/h1/sys/class/infiniband/mlx5_1"
gone() {
	scrape && ! grep -q '^fabmon_nic_port_info{device="h1",port="mlx5_1"' "$WORK/m.txt"
}
wait_for 20 gone || fail "h1's mlx5_1 still has a fabmon_nic_port_info series"
expect "$(info "$H" mlx5_0 ens1f0np0 Ethernet)" 1
pass "a NIC port that goes away loses its fabmon_nic_port_info series"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
pass "fabmond stops cleanly"

# No RDMA devices: one clear line, fabmond serves anyway.
mkdir "$WORK/empty"
cat >"$WORK/empty.yaml" <<YAML
listen: ["127.0.0.1:0"]
nic: {enabled: true, device: bare, sysfs_root: $WORK/empty}
YAML
start_fabmond empty -c "$WORK/empty.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
wait_for 10 grep -q "bare: no RDMA devices under" "$WORK/empty.log" ||
	fail "no line about missing RDMA devices"
expect "fabmon_target_up{target=\"bare\",protocol=\"nic\"}" 0
[ "$(grep -c 'no RDMA devices under' "$WORK/empty.log")" = 1 ] ||
	fail "the no-device line repeats"
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS"
pass "no RDMA devices: one line, fabmond runs"

echo "# $CHECKS_PASSED checks passed"
