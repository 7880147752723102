#!/bin/sh
# bench_fabsim_scale: one fabsim process serving a generated fabric of
# about a thousand switches (default: 32 spines, 960 leaves of 64 ports,
# 3,840 hosts with 8 NICs) over gNMI at 1 s sampling, every switch
# subscribed by a real fabmond on fabsim's emitted config (gNMI only).
# Prints fabsim's CPU (user+sys seconds per second of wall time), the
# model's step cost, the publish cost per switch and the publish
# interval fabsim can sustain on one core, and fabmond's CPU. Prints
# figures; never fails on time.
#
#   bench/bench_fabsim_scale.sh [BUILD_DIR] [SECONDS]
#   SPINES=8 LEAVES=64 HOSTS=512 NICS=8 FLAVOURS=sonic,arista,openconfig
#   PUBLISH=5s (fabmond then samples every 5 s too) ...
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$src/build"}
secs=${2:-30}
spines=${SPINES:-32}
leaves=${LEAVES:-960}
hosts=${HOSTS:-3840}
nics=${NICS:-8}
flavours=${FLAVOURS:-sonic}
load=${LOAD:-0.5}
publish=${PUBLISH:-1s}
work=$(mktemp -d "${TMPDIR:-/tmp}/fabsim-scale.XXXXXX")
sim=""
fm=""
cleanup() {
	[ -n "$fm" ] && kill "$fm" 2>/dev/null && wait "$fm" 2>/dev/null
	[ -n "$sim" ] && kill "$sim" 2>/dev/null && wait "$sim" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

cpu_ticks() { # PID: utime+stime in clock ticks
	awk '{print $14 + $15}' "/proc/$1/stat"
}
hz=$(getconf CLK_TCK)

echo "fabsim scale: $spines spines, $leaves leaves, $hosts hosts x $nics NICs," \
	"flavours $flavours, load $load, publish and sampling every $publish"
"$build/fabsim" --spines "$spines" --leaves "$leaves" --hosts "$hosts" \
	--nics "$nics" --flavours "$flavours" --load "$load" --no-snmp \
	--publish "$publish" \
	--control 127.0.0.1:0 --emit-config "$work/fabmon.yaml" \
	--fabmond-listen 127.0.0.1:0 --profiles-dir "$src/etc/profiles" \
	-v 2>"$work/fabsim.log" &
sim=$!
i=0
until [ -s "$work/fabmon.yaml" ]; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $sim 2>/dev/null; then
		echo "fabsim did not start:" >&2
		cat "$work/fabsim.log" >&2
		exit 1
	fi
	sleep 0.1
done
ctl=$(sed -n 's|^# fabsim control: \(http://.*\)$|\1|p' "$work/fabmon.yaml")
switches=$(grep -c '^  - name:' "$work/fabmon.yaml")
# The gNMI collector's threads and connection limit for a thousand
# targets.
printf 'gnmi:\n  threads: 2\n  max_connecting: 256\n' >>"$work/fabmon.yaml"
t0=$(date +%s.%N)
c0=$(cpu_ticks $sim)
"$build/fabmond" -f -c "$work/fabmon.yaml" 2>"$work/fabmond.log" &
fm=$!

# Wait (bounded) until every switch has a stream open.
streamed() {
	curl -s "$ctl/status" | tr '{' '\n' | grep -c '"streams":[1-9]' || true
}
i=0
while [ "$(streamed)" -lt "$switches" ] && [ $i -lt 300 ]; do
	sleep 1
	i=$((i + 1))
done
n=$(streamed)
t1=$(date +%s.%N)
echo "subscribed: $n of $switches switches after $(echo "$t1 $t0" | awk '{printf "%.1f", $1 - $2}') s"

# Steady state.
sleep 5
s0=$(cpu_ticks $sim)
f0=$(cpu_ticks $fm)
w0=$(date +%s.%N)
sleep "$secs"
s1=$(cpu_ticks $sim)
f1=$(cpu_ticks $fm)
w1=$(date +%s.%N)
wall=$(echo "$w1 $w0" | awk '{print $1 - $2}')
sim_cpu=$(echo "$s1 $s0 $hz $wall" | awk '{printf "%.3f", ($1 - $2) / $3 / $4}')
fm_cpu=$(echo "$f1 $f0 $hz $wall" | awk '{printf "%.3f", ($1 - $2) / $3 / $4}')
kill -TERM $sim
wait $sim || true
sim=""
last=$(grep 'cpu .* s/s' "$work/fabsim.log" | tail -n 1)
echo "fabsim: $last"
echo "fabsim CPU over ${secs} s of steady state: $sim_cpu s/s (one core = 1.0)"
echo "fabmond CPU over the same window: $fm_cpu s/s"
step=$(echo "$last" | sed -n 's/.*model step \([0-9.]*\) ms\/tick.*/\1/p')
pub=$(echo "$last" | sed -n 's/.*publish \([0-9.]*\) ms per switch.*/\1/p')
grpc=$(echo "$last" | sed -n 's/.*gRPC \([0-9.]*\) ms per switch.*/\1/p')
if [ -n "$step" ] && [ -n "$pub" ] && [ -n "$grpc" ]; then
	# CPU-time costs, independent of how busy the machine is.
	echo "$step $pub $grpc $switches" | awk '{
		model = $1 * 10 / 1000     # CPU s per s at 10 ticks/s
		sw = ($2 + $3) / 1000      # CPU s per switch per sample round
		printf "per second of simulated time: model %.3f s of CPU (%.1f ms per 100 ms tick)\n", model, $1
		printf "per switch per sample round: %.3f ms (publish %.3f + gRPC %.3f)\n", sw * 1000, $2, $3
		printf "this fabric (%d switches) at 1 s sampling needs %.2f cores (model %.2f + serving %.2f)\n", $4, model + $4 * sw, model, $4 * sw
		if (model < 1)
			printf "one core: these %d switches at %.2f s sampling; or %d switches like these at 1 s besides this model\n", $4, $4 * sw / (1 - model), (1 - model) / sw
		printf "serving alone (model aside): %d switches like these per core at 1 s\n", 1 / sw
	}'
fi
