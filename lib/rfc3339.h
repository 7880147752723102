/*
 * rfc3339: the one RFC 3339 formatter and parser every module uses for
 * UTC timestamps ("2026-11-29T21:00:00Z", "2026-11-29T21:00:00.250Z").
 *
 * The formatter writes milliseconds only when they are not zero: the
 * documented output of /api/v1/report, and what Alertmanager and
 * Prometheus parse either way.
 *
 * Pure functions over caller buffers: no state, any thread.
 */
#ifndef FABMON_RFC3339_H
#define FABMON_RFC3339_H

#include <stddef.h>
#include <stdint.h>

/* Room for any formatted time, terminator included. */
#define RFC3339_MAX 64

/*
 * Formats ns since the epoch as UTC, "YYYY-MM-DDTHH:MM:SSZ" or, when
 * the milliseconds are not zero, "YYYY-MM-DDTHH:MM:SS.mmmZ"; into buf
 * (at least RFC3339_MAX bytes), always terminated. Returns buf.
 */
char *rfc3339_format(int64_t ns, char *buf);

/*
 * Parses an RFC 3339 date-time (fraction up to 9 digits, "Z" or an
 * offset; ' ' is taken for a '+' that came unescaped through a query
 * string) or epoch seconds ("1700000000", "1700000000.25") into ns.
 * Times before 1970 are refused (-EINVAL); times past what 64-bit
 * nanoseconds hold (2262-04-11T23:47:16.854775807Z) are -ERANGE. 0,
 * -EINVAL or -ERANGE.
 */
int rfc3339_parse(const char *s, int64_t *ns);

#endif
