/*
 * expfmt: the exposition formats and their negotiation (see expfmt.h).
 *
 * The Accept parser walks the header once, in place, without
 * allocating: each comma-separated media range is split into its type,
 * subtype and parameters, and only q and version are looked at. What
 * cannot be parsed is not an error (a scrape must not fail on an odd
 * header): it simply matches nothing, or counts as q=1.
 */
#include "config.h"

#include "expfmt.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

const char *expfmt_content_type(enum expfmt f)
{
	return f == EXPFMT_OPENMETRICS ? EXPFMT_OPENMETRICS_CONTENT_TYPE
				       : EXPFMT_TEXT_CONTENT_TYPE;
}

/* A piece of the header: [p, e). */
struct span {
	const char *p, *e;
};

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static struct span trimmed(const char *p, const char *e)
{
	while (p < e && is_ows(*p))
		p++;
	while (e > p && is_ows(e[-1]))
		e--;
	return (struct span){ p, e };
}

static bool span_is(struct span s, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(s.e - s.p) == n && strncasecmp(s.p, word, n) == 0;
}

/* The end of the element or parameter starting at p: the next stop
 * character outside a quoted string, or e. */
static const char *next_stop(const char *p, const char *e, char stop)
{
	bool quoted = false;
	for (; p < e; p++) {
		if (quoted && *p == '\\' && p + 1 < e)
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == stop)
			return p;
	}
	return e;
}

/* An RFC 9110 qvalue: "0" or "1", then optionally "." and up to three
 * digits, at most 1. Anything else is taken as 1. */
static double parse_q(struct span s)
{
	const char *p = s.p;
	if (p == s.e || (*p != '0' && *p != '1'))
		return 1;
	double q = *p++ - '0', scale = 0.1;
	if (p < s.e) {
		if (*p++ != '.' || s.e - p > 3)
			return 1;
		for (; p < s.e; p++, scale /= 10) {
			if (*p < '0' || *p > '9')
				return 1;
			q += (*p - '0') * scale;
		}
	}
	return q > 1 ? 1 : q;
}

/* A media range as far as negotiation cares. */
struct media_range {
	struct span type, subtype;
	bool has_version;
	struct span version; /* unquoted */
	double q;
};

static void parse_range(const char *p, const char *e, struct media_range *r)
{
	const char *semi = next_stop(p, e, ';');
	struct span media = trimmed(p, semi);
	const char *slash = memchr(media.p, '/', (size_t)(media.e - media.p));
	r->type = trimmed(media.p, slash ? slash : media.e);
	r->subtype = slash ? trimmed(slash + 1, media.e)
			   : (struct span){ media.e, media.e };
	r->has_version = false;
	r->version = (struct span){ NULL, NULL };
	r->q = 1;
	for (p = semi; p < e;) {
		p++; /* the ';' */
		const char *pe = next_stop(p, e, ';');
		const char *eq = memchr(p, '=', (size_t)(pe - p));
		if (eq) {
			struct span k = trimmed(p, eq), v = trimmed(eq + 1, pe);
			if (v.e - v.p >= 2 && *v.p == '"' && v.e[-1] == '"') {
				v.p++;
				v.e--;
			}
			if (span_is(k, "q"))
				r->q = parse_q(v);
			else if (span_is(k, "version")) {
				r->has_version = true;
				r->version = v;
			}
		}
		p = pe;
	}
}

/*
 * How specifically r names format f: 3 its own type (with a version
 * it speaks, or none), 2 its type's wildcard subtype, 1 the all-types
 * wildcard, 0 not at all.
 */
static int match(const struct media_range *r, enum expfmt f)
{
	const char *type = f == EXPFMT_OPENMETRICS ? "application" : "text";
	const char *subtype =
	    f == EXPFMT_OPENMETRICS ? "openmetrics-text" : "plain";
	if (span_is(r->type, "*"))
		return span_is(r->subtype, "*") ? 1 : 0;
	if (!span_is(r->type, type))
		return 0;
	if (span_is(r->subtype, "*"))
		return 2;
	if (!span_is(r->subtype, subtype))
		return 0;
	if (!r->has_version)
		return 3;
	if (f == EXPFMT_OPENMETRICS)
		return span_is(r->version, "1.0.0") ||
			       span_is(r->version, "0.0.1")
			   ? 3
			   : 0;
	return span_is(r->version, "0.0.4") ? 3 : 0;
}

/* The q a format gets, and where the range that gave it stands. */
struct offer {
	int spec; /* 0: no range matched */
	double q;
	unsigned pos;
};

enum expfmt expfmt_negotiate(const char *accept)
{
	if (!accept)
		return EXPFMT_TEXT;
	struct offer o[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	const char *p = accept, *end = accept + strlen(accept);
	for (unsigned pos = 0; p < end; pos++) {
		const char *e = next_stop(p, end, ',');
		struct media_range r;
		parse_range(p, e, &r);
		for (int f = EXPFMT_TEXT; f <= EXPFMT_OPENMETRICS; f++) {
			int spec = match(&r, (enum expfmt)f);
			/* The most specific range decides; among equally
			 * specific ones the first. */
			if (spec > o[f].spec) {
				o[f].spec = spec;
				o[f].q = r.q;
				o[f].pos = pos;
			}
		}
		p = e < end ? e + 1 : e;
	}
	const struct offer *om = &o[EXPFMT_OPENMETRICS], *tx = &o[EXPFMT_TEXT];
	if (!om->spec || om->q <= 0)
		return EXPFMT_TEXT;
	double tq = tx->spec ? tx->q : 0;
	if (om->q > tq || (om->q == tq && om->pos < tx->pos))
		return EXPFMT_OPENMETRICS;
	return EXPFMT_TEXT;
}

const char *expfmt_unit(const char *name, size_t len)
{
	/* The base units of the Prometheus naming conventions that
	 * fabmon's families (and the process_* ones) may end in. */
	static const char *const units[] = {
		"seconds", "bytes",  "ratio", "celsius", "volts",
		"amperes", "joules", "grams", "meters",
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i]);
		if (len > n + 1 && name[len - n - 1] == '_' &&
		    memcmp(name + len - n, units[i], n) == 0)
			return units[i];
	}
	return NULL;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

void expfmt_put_family(struct buf *b, enum expfmt f, const char *name,
		       const char *type, const char *help)
{
	bool om = f == EXPFMT_OPENMETRICS;
	bool counter = strcmp(type, "counter") == 0;
	bool info = strcmp(type, "info") == 0;
	size_t len = strlen(name);
	assert(!counter || ends_with(name, len, "_total"));
	assert(!info || ends_with(name, len, "_info"));
	if (om && counter)
		len -= sizeof "_total" - 1;
	else if (om && info)
		len -= sizeof "_info" - 1;

	buf_append(b, "# HELP ", 7);
	buf_append(b, name, len);
	buf_putc(b, ' ');
	/* OpenMetrics escapes quotes in HELP too, as in label values. */
	if (om)
		buf_put_label_escaped(b, help);
	else
		buf_put_help_escaped(b, help);
	buf_append(b, "\n# TYPE ", 8);
	buf_append(b, name, len);
	buf_putc(b, ' ');
	buf_puts(b, info && !om ? "gauge" : type);
	buf_putc(b, '\n');
	const char *unit = om && !info ? expfmt_unit(name, len) : NULL;
	if (unit) {
		buf_append(b, "# UNIT ", 7);
		buf_append(b, name, len);
		buf_putc(b, ' ');
		buf_puts(b, unit);
		buf_putc(b, '\n');
	}
}

void expfmt_put_created(struct buf *b, enum expfmt f, const char *counter,
			const char *labels, double created_s)
{
	if (f != EXPFMT_OPENMETRICS || created_s < 0)
		return;
	size_t len = strlen(counter);
	assert(ends_with(counter, len, "_total"));
	buf_append(b, counter, len - (sizeof "_total" - 1));
	buf_append(b, "_created", 8);
	buf_puts(b, labels);
	buf_putc(b, ' ');
	buf_put_double(b, created_s);
	buf_putc(b, '\n');
}

void expfmt_put_eof(struct buf *b, enum expfmt f)
{
	if (f == EXPFMT_OPENMETRICS)
		buf_append(b, "# EOF\n", 6);
}
