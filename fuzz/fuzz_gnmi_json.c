/*
 * fuzz_gnmi_json: libFuzzer target for the JSON walker of gnmi_value.
 * The input is the json_ietf_val of a one-update Notification under
 * prefix target COUNTERS_DB, path COUNTERS/Ethernet68, as SONiC sends
 * its tables, and is walked leaf by leaf, each leaf printed, converted
 * and (for strings) unescaped. libFuzzer's input buffer has the exact
 * size, so ASan reports any read past the JSON text.
 *
 * jansson serves as the oracle (here only, never in the walker): text
 * that jansson accepts must not be counted as bad JSON, and must give
 * at least as many leaves as jansson has scalars (fewer only when
 * jansson dropped repeated member names). Inputs with a raw NUL byte
 * are left out of that check, since jansson takes the NUL for the end
 * of the text. Seeds: fuzz/corpus/gnmi_json/.
 */
#include "config.h"

#include "value.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static void check_leaf(void *ctx, const struct gnmi_view *v,
		       const struct gnmi_scalar *s)
{
	size_t need, again;
	char *buf;
	uint64_t u;
	double x;

	(void)ctx;
	/* the leaf is at or under the update's path (one level up for a
	 * top-level array, which re-keys the path's last element) */
	if (v->n < 1 || v->n > GNMI_VIEW_MAX)
		abort();
	if (strcmp(v->target, "COUNTERS_DB") != 0)
		abort();
	need = gnmi_view_format(v, NULL, 0);
	buf = malloc(need + 1);
	again = gnmi_view_format(v, buf, need + 1);
	if (again != need || strlen(buf) > need)
		abort();
	free(buf);
	(void)gnmi_scalar_u64(s, &u);
	(void)gnmi_scalar_double(s, &x);
	if (s->kind == GNMI_SCALAR_STRING ||
	    s->kind == GNMI_SCALAR_NUMBER_TEXT) {
		buf = malloc(s->len + 1);
		if (gnmi_json_unescape(s->s, s->len, buf, s->len + 1, &need) ==
		    -ENOSPC)
			abort();
		free(buf);
	}
	for (size_t i = 0; i < v->n; i++)
		for (size_t k = 0; k < v->elem[i].n_keys; k++)
			if (v->elem[i].keys[k].name == NULL ||
			    v->elem[i].keys[k].value == NULL)
				abort();
}

/* Scalars in a jansson value; depth is bounded by the caller. */
static size_t count_scalars(const json_t *j)
{
	size_t n = 0;

	if (json_is_object(j)) {
		const char *k;
		json_t *v;

		json_object_foreach((json_t *)j, k, v) n += count_scalars(v);
		return n;
	}
	if (json_is_array(j)) {
		for (size_t i = 0; i < json_array_size(j); i++)
			n += count_scalars(json_array_get(j, i));
		return n;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	Gnmi__Notification no = GNMI__NOTIFICATION__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT, path = GNMI__PATH__INIT;
	Gnmi__PathElem e[2] = { GNMI__PATH_ELEM__INIT, GNMI__PATH_ELEM__INIT };
	Gnmi__PathElem *ep[2] = { &e[0], &e[1] };
	Gnmi__Update u = GNMI__UPDATE__INIT, *up = &u;
	Gnmi__TypedValue tv = GNMI__TYPED_VALUE__INIT;
	struct gnmi_walk_stats st = { 0 };
	json_error_t err;
	json_t *j;

	e[0].name = "COUNTERS";
	e[1].name = "Ethernet68";
	prefix.target = "COUNTERS_DB";
	path.n_elem = 2;
	path.elem = ep;
	tv.value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	tv.json_ietf_val.data = (uint8_t *)d;
	tv.json_ietf_val.len = n;
	u.path = &path;
	u.val = &tv;
	no.prefix = &prefix;
	no.n_update = 1;
	no.update = &up;
	gnmi_walk_notification(&no, check_leaf, NULL, NULL, &st);
	if (st.bad_json + st.too_deep + st.unsupported > 1)
		abort();
	if ((st.bad_json || st.too_deep) && st.leaves != 0)
		abort();

	/* jansson would accept what we refuse to nest, and it stops at a
	 * raw NUL byte as if the text ended there */
	if (st.too_deep || memchr(d, '\0', n) != NULL)
		return 0;
	j = json_loadb((const char *)d, n, JSON_DECODE_ANY | JSON_ALLOW_NUL,
		       &err);
	if (j == NULL)
		return 0;
	if (st.bad_json != 0 || st.leaves < count_scalars(j))
		abort();
	json_decref(j);
	return 0;
}
