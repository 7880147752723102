/*
 * ytree: libyaml events to a bounded tree, and the checked walk over it
 * (see ytree.h).
 *
 * Nothing here is global: the parser, the tree and the ctx belong to one
 * load. Messages are formatted into a stack buffer and then into the
 * caller's, so a message never allocates.
 */
#include "config.h"

#include "ytree.h"

#include "mem.h"
#include "rfile.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#define NAME_MAX_LEN 64 /* longest key that gets a suggestion */

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
fail_vat(struct ytree_ctx *x, unsigned line, unsigned col, bool with_path,
	 const char *fmt, va_list ap)
{
	char msg[512];

	if (!x->err || !x->errlen)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (!x->name)
		snprintf(x->err, x->errlen, "%s", msg);
	else if (line && with_path && x->plen)
		snprintf(x->err, x->errlen, "%s:%u:%u: %s: %s", x->name, line,
			 col, x->path, msg);
	else if (line)
		snprintf(x->err, x->errlen, "%s:%u:%u: %s", x->name, line, col,
			 msg);
	else
		snprintf(x->err, x->errlen, "%s: %s", x->name, msg);
	sanitize(x->err);
}

int ytree_fail(struct ytree_ctx *x, const struct ytree_node *n, const char *fmt,
	       ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, n->line, n->col, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ytree_fail_pos(struct ytree_ctx *x, unsigned line, unsigned col,
		   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, line, col, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ytree_fail_at(struct ytree_ctx *x, unsigned line, unsigned col,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, line, col, false, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ytree_fail_file(struct ytree_ctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_vat(x, 0, 0, false, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *ytree_quote(const struct ytree_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "\"%.*s%s\"", YTREE_QUOTE_MAX, n->str,
		 n->len > YTREE_QUOTE_MAX ? "..." : "");
	return buf;
}

const char *ytree_shown(const struct ytree_node *n, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s%s", YTREE_QUOTE_MAX, n->str,
		 n->len > YTREE_QUOTE_MAX ? "..." : "");
	return buf;
}

const char *ytree_kind_name(const struct ytree_node *n)
{
	if (n->kind == YTREE_MAP)
		return "a mapping";
	if (n->kind == YTREE_SEQ)
		return "a list";
	return "an empty value";
}

/* A range error's value: as is (it is a well-formed value). */
static const char *range_value(const struct ytree_node *n, char *buf,
			       size_t len)
{
	return ytree_shown(n, buf, len);
}

/*
 * The key path: grows as the walk goes down, is cut back on the way up.
 */

static size_t path_size(const struct ytree_ctx *x)
{
	if (x->path_size && x->path_size < sizeof x->path)
		return x->path_size;
	return sizeof x->path;
}

static size_t path_add(struct ytree_ctx *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t path_add(struct ytree_ctx *x, const char *fmt, ...)
{
	size_t saved = x->plen, size = path_size(x);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(x->path + x->plen, size - x->plen, fmt, ap);
	va_end(ap);
	if (n > 0)
		x->plen += (size_t)n;
	if (x->plen >= size)
		x->plen = size - 1;
	return saved;
}

size_t ytree_path_key(struct ytree_ctx *x, const char *key)
{
	return path_add(x, "%s%s", x->plen ? "." : "", key);
}

size_t ytree_path_index(struct ytree_ctx *x, size_t i)
{
	return path_add(x, "[%zu]", i);
}

void ytree_path_cut(struct ytree_ctx *x, size_t saved)
{
	x->plen = saved;
	x->path[saved] = '\0';
}

/*
 * The loader: libyaml events to the tree.
 */

void ytree_free(struct ytree_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		ytree_free(n->kids[i]);
	free(n->kids);
	if (n->str) {
		/* Inline secrets live in scalars too. */
		explicit_bzero(n->str, n->len);
		free(n->str);
	}
	free(n);
}

bool ytree_is_null(const struct ytree_node *n)
{
	return n->null;
}

static bool scalar_is_null(const struct ytree_node *n)
{
	if (!n->plain)
		return false;
	if (n->len == 0 || strcmp(n->str, "~") == 0)
		return true;
	return strcmp(n->str, "null") == 0 || strcmp(n->str, "Null") == 0 ||
	       strcmp(n->str, "NULL") == 0;
}

static struct ytree_node *node_new(enum ytree_kind kind, yaml_mark_t mark)
{
	struct ytree_node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = (unsigned)mark.line + 1;
	n->col = (unsigned)mark.column + 1;
	return n;
}

static void node_add(struct ytree_node *parent, struct ytree_node *kid)
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

static int yaml_fail(struct ytree_ctx *x, const yaml_parser_t *p,
		     const char *buf, size_t len)
{
	const char *problem = p->problem ? p->problem : "YAML syntax error";
	unsigned line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return ytree_fail_file(x, "out of memory while parsing");
	case YAML_READER_ERROR:
		offset_mark(buf, len, p->problem_offset, &line, &col);
		return ytree_fail_at(x, line, col, "%s", problem);
	default:
		line = (unsigned)p->problem_mark.line + 1;
		col = (unsigned)p->problem_mark.column + 1;
		if (p->context)
			return ytree_fail_at(
			    x, line, col, "%s (%s at %u:%u)", problem,
			    p->context, (unsigned)p->context_mark.line + 1,
			    (unsigned)p->context_mark.column + 1);
		return ytree_fail_at(x, line, col, "%s", problem);
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

/* The tree under construction: its open collections and its root. */
struct build {
	struct ytree_node **stack;
	int depth, max_depth, docs;
	struct ytree_node *root;
};

/* One event into the tree under construction. */
static int tree_event(struct ytree_ctx *x, const yaml_event_t *ev,
		      struct build *b)
{
	unsigned line = (unsigned)ev->start_mark.line + 1;
	unsigned col = (unsigned)ev->start_mark.column + 1;
	struct ytree_node *n;

	/* Aliases would let a small file expand into a huge tree. */
	if (ev->type == YAML_ALIAS_EVENT || event_anchor(ev))
		return ytree_fail_at(x, line, col,
				     "anchors and aliases are not supported");
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->docs > 1)
			return ytree_fail_at(
			    x, line, col, "only one YAML document is allowed");
		return 0;
	case YAML_SCALAR_EVENT:
		n = node_new(YTREE_SCALAR, ev->start_mark);
		n->len = ev->data.scalar.length;
		n->str = xmalloc(n->len + 1);
		memcpy(n->str, ev->data.scalar.value, n->len);
		n->str[n->len] = '\0';
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->null = scalar_is_null(n);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth >= b->max_depth)
			return ytree_fail_at(x, line, col,
					     "nested deeper than %d levels",
					     b->max_depth);
		n = node_new(ev->type == YAML_MAPPING_START_EVENT ? YTREE_MAP
								  : YTREE_SEQ,
			     ev->start_mark);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return 0;
	default:
		return 0;
	}
	if (b->depth > 0)
		node_add(b->stack[b->depth - 1], n);
	else
		b->root = n; /* a second document failed above */
	if (n->kind != YTREE_SCALAR)
		b->stack[b->depth++] = n;
	return 0;
}

int ytree_load(struct ytree_ctx *x, const char *buf, size_t len,
	       size_t max_bytes, int max_depth, struct ytree_node **root)
{
	struct build b = { .max_depth = max_depth };
	yaml_parser_t p;
	yaml_event_t ev;
	bool done = false;
	int rc = 0;

	*root = NULL;
	if (len > max_bytes)
		return ytree_fail_file(x, "file is larger than %zu bytes",
				       max_bytes);
	if (!yaml_parser_initialize(&p))
		return ytree_fail_file(x, "out of memory while parsing");
	b.stack =
	    xcalloc(max_depth > 0 ? (size_t)max_depth : 1, sizeof *b.stack);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = yaml_fail(x, &p, buf, len);
			break;
		}
		rc = tree_event(x, &ev, &b);
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	free(b.stack);
	if (rc) {
		ytree_free(b.root);
		return rc;
	}
	*root = b.root;
	return 0;
}

/*
 * Mappings against tables of known keys.
 */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[NAME_MAX_LEN + 1];

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
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

static bool key_is(const struct ytree_node *k, const char *key)
{
	return strlen(key) == k->len && memcmp(key, k->str, k->len) == 0;
}

const char *ytree_closest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3; /* suggest close matches only */

	if (strlen(s) > NAME_MAX_LEN)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, names[i]);
		if (d < best_d && d < strlen(names[i])) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

static int unknown_key(struct ytree_ctx *x, const struct ytree_node *k,
		       const char *const *keys, size_t n)
{
	const char *best = NULL;
	char q[YTREE_QUOTE_BUF];

	/* A key holding a NUL gets no suggestion. */
	if (strlen(k->str) == k->len)
		best = ytree_closest(k->str, keys, n);
	ytree_shown(k, q, sizeof q);
	ytree_path_key(x, q);
	if (best)
		return ytree_fail(x, k, "unknown key (did you mean \"%s\"?)",
				  best);
	return ytree_fail(x, k, "unknown key");
}

int ytree_fields_get(struct ytree_ctx *x, const struct ytree_node *map,
		     const char *const *keys, size_t n, struct ytree_fields *f)
{
	memset(f, 0, sizeof *f);
	f->map = map;
	f->keys = keys;
	f->n = n;
	if (n > YTREE_MAX_FIELDS)
		abort(); /* a caller's table, not input */
	if (ytree_is_null(map))
		return 0;
	if (map->kind != YTREE_MAP)
		return ytree_fail(x, map, "expected a mapping");
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct ytree_node *k = map->kids[i];
		size_t j;
		if (k->kind != YTREE_SCALAR)
			return ytree_fail(x, k,
					  "keys must be plain strings, not %s",
					  ytree_kind_name(k));
		for (j = 0; j < n; j++)
			if (key_is(k, keys[j]))
				break;
		if (j == n)
			return unknown_key(x, k, keys, n);
		if (f->key[j]) {
			ytree_path_key(x, keys[j]);
			return ytree_fail(x, k,
					  "duplicate key (first at %u:%u)",
					  f->key[j]->line, f->key[j]->col);
		}
		f->key[j] = k;
		f->val[j] = map->kids[i + 1];
	}
	return 0;
}

int ytree_need(struct ytree_ctx *x, const struct ytree_fields *f, size_t i)
{
	if (f->val[i])
		return 0;
	return ytree_fail(x, f->map, "missing required key \"%s\"", f->keys[i]);
}

int ytree_fail_key(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   const char *fmt, ...)
{
	va_list ap;
	ytree_path_key(x, f->keys[i]);
	va_start(ap, fmt);
	fail_vat(x, f->val[i]->line, f->val[i]->col, true, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * Typed getters.
 */

int ytree_want_scalar(struct ytree_ctx *x, const struct ytree_node *n,
		      const char *what)
{
	if (n->kind != YTREE_SCALAR)
		return ytree_fail(x, n, "expected %s, not %s", what,
				  ytree_kind_name(n));
	if (ytree_is_null(n))
		return ytree_fail(x, n, "missing value (expected %s)", what);
	if (strlen(n->str) != n->len)
		return ytree_fail(x, n, "must not contain a NUL character");
	return 0;
}

int ytree_str(struct ytree_ctx *x, const struct ytree_node *n, char **out)
{
	int rc = ytree_want_scalar(x, n, "a string");
	if (rc)
		return rc;
	free(*out);
	*out = xstrdup(n->str);
	return 0;
}

int ytree_bool(struct ytree_ctx *x, const struct ytree_node *n, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a boolean");
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
	return ytree_fail(
	    x, n, "expected a boolean (true/false, yes/no, on/off), not %s",
	    ytree_quote(n, q, sizeof q));
}

int ytree_node_double(struct ytree_ctx *x, const struct ytree_node *n,
		      double *out)
{
	char q[YTREE_QUOTE_BUF], *end;
	int rc = ytree_want_scalar(x, n, "a number");
	if (rc)
		return rc;
	const char *s = n->str;
	/* strtod also takes hex, "inf" and "nan": not numbers here. */
	if (!(isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+' ||
	      s[0] == '.') ||
	    strpbrk(s, "xXiInN"))
		return ytree_fail(x, n, "%s is not a number",
				  ytree_quote(n, q, sizeof q));
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end)
		return ytree_fail(x, n, "%s is not a number",
				  ytree_quote(n, q, sizeof q));
	/* Overflow gives HUGE_VAL, underflow 0 or a subnormal: both ERANGE. */
	if (errno == ERANGE || !isfinite(v))
		return ytree_fail(x, n,
				  "%s is out of range (a number is 0 or of "
				  "magnitude %.2g to %.2g)",
				  ytree_quote(n, q, sizeof q), DBL_MIN,
				  DBL_MAX);
	*out = v;
	return 0;
}

int ytree_parse_uint(const char *s, bool *neg, uint64_t *v)
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

int ytree_uint(struct ytree_ctx *x, const struct ytree_node *n, uint64_t min,
	       uint64_t max, uint64_t *out)
{
	char q[YTREE_QUOTE_BUF];
	bool neg, bad_sign;
	uint64_t v;
	int rc = ytree_want_scalar(x, n, "a number");
	if (rc)
		return rc;
	rc = ytree_parse_uint(n->str, &neg, &v);
	if (rc == -EINVAL)
		return ytree_fail(x, n, "expected a number, not %s",
				  ytree_quote(n, q, sizeof q));
	/* "-0" reads as 0; any other negative number is out of range. */
	bad_sign = neg && v;
	if (rc || bad_sign || v < min || v > max)
		return ytree_fail(x, n, "must be between %llu and %llu, not %s",
				  (unsigned long long)min,
				  (unsigned long long)max,
				  range_value(n, q, sizeof q));
	*out = v;
	return 0;
}

int ytree_duration(struct ytree_ctx *x, const struct ytree_node *n,
		   uint64_t min, uint64_t max, bool zero_ok, uint64_t *out)
{
	char q[YTREE_QUOTE_BUF], a[32], b[32];
	uint64_t v;
	int rc = ytree_want_scalar(x, n, "a duration");
	if (rc)
		return rc;
	rc = units_parse_duration(n->str, &v);
	if (rc == -EINVAL)
		return ytree_fail(x, n, "%s is not a duration",
				  ytree_quote(n, q, sizeof q));
	if (rc)
		return ytree_fail(x, n, "%s is too long a duration",
				  ytree_quote(n, q, sizeof q));
	if ((v < min && !(zero_ok && v == 0)) || v > max) {
		units_format_duration(min, a, sizeof a);
		units_format_duration(max, b, sizeof b);
		if (max == UINT64_MAX)
			return ytree_fail(x, n, "must be %sat least %s, not %s",
					  zero_ok ? "0 or " : "", a,
					  range_value(n, q, sizeof q));
		return ytree_fail(x, n, "must be %sbetween %s and %s, not %s",
				  zero_ok ? "0 or " : "", a, b,
				  range_value(n, q, sizeof q));
	}
	*out = v;
	return 0;
}

int ytree_size(struct ytree_ctx *x, const struct ytree_node *n, uint64_t min,
	       uint64_t max, uint64_t *out)
{
	char q[YTREE_QUOTE_BUF];
	uint64_t v;
	int rc = ytree_want_scalar(x, n, "a size");
	if (rc)
		return rc;
	rc = units_parse_size(n->str, &v);
	if (rc == -EINVAL)
		return ytree_fail(x, n, "%s is not a size",
				  ytree_quote(n, q, sizeof q));
	if (rc || v < min || v > max)
		return ytree_fail(
		    x, n, "must be between %llu and %llu bytes, not %s",
		    (unsigned long long)min, (unsigned long long)max,
		    range_value(n, q, sizeof q));
	*out = v;
	return 0;
}

int ytree_enum(struct ytree_ctx *x, const struct ytree_node *n,
	       const char *const *names, const int *values, size_t count,
	       int *out)
{
	char q[YTREE_QUOTE_BUF], list[256];
	size_t len = 0;
	int rc = ytree_want_scalar(x, n, "a string");
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
	return ytree_fail(x, n, "expected %s, not %s", list,
			  ytree_quote(n, q, sizeof q));
}

int ytree_want_seq(struct ytree_ctx *x, const struct ytree_node *n,
		   size_t *count)
{
	*count = 0;
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_SEQ)
		return ytree_fail(x, n, "expected a list");
	*count = n->n;
	return 0;
}

/*
 * Getters for key i of f. The path is cut back only on success: after an
 * error the path stays as the message showed it.
 */

int ytree_opt_str(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		  char **out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_str(x, f->val[i], out);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

int ytree_opt_file(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   size_t max, char **out)
{
	char why[160];
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_str(x, f->val[i], out);
	if (rc)
		return rc;
	rc = rfile_check(*out, max, why, sizeof why);
	/* Missing or not ours to see yet: the daemon's user, or a file
	 * provisioned later, decides at run time (the target is down with
	 * the reason until then). */
	if (rc == -ENOENT || rc == -EACCES || rc == -ENOTDIR)
		rc = 0;
	if (rc)
		return ytree_fail(x, f->val[i], "\"%s\": %s", *out, why);
	ytree_path_cut(x, saved);
	return 0;
}

int ytree_opt_bool(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   bool *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_bool(x, f->val[i], out);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

int ytree_opt_uint(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_uint(x, f->val[i], min, max, &v);
	if (rc)
		return rc;
	*out = (unsigned)v;
	ytree_path_cut(x, saved);
	return 0;
}

int ytree_opt_duration(struct ytree_ctx *x, const struct ytree_fields *f,
		       size_t i, uint64_t min, uint64_t max, bool zero_ok,
		       uint64_t *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_duration(x, f->val[i], min, max, zero_ok, out);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

int ytree_opt_size(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   uint64_t min, uint64_t max, uint64_t *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_size(x, f->val[i], min, max, out);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

int ytree_opt_enum(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   const char *const *names, const int *values, size_t count,
		   int *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_enum(x, f->val[i], names, values, count, out);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

char *ytree_read_file(struct ytree_ctx *x, const char *path, size_t max,
		      size_t *len)
{
	char why[160];
	char *buf = rfile_load(path, max, len, why, sizeof why, NULL);
	if (!buf)
		ytree_fail_file(x, "%s", why);
	return buf;
}

char *ytree_read_stream(struct ytree_ctx *x, const char *path, size_t max,
			int fifo_ms, size_t *len)
{
	char why[160];
	char *buf =
	    rfile_load_stream(path, max, fifo_ms, len, why, sizeof why, NULL);
	if (!buf)
		ytree_fail_file(x, "%s", why);
	return buf;
}
