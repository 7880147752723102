#!/bin/sh
# integration_sim_faults: fabsim's target faults through its control
# endpoint (HTTP POST /targets/<switch>/fault, GET /status) on 127.0.0.1
# with ports the kernel picks: every fault body is accepted, answered
# and reported by /status for that switch only; garbage makes the
# switch's SNMP port answer a real request with bytes that are not BER
# (a UDP client in python3), ok brings a BER answer back; slow answers
# after more than a second (fabsim's default delay, 3 s: only the order
# is checked); renumber answers the two swapped indexes and leaves the
# fault as it was; bad bodies get 400 naming the faults.
. "${top_srcdir:-.}/tests/lib.sh"

FABSIM="$top_builddir/fabsim"
command -v curl >/dev/null || skip "curl is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -x "$FABSIM" ] || fail "no fabsim at $FABSIM"

"$FABSIM" --spines 1 --leaves 2 --hosts 4 --nics 1 --flavours openconfig \
	--control 127.0.0.1:0 --seed 3 -v 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
ctl_url() {
	sed -n 's|^fabsim: control endpoint on \(http://.*\)$|\1|p' \
		"$WORK/fabsim.log"
}
wait_for 20 sh -c "grep -q 'control endpoint on' '$WORK/fabsim.log'" ||
	fail "no control endpoint: $(cat "$WORK/fabsim.log")"
ctl=$(ctl_url)

switch_field() { # SWITCH FIELD: a field of the switch in /status
	http_get "$ctl/status" |
		sed -n "s/.*{\"name\":\"$1\"[^}]*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p"
}
snmp_port=$(switch_field leaf0 snmp_port)
[ -n "$snmp_port" ] || fail "no SNMP port for leaf0: $(http_get "$ctl/status")"
[ "$(switch_field leaf0 fault)" = ok ] || fail "leaf0 does not start ok"

# A v2c GET of sysName.0 to leaf0's SNMP port; prints "ber" when the
# answer is one whole BER SEQUENCE, "garbage" when it is not, "none"
# when nothing came within 20 s (a hang guard); with "late", "late "
# first when nothing came within the first second.
probe() {
	python3 - "$snmp_port" "${1:-}" <<'PY'
import socket, sys
req = bytes([0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06]) + b"public" + bytes([
    0xa0, 0x1c, 0x02, 0x04, 0x12, 0x34, 0x56, 0x78, 0x02, 0x01, 0x00,
    0x02, 0x01, 0x00, 0x30, 0x0e, 0x30, 0x0c, 0x06, 0x08, 0x2b, 0x06,
    0x01, 0x02, 0x01, 0x01, 0x05, 0x00, 0x05, 0x00])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.send(req)
pre = ""
if sys.argv[2] == "late":
    s.settimeout(1)
    try:
        b = s.recv(4096)
        print("early"); sys.exit(0)
    except socket.timeout:
        pre = "late "
s.settimeout(20)
try:
    b = s.recv(4096)
except socket.timeout:
    print(pre + "none"); sys.exit(0)
def whole(b):
    if len(b) < 2 or b[0] != 0x30:
        return False
    if b[1] < 0x80:
        return 2 + b[1] == len(b)
    k = b[1] & 0x7f
    if k == 0 or k > 4 or 2 + k > len(b):
        return False
    return 2 + k + int.from_bytes(b[2:2 + k], "big") == len(b)
print(pre + ("ber" if whole(b) else "garbage"))
PY
}
[ "$(probe)" = ber ] || fail "leaf0 does not answer SNMP before the faults"

for fault in silent reset garbage drop_after_sync wrong_types slow refuse ok; do
	code=$(http_get -o "$WORK/fault.json" -w '%{http_code}' \
		-X POST --data "$fault" "$ctl/targets/leaf0/fault")
	[ "$code" = 200 ] || fail "POST $fault: $code $(cat "$WORK/fault.json")"
	grep -q "^{\"target\":\"leaf0\",\"fault\":\"$fault\"}" "$WORK/fault.json" ||
		fail "POST $fault answered $(cat "$WORK/fault.json")"
	[ "$(switch_field leaf0 fault)" = "$fault" ] ||
		fail "/status does not say $fault: $(http_get "$ctl/status")"
	[ "$(switch_field leaf1 fault)" = ok ] ||
		fail "leaf1 changed with leaf0: $(http_get "$ctl/status")"
	case $fault in
	garbage)
		[ "$(probe)" = garbage ] || fail "garbage: SNMP answer is BER"
		;;
	slow)
		[ "$(probe late)" = "late ber" ] ||
			fail "slow: SNMP answer not late or not BER"
		;;
	reset | drop_after_sync | wrong_types | ok)
		[ "$(probe)" = ber ] || fail "$fault: no BER SNMP answer"
		;;
	esac
done
pass "every fault body is answered and shown by /status for its switch only"
pass "garbage answers SNMP with bytes that are not BER, ok restores answers"
pass "slow answers SNMP after more than a second"

# renumber: a one-shot action; the fault stays what it was.
http_get -o /dev/null -X POST --data garbage "$ctl/targets/leaf0/fault" ||
	fail "POST garbage"
for i in 1 2; do
	code=$(http_get -o "$WORK/renum.json" -w '%{http_code}' -X POST \
		--data renumber "$ctl/targets/leaf0/fault")
	[ "$code" = 200 ] || fail "POST renumber: $code $(cat "$WORK/renum.json")"
	grep -q '^{"target":"leaf0","renumbered":\[[0-9]*,[0-9]*\]}' \
		"$WORK/renum.json" || fail "renumber answered $(cat "$WORK/renum.json")"
	[ "$i" = 1 ] && cp "$WORK/renum.json" "$WORK/renum1.json"
done
cmp -s "$WORK/renum.json" "$WORK/renum1.json" ||
	fail "renumber swapped other indexes the second time"
[ "$(switch_field leaf0 fault)" = garbage ] ||
	fail "renumber changed the fault: $(http_get "$ctl/status")"
http_get -o /dev/null -X POST --data ok "$ctl/targets/leaf0/fault" ||
	fail "POST ok"
pass "renumber answers the swapped ifIndexes and keeps the fault"

code=$(http_get -o "$WORK/bad.json" -w '%{http_code}' -X POST --data stall \
	"$ctl/targets/leaf0/fault")
[ "$code" = 400 ] && grep -q 'drop_after_sync' "$WORK/bad.json" ||
	fail "a bad fault gave $code $(cat "$WORK/bad.json")"
pass "an unknown fault gets 400 naming the faults"
