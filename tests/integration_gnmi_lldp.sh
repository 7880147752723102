#!/bin/sh
# integration_gnmi_lldp: the link table learnt from gNMI's LLDP alone.
# fabsim serves a fabric of a spine, two leaves and two hosts whose
# switches publish their LLDP neighbours over gNMI: the Arista spine and
# leaf1 in OpenConfig's tree, the SONiC leaf0 in APPL_DB's
# LLDP_ENTRY_TABLE (which fabmond reads on a second Subscribe, prefix
# target APPL_DB, beside COUNTERS_DB's); and emits fabmond's config
# without the cabling (--no-static-links). The
# real fabmond must learn every link from those neighbours
# (/api/v1/topology: source lldp, reporter gnmi; host NICs resolved by
# the MACs the NIC collector reads), and the rule engine must use them:
# host1's NIC stops draining and the pfc_storm's origin walk goes from
# host0 through leaf0, spine0 and leaf1 to host1, across links only gNMI
# told it about. When reloads stop collecting leaf0 and then leaf1, the
# links only they reported leave the table and those spine0 reports
# stay.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
FABSIM="$top_builddir/fabsim"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"

storm_fabric "$WORK" 1 2 arista "sonic, arista" 3
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
grep -q "target: APPL_DB" "$WORK/sim.yaml" ||
	fail "no APPL_DB subscription for SONiC in $(cat "$WORK/sim.yaml")"

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
wait_for 30 topology --exact "leaf0:Ethernet0=$H0" \
	"leaf0:Ethernet4=spine0:Ethernet1/1" \
	"spine0:Ethernet2/1=leaf1:Ethernet2/1" "leaf1:Ethernet1/1=$H1" ||
	fail "topology: $(cat "$WORK/topology.json")"
pass "the four links come from the switches' gNMI LLDP (reporter gnmi)"
grep -q "leaf0 \[APPL_DB\]: subscribing" "$WORK/lldp.log" ||
	fail "no APPL_DB stream for leaf0: $(cat "$WORK/lldp.log")"
pass "SONiC's LLDP table comes on its own APPL_DB stream"

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
        ("leaf0", "Ethernet4"): "victim",
        ("host0", "mlx5_0"): "victim"}
for k, r in want.items():
    assert roles.get(k) == r, (k, r, roles)
PY
}
wait_for 40 storm || fail "pfc_storm: $(cat "$WORK/inc.json")"
pass "the pfc_storm's origin walk crosses the links learnt from gNMI"

# drop NAME: a reload without target NAME.
drop() {
	python3 - "$WORK/sim.yaml" "$1" >"$WORK/less.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
name = re.escape(sys.argv[2])
print(re.sub(r'  - name: "%s"\n(    .*\n)*' % name, "", text), end="")
PY
	grep -q "\"$1\"" "$WORK/less.yaml" && fail "$1 still in the config"
	cp "$WORK/less.yaml" "$WORK/sim.yaml"
	kill -HUP "$FABMOND_PID"
}

# Stop collecting leaf0 (SONiC: its APPL_DB stream stops with it): what
# only leaf0 reported leaves the table; the spine0-leaf0 link, which
# spine0 reports too, stays. Then leaf1 (Arista) the same way.
drop leaf0
wait_for 20 topology --exact "leaf0:Ethernet4=spine0:Ethernet1/1" \
	"spine0:Ethernet2/1=leaf1:Ethernet2/1" "leaf1:Ethernet1/1=$H1" ||
	fail "after the first reload: $(cat "$WORK/topology.json")"
drop leaf1
wait_for 20 topology --exact "leaf0:Ethernet4=spine0:Ethernet1/1" \
	"spine0:Ethernet2/1=leaf1:Ethernet2/1" ||
	fail "after the second reload: $(cat "$WORK/topology.json")"
pass "a target no longer collected takes its LLDP links with it"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
stop_pid "$SIM_PID"
