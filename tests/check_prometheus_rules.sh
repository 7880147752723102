#!/bin/sh
# check_prometheus_rules: the shipped Prometheus rules
# (etc/prometheus/*.yml) pass promtool check rules (lint fatal), their
# unit tests (tests/prometheus/*.test.yml) pass promtool test rules, and
# the tests can fail: a copy of the alerts with one threshold changed
# must fail them.
. "${top_srcdir:-.}/tests/lib.sh"

PROMTOOL=${PROMTOOL:-$(command -v promtool || true)}
if [ -z "$PROMTOOL" ] || ! [ -x "$PROMTOOL" ]; then
	[ "${CI:-}" = true ] && fail "promtool is missing in CI"
	skip "promtool is not installed (scripts/install-deps)"
fi

rules="$top_srcdir/etc/prometheus"
for f in "$rules"/fabmon-rules.yml "$rules"/fabmon-alerts.yml; do
	"$PROMTOOL" check rules --lint=all --lint-fatal "$f" \
		>"$WORK/check.log" 2>&1 ||
		fail "promtool check rules $f: $(cat "$WORK/check.log")"
	pass "promtool check rules $(basename "$f"): $(grep -o '[0-9]* rules found' "$WORK/check.log")"
done

# promtool resolves rule_files against the test file's folder.
for t in "$top_srcdir"/tests/prometheus/*.test.yml; do
	(cd "$(dirname "$t")" && "$PROMTOOL" test rules "$(basename "$t")") \
		>"$WORK/test.log" 2>&1 ||
		fail "promtool test rules $t: $(cat "$WORK/test.log")"
	pass "promtool test rules $(basename "$t")"
done

# The same tests on a broken copy: FabmonTargetDown on targets up.
mkdir -p "$WORK/etc/prometheus" "$WORK/tests/prometheus"
sed 's/expr: fabmon_target_up == 0/expr: fabmon_target_up == 1/' \
	"$rules/fabmon-alerts.yml" >"$WORK/etc/prometheus/fabmon-alerts.yml"
cmp -s "$rules/fabmon-alerts.yml" "$WORK/etc/prometheus/fabmon-alerts.yml" &&
	fail "the planted change did not apply"
cp "$top_srcdir/tests/prometheus/fabmon-alerts.test.yml" "$WORK/tests/prometheus/"
if (cd "$WORK/tests/prometheus" && "$PROMTOOL" test rules fabmon-alerts.test.yml) \
	>"$WORK/broken.log" 2>&1; then
	fail "the alert tests pass on a broken FabmonTargetDown"
fi
grep -q "alertname: FabmonTargetDown" "$WORK/broken.log" ||
	fail "the broken rule failed for another reason: $(cat "$WORK/broken.log")"
pass "the alert tests fail on a broken FabmonTargetDown"
