/*
 * expfmt: the two text formats /metrics speaks, the Prometheus text
 * format 0.0.4 and OpenMetrics 1.0.0, and the choice between them from
 * a request's Accept header.
 *
 * The renderers (prom.c, incidents.c) write samples the same way in
 * both formats (a counter's sample keeps its _total, an info metric's
 * its _info) and go through this module for what differs: the family
 * header (OpenMetrics names a counter family without _total and an info
 * family without _info, declares a UNIT when the name ends in one, and
 * escapes quotes in HELP), the _created samples (OpenMetrics only) and
 * the closing "# EOF".
 *
 * Pure functions, no state: any thread.
 */
#ifndef FABMON_EXPFMT_H
#define FABMON_EXPFMT_H

#include "buf.h"

enum expfmt {
	EXPFMT_TEXT,	    /* Prometheus text format 0.0.4 */
	EXPFMT_OPENMETRICS, /* OpenMetrics text 1.0.0 */
};

#define EXPFMT_TEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define EXPFMT_OPENMETRICS_CONTENT_TYPE \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

/* The Content-Type of an exposition in format f. */
const char *expfmt_content_type(enum expfmt f);

/*
 * The format to answer an Accept header value with (NULL: no header).
 * Each media range gets its q (RFC 9110 12.4.2; a missing or malformed
 * q is 1, q=0 refuses). application/openmetrics-text with version
 * 1.0.0, 0.0.1 or none is OpenMetrics; text/plain with version 0.0.4
 * or none is the text format; a range with another version names
 * nothing we serve. A format takes the q of the most specific range
 * that matches it (the full type, then the type's wildcard subtype,
 * then the all-types wildcard); the higher q wins, on a tie the range
 * listed first. When nothing acceptable matches, the text format (what
 * a scraper that does not negotiate expects).
 */
enum expfmt expfmt_negotiate(const char *accept);

/*
 * The unit a family name ends in ("seconds", "bytes", "ratio", ... the
 * base units of the Prometheus naming conventions) as "_unit", or NULL.
 * name is the family's name as OpenMetrics spells it (no _total).
 */
const char *expfmt_unit(const char *name, size_t len);

/*
 * Appends the header of a family: name is the name of its samples
 * (counters end in _total, info metrics in _info; asserted), type
 * "counter", "gauge" or "info" (written "gauge" in the text format),
 * help the HELP text (escaped here). In OpenMetrics: the family name
 * without _total/_info, and a "# UNIT" line after TYPE when the name
 * ends in a unit (never for info).
 */
void expfmt_put_family(struct buf *b, enum expfmt f, const char *name,
		       const char *type, const char *help);

/*
 * In OpenMetrics appends "<counter name without _total>_created<labels>
 * <created_s>\n" (labels: "" or the "{...}" of the sample just
 * written); nothing in the text format or when created_s < 0 (unknown).
 */
void expfmt_put_created(struct buf *b, enum expfmt f, const char *counter,
			const char *labels, double created_s);

/* Ends an exposition: "# EOF\n" in OpenMetrics, nothing in text. */
void expfmt_put_eof(struct buf *b, enum expfmt f);

#endif
