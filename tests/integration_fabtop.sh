#!/bin/sh
# integration_fabtop: fabtop's batch mode against the real fabmond fed
# by the real fabsim on 127.0.0.1: the NIC PFC storm and the incast
# scenarios, whose incidents and origins (from their .truth.yaml) must
# appear in the plain text frames; frames carry a dated header, no
# escape codes, one per refresh; usage errors exit 2; --report prints
# the storm's report as text and exits 3 on its fail verdict (or, on a
# fabmond without the endpoint, says so); a fabmond that is gone gives
# "disconnected, retrying" and exit 1; HTTP errors are shown, not fatal.
. "${top_srcdir:-.}/tests/lib.sh"

FABTOP="$top_builddir/fabtop/fabtop"
FABSIM="$top_builddir/fabsim"
[ -x "$FABTOP" ] || fail "no fabtop at $FABTOP"
command -v curl >/dev/null || skip "curl is not installed"

# Usage errors.
for args in "-d 0" "-d x" "-n 0" "-N 0" "-u ftp://x" "--report 1" "extra"; do
	st=0
	# shellcheck disable=SC2086
	"$FABTOP" -b $args >"$WORK/usage.out" 2>&1 || st=$?
	[ "$st" = 2 ] || fail "fabtop -b $args exited $st: $(cat "$WORK/usage.out")"
done
st=0
"$FABTOP" </dev/null >"$WORK/notty.out" 2>&1 || st=$?
[ "$st" = 2 ] && grep -q "use -b" "$WORK/notty.out" ||
	fail "without a terminal: $st $(cat "$WORK/notty.out")"
"$FABTOP" --help | grep -q -- "--report FROM TO" || fail "--help"
pass "bad options exit 2; no terminal without -b says to use -b"

# start_fabric SCENARIO: fabsim plays it (looping) and fabmond reads
# the config fabsim writes; sets BASE.
start_fabric() {
	rm -f "$WORK/fabmon.yaml"
	"$FABSIM" -s "$top_srcdir/sim/scenarios/$1.yaml" --loop --no-snmp \
		--nic-dir "$WORK/nic-$1" --emit-config "$WORK/fabmon.yaml" \
		--fabmond-listen 127.0.0.1:0 \
		--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim-$1.log" &
	SIM_PID=$!
	PIDS="$PIDS $SIM_PID"
	wait_for 20 test -s "$WORK/fabmon.yaml" || fail "$1: no config emitted"
	start_fabmond "fabmond-$1" -c "$WORK/fabmon.yaml"
	BASE="http://127.0.0.1:$FABMOND_PORT"
}

stop_fabric() {
	stop_pid "$FABMOND_PID"
	stop_pid "$SIM_PID"
}

# frame_has FILE KIND ORIGIN: a firing incident of KIND at ORIGIN in the
# frame (a row of the incident table).
frame_has() {
	grep -Eq "^ *[0-9]+ $2 +firing +$3 " "$1"
}

# seen SCENARIO KIND ORIGIN: one batch frame shows the incident.
seen() {
	"$FABTOP" -u "$BASE" -b -n 1 >"$WORK/$1.frame" 2>"$WORK/$1.err" &&
		frame_has "$WORK/$1.frame" "$2" "$3"
}

[ -x "$FABSIM" ] || skip "no fabsim at $FABSIM"
T0=$(date +%s)
start_fabric nic_pfc_storm

# Three frames, a dated header each, plain text.
COLUMNS=100 "$FABTOP" -u "$BASE" -b -n 3 -d 0.3 >"$WORK/three.out" ||
	fail "batch exited $?"
n=$(grep -c "^fabtop [0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9:]\{8\}  $BASE" \
	"$WORK/three.out")
[ "$n" = 3 ] || fail "$n headers in: $(head -5 "$WORK/three.out")"
if LC_ALL=C grep -q "$(printf '\033')" "$WORK/three.out"; then
	fail "escape codes in batch output"
fi
awk 'length($0) > 100 { exit 1 }' "$WORK/three.out" ||
	fail "a line is wider than COLUMNS=100"
grep -q "^TARGETS: [0-9]* of [0-9]* up" "$WORK/three.out" ||
	fail "no targets table: $(cat "$WORK/three.out")"
pass "-b -n 3 prints 3 plain text frames with a dated header"

inc_code=$(http_get -o /dev/null -w '%{http_code}' "$BASE/api/v1/incidents")
if [ "$inc_code" = 404 ]; then
	echo "# /api/v1/incidents is 404 in this build: incident checks skipped"
	"$FABTOP" -u "$BASE" -b -n 1 | grep -q "no incidents API" ||
		fail "a 404 incidents API is not explained"
else
	# Truth: sim/scenarios/nic_pfc_storm.truth.yaml (storm from 10 s).
	wait_for 60 seen storm pfc_storm host0:mlx5_0 ||
		fail "no firing pfc_storm at host0:mlx5_0: $(cat "$WORK/storm.frame")"
	grep -q "pause tree (origin to victims):" "$WORK/storm.frame" ||
		fail "no pause tree in: $(cat "$WORK/storm.frame")"
	grep -Eq "^ +host0:mlx5_0 origin p3" "$WORK/storm.frame" ||
		fail "the tree does not start at the origin: $(cat "$WORK/storm.frame")"
	pass "the NIC storm's incident and its origin host0:mlx5_0 appear in a frame"
fi

# storm_report: --report since T0 fails (exit 3) on the storm at
# host0:mlx5_0 and is laid out as text.
storm_report() {
	st=0
	"$FABTOP" -u "$BASE" --report "$T0" "$(date +%s)" \
		>"$WORK/report.out" 2>"$WORK/report.err" || st=$?
	[ "$st" = 3 ] && grep -q "^Verdict: fail$" "$WORK/report.out" &&
		grep -Eq "^Incidents: (.*, )?pfc_storm [1-9]" "$WORK/report.out" &&
		grep -Eq "^  #[0-9]+ pfc_storm [a-z]+ p3 at host0:mlx5_0: " \
			"$WORK/report.out" &&
		grep -q "^Stragglers (hosts by pause time)$" "$WORK/report.out"
}

# --report: the documented endpoint, or a clear message when absent.
code=$(http_get -o /dev/null -w '%{http_code}' \
	"$BASE/api/v1/report?from=0&to=1")
st=0
"$FABTOP" -u "$BASE" --report 0 1 >"$WORK/report.out" 2>"$WORK/report.err" ||
	st=$?
if [ "$code" = 404 ]; then
	[ "$st" = 1 ] && grep -q "this fabmond has no report endpoint" \
		"$WORK/report.err" || fail "report on 404: $st $(cat "$WORK/report.err")"
	pass "--report on a fabmond without /api/v1/report says so (exit 1)"
elif [ "$code" = 200 ]; then
	# Before the data kept: incomplete coverage, a warn (exit 0).
	[ "$st" = 0 ] && grep -q "^Verdict: warn$" "$WORK/report.out" &&
		grep -q "^Coverage: .*, incomplete," "$WORK/report.out" ||
		fail "report 0 1: $st $(cat "$WORK/report.out" "$WORK/report.err")"
	pass "--report over a range before the data kept warns (exit 0)"
	if [ "$inc_code" != 404 ]; then
		# Since the storm scenario started: its incidents fail it once
		# the report engine has taken them in (its next tick).
		wait_for 30 storm_report ||
			fail "report of the storm: $(cat "$WORK/report.out" "$WORK/report.err")"
		pass "--report of the NIC storm fails (exit 3) and lists its pfc_storm at host0:mlx5_0"
	fi
else
	[ "$st" = 1 ] && grep -q "HTTP $code" "$WORK/report.err" ||
		fail "report on $code: $st $(cat "$WORK/report.err")"
	pass "--report names fabmond's HTTP $code"
fi

# Something that is not fabmond's API: every answer is a 404, named on
# the frame, and batch mode exits 1.
st=0
"$FABTOP" -u "$BASE/elsewhere" -b -n 1 >"$WORK/404.out" 2>&1 || st=$?
[ "$st" = 1 ] && grep -q "/api/v1/status: HTTP 404" "$WORK/404.out" ||
	fail "404s: $st $(cat "$WORK/404.out")"
pass "HTTP errors are named on the frame; batch mode then exits 1"

# fabmond goes away: the frame says so and keeps nothing stale silently.
stop_fabric
st=0
"$FABTOP" -u "$BASE" -b -n 2 -d 0.1 >"$WORK/gone.out" 2>&1 || st=$?
[ "$st" = 1 ] || fail "fabtop exited $st with fabmond gone"
[ "$(grep -c "disconnected, retrying" "$WORK/gone.out")" -ge 2 ] ||
	fail "no 'disconnected, retrying': $(cat "$WORK/gone.out")"
pass "a fabmond that is gone gives 'disconnected, retrying' and exit 1"

if [ "$inc_code" != 404 ]; then
	start_fabric incast
	# Truth: sim/scenarios/incast.truth.yaml (from 10 s to 25 s).
	wait_for 60 seen incast incast host0:mlx5_0 ||
		fail "no firing incast at host0:mlx5_0: $(cat "$WORK/incast.frame")"
	for h in host1 host2 host3 host4 host5 host6; do
		grep -Eq "$h:mlx5_0 victim" "$WORK/incast.frame" ||
			fail "sender $h not in the incast's tree: $(cat "$WORK/incast.frame")"
	done
	pass "the incast and its receiver host0:mlx5_0 appear, with its six senders"
	stop_fabric
fi

echo "# $CHECKS_PASSED checks passed"
