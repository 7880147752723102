#!/bin/sh
# check_layers: the source tree keeps its layers and size limits
# (scripts/check-layers, scripts/check-sizes), and both checks really
# fail on a copy of the tree with an include across a boundary, a
# header name in two folders, a long function or a long file.
. "${top_srcdir:-.}/tests/lib.sh"

layers="$top_srcdir/scripts/check-layers"
sizes="$top_srcdir/scripts/check-sizes"
command -v python3 >/dev/null || skip "python3 is not installed"

"$layers" "$top_srcdir" >"$WORK/layers.log" 2>&1 ||
	fail "the tree breaks its layers: $(head -n 5 "$WORK/layers.log")"
pass "no product file includes across a forbidden boundary"
"$sizes" "$top_srcdir" >"$WORK/sizes.log" 2>&1 ||
	fail "the tree breaks its size limits: $(head -n 5 "$WORK/sizes.log")"
pass "no product file over 1,200 lines, no function over 150"

# A fresh copy of the product folders for each planted defect.
copy_tree() {
	rm -rf "$WORK/tree"
	mkdir "$WORK/tree"
	for d in lib core daemon gnmi gnmi_target snmp nic_counters rules \
		exporters sim fabtop; do
		cp -R "$top_srcdir/$d" "$WORK/tree/$d"
	done
	chmod -R u+w "$WORK/tree"
}

# expect_named CHECK PATTERN WHAT: CHECK (a script) must fail on the
# planted tree and name the place with a line matching PATTERN.
expect_named() {
	if "$1" "$WORK/tree" >"$WORK/planted.log" 2>&1; then
		fail "$3 passed"
	fi
	grep -q "$2" "$WORK/planted.log" ||
		fail "not named: $(cat "$WORK/planted.log")"
}

# The rule engine reaching up into the exporters it feeds.
copy_tree
n=$(($(wc -l <"$WORK/tree/rules/rules.c") + 1))
echo '#include "http.h"' >>"$WORK/tree/rules/rules.c"
expect_named "$layers" "^rules/rules.c:$n: includes \"http.h\" from exporters/" \
	"an include of exporters/http.h in rules/"
pass "rules/ including an exporters/ header fails, named by file:line"

# A utility reaching into the core.
copy_tree
sed -i '1i #include "store.h"' "$WORK/tree/lib/mem.c"
expect_named "$layers" '^lib/mem.c:1: includes "store.h" from core/' \
	"an include of core/store.h in lib/"
pass "lib/ including a core/ header fails"

# fabtop is a client of the HTTP API: the daemon's headers are not its.
copy_tree
sed -i '1i #include "cfg.h"' "$WORK/tree/fabtop/canvas.c"
expect_named "$layers" '^fabtop/canvas.c:1: includes "cfg.h" from core/' \
	"an include of core/cfg.h in fabtop/"
pass "fabtop/ including the daemon's config header fails"

# Two headers of one name make an include ambiguous.
copy_tree
cp "$WORK/tree/core/store.h" "$WORK/tree/rules/store.h"
expect_named "$layers" "store.h: header name also in" \
	"a header name in two folders"
pass "a header name in two product folders fails"

# A function of 151 lines and a file of 1,201 lines.
copy_tree
{
	printf '\nint check_layers_long(void);\n\nint check_layers_long(void)\n{\n'
	i=0
	while [ $i -lt 148 ]; do
		echo "	(void)0;"
		i=$((i + 1))
	done
	printf '\treturn 0;\n}\n'
} >>"$WORK/tree/lib/mem.c"
expect_named "$sizes" "^lib/mem.c:[0-9]*: check_layers_long() is 152 lines" \
	"a 152-line function"
pass "a function over 150 lines fails, named by file:line"
copy_tree
i=0
while [ $i -lt 1201 ]; do
	echo "/* line */"
	i=$((i + 1))
done >"$WORK/tree/core/long.h"
expect_named "$sizes" "^core/long.h:1: 1201 lines" \
	"a 1,201-line file"
pass "a file over 1,200 lines fails"
echo "# $CHECKS_PASSED checks passed"
