#!/bin/sh
# integration_gnmi_lldp: the link table learnt from gNMI's LLDP alone.
# fabsim serves an all-Arista fabric (a spine, two leaves, two hosts)
# whose switches publish their OpenConfig LLDP neighbours over gNMI, and
# emits fabmond's config without the cabling (--no-static-links). The
# real fabmond must learn every link from those neighbours
# (/api/v1/topology: source lldp, reporter gnmi; host NICs resolved by
# the MACs the NIC collector reads), and the rule engine must use them:
# host1's NIC stops draining and the pfc_storm's origin walk goes from
# host0 through leaf0, spine0 and leaf1 to host1, across links only gNMI
# told it about. When a reload stops collecting leaf1, the links only
# leaf1 reported leave the table and the one spine0 reports stays.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
FABSIM="$top_builddir/fabsim"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"

storm_fabric "$WORK" 1 2 arista arista 3
"$FABSIM" -s "$WORK/storm.yaml" --no-snmp --no-static-links \
	--nic-dir "$WORK/nic" --emit-config "$WORK/sim.yaml" \
	--fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 20 test -s "$WORK/sim.yaml" || fail "fabsim emitted no config"
grep -q "^topology:" "$WORK/sim.yaml" &&
	fail "--no-static-links still wrote a topology: section"
grep -q "profile: arista" "$WORK/sim.yaml" ||
	fail "no Arista gNMI target in $(cat "$WORK/sim.yaml")"

start_fabmond lldp -c "$WORK/sim.yaml"
base="http://127.0.0.1:$FABMOND_PORT"

# topology WANT...: every link of WANT ("dev:port=dev:port", either
# way round) is in /api/v1/topology, learnt from gNMI's LLDP and
# resolved; with --exact, nothing else is.
topology() {
	http_get "$base/api/v1/topology" >"$WORK/topology.json" &&
		python3 - "$WORK/topology.json" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
args = sys.argv[2:]
exact = "--exact" in args
want = {frozenset(w.split("=")) for w in args if w != "--exact"}
have = {}
for l in doc["links"]:
    k = frozenset(["%s:%s" % (l["a"]["device"], l["a"]["port"]),
                   "%s:%s" % (l["b"]["device"], l["b"]["port"])])
    have[k] = l
missing = want - set(have)
assert not missing, ("missing", missing, doc["links"])
for k in want:
    l = have[k]
    assert l["source"] == "lldp" and l["reporter"] == "gnmi", l
    assert l["resolved"] and not l["overridden"], l
if exact:
    assert set(have) == want, ("extra", set(have) - want)
PY
}
H0=host0:mlx5_0 H1=host1:mlx5_0
wait_for 30 topology --exact "leaf0:Ethernet1/1=$H0" \
	"leaf0:Ethernet2/1=spine0:Ethernet1/1" \
	"spine0:Ethernet2/1=leaf1:Ethernet2/1" "leaf1:Ethernet1/1=$H1" ||
	fail "topology: $(cat "$WORK/topology.json")"
pass "the four links come from the switches' gNMI LLDP (reporter gnmi)"

# The storm's origin walk crosses them all: host1 pauses leaf1, which
# relays it to spine0, to leaf0, to host0.
storm() {
	http_get "$base/api/v1/incidents?kind=pfc_storm" >"$WORK/inc.json" &&
		python3 - "$WORK/inc.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
fired = [i for i in doc["active"] if i["state"] == "firing"]
assert len(fired) == 1, doc["active"]
i = fired[0]
assert i["origin"] == {"device": "host1", "port": "mlx5_0", "priority": 3}, i
roles = {(s["device"], s["port"]): s["role"] for s in i["subjects"]}
want = {("leaf1", "Ethernet1/1"): "victim",
        ("leaf1", "Ethernet2/1"): "spreader",
        ("spine0", "Ethernet2/1"): "victim",
        ("spine0", "Ethernet1/1"): "spreader",
        ("leaf0", "Ethernet2/1"): "victim",
        ("host0", "mlx5_0"): "victim"}
for k, r in want.items():
    assert roles.get(k) == r, (k, r, roles)
PY
}
wait_for 40 storm || fail "pfc_storm: $(cat "$WORK/inc.json")"
pass "the pfc_storm's origin walk crosses the links learnt from gNMI"

# Stop collecting leaf1: what only leaf1 reported leaves the table; the
# spine0-leaf1 link, which spine0 reports too, stays.
python3 - "$WORK/sim.yaml" >"$WORK/less.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(re.sub(r'  - name: "leaf1"\n(    .*\n|      .*\n)*', "", text), end="")
PY
grep -q '"leaf1"' "$WORK/less.yaml" && fail "leaf1 still in the config"
cp "$WORK/less.yaml" "$WORK/sim.yaml"
kill -HUP "$FABMOND_PID"
wait_for 20 topology --exact "leaf0:Ethernet1/1=$H0" \
	"leaf0:Ethernet2/1=spine0:Ethernet1/1" \
	"spine0:Ethernet2/1=leaf1:Ethernet2/1" ||
	fail "after the reload: $(cat "$WORK/topology.json")"
pass "a target no longer collected takes its LLDP links with it"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
stop_pid "$SIM_PID"
