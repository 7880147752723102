#!/bin/sh
# integration_https: a real Prometheus scrapes fabmond over HTTPS with
# basic auth (http.web_config): the job with the right password is up,
# a job with a wrong one is down with a 401. Then SIGHUP reloads of the
# web config: new users take effect on the same port, and a broken web
# config fails the reload (fabmon_config_last_reload_successful 0) and
# keeps the running users. Certificates (openssl) and the bcrypt hashes
# (htpasswd) are made here; Prometheus listens on 127.0.0.1. fabtop reads
# the same endpoint with --cacert, --user and --password-file.
. "${top_srcdir:-.}/tests/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
command -v openssl >/dev/null || skip "openssl is not installed"
command -v htpasswd >/dev/null || skip "htpasswd (apache2-utils) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
PROM=$(command -v prometheus) || skip "prometheus is not installed"

# A CA and a server certificate for 127.0.0.1.
(
	cd "$WORK" &&
		ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes" &&
		openssl req -x509 $ec -keyout ca.key -out ca.crt -days 2 \
			-subj /CN=fabmon-test-ca &&
		openssl req $ec -keyout server.key -out server.csr \
			-subj /CN=127.0.0.1 &&
		printf 'subjectAltName=IP:127.0.0.1\n' >san.ext &&
		openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key \
			-CAcreateserial -out server.crt -days 2 -extfile san.ext
) >"$WORK/openssl.log" 2>&1 || fail "openssl could not make the certificates"

# Cost 4, bcrypt's least: the test is about the protocol, and every
# wrong password costs fabmond a bcrypt (Prometheus' bad job once a
# second), which at cost 10 on a loaded machine under ASan could outlast
# fabtop's request timeout.
hash_of() {
	htpasswd -nbBC 4 "$1" "$2" | cut -d: -f2- | tr -d '\n'
}
PROM_HASH=$(hash_of prom scrape-pw)
OPS_HASH=$(hash_of ops ops-pw)
[ -n "$PROM_HASH" ] && [ -n "$OPS_HASH" ] || fail "htpasswd made no hash"

# web_config USER HASH: the web config with that one user.
web_config() {
	cat >"$WORK/web.yml" <<YAML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
http_server_config:
  headers:
    X-Content-Type-Options: nosniff
basic_auth_users:
  $1: '$2'
YAML
}
web_config prom "$PROM_HASH"
cat >"$WORK/fabmon.yaml" <<YAML
listen: ["127.0.0.1:0"]
http:
  web_config: $WORK/web.yml
YAML

"$FABMOND" --check-config -c "$WORK/fabmon.yaml" >"$WORK/check.out" 2>&1 ||
	fail "check-config: $(cat "$WORK/check.out")"
grep -q "web config OK (HTTPS, 1 user)" "$WORK/check.out" ||
	fail "check-config does not report the web config: $(cat "$WORK/check.out")"
pass "--check-config reads the web config and its PEMs"

start_fabmond fabmond -c "$WORK/fabmon.yaml"
grep -q "HTTPS: listening on 127.0.0.1:$FABMOND_PORT" "$WORK/fabmond.log" ||
	fail "no HTTPS listener in the log"
URL="https://127.0.0.1:$FABMOND_PORT"

code() {
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 \
		--cacert "$WORK/ca.crt" "$@"
}
[ "$(code -u prom:scrape-pw "$URL/metrics")" = 200 ] ||
	fail "the right password is not let in"
[ "$(code -u prom:nope "$URL/metrics")" = 401 ] ||
	fail "a wrong password is not refused"
[ "$(code "$URL/healthz")" = 200 ] || fail "/healthz wants a password"
if curl -s --max-time 10 "http://127.0.0.1:$FABMOND_PORT/healthz" \
	>"$WORK/plain.out" 2>&1; then
	fail "plain HTTP answered on the TLS port: $(cat "$WORK/plain.out")"
fi
pass "curl: 200 with the password, 401 without, plain HTTP refused"

# Prometheus: one job with the right password, one with a wrong one.
printf 'scrape-pw' >"$WORK/good.pw"
printf 'wrong-pw' >"$WORK/bad.pw"
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: fabmon_good
    scheme: https
    tls_config: {ca_file: $WORK/ca.crt}
    basic_auth: {username: prom, password_file: $WORK/good.pw}
    static_configs: [{targets: ["127.0.0.1:$FABMOND_PORT"]}]
  - job_name: fabmon_bad
    scheme: https
    tls_config: {ca_file: $WORK/ca.crt}
    basic_auth: {username: prom, password_file: $WORK/bad.pw}
    static_configs: [{targets: ["127.0.0.1:$FABMOND_PORT"]}]
YAML
PROM_PORT=$(free_port)
"$PROM" --config.file="$WORK/prometheus.yml" \
	--storage.tsdb.path="$WORK/prom-data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" \
	--log.level=warn >"$WORK/prometheus.log" 2>&1 &
PIDS="$PIDS $!"
PROM_URL="http://127.0.0.1:$PROM_PORT"
wait_for 30 curl -sf "$PROM_URL/-/ready" ||
	fail "Prometheus did not start on 127.0.0.1:$PROM_PORT"

# targets_are GOOD BAD [BAD_ERROR]: the jobs' health as Prometheus says.
targets_are() {
	curl -sS --max-time 5 "$PROM_URL/api/v1/targets" >"$WORK/targets.json" &&
		python3 - "$WORK/targets.json" "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
h = {t["labels"]["job"]: t for t in doc["data"]["activeTargets"]}
good, bad = h["fabmon_good"], h["fabmon_bad"]
assert good["health"] == sys.argv[2], good
assert bad["health"] == sys.argv[3], bad
if len(sys.argv) > 4:
    assert sys.argv[4] in bad["lastError"], bad["lastError"]
PY
}
wait_for 60 targets_are up down "401" ||
	fail "targets not up/down(401): $(cat "$WORK/targets.json")"
pass "Prometheus scrapes over HTTPS with basic auth; the wrong password is down with 401"

# A scraped sample through Prometheus's query API, not just health.
curl -sS --max-time 5 "$PROM_URL/api/v1/query?query=up%7Bjob%3D%22fabmon_good%22%7D" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; assert r[0]["value"][1]=="1", r' ||
	fail "up{job=fabmon_good} is not 1"
pass "up{job=\"fabmon_good\"} is 1"

# fabtop over HTTPS with basic auth: the CA, the user and a password
# file; a wrong password shows the 401. -d 5: each request may take 5 s.
FABTOP="$top_builddir/fabtop/fabtop"
"$FABTOP" -u "$URL" --cacert "$WORK/ca.crt" --user prom \
	--password-file "$WORK/good.pw" -b -n 1 -d 5 >"$WORK/fabtop.out" \
	2>"$WORK/fabtop.err" || fail "fabtop over HTTPS: $(cat "$WORK/fabtop.err")"
grep -q "401" "$WORK/fabtop.out" "$WORK/fabtop.err" &&
	fail "fabtop got a 401 with the right password"
grep -q "$URL" "$WORK/fabtop.out" || fail "no frame from fabtop: $(cat "$WORK/fabtop.out")"
"$FABTOP" -u "$URL" --cacert "$WORK/ca.crt" --user prom \
	--password-file "$WORK/bad.pw" -b -n 1 -d 5 >"$WORK/fabtop-bad.out" \
	2>&1 || true
grep -q "401" "$WORK/fabtop-bad.out" ||
	fail "fabtop with a wrong password: $(cat "$WORK/fabtop-bad.out")"
if "$FABTOP" -u "$URL" --user prom --password-file "$WORK/good.pw" -b -n 1 -d 5 \
	>"$WORK/fabtop-noca.out" 2>&1; then
	fail "fabtop trusted a certificate from an unknown CA"
fi
pass "fabtop: HTTPS with --cacert and basic auth; a wrong password is a 401"

reload_ok() {
	curl -s --max-time 5 --cacert "$WORK/ca.crt" -u "$1" "$URL/metrics" |
		grep -q "^fabmon_config_last_reload_successful $2\$"
}

# SIGHUP with other users: the scraper's password is refused from now
# on, the new user's is let in, on the same port.
web_config ops "$OPS_HASH"
kill -HUP "$FABMOND_PID"
wait_for 20 reload_ok ops:ops-pw 1 || fail "the new user is not let in after SIGHUP"
[ "$(code -u prom:scrape-pw "$URL/metrics")" = 401 ] ||
	fail "the old user still gets in after the reload"
wait_for 60 targets_are down down || fail "Prometheus still gets in"
pass "SIGHUP swaps the users on the same port; the old password is down"

# A broken web config: the reload fails, the running users stay.
printf 'http_server_config:\n  headers:\n    Content-Type: text/html\n' \
	>"$WORK/web.yml"
kill -HUP "$FABMOND_PID"
wait_for 20 reload_ok ops:ops-pw 0 ||
	fail "the broken web config did not fail the reload"
grep -q "web.yml:3:5: http_server_config.headers.Content-Type" \
	"$WORK/fabmond.log" || fail "the reload error does not name line:col"
[ "$(code -u ops:ops-pw "$URL/metrics")" = 200 ] ||
	fail "the running users were lost with the broken reload"
pass "a broken web config fails the reload and keeps the running one"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" -eq 0 ] || fail "fabmond exited $STOP_STATUS"
echo "1..$CHECKS_PASSED"
