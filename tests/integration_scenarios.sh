#!/bin/sh
# integration_scenarios: the scenario suite. Every scenario of
# sim/scenarios is played by the real fabsim on loopback and watched by
# the real fabmond on fabsim's emitted config; the incidents fabmond
# serves on /api/v1/incidents are compared with the scenario's truth
# (tests/scenario_suite.py says how). Prints the table (scenario,
# expected, origin, found, origin right, victims, false positives,
# detection latency) and fails on a miss, a wrong origin, a missing
# victim or a false incident. Latencies are printed, never asserted.
#
# Every scenario plays on fabsim's default background (PFC trickle, ECN
# marks, background discards, FCS errors, flaps, reboots, late and lost
# samples). Two healthy generated fabrics run beside them for three
# minutes of benign time in all (BENIGN; issue #15's longer benign suite
# is bench/detect_table.py): a mix of SONiC, Arista and OpenConfig
# switches at 0.9 load for two minutes and SONiC at 0.3 for one, with
# partial visibility; nothing may fire there.
#
# Three runs at once (SCENARIO_JOBS): the suite takes about five
# minutes of wall time, most of it the scenarios' own 30 s timelines.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
[ -x "$top_builddir/fabsim" ] || fail "no fabsim in $top_builddir"

st=0
# shellcheck disable=SC2086 # word splitting wanted
TMPDIR="$WORK" python3 "$top_srcdir/tests/scenario_suite.py" \
	-j "${SCENARIO_JOBS:-3}" \
	${BENIGN---benign mixed:0.9:120 --benign sonic:0.3:60} "$@" || st=$?
[ "$st" = 77 ] && skip "the suite cannot run here"
[ "$st" = 0 ] || fail "the scenario suite failed (status $st)"
pass "every scenario found with its origin and victims, no false incident, benign fabrics silent"
