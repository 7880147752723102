#!/bin/sh
# SNMP collector against real agents on loopback, end to end through
# fabmond:
#  - snmpsim serving the LibreNMS recordings (Arista EOS, Dell SONiC,
#    Cumulus): ifName mapping, HC counter values as recorded, the
#    profile chosen by sysObjectID, LLDP neighbours as recorded;
#  - fabsim's embedded agents (tests/sim_snmp_serve): v2c and v3
#    SHA-256/AES authPriv, PFC per-priority counters moving as the model
#    runs, series for the flavour's PFC MIB;
#  - net-snmp's snmpd with a private config: v3 SHA-512/AES-256;
#  - an agent that never answers and one that answers garbage: both are
#    down with timeouts counted while the others keep polling;
#  - promtool accepts the exposition.
# Skips (77) when snmpsim, snmpd or python3 is missing.
. "${top_srcdir:-.}/tests/lib.sh"

command -v snmpsimd >/dev/null 2>&1 || skip "snmpsim (snmpsimd) not installed"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
SNMPD=$(command -v snmpd || echo /usr/sbin/snmpd)
[ -x "$SNMPD" ] || skip "snmpd not installed"
PROBE="$top_builddir/tests/snmp_probe"
SERVE="$top_builddir/tests/sim_snmp_serve"
[ -x "$PROBE" ] || fail "$PROBE not built"
REC="$top_srcdir/tests/data/snmprec"

# ---- agents ----
# snmpsim: one community per recording (its file name).
mkdir -p "$WORK/snmpsim/data"
cp "$REC"/arista_eos.snmprec "$REC"/dell-sonic.snmprec \
	"$REC"/cumulus_mellanox.snmprec "$WORK/snmpsim/data/"
start_snmpsim

# Two broken agents: one reads and drops, one answers random bytes.
cat >"$WORK/bad_agent.py" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
while True:
    data, peer = s.recvfrom(65535)
    if sys.argv[1] == "garbage":
        s.sendto(os.urandom(1 + data[0] % 200), peer)
PY
# A slow agent: a relay to snmpsim that holds every answer 250 ms, so a
# poll (several round trips) always outlasts a 100 ms interval.
cat >"$WORK/slow_relay.py" <<'PY'
import socket, sys, threading
up = ("127.0.0.1", int(sys.argv[1]))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
client = [None]
def back():
    while True:
        data, _ = u.recvfrom(65535)
        threading.Timer(0.25, s.sendto, (data, client[0])).start()
threading.Thread(target=back, daemon=True).start()
while True:
    data, peer = s.recvfrom(65535)
    client[0] = peer
    u.sendto(data, up)
PY
python3 "$WORK/slow_relay.py" "$SIM_PORT" >"$WORK/slow.port" 2>"$WORK/slow.log" &
PIDS="$PIDS $!"
python3 "$WORK/bad_agent.py" silent >"$WORK/silent.port" 2>"$WORK/silent.log" &
PIDS="$PIDS $!"
python3 "$WORK/bad_agent.py" garbage >"$WORK/garbage.port" 2>"$WORK/garbage.log" &
PIDS="$PIDS $!"

# snmpd: private config, v3 only user with SHA-512/AES-256.
SNMPD_PORT=$(free_port)
mkdir -p "$WORK/snmpd-state"
cat >"$WORK/snmpd.conf" <<EOF2
agentaddress udp:127.0.0.1:$SNMPD_PORT
createUser fabv3 SHA-512 "fabmon-auth-key" AES-256 "fabmon-priv-key"
rouser fabv3 authpriv
dontLogTCPWrappersConnects yes
EOF2
SNMP_PERSISTENT_DIR="$WORK/snmpd-state" "$SNMPD" -f -C -c "$WORK/snmpd.conf" \
	-I -smux -Lf "$WORK/snmpd.log" -p "$WORK/snmpd.pid" \
	>"$WORK/snmpd.out" 2>&1 &
PIDS="$PIDS $!"

# fabsim's agents (when built): v2c and v3 SHA-256/AES.
FABSIM=""
if [ -x "$SERVE" ]; then
	"$SERVE" --spines 1 --leaves 2 --hosts 2 \
		--v3 fabuser,SHA-256,fabsim-auth-1,AES,fabsim-priv-1 \
		>"$WORK/fabsim.ports" 2>"$WORK/fabsim.log" &
	PIDS="$PIDS $!"
	wait_for 20 grep -q '^ready' "$WORK/fabsim.ports" ||
		fail "sim_snmp_serve did not start"
	FABSIM=1
fi

wait_for 10 test -s "$WORK/silent.port" || fail "silent agent did not start"
wait_for 10 test -s "$WORK/garbage.port" || fail "garbage agent did not start"
wait_for 10 test -s "$WORK/slow.port" || fail "slow relay did not start"
# snmpsim indexes its data files at start: wait until it answers.
wait_for 60 snmpget -v2c -c arista_eos -t 1 -r 0 "127.0.0.1:$SIM_PORT" \
	1.3.6.1.2.1.1.3.0 || fail "snmpsim did not answer"

printf '%s\n' fabmon-auth-key >"$WORK/auth.key"
printf '%s\n' fabmon-priv-key >"$WORK/priv.key"
chmod 600 "$WORK/auth.key" "$WORK/priv.key"

cat >"$WORK/fabmon.yaml" <<EOF2
listen: ["127.0.0.1:0"]
interval: 1s
profiles_dir: $top_srcdir/etc/profiles
targets:
  - name: arista
    snmp: { address: "127.0.0.1:$SIM_PORT", community: arista_eos, timeout: 5s, retries: 1 }
  - name: sonic
    snmp: { address: "127.0.0.1:$SIM_PORT", community: dell-sonic, timeout: 5s, retries: 1 }
  - name: cumulus
    snmp: { address: "127.0.0.1:$SIM_PORT", community: cumulus_mellanox, timeout: 5s, retries: 1 }
  - name: silent
    snmp: { address: "127.0.0.1:$(cat "$WORK/silent.port")", timeout: 200ms, retries: 1 }
  - name: garbage
    snmp: { address: "127.0.0.1:$(cat "$WORK/garbage.port")", timeout: 200ms, retries: 1 }
  - name: slow
    snmp: { address: "127.0.0.1:$(cat "$WORK/slow.port")", community: cumulus_mellanox, interval: 100ms, timeout: 5s, retries: 0, max_repetitions: 10 }
  - name: snmpd-v3
    snmp:
      address: "127.0.0.1:$SNMPD_PORT"
      version: 3
      user: fabv3
      auth: SHA-512
      auth_key_file: $WORK/auth.key
      priv: AES-256
      priv_key_file: $WORK/priv.key
      timeout: 2s
EOF2
if [ -n "$FABSIM" ]; then
	while read -r name port; do
		[ "$name" = ready ] && break
		cat >>"$WORK/fabmon.yaml" <<EOF2
  - name: sim-$name
    snmp: { address: "127.0.0.1:$port", timeout: 2s }
  - name: sim3-$name
    snmp: { address: "127.0.0.1:$port", version: 3, user: fabuser, auth: SHA-256, auth_key: fabsim-auth-1, priv: AES, priv_key: fabsim-priv-1, timeout: 2s }
EOF2
	done <"$WORK/fabsim.ports"
fi

# ---- LLDP, through the collector alone ----
"$PROBE" "$WORK/fabmon.yaml" 1 60 arista,sonic,cumulus \
	>"$WORK/probe.out" 2>"$WORK/probe.log" ||
	fail "snmp_probe failed"
grep -q '^stats polls_ok=[1-9]' "$WORK/probe.out" || fail "probe: no poll completed"
# Arista: every lldpRemSysName row of the recording is a neighbour of
# the port whose lldpRemLocalPortNum it carries (here ifIndex = port).
n_rec=$(grep -c '^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.9\.' "$REC/arista_eos.snmprec")
n_got=$(grep -c '^lldp arista|' "$WORK/probe.out")
[ "$n_rec" -gt 0 ] && [ "$n_rec" = "$n_got" ] ||
	fail "arista: $n_got LLDP neighbours, the recording has $n_rec"
grep '^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.9\.' "$REC/arista_eos.snmprec" |
	while IFS='|' read -r o _ name; do
		lport=$(echo "$o" | awk -F. '{print $(NF-1)}')
		ifname=$(grep "^1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.1\.$lport|" \
			"$REC/arista_eos.snmprec" | cut -d'|' -f3 | tr -d '\r')
		grep -qF "lldp arista|$ifname|$name|" "$WORK/probe.out" ||
			fail "arista: no neighbour \"$name\" on $ifname"
	done || exit 1
pass "LLDP neighbours of the Arista recording, on their ifName ports"
n_rec=$(grep -c '^1\.0\.8802\.1\.1\.2\.1\.4\.1\.1\.7\.' "$REC/dell-sonic.snmprec")
n_got=$(grep -c '^lldp sonic|' "$WORK/probe.out")
[ "$n_rec" = "$n_got" ] || fail "sonic: $n_got LLDP neighbours, recording $n_rec"
grep -qF 'lldp sonic|Eth1/53|xxxxx-xxx-xxx-sw-dist01|Eth1/54' "$WORK/probe.out" ||
	fail "sonic: the dist01 neighbour is missing"
pass "LLDP neighbours of the Dell SONiC recording ($n_got)"
if [ -n "$FABSIM" ]; then
	grep -q '^lldp sim-leaf0|.*|spine0|' "$WORK/probe.out" ||
		fail "fabsim: leaf0 does not see spine0 over LLDP"
	pass "fabsim: leaf0's LLDP table names spine0"
fi

# ---- end to end through fabmond ----
start_fabmond fabmond -c "$WORK/fabmon.yaml"
scrape() { http_get "http://127.0.0.1:$FABMOND_PORT/metrics" >"$WORK/metrics.txt"; }
has() { scrape && grep -q "$1" "$WORK/metrics.txt"; }
wait_for 60 has 'fabmon_bytes_total{device="sonic",port="Eth1/1",direction="rx"}' ||
	fail "no SNMP series from the SONiC recording"
wait_for 30 has 'fabmon_bytes_total{device="arista",port="Ethernet1",direction="rx"}' ||
	fail "no SNMP series from the Arista recording"

# HC counters as recorded, on the ifName of their ifIndex (the store
# keeps raw totals; the first sample gives no rate, never a spike).
for dev in arista sonic; do
	f="$REC/arista_eos.snmprec"
	[ $dev = sonic ] && f="$REC/dell-sonic.snmprec"
	for idx in 1 2 5; do
		name=$(grep "^1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.1\.$idx|" "$f" | cut -d'|' -f3 | tr -d '\r')
		want=$(grep "^1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.6\.$idx|" "$f" | cut -d'|' -f3 | tr -d '\r')
		[ -n "$name" ] && [ -n "$want" ] || continue
		line="fabmon_bytes_total{device=\"$dev\",port=\"$name\",direction=\"rx\"}"
		# The first poll writes rows as its answers arrive.
		wait_for 30 has "$line" || fail "$dev: no $line"
		got=$(grep -F "$line" "$WORK/metrics.txt" | awk '{print $2}')
		[ -n "$got" ] || fail "$dev: no $line"
		awk -v a="$got" -v b="$want" 'BEGIN { exit !(a == b) }' ||
			fail "$dev $name: bytes rx $got, the recording has $want"
	done
done
pass "ifHCInOctets as recorded, exported under each port's ifName"
wait_for 30 has 'fabmon_link_up{device="cumulus",port="swp1"} 1' ||
	fail "cumulus: no link state from ifOperStatus"
pass "Cumulus (ifTable and ifName only): link state per port"

# LLDP feeds the link table: /api/v1/topology lists the recorded
# neighbours as links reported by the SNMP collector.
topo_has() { # device port neighbor_device
	http_get "http://127.0.0.1:$FABMOND_PORT/api/v1/topology" >"$WORK/topology.json" &&
		python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
ok = any(l.get("source") == "lldp" and l.get("reporter") == "snmp" and
         json.dumps(l["a"]).find(sys.argv[2]) >= 0 and
         json.dumps(l["a"]).find(sys.argv[3]) >= 0 and
         json.dumps(l["b"]).find(sys.argv[4]) >= 0 for l in d["links"])
sys.exit(0 if ok else 1)' "$WORK/topology.json" "$1" "$2" "$3"
}
wait_for 30 topo_has arista Ethernet48 4900M-CORE.example.net ||
	fail "topology: no LLDP link arista:Ethernet48 -> 4900M-CORE"
topo_has sonic Eth1/53 xxxxx-xxx-xxx-sw-dist01 ||
	fail "topology: no LLDP link sonic:Eth1/53 -> dist01"
pass "LLDP neighbours reach /api/v1/topology (source lldp, reporter snmp)"

api() { http_get "http://127.0.0.1:$FABMOND_PORT/api/v1/targets" >"$WORK/targets.json"; }
target_field() { # target field
	python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["targets"]:
    if t["target"] == sys.argv[2] and t["protocol"] == "snmp":
        v = t
        for k in sys.argv[3].split("."): v = v[k]
        print(v)' "$WORK/targets.json" "$1" "$2"
}
up_is() { api && [ "$(target_field "$1" up)" = "$2" ]; }
wait_for 30 up_is snmpd-v3 True || fail "snmpd v3 SHA-512/AES-256: not up: $(target_field snmpd-v3 last_error)"
has 'fabmon_bytes_total{device="snmpd-v3",port="lo",direction="rx"}' ||
	fail "snmpd v3: no series for lo"
pass "snmpd over SNMPv3 authPriv SHA-512/AES-256 (async engine discovery)"

# The broken agents time out; the others keep their cadence meanwhile.
wait_for 30 up_is silent False || fail "silent agent reported up"
up_is garbage False || fail "garbage agent reported up"
api
a1=$(target_field arista counters.updates)
s1=$(target_field silent counters.timeouts)
i=0
while [ $i -lt 200 ]; do
	api
	a2=$(target_field arista counters.updates)
	s2=$(target_field silent counters.timeouts)
	g2=$(target_field garbage counters.timeouts)
	[ "$a2" -ge $((a1 * 2)) ] && [ "$s2" -gt "$s1" ] && [ "$g2" -gt 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
[ "$a2" -ge $((a1 * 2)) ] || fail "arista stalled next to broken agents ($a1 -> $a2 values)"
[ "$s2" -gt "$s1" ] || fail "silent agent: timeouts not counted ($s1 -> $s2)"
[ "$g2" -gt 0 ] || fail "garbage agent: timeouts not counted"
age=$(target_field arista last_update_age_seconds)
awk -v a="$age" 'BEGIN { exit !(a >= 0 && a < 5) }' ||
	fail "arista: last update $age s ago"
pass "a silent and a garbage agent time out while the others keep polling"

# Every poll of the slow agent outlasts its 100 ms interval: overruns are
# counted and logged (rate-limited), and the target stays up.
overran() { api && [ "$(target_field slow counters.overruns)" -gt 1 ]; }
wait_for 60 overran || fail "slow agent: no overruns counted"
up_is slow True || fail "slow agent: down ($(target_field slow last_error))"
grep -q 'slow: poll took .* longer than the 0.100s interval' "$WORK/fabmond.log" ||
	fail "slow agent: overrun not logged"
n_logged=$(grep -c 'slow: poll took' "$WORK/fabmond.log")
[ "$n_logged" -lt "$(target_field slow counters.overruns)" ] ||
	fail "overruns logged every time ($n_logged lines), not rate-limited"
pass "a poll longer than its interval is counted as an overrun and logged, rate-limited"

if [ -n "$FABSIM" ]; then
	wait_for 30 up_is sim3-leaf0 True ||
		fail "fabsim v3 SHA-256/AES: $(target_field sim3-leaf0 last_error)"
	scrape
	grep -q 'fabmon_pfc_frames_total{device="sim-' "$WORK/metrics.txt" ||
		fail "fabsim: no per-priority PFC series"
	grep -q 'fabmon_port_pfc_frames_total{device="sim-' "$WORK/metrics.txt" ||
		fail "fabsim: no IEEE8021-PFC per-port series"
	# The model moves: octets on some fabsim port grow between scrapes.
	sum() { grep '^fabmon_bytes_total{device="sim-' "$WORK/metrics.txt" |
		awk '{s += $2} END {printf "%.0f", s}'; }
	b1=$(sum)
	grows() { scrape && [ "$(sum)" != "$b1" ]; }
	wait_for 30 grows || fail "fabsim: octet counters never moved"
	pass "fabsim agents over v2c and v3 authPriv: PFC per priority and per port, moving counters"
fi

grep -q 'fabmon_target_up{.*"sonic".*protocol="snmp".*} 1' "$WORK/metrics.txt" ||
	grep -q 'fabmon_target_up{.*protocol="snmp".*"sonic".*} 1' "$WORK/metrics.txt" ||
	fail "no fabmon_target_up 1 for sonic (snmp)"
pass "fabmon_target_up{protocol=\"snmp\"} is exported"
if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/metrics.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool: $(cat "$WORK/promtool.log")"
	pass "promtool check metrics passes with the SNMP series"
fi
# Reload: cumulus leaves, arista2 arrives, arista is left alone.
api
u1=$(target_field arista counters.updates)
grep -v 'name: cumulus$' "$WORK/fabmon.yaml" |
	grep -v 'community: cumulus_mellanox, timeout: 5s, retries: 1 }' \
		>"$WORK/fabmon2.yaml"
cat >>"$WORK/fabmon2.yaml" <<EOF2
  - name: arista2
    snmp: { address: "127.0.0.1:$SIM_PORT", community: arista_eos, timeout: 5s, retries: 1 }
EOF2
cp "$WORK/fabmon2.yaml" "$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID"
wait_for 30 up_is arista2 True || fail "reload: arista2 did not come up"
api
[ -z "$(target_field cumulus up 2>/dev/null)" ] || fail "reload: cumulus still listed"
u2=$(target_field arista counters.updates)
[ "$u2" -ge "$u1" ] || fail "reload restarted arista ($u1 -> $u2 updates)"
scrape
grep -q 'device="cumulus"' "$WORK/metrics.txt" && fail "reload: cumulus series still exported"
pass "reload converges: a target removed (series withdrawn), one added, the rest untouched"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited with $STOP_STATUS"
pass "fabmond stops cleanly"

# ---- a switch reboot in fabsim: sysUpTime goes back, no spike ----
FABSIM_BIN="$top_builddir/fabsim"
[ -x "$FABSIM_BIN" ] || { echo "# fabsim not built: reboot check skipped"; exit 0; }
cat >"$WORK/reboot.yaml" <<EOF2
topology: $top_srcdir/sim/topologies/demo.yaml
seed: 9
duration: 10m
traffic:
  pattern: ring_allreduce
  load: 0.5
events:
  - {at: 10s, do: reboot, node: leaf1}
EOF2
printf 'incidents:\n  - kind: switch_reboot\n    origin: {device: leaf1}\n    from: 10s\n    to: 10100ms\n' \
	>"$WORK/reboot.truth.yaml"
"$FABSIM_BIN" -s "$WORK/reboot.yaml" --emit-config "$WORK/emitted.yaml" \
	>"$WORK/fabsim-reboot.log" 2>&1 &
PIDS="$PIDS $!"
wait_for 30 test -s "$WORK/emitted.yaml" || fail "fabsim did not emit its config"
{
	printf 'listen: ["127.0.0.1:0"]\ninterval: 500ms\nprofiles_dir: %s/etc/profiles\ntargets:\n' \
		"$top_srcdir"
	awk '/^  - name:/ { gsub(/"/, "", $3); n = $3 }
	     /^    snmp:/ { s = 1; next }
	     /^    [a-z]/ { s = 0 }
	     s && /address:/ { gsub(/"/, "", $2); print n, $2 }' \
		"$WORK/emitted.yaml" |
		while read -r n a; do
			printf '  - name: %s\n    snmp: { address: "%s", interval: 500ms }\n' "$n" "$a"
		done
} >"$WORK/reboot-fabmon.yaml"
grep -q 'name: leaf1' "$WORK/reboot-fabmon.yaml" || fail "no leaf1 in the emitted config"
start_fabmond reboot-fabmond -c "$WORK/reboot-fabmon.yaml"
leaf1_sum() {
	scrape
	grep '^fabmon_bytes_total{device="leaf1"' "$WORK/metrics.txt" |
		awk '{s += $2} END {printf "%.0f", s}'
}
resets() { grep '^fabmon_series_resets_total ' "$WORK/metrics.txt" | awk '{print $2}'; }
pos() { [ "$(leaf1_sum)" != 0 ]; }
wait_for 30 pos || fail "leaf1: no traffic before the reboot"
b0=$(leaf1_sum)
r0=$(resets)
grep -q 'leaf1: sysUpTime went back' "$WORK/reboot-fabmond.log" &&
	fail "leaf1 rebooted before the first samples"
wait_for 60 grep -q 'leaf1: sysUpTime went back' "$WORK/reboot-fabmond.log" ||
	fail "leaf1's reboot was not seen"
# Two more polls after the reboot (a bound, not a timing check).
updates_past() { api && [ "$(target_field leaf1 counters.updates)" -gt "$1" ]; }
for _ in 1 2; do
	api
	u=$(target_field leaf1 counters.updates)
	wait_for 20 updates_past "$u" || fail "leaf1: no poll after the reboot"
done
b1=$(leaf1_sum)
r1=$(resets)
awk -v a="$b0" -v b="$b1" 'BEGIN { exit !(b >= a && b - a < 1e15) }' ||
	fail "leaf1: bytes total went $b0 -> $b1 across the reboot (spike or drop)"
awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(b > a) }' ||
	fail "leaf1: no reset counted ($r0 -> $r1)"

pass "a fabsim switch reboot: reset detected from sysUpTime, totals keep going without a spike"
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited with $STOP_STATUS after the reboot check"
