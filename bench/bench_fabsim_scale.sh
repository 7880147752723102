#!/bin/sh
# bench_fabsim_scale: one fabsim process serving a generated fabric of
# a thousand switches over gNMI at 1 s sampling, every switch
# subscribed. The default fabric is 40 spines and 960 leaves, 1,000
# switches each with at least 64 ports: a leaf has 32 host ports (3,840
# hosts with 8 NICs, rail-optimised) and 40 uplinks, 72 ports; a spine
# one port per leaf, 960; 107,520 switch ports in all.
#
# The subscriber is bench/fabsim_sink by default: one Subscribe STREAM
# per switch of fabsim's emitted config, with the subscriptions fabmond
# would send, counting messages and bytes without decoding them, so
# that every switch stays subscribed even where fabmond could not
# decode half a gigabyte of JSON a second. It says how many switches
# delivered in each second of the window, and how many delivered in
# every one of their sample rounds (each switch's seconds centred on its
# own samples, so that one falling near a wall-clock second's edge and
# a few ms late is not counted as missing): the figures count only if
# all of them did. SINK=fabmond subscribes with a real fabmond instead
# (gNMI only), and prints its CPU too.
#
# Prints, from per-thread CPU time in /proc (user+sys, seconds of CPU
# per second of wall time; one core = 1.0) over a steady-state window:
# fabsim's total, its run loop (the model's steps and the publish that
# formats every switch's counters; fabsim's own accounting splits the
# two), the gNMI target loop thread and gRPC's threads (serving), the
# serving cost per switch and per port per sample round, whether it all
# fits one core and how many such switches one core would serve at 1 s
# (extrapolated from the per-switch cost); and the subscriber's CPU.
# CPU time does not depend much on how busy the machine is, but the
# load average is printed with the figures. Prints figures; never fails
# on time.
#
#   bench/bench_fabsim_scale.sh [BUILD_DIR] [SECONDS]
#   SINK=sink|fabmond SPINES=40 LEAVES=960 HOSTS=3840 NICS=8
#   FLAVOURS=sonic,arista,openconfig
#   PUBLISH=5s (the subscriber then samples every 5 s too) LOAD=0.5
#   STATIC_LINKS=1 also declares the cabling in fabmond's config (61,440
#   links, a few MB: more than fabmond's config file limit at this size)
#   PERF=1 records fabsim with perf over the window (perf.data in the
#   current directory)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$src/build"}
secs=${2:-30}
spines=${SPINES:-40}
leaves=${LEAVES:-960}
hosts=${HOSTS:-3840}
nics=${NICS:-8}
flavours=${FLAVOURS:-sonic}
load=${LOAD:-0.5}
publish=${PUBLISH:-1s}
links=--no-static-links
sink=${SINK:-sink}
case $sink in sink | fabmond) ;; *)
	echo "SINK must be sink or fabmond" >&2
	exit 2
	;;
esac
[ "${STATIC_LINKS:-0}" = 1 ] && links=""
work=$(mktemp -d "${TMPDIR:-/tmp}/fabsim-scale.XXXXXX")
sim=""
fm=""
perf=""
# Stops PID: TERM, then KILL if it is not gone within 10 s (a fabsim
# closing a thousand targets on a loaded machine can take long).
stop() {
	kill "$1" 2>/dev/null || return 0
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
cleanup() {
	[ -n "$perf" ] && stop "$perf"
	[ -n "$fm" ] && stop "$fm"
	[ -n "$sim" ] && stop "$sim"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# PID: one line per thread, "tid comm utime+stime" in clock ticks (the
# fields after the parenthesised comm, which may hold spaces).
threads() {
	for f in /proc/"$1"/task/*/stat; do
		cat "$f" 2>/dev/null || true
	done | sed 's/^\([0-9]*\) (\(.*\)) /\1 \2|/' | awk -F'|' '{
		split($1, h, " "); n = split($2, a, " ")
		name = substr($1, length(h[1]) + 2); gsub(/ /, "_", name)
		print h[1], name, a[12] + a[13] }'
}
cpu_ticks() { # PID: utime+stime of the whole process in clock ticks
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}
hz=$(getconf CLK_TCK)
die() {
	echo "$1" >&2
	[ -f "$2" ] && tail -n 20 "$2" >&2
	exit 1
}

echo "fabsim scale: $spines spines, $leaves leaves, $hosts hosts x $nics NICs," \
	"flavours $flavours, load $load, publish and sampling every $publish"
echo "machine: $(nproc) CPUs, load average$(uptime | sed 's/.*load average//')"
"$build/fabsim" --spines "$spines" --leaves "$leaves" --hosts "$hosts" \
	--nics "$nics" --flavours "$flavours" --load "$load" --no-snmp \
	--publish "$publish" $links \
	--control 127.0.0.1:0 --emit-config "$work/fabmon.yaml" \
	--fabmond-listen 127.0.0.1:0 --profiles-dir "$src/etc/profiles" \
	-v 2>"$work/fabsim.log" &
sim=$!
sim_pid=$sim
t0=$(date +%s.%N)
i=0
until [ -s "$work/fabmon.yaml" ] && grep -q '^targets:' "$work/fabmon.yaml"; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $sim 2>/dev/null; then
		die "fabsim did not start:" "$work/fabsim.log"
	fi
	sleep 0.1
done
sleep 0.5 # the file is written at once, but let it be closed
ctl=$(sed -n 's|^# fabsim control: \(http://.*\)$|\1|p' "$work/fabmon.yaml")
switches=$(grep -c '^  - name:' "$work/fabmon.yaml")
echo "fabsim serving after $(echo "$(date +%s.%N) $t0" |
	awk '{printf "%.1f", $1 - $2}') s; config $(wc -c <"$work/fabmon.yaml") bytes"
streamed() {
	curl -s -m 10 "$ctl/status" | tr '{' '\n' | grep -c '"streams":[1-9]' ||
		true
}
t0=$(date +%s.%N)
if [ "$sink" = fabmond ]; then
	# The gNMI collector's threads and connection limit for a thousand
	# targets.
	printf 'gnmi:\n  threads: 2\n  max_connecting: 256\n' >>"$work/fabmon.yaml"
	"$build/fabmond" -f -c "$work/fabmon.yaml" 2>"$work/fabmond.log" &
	fm=$!
	log=$work/fabmond.log
	# Wait (bounded) until every switch has a stream open; give up at
	# once if either process is gone.
	i=0
	while [ "$(streamed)" -lt "$switches" ] && [ $i -lt 120 ]; do
		# (at most two minutes: on a busy machine a thousand
		# subscriptions may not all settle; the costs are then per
		# subscribed switch)
		kill -0 $fm 2>/dev/null || die "fabmond exited:" "$log"
		kill -0 $sim 2>/dev/null || die "fabsim exited:" "$work/fabsim.log"
		sleep 1
		i=$((i + 1))
	done
	n=$(streamed)
	echo "subscribed: $n of $switches switches after $(echo "$(date +%s.%N) $t0" |
		awk '{printf "%.1f", $1 - $2}') s"
	# Steady state: let the subscriptions' first dumps go by.
	sleep 5
else
	# The sink waits (at most two minutes) for every stream's
	# sync_response, lets 5 s go by, then counts for the window (and
	# keeps its streams open until it is stopped).
	"$build/bench/fabsim_sink" -k -s "$secs" -w 5 -t 120 "$work/fabmon.yaml" \
		>"$work/sink.out" 2>"$work/sink.log" &
	fm=$!
	log=$work/sink.log
	i=0
	until grep -qs 'window begins' "$work/sink.out"; do
		i=$((i + 1))
		kill -0 $fm 2>/dev/null || die "fabsim_sink exited:" "$log"
		kill -0 $sim 2>/dev/null || die "fabsim exited:" "$work/fabsim.log"
		[ $i -lt 1500 ] || die "fabsim_sink did not start its window:" "$log"
		sleep 0.1
	done
	sed -n 's/^fabsim_sink: \([0-9]* of [0-9]* streams synced.*\)/subscribed: \1/p' \
		"$work/sink.out"
	n=$(sed -n 's/^fabsim_sink: \([0-9]*\) of [0-9]* streams synced.*/\1/p' \
		"$work/sink.out")
	n=${n:-0}
fi
if [ "${PERF:-0}" = 1 ]; then
	perf record -g -p "$sim" -o perf.data -- sleep "$secs" \
		>"$work/perf.log" 2>&1 &
	perf=$!
fi
threads $sim >"$work/t0"
f0=$(cpu_ticks $fm)
w0=$(date +%s.%N)
sleep "$secs"
threads $sim >"$work/t1"
f1=$(cpu_ticks $fm)
w1=$(date +%s.%N)
if [ "$sink" = fabmond ]; then
	# Serving costs are per subscribed switch (all of them, normally).
	n1=$(streamed)
	echo "subscribed during the window: $n at its start, $n1 at its end"
else
	i=0
	until grep -q 'fabsim_sink: window [0-9]' "$work/sink.out" ||
		[ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	summary=$(grep 'fabsim_sink: window [0-9]' "$work/sink.out" || true)
	# (asked after the sink's window: fabsim's status call walks every
	# switch and would hold up the serving it measures)
	echo "fabsim has streams open on $(streamed) of $switches switches"
	stop "$fm"
	fm=""
	[ -n "$summary" ] || die "fabsim_sink gave no summary:" "$log"
	echo "targets delivering in each second of the window:" $(sed -n \
		's/^fabsim_sink: second [0-9]*: \([0-9]*\) targets.*/\1/p' \
		"$work/sink.out")
	echo "targets delivering in each of their sample rounds:" $(sed -n \
		's/^fabsim_sink: round [0-9]*: \([0-9]*\) targets.*/\1/p' \
		"$work/sink.out")
	echo "sink: ${summary#fabsim_sink: }"
	every=$(echo "$summary" | sed -n 's/.* \([0-9]*\) delivered in every round.*/\1/p')
	echo "served every round (every second, each at its own phase): ${every:-0} of $switches switches"
	n1=$n
fi
# Serving costs are per subscribed switch (all of them, normally).
served=$(((n + n1) / 2))
[ "$served" -gt 0 ] || served=1
[ -z "$fm" ] || kill -0 $fm 2>/dev/null || die "fabmond exited:" "$log"
wall=$(echo "$w1 $w0" | awk '{print $1 - $2}')
# fabsim's own report, every 10 s with -v: the last one.
last=$(grep 'cpu .* s/s' "$work/fabsim.log" | tail -n 1)
echo "fabsim's own report: ${last#fabsim: }"
ports=$(echo "$spines $leaves $hosts $nics" |
	awk '{ print $1 * $2 + $2 * ($1 + $3 * $4 / $2) }')
step=$(echo "$last" | sed -n 's/.*model step \([0-9.]*\) ms\/tick.*/\1/p')
pub=$(echo "$last" | sed -n 's/.*publish \([0-9.]*\) ms per switch.*/\1/p')
echo "load average after: $(uptime | sed 's/.*load average: //')"
# Per-thread CPU over the window: the run loop is the thread whose id
# is the process's, gnmi-target the target library's loop, the rest
# gRPC's threads (and the control endpoint's, which is idle here).
awk -v hz="$hz" -v wall="$wall" -v pid="$sim_pid" -v sw="$switches" \
	-v served="$served" -v who="$sink" \
	-v ports="$ports" -v step="${step:-0}" -v pub="${pub:-0}" \
	-v secs="$secs" -v fm="$(echo "$f1 $f0 $hz $wall" |
		awk '{printf "%.3f", ($1 - $2) / $3 / $4}')" '
	FNR == NR { c0[$1] = $3; next }
	{
		d = ($3 - c0[$1]) / hz / wall
		if ($1 == pid) loop += d
		else if ($2 == "gnmi-target") tgt += d
		else grpc += d
		total += d
	}
	END {
		# The run loop steps the model 10 times a second and
		# publishes every switch once per round.
		model = step * 10 / 1000
		if (model > loop) model = loop
		fmt = loop - model
		serve = fmt + tgt + grpc
		printf "fabric: %d switches, %d switch ports (%.0f per switch)\n", sw, ports, ports / sw
		printf "fabsim CPU over %d s (s/s, one core = 1.0): total %.3f\n", secs, total
		printf "  run loop %.3f: model %.3f (%.2f ms per 100 ms tick), publish %.3f (%.3f ms per switch)\n", loop, model, step, fmt, pub
		printf "  gNMI target loop %.3f, gRPC threads %.3f\n", tgt, grpc
		per = serve / served
		printf "  serving (publish + target loop + gRPC) %.3f for %d subscribed switches: %.3f ms per switch, %.2f us per port per sample round\n", serve, served, per * 1000, per / (ports / sw) * 1e6
		printf "fits one core: %s (%.2f cores; all %d switches subscribed: %.2f)\n", total <= 1 ? "yes" : "no", total, sw, model + per * sw
		if (per > 0 && model < 1)
			printf "extrapolated from the per-switch cost: one core serves %d switches like these at 1 s besides this model, %d with serving alone\n", (1 - model) / per, 1 / per
		printf "%s CPU over the same window: %.3f s/s\n", who == "sink" ? "fabsim_sink" : "fabmond", fm
	}' "$work/t0" "$work/t1"
