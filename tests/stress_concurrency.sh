#!/bin/sh
# stress_concurrency: every thread of fabmond busy at once, for the
# ThreadSanitizer build (--enable-tsan) and as a plain stress test in the
# others. fabsim serves a noisy fabric of every flavour over gNMI and
# SNMP with NIC trees; fabmond collects it all while clients scrape
# /metrics, read every API endpoint and the report, and SIGHUP reloads
# the config (good and broken files in turn); fabsim's control endpoint
# faults and restores a switch meanwhile. Then: fabmond still answers,
# reloaded the good files and kept the old config on the broken ones, no
# sanitizer report in its log, and SIGTERM stops it with status 0.
#
# STRESS_SECONDS sets how long the load lasts (default 20).
. "${top_srcdir:-.}/tests/lib.sh"

FABSIM="$top_builddir/fabsim"
SECS=${STRESS_SECONDS:-20}
command -v curl >/dev/null || skip "curl is not installed"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"

# Under TSan, report every race (not only the first) and fail the exit
# status when there was one, less the races inside gRPC and Abseil,
# which are not built with TSan (see tests/tsan.supp); the other builds
# ignore this.
TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$top_srcdir/tests/tsan.supp ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS

"$FABSIM" --spines 2 --leaves 4 --hosts 4 --nics 2 \
	--flavours sonic,arista,openconfig --load 0.6 --seed 7 \
	--control 127.0.0.1:0 --nic-dir "$WORK/nic" \
	--emit-config "$WORK/fabmon.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 30 test -s "$WORK/fabmon.yaml" || fail "fabsim emitted no config"
ctl=$(sed -n 's|^# fabsim control: \(http://.*\)$|\1|p' "$WORK/fabmon.yaml")
[ -n "$ctl" ] || fail "no control endpoint in the emitted config"
cp "$WORK/fabmon.yaml" "$WORK/good.yaml"
# changed.yaml: the first gNMI target polled at another interval, so a
# reload to it restarts that target's streams (and back again).
awk '!done && /^      interval: 1s$/ {print "      interval: 2s"; done = 1; next} 1' \
	"$WORK/good.yaml" >"$WORK/changed.yaml"
cmp -s "$WORK/good.yaml" "$WORK/changed.yaml" && fail "no target interval to change"
sed 's/^interval: .*/interval: 5x/' "$WORK/good.yaml" >"$WORK/broken.yaml"
grep -q '^interval: 5x$' "$WORK/broken.yaml" || fail "no top-level interval to break"

start_fabmond fabmond -c "$WORK/fabmon.yaml"
base="http://127.0.0.1:$FABMOND_PORT"
wait_for 30 sh -c "curl -sf '$base/api/v1/targets' | grep -q '\"up\": *true'" ||
	fail "no target came up"
pass "fabmond collects fabsim's fabric (gNMI, SNMP, NIC)"

# client URL...: fetches the URLs in turn until the stop file appears;
# counts the answers that were not 2xx/4xx in $WORK/errors.
client() {
	while [ ! -e "$WORK/stop" ]; do
		for u in "$@"; do
			code=$(curl -s -o /dev/null -w '%{http_code}' \
				--max-time 20 "$base$u") || code=000
			case $code in
			2?? | 4??) ;;
			*) echo "$u $code" >>"$WORK/errors" ;;
			esac
		done
	done
}
client /metrics /healthz &
C1=$!
client /api/v1/targets /api/v1/ports /api/v1/incidents /api/v1/status &
C2=$!
client /api/v1/topology "/api/v1/report?from=0" /metrics &
C3=$!
PIDS="$PIDS $C1 $C2 $C3"

# Reloads (a changed target, a broken file, the first file again, ...)
# and a switch faulted and restored, for SECS seconds.
i=0
t0=$(date +%s)
while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
	case $((i % 3)) in
	0) cp "$WORK/changed.yaml" "$WORK/fabmon.yaml" ;;
	1) cp "$WORK/broken.yaml" "$WORK/fabmon.yaml" ;;
	2) cp "$WORK/good.yaml" "$WORK/fabmon.yaml" ;;
	esac
	kill -HUP "$FABMOND_PID" || fail "fabmond died during the stress"
	case $((i % 4)) in
	1) http_get -o /dev/null -X POST --data silent "$ctl/targets/leaf1/fault" ||
		fail "fabsim refused a fault" ;;
	3) http_get -o /dev/null -X POST --data ok "$ctl/targets/leaf1/fault" ||
		fail "fabsim refused a fault" ;;
	esac
	i=$((i + 1))
	sleep 1
done
cp "$WORK/good.yaml" "$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID" || fail "fabmond died during the stress"
touch "$WORK/stop"
wait "$C1" "$C2" "$C3" 2>/dev/null
PIDS=$(echo "$PIDS" | sed "s/\b$C1\b//; s/\b$C2\b//; s/\b$C3\b//")
kill -0 "$FABMOND_PID" 2>/dev/null || fail "fabmond died during the stress"
[ ! -s "$WORK/errors" ] ||
	fail "answers that were not 2xx/4xx: $(sort "$WORK/errors" | uniq -c | head)"
pass "$i reloads and three clients for ${SECS} s: every answer 2xx/4xx"

wait_for 30 sh -c "curl -sf '$base/healthz' >/dev/null" ||
	fail "/healthz does not answer after the stress"
grep -q "interval: \"5x\" is not a duration" "$WORK/fabmond.log" ||
	fail "the broken reloads were not reported"
grep -q "configuration changed, restarting" "$WORK/fabmond.log" ||
	fail "no reload restarted a target"
pass "the broken files were refused, the changed target restarted, fabmond kept running"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
stop_pid "$SIM_PID"
for log in fabmond fabsim; do
	if grep -q "WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|runtime error:" \
		"$WORK/$log.log"; then
		fail "a sanitizer reported in $log: $(grep -A 40 -m 1 'Sanitizer\|runtime error' "$WORK/$log.log")"
	fi
done
pass "SIGTERM exits 0 and no sanitizer reported anything"
