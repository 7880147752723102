#!/bin/sh
# integration_openmetrics: a real fabmond on 127.0.0.1 asked for
# OpenMetrics as Prometheus asks (plain and gzip): the answer must parse
# with the Prometheus Python client's OpenMetrics parser (strict: # EOF,
# families, units, _created), carry the build revision and plausible
# process_* figures; the 0.0.4 text still passes promtool; then a real
# Prometheus scrapes fabmond and its API shows the target up, the
# fabmon_ and process_ series, and the metadata only OpenMetrics
# carries (an info type, a unit).
. "${top_srcdir:-.}/tests/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

# The Debian package python3-prometheus-client installs for the
# system's python3, which need not be the first on PATH.
PYOM=""
for py in python3 /usr/bin/python3; do
	if command -v "$py" >/dev/null &&
		"$py" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
		PYOM=$py
		break
	fi
done

test_start=$(date +%s)
cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
interval: 1s
targets:
  - name: leaf1
    gnmi:
      address: 127.0.0.1:1
      insecure: true
YAML
start_fabmond daemon -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
revision=$("$top_srcdir/scripts/git-revision" "$top_srcdir")

# What Prometheus 2.x sends.
ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
http_get -H "Accept: $ACCEPT" -D "$WORK/om.hdr" -o "$WORK/om.txt" \
	"$base/metrics" || fail "OpenMetrics scrape failed"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0; charset=utf-8' \
	"$WORK/om.hdr" || fail "content type: $(cat "$WORK/om.hdr")"
[ "$(tail -n 1 "$WORK/om.txt")" = "# EOF" ] || fail "no # EOF at the end"
[ "$(grep -c '^# EOF$' "$WORK/om.txt")" = 1 ] || fail "# EOF more than once"
pass "Accept as Prometheus sends it gets OpenMetrics, ending in # EOF"

http_get -H "Accept: $ACCEPT" -H 'Accept-Encoding: gzip' \
	-D "$WORK/omz.hdr" -o "$WORK/om.gz" "$base/metrics" ||
	fail "gzip OpenMetrics scrape failed"
grep -qi '^content-encoding: gzip' "$WORK/omz.hdr" || fail "not gzip"
gzip -dc "$WORK/om.gz" >"$WORK/omz.txt" || fail "gzip body does not inflate"
[ "$(tail -n 1 "$WORK/omz.txt")" = "# EOF" ] || fail "gzip: no # EOF"
pass "OpenMetrics is gzip-compressed when asked"

if [ -n "$PYOM" ]; then
	for f in om.txt omz.txt; do
		"$PYOM" - "$WORK/$f" "$revision" "$test_start" \
			>"$WORK/parse.log" 2>&1 <<'PY' ||
import sys, time
from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families
path, revision, test_start = sys.argv[1], sys.argv[2], float(sys.argv[3])
fams = {f.name: f for f in text_string_to_metric_families(open(path).read())}
def one(name, sample=None):
    s = [x for x in fams[name].samples if x.name == (sample or name)]
    assert len(s) == 1, (name, s)
    return s[0]
assert fams["fabmon_build"].type == "info"
b = one("fabmon_build", "fabmon_build_info")
assert b.labels["revision"] == revision, (b.labels, revision)
assert b.labels["version"], b.labels
c = fams["process_cpu_seconds"]
assert c.type == "counter" and c.unit == "seconds", (c.type, c.unit)
cpu = one("process_cpu_seconds", "process_cpu_seconds_total").value
assert cpu >= 0, cpu
assert fams["process_resident_memory_bytes"].unit == "bytes"
assert one("process_resident_memory_bytes").value > 0
assert one("process_open_fds").value >= 3
assert one("process_max_fds").value >= one("process_open_fds").value
# fabmond started after this test did (btime is whole seconds).
start = one("process_start_time_seconds").value
assert test_start - 2 <= start <= time.time() + 1, (test_start, start)
up = fams["fabmon_target_up"]
assert up.type == "gauge" and len(up.samples) == 1, up
u = fams["fabmon_target_updates"]
names = sorted(s.name for s in u.samples)
assert names == ["fabmon_target_updates_created",
                 "fabmon_target_updates_total"], names
created = [s for s in u.samples if s.name.endswith("_created")][0].value
assert test_start - 1 <= created <= time.time() + 1, created
# Device families have no _created; fabmond's own counters do.
assert any(s.name == "fabmon_store_updates_created"
           for s in fams["fabmon_store_updates"].samples)
print(len(fams), "families")
PY
			fail "the OpenMetrics parser rejects $f: $(cat "$WORK/parse.log")"
	done
	pass "prometheus_client's OpenMetrics parser accepts both, figures plausible"
elif [ "${CI:-}" = true ]; then
	fail "python3-prometheus-client is missing in CI"
else
	echo "# prometheus_client not importable: parser check skipped"
fi

http_get -D "$WORK/text.hdr" -o "$WORK/text.txt" "$base/metrics" ||
	fail "text scrape failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/text.hdr" ||
	fail "no Accept did not give the text format"
grep -q '^process_cpu_seconds_total ' "$WORK/text.txt" ||
	fail "no process_cpu_seconds_total in the text format"
if grep -q '_created\|^# EOF\|^# UNIT' "$WORK/text.txt"; then
	fail "OpenMetrics lines in the text format"
fi
if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/text.txt" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool check metrics: $(cat "$WORK/promtool.log")"
fi
pass "without Accept: the 0.0.4 text, promtool-clean"

code=$(http_get -o "$WORK/index.html" -w '%{http_code}' "$base/")
[ "$code" = 200 ] || fail "/ gave $code"
grep -q '<a href="metrics">' "$WORK/index.html" || fail "/ has no metrics link"
pass "/ is the index page"

# A real Prometheus scraping fabmond.
PROM=$(command -v prometheus || true)
if [ -z "$PROM" ]; then
	[ "${CI:-}" = true ] && fail "prometheus is missing in CI"
	echo "# prometheus not found: scrape not checked"
	echo "# $CHECKS_PASSED checks passed"
	exit 0
fi
PROM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PROM_URL="http://127.0.0.1:$PROM_PORT"
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: fabmon
    static_configs:
      - targets: ["127.0.0.1:$FABMOND_PORT"]
YAML
"$PROM" --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" \
	--log.level=warn 2>"$WORK/prometheus.log" &
PROM_PID=$!
PIDS="$PIDS $PROM_PID"
wait_for 30 curl -sf "$PROM_URL/-/ready" ||
	fail "Prometheus did not start on 127.0.0.1:$PROM_PORT"

# query EXPR: true once the instant query has a result; its JSON in
# $WORK/query.json.
query() {
	curl -sS --max-time 5 -G --data-urlencode "query=$1" \
		"$PROM_URL/api/v1/query" >"$WORK/query.json" &&
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["status"] == "success" and d["data"]["result"] else 1)' \
			"$WORK/query.json"
}
wait_for 60 query 'up{job="fabmon"} == 1' ||
	fail "the fabmon target is not up: $(curl -s "$PROM_URL/api/v1/targets")"
pass "Prometheus scrapes fabmond: target up"

wait_for 30 query "fabmon_build_info{revision=\"$revision\"}" ||
	fail "no fabmon_build_info with revision $revision: $(cat "$WORK/query.json")"
query 'process_cpu_seconds_total{job="fabmon"}' || fail "no process_cpu_seconds_total"
query 'process_resident_memory_bytes{job="fabmon"} > 0' ||
	fail "no process_resident_memory_bytes"
query 'fabmon_target_up{target="leaf1"}' || fail "no fabmon_target_up"
pass "Prometheus has the fabmon_ and process_ series"

# The scrape was OpenMetrics: only that format types fabmon_build as
# info and gives process_cpu_seconds its unit.
curl -sS --max-time 5 -G --data-urlencode 'match_target={job="fabmon"}' \
	"$PROM_URL/api/v1/targets/metadata" >"$WORK/metadata.json" ||
	fail "metadata query failed"
python3 - "$WORK/metadata.json" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))["data"]
m = {e["metric"]: e for e in d}
assert m["fabmon_build"]["type"] == "info", m.get("fabmon_build")
assert m["process_cpu_seconds"]["type"] == "counter", m.get("process_cpu_seconds")
assert m["process_cpu_seconds"]["unit"] == "seconds", m.get("process_cpu_seconds")
assert "fabmon_build_info" not in m
PY
	fail "target metadata is not OpenMetrics': $(head -c 2000 "$WORK/metadata.json")"
pass "Prometheus negotiated OpenMetrics (info type, units in its metadata)"

stop_pid "$PROM_PID"
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
echo "# $CHECKS_PASSED checks passed"
