/*
 * gnmi_value: walks the leaves of a decoded gnmi.Notification as
 * borrowed views. Reading gNMI scalars as numbers is in value_num.c,
 * printing views and unescaping JSON strings in value_text.c.
 *
 * Everything lives in one struct gnmi_walk on the caller's stack: the
 * view handed to the callbacks, the sorted keys of the prefix and of
 * the current path (copied pointers, not strings) and, for elements
 * made from JSON, one key and one "[index=N]" digit buffer per level.
 * So a walk never allocates, and the pointers it reports point into
 * the protobuf message (or the wire bytes) or into that struct; they
 * are valid during the callback only.
 *
 * JSON values (SONiC sends whole COUNTERS_DB tables as json_ietf_val)
 * are read in two iterative passes over the bytes: json_check() proves
 * the text well-formed and no deeper than the view has room for, with a
 * 64-bit stack of container kinds; json_walk() then reports the leaves.
 * The second pass can therefore never stop half way, and a bad value is
 * skipped whole. Each pass costs a few ns per byte and no call per
 * byte. Strings are reported raw (see gnmi_json_unescape()).
 *
 * The same machinery (gnmi_walk_add_elem() and the other gnmi_walk_*
 * functions) is what gnmi_wire feeds from a message's wire bytes, so
 * the decoded and the wire paths build views, scalars and counts with
 * one piece of code.
 *
 * The module keeps no global state; walks on distinct notifications may
 * run in parallel.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* float_val, decimal_val, Update.value */
#include "value.h"
#include "value_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t cstr_len(const char *s)
{
	return s ? strlen(s) : 0;
}

static int key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Inserts a key, keeping keys[first..] sorted (elements have few). */
static int add_key(struct gnmi_walk *w, size_t first, const char *name,
		   size_t name_len, const char *value, size_t value_len)
{
	size_t i = w->nkeys;

	if (i == GNMI_VIEW_MAX_KEYS)
		return -E2BIG;
	while (i > first &&
	       key_cmp(w->keys[i - 1].name, w->keys[i - 1].name_len, name,
		       name_len) > 0) {
		w->keys[i] = w->keys[i - 1];
		i--;
	}
	w->keys[i] = (struct gnmi_view_key){ name, name_len, value, value_len };
	w->nkeys++;
	return 0;
}

int gnmi_walk_add_key(struct gnmi_walk *w, const char *name, size_t name_len,
		      const char *value, size_t value_len)
{
	struct gnmi_view_elem *e = &w->v.elem[w->v.n - 1];
	size_t first = (size_t)(e->keys - w->keys);
	int rc = add_key(w, first, name, name_len, value, value_len);

	if (rc == 0)
		e->n_keys++;
	return rc;
}

/*
 * A deprecated Path.element string, "name" or "name[k=v]...", as spans
 * into the string (len bytes, no NUL in them). Escapes would need a
 * copy: such elements are refused (-EINVAL), as are malformed ones.
 */
int gnmi_walk_add_element_string(struct gnmi_walk *w, const char *s, size_t len)
{
	const char *end = s + len, *b;
	int rc;

	b = memchr(s, '[', len);
	rc = gnmi_walk_add_elem(w, s, b ? (size_t)(b - s) : len);
	if (rc < 0)
		return rc;
	if (memchr(s, '\\', len) != NULL)
		return -EINVAL;
	while (b != NULL && b < end && *b == '[') {
		const char *eq = b + 1, *close;

		while (eq < end && *eq != '=' && *eq != ']')
			eq++;
		if (eq == end || *eq != '=')
			return -EINVAL;
		close = memchr(eq, ']', (size_t)(end - eq));
		if (close == NULL)
			return -EINVAL;
		rc = gnmi_walk_add_key(w, b + 1, (size_t)(eq - b - 1), eq + 1,
				       (size_t)(close - eq - 1));
		if (rc < 0)
			return rc;
		b = close + 1;
	}
	if (b != NULL && b != end)
		return -EINVAL;
	return 0;
}

/* Appends the elements of p to the view: 0, -E2BIG or -EINVAL. */
static int add_path(struct gnmi_walk *w, const Gnmi__Path *p)
{
	int rc;

	if (p->n_elem == 0) {
		for (size_t i = 0; i < p->n_element; i++) {
			const char *s = p->element[i] ? p->element[i] : "";

			rc = gnmi_walk_add_element_string(w, s, strlen(s));
			if (rc < 0)
				return rc;
		}
		return 0;
	}
	for (size_t i = 0; i < p->n_elem; i++) {
		const Gnmi__PathElem *pe = p->elem[i];

		if (pe == NULL)
			continue;
		rc = gnmi_walk_add_elem(w, pe->name ? pe->name : "",
					cstr_len(pe->name));
		if (rc < 0)
			return rc;
		for (size_t k = 0; k < pe->n_key; k++) {
			const Gnmi__PathElem__KeyEntry *ke = pe->key[k];

			if (ke == NULL)
				continue;
			rc = gnmi_walk_add_key(
			    w, ke->key ? ke->key : "", cstr_len(ke->key),
			    ke->value ? ke->value : "", cstr_len(ke->value));
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static void count_bad_path(struct gnmi_walk *w, int rc)
{
	if (rc == -E2BIG)
		w->st->too_deep++;
	else
		w->st->unsupported++;
}

static void report(struct gnmi_walk *w, size_t n, const struct gnmi_scalar *sc)
{
	w->v.n = n;
	w->st->leaves++;
	if (w->leaf)
		w->leaf(w->ctx, &w->v, sc);
}

/* ---- JSON ---- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

/*
 * The first '"' or '\\' in [p, end), or end. Counter names are long
 * (SAI_PORT_STAT_ETHER_IN_PKTS_1024_TO_1518_OCTETS), so this reads 8
 * bytes per step, finding the bytes by the "has a zero byte" bit trick
 * on x ^ '"' and x ^ '\\'; the lowest flagged byte is exact.
 */
static const char *find_quote_or_escape(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);

	while (end - p >= 8) {
		uint64_t x, q, b, t;

		memcpy(&x, p, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		t = ((q - ones) & ~q) | ((b - ones) & ~b);
		t &= highs;
		if (t != 0)
			return p + (__builtin_ctzll(t) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/*
 * p is at a '"': the end of the string (past the closing quote), or
 * NULL if it is unterminated or has a bad escape. Control characters
 * are let through: a stray tab in a description must not cost a whole
 * table of counters.
 */
static const char *scan_string(const char *p, const char *end)
{
	p++;
	for (;;) {
		p = find_quote_or_escape(p, end);
		if (p >= end)
			return NULL;
		if (*p == '"')
			return p + 1;
		if (end - p < 2)
			return NULL;
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			p += 2;
			break;
		case 'u':
			if (end - p < 6 || !is_hex4(p + 2))
				return NULL;
			p += 6;
			break;
		default:
			return NULL;
		}
	}
}

/* A JSON number (RFC 8259 grammar) at p: its end, or NULL. */
static const char *scan_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return NULL;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (p < end && is_digit(*p))
			p++;
	} else {
		return NULL;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !is_digit(*p))
			return NULL;
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !is_digit(*p))
			return NULL;
		while (p < end && is_digit(*p))
			p++;
	}
	return p;
}

static const char *scan_literal(const char *p, const char *end, const char *lit,
				size_t n)
{
	if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0)
		return NULL;
	return p + n;
}

/*
 * A scalar at p into *sc: its end, or NULL if p is not at a scalar (or
 * at a malformed one).
 */
static const char *scan_scalar(const char *p, const char *end,
			       struct gnmi_scalar *sc)
{
	const char *q;

	memset(sc, 0, sizeof *sc);
	switch (*p) {
	case '"':
		q = scan_string(p, end);
		if (q == NULL)
			return NULL;
		sc->kind = GNMI_SCALAR_STRING;
		sc->s = p + 1;
		sc->len = (size_t)(q - p - 2);
		return q;
	case 't':
		sc->kind = GNMI_SCALAR_BOOL;
		sc->b = true;
		return scan_literal(p, end, "true", 4);
	case 'f':
		sc->kind = GNMI_SCALAR_BOOL;
		return scan_literal(p, end, "false", 5);
	case 'n':
		sc->kind = GNMI_SCALAR_NULL;
		return scan_literal(p, end, "null", 4);
	default:
		q = scan_number(p, end);
		if (q == NULL)
			return NULL;
		sc->kind = GNMI_SCALAR_NUMBER_TEXT;
		sc->s = p;
		sc->len = (size_t)(q - p);
		return q;
	}
}

enum json_state {
	JS_VALUE,  /* a value is expected at p */
	JS_MEMBER, /* an object member ("name": value) is expected at p */
	JS_AFTER,  /* a value ended; ',' or a closing bracket may follow */
};

/*
 * Proves [p, end) one well-formed JSON value nested at most max_depth
 * (< 64) containers deep: 0, -EINVAL (malformed) or -E2BIG (too deep,
 * reported as soon as it is seen).
 */
static int json_check(const char *p, const char *end, unsigned max_depth)
{
	uint64_t arrays = 0; /* bit d-1 set: the container at depth d is [] */
	unsigned depth = 0;
	enum json_state st = JS_VALUE;
	struct gnmi_scalar sc;

	p = skip_ws(p, end);
	for (;;) {
		switch (st) {
		case JS_VALUE:
			if (p >= end)
				return -EINVAL;
			if (*p == '{' || *p == '[') {
				bool arr = *p == '[';

				if (++depth > max_depth)
					return -E2BIG;
				if (arr)
					arrays |= UINT64_C(1) << (depth - 1);
				else
					arrays &= ~(UINT64_C(1) << (depth - 1));
				p = skip_ws(p + 1, end);
				if (p < end && *p == (arr ? ']' : '}')) {
					p++;
					depth--;
					st = JS_AFTER;
				} else {
					st = arr ? JS_VALUE : JS_MEMBER;
				}
				break;
			}
			p = scan_scalar(p, end, &sc);
			if (p == NULL)
				return -EINVAL;
			st = JS_AFTER;
			break;
		case JS_MEMBER:
			if (p >= end || *p != '"')
				return -EINVAL;
			p = scan_string(p, end);
			if (p == NULL)
				return -EINVAL;
			p = skip_ws(p, end);
			if (p >= end || *p != ':')
				return -EINVAL;
			p = skip_ws(p + 1, end);
			st = JS_VALUE;
			break;
		case JS_AFTER: {
			bool arr;

			p = skip_ws(p, end);
			if (depth == 0)
				return p == end ? 0 : -EINVAL;
			if (p >= end)
				return -EINVAL;
			arr = arrays >> (depth - 1) & 1;
			if (*p == ',') {
				p = skip_ws(p + 1, end);
				st = arr ? JS_VALUE : JS_MEMBER;
			} else if (*p == (arr ? ']' : '}')) {
				p++;
				depth--;
			} else {
				return -EINVAL;
			}
			break;
		}
		}
	}
}

/* p at '{' or '[' of a checked value: the end of that container. */
static const char *skip_container(const char *p, const char *end)
{
	unsigned depth = 0;

	while (p < end) {
		switch (*p) {
		case '"':
			p = scan_string(p, end);
			if (p == NULL)
				return end;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return p + 1;
			break;
		default:
			break;
		}
		p++;
	}
	return end;
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/*
 * RFC 7951 qualifies a member name with its YANG module
 * ("openconfig-interfaces:in-octets"). The prefix is dropped only when
 * it looks like a module name (RFC 8407: lowercase letters, digits, '-',
 * '.', '_', starting with a letter) and the rest like an identifier;
 * names such as SONiC's "Ethernet68:3" or "Ethernet0:periodic" stay.
 */
static void strip_module(const char **name, size_t *len)
{
	const char *s = *name;
	size_t i;

	if (*len == 0 || !(s[0] >= 'a' && s[0] <= 'z'))
		return;
	for (i = 1; i < *len && s[i] != ':'; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' ||
		      c == '.' || c == '_'))
			return;
	}
	if (i + 1 >= *len || !is_ident_start(s[i + 1]))
		return;
	*name = s + i + 1;
	*len -= i + 1;
}

/*
 * The key of a list entry: p is at the '{' of a checked object. The
 * first scalar (string or number) member named "name", else "index",
 * else "id", as gNMI targets key lists; false if there is none.
 */
static bool find_entry_key(const char *p, const char *end,
			   struct gnmi_view_key *k)
{
	static const struct {
		const char *s;
		size_t n;
	} names[] = { { "name", 4 }, { "index", 5 }, { "id", 2 } };
	size_t best = 3;
	struct gnmi_scalar sc;

	p = skip_ws(p + 1, end);
	while (p < end && *p == '"') {
		const char *name = p + 1, *q = scan_string(p, end);
		size_t len;

		if (q == NULL)
			return false;
		len = (size_t)(q - name - 1);
		strip_module(&name, &len);
		p = skip_ws(q, end);
		if (p >= end || *p != ':')
			return false;
		p = skip_ws(p + 1, end);
		if (p >= end)
			return false;
		if (*p == '{' || *p == '[') {
			p = skip_container(p, end);
		} else {
			q = scan_scalar(p, end, &sc);
			if (q == NULL)
				return false;
			for (size_t i = 0; i < best; i++) {
				if (!span_is(name, len, names[i].s, names[i].n))
					continue;
				if (sc.kind != GNMI_SCALAR_STRING &&
				    sc.kind != GNMI_SCALAR_NUMBER_TEXT)
					break;
				*k = (struct gnmi_view_key){ names[i].s,
							     names[i].n, sc.s,
							     sc.len };
				best = i;
				break;
			}
			if (best == 0)
				return true;
			p = q;
		}
		p = skip_ws(p, end);
		if (p >= end || *p != ',')
			break;
		p = skip_ws(p + 1, end);
	}
	return best < 3;
}

static size_t format_u32(char *buf, uint32_t v)
{
	char t[16];
	size_t n = 0, i = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		buf[i++] = t[--n];
	buf[i] = '\0';
	return i;
}

struct frame {
	bool array;
	size_t slot;	  /* view position of the members / entries */
	const char *name; /* arrays: the element name of the entries */
	size_t name_len;
	uint32_t index; /* arrays: entries so far */
};

/*
 * The frame of a container (an array with array) opening at view
 * position cur, depth deep, in a value whose path is the view's first
 * n0 elements: where its members or entries go, and for an array the
 * element name of its entries (see json_walk()).
 */
static struct frame frame_open(const struct gnmi_walk *w,
			       const struct frame *fr, size_t depth, size_t n0,
			       size_t cur, bool array)
{
	struct frame f = { .array = array };

	if (!f.array) {
		f.slot = cur;
	} else if (depth == 0) {
		/* the path names the list */
		f.slot = n0 > 0 ? n0 - 1 : 0;
		f.name = n0 > 0 ? w->v.elem[f.slot].name : "";
		f.name_len = n0 > 0 ? w->v.elem[f.slot].name_len : 0;
	} else if (fr[depth - 1].array) {
		/* in an array: one level more */
		f.slot = cur;
		f.name = fr[depth - 1].name;
		f.name_len = fr[depth - 1].name_len;
	} else {
		/* a member's value: its element */
		f.slot = cur - 1;
		f.name = w->v.elem[f.slot].name;
		f.name_len = w->v.elem[f.slot].name_len;
	}
	return f;
}

/* Sets the view element of the next entry (at p) of the array f: its
 * own key member, or its index, or no key for a scalar entry. */
static void entry_elem(struct gnmi_walk *w, struct frame *f, const char *p,
		       const char *end)
{
	struct gnmi_view_elem *e = &w->v.elem[f->slot];
	struct gnmi_view_key *k = &w->jkey[f->slot];

	e->name = f->name;
	e->name_len = f->name_len;
	e->keys = k;
	e->n_keys = 1;
	if (*p == '{' && find_entry_key(p, end, k)) {
		/* keyed by its own member */
	} else if (*p == '{' || *p == '[') {
		k->name = "index";
		k->name_len = 5;
		k->value = w->jidx[f->slot];
		k->value_len = format_u32(w->jidx[f->slot], f->index);
	} else {
		e->keys = NULL;
		e->n_keys = 0;
	}
	f->index++;
}

/* Sets the view element of the object member whose name is at p:
 * returns where its value starts, or NULL if the text is not as
 * json_check() passed it. */
static const char *member_elem(struct gnmi_walk *w, const struct frame *f,
			       const char *p, const char *end)
{
	struct gnmi_view_elem *e = &w->v.elem[f->slot];
	const char *q;

	if (*p != '"')
		return NULL;
	q = scan_string(p, end);
	if (q == NULL)
		return NULL;
	e->name = p + 1;
	e->name_len = (size_t)(q - p - 2);
	strip_module(&e->name, &e->name_len);
	e->keys = NULL;
	e->n_keys = 0;
	p = skip_ws(q, end);
	if (p >= end || *p != ':')
		return NULL;
	return skip_ws(p + 1, end);
}

/*
 * Reports the leaves of a checked JSON value whose path is the view's
 * first w->v.n elements. An object member adds one element; the entries
 * of an array that is a member's value are that member's element with
 * the entry's key; a top-level array keys the path's last element; an
 * array in an array adds an element of the same name.
 */
static void json_walk(struct gnmi_walk *w, const char *p, const char *end)
{
	struct frame fr[GNMI_VIEW_MAX];
	size_t depth = 0, n0 = w->v.n, cur = n0;
	enum json_state st = JS_VALUE;
	struct gnmi_scalar sc;

	p = skip_ws(p, end);
	for (;;) {
		switch (st) {
		case JS_VALUE:
			if (p >= end)
				goto inconsistent;
			if (*p == '{' || *p == '[') {
				if (depth == GNMI_VIEW_MAX)
					goto inconsistent;
				struct frame f = frame_open(w, fr, depth, n0,
							    cur, *p == '[');
				if (f.slot >= GNMI_VIEW_MAX)
					goto inconsistent;
				fr[depth++] = f;
				p = skip_ws(p + 1, end);
				if (p < end && *p == (f.array ? ']' : '}')) {
					p++;
					depth--;
					st = JS_AFTER;
				} else {
					/* a member or an entry */
					st = JS_MEMBER;
				}
				break;
			}
			p = scan_scalar(p, end, &sc);
			if (p == NULL)
				goto inconsistent;
			report(w, cur, &sc);
			st = JS_AFTER;
			break;
		case JS_MEMBER: {
			struct frame *f = &fr[depth - 1];

			if (p >= end)
				goto inconsistent;
			if (f->array)
				entry_elem(w, f, p, end);
			else if ((p = member_elem(w, f, p, end)) == NULL)
				goto inconsistent;
			cur = f->slot + 1;
			st = JS_VALUE;
			break;
		}
		case JS_AFTER:
			p = skip_ws(p, end);
			if (depth == 0)
				return;
			if (p >= end)
				goto inconsistent;
			if (*p == ',') {
				p = skip_ws(p + 1, end);
				st = JS_MEMBER;
			} else if (*p == (fr[depth - 1].array ? ']' : '}')) {
				p++;
				depth--;
			} else {
				goto inconsistent;
			}
			break;
		}
	}
inconsistent:
	/* json_check() passed this text, so this is our bug; stay safe. */
	w->st->bad_json++;
}

static void walk_json(struct gnmi_walk *w, const uint8_t *data, size_t len)
{
	const char *p = (const char *)data, *end;
	size_t n = w->v.n;
	struct gnmi_view_elem last = { 0 };
	int rc;

	/* protobuf-c leaves an empty bytes field NULL: empty is not JSON */
	if (p == NULL || len == 0) {
		w->st->bad_json++;
		return;
	}
	end = p + len;
	rc = json_check(p, end, (unsigned)(GNMI_VIEW_MAX - n));
	if (rc < 0) {
		if (rc == -E2BIG)
			w->st->too_deep++;
		else
			w->st->bad_json++;
		return;
	}
	/* a top-level array re-keys the path's last element: keep it */
	if (n > 0)
		last = w->v.elem[n - 1];
	json_walk(w, p, end);
	if (n > 0)
		w->v.elem[n - 1] = last;
	w->v.n = n;
}

/* ---- typed values ---- */

/*
 * digits / 10^precision. Past 22 the division goes by 1e22 steps; a
 * value that has become zero stays zero (so 2^32 - 1 costs a few steps,
 * not 195 million).
 */
static double decimal_value(int64_t digits, uint32_t precision)
{
	/* powers of ten up to 1e22 are exact doubles: one rounding */
	static const double p10[] = { 1e0,  1e1,  1e2,	1e3,  1e4,  1e5,
				      1e6,  1e7,  1e8,	1e9,  1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
				      1e18, 1e19, 1e20, 1e21, 1e22 };
	double d = (double)digits;

	while (precision > 22) {
		if (d == 0)
			return d;
		d /= 1e22;
		precision -= 22;
	}
	return d / p10[precision];
}

void gnmi_scalar_decimal(int64_t digits, uint32_t precision,
			 struct gnmi_scalar *sc)
{
	memset(sc, 0, sizeof *sc);
	if (precision == 0) {
		/* an integer: keep it exact */
		sc->kind = GNMI_SCALAR_INT;
		sc->i = digits;
	} else {
		sc->kind = GNMI_SCALAR_DOUBLE;
		sc->d = decimal_value(digits, precision);
	}
}

/* A scalar TypedValue into *sc; false for the other kinds. */
static bool typed_scalar(const Gnmi__TypedValue *tv, struct gnmi_scalar *sc)
{
	memset(sc, 0, sizeof *sc);
	switch (tv->value_case) {
	case GNMI__TYPED_VALUE__VALUE_STRING_VAL:
	case GNMI__TYPED_VALUE__VALUE_ASCII_VAL: {
		const char *s =
		    tv->value_case == GNMI__TYPED_VALUE__VALUE_STRING_VAL
			? tv->string_val
			: tv->ascii_val;
		sc->kind = GNMI_SCALAR_STRING;
		sc->s = s ? s : "";
		sc->len = cstr_len(s);
		return true;
	}
	case GNMI__TYPED_VALUE__VALUE_INT_VAL:
		sc->kind = GNMI_SCALAR_INT;
		sc->i = tv->int_val;
		return true;
	case GNMI__TYPED_VALUE__VALUE_UINT_VAL:
		sc->kind = GNMI_SCALAR_UINT;
		sc->u = tv->uint_val;
		return true;
	case GNMI__TYPED_VALUE__VALUE_BOOL_VAL:
		sc->kind = GNMI_SCALAR_BOOL;
		sc->b = tv->bool_val != 0;
		return true;
	case GNMI__TYPED_VALUE__VALUE_BYTES_VAL:
		sc->kind = GNMI_SCALAR_BYTES;
		sc->s = (const char *)tv->bytes_val.data;
		sc->len = tv->bytes_val.data ? tv->bytes_val.len : 0;
		return true;
	case GNMI__TYPED_VALUE__VALUE_FLOAT_VAL:
		sc->kind = GNMI_SCALAR_DOUBLE;
		sc->d = tv->float_val;
		return true;
	case GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL:
		sc->kind = GNMI_SCALAR_DOUBLE;
		sc->d = tv->double_val;
		return true;
	case GNMI__TYPED_VALUE__VALUE_DECIMAL_VAL:
		if (tv->decimal_val == NULL)
			return false;
		gnmi_scalar_decimal(tv->decimal_val->digits,
				    tv->decimal_val->precision, sc);
		return true;
	default:
		return false;
	}
}

static void walk_typed(struct gnmi_walk *w, const Gnmi__TypedValue *tv)
{
	struct gnmi_scalar sc;

	switch (tv->value_case) {
	case GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL:
		if (tv->leaflist_val == NULL) {
			w->st->unsupported++;
			return;
		}
		for (size_t i = 0; i < tv->leaflist_val->n_element; i++) {
			const Gnmi__TypedValue *el =
			    tv->leaflist_val->element[i];

			if (el != NULL && typed_scalar(el, &sc))
				report(w, w->v.n, &sc);
			else
				w->st->unsupported++;
		}
		return;
	case GNMI__TYPED_VALUE__VALUE_JSON_VAL:
		walk_json(w, tv->json_val.data, tv->json_val.len);
		return;
	case GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL:
		walk_json(w, tv->json_ietf_val.data, tv->json_ietf_val.len);
		return;
	default:
		/* any_val and proto_bytes need a schema we do not have */
		if (typed_scalar(tv, &sc))
			report(w, w->v.n, &sc);
		else
			w->st->unsupported++;
		return;
	}
}

void gnmi_walk_old_value(struct gnmi_walk *w, int type, const uint8_t *data,
			 size_t len)
{
	struct gnmi_scalar sc = { 0 };

	switch (type) {
	case GNMI__ENCODING__JSON:
	case GNMI__ENCODING__JSON_IETF:
		walk_json(w, data, len);
		return;
	case GNMI__ENCODING__BYTES:
	case GNMI__ENCODING__ASCII:
		sc.kind = type == GNMI__ENCODING__ASCII ? GNMI_SCALAR_STRING
							: GNMI_SCALAR_BYTES;
		sc.s = (const char *)data;
		sc.len = data ? len : 0;
		report(w, w->v.n, &sc);
		return;
	default:
		w->st->unsupported++;
		return;
	}
}

void gnmi_walk_init(struct gnmi_walk *w, gnmi_leaf_fn leaf, gnmi_delete_fn del,
		    void *ctx, struct gnmi_walk_stats *st)
{
	w->leaf = leaf;
	w->del = del;
	w->ctx = ctx;
	w->st = st;
	w->nkeys = 0;
	w->v.n = 0;
	w->v.origin = "";
	w->v.target = "";
}

void gnmi_walk_bad_path(struct gnmi_walk *w, int rc)
{
	count_bad_path(w, rc);
}

void gnmi_walk_scalar(struct gnmi_walk *w, const struct gnmi_scalar *sc)
{
	report(w, w->v.n, sc);
}

void gnmi_walk_json(struct gnmi_walk *w, const uint8_t *data, size_t len)
{
	walk_json(w, data, len);
}

void gnmi_walk_delete(struct gnmi_walk *w)
{
	w->st->deletes++;
	if (w->del)
		w->del(w->ctx, &w->v);
}

static const char *pb_str(const char *s)
{
	return s ? s : "";
}

void gnmi_walk_notification(const Gnmi__Notification *n, gnmi_leaf_fn leaf,
			    gnmi_delete_fn del, void *ctx,
			    struct gnmi_walk_stats *st)
{
	struct gnmi_walk_stats dummy = { 0 };
	struct gnmi_walk w;
	const char *origin = "", *target = "";
	size_t n_prefix, n_prefix_keys;
	int prc = 0;

	gnmi_walk_init(&w, leaf, del, ctx, st ? st : &dummy);
	if (n->prefix != NULL) {
		origin = pb_str(n->prefix->origin);
		target = pb_str(n->prefix->target);
		prc = add_path(&w, n->prefix);
	}
	n_prefix = w.v.n;
	n_prefix_keys = w.nkeys;
	for (size_t i = 0; i < n->n_update + n->n_delete_; i++) {
		bool is_del = i >= n->n_update;
		const Gnmi__Update *u = is_del ? NULL : n->update[i];
		const Gnmi__Path *p =
		    is_del ? n->delete_[i - n->n_update] : (u ? u->path : NULL);
		int rc = prc;

		if (is_del ? p == NULL : u == NULL) {
			w.st->unsupported++;
			continue;
		}
		w.v.n = n_prefix;
		w.nkeys = n_prefix_keys;
		w.v.origin = origin;
		w.v.target = target;
		if (rc == 0 && p != NULL) {
			if (p->origin && p->origin[0] != '\0')
				w.v.origin = p->origin;
			if (p->target && p->target[0] != '\0')
				w.v.target = p->target;
			rc = add_path(&w, p);
		}
		if (rc < 0) {
			count_bad_path(&w, rc);
			continue;
		}
		if (is_del)
			gnmi_walk_delete(&w);
		else if (u->val != NULL)
			walk_typed(&w, u->val);
		else if (u->value != NULL)
			gnmi_walk_old_value(&w, (int)u->value->type,
					    u->value->value.data,
					    u->value->value.len);
		else
			w.st->unsupported++;
	}
}
