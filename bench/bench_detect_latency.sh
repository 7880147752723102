#!/bin/sh
# bench_detect_latency: detection latency per incident kind, end to end.
# Runs the scenario suite (tests/scenario_suite.py: the real fabsim on
# loopback, the real fabmond on its emitted config, /api/v1/incidents
# polled every 200 ms) ROUNDS times and prints, per kind, how long after
# the scenario's onset (the truth's `from`, mapped to the wall clock
# through fabsim's position) the incident fired: count, min, median,
# max, and the issue's goal (one sample interval + 100 ms; fabsim's
# samples are 1 s apart). Figures only: it never fails on time.
#
# Usage (from a build directory):
#   top_srcdir=/path/to/src sh $top_srcdir/bench/bench_detect_latency.sh \
#       [-r ROUNDS] [-j JOBS] [--tick DUR] [SCENARIO...]
# --tick sets fabmond's rules.tick (default: fabmond's own, which ticks
# on sample arrival; see doc/rules.md).
set -eu
: "${top_srcdir:=.}"
: "${top_builddir:=.}"
export top_srcdir top_builddir
rounds=1
args=""
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	*) args="$args $1"; shift ;;
	esac
done
out=$(mktemp -d "${TMPDIR:-/tmp}/bench_detect.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
i=1
while [ "$i" -le "$rounds" ]; do
	echo "# round $i of $rounds"
	# shellcheck disable=SC2086 # word splitting wanted
	python3 "$top_srcdir/tests/scenario_suite.py" --json "$out/r$i.json" \
		$args >"$out/r$i.txt" 2>&1 || echo "# round $i: the suite failed (see the table)"
	grep -v '^20[0-9][0-9]-\|^fabsim: ' "$out/r$i.txt" | sed -n '/^scenario /,/^# [0-9]* scenarios/p'
	i=$((i + 1))
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
rows = []
for f in sorted(glob.glob(sys.argv[1] + "/r*.json")):
    rows += json.load(open(f))["rows"]
by = {}
for r in rows:
    if r["latency"] is not None and r["origin_ok"]:
        by.setdefault(r["kind"], []).append(r["latency"])
print("\n%-24s %3s %8s %8s %8s   %s" % ("kind", "n", "min s", "median s",
                                       "max s", "scenarios"))
for k in sorted(by):
    v = sorted(by[k])
    sc = sorted({r["scenario"] for r in rows if r["kind"] == k})
    print("%-24s %3d %8.2f %8.2f %8.2f   %s" % (
        k, len(v), v[0], statistics.median(v), v[-1], ",".join(sc)))
print("# goal: one sample interval (1 s) + 100 ms = 1.10 s from onset")
PY
