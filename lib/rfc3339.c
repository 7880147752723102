/*
 * rfc3339: UTC timestamps as RFC 3339 text and back (see rfc3339.h).
 * The parser came from rules/report.c, the formatter is the report's
 * (milliseconds only when not zero); both unchanged.
 *
 * Pure functions over caller buffers: no state, any thread.
 */

#include "config.h"

#include "rfc3339.h"

#include "units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

char *rfc3339_format(int64_t ns, char *buf)
{
	time_t t = (time_t)(ns / NS_PER_S);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, RFC3339_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	int ms = (int)(ns % NS_PER_S / 1000000);
	if (ms)
		snprintf(buf + n, RFC3339_MAX - n, ".%03dZ", ms);
	else
		snprintf(buf + n, RFC3339_MAX - n, "Z");
	return buf;
}

static bool digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static int days_in(int y, int m)
{
	static const int d[12] = { 31, 28, 31, 30, 31, 30,
				   31, 31, 30, 31, 30, 31 };
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return d[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* ".123" fraction into ns; advances *s. */
static bool fraction(const char **s, int64_t *ns)
{
	*ns = 0;
	if (**s != '.')
		return true;
	(*s)++;
	int n = 0;
	int64_t scale = NS_PER_S / 10;
	while (**s >= '0' && **s <= '9') {
		*ns += (**s - '0') * scale;
		scale /= 10;
		(*s)++;
		n++;
	}
	return n > 0 && n <= 9;
}

/* sec seconds and frac ns (0 <= frac < 1e9) as ns, or -ERANGE past
 * INT64_MAX. */
static int to_ns(int64_t sec, int64_t frac, int64_t *out)
{
	if (sec > (INT64_MAX - frac) / NS_PER_S)
		return -ERANGE;
	*out = sec * NS_PER_S + frac;
	return 0;
}

int rfc3339_parse(const char *s, int64_t *out)
{
	if (!s || !*s || strlen(s) > 40)
		return -EINVAL;
	const char *p = s;
	if (!strchr(s, '-') && !strchr(s, ':')) {
		/* Epoch seconds. */
		int64_t sec = 0;
		int n = 0;
		while (*p >= '0' && *p <= '9') {
			if (++n > 11)
				return -EINVAL;
			sec = sec * 10 + (*p++ - '0');
		}
		int64_t frac;
		if (!fraction(&p, &frac) || *p)
			return -EINVAL;
		return to_ns(sec, frac, out);
	}
	int y, mo, d, h, mi, se;
	if (strlen(s) < 20 || !digits(p, 4, &y) || p[4] != '-' ||
	    !digits(p + 5, 2, &mo) || p[7] != '-' || !digits(p + 8, 2, &d) ||
	    (p[10] != 'T' && p[10] != 't') || !digits(p + 11, 2, &h) ||
	    p[13] != ':' || !digits(p + 14, 2, &mi) || p[16] != ':' ||
	    !digits(p + 17, 2, &se))
		return -EINVAL;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo) ||
	    h > 23 || mi > 59 || se > 60)
		return -EINVAL;
	p += 19;
	int64_t frac;
	if (!fraction(&p, &frac))
		return -EINVAL;
	int64_t off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-' || *p == ' ') {
		/* ' ': a '+' that came unescaped through a query string. */
		int oh, om;
		if (!digits(p + 1, 2, &oh) || p[3] != ':' ||
		    !digits(p + 4, 2, &om) || oh > 23 || om > 59)
			return -EINVAL;
		off = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	int64_t t =
	    days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
	if (t < 0)
		return -EINVAL;
	return to_ns(t, frac, out);
}
