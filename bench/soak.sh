#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# soak: fabmond on fabsim for a long time, watched from outside. fabsim
# plays a scenario in a loop (default sim/scenarios/demo.yaml: an incast
# and a NIC PFC storm every minute) on its noisy background (PFC
# trickle, ECN marks, background discards, flaps, reboots, late and lost
# samples), with a second, generated fabric of every flavour beside it
# (gNMI and SNMP) so that many targets churn; clients scrape /metrics and
# read the API every few seconds. Every INTERVAL seconds it prints
# fabmond's RSS, open fds, threads, CPU (share of one core over the
# interval and in total), the incidents that fired and are active, and
# at the end the drift of RSS and fds between the first sample after
# warm-up and the last. Figures only: it fails only if fabmond dies.
#
# Usage (from the source tree, after a build):
#   bench/soak.sh [-m MINUTES] [-i INTERVAL] [-b BUILDDIR] [-s SCENARIO]
#       [-n HOSTS]
# Defaults: 30 minutes, 60 s, build/, demo.yaml, 32 hosts in the
# generated fabric (4 spines, 8 leaves, 2 NICs each).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
minutes=30
every=60
build="$src/build"
scenario="$src/sim/scenarios/demo.yaml"
hosts=32
while getopts m:i:b:s:n:h opt; do
	case $opt in
	m) minutes=$OPTARG ;;
	i) every=$OPTARG ;;
	b) build=$OPTARG ;;
	s) scenario=$OPTARG ;;
	n) hosts=$OPTARG ;;
	*)
		sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
		[ "$opt" = h ] && exit 0
		exit 2
		;;
	esac
done
for p in fabmond fabsim; do
	[ -x "$build/$p" ] || {
		echo "soak: no $build/$p (build first: scripts/build)" >&2
		exit 2
	}
done
command -v curl >/dev/null || {
	echo "soak: needs curl" >&2
	exit 2
}
work=$(mktemp -d "${TMPDIR:-/tmp}/fabmon-soak.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The scenario's fabric, looping, and a generated one beside it; each
# fabsim writes a config, and fabmond reads both fabrics' targets.
"$build/fabsim" -s "$scenario" --loop --no-snmp --nic-dir "$work/nic1" \
	--emit-config "$work/a.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$src/etc/profiles" 2>"$work/fabsim1.log" &
pids="$pids $!"
leaves=$(((hosts + 3) / 4))
[ "$leaves" -ge 2 ] || leaves=2 # one leaf per NIC rail at least
"$build/fabsim" --spines 4 --leaves "$leaves" --hosts "$hosts" --nics 2 \
	--flavours sonic,arista,openconfig --load 0.6 --seed 11 \
	--nic-dir "$work/nic2" --nic-hosts none \
	--emit-config "$work/b.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$src/etc/profiles" 2>"$work/fabsim2.log" &
pids="$pids $!"
# wait_until WHAT COMMAND...: polls COMMAND every 0.1 s for up to 60 s;
# exits saying WHAT did not happen if it never succeeds.
wait_until() {
	_what=$1
	shift
	_i=0
	until "$@"; do
		_i=$((_i + 1))
		[ $_i -lt 600 ] || {
			echo "soak: $_what" >&2
			exit 1
		}
		sleep 0.1
	done
}
configs_written() {
	for p in $pids; do
		kill -0 "$p" 2>/dev/null || {
			echo "soak: fabsim exited:" >&2
			cat "$work"/fabsim*.log >&2
			exit 1
		}
	done
	[ -s "$work/a.yaml" ] && [ -s "$work/b.yaml" ]
}
wait_until "fabsim wrote no config" configs_written
# One config: a.yaml whole, then b.yaml's targets renamed g-* (both
# generated fabrics name their switches spine0, leaf0, ...), its links
# dropped (LLDP finds them).
python3 - "$work/a.yaml" "$work/b.yaml" >"$work/fabmon.yaml" <<'PY'
import re, sys
a = open(sys.argv[1]).read()
b = open(sys.argv[2]).read()
tb = b.split("\ntargets:\n", 1)[1]
tb = re.split(r"\n(?=[a-z_]+:)", tb, maxsplit=1)[0]
tb = re.sub(r'(name|device): "([^"]+)"', r'\1: "g-\2"', tb)
ta_head, ta_rest = a.split("\ntargets:\n", 1)
print(ta_head + "\ntargets:\n" + tb.rstrip("\n") + "\n" + ta_rest)
PY
"$build/fabmond" --check-config -c "$work/fabmon.yaml" >/dev/null || {
	echo "soak: the merged config was refused" >&2
	exit 1
}
"$build/fabmond" -f -c "$work/fabmon.yaml" 2>"$work/fabmond.log" &
fpid=$!
pids="$pids $fpid"
wait_until "fabmond did not start" grep -q "listening on" "$work/fabmond.log"
port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$work/fabmond.log" | head -n 1)
base="http://127.0.0.1:$port"
(while :; do
	curl -s -o /dev/null "$base/metrics"
	curl -s -o /dev/null "$base/api/v1/incidents"
	curl -s -o /dev/null "$base/api/v1/ports"
	sleep 5
done) &
pids="$pids $!"

hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$fpid/stat"; }
fired() {
	curl -s "$base/metrics" | awk '/^fabmon_incidents_total/ {n += $NF} END {printf "%d", n}'
}
active() {
	curl -s "$base/api/v1/incidents" | grep -o '"state": *"firing"' | wc -l
}
ntargets=$(grep -c '^  - name:' "$work/fabmon.yaml")
echo "# soak: $($build/fabmond --version 2>&1 | head -n 1), $ntargets targets, $minutes min, every $every s"
printf '%8s %10s %6s %8s %7s %9s %7s %7s\n' t_s rss_kib fds threads cpu_% cpu_s fired active
t0=$(date +%s)
last_t=$t0
last_c=$(cpu_ticks)
first_rss=
first_fds=
end=$((t0 + minutes * 60))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep "$every"
	kill -0 "$fpid" 2>/dev/null || {
		echo "soak: fabmond died; its log's end:" >&2
		tail -n 20 "$work/fabmond.log" >&2
		exit 1
	}
	now=$(date +%s)
	c=$(cpu_ticks)
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$fpid/status")
	thr=$(awk '/^Threads:/ {print $2}' "/proc/$fpid/status")
	fds=$(ls "/proc/$fpid/fd" | wc -l)
	pct=$(awk -v d=$((c - last_c)) -v t=$((now - last_t)) -v hz="$hz" \
		'BEGIN {printf "%.1f", (t > 0 ? 100 * d / hz / t : 0)}')
	tot=$(awk -v c="$c" -v hz="$hz" 'BEGIN {printf "%.1f", c / hz}')
	printf '%8d %10d %6d %8d %7s %9s %7s %7s\n' $((now - t0)) "$rss" "$fds" \
		"$thr" "$pct" "$tot" "$(fired)" "$(active)"
	# Warm-up: the first two samples (profiles, maps and every stream
	# still being set up) are not the baseline of the drift.
	if [ $((now - t0)) -ge $((2 * every)) ] && [ -z "$first_rss" ]; then
		first_rss=$rss
		first_fds=$fds
	fi
	last_rss=$rss
	last_fds=$fds
	last_t=$now
	last_c=$c
done
if [ -n "$first_rss" ]; then
	echo "# drift after warm-up: RSS $first_rss -> $last_rss KiB ($((last_rss - first_rss)) KiB), fds $first_fds -> $last_fds"
fi
echo "# crashes: 0; fabmond log lines: $(wc -l <"$work/fabmond.log"), warnings and errors: $(grep -c ' warn \| error ' "$work/fabmond.log" || true)"
