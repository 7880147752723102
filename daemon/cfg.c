/*
 * cfg: loads fabmon.yaml into a struct cfg (see cfg.h).
 *
 * Two passes. The first runs libyaml's event parser over a bounded
 * buffer and builds a small private tree of mapping, sequence and scalar
 * nodes, each with its 1-based line:column; it stops at the first anchor,
 * alias, second document or nesting deeper than CFG_MAX_DEPTH, because
 * libyaml 0.2.5 has no limits of its own and deep nesting costs it
 * quadratic time. The second pass walks the tree section by section and
 * fills a freshly allocated struct cfg; the first error stops it, is
 * written as one line "file:line:col: key.path: message", and everything
 * allocated so far is freed.
 *
 * Nothing here is global or cached: every call owns its parser, tree and
 * result, so loads may run on any thread. Secrets (inline or read from
 * *_file keys) are never put in a message, and their buffers are zeroed
 * before they are freed.
 */
#include "config.h"

#include "cfg.h"

#include "log.h"
#include "mem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S  UINT64_C(1000000000)
#define NS_PER_M  (60 * NS_PER_S)
#define NS_PER_H  (60 * NS_PER_M)
#define NS_PER_D  (24 * NS_PER_H)

/* Bounds shared by several keys. */
#define INTERVAL_MIN (100 * NS_PER_MS)
#define INTERVAL_MAX NS_PER_H
#define NAME_MAX_LEN 64
#define SECRET_MAX   65536 /* bytes read from a *_file key */
#define SNMP_KEY_MIN 8	   /* RFC 3414 wants at least 8 characters */
#define QUOTE_MAX    64	   /* characters of a value shown in a message */
#define MAX_FIELDS   24	   /* keys of the largest mapping (gnmi) */

/* The private tree of the first pass. */
enum node_kind { NODE_SCALAR, NODE_MAP, NODE_SEQ };

struct node {
	enum node_kind kind;
	unsigned line, col; /* 1-based */
	char *str;	    /* scalar: NUL-terminated, may hold a NUL */
	size_t len;
	bool plain; /* scalar written without quotes */
	/* mapping: key, value, key, value...; sequence: the items */
	struct node **kids;
	size_t n, cap;
};

/* One load: where messages go and the key path of the node at hand. */
struct ctx {
	const char *name;
	char *err;
	size_t errlen;
	char path[512];
	size_t plen;
	uint64_t interval_ns; /* the global interval, once known */
};

/* The values of one mapping, indexed like its table of known keys. */
struct fields {
	const struct node *map;
	const char *const *keys;
	size_t n;
	const struct node *key[MAX_FIELDS];
	const struct node *val[MAX_FIELDS];
};

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_free(n->kids[i]);
	free(n->kids);
	if (n->str) {
		/* Inline secrets live in scalars too. */
		explicit_bzero(n->str, n->len);
		free(n->str);
	}
	free(n);
}

static bool node_is_null(const struct node *n)
{
	if (n->kind != NODE_SCALAR || !n->plain)
		return false;
	return n->len == 0 || strcmp(n->str, "~") == 0 ||
	       strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	       strcmp(n->str, "NULL") == 0;
}

/*
 * Messages.
 */

/* Replaces control bytes so that a message always stays one line. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

__attribute__((format(printf, 5, 0))) static void
fail_vat(struct ctx *x, unsigned line, unsigned col, bool with_path,
	 const char *fmt, va_list ap)
{
	if (!x->err || !x->errlen)
		return;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (line && with_path && x->plen)
		snprintf(x->err, x->errlen, "%s:%u:%u: %s: %s", x->name, line,
			 col, x->path, msg);
	else if (line)
		snprintf(x->err, x->errlen, "%s:%u:%u: %s", x->name, line, col,
			 msg);
	else
		snprintf(x->err, x->errlen, "%s: %s", x->name, msg);
	sanitize(x->err);
}

/* An error at node n about the current key path; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) static int
fail(struct ctx *x, const struct node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, n->line, n->col, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An error at a position that has no key path (syntax, structure). */
__attribute__((format(printf, 4, 5))) static int
fail_at(struct ctx *x, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, line, col, false, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An error about the whole file; returns -EINVAL. */
__attribute__((format(printf, 2, 3))) static int fail_file(struct ctx *x,
							   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, 0, 0, false, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A scalar as shown in messages: quoted and cut to QUOTE_MAX bytes. */
static const char *quote(const struct node *n, char *buf, size_t len)
{
	if (n->len > QUOTE_MAX)
		snprintf(buf, len, "\"%.*s...\"", QUOTE_MAX, n->str);
	else
		snprintf(buf, len, "\"%s\"", n->str);
	return buf;
}

#define QUOTE_BUF (QUOTE_MAX + 8)

/* The same without quotes, for values already known to be well-formed. */
static const char *shown(const struct node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s%s", QUOTE_MAX, n->str,
		 n->len > QUOTE_MAX ? "..." : "");
	return buf;
}

static const char *kind_name(const struct node *n)
{
	if (n->kind == NODE_MAP)
		return "a mapping";
	if (n->kind == NODE_SEQ)
		return "a list";
	return "an empty value";
}

/*
 * The key path: grows as the walk goes down, is cut back on the way up.
 */

static size_t path_key(struct ctx *x, const char *key)
{
	size_t saved = x->plen;
	int n = snprintf(x->path + x->plen, sizeof x->path - x->plen, "%s%s",
			 x->plen ? "." : "", key);
	if (n > 0)
		x->plen += (size_t)n;
	if (x->plen >= sizeof x->path)
		x->plen = sizeof x->path - 1;
	return saved;
}

static size_t path_index(struct ctx *x, size_t i)
{
	size_t saved = x->plen;
	int n =
	    snprintf(x->path + x->plen, sizeof x->path - x->plen, "[%zu]", i);
	if (n > 0)
		x->plen += (size_t)n;
	if (x->plen >= sizeof x->path)
		x->plen = sizeof x->path - 1;
	return saved;
}

static void path_cut(struct ctx *x, size_t saved)
{
	x->plen = saved;
	x->path[saved] = '\0';
}

/*
 * First pass: libyaml events to the tree.
 */

static struct node *node_new(enum node_kind kind, yaml_mark_t mark)
{
	struct node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = (unsigned)mark.line + 1;
	n->col = (unsigned)mark.column + 1;
	return n;
}

static void node_add(struct node *parent, struct node *kid)
{
	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 4;
		parent->kids = xreallocarray(parent->kids, parent->cap,
					     sizeof *parent->kids);
	}
	parent->kids[parent->n++] = kid;
}

/* Line and column of a byte offset (reader errors carry only that). */
static void offset_mark(const char *buf, size_t len, size_t off, unsigned *line,
			unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int yaml_fail(struct ctx *x, const yaml_parser_t *p, const char *buf,
		     size_t len)
{
	const char *problem = p->problem ? p->problem : "YAML syntax error";
	unsigned line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return fail_file(x, "out of memory while parsing");
	case YAML_READER_ERROR:
		offset_mark(buf, len, p->problem_offset, &line, &col);
		return fail_at(x, line, col, "%s", problem);
	default:
		line = (unsigned)p->problem_mark.line + 1;
		col = (unsigned)p->problem_mark.column + 1;
		if (p->context)
			return fail_at(x, line, col, "%s (%s at %u:%u)",
				       problem, p->context,
				       (unsigned)p->context_mark.line + 1,
				       (unsigned)p->context_mark.column + 1);
		return fail_at(x, line, col, "%s", problem);
	}
}

/* Returns the anchor of a node event, NULL if it has none. */
static const yaml_char_t *event_anchor(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ev->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.anchor;
	default:
		return NULL;
	}
}

/* One event into the tree under construction. */
static int tree_event(struct ctx *x, const yaml_event_t *ev,
		      struct node **stack, int *depth, struct node **root,
		      int *docs)
{
	unsigned line = (unsigned)ev->start_mark.line + 1;
	unsigned col = (unsigned)ev->start_mark.column + 1;
	struct node *n;

	if (ev->type == YAML_ALIAS_EVENT || event_anchor(ev))
		return fail_at(x, line, col,
			       "anchors and aliases are not supported");
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return fail_at(x, line, col,
				       "only one YAML document is allowed");
		return 0;
	case YAML_SCALAR_EVENT:
		n = node_new(NODE_SCALAR, ev->start_mark);
		n->len = ev->data.scalar.length;
		n->str = xmalloc(n->len + 1);
		memcpy(n->str, ev->data.scalar.value, n->len);
		n->str[n->len] = '\0';
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (*depth >= CFG_MAX_DEPTH)
			return fail_at(x, line, col,
				       "nested deeper than %d levels",
				       CFG_MAX_DEPTH);
		n = node_new(ev->type == YAML_MAPPING_START_EVENT ? NODE_MAP
								  : NODE_SEQ,
			     ev->start_mark);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (*depth > 0)
			(*depth)--;
		return 0;
	default:
		return 0;
	}
	if (*depth > 0)
		node_add(stack[*depth - 1], n);
	else
		*root = n;
	if (n->kind != NODE_SCALAR)
		stack[(*depth)++] = n;
	return 0;
}

/* Parses buf into *root (NULL for a stream with no document). */
static int tree_parse(struct ctx *x, const char *buf, size_t len,
		      struct node **root)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct node *stack[CFG_MAX_DEPTH];
	int depth = 0, docs = 0, rc = 0;
	bool done = false;

	*root = NULL;
	if (!yaml_parser_initialize(&p))
		return fail_file(x, "out of memory while parsing");
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = yaml_fail(x, &p, buf, len);
			break;
		}
		rc = tree_event(x, &ev, stack, &depth, root, &docs);
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (rc) {
		node_free(*root);
		*root = NULL;
	}
	return rc;
}

/*
 * Second pass: typed access to the tree.
 */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[NAME_MAX_LEN + 1];

	if (lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static int unknown_key(struct ctx *x, const struct node *k,
		       const char *const *keys, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3; /* suggest only close matches */

	if (k->len <= NAME_MAX_LEN && strlen(k->str) == k->len) {
		for (size_t i = 0; i < n; i++) {
			size_t d = edit_distance(k->str, keys[i]);
			if (d < best_d && d < strlen(keys[i])) {
				best_d = d;
				best = keys[i];
			}
		}
	}
	char q[QUOTE_BUF];
	path_key(x, shown(k, q, sizeof q));
	if (best)
		return fail(x, k, "unknown key (did you mean \"%s\"?)", best);
	return fail(x, k, "unknown key");
}

/*
 * Collects the values of mapping map (at the current path) by their index
 * in keys. Unknown, duplicate and non-scalar keys are errors. A null
 * value stands for an empty mapping.
 */
static int fields_get(struct ctx *x, const struct node *map,
		      const char *const *keys, size_t n, struct fields *f)
{
	memset(f, 0, sizeof *f);
	f->map = map;
	f->keys = keys;
	f->n = n;
	if (node_is_null(map))
		return 0;
	if (map->kind != NODE_MAP)
		return fail(x, map, "expected a mapping");
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct node *k = map->kids[i];
		size_t j;
		if (k->kind != NODE_SCALAR)
			return fail(x, k, "keys must be plain strings, not %s",
				    kind_name(k));
		for (j = 0; j < n; j++)
			if (strlen(keys[j]) == k->len &&
			    memcmp(keys[j], k->str, k->len) == 0)
				break;
		if (j == n)
			return unknown_key(x, k, keys, n);
		if (f->key[j]) {
			path_key(x, keys[j]);
			return fail(x, k, "duplicate key (first at %u:%u)",
				    f->key[j]->line, f->key[j]->col);
		}
		f->key[j] = k;
		f->val[j] = map->kids[i + 1];
	}
	return 0;
}

/* The error for a key that is required but absent. */
static int need(struct ctx *x, const struct fields *f, size_t i)
{
	if (f->val[i])
		return 0;
	return fail(x, f->map, "missing required key \"%s\"", f->keys[i]);
}

/* An error about key i of f (which is present). */
__attribute__((format(printf, 4, 5))) static int
fail_key(struct ctx *x, const struct fields *f, size_t i, const char *fmt, ...)
{
	va_list ap;
	path_key(x, f->keys[i]);
	va_start(ap, fmt);
	fail_vat(x, f->val[i]->line, f->val[i]->col, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The later of keys i and j of f in the file (both present). */
static size_t later(const struct fields *f, size_t i, size_t j)
{
	const struct node *a = f->key[i], *b = f->key[j];
	if (a->line != b->line)
		return a->line > b->line ? i : j;
	return a->col > b->col ? i : j;
}

/* A scalar usable as a C string, or an error naming what was expected. */
static int want_scalar(struct ctx *x, const struct node *n, const char *what)
{
	if (n->kind != NODE_SCALAR)
		return fail(x, n, "expected %s, not %s", what, kind_name(n));
	if (node_is_null(n))
		return fail(x, n, "missing value (expected %s)", what);
	if (strlen(n->str) != n->len)
		return fail(x, n, "must not contain a NUL character");
	return 0;
}

static int node_str(struct ctx *x, const struct node *n, char **out)
{
	int rc = want_scalar(x, n, "a string");
	if (rc)
		return rc;
	free(*out);
	*out = xstrdup(n->str);
	return 0;
}

/* Parses an optional '-' and decimal digits; -ERANGE past 64 bits. */
static int parse_int(const char *s, bool *neg, uint64_t *v)
{
	bool overflow = false;
	*neg = *s == '-';
	s += *neg;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	*v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (*v > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			*v = *v * 10 + d;
	}
	if (*s)
		return -EINVAL;
	return overflow ? -ERANGE : 0;
}

static int node_uint(struct ctx *x, const struct node *n, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char q[QUOTE_BUF];
	bool neg;
	uint64_t v;
	int rc = want_scalar(x, n, "a number");
	if (rc)
		return rc;
	rc = parse_int(n->str, &neg, &v);
	if (rc == -EINVAL)
		return fail(x, n, "expected a number, not %s",
			    quote(n, q, sizeof q));
	if (rc || (neg && v) || v < min || v > max)
		return fail(x, n, "must be between %llu and %llu, not %s",
			    (unsigned long long)min, (unsigned long long)max,
			    shown(n, q, sizeof q));
	*out = v;
	return 0;
}

static int node_bool(struct ctx *x, const struct node *n, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	char q[QUOTE_BUF];
	int rc = want_scalar(x, n, "a boolean");
	if (rc)
		return rc;
	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(n->str, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(n->str, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return fail(x, n,
		    "expected a boolean (true/false, yes/no, on/off), not %s",
		    quote(n, q, sizeof q));
}

/*
 * A duration between min and max; zero_ok also lets "0s" through below
 * min (it means "unset" for some keys).
 */
static int node_duration(struct ctx *x, const struct node *n, uint64_t min,
			 uint64_t max, bool zero_ok, uint64_t *out)
{
	char q[QUOTE_BUF], a[32], b[32];
	uint64_t v;
	int rc = want_scalar(x, n, "a duration");
	if (rc)
		return rc;
	rc = cfg_parse_duration(n->str, &v);
	if (rc == -EINVAL)
		return fail(x, n, "%s is not a duration",
			    quote(n, q, sizeof q));
	if (rc)
		return fail(x, n, "%s is too long a duration",
			    quote(n, q, sizeof q));
	if ((v < min && !(zero_ok && v == 0)) || v > max) {
		cfg_format_duration(min, a, sizeof a);
		cfg_format_duration(max, b, sizeof b);
		if (max == UINT64_MAX)
			return fail(x, n, "must be %sat least %s, not %s",
				    zero_ok ? "0 or " : "", a,
				    shown(n, q, sizeof q));
		return fail(x, n, "must be %sbetween %s and %s, not %s",
			    zero_ok ? "0 or " : "", a, b,
			    shown(n, q, sizeof q));
	}
	*out = v;
	return 0;
}

static int node_size(struct ctx *x, const struct node *n, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char q[QUOTE_BUF];
	uint64_t v;
	int rc = want_scalar(x, n, "a size");
	if (rc)
		return rc;
	rc = cfg_parse_size(n->str, &v);
	if (rc == -EINVAL)
		return fail(x, n, "%s is not a size", quote(n, q, sizeof q));
	if (rc || v < min || v > max)
		return fail(x, n, "must be between %llu and %llu bytes, not %s",
			    (unsigned long long)min, (unsigned long long)max,
			    shown(n, q, sizeof q));
	*out = v;
	return 0;
}

/* One of names[] (case-sensitive); *out gets the matching values[]. */
static int node_enum(struct ctx *x, const struct node *n,
		     const char *const *names, const int *values, size_t count,
		     int *out)
{
	char q[QUOTE_BUF], list[256];
	size_t len = 0;
	int rc = want_scalar(x, n, "a string");
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		if (strcmp(n->str, names[i]) == 0) {
			*out = values[i];
			return 0;
		}
	}
	list[0] = '\0';
	for (size_t i = 0; i < count && len < sizeof list; i++) {
		int w = snprintf(list + len, sizeof list - len, "%s%s",
				 i == 0		  ? ""
				 : i + 1 == count ? " or "
						  : ", ",
				 names[i]);
		if (w > 0)
			len += (size_t)w;
	}
	return fail(x, n, "expected %s, not %s", list, quote(n, q, sizeof q));
}

/* Typed getters for key i of f: absent keys leave *out untouched. */

static int opt_str(struct ctx *x, const struct fields *f, size_t i, char **out)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_str(x, f->val[i], out);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

static int opt_bool(struct ctx *x, const struct fields *f, size_t i, bool *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_bool(x, f->val[i], out);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

static int opt_uint(struct ctx *x, const struct fields *f, size_t i,
		    unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_uint(x, f->val[i], min, max, &v);
	if (rc)
		return rc;
	*out = (unsigned)v;
	path_cut(x, saved);
	return 0;
}

static int opt_duration(struct ctx *x, const struct fields *f, size_t i,
			uint64_t min, uint64_t max, bool zero_ok, uint64_t *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_duration(x, f->val[i], min, max, zero_ok, out);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

static int opt_size(struct ctx *x, const struct fields *f, size_t i,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_size(x, f->val[i], min, max, out);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

static int opt_enum(struct ctx *x, const struct fields *f, size_t i,
		    const char *const *names, const int *values, size_t count,
		    int *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = node_enum(x, f->val[i], names, values, count, out);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

/* A list (or null, for an empty one); returns its item count or -EINVAL. */
static int want_seq(struct ctx *x, const struct node *n, size_t *count)
{
	*count = 0;
	if (node_is_null(n))
		return 0;
	if (n->kind != NODE_SEQ)
		return fail(x, n, "expected a list");
	*count = n->n;
	return 0;
}

/*
 * Secrets read from files.
 */

/*
 * Reads the secret named by key i of f (a path) into *out, without its
 * trailing newline. Errors name the key and the path, never the content.
 */
static int opt_secret_file(struct ctx *x, const struct fields *f, size_t i,
			   char **out)
{
	char *path = NULL, *buf = NULL, eb[128];
	struct stat st;
	size_t len = 0;
	int rc, fd;

	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	rc = node_str(x, f->val[i], &path);
	if (rc)
		return rc;
	/* O_NONBLOCK: a FIFO or a terminal must not hang the load. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = fail(x, f->val[i], "cannot open \"%s\": %s", path,
			  strerror_r(errno, eb, sizeof eb));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = fail(x, f->val[i], "\"%s\" is not a regular file", path);
		close(fd);
		goto out;
	}
	buf = xmalloc(SECRET_MAX + 1);
	for (;;) {
		ssize_t r = read(fd, buf + len, SECRET_MAX + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = fail(x, f->val[i], "cannot read \"%s\": %s", path,
				  strerror_r(errno, eb, sizeof eb));
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > SECRET_MAX) {
			rc =
			    fail(x, f->val[i], "\"%s\" is larger than %d bytes",
				 path, SECRET_MAX);
			break;
		}
	}
	close(fd);
	if (rc)
		goto out;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (len == 0)
		rc = fail(x, f->val[i], "\"%s\" is empty", path);
	else if (strlen(buf) != len)
		rc = fail(x, f->val[i], "\"%s\" contains a NUL byte", path);
	if (rc == 0) {
		free(*out);
		*out = xstrdup(buf);
		path_cut(x, saved);
	}
out:
	if (buf) {
		explicit_bzero(buf, SECRET_MAX + 1);
		free(buf);
	}
	free(path);
	return rc;
}

/*
 * A secret given inline (key i) or in a file (key j), not both. Returns 0
 * with *out untouched if neither is present.
 */
static int opt_secret(struct ctx *x, const struct fields *f, size_t i, size_t j,
		      char **out)
{
	if (f->val[i] && f->val[j]) {
		size_t k = later(f, i, j);
		return fail_key(x, f, k, "use %s or %s, not both", f->keys[i],
				f->keys[j]);
	}
	if (f->val[i])
		return opt_str(x, f, i, out);
	return opt_secret_file(x, f, j, out);
}

/*
 * Addresses and names.
 */

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return true;
	return false;
}

/* 0 if s is 1..5 digits of a port in [min, 65535]. */
static int parse_port(const char *s, unsigned min, unsigned *port)
{
	bool neg;
	uint64_t v;
	if (!*s || strlen(s) > 5 || parse_int(s, &neg, &v) || neg)
		return -EINVAL;
	if (v < min || v > 65535)
		return -ERANGE;
	*port = (unsigned)v;
	return 0;
}

/*
 * Splits "host:port", "[v6]:port" or (any_host) ":port". Returns 0,
 * -EINVAL (shape) or -ERANGE (port out of range).
 */
static int split_hostport(const char *s, bool any_host, unsigned min_port,
			  char **host, char **port)
{
	const char *colon, *h = s;
	size_t hlen;
	unsigned p;

	if (has_space(s))
		return -EINVAL;
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end || end == s + 1 || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		hlen = (size_t)(end - h);
		colon = end + 1;
		if (memchr(h, '[', hlen))
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (!colon || strchr(colon + 1, ':') || strchr(s, ']'))
			return -EINVAL;
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 && !any_host)
		return -EINVAL;
	int rc = parse_port(colon + 1, min_port, &p);
	if (rc)
		return rc;
	if (host)
		*host = xstrndup(h, hlen);
	if (port)
		*port = xstrdup(colon + 1);
	return 0;
}

static bool valid_name(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
			return false;
	return true;
}

static int want_name(struct ctx *x, const struct node *n)
{
	char q[QUOTE_BUF];
	if (valid_name(n->str))
		return 0;
	return fail(x, n,
		    "%s is not a valid name (1 to %d characters of A-Z a-z "
		    "0-9 . _ : -)",
		    quote(n, q, sizeof q), NAME_MAX_LEN);
}

/*
 * Sections. Each takes its node with the path already pointing at it.
 */

static int parse_listen(struct ctx *x, struct cfg *c, const struct node *n)
{
	size_t count;
	int rc = want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0)
		return fail(x, n, "needs at least one address");
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	c->listen = xcalloc(count, sizeof *c->listen);
	c->n_listen = 0;
	for (size_t i = 0; i < count; i++) {
		const struct node *item = n->kids[i];
		struct cfg_listen *l = &c->listen[i];
		char q[QUOTE_BUF];
		size_t saved = path_index(x, i);
		rc = want_scalar(x, item, "a string");
		if (rc)
			return rc;
		rc = split_hostport(item->str, true, 0, &l->host, &l->port);
		if (rc == -ERANGE)
			return fail(x, item,
				    "port must be between 0 and 65535 in %s",
				    quote(item, q, sizeof q));
		if (rc)
			return fail(x, item,
				    "%s is not host:port (e.g. 127.0.0.1:%s, "
				    "[::1]:%s, :%s)",
				    quote(item, q, sizeof q), CFG_DEFAULT_PORT,
				    CFG_DEFAULT_PORT, CFG_DEFAULT_PORT);
		c->n_listen++;
		path_cut(x, saved);
	}
	return 0;
}

static int parse_priorities(struct ctx *x, struct cfg *c, const struct node *n)
{
	size_t count;
	uint8_t mask = 0;
	int rc = want_seq(x, n, &count);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		uint64_t p;
		size_t saved = path_index(x, i);
		rc = node_uint(x, n->kids[i], 0, 7, &p);
		if (rc)
			return rc;
		if (mask & (1u << p))
			return fail(x, n->kids[i],
				    "priority %u is listed twice", (unsigned)p);
		mask |= (uint8_t)(1u << p);
		path_cut(x, saved);
	}
	c->lossless_mask = mask;
	return 0;
}

static bool known_subsystem(const char *s)
{
	if (strcmp(s, "all") == 0)
		return true;
	for (size_t i = 0; log_subsystems[i]; i++)
		if (strcmp(s, log_subsystems[i]) == 0)
			return true;
	return false;
}

enum { LOG_K_LEVEL, LOG_K_DEBUG, LOG_K_N };
static const char *const log_keys[LOG_K_N] = {
	[LOG_K_LEVEL] = "level",
	[LOG_K_DEBUG] = "debug",
};

static int parse_log(struct ctx *x, struct cfg *c, const struct node *n)
{
	static const char *const names[] = { "error", "warn", "notice", "info",
					     "debug" };
	static const int values[] = { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_NOTICE,
				      LOG_LVL_INFO, LOG_LVL_DEBUG };
	struct fields f;
	size_t count;
	int rc = fields_get(x, n, log_keys, LOG_K_N, &f);
	if (rc)
		return rc;
	rc = opt_enum(x, &f, LOG_K_LEVEL, names, values, 5, &c->log_level);
	if (rc || !f.val[LOG_K_DEBUG])
		return rc;
	size_t saved_debug = path_key(x, "debug");
	rc = want_seq(x, f.val[LOG_K_DEBUG], &count);
	if (rc)
		return rc;
	c->log_debug = xcalloc(count ? count : 1, sizeof *c->log_debug);
	for (size_t i = 0; i < count; i++) {
		const struct node *t = f.val[LOG_K_DEBUG]->kids[i];
		char q[QUOTE_BUF];
		size_t saved = path_index(x, i);
		rc = want_scalar(x, t, "a subsystem name");
		if (rc)
			return rc;
		if (!known_subsystem(t->str))
			return fail(x, t,
				    "%s is not a subsystem (all, core, config, "
				    "store, http, gnmi, snmp, nic, rules, "
				    "topology, sim)",
				    quote(t, q, sizeof q));
		c->log_debug[c->n_log_debug++] = xstrdup(t->str);
		path_cut(x, saved);
	}
	path_cut(x, saved_debug);
	return 0;
}

enum { STORE_K_RING, STORE_K_STALE, STORE_K_N };
static const char *const store_keys[STORE_K_N] = {
	[STORE_K_RING] = "ring",
	[STORE_K_STALE] = "stale_after",
};

static int parse_store(struct ctx *x, struct cfg *c, const struct node *n)
{
	struct fields f;
	int rc = fields_get(x, n, store_keys, STORE_K_N, &f);
	if (rc == 0)
		rc = opt_uint(x, &f, STORE_K_RING, 8, 4096, &c->store_ring);
	if (rc == 0)
		rc = opt_uint(x, &f, STORE_K_STALE, 2, 1000,
			      &c->store_stale_intervals);
	return rc;
}

enum { HTTP_K_THREADS, HTTP_K_MAXCONN, HTTP_K_N };
static const char *const http_keys[HTTP_K_N] = {
	[HTTP_K_THREADS] = "threads",
	[HTTP_K_MAXCONN] = "max_connections",
};

static int parse_http(struct ctx *x, struct cfg *c, const struct node *n)
{
	struct fields f;
	int rc = fields_get(x, n, http_keys, HTTP_K_N, &f);
	if (rc == 0)
		rc = opt_uint(x, &f, HTTP_K_THREADS, 1, 64, &c->http_threads);
	if (rc == 0)
		rc = opt_uint(x, &f, HTTP_K_MAXCONN, 1, 65536,
			      &c->http_max_connections);
	return rc;
}

enum { GCOL_K_THREADS, GCOL_K_MAXCONN, GCOL_K_MAXMSG, GCOL_K_N };
static const char *const gcol_keys[GCOL_K_N] = {
	[GCOL_K_THREADS] = "threads",
	[GCOL_K_MAXCONN] = "max_connecting",
	[GCOL_K_MAXMSG] = "max_message_size",
};

static int parse_gnmi_collector(struct ctx *x, struct cfg *c,
				const struct node *n)
{
	struct fields f;
	int rc = fields_get(x, n, gcol_keys, GCOL_K_N, &f);
	if (rc == 0)
		rc = opt_uint(x, &f, GCOL_K_THREADS, 1, 64, &c->gnmi.threads);
	if (rc == 0)
		rc = opt_uint(x, &f, GCOL_K_MAXCONN, 1, 100000,
			      &c->gnmi.max_connecting);
	if (rc == 0)
		rc = opt_size(x, &f, GCOL_K_MAXMSG, 64 * 1024,
			      UINT64_C(1) << 30, &c->gnmi.max_message);
	return rc;
}

static int parse_profiles_dir(struct ctx *x, struct cfg *c,
			      const struct node *n)
{
	free(c->profiles_dir);
	c->profiles_dir = NULL;
	return node_str(x, n, &c->profiles_dir);
}

enum {
	SUB_K_PATH,
	SUB_K_ORIGIN,
	SUB_K_MODE,
	SUB_K_SAMPLE,
	SUB_K_HEARTBEAT,
	SUB_K_SUPPRESS,
	SUB_K_N
};
static const char *const sub_keys[SUB_K_N] = {
	[SUB_K_PATH] = "path",
	[SUB_K_ORIGIN] = "origin",
	[SUB_K_MODE] = "mode",
	[SUB_K_SAMPLE] = "sample_interval",
	[SUB_K_HEARTBEAT] = "heartbeat_interval",
	[SUB_K_SUPPRESS] = "suppress_redundant",
};

/* One subscription; every is its default sample interval. */
static int parse_sub(struct ctx *x, struct cfg_gnmi_sub *s,
		     const struct node *n, uint64_t every)
{
	static const char *const names[] = { "sample", "on_change",
					     "target_defined" };
	static const int values[] = { CFG_SUB_SAMPLE, CFG_SUB_ON_CHANGE,
				      CFG_SUB_TARGET_DEFINED };
	struct fields f;
	int mode = CFG_SUB_SAMPLE;
	int rc = fields_get(x, n, sub_keys, SUB_K_N, &f);
	if (rc)
		return rc;
	s->mode = CFG_SUB_SAMPLE;
	s->sample_interval_ns = every;
	if ((rc = need(x, &f, SUB_K_PATH)) ||
	    (rc = opt_str(x, &f, SUB_K_PATH, &s->path)))
		return rc;
	if (s->path[0] != '/')
		return fail_key(x, &f, SUB_K_PATH, "must start with '/'");
	if ((rc = opt_str(x, &f, SUB_K_ORIGIN, &s->origin)) ||
	    (rc = opt_enum(x, &f, SUB_K_MODE, names, values, 3, &mode)) ||
	    (rc = opt_duration(x, &f, SUB_K_SAMPLE, NS_PER_MS, UINT64_MAX, true,
			       &s->sample_interval_ns)) ||
	    (rc = opt_duration(x, &f, SUB_K_HEARTBEAT, 0, UINT64_MAX, false,
			       &s->heartbeat_interval_ns)) ||
	    (rc = opt_bool(x, &f, SUB_K_SUPPRESS, &s->suppress_redundant)))
		return rc;
	s->mode = (enum cfg_sub_mode)mode;
	return 0;
}

enum {
	GNMI_K_ADDRESS,
	GNMI_K_INSECURE,
	GNMI_K_SKIP_VERIFY,
	GNMI_K_CA,
	GNMI_K_CERT,
	GNMI_K_KEY,
	GNMI_K_SERVER_NAME,
	GNMI_K_USERNAME,
	GNMI_K_PASSWORD,
	GNMI_K_PASSWORD_FILE,
	GNMI_K_MODE,
	GNMI_K_INTERVAL,
	GNMI_K_POLL_INTERVAL,
	GNMI_K_ENCODING,
	GNMI_K_TARGET,
	GNMI_K_PROFILE,
	GNMI_K_UPDATES_ONLY,
	GNMI_K_SUBSCRIPTIONS,
	GNMI_K_N
};
static const char *const gnmi_keys[GNMI_K_N] = {
	[GNMI_K_ADDRESS] = "address",
	[GNMI_K_INSECURE] = "insecure",
	[GNMI_K_SKIP_VERIFY] = "skip_verify",
	[GNMI_K_CA] = "ca",
	[GNMI_K_CERT] = "cert",
	[GNMI_K_KEY] = "key",
	[GNMI_K_SERVER_NAME] = "server_name",
	[GNMI_K_USERNAME] = "username",
	[GNMI_K_PASSWORD] = "password",
	[GNMI_K_PASSWORD_FILE] = "password_file",
	[GNMI_K_MODE] = "mode",
	[GNMI_K_INTERVAL] = "interval",
	[GNMI_K_POLL_INTERVAL] = "poll_interval",
	[GNMI_K_ENCODING] = "encoding",
	[GNMI_K_TARGET] = "target",
	[GNMI_K_PROFILE] = "profile",
	[GNMI_K_UPDATES_ONLY] = "updates_only",
	[GNMI_K_SUBSCRIPTIONS] = "subscriptions",
};

static int gnmi_address(struct ctx *x, const struct fields *f)
{
	const struct node *a = f->val[GNMI_K_ADDRESS];
	char q[QUOTE_BUF];
	int rc;
	size_t saved = path_key(x, "address");

	if (strncmp(a->str, "unix:", 5) == 0) {
		if (a->str[5] != '/' || has_space(a->str))
			return fail(x, a,
				    "%s: a unix socket needs an absolute "
				    "path (unix:/path)",
				    quote(a, q, sizeof q));
	} else {
		rc = split_hostport(a->str, false, 1, NULL, NULL);
		if (rc == -ERANGE)
			return fail(x, a,
				    "port must be between 1 and 65535 in %s",
				    quote(a, q, sizeof q));
		if (rc)
			return fail(x, a,
				    "%s is not host:port, [v6]:port or "
				    "unix:/path",
				    quote(a, q, sizeof q));
	}
	path_cut(x, saved);
	return 0;
}

static int gnmi_subs(struct ctx *x, struct cfg_gnmi *g, const struct node *n,
		     uint64_t every)
{
	size_t count;
	int rc = want_seq(x, n, &count);
	if (rc)
		return rc;
	g->subs = xcalloc(count ? count : 1, sizeof *g->subs);
	for (size_t i = 0; i < count; i++) {
		size_t saved = path_index(x, i);
		g->n_subs++;
		rc = parse_sub(x, &g->subs[i], n->kids[i], every);
		if (rc)
			return rc;
		path_cut(x, saved);
	}
	return 0;
}

static int parse_gnmi(struct ctx *x, struct cfg_gnmi *g, const struct node *n)
{
	static const char *const modes[] = { "stream", "once", "poll" };
	static const int mode_values[] = { CFG_GNMI_STREAM, CFG_GNMI_ONCE,
					   CFG_GNMI_POLL };
	static const char *const encs[] = { "json", "json_ietf", "proto",
					    "auto" };
	static const int enc_values[] = { CFG_GNMI_ENC_JSON,
					  CFG_GNMI_ENC_JSON_IETF,
					  CFG_GNMI_ENC_PROTO,
					  CFG_GNMI_ENC_AUTO };
	struct fields f;
	int mode = CFG_GNMI_STREAM, enc = CFG_GNMI_ENC_AUTO;
	int rc = fields_get(x, n, gnmi_keys, GNMI_K_N, &f);
	if (rc)
		return rc;
	g->mode = CFG_GNMI_STREAM;
	g->encoding = CFG_GNMI_ENC_AUTO;
	if ((rc = need(x, &f, GNMI_K_ADDRESS)) ||
	    (rc = opt_str(x, &f, GNMI_K_ADDRESS, &g->address)) ||
	    (rc = gnmi_address(x, &f)) ||
	    (rc = opt_bool(x, &f, GNMI_K_INSECURE, &g->insecure)) ||
	    (rc = opt_bool(x, &f, GNMI_K_SKIP_VERIFY, &g->skip_verify)) ||
	    (rc = opt_str(x, &f, GNMI_K_CA, &g->ca)) ||
	    (rc = opt_str(x, &f, GNMI_K_CERT, &g->cert)) ||
	    (rc = opt_str(x, &f, GNMI_K_KEY, &g->key)) ||
	    (rc = opt_str(x, &f, GNMI_K_SERVER_NAME, &g->server_name)) ||
	    (rc = opt_str(x, &f, GNMI_K_USERNAME, &g->username)) ||
	    (rc = opt_secret(x, &f, GNMI_K_PASSWORD, GNMI_K_PASSWORD_FILE,
			     &g->password)) ||
	    (rc = opt_enum(x, &f, GNMI_K_MODE, modes, mode_values, 3, &mode)) ||
	    (rc = opt_duration(x, &f, GNMI_K_INTERVAL, INTERVAL_MIN,
			       INTERVAL_MAX, false, &g->interval_ns)) ||
	    (rc = opt_duration(x, &f, GNMI_K_POLL_INTERVAL, INTERVAL_MIN,
			       INTERVAL_MAX, false, &g->poll_interval_ns)) ||
	    (rc =
		 opt_enum(x, &f, GNMI_K_ENCODING, encs, enc_values, 4, &enc)) ||
	    (rc = opt_str(x, &f, GNMI_K_TARGET, &g->target)) ||
	    (rc = opt_str(x, &f, GNMI_K_PROFILE, &g->profile)) ||
	    (rc = opt_bool(x, &f, GNMI_K_UPDATES_ONLY, &g->updates_only)))
		return rc;
	g->mode = (enum cfg_gnmi_mode)mode;
	g->encoding = (enum cfg_gnmi_encoding)enc;

	if (g->insecure) {
		static const size_t tls[] = { GNMI_K_CA, GNMI_K_CERT,
					      GNMI_K_KEY };
		for (size_t i = 0; i < 3; i++)
			if (f.val[tls[i]])
				return fail_key(x, &f, tls[i],
						"cannot be used with insecure: "
						"true");
	}
	if (f.val[GNMI_K_CERT] && !f.val[GNMI_K_KEY])
		return fail_key(x, &f, GNMI_K_CERT,
				"needs key too (cert and key go together)");
	if (f.val[GNMI_K_KEY] && !f.val[GNMI_K_CERT])
		return fail_key(x, &f, GNMI_K_KEY,
				"needs cert too (cert and key go together)");
	if (g->password && !g->username) {
		size_t k = f.val[GNMI_K_PASSWORD] ? GNMI_K_PASSWORD
						  : GNMI_K_PASSWORD_FILE;
		return fail_key(x, &f, k, "needs username too");
	}
	/* The target's interval, else the global one, is the default. */
	uint64_t every = g->interval_ns ? g->interval_ns : x->interval_ns;
	if (g->mode == CFG_GNMI_POLL && !f.val[GNMI_K_POLL_INTERVAL])
		g->poll_interval_ns = every;
	if (g->mode != CFG_GNMI_POLL && f.val[GNMI_K_POLL_INTERVAL])
		return fail_key(x, &f, GNMI_K_POLL_INTERVAL,
				"only applies to mode: poll");
	if (f.val[GNMI_K_SUBSCRIPTIONS]) {
		size_t saved = path_key(x, "subscriptions");
		rc = gnmi_subs(x, g, f.val[GNMI_K_SUBSCRIPTIONS], every);
		if (rc)
			return rc;
		path_cut(x, saved);
	}
	return 0;
}

enum {
	SNMP_K_ADDRESS,
	SNMP_K_VERSION,
	SNMP_K_COMMUNITY,
	SNMP_K_COMMUNITY_FILE,
	SNMP_K_USER,
	SNMP_K_AUTH,
	SNMP_K_AUTH_KEY,
	SNMP_K_AUTH_KEY_FILE,
	SNMP_K_PRIV,
	SNMP_K_PRIV_KEY,
	SNMP_K_PRIV_KEY_FILE,
	SNMP_K_INTERVAL,
	SNMP_K_TIMEOUT,
	SNMP_K_RETRIES,
	SNMP_K_MAX_REP,
	SNMP_K_PROFILE,
	SNMP_K_N
};
static const char *const snmp_keys[SNMP_K_N] = {
	[SNMP_K_ADDRESS] = "address",
	[SNMP_K_VERSION] = "version",
	[SNMP_K_COMMUNITY] = "community",
	[SNMP_K_COMMUNITY_FILE] = "community_file",
	[SNMP_K_USER] = "user",
	[SNMP_K_AUTH] = "auth",
	[SNMP_K_AUTH_KEY] = "auth_key",
	[SNMP_K_AUTH_KEY_FILE] = "auth_key_file",
	[SNMP_K_PRIV] = "priv",
	[SNMP_K_PRIV_KEY] = "priv_key",
	[SNMP_K_PRIV_KEY_FILE] = "priv_key_file",
	[SNMP_K_INTERVAL] = "interval",
	[SNMP_K_TIMEOUT] = "timeout",
	[SNMP_K_RETRIES] = "retries",
	[SNMP_K_MAX_REP] = "max_repetitions",
	[SNMP_K_PROFILE] = "profile",
};

/*
 * net-snmp's peer names: an optional udp:, udp6:, tcp: or tcp6:
 * transport, then host, host:port, [v6] or [v6]:port (a bare v6 address
 * has no port).
 */
static bool valid_snmp_address(const char *s)
{
	static const char *const transports[] = { "udp:", "udp6:", "tcp:",
						  "tcp6:" };
	const char *colon;
	unsigned port;

	if (has_space(s))
		return false;
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(transports[i]);
		if (strncmp(s, transports[i], l) == 0) {
			s += l;
			break;
		}
	}
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end || end == s + 1)
			return false;
		if (end[1] == '\0')
			return true;
		return end[1] == ':' && parse_port(end + 2, 1, &port) == 0;
	}
	colon = strchr(s, ':');
	if (colon == s || !*s)
		return false;
	if (!colon || strchr(colon + 1, ':'))
		return true; /* a host, or a bare IPv6 address */
	return parse_port(colon + 1, 1, &port) == 0;
}

/* Keys that only one SNMP version takes. */
static int snmp_version_keys(struct ctx *x, const struct fields *f, int v)
{
	static const size_t v2[] = { SNMP_K_COMMUNITY, SNMP_K_COMMUNITY_FILE };
	static const size_t v3[] = { SNMP_K_USER,	  SNMP_K_AUTH,
				     SNMP_K_AUTH_KEY,	  SNMP_K_AUTH_KEY_FILE,
				     SNMP_K_PRIV,	  SNMP_K_PRIV_KEY,
				     SNMP_K_PRIV_KEY_FILE };
	if (v == 3) {
		for (size_t i = 0; i < 2; i++)
			if (f->val[v2[i]])
				return fail_key(x, f, v2[i],
						"only applies to version 2c");
	} else {
		for (size_t i = 0; i < 7; i++)
			if (f->val[v3[i]])
				return fail_key(x, f, v3[i],
						"only applies to version 3");
	}
	return 0;
}

/* The v3 security settings: user, auth and priv with their keys. */
static int snmp_v3(struct ctx *x, struct cfg_snmp *s, const struct fields *f)
{
	static const char *const auths[] = { "SHA", "SHA-256", "SHA-512" };
	static const int auth_values[] = { CFG_SNMP_AUTH_SHA,
					   CFG_SNMP_AUTH_SHA256,
					   CFG_SNMP_AUTH_SHA512 };
	static const char *const privs[] = { "AES", "AES-256" };
	static const int priv_values[] = { CFG_SNMP_PRIV_AES,
					   CFG_SNMP_PRIV_AES256 };
	int auth = CFG_SNMP_AUTH_NONE, priv = CFG_SNMP_PRIV_NONE, rc;

	if ((rc = need(x, f, SNMP_K_USER)) ||
	    (rc = opt_str(x, f, SNMP_K_USER, &s->user)) ||
	    (rc = opt_enum(x, f, SNMP_K_AUTH, auths, auth_values, 3, &auth)) ||
	    (rc = opt_secret(x, f, SNMP_K_AUTH_KEY, SNMP_K_AUTH_KEY_FILE,
			     &s->auth_key)) ||
	    (rc = opt_enum(x, f, SNMP_K_PRIV, privs, priv_values, 2, &priv)) ||
	    (rc = opt_secret(x, f, SNMP_K_PRIV_KEY, SNMP_K_PRIV_KEY_FILE,
			     &s->priv_key)))
		return rc;
	s->auth = (enum cfg_snmp_auth)auth;
	s->priv = (enum cfg_snmp_priv)priv;
	if (s->user[0] == '\0')
		return fail_key(x, f, SNMP_K_USER, "must not be empty");

	/* Each key goes with its protocol, and priv needs auth. */
	size_t auth_k =
	    f->val[SNMP_K_AUTH_KEY] ? SNMP_K_AUTH_KEY : SNMP_K_AUTH_KEY_FILE;
	size_t priv_k =
	    f->val[SNMP_K_PRIV_KEY] ? SNMP_K_PRIV_KEY : SNMP_K_PRIV_KEY_FILE;
	if (s->auth_key && !f->val[SNMP_K_AUTH])
		return fail_key(x, f, auth_k, "needs auth too");
	if (f->val[SNMP_K_AUTH] && !s->auth_key)
		return fail_key(x, f, SNMP_K_AUTH,
				"needs auth_key or auth_key_file");
	if (s->priv_key && !f->val[SNMP_K_PRIV])
		return fail_key(x, f, priv_k, "needs priv too");
	if (f->val[SNMP_K_PRIV] && !s->priv_key)
		return fail_key(x, f, SNMP_K_PRIV,
				"needs priv_key or priv_key_file");
	if (f->val[SNMP_K_PRIV] && !f->val[SNMP_K_AUTH])
		return fail_key(x, f, SNMP_K_PRIV,
				"needs auth too (no privacy without "
				"authentication)");
	if (s->auth_key && strlen(s->auth_key) < SNMP_KEY_MIN)
		return fail_key(x, f, auth_k,
				"must be at least %d characters long",
				SNMP_KEY_MIN);
	if (s->priv_key && strlen(s->priv_key) < SNMP_KEY_MIN)
		return fail_key(x, f, priv_k,
				"must be at least %d characters long",
				SNMP_KEY_MIN);
	return 0;
}

static int parse_snmp(struct ctx *x, struct cfg_snmp *s, const struct node *n)
{
	struct fields f;
	char q[QUOTE_BUF];
	int rc = fields_get(x, n, snmp_keys, SNMP_K_N, &f);
	if (rc)
		return rc;
	s->version = 2;
	s->timeout_ns = NS_PER_S;
	s->retries = 1;
	s->max_repetitions = 25;
	if ((rc = need(x, &f, SNMP_K_ADDRESS)) ||
	    (rc = opt_str(x, &f, SNMP_K_ADDRESS, &s->address)))
		return rc;
	if (!valid_snmp_address(s->address))
		return fail_key(x, &f, SNMP_K_ADDRESS,
				"%s is not an SNMP address (host, host:port, "
				"[v6]:port, optionally after udp: or udp6:)",
				quote(f.val[SNMP_K_ADDRESS], q, sizeof q));
	if (f.val[SNMP_K_VERSION]) {
		const struct node *v = f.val[SNMP_K_VERSION];
		size_t saved = path_key(x, "version");
		if ((rc = want_scalar(x, v, "2c or 3")))
			return rc;
		if (strcmp(v->str, "2c") == 0 || strcmp(v->str, "2") == 0)
			s->version = 2;
		else if (strcmp(v->str, "3") == 0)
			s->version = 3;
		else
			return fail(x, v, "expected 2c or 3, not %s",
				    quote(v, q, sizeof q));
		path_cut(x, saved);
	}
	if ((rc = snmp_version_keys(x, &f, s->version)))
		return rc;
	if (s->version == 3) {
		rc = snmp_v3(x, s, &f);
	} else {
		rc = opt_secret(x, &f, SNMP_K_COMMUNITY, SNMP_K_COMMUNITY_FILE,
				&s->community);
		if (rc == 0 && !s->community)
			s->community = xstrdup("public");
	}
	if (rc ||
	    (rc = opt_duration(x, &f, SNMP_K_INTERVAL, INTERVAL_MIN,
			       INTERVAL_MAX, false, &s->interval_ns)) ||
	    (rc = opt_duration(x, &f, SNMP_K_TIMEOUT, 10 * NS_PER_MS,
			       60 * NS_PER_S, false, &s->timeout_ns)) ||
	    (rc = opt_uint(x, &f, SNMP_K_RETRIES, 0, 10, &s->retries)) ||
	    (rc = opt_uint(x, &f, SNMP_K_MAX_REP, 1, 200,
			   &s->max_repetitions)) ||
	    (rc = opt_str(x, &f, SNMP_K_PROFILE, &s->profile)))
		return rc;
	return 0;
}

enum { TGT_K_NAME, TGT_K_GNMI, TGT_K_SNMP, TGT_K_N };
static const char *const target_keys[TGT_K_N] = {
	[TGT_K_NAME] = "name",
	[TGT_K_GNMI] = "gnmi",
	[TGT_K_SNMP] = "snmp",
};

/* Parses one target; *name_node gets the node of its name. */
static int parse_target(struct ctx *x, struct cfg_target *t,
			const struct node *n, const struct node **name_node)
{
	struct fields f;
	int rc = fields_get(x, n, target_keys, TGT_K_N, &f);
	if (rc)
		return rc;
	if ((rc = need(x, &f, TGT_K_NAME)))
		return rc;
	size_t saved = path_key(x, "name");
	if ((rc = node_str(x, f.val[TGT_K_NAME], &t->name)) ||
	    (rc = want_name(x, f.val[TGT_K_NAME])))
		return rc;
	path_cut(x, saved);
	*name_node = f.val[TGT_K_NAME];
	if (!f.val[TGT_K_GNMI] && !f.val[TGT_K_SNMP])
		return fail(x, n, "needs gnmi, snmp or both");
	if (f.val[TGT_K_GNMI]) {
		saved = path_key(x, "gnmi");
		t->gnmi = xcalloc(1, sizeof *t->gnmi);
		if ((rc = parse_gnmi(x, t->gnmi, f.val[TGT_K_GNMI])))
			return rc;
		path_cut(x, saved);
	}
	if (f.val[TGT_K_SNMP]) {
		saved = path_key(x, "snmp");
		t->snmp = xcalloc(1, sizeof *t->snmp);
		if ((rc = parse_snmp(x, t->snmp, f.val[TGT_K_SNMP])))
			return rc;
		path_cut(x, saved);
	}
	return 0;
}

/* A target's name and place, sorted by name to find duplicates. */
struct name_ref {
	const struct node *node;
	size_t index;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *p = a, *q = b;
	int d = strcmp(p->node->str, q->node->str);
	if (d)
		return d;
	return p->index < q->index ? -1 : p->index > q->index;
}

/*
 * Names must be unique. Sorting keeps this n log n for large fabrics;
 * the reported duplicate is the one that comes first in the file, with
 * the place where its name was first used.
 */
static int unique_names(struct ctx *x, struct name_ref *refs, size_t n)
{
	const struct name_ref *dup = NULL, *first = NULL;

	qsort(refs, n, sizeof *refs, cmp_name_ref);
	for (size_t i = 1, run = 0; i < n; i++) {
		if (strcmp(refs[i].node->str, refs[run].node->str) != 0) {
			run = i;
			continue;
		}
		if (i == run + 1 && (!dup || refs[i].index < dup->index)) {
			dup = &refs[i];
			first = &refs[run];
		}
	}
	if (!dup)
		return 0;
	path_index(x, dup->index);
	path_key(x, "name");
	return fail(x, dup->node,
		    "duplicate target name \"%s\" (first at %u:%u)",
		    dup->node->str, first->node->line, first->node->col);
}

static int parse_targets(struct ctx *x, struct cfg *c, const struct node *n)
{
	struct name_ref *refs;
	size_t count;
	int rc = want_seq(x, n, &count);
	if (rc || count == 0)
		return rc;
	c->targets = xcalloc(count, sizeof *c->targets);
	refs = xcalloc(count, sizeof *refs);
	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t saved = path_index(x, i);
		c->n_targets++;
		refs[i].index = i;
		rc = parse_target(x, &c->targets[i], n->kids[i], &refs[i].node);
		if (rc == 0)
			path_cut(x, saved);
	}
	if (rc == 0)
		rc = unique_names(x, refs, count);
	free(refs);
	return rc;
}

enum {
	NIC_K_ENABLED,
	NIC_K_DEVICE,
	NIC_K_SYSFS,
	NIC_K_ETHTOOL,
	NIC_K_INTERVAL,
	NIC_K_N
};
static const char *const nic_keys[NIC_K_N] = {
	[NIC_K_ENABLED] = "enabled",   [NIC_K_DEVICE] = "device",
	[NIC_K_SYSFS] = "sysfs_root",  [NIC_K_ETHTOOL] = "ethtool_dir",
	[NIC_K_INTERVAL] = "interval",
};

static int parse_nic(struct ctx *x, struct cfg *c, const struct node *n)
{
	struct cfg_nic *nic = &c->nic;
	struct fields f;
	int rc = fields_get(x, n, nic_keys, NIC_K_N, &f);
	if (rc)
		return rc;
	if ((rc = opt_bool(x, &f, NIC_K_ENABLED, &nic->enabled)) ||
	    (rc = opt_str(x, &f, NIC_K_DEVICE, &nic->device)))
		return rc;
	if (f.val[NIC_K_DEVICE]) {
		size_t saved = path_key(x, "device");
		if ((rc = want_name(x, f.val[NIC_K_DEVICE])))
			return rc;
		path_cut(x, saved);
	}
	if ((rc = opt_str(x, &f, NIC_K_SYSFS, &nic->sysfs_root)) ||
	    (rc = opt_str(x, &f, NIC_K_ETHTOOL, &nic->ethtool_dir)) ||
	    (rc = opt_duration(x, &f, NIC_K_INTERVAL, INTERVAL_MIN,
			       INTERVAL_MAX, false, &nic->interval_ns)))
		return rc;
	if (nic->sysfs_root[0] == '\0')
		return fail_key(x, &f, NIC_K_SYSFS, "must not be empty");
	if (nic->ethtool_dir && nic->ethtool_dir[0] == '\0')
		return fail_key(x, &f, NIC_K_ETHTOOL, "must not be empty");
	return 0;
}

enum { RULES_K_TICK, RULES_K_N };
static const char *const rules_keys[RULES_K_N] = {
	[RULES_K_TICK] = "tick",
};

static int parse_rules(struct ctx *x, struct cfg *c, const struct node *n)
{
	struct fields f;
	int rc = fields_get(x, n, rules_keys, RULES_K_N, &f);
	if (rc == 0)
		rc = opt_duration(x, &f, RULES_K_TICK, INTERVAL_MIN,
				  INTERVAL_MAX, true, &c->rules.tick_ns);
	return rc;
}

enum {
	TOP_K_LISTEN,
	TOP_K_INTERVAL,
	TOP_K_LOSSLESS,
	TOP_K_LOG,
	TOP_K_STORE,
	TOP_K_HTTP,
	TOP_K_TARGETS,
	TOP_K_NIC,
	TOP_K_RULES,
	TOP_K_GNMI,
	TOP_K_PROFILES_DIR,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_LISTEN] = "listen",
	[TOP_K_INTERVAL] = "interval",
	[TOP_K_LOSSLESS] = "lossless_priorities",
	[TOP_K_LOG] = "log",
	[TOP_K_STORE] = "store",
	[TOP_K_HTTP] = "http",
	[TOP_K_TARGETS] = "targets",
	[TOP_K_NIC] = "nic",
	[TOP_K_RULES] = "rules",
	[TOP_K_GNMI] = "gnmi",
	[TOP_K_PROFILES_DIR] = "profiles_dir",
};

typedef int (*section_fn)(struct ctx *, struct cfg *, const struct node *);

/* Runs section parser fn on key i of f, if present. */
static int section(struct ctx *x, const struct fields *f, size_t i,
		   struct cfg *c, section_fn fn)
{
	if (!f->val[i])
		return 0;
	size_t saved = path_key(x, f->keys[i]);
	int rc = fn(x, c, f->val[i]);
	if (rc == 0)
		path_cut(x, saved);
	return rc;
}

static int parse_top(struct ctx *x, struct cfg *c, const struct node *root)
{
	struct fields f;
	int rc;

	if (root->kind != NODE_MAP)
		return fail_at(x, root->line, root->col,
			       "expected a mapping of settings at the top "
			       "level");
	if ((rc = fields_get(x, root, top_keys, TOP_K_N, &f)))
		return rc;
	/* The interval first: other keys default to it. */
	if ((rc = opt_duration(x, &f, TOP_K_INTERVAL, INTERVAL_MIN,
			       INTERVAL_MAX, false, &c->interval_ns)))
		return rc;
	x->interval_ns = c->interval_ns;
	if ((rc = section(x, &f, TOP_K_LISTEN, c, parse_listen)) ||
	    (rc = section(x, &f, TOP_K_LOSSLESS, c, parse_priorities)) ||
	    (rc = section(x, &f, TOP_K_LOG, c, parse_log)) ||
	    (rc = section(x, &f, TOP_K_STORE, c, parse_store)) ||
	    (rc = section(x, &f, TOP_K_HTTP, c, parse_http)) ||
	    (rc = section(x, &f, TOP_K_TARGETS, c, parse_targets)) ||
	    (rc = section(x, &f, TOP_K_NIC, c, parse_nic)) ||
	    (rc = section(x, &f, TOP_K_RULES, c, parse_rules)) ||
	    (rc = section(x, &f, TOP_K_GNMI, c, parse_gnmi_collector)) ||
	    (rc = section(x, &f, TOP_K_PROFILES_DIR, c, parse_profiles_dir)))
		return rc;
	return 0;
}

/*
 * The public API.
 */

static char *host_name(void)
{
	char buf[256];
	if (gethostname(buf, sizeof buf) != 0 || buf[0] == '\0')
		return xstrdup("localhost");
	buf[sizeof buf - 1] = '\0';
	return xstrdup(buf);
}

static struct cfg *cfg_new_defaults(void)
{
	struct cfg *c = xcalloc(1, sizeof *c);
	c->listen = xcalloc(1, sizeof *c->listen);
	c->listen[0].host = xstrdup("127.0.0.1");
	c->listen[0].port = xstrdup(CFG_DEFAULT_PORT);
	c->n_listen = 1;
	c->http_threads = 2;
	c->http_max_connections = 256;
	c->gnmi.threads = 2;
	c->gnmi.max_connecting = 32;
	c->gnmi.max_message = UINT64_C(16) << 20;
	c->profiles_dir = xstrdup(FABMON_PROFILEDIR);
	c->interval_ns = NS_PER_S;
	c->lossless_mask = 1u << 3;
	c->log_level = -1;
	c->store_ring = 64;
	c->store_stale_intervals = 5;
	c->nic.device = host_name();
	c->nic.sysfs_root = xstrdup("/sys");
	return c;
}

struct cfg *cfg_default(void)
{
	return cfg_new_defaults();
}

struct cfg *cfg_load_buffer(const char *name, const char *buf, size_t len,
			    char *err, size_t errlen)
{
	struct ctx x = { .name = name, .err = err, .errlen = errlen };
	struct node *root = NULL;
	struct cfg *c = NULL;

	if (err && errlen)
		err[0] = '\0';
	if (len > CFG_MAX_FILE_BYTES) {
		fail_file(&x, "file is larger than %d bytes",
			  CFG_MAX_FILE_BYTES);
		return NULL;
	}
	if (tree_parse(&x, buf, len, &root))
		return NULL;
	if (!root || node_is_null(root)) {
		fail_file(&x, "empty configuration file");
		node_free(root);
		return NULL;
	}
	c = cfg_new_defaults();
	c->path = xstrdup(name);
	if (parse_top(&x, c, root)) {
		cfg_free(c);
		c = NULL;
	}
	node_free(root);
	return c;
}

struct cfg *cfg_load(const char *path, char *err, size_t errlen)
{
	struct ctx x = { .name = path, .err = err, .errlen = errlen };
	char eb[128], *buf;
	size_t len = 0;
	struct cfg *c = NULL;
	int fd;

	if (err && errlen)
		err[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fail_file(&x, "cannot open: %s",
			  strerror_r(errno, eb, sizeof eb));
		return NULL;
	}
	/* One byte more than the limit tells "too large" from "full". */
	buf = xmalloc(CFG_MAX_FILE_BYTES + 1);
	for (;;) {
		ssize_t r = read(fd, buf + len, CFG_MAX_FILE_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fail_file(&x, "cannot read: %s",
				  strerror_r(errno, eb, sizeof eb));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > CFG_MAX_FILE_BYTES)
			break;
	}
	c = cfg_load_buffer(path, buf, len, err, errlen);
out:
	close(fd);
	explicit_bzero(buf, len);
	free(buf);
	return c;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void gnmi_free(struct cfg_gnmi *g)
{
	if (!g)
		return;
	free(g->address);
	free(g->ca);
	free(g->cert);
	free(g->key);
	free(g->server_name);
	free(g->username);
	free_secret(g->password);
	free(g->target);
	free(g->profile);
	for (size_t i = 0; i < g->n_subs; i++) {
		free(g->subs[i].path);
		free(g->subs[i].origin);
	}
	free(g->subs);
	free(g);
}

void cfg_gnmi_free(struct cfg_gnmi *g)
{
	gnmi_free(g);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct cfg_gnmi *cfg_gnmi_dup(const struct cfg_gnmi *g)
{
	if (!g)
		return NULL;
	struct cfg_gnmi *d = xmalloc(sizeof *d);
	*d = *g;
	d->address = dup_or_null(g->address);
	d->ca = dup_or_null(g->ca);
	d->cert = dup_or_null(g->cert);
	d->key = dup_or_null(g->key);
	d->server_name = dup_or_null(g->server_name);
	d->username = dup_or_null(g->username);
	d->password = dup_or_null(g->password);
	d->target = dup_or_null(g->target);
	d->profile = dup_or_null(g->profile);
	d->subs = xcalloc(g->n_subs ? g->n_subs : 1, sizeof *d->subs);
	for (size_t i = 0; i < g->n_subs; i++) {
		d->subs[i] = g->subs[i];
		d->subs[i].path = dup_or_null(g->subs[i].path);
		d->subs[i].origin = dup_or_null(g->subs[i].origin);
	}
	return d;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool cfg_gnmi_equal(const struct cfg_gnmi *a, const struct cfg_gnmi *b)
{
	if (!a || !b)
		return a == b;
	if (!str_eq(a->address, b->address) || a->insecure != b->insecure ||
	    a->skip_verify != b->skip_verify || !str_eq(a->ca, b->ca) ||
	    !str_eq(a->cert, b->cert) || !str_eq(a->key, b->key) ||
	    !str_eq(a->server_name, b->server_name) ||
	    !str_eq(a->username, b->username) ||
	    !str_eq(a->password, b->password) || a->mode != b->mode ||
	    a->interval_ns != b->interval_ns ||
	    a->poll_interval_ns != b->poll_interval_ns ||
	    a->encoding != b->encoding || !str_eq(a->target, b->target) ||
	    !str_eq(a->profile, b->profile) ||
	    a->updates_only != b->updates_only || a->n_subs != b->n_subs)
		return false;
	for (size_t i = 0; i < a->n_subs; i++) {
		const struct cfg_gnmi_sub *x = &a->subs[i], *y = &b->subs[i];
		if (!str_eq(x->path, y->path) ||
		    !str_eq(x->origin, y->origin) || x->mode != y->mode ||
		    x->sample_interval_ns != y->sample_interval_ns ||
		    x->heartbeat_interval_ns != y->heartbeat_interval_ns ||
		    x->suppress_redundant != y->suppress_redundant)
			return false;
	}
	return true;
}

static void snmp_free(struct cfg_snmp *s)
{
	if (!s)
		return;
	free(s->address);
	free_secret(s->community);
	free(s->user);
	free_secret(s->auth_key);
	free_secret(s->priv_key);
	free(s->profile);
	free(s);
}

void cfg_free(struct cfg *c)
{
	if (!c)
		return;
	free(c->path);
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	for (size_t i = 0; i < c->n_log_debug; i++)
		free(c->log_debug[i]);
	free(c->log_debug);
	for (size_t i = 0; i < c->n_targets; i++) {
		free(c->targets[i].name);
		gnmi_free(c->targets[i].gnmi);
		snmp_free(c->targets[i].snmp);
	}
	free(c->targets);
	free(c->nic.device);
	free(c->nic.sysfs_root);
	free(c->nic.ethtool_dir);
	free(c->profiles_dir);
	free(c);
}

const struct cfg_target *cfg_find_target(const struct cfg *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (size_t i = 0; i < c->n_targets; i++)
		if (strcmp(c->targets[i].name, name) == 0)
			return &c->targets[i];
	return NULL;
}

/*
 * Durations and sizes.
 */

static const struct {
	const char *name;
	uint64_t ns;
} duration_units[] = {
	/* Longer names first: "ms" must not be read as "m" then "s". */
	{ "ns", 1 },
	{ "us", NS_PER_US },
	{ "\xc2\xb5s", NS_PER_US }, /* U+00B5 MICRO SIGN */
	{ "\xce\xbcs", NS_PER_US }, /* U+03BC GREEK SMALL LETTER MU */
	{ "ms", NS_PER_MS },
	{ "s", NS_PER_S },
	{ "m", NS_PER_M },
	{ "h", NS_PER_H },
	{ "d", NS_PER_D },
};

/*
 * Reads "<digits>[.<digits>]" (either side may be empty, not both) at *s:
 * the integer part into *whole, the fraction digits as *frac, *nfrac.
 * Advances *s; -EINVAL if there is no number, -ERANGE if the integer
 * part overflows (*s still advances, so that syntax errors after it are
 * found).
 */
static int read_number(const char **s, uint64_t *whole, const char **frac,
		       size_t *nfrac)
{
	const char *p = *s;
	size_t nint = 0;
	bool overflow = false;

	*whole = 0;
	for (; isdigit((unsigned char)*p); p++, nint++) {
		unsigned d = (unsigned)(*p - '0');
		if (*whole > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			*whole = *whole * 10 + d;
	}
	*nfrac = 0;
	*frac = NULL;
	if (*p == '.') {
		p++;
		*frac = p;
		while (isdigit((unsigned char)*p)) {
			p++;
			(*nfrac)++;
		}
	}
	if (nint == 0 && *nfrac == 0)
		return -EINVAL;
	*s = p;
	return overflow ? -ERANGE : 0;
}

/*
 * whole.frac * unit, exactly floored: the fraction is scaled digit by
 * digit from the last one, since for an integer n and a real r,
 * floor((n + floor(r)) / 10) == floor((n + r) / 10). Every step stays
 * below 10 * unit, so nothing overflows and no digit is dropped.
 * -ERANGE if the result does not fit.
 */
static int scale_value(uint64_t whole, const char *frac, size_t nfrac,
		       uint64_t unit, uint64_t *out)
{
	uint64_t f = 0;
	for (size_t i = nfrac; i-- > 0;)
		f = ((uint64_t)(frac[i] - '0') * unit + f) / 10;
	if (unit && whole > UINT64_MAX / unit)
		return -ERANGE;
	if (whole * unit > UINT64_MAX - f)
		return -ERANGE;
	*out = whole * unit + f;
	return 0;
}

int cfg_parse_duration(const char *s, uint64_t *ns)
{
	uint64_t total = 0;
	bool range = false;

	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "0") == 0) {
		*ns = 0;
		return 0;
	}
	while (*s) {
		uint64_t whole, v;
		const char *frac;
		size_t nfrac, i, ulen = 0;
		int rc = read_number(&s, &whole, &frac, &nfrac);
		if (rc == -EINVAL)
			return rc;
		range |= rc == -ERANGE;
		for (i = 0; i < sizeof duration_units / sizeof *duration_units;
		     i++) {
			ulen = strlen(duration_units[i].name);
			if (strncmp(s, duration_units[i].name, ulen) == 0)
				break;
		}
		if (i == sizeof duration_units / sizeof *duration_units)
			return -EINVAL;
		s += ulen;
		if (!range && (scale_value(whole, frac, nfrac,
					   duration_units[i].ns, &v) ||
			       v > UINT64_MAX - total))
			range = true;
		if (!range)
			total += v;
	}
	if (range)
		return -ERANGE;
	*ns = total;
	return 0;
}

int cfg_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
		{ "", 1 },
		{ "B", 1 },
		{ "KB", UINT64_C(1000) },
		{ "MB", UINT64_C(1000000) },
		{ "GB", UINT64_C(1000000000) },
		{ "KiB", UINT64_C(1) << 10 },
		{ "MiB", UINT64_C(1) << 20 },
		{ "GiB", UINT64_C(1) << 30 },
	};
	uint64_t whole;
	const char *frac;
	size_t nfrac;

	if (!s)
		return -EINVAL;
	int rc = read_number(&s, &whole, &frac, &nfrac);
	if (rc == -EINVAL)
		return rc;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(s, units[i].name) != 0)
			continue;
		if (rc)
			return rc;
		return scale_value(whole, frac, nfrac, units[i].mult, bytes);
	}
	return -EINVAL;
}

void cfg_format_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} big[] = {
		{ "d", NS_PER_D },
		{ "h", NS_PER_H },
		{ "m", NS_PER_M },
	};
	static const struct {
		const char *name;
		uint64_t ns;
		int digits;
	} small[] = {
		{ "s", NS_PER_S, 9 },
		{ "ms", NS_PER_MS, 6 },
		{ "us", NS_PER_US, 3 },
		{ "ns", 1, 0 },
	};
	size_t off = 0;
	int w;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (ns == 0) {
		snprintf(buf, len, "0s");
		return;
	}
	/* Whole days, hours and minutes, then the rest in one unit with
	 * a fraction: the largest unit that keeps it at least 1. */
	for (size_t i = 0; i < 3; i++) {
		uint64_t q = ns / big[i].ns;
		if (!q)
			continue;
		w = snprintf(buf + off, len - off, "%llu%s",
			     (unsigned long long)q, big[i].name);
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
		ns %= big[i].ns;
	}
	if (ns == 0)
		return;
	size_t u = 0;
	/* After a minute or more, the remainder is always in seconds. */
	if (off == 0)
		while (ns < small[u].ns)
			u++;
	uint64_t whole = ns / small[u].ns, frac = ns % small[u].ns;
	if (frac == 0) {
		snprintf(buf + off, len - off, "%llu%s",
			 (unsigned long long)whole, small[u].name);
		return;
	}
	int digits = small[u].digits;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf + off, len - off, "%llu.%0*llu%s",
		 (unsigned long long)whole, digits, (unsigned long long)frac,
		 small[u].name);
}
