#!/bin/sh
# fault_suite: the fault suite of issue #16 (tests/faults/faults.py says
# what it does and checks). One fabsim fabric with its background on,
# one fabmond on it, and a phase per fault: gNMI targets that stall,
# refuse, reset, send garbage, drop after every sync, reboot; SNMP agents
# that time out, answer late, renumber, answer with wrong types; NIC
# trees with a FIFO, an unreadable file, vanishing devices; HTTP
# slowloris and half-open floods; SIGHUP with a large and a broken
# config; a veth pair to a network namespace set down. Prints one line
# per phase and a table; fails on a crash, a faulty target without its
# state and reason, a healthy target gone stale, a rate above line rate,
# a false incident or a slow /healthz.
#
# FAULT_PHASES (or the arguments) names phases to run alone, after the
# start-up (faults.py --list lists them):
#   FAULT_PHASES="gnmi_stall nic_fifo" make -C build check \
#       TESTS=tests/faults/fault_suite.sh
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"

# As root, fabmond runs as nobody (see tests/faults/fabric.py): it must
# reach the work directory.
chmod 755 "$WORK"
st=0
# shellcheck disable=SC2086 # FAULT_PHASES is a list of words
TMPDIR="$WORK" python3 "$top_srcdir/tests/faults/faults.py" \
	${FAULT_PHASES:-} "$@" || st=$?
[ "$st" = 77 ] && skip "the suite cannot run here"
[ "$st" = 0 ] || fail "the fault suite failed (status $st)"
pass "every fault phase passed (or was skipped with its reason)"
