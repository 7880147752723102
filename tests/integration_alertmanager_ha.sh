#!/bin/sh
# integration_alertmanager_ha: fabmond feeds two real
# prometheus-alertmanager instances on loopback (gossip off), as an HA
# pair is fed: am1 over plain HTTP, am2 over TLS (a CA and a certificate
# for am2.test made here with openssl, reached at 127.0.0.1 through
# tls_config.server_name) with basic auth (exporter-toolkit's
# --web.config.file, a bcrypt hash from htpasswd; the password comes
# from a password_file). A fabsim storm reaches both. A wrong password
# (the file changed, then SIGHUP) makes am2 refuse with 401: its error
# and dropped counters rise and it is not retried with backoff, while
# am1 keeps receiving. With am1 stopped, am2 still receives; when am1
# comes back, the next resend brings it the alert.
. "${top_srcdir:-.}/tests/lib.sh"

AM=$(command -v prometheus-alertmanager || command -v alertmanager || true)
[ -n "$AM" ] || skip "prometheus-alertmanager is not installed (scripts/install-deps)"
for tool in curl python3 openssl htpasswd; do
	command -v "$tool" >/dev/null ||
		skip "$tool is not installed (scripts/install-deps)"
done
export no_proxy="127.0.0.1,localhost,am2.test" NO_PROXY="127.0.0.1,localhost,am2.test"
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY

port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
P1=$(port)
P2=$(port)
[ "$P1" != "$P2" ] || P2=$(port)
URL1="http://127.0.0.1:$P1"
URL2="https://127.0.0.1:$P2"

# A CA, and a certificate for am2.test (not for 127.0.0.1: only
# server_name makes the name check pass).
cd "$WORK" || fail "no work directory"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=fabmon test CA" \
	-keyout ca.key -out ca.crt >openssl.log 2>&1 || fail "openssl CA: $(cat openssl.log)"
openssl req -newkey rsa:2048 -nodes -subj "/CN=am2.test" \
	-keyout am2.key -out am2.csr >>openssl.log 2>&1 || fail "openssl CSR"
printf 'subjectAltName=DNS:am2.test\n' >san.ext
openssl x509 -req -in am2.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
	-days 2 -extfile san.ext -out am2.crt >>openssl.log 2>&1 ||
	fail "openssl sign: $(cat openssl.log)"
cd - >/dev/null || true

HASH=$(htpasswd -nbBC 10 fabmon 'right horse' | cut -d: -f2-)
[ -n "$HASH" ] || fail "htpasswd made no hash"
cat >"$WORK/web.yml" <<YAML
tls_server_config:
  cert_file: $WORK/am2.crt
  key_file: $WORK/am2.key
basic_auth_users:
  fabmon: '$HASH'
YAML
cat >"$WORK/am.yml" <<YAML
route:
  receiver: "null"
  group_wait: 1s
receivers:
  - name: "null"
YAML

# start_am N PORT [ARGS]: Alertmanager N on 127.0.0.1:PORT, gossip off.
start_am() {
	n=$1 p=$2
	shift 2
	"$AM" --config.file="$WORK/am.yml" --storage.path="$WORK/am$n-data" \
		--web.listen-address="127.0.0.1:$p" --cluster.listen-address= \
		--log.level=warn "$@" 2>>"$WORK/alertmanager$n.log" &
	eval "AM${n}_PID=\$!"
	PIDS="$PIDS $!"
}
# am_get N PATH: GET from Alertmanager N (am2 with its CA and password).
am_get() {
	if [ "$1" = 1 ]; then
		curl -sS --max-time 5 "$URL1$2"
	else
		curl -sS --max-time 5 --cacert "$WORK/ca.crt" -u 'fabmon:right horse' \
			--resolve "am2.test:$P2:127.0.0.1" "https://am2.test:$P2$2"
	fi
}
start_am 1 "$P1"
start_am 2 "$P2" --web.config.file="$WORK/web.yml"
wait_for 60 am_get 1 /api/v2/status >/dev/null || fail "am1 did not start"
wait_for 60 am_get 2 /api/v2/status >/dev/null || fail "am2 did not start"
code=$(curl -sS --max-time 5 --cacert "$WORK/ca.crt" -o /dev/null -w '%{http_code}' \
	--resolve "am2.test:$P2:127.0.0.1" "https://am2.test:$P2/api/v2/status")
[ "$code" = 401 ] || fail "am2 answered $code without a password"
pass "two Alertmanagers up, am2 behind TLS and basic auth"

FABSIM="$top_builddir/fabsim"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"
storm_fabric "$WORK" 1 2 sonic sonic 2
"$FABSIM" -s "$WORK/storm.yaml" --no-snmp \
	--nic-dir "$WORK/nic" --nic-hosts host0,host1 \
	--emit-config "$WORK/sim.yaml" --fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 60 test -s "$WORK/sim.yaml" || fail "fabsim emitted no config"
printf 'right horse\n' >"$WORK/am-password"
cat >>"$WORK/sim.yaml" <<YAML
alertmanager:
  urls: [$URL1, $URL2]
  resend: 2s
  timeout: 5s
  basic_auth: {username: fabmon, password_file: $WORK/am-password}
  tls_config:
    ca_file: $WORK/ca.crt
    server_name: am2.test
    min_version: TLS12
YAML
"$FABMOND" --check-config -c "$WORK/sim.yaml" 2>"$WORK/check.err" ||
	fail "--check-config: $(cat "$WORK/check.err")"
start_fabmond ha -c "$WORK/sim.yaml"
base="http://127.0.0.1:$FABMOND_PORT"

# storm_in N: Alertmanager N shows the pfc_storm; its updatedAt goes to
# $WORK/updated.N.
storm_in() {
	am_get "$1" "/api/v2/alerts?filter=alertname%3D%22FabmonPfcStorm%22" \
		>"$WORK/storm.$1.json" &&
		python3 - "$WORK/storm.$1.json" "$WORK/updated.$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc) == 1, doc
a = doc[0]
assert a["labels"]["origin"] == "host1:mlx5_0", a
assert a["labels"]["priority"] == "3", a
assert a["status"]["state"] == "active", a
open(sys.argv[2], "w").write(a["updatedAt"])
PY
}
wait_for 90 storm_in 1 || fail "no pfc_storm in am1: $(cat "$WORK/storm.1.json")"
wait_for 90 storm_in 2 || fail "no pfc_storm in am2: $(cat "$WORK/storm.2.json")"
pass "the storm reaches both Alertmanagers (am2 over TLS with basic auth)"

# metric FAMILY URL: the value of FAMILY{alertmanager="URL"} (0 if none).
metric() {
	http_get "$base/metrics" >"$WORK/metrics.txt" || return 1
	python3 - "$WORK/metrics.txt" "$1" "$2" <<'PY'
import sys
want = '%s{alertmanager="%s"}' % (sys.argv[2], sys.argv[3])
v = 0
for line in open(sys.argv[1]):
    if line.startswith(want + " "):
        v = float(line.split()[1])
print(int(v))
PY
}
# above FAMILY URL N: FAMILY{alertmanager="URL"} > N.
above() {
	v=$(metric "$1" "$2") && [ "$v" -gt "$3" ]
}
AMP=fabmon_alertmanager_
wait_for 60 above ${AMP}posts_total "$URL1" 0 || fail "no posts counted for am1"
wait_for 60 above ${AMP}posts_total "$URL2" 0 || fail "no posts counted for am2"
wait_for 60 above ${AMP}post_duration_seconds_count "$URL2" 0 ||
	fail "no post duration for am2"
if [ -n "${PROMTOOL:-}" ] && [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$WORK/metrics.txt" >"$WORK/promtool.out" 2>&1 ||
		fail "promtool check metrics: $(cat "$WORK/promtool.out")"
fi
grep -q 'right horse' "$WORK/metrics.txt" "$WORK/ha.log" &&
	fail "the password shows in /metrics or the log"
pass "/metrics counts the posts of each URL (label alertmanager)"

# A wrong password: am2 refuses (401), is not retried with backoff;
# am1 carries on.
printf 'wrong horse\n' >"$WORK/am-password"
kill -HUP "$FABMOND_PID"
wait_for 60 grep -q "alertmanager: $URL2 rejected the alerts: HTTP status 401" \
	"$WORK/ha.log" || fail "no rejection logged: $(tail -5 "$WORK/ha.log")"
f2=$(metric ${AMP}post_failures_total "$URL2")
p1=$(metric ${AMP}posts_total "$URL1")
r2=$(metric ${AMP}retries_total "$URL2")
wait_for 60 above ${AMP}post_failures_total "$URL2" "$f2" ||
	fail "am2's failures do not rise"
wait_for 60 above ${AMP}posts_total "$URL1" "$p1" || fail "am1 stopped receiving"
wait_for 60 above ${AMP}alerts_dropped_total "$URL2" 0 ||
	fail "nothing dropped for am2"
[ "$(metric ${AMP}retries_total "$URL2")" = "$r2" ] ||
	fail "a 401 was retried with backoff"
grep -q 'horse' "$WORK/ha.log" && fail "a password shows in the log"
pass "a wrong password counts as am2's errors and drops; am1 keeps receiving"

# The right password again, then am1 goes away: am2 still receives, and
# am1 gets the alert back on the next resend once it returns.
printf 'right horse\n' >"$WORK/am-password"
kill -HUP "$FABMOND_PID"
p2=$(metric ${AMP}posts_total "$URL2")
wait_for 60 above ${AMP}posts_total "$URL2" "$p2" || fail "am2 not fed after the fix"
stop_pid "$AM1_PID"
f1=$(metric ${AMP}post_failures_total "$URL1")
p2=$(metric ${AMP}posts_total "$URL2")
wait_for 60 above ${AMP}post_failures_total "$URL1" "$f1" ||
	fail "no failures counted while am1 is down"
wait_for 60 above ${AMP}posts_total "$URL2" "$p2" || fail "am2 stopped receiving"
first=$(cat "$WORK/updated.2")
resent2() {
	storm_in 2 && [ "$(cat "$WORK/updated.2")" != "$first" ]
}
wait_for 60 resent2 || fail "am2's alert is not refreshed while am1 is down"
pass "with am1 down, am2 still receives"

rm -rf "$WORK/am1-data"
start_am 1 "$P1"
wait_for 60 am_get 1 /api/v2/status >/dev/null || fail "am1 did not come back"
wait_for 90 storm_in 1 || fail "am1 did not get the alert back: $(cat "$WORK/storm.1.json")"
wait_for 60 grep -q "alertmanager: posting to $URL1 works again" "$WORK/ha.log" ||
	fail "am1's recovery not logged"
pass "am1 gets the alert again on the next resend once it is back"

stop_pid "$FABMOND_PID"
[ "$STOP_STATUS" = 0 ] || fail "fabmond exited $STOP_STATUS on SIGTERM"
stop_pid "$SIM_PID"
stop_pid "$AM1_PID"
stop_pid "$AM2_PID"
