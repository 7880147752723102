#!/bin/sh
# integration_fabtop_tmux: the interactive fabtop in a real terminal
# (tmux on a private socket, 100x30 then 80x24) against fabmond fed by
# fabsim's NIC PFC storm: views 1-5 switch, s sorts, / filters, h shows
# the help and Esc closes it, Enter opens the storm and shows where it
# started and its tree, Esc goes back, a resize redraws at 80x24, a
# fabmond that goes away shows "disconnected, retrying" with the last
# data kept, and q exits 0.
. "${top_srcdir:-.}/tests/lib.sh"

FABTOP="$top_builddir/fabtop/fabtop"
FABSIM="$top_builddir/fabsim"
[ -x "$FABTOP" ] || fail "no fabtop at $FABTOP"
[ -x "$FABSIM" ] || skip "no fabsim at $FABSIM"
command -v tmux >/dev/null || skip "tmux is not installed (scripts/install-deps)"
command -v curl >/dev/null || skip "curl is not installed"

# A private server on a socket in the work directory (removed with it).
TMUX_CMD="tmux -S $WORK/tmux.sock -f /dev/null"
stop_tmux() {
	$TMUX_CMD kill-server 2>/dev/null
	cleanup
}
trap stop_tmux EXIT INT TERM

"$FABSIM" -s "$top_srcdir/sim/scenarios/nic_pfc_storm.yaml" --loop --no-snmp \
	--nic-dir "$WORK/nic" --emit-config "$WORK/fabmon.yaml" \
	--fabmond-listen 127.0.0.1:0 \
	--profiles-dir "$top_srcdir/etc/profiles" 2>"$WORK/fabsim.log" &
SIM_PID=$!
PIDS="$PIDS $SIM_PID"
wait_for 20 test -s "$WORK/fabmon.yaml" || fail "no config emitted"
start_fabmond fabmond -c "$WORK/fabmon.yaml"
BASE="http://127.0.0.1:$FABMOND_PORT"

# A UTF-8 locale if the system has one (the tree's lines), else ASCII.
loc=C
if locale -a 2>/dev/null | grep -qix 'c\.utf-\{0,1\}8'; then
	loc=C.UTF-8
fi

$TMUX_CMD new-session -d -x 100 -y 30 -s top \
	"env LC_ALL=$loc TERM=xterm-256color '$FABTOP' -u '$BASE' -d 0.5; \
	 echo \"fabtop-exit=\$?\" >'$WORK/exit'; sleep 600" ||
	fail "tmux did not start"

screen() {
	$TMUX_CMD capture-pane -p -t top >"$WORK/screen.txt" 2>/dev/null
}
# shows TEXT: the screen has the fixed string TEXT.
shows() {
	screen && grep -qF -- "$1" "$WORK/screen.txt"
}
hides() {
	screen && ! grep -qF -- "$1" "$WORK/screen.txt"
}
keys() {
	$TMUX_CMD send-keys -t top "$@"
}
expect() { # TEXT WHAT
	wait_for 20 shows "$1" || fail "$2: no '$1' on: $(cat "$WORK/screen.txt")"
}

expect "Targets 14/14 up" "first screen"
expect " 1 Overview " "tabs"
pass "fabtop draws the overview with the fabric summary"

keys 2
expect "PORTS by pause rx" "view 2"
keys 4
expect "HOSTS: NIC ports by pause time" "view 4"
keys 5
expect "TARGETS: 14 of 14 up" "view 5"
keys 1
wait_for 20 hides "TARGETS:" || fail "view 1 did not come back"
pass "1, 2, 4 and 5 switch views"

keys 2 s
expect "PORTS by pause tx" "sort"
expect "PAUSEtx*" "sort marker"
keys r
expect "PORTS by pause tx (reversed)" "reverse"
keys F6
expect "PORTS by PFC rx/s" "F6"
pass "s, r and F6 sort the ports view"

keys / l e a f 0 Enter
expect "filter: leaf0" "filter"
only_leaf0() {
	screen || return 1
	awk '/^DEVICE/ {t = 1; next} t && /^[a-z]/ && !/^filter/ && $1 != "leaf0" {bad = 1} END {exit bad}' \
		"$WORK/screen.txt" && grep -q "^leaf0 " "$WORK/screen.txt"
}
wait_for 20 only_leaf0 || fail "filter leaf0 shows: $(cat "$WORK/screen.txt")"
keys Escape
wait_for 20 hides "filter: leaf0" || fail "Esc did not clear the filter"
pass "/ filters the ports on device:port, Esc clears it"

keys h
expect "fabtop keys" "help"
keys Escape
wait_for 20 hides "fabtop keys" || fail "Esc did not close the help"
pass "h shows the help, Esc closes it"

code=$(http_get -o /dev/null -w '%{http_code}' "$BASE/api/v1/incidents")
if [ "$code" = 404 ]; then
	echo "# /api/v1/incidents is 404 in this build: Enter not checked"
else
	keys 1
	# Truth: sim/scenarios/nic_pfc_storm.truth.yaml, from 10 s.
	storm_row() {
		screen && grep -Eq "^ *[0-9]+ pfc_storm +firing +host0:mlx5_0 " \
			"$WORK/screen.txt"
	}
	wait_for 60 storm_row || fail "no storm in: $(cat "$WORK/screen.txt")"
	keys Home Enter
	expect "Started at: host0:mlx5_0" "Enter"
	expect "PAUSE TREE from the origin to its victims" "tree"
	expect "host0:mlx5_0 origin p3" "tree root"
	expect "Pause ratio at origin:" "sparkline"
	keys 3
	expect "Started at: host0:mlx5_0" "view 3"
	keys Escape
	expect "INCIDENTS:" "Esc"
	pass "Enter opens the storm: where it started and its pause tree; Esc goes back"
fi

$TMUX_CMD resize-window -t top -x 80 -y 24 2>/dev/null ||
	$TMUX_CMD resize-pane -t top -x 80 -y 24
at_80x24() {
	screen || return 1
	[ "$(wc -l <"$WORK/screen.txt")" -le 24 ] &&
		grep -q "^h help  q quit" "$WORK/screen.txt" &&
		awk 'length($0) > 80 { exit 1 }' "$WORK/screen.txt"
}
wait_for 20 at_80x24 || fail "not redrawn at 80x24: $(cat "$WORK/screen.txt")"
pass "a resize to 80x24 redraws it with the status line at the bottom"

stop_pid "$FABMOND_PID"
expect "disconnected, retrying" "fabmond gone"
expect "Targets 14/14 up" "last data kept"
pass "a fabmond that goes away shows 'disconnected, retrying' and keeps the data"

keys q
wait_for 20 test -s "$WORK/exit" || fail "q did not quit"
grep -qx "fabtop-exit=0" "$WORK/exit" || fail "q: $(cat "$WORK/exit")"
pass "q quits with status 0"

echo "# $CHECKS_PASSED checks passed"
