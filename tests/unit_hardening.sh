#!/bin/sh
# unit_hardening: the systemd unit scores as a hardened service
# ("systemd-analyze security --offline", threshold 2.0 on the 0-10
# scale) and parses. Skipped where systemd-analyze is not installed.
. "${top_srcdir:-.}/tests/lib.sh"

command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
unit="$top_builddir/etc/systemd/fabmond.service"
[ -f "$unit" ] || fail "no $unit (make builds it)"

systemd-analyze security --offline=true --threshold=20 "$unit" \
	>"$WORK/security.log" 2>&1 ||
	fail "exposure above 2.0: $(tail -n 1 "$WORK/security.log")"
grep "Overall exposure level" "$WORK/security.log" | sed 's/^/# /'
pass "the unit's exposure level is at most 2.0"

grep -q '^Type=notify$' "$unit" || fail "not Type=notify"
grep -q '^WatchdogSec=' "$unit" || fail "no WatchdogSec"
grep -q '^CapabilityBoundingSet=$' "$unit" || fail "capabilities not emptied"
grep -q "^ExecStart=.*/fabmond -f " "$unit" || fail "ExecStart does not run fabmond -f"
pass "the unit runs fabmond -f as Type=notify with a watchdog and no capabilities"
echo "# $CHECKS_PASSED checks passed"
