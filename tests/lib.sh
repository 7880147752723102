# Shell helpers for fabmon's integration tests (sourced, POSIX sh).
# Every test creates its own work directory and stops what it starts.

: "${top_srcdir:=.}"
: "${top_builddir:=.}"
FABMOND="$top_builddir/fabmond"

TEST_NAME=$(basename "$0" .sh)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabmon-$TEST_NAME.XXXXXX")
PIDS=""
CHECKS_PASSED=0

cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	if [ "${KEEP_WORK:-}" = "" ]; then
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	for f in "$WORK"/*.log; do
		[ -f "$f" ] || continue
		echo "---- $f" >&2
		tail -n 40 "$f" >&2
	done
	exit 1
}

pass() {
	CHECKS_PASSED=$((CHECKS_PASSED + 1))
	echo "ok $CHECKS_PASSED - $*"
}

skip() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

# wait_for SECONDS COMMAND...: polls COMMAND every 50 ms until it
# succeeds; returns 1 if it never did. A bound, not a timing check.
wait_for() {
	_limit=$(($1 * 20))
	shift
	_i=0
	while [ $_i -lt $_limit ]; do
		if "$@" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
}

# start_fabmond NAME ARGS...: runs fabmond -f in the background with its
# log in $WORK/NAME.log; sets FABMOND_PID and FABMOND_PORT (the first
# listener, read from the "listening on" line).
start_fabmond() {
	_name=$1
	shift
	"$FABMOND" -f "$@" 2>"$WORK/$_name.log" &
	FABMOND_PID=$!
	PIDS="$PIDS $FABMOND_PID"
	wait_for 20 grep -q "listening on" "$WORK/$_name.log" ||
		fail "$_name: fabmond did not start listening"
	FABMOND_PORT=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
		"$WORK/$_name.log" | head -n 1)
	[ -n "$FABMOND_PORT" ] || fail "$_name: no port in the log"
}

# free_port: prints a UDP port of 127.0.0.1 free a moment ago.
free_port() {
	python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_snmpsim: starts snmpsimd on 127.0.0.1, a free UDP port, serving
# the recordings the caller put in $WORK/snmpsim/data (one community per
# file, its name); sets SIM_PORT and adds the agent to PIDS. Its output
# goes to $WORK/snmpsim.log, its own log to $WORK/snmpsim/snmpsim.log.
# snmpsim indexes its files at start: the caller waits until it answers.
start_snmpsim() {
	mkdir -p "$WORK/snmpsim/data" "$WORK/snmpsim/cache"
	SIM_PORT=$(free_port)
	set -- --data-dir="$WORK/snmpsim/data" --cache-dir="$WORK/snmpsim/cache" \
		--agent-udpv4-endpoint="127.0.0.1:$SIM_PORT" \
		--logging-method=file:"$WORK/snmpsim/snmpsim.log"
	if [ "$(id -u)" -eq 0 ]; then
		# snmpsim refuses to run as root; its files must be readable.
		chmod 755 "$WORK" "$WORK/snmpsim" "$WORK/snmpsim/data"
		chmod 644 "$WORK/snmpsim/data"/*
		chmod 777 "$WORK/snmpsim/cache"
		: >"$WORK/snmpsim/snmpsim.log"
		chmod 666 "$WORK/snmpsim/snmpsim.log"
		set -- "$@" --process-user=nobody --process-group=nogroup
	fi
	snmpsimd "$@" >"$WORK/snmpsim.log" 2>&1 &
	PIDS="$PIDS $!"
}

# stop_pid PID [GUARD]: SIGTERM, then wait for it; sets STOP_STATUS to
# its exit status (not in a subshell: only the parent shell can wait for
# it). A process still running GUARD seconds (default 10) after SIGTERM
# is killed (status 137): a hang guard, not a timing check. STOP_SECONDS
# is how long it took.
stop_pid() {
	_t0=$(date +%s.%N)
	kill -TERM "$1"
	(sleep "${2:-10}" && kill -KILL "$1" 2>/dev/null) &
	_guard=$!
	STOP_STATUS=0
	wait "$1" || STOP_STATUS=$?
	kill "$_guard" 2>/dev/null
	wait "$_guard" 2>/dev/null
	STOP_SECONDS=$(echo "$(date +%s.%N) $_t0" | awk '{printf "%.3f", $1 - $2}')
	PIDS=$(echo "$PIDS" | sed "s/\b$1\b//")
}

http_get() {
	curl -sS --max-time 10 "$@"
}

# storm_fabric DIR SPINES LEAVES SPINE_FLAVOURS LEAF_FLAVOURS ONSET [VICTIM]
# Writes a small fabsim fabric and a NIC storm on it, for the end-to-end
# tests: DIR/fabric.yaml (SPINES spines and LEAVES leaves of the given
# flavour lists, e.g. "sonic, arista", one host per leaf with one 400G
# NIC, lossless priority 3), DIR/storm.yaml (ring all-reduce at half
# load, the model's background off; host1's NIC stops draining ONSET
# seconds in, stall prevention off, so it pauses its leaf for good) and DIR/storm.truth.yaml (that
# pfc_storm at host1:mlx5_0 priority 3, VICTIM among its victims if
# given).
storm_fabric() {
	cat >"$1/fabric.yaml" <<YAML
lossless_priorities: [3]
speed: 400G
nics: 1
spines: {count: $2, name: "spine%d", flavour: [$4]}
leaves: {count: $3, name: "leaf%d", flavour: [$5]}
hosts: {count: $3, name: "host%d"}
YAML
	cat >"$1/storm.yaml" <<YAML
topology: fabric.yaml
seed: 1
duration: 1h
traffic: {pattern: ring_allreduce, load: 0.5}
background: off
events:
  - {at: ${6}s, do: nic, port: "host1:mlx5_0", rx_drain: 0, storm_critical: 0s}
YAML
	{
		echo "incidents:"
		echo "  - kind: pfc_storm"
		echo "    origin: {device: host1, port: mlx5_0, priority: 3}"
		[ -n "${7:-}" ] && echo "    victims: [\"$7\"]"
		echo "    from: ${6}s"
	} >"$1/storm.truth.yaml"
}
