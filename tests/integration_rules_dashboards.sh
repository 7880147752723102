#!/bin/sh
# integration_rules_dashboards: a real Prometheus (Debian's) on loopback
# scrapes a real fabmond every second while fabsim plays the demo
# scenario (an incast at 10 s, a NIC PFC storm at 30 s, lossless drops
# at 38 s), with the shipped rules loaded (etc/prometheus). Every
# recording rule, every alert expression and every panel target of every
# shipped dashboard (etc/grafana/dashboards) must return data through
# the HTTP API (tests/prom_eval.py). The alerts that stay empty on a
# healthy fabric are shown valid by their inner selector, then made to
# fire: Prometheus starts without the fabmon job (absent), leaf3's
# targets go silent (fabsim's control endpoint), a broken configuration
# fails a reload, and fabmond stops. Every wait is a polling bound, not
# a timing check.
. "${top_srcdir:-.}/tests/lib.sh"

PROM=$(command -v prometheus || true)
if [ -z "$PROM" ]; then
	[ "${CI:-}" = true ] && fail "prometheus is missing in CI"
	skip "prometheus is not installed (scripts/install-deps)"
fi
command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -x "$top_builddir/fabsim" ] || fail "no fabsim in $top_builddir"
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY

EVAL="python3 $top_srcdir/tests/prom_eval.py"
RULES="$top_srcdir/etc/prometheus/fabmon-rules.yml $top_srcdir/etc/prometheus/fabmon-alerts.yml"
DASHBOARDS=$(ls "$top_srcdir"/etc/grafana/dashboards/*.json)

# fabsim: the demo, looped (one minute), gNMI and NIC trees; SNMP off as
# in scripts/demo (gNMI carries every counter), so every target is up.
"$top_builddir/fabsim" -s "$top_srcdir/sim/scenarios/demo.yaml" --loop \
	--no-snmp --nic-dir "$WORK/nic" --control 127.0.0.1:0 \
	--emit-config "$WORK/fabmon.yaml" \
	--profiles-dir "$top_srcdir/etc/profiles" \
	--fabmond-listen 127.0.0.1:0 2>"$WORK/fabsim.log" &
PIDS="$PIDS $!"
wait_for 60 test -s "$WORK/fabmon.yaml" || fail "fabsim wrote no config"
CTL=$(sed -n 's|^# fabsim control: \(http://.*\)$|\1|p' "$WORK/fabmon.yaml")
[ -n "$CTL" ] || fail "no control URL in the emitted config"

start_fabmond fabmond -c "$WORK/fabmon.yaml"
FM="127.0.0.1:$FABMOND_PORT"

# Prometheus: job "fabmon" (the rules' convention), every second; first
# without it (prom_config none: a job with no target).
PROM_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PURL="http://127.0.0.1:$PROM_PORT"
prom_config() {
	{
		echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
		echo "rule_files:"
		for r in $RULES; do echo "  - $r"; done
		echo "scrape_configs:"
		echo "  - job_name: fabmon"
		if [ "$1" = fabmon ]; then
			echo "    static_configs: [{targets: ['$FM']}]"
		else
			echo "    static_configs: []"
		fi
	} >"$WORK/prometheus.yml"
}
prom_config none
"$PROM" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-lifecycle \
	--log.level=warn 2>"$WORK/prometheus.log" &
PIDS="$PIDS $!"
wait_for 60 curl -sf "$PURL/-/ready" || fail "Prometheus did not start on $PURL"
pass "fabsim, fabmond and Prometheus are up"

$EVAL expect "$PURL" 60 'absent(up{job="fabmon"})' \
	'ALERTS{alertname="FabmonAbsent"}' || fail "no fabmon job"
pass "no fabmon target: FabmonAbsent goes off"
prom_config fabmon
curl -sf -X POST "$PURL/-/reload" >/dev/null || fail "Prometheus reload"
$EVAL expect "$PURL" 60 'up{job="fabmon"} == 1' || fail "fabmond not scraped"

# shellcheck disable=SC2086 # two paths, split on purpose
count=$(cat $RULES | grep -c -e '^ *- record:' -e '^ *- alert:')
$EVAL rules "$PURL" "$count" 120 || fail "rules"
pass "Prometheus loaded the $count shipped rules and evaluates them without error"

# Meant to be empty on a healthy fabric: their inner selectors here,
# their firing below (or, for the last two, promtool's unit tests).
HEALTH=FabmonDown,FabmonAbsent,FabmonTargetDown,FabmonTargetNoFreshSamples
HEALTH=$HEALTH,FabmonStaleSeries,FabmonReloadFailed,FabmonRuleTickOverrun
HEALTH=$HEALTH,FabmonTargetPollOverrun
# The demo plays once a minute: every incident comes within two.
# shellcheck disable=SC2086
$EVAL demo "$PURL" 200 "$HEALTH" $DASHBOARDS || fail "demo expressions"
pass "every rule, alert and dashboard expression returns data in the demo"

# leaf3 silent: target down, no fresh samples, stale series.
curl -sf -X POST -d silent "$CTL/targets/leaf3/fault" >/dev/null ||
	fail "fabsim refused the fault"
$EVAL expect "$PURL" 150 \
	'fabmon_target_up{target="leaf3"} == 0' \
	'ALERTS{alertname="FabmonTargetDown",target="leaf3"}' \
	'fabmon_target_last_update_age_seconds{target="leaf3"} > 30' \
	'ALERTS{alertname="FabmonTargetNoFreshSamples",target="leaf3"}' \
	'fabmon_store_stale_series / fabmon_store_series > 0.05' \
	'ALERTS{alertname="FabmonStaleSeries"}' || fail "silent target"
pass "a silent leaf3: FabmonTargetDown, NoFreshSamples and StaleSeries go off"

# A reload that fails.
cp "$WORK/fabmon.yaml" "$WORK/good.yaml"
printf 'targets:\n  - name: leaf1\n    bogus: 1\n' >>"$WORK/fabmon.yaml"
kill -HUP "$FABMOND_PID"
$EVAL expect "$PURL" 60 \
	'fabmon_config_last_reload_successful == 0' \
	'ALERTS{alertname="FabmonReloadFailed"}' || fail "failed reload"
pass "a failed reload: FabmonReloadFailed goes off"

# fabmond gone: the scrape fails.
stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited with $STOP_STATUS"
$EVAL expect "$PURL" 60 'up{job="fabmon"} == 0' \
	'ALERTS{alertname="FabmonDown"}' || fail "fabmond stopped"
pass "fabmond stopped: FabmonDown goes off"

