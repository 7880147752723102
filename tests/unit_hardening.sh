#!/bin/sh
# unit_hardening: the systemd unit scores as a hardened service
# ("systemd-analyze security --offline", threshold 1.5 on the 0-10
# scale) and runs as the sysusers.d user whose group may read secrets. Skipped where systemd-analyze is not installed.
. "${top_srcdir:-.}/tests/lib.sh"

command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
unit="$top_builddir/etc/systemd/fabmond.service"
[ -f "$unit" ] || fail "no $unit (make builds it)"

systemd-analyze security --offline=true --threshold=15 "$unit" \
	>"$WORK/security.log" 2>&1 ||
	fail "exposure above 1.5: $(tail -n 1 "$WORK/security.log")"
grep "Overall exposure level" "$WORK/security.log" | sed 's/^/# /'
pass "the unit's exposure level is at most 1.5"

sysusers="$top_srcdir/etc/sysusers.d/fabmon.conf"
user=$(awk '$1 == "u" { print $2 }' "$sysusers")
[ -n "$user" ] || fail "$sysusers declares no user"
grep -q "^User=$user\$" "$unit" || fail "the unit does not run as $user"
grep -q "^Group=$user\$" "$unit" || fail "the unit's group is not $user"
grep -q '^DynamicUser=yes' "$unit" && fail "DynamicUser would leave no owner for secrets"
pass "the unit runs as $user, the user fabmon.conf declares"

grep -q '^Type=notify$' "$unit" || fail "not Type=notify"
grep -q '^WatchdogSec=' "$unit" || fail "no WatchdogSec"
grep -q '^CapabilityBoundingSet=$' "$unit" || fail "capabilities not emptied"
grep -q "^ExecStart=.*/fabmond -f " "$unit" || fail "ExecStart does not run fabmond -f"
pass "the unit runs fabmond -f as Type=notify with a watchdog and no capabilities"
echo "# $CHECKS_PASSED checks passed"
