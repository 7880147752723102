#!/bin/sh
# integration_alertmanager: fabmond pushes its incidents to a real
# prometheus-alertmanager (Debian's) on loopback. fabmond starts first,
# while nothing listens at the alertmanager: URL (the pusher retries with
# backoff); once Alertmanager is up, the incident (a miswired NIC of the
# config's rails) arrives through /api/v2/alerts with its labels (kind,
# device, port, origin, severity, the static fabric label), is re-sent
# with endsAt in the future, and disappears once a reload fixes the
# cabling and the resolution is posted. The pusher's figures are on
# /metrics (fabmon_alertmanager_*, typed, checked by promtool): failures
# while Alertmanager is down, then posts, retries and the last success.
. "${top_srcdir:-.}/tests/lib.sh"

AM=$(command -v prometheus-alertmanager || command -v alertmanager || true)
[ -n "$AM" ] || skip "prometheus-alertmanager is not installed (scripts/install-deps)"
command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
# Loopback only, whatever proxy the environment names.
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY

# A free loopback port for Alertmanager (it cannot report one it chose).
AM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
AM_URL="http://127.0.0.1:$AM_PORT"

cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
interval: 1s
lossless_priorities: [3]
rules:
  tick: 100ms
  clear: 0s
topology:
  rails:
    - {leaves: [leaf-a0, leaf-b0]}
    - {leaves: [leaf-a1, leaf-b1]}
  links:
    - {a: "gpu01:mlx5_0", b: "leaf-a0:Ethernet0"}
    - {a: "gpu01:mlx5_1", b: "leaf-a1:Ethernet0"}
    - ["gpu02:mlx5_0", "leaf-a0:Ethernet4"]
    - ["gpu02:mlx5_1", "leaf-b0:eth5"]
alertmanager:
  url: $AM_URL/
  resend: 2s
  timeout: 2s
  labels: {fabric: test-fabric}
report:
  window: 1h
  step: 10s
YAML

# Config errors name file:line:col and key.
sed 's|url: .*|url: ftp://127.0.0.1/|' "$WORK/fabmon.yaml" >"$WORK/bad.yaml"
if "$FABMOND" --check-config -c "$WORK/bad.yaml" 2>"$WORK/check.err"; then
	fail "--check-config accepted an ftp:// alertmanager URL"
fi
grep -q 'bad.yaml:17:8: alertmanager.url: "ftp://127.0.0.1/" is not an http:// or https:// URL' \
	"$WORK/check.err" || fail "check-config said: $(cat "$WORK/check.err")"
sed 's|fabric: test-fabric|alertname: x|' "$WORK/fabmon.yaml" >"$WORK/bad2.yaml"
if "$FABMOND" --check-config -c "$WORK/bad2.yaml" 2>"$WORK/check2.err"; then
	fail "--check-config accepted a label fabmond sets itself"
fi
grep -q 'alertmanager.labels: "alertname" is set by fabmond itself' \
	"$WORK/check2.err" || fail "check-config said: $(cat "$WORK/check2.err")"
pass "alertmanager: errors name file:line:col and key"

start_fabmond am -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
wait_for 10 grep -q "firing: rail_misalignment at gpu02:mlx5_1" "$WORK/am.log" ||
	fail "no rail_misalignment incident"
wait_for 10 grep -q "alertmanager: posting to .* failed" "$WORK/am.log" ||
	fail "no failed post logged while Alertmanager is down"
pass "the pusher reports a failed post and keeps the engine running"

# am_metrics NAME CHECK: scrapes /metrics into $WORK/NAME.txt, runs
# promtool on it (when there is one), and asserts CHECK, a Python
# expression over m (sample name -> value) and t (name -> TYPE).
am_metrics() {
	http_get -o "$WORK/$1.txt" "$base/metrics" || return 1
	if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
		"$PROMTOOL" check metrics <"$WORK/$1.txt" >"$WORK/$1.promtool" 2>&1 ||
			fail "promtool check metrics: $(cat "$WORK/$1.promtool")"
	fi
	python3 - "$WORK/$1.txt" "$2" <<'PY'
import sys
m, t = {}, {}
for line in open(sys.argv[1]):
    if line.startswith("# TYPE fabmon_alertmanager_"):
        _, _, name, typ = line.split()
        t[name] = typ
    elif line.startswith("fabmon_alertmanager_"):
        # One URL here: its series (alertmanager="...") by family name.
        name, value = line.split()
        if "{" in name and "_bucket{" not in name:
            name = name[:name.index("{")]
        m[name] = m.get(name, 0) + float(value)
if not eval(sys.argv[2]):
    sys.exit("not true: %s\nsamples: %s\ntypes: %s" % (sys.argv[2], m, t))
PY
}
AMP=fabmon_alertmanager_
am_metrics down "t['${AMP}posts_total'] == 'counter' and \
	t['${AMP}post_failures_total'] == 'counter' and \
	t['${AMP}retries_total'] == 'counter' and \
	t['${AMP}queue_length'] == 'gauge' and \
	m['${AMP}configured'] == 1 and m['${AMP}posts_total'] == 0 and \
	m['${AMP}post_failures_total'] >= 1 and m['${AMP}queue_length'] >= 1 and \
	m['${AMP}alerts_tracked'] == 1 and \
	'${AMP}last_success_age_seconds' not in m" ||
	fail "pusher metrics while Alertmanager is down"
pass "/metrics: failed posts and the queued alert, typed, promtool-clean"

cat >"$WORK/am.yml" <<YAML
route:
  receiver: "null"
  group_wait: 1s
receivers:
  - name: "null"
YAML
"$AM" --config.file="$WORK/am.yml" --storage.path="$WORK/am-data" \
	--web.listen-address="127.0.0.1:$AM_PORT" --cluster.listen-address= \
	--log.level=warn 2>"$WORK/alertmanager.log" &
AM_PID=$!
PIDS="$PIDS $AM_PID"
wait_for 20 curl -sf "$AM_URL/api/v2/status" ||
	fail "Alertmanager did not start on 127.0.0.1:$AM_PORT"

alerts() {
	curl -sS --max-time 5 \
		"$AM_URL/api/v2/alerts?filter=alertname%3D%22FabmonRailMisalignment%22" \
		>"$WORK/alerts.json" &&
		python3 - "$WORK/alerts.json" "$1" <<'PY'
import json, sys, datetime
doc = json.load(open(sys.argv[1]))
if sys.argv[2] == "none":
    sys.exit(0 if not doc else 1)
assert len(doc) == 1, doc
a = doc[0]
l = a["labels"]
want = {"alertname": "FabmonRailMisalignment", "kind": "rail_misalignment",
        "device": "gpu02", "port": "mlx5_1", "origin": "gpu02:mlx5_1",
        "severity": "warning", "fabric": "test-fabric"}
assert l == want, l
assert "priority" not in l, l  # the kind has none
assert a["status"]["state"] == "active", a
assert a["annotations"]["summary"].startswith("rail_misalignment at gpu02:mlx5_1"), a
assert a["annotations"]["incident_id"].isdigit(), a
ends = datetime.datetime.fromisoformat(a["endsAt"].replace("Z", "+00:00"))
now = datetime.datetime.now(datetime.timezone.utc)
# Re-sent every resend interval with endsAt = its time + 4 x resend.
assert ends > now, (ends, now)
open(sys.argv[1] + ".updated", "w").write(a["updatedAt"])
PY
}
wait_for 20 alerts firing ||
	fail "no alert in Alertmanager: $(cat "$WORK/alerts.json")"
wait_for 10 grep -q "alertmanager: posting to .* works again" "$WORK/am.log" ||
	fail "recovery not logged"
pass "the alert arrives after retries with the incident's labels"

am_metrics up "m['${AMP}posts_total'] >= 1 and m['${AMP}retries_total'] >= 1 and \
	m['${AMP}alerts_sent_total'] >= 1 and \
	t['${AMP}last_success_age_seconds'] == 'gauge' and \
	0 <= m['${AMP}last_success_age_seconds'] < 60 and \
	m['${AMP}post_failures_total'] >= m['${AMP}retries_total']" ||
	fail "pusher metrics once Alertmanager is up"
pass "/metrics: posts, retries and the last success's age after recovery"

# Re-sent: Alertmanager's updatedAt moves on while it stays active.
first=$(cat "$WORK/alerts.json.updated")
resent() {
	alerts firing && [ "$(cat "$WORK/alerts.json.updated")" != "$first" ]
}
wait_for 20 resent || fail "alert not re-sent: $(cat "$WORK/alerts.json")"
pass "a firing alert is re-sent with endsAt in the future"

# The validation report lists the incident.
http_get "$base/api/v1/report" >"$WORK/report.json" || fail "report API"
python3 - "$WORK/report.json" <<'PY' || fail "report: $(cat "$WORK/report.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["incidents"]["counts"]["rail_misalignment"] == 1, doc["incidents"]
assert doc["verdict"] in ("warn", "fail"), doc
assert any("rail_misalignment" in r for r in doc["reasons"]), doc["reasons"]
assert [p["priority"] for p in doc["priorities"]] == [3], doc["priorities"]
PY
code=$(http_get -o "$WORK/400.json" -w '%{http_code}' "$base/api/v1/report?from=soon")
[ "$code" = 400 ] || fail "bad from gave $code"
grep -q '"error":"from:' "$WORK/400.json" || fail "400 body: $(cat "$WORK/400.json")"
pass "/api/v1/report lists the incident and rejects a bad time"

# Fix the cabling: the incident resolves and the alert goes away.
sed 's/leaf-b0:eth5/leaf-a1:Ethernet4/' "$WORK/fabmon.yaml" >"$WORK/fixed.yaml"
cp "$WORK/fixed.yaml" "$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID"
wait_for 10 grep -q "resolved: rail_misalignment" "$WORK/am.log" ||
	fail "no resolution"
wait_for 20 alerts none || fail "alert still active: $(cat "$WORK/alerts.json")"
pass "the resolution is posted and the alert leaves Alertmanager"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
pass "fabmond stops cleanly with the pusher running"

# End to end with a storm: fabsim's host1 NIC stops draining and pauses
# leaf1; fabmond (fabsim's emitted config plus alertmanager: and a short
# report step) pushes the pfc_storm with its priority, and the report
# sees the pause time and names host1 among the stragglers.
FABSIM="$top_builddir/fabsim"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"
storm_fabric "$WORK" 1 2 sonic sonic 2 leaf1:Ethernet0
"$FABSIM" -s "$WORK/storm.yaml" --no-snmp \
	--nic-dir "$WORK/nic" --nic-hosts host0,host1 \
	--emit-config "$WORK/sim.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 20 test -s "$WORK/sim.yaml" || fail "fabsim emitted no config"
cat >>"$WORK/sim.yaml" <<YAML
alertmanager:
  url: $AM_URL
  resend: 2s
report:
  step: 1s
  window: 10m
YAML
start_fabmond storm -c "$WORK/sim.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
storm_alert() {
	curl -sS --max-time 5 \
		"$AM_URL/api/v2/alerts?filter=alertname%3D%22FabmonPfcStorm%22" \
		>"$WORK/storm.json" &&
		python3 - "$WORK/storm.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc) >= 1, doc
l = doc[0]["labels"]
want = {"alertname": "FabmonPfcStorm", "kind": "pfc_storm",
        "device": "host1", "port": "mlx5_0", "origin": "host1:mlx5_0",
        "priority": "3", "severity": "critical"}
assert l == want, l
PY
}
wait_for 40 storm_alert || fail "no pfc_storm alert: $(cat "$WORK/storm.json")"
pass "a fabsim storm reaches Alertmanager with kind, device, port, priority, origin"

storm_report() {
	http_get "$base/api/v1/report?top=3" >"$WORK/storm-report.json" &&
		python3 - "$WORK/storm-report.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["verdict"] == "fail", doc["reasons"]
assert doc["incidents"]["counts"]["pfc_storm"] >= 1, doc["incidents"]
p3 = [p for p in doc["priorities"] if p["priority"] == 3][0]
assert p3["lossless"] and p3["pause_seconds_rx"] > 1, p3
# host1 pauses its leaf (tx) and host0 is held paused (rx) for about the
# same time, so either may rank first; both must be there, host1 as sender.
st = {s["device"]: s for s in doc["stragglers"]}
assert set(st) >= {"host0", "host1"}, doc["stragglers"]
assert st["host1"]["pause_seconds_tx"] > 1, doc["stragglers"]
assert st["host0"]["pause_seconds_rx"] > 1, doc["stragglers"]
PY
}
wait_for 40 storm_report || fail "report: $(cat "$WORK/storm-report.json")"
pass "/api/v1/report shows the storm, its pause time and both hosts as stragglers"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
stop_pid "$SIM_PID"
stop_pid "$AM_PID"
