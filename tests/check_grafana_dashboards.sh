#!/bin/sh
# check_grafana_dashboards: the shipped Grafana dashboards
# (etc/grafana/dashboards/*.json) are valid JSON with the model's
# essentials (uid = file name, title, schemaVersion 36-39, panels with
# unique ids on the 24-column grid), no hard-coded data source (every
# panel and target uses the "datasource" variable), only variables they
# define, and PromQL that promtool parses (each expression, variables
# substituted, put in a throw-away rules file). Grafana itself is not in
# Debian: tests/integration_rules_dashboards.sh runs the expressions on
# a real Prometheus.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
PROMTOOL=${PROMTOOL:-$(command -v promtool || true)}

python3 "$top_srcdir/tests/dashboard_exprs.py" check \
	"$top_srcdir"/etc/grafana/dashboards/*.json >"$WORK/exprs.yml" ||
	fail "dashboard structure"
pass "dashboards: JSON model, data source variable, variables defined"

if [ -n "$PROMTOOL" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check rules --lint=all --lint-fatal "$WORK/exprs.yml" >"$WORK/promtool.log" 2>&1 ||
		fail "promtool on the dashboards' PromQL: $(cat "$WORK/promtool.log")"
	pass "dashboards: promtool parses every expression ($(grep -o '[0-9]* rules found' "$WORK/promtool.log"))"
	# The check can fail: a broken expression is refused.
	sed '0,/expr: /s/expr: /expr: sum by (/' "$WORK/exprs.yml" >"$WORK/bad.yml"
	if "$PROMTOOL" check rules "$WORK/bad.yml" >/dev/null 2>&1; then
		fail "promtool accepted a broken expression"
	fi
	pass "dashboards: a broken expression is refused"
else
	echo "# promtool not found: PromQL not parsed"
fi

grep -q "path: @pkgdatadir@/grafana/dashboards" \
	"$top_srcdir/etc/grafana/provisioning/dashboards/fabmon.yaml.in" ||
	fail "the provisioning file does not point at the installed dashboards"
pass "provisioning: the file provider reads the installed dashboards"
