/*
 * units: durations and sizes as fabmon's config files and messages write
 * them (see units.h).
 *
 * Pure functions over caller buffers: no state, any thread.
 */

#include "config.h"

#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_M (60 * NS_PER_S)
#define NS_PER_H (60 * NS_PER_M)
#define NS_PER_D (24 * NS_PER_H)

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

int units_parse_duration(const char *s, uint64_t *ns)
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

int units_parse_size(const char *s, uint64_t *bytes)
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

void units_format_duration(uint64_t ns, char *buf, size_t len)
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
