/*
 * gnmi_path: parsing, printing, joining and protobuf conversion of gNMI
 * paths (see path.h for the syntax).
 *
 * The parser is a single left-to-right pass with byte columns kept for
 * the error messages; tokens are unescaped into exact-size heap strings.
 * A struct gnmi_path owns every string and array it points to; the
 * protobuf messages made by gnmi_path_to_pb() own theirs too, except
 * unset strings, which point at protobuf_c_empty_string as protobuf-c
 * expects and are never freed. Nothing here keeps state: every function
 * is safe to call from any thread on distinct paths.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* we read Path.element on purpose */
#include "gnmi.pb-c.h"

#include "mem.h"
#include "path.h"
#include "path_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *s;
	size_t pos; /* byte offset in s; columns are pos + 1 */
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *ps, size_t pos, const char *fmt, ...)
{
	if (ps->err && ps->errlen > 0) {
		va_list ap;
		int n = snprintf(ps->err, ps->errlen, "column %zu: ", pos + 1);

		if (n >= 0 && (size_t)n < ps->errlen) {
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

/*
 * Reads a token up to (not including) the first unescaped byte of stops
 * or the end of the string, with '\' taking the next byte literally.
 */
static int read_token(struct parser *ps, const char *stops, char **out)
{
	const char *s = ps->s + ps->pos;
	size_t i = 0, n = 0;

	while (s[i] != '\0' && strchr(stops, s[i]) == NULL) {
		if (s[i] == '\\') {
			if (s[i + 1] == '\0')
				return fail(ps, ps->pos + i,
					    "'\\' escapes nothing");
			i++;
		}
		i++;
		n++;
	}
	char *t = xmalloc(n + 1);
	size_t j = 0;
	for (size_t k = 0; k < i; k++) {
		if (s[k] == '\\')
			k++;
		t[j++] = s[k];
	}
	t[j] = '\0';
	ps->pos += i;
	*out = t;
	return 0;
}

static void clear_elem(struct gnmi_path_elem *e)
{
	for (size_t i = 0; i < e->n_keys; i++) {
		free(e->keys[i].name);
		free(e->keys[i].value);
	}
	free(e->keys);
	free(e->name);
	memset(e, 0, sizeof *e);
}

static int cmp_key(const void *a, const void *b)
{
	const struct gnmi_path_key *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Parses the [name=value] pairs that follow an element name. */
static int parse_keys(struct parser *ps, struct gnmi_path_elem *e,
		      size_t elem_pos)
{
	size_t cap = 0;

	while (ps->s[ps->pos] == '[') {
		size_t open = ps->pos;
		char *name = NULL, *value = NULL;
		int rc;

		ps->pos++;
		rc = read_token(ps, "=]", &name);
		if (rc < 0)
			return rc;
		if (ps->s[ps->pos] == '\0') {
			free(name);
			return fail(ps, open, "unterminated key");
		}
		if (ps->s[ps->pos] == ']') {
			free(name);
			return fail(ps, open, "key without '='");
		}
		if (name[0] == '\0') {
			free(name);
			return fail(ps, open + 1, "empty key name");
		}
		ps->pos++; /* '=' */
		rc = read_token(ps, "]", &value);
		if (rc < 0) {
			free(name);
			return rc;
		}
		if (ps->s[ps->pos] == '\0') {
			free(name);
			free(value);
			return fail(ps, open, "unterminated key");
		}
		ps->pos++; /* ']' */
		if (e->n_keys == cap) {
			cap = cap ? 2 * cap : 2;
			e->keys = xreallocarray(e->keys, cap, sizeof *e->keys);
		}
		e->keys[e->n_keys].name = name;
		e->keys[e->n_keys].value = value;
		e->n_keys++;
	}
	if (e->n_keys > 1) {
		qsort(e->keys, e->n_keys, sizeof *e->keys, cmp_key);
		for (size_t i = 1; i < e->n_keys; i++)
			if (strcmp(e->keys[i - 1].name, e->keys[i].name) == 0)
				return fail(ps, elem_pos, "duplicate key '%s'",
					    e->keys[i].name);
	}
	return 0;
}

/* Appends the elements of ps->s from ps->pos (a path without origin). */
static int parse_elems(struct parser *ps, struct gnmi_path *p)
{
	size_t cap = p->n_elem;

	if (ps->s[ps->pos] == '/')
		ps->pos++;
	while (ps->s[ps->pos] != '\0') {
		struct gnmi_path_elem e = { 0 };
		size_t start = ps->pos;
		int rc = read_token(ps, "/[]", &e.name);

		if (rc < 0)
			return rc;
		if (e.name[0] == '\0') {
			free(e.name);
			return fail(ps, start, "empty element name");
		}
		if (ps->s[ps->pos] == ']') {
			free(e.name);
			return fail(ps, ps->pos, "unexpected ']' (write \\])");
		}
		rc = parse_keys(ps, &e, start);
		if (rc == 0 && ps->s[ps->pos] != '\0' && ps->s[ps->pos] != '/')
			rc = fail(ps, ps->pos, "expected '/' or '[' after ']'");
		if (rc < 0) {
			clear_elem(&e);
			return rc;
		}
		if (p->n_elem == cap) {
			cap = cap ? 2 * cap : 4;
			p->elem = xreallocarray(p->elem, cap, sizeof *p->elem);
		}
		p->elem[p->n_elem++] = e;
		if (ps->s[ps->pos] == '/')
			ps->pos++; /* a trailing '/' is accepted */
	}
	return 0;
}

int gnmi_path_parse(const char *s, struct gnmi_path *p, char *err,
		    size_t errlen)
{
	struct parser ps = { .s = s, .err = err, .errlen = errlen };
	int rc;

	memset(p, 0, sizeof *p);
	if (err && errlen > 0)
		err[0] = '\0';
	if (s[0] != '/') {
		/* "origin:" only before any '/', '[' or escape. */
		size_t i = strcspn(s, "/[\\:");

		if (s[i] == ':') {
			if (i == 0)
				return fail(&ps, 0, "empty origin");
			p->origin = xstrndup(s, i);
			ps.pos = i + 1;
		}
	}
	rc = parse_elems(&ps, p);
	if (rc < 0)
		gnmi_path_clear(p);
	return rc;
}

void gnmi_path_clear(struct gnmi_path *p)
{
	for (size_t i = 0; i < p->n_elem; i++)
		clear_elem(&p->elem[i]);
	free(p->elem);
	free(p->origin);
	free(p->target);
	memset(p, 0, sizeof *p);
}

static void copy_elem(struct gnmi_path_elem *dst,
		      const struct gnmi_path_elem *src)
{
	dst->name = xstrdup(src->name);
	dst->n_keys = src->n_keys;
	dst->keys = NULL;
	if (src->n_keys == 0)
		return;
	dst->keys = xreallocarray(NULL, src->n_keys, sizeof *dst->keys);
	for (size_t i = 0; i < src->n_keys; i++) {
		dst->keys[i].name = xstrdup(src->keys[i].name);
		dst->keys[i].value = xstrdup(src->keys[i].value);
	}
}

void gnmi_path_copy(struct gnmi_path *dst, const struct gnmi_path *src)
{
	struct gnmi_path t = { 0 };

	t.origin = src->origin ? xstrdup(src->origin) : NULL;
	t.target = src->target ? xstrdup(src->target) : NULL;
	if (src->n_elem > 0) {
		t.elem = xreallocarray(NULL, src->n_elem, sizeof *t.elem);
		for (size_t i = 0; i < src->n_elem; i++)
			copy_elem(&t.elem[i], &src->elem[i]);
		t.n_elem = src->n_elem;
	}
	*dst = t;
}

/* The printer (path_int.h): counts every byte, stores what fits. */
static void put(struct gnmi_path_out *o, char c)
{
	if (o->n + 1 < o->len)
		o->buf[o->n] = c;
	o->n++;
}

/* len bytes of s, a backslash before each of special; a NUL byte in s
 * is never escaped. */
static void put_span(struct gnmi_path_out *o, const char *s, size_t len,
		     const char *special)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\0' && strchr(special, s[i]) != NULL)
			put(o, '\\');
		put(o, s[i]);
	}
}

void gnmi_path_out_start(struct gnmi_path_out *o, const char *origin,
			 size_t n_elem)
{
	if (origin && origin[0] != '\0') {
		put_span(o, origin, strlen(origin), "");
		put(o, ':');
	}
	if (n_elem == 0)
		put(o, '/');
}

void gnmi_path_out_elem(struct gnmi_path_out *o, const char *name, size_t len)
{
	put(o, '/');
	put_span(o, name, len, "/[]\\");
}

void gnmi_path_out_key(struct gnmi_path_out *o, const char *name,
		       size_t name_len, const char *value, size_t value_len)
{
	put(o, '[');
	put_span(o, name, name_len, "/[]\\=");
	put(o, '=');
	put_span(o, value, value_len, "]\\");
	put(o, ']');
}

size_t gnmi_path_out_end(struct gnmi_path_out *o)
{
	if (o->len > 0)
		o->buf[o->n < o->len ? o->n : o->len - 1] = '\0';
	return o->n;
}

size_t gnmi_path_format(const struct gnmi_path *p, char *buf, size_t len)
{
	struct gnmi_path_out o = { buf, len, 0 };

	gnmi_path_out_start(&o, p->origin, p->n_elem);
	for (size_t i = 0; i < p->n_elem; i++) {
		const struct gnmi_path_elem *e = &p->elem[i];

		gnmi_path_out_elem(&o, e->name, strlen(e->name));
		for (size_t k = 0; k < e->n_keys; k++)
			gnmi_path_out_key(
			    &o, e->keys[k].name, strlen(e->keys[k].name),
			    e->keys[k].value, strlen(e->keys[k].value));
	}
	return gnmi_path_out_end(&o);
}

char *gnmi_path_string(const struct gnmi_path *p)
{
	size_t n = gnmi_path_format(p, NULL, 0);
	char *s = xmalloc(n + 1);

	gnmi_path_format(p, s, n + 1);
	return s;
}

bool gnmi_path_has_wildcards(const struct gnmi_path *p)
{
	for (size_t i = 0; i < p->n_elem; i++) {
		const struct gnmi_path_elem *e = &p->elem[i];

		if (strcmp(e->name, "*") == 0 || strcmp(e->name, "...") == 0)
			return true;
		for (size_t k = 0; k < e->n_keys; k++)
			if (strcmp(e->keys[k].value, "*") == 0)
				return true;
	}
	return false;
}

void gnmi_path_join(struct gnmi_path *out, const struct gnmi_path *a,
		    const struct gnmi_path *b)
{
	struct gnmi_path t = { 0 };
	const char *origin = b->origin ? b->origin : a->origin;
	const char *target = b->target ? b->target : a->target;
	size_t n = a->n_elem + b->n_elem;

	t.origin = origin ? xstrdup(origin) : NULL;
	t.target = target ? xstrdup(target) : NULL;
	if (n > 0) {
		t.elem = xreallocarray(NULL, n, sizeof *t.elem);
		for (size_t i = 0; i < a->n_elem; i++)
			copy_elem(&t.elem[i], &a->elem[i]);
		for (size_t i = 0; i < b->n_elem; i++)
			copy_elem(&t.elem[a->n_elem + i], &b->elem[i]);
		t.n_elem = n;
	}
	/* out may be a or b: it is built aside, then replaces them. */
	if (out == a || out == b)
		gnmi_path_clear(out);
	*out = t;
}

/* A protobuf string that is set: not NULL and not empty. */
static const char *pb_str(const char *s)
{
	return s && s[0] != '\0' ? s : NULL;
}

struct key_ref {
	const char *name;
	const char *value;
	size_t order;
};

static int cmp_key_ref(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Copies a protobuf element. The key map may repeat a key on the wire;
 * as for any protobuf map the last entry wins.
 */
static void elem_from_pb(struct gnmi_path_elem *dst, const Gnmi__PathElem *pe)
{
	struct key_ref *refs;
	size_t n = 0;

	dst->name = xstrdup(pe->name ? pe->name : "");
	dst->keys = NULL;
	dst->n_keys = 0;
	if (pe->n_key == 0)
		return;
	refs = xreallocarray(NULL, pe->n_key, sizeof *refs);
	for (size_t i = 0; i < pe->n_key; i++) {
		const Gnmi__PathElem__KeyEntry *e = pe->key[i];

		if (e == NULL)
			continue;
		refs[n].name = e->key ? e->key : "";
		refs[n].value = e->value ? e->value : "";
		refs[n].order = n;
		n++;
	}
	qsort(refs, n, sizeof *refs, cmp_key_ref);
	dst->keys = xreallocarray(NULL, n ? n : 1, sizeof *dst->keys);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && strcmp(refs[i].name, refs[i + 1].name) == 0)
			continue; /* a later entry of the same key wins */
		dst->keys[dst->n_keys].name = xstrdup(refs[i].name);
		dst->keys[dst->n_keys].value = xstrdup(refs[i].value);
		dst->n_keys++;
	}
	free(refs);
}

int gnmi_path_from_pb(const struct Gnmi__Path *pb, struct gnmi_path *out)
{
	const char *origin = pb_str(pb->origin);
	const char *target = pb_str(pb->target);

	memset(out, 0, sizeof *out);
	out->origin = origin ? xstrdup(origin) : NULL;
	out->target = target ? xstrdup(target) : NULL;
	if (pb->n_elem > 0) {
		out->elem = xreallocarray(NULL, pb->n_elem, sizeof *out->elem);
		for (size_t i = 0; i < pb->n_elem; i++) {
			if (pb->elem[i] == NULL)
				continue;
			elem_from_pb(&out->elem[out->n_elem++], pb->elem[i]);
		}
		return 0;
	}
	/*
	 * gNMI before 0.4 sent each element as a string such as
	 * "interface[name=Ethernet1/1]"; each is parsed as a relative path.
	 */
	for (size_t i = 0; i < pb->n_element; i++) {
		struct parser ps = { .s =
					 pb->element[i] ? pb->element[i] : "" };
		int rc = parse_elems(&ps, out);

		if (rc < 0) {
			gnmi_path_clear(out);
			return rc;
		}
	}
	return 0;
}

static char *pb_dup(const char *s)
{
	return s ? xstrdup(s) : (char *)protobuf_c_empty_string;
}

struct Gnmi__Path *gnmi_path_to_pb(const struct gnmi_path *p)
{
	Gnmi__Path *pb = xmalloc(sizeof *pb);

	*pb = (Gnmi__Path)GNMI__PATH__INIT;
	pb->origin = pb_dup(p->origin);
	pb->target = pb_dup(p->target);
	if (p->n_elem == 0)
		return pb;
	pb->elem = xreallocarray(NULL, p->n_elem, sizeof *pb->elem);
	pb->n_elem = p->n_elem;
	for (size_t i = 0; i < p->n_elem; i++) {
		const struct gnmi_path_elem *e = &p->elem[i];
		Gnmi__PathElem *pe = xmalloc(sizeof *pe);

		*pe = (Gnmi__PathElem)GNMI__PATH_ELEM__INIT;
		pe->name = xstrdup(e->name);
		if (e->n_keys > 0) {
			pe->key =
			    xreallocarray(NULL, e->n_keys, sizeof *pe->key);
			pe->n_key = e->n_keys;
		}
		for (size_t k = 0; k < e->n_keys; k++) {
			Gnmi__PathElem__KeyEntry *ke = xmalloc(sizeof *ke);

			*ke = (Gnmi__PathElem__KeyEntry)
			    GNMI__PATH_ELEM__KEY_ENTRY__INIT;
			ke->key = xstrdup(e->keys[k].name);
			ke->value = xstrdup(e->keys[k].value);
			pe->key[k] = ke;
		}
		pb->elem[i] = pe;
	}
	return pb;
}

static void pb_str_free(char *s)
{
	if (s != protobuf_c_empty_string)
		free(s);
}

void gnmi_path_pb_free(struct Gnmi__Path *pb)
{
	if (pb == NULL)
		return;
	for (size_t i = 0; i < pb->n_elem; i++) {
		Gnmi__PathElem *pe = pb->elem[i];

		for (size_t k = 0; k < pe->n_key; k++) {
			pb_str_free(pe->key[k]->key);
			pb_str_free(pe->key[k]->value);
			free(pe->key[k]);
		}
		free(pe->key);
		pb_str_free(pe->name);
		free(pe);
	}
	free(pb->elem);
	pb_str_free(pb->origin);
	pb_str_free(pb->target);
	free(pb);
}
