/*
 * buf: growable render buffer, number formatting and gzip (see buf.h).
 *
 * Integers are formatted two digits at a time from a table (no printf,
 * no division by 10 per digit); a million-series exposition is mostly
 * integers, so this is the path that matters. Non-integral doubles go
 * through snprintf, trying 15 significant digits first because most
 * scaled counters (microseconds to seconds) round-trip with it and read
 * better than 17 digits.
 *
 * Threading: no shared state. Ownership: see buf.h.
 */
#include "config.h"

#include "buf.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

/* Buffers start at 4 KiB and double, so n bytes cost O(n) copying. */
#define BUF_MIN_CAP 4096

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = false;
}

void buf_fini(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->failed = false;
}

int buf_error(const struct buf *b)
{
	return b->failed ? -ENOMEM : 0;
}

int buf_reserve(struct buf *b, size_t n)
{
	if (b->failed)
		return -ENOMEM;
	if (b->cap - b->len >= n)
		return 0;
	if (n > SIZE_MAX / 2 - b->len)
		goto fail;
	size_t cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap - b->len < n)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return 0;
fail:
	b->failed = true;
	return -ENOMEM;
}

void buf_append_slow(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

char *buf_steal(struct buf *b, size_t *len)
{
	if (buf_reserve(b, 1) < 0) {
		buf_fini(b);
		return NULL;
	}
	b->data[b->len] = '\0';
	char *p = b->data;
	*len = b->len;
	buf_init(b);
	return p;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n + 1) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static const char digit_pairs[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

/* Writes v's digits ending just before end; returns where they start. */
static char *format_u64(uint64_t v, char *end)
{
	char *p = end;
	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	}
	if (v >= 10) {
		unsigned i = (unsigned)v * 2;
		*--p = digit_pairs[i + 1];
		*--p = digit_pairs[i];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

void buf_put_u64(struct buf *b, uint64_t v)
{
	char tmp[24];
	char *end = tmp + sizeof tmp;
	char *p = format_u64(v, end);
	buf_append(b, p, (size_t)(end - p));
}

void buf_put_i64(struct buf *b, int64_t v)
{
	char tmp[24];
	char *end = tmp + sizeof tmp;
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char *p = format_u64(mag, end);
	if (v < 0)
		*--p = '-';
	buf_append(b, p, (size_t)(end - p));
}

static const double pow10_tab[] = { 1e0,  1e1,	1e2,  1e3,  1e4,  1e5,
				    1e6,  1e7,	1e8,  1e9,  1e10, 1e11,
				    1e12, 1e13, 1e14, 1e15, 1e16, 1e17 };
static const uint64_t pow10_u64[] = { 1ull,
				      10ull,
				      100ull,
				      1000ull,
				      10000ull,
				      100000ull,
				      1000000ull,
				      10000000ull,
				      100000000ull,
				      1000000000ull,
				      10000000000ull,
				      100000000000ull,
				      1000000000000ull,
				      10000000000000ull,
				      100000000000000ull,
				      1000000000000000ull,
				      10000000000000000ull,
				      100000000000000000ull };

/*
 * The fixed-point fast path for a finite, non-integral v: the fewest
 * fraction digits k such that v is the double nearest to m / 10^k, where
 * m = round(v * 10^k). Both m (below 2^53) and 10^k (k <= 17 < 23) are
 * exact doubles, so IEEE division rounds m / 10^k correctly, exactly as
 * a reader's strtod rounds the decimal text: when the quotient equals v,
 * the text reads back as v. Saves snprintf and strtod (~1 us) on the
 * common scaled counters (microseconds to seconds). Returns the length,
 * or 0 when no k fits (very small or large magnitudes, or values that
 * need 17 significant digits).
 */
static size_t format_fixed(double v, char *out)
{
	double a = fabs(v);
	if (!(a < 9007199254740992.0))
		return 0;
	for (int k = 1; k <= 17; k++) {
		double scaled = a * pow10_tab[k];
		if (scaled >= 9007199254740992.0)
			return 0;
		double m = nearbyint(scaled);
		if (m / pow10_tab[k] != a)
			continue;
		uint64_t mi = (uint64_t)m;
		uint64_t ip = mi / pow10_u64[k], fp = mi % pow10_u64[k];
		char tmp[48];
		char *end = tmp + sizeof tmp, *p = end;
		/* Fraction digits, zero-padded to k, trailing zeros dropped. */
		int digits = k;
		while (digits > 0 && fp % 10 == 0) {
			fp /= 10;
			digits--;
		}
		for (int i = 0; i < digits; i++) {
			*--p = (char)('0' + fp % 10);
			fp /= 10;
		}
		if (digits > 0)
			*--p = '.';
		p = format_u64(ip, p);
		if (v < 0)
			*--p = '-';
		size_t n = (size_t)(end - p);
		memcpy(out, p, n);
		out[n] = '\0';
		return n;
	}
	return 0;
}

size_t buf_format_double(double v, char *out)
{
	if (isnan(v)) {
		memcpy(out, "NaN", 4);
		return 3;
	}
	if (isinf(v)) {
		memcpy(out, v > 0 ? "+Inf" : "-Inf", 5);
		return 4;
	}
	/* 2^63 and 2^64 are exact doubles; inside that range an integral
	 * double converts to an integer exactly. */
	if (v >= -9223372036854775808.0 && v < 18446744073709551616.0 &&
	    v == trunc(v)) {
		char tmp[24];
		char *end = tmp + sizeof tmp;
		char *p;
		if (v < 0) {
			p = format_u64(-(uint64_t)(int64_t)v, end);
			*--p = '-';
		} else {
			p = format_u64((uint64_t)v, end);
		}
		size_t n = (size_t)(end - p);
		memcpy(out, p, n);
		out[n] = '\0';
		return n;
	}
	size_t fixed = format_fixed(v, out);
	if (fixed)
		return fixed;
	/* Inside [1e-5, 2^53) a value the fixed-point path cannot spell
	 * needs 16 or 17 significant digits: %.17g at once spares the
	 * failed attempts (accumulated totals of scaled counters are often
	 * such values). Elsewhere look for the shortest. */
	double a = fabs(v);
	int prec = a >= 1e-5 && a < 9007199254740992.0 ? 17 : 15;
	int n = 0;
	for (; prec <= 17; prec++) {
		n = snprintf(out, BUF_DOUBLE_MAX, "%.*g", prec, v);
		if (prec == 17 || strtod(out, NULL) == v)
			break;
	}
	return n > 0 ? (size_t)n : 0;
}

void buf_put_double(struct buf *b, double v)
{
	char tmp[BUF_DOUBLE_MAX];
	size_t n = buf_format_double(v, tmp);
	buf_append(b, tmp, n);
}

static void put_escaped(struct buf *b, const char *s, bool quote)
{
	const char *run = s;
	for (; *s; s++) {
		const char *esc;
		switch (*s) {
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '"':
			if (!quote)
				continue;
			esc = "\\\"";
			break;
		default:
			continue;
		}
		buf_append(b, run, (size_t)(s - run));
		buf_append(b, esc, 2);
		run = s + 1;
	}
	buf_append(b, run, (size_t)(s - run));
}

void buf_put_label_escaped(struct buf *b, const char *s)
{
	put_escaped(b, s, true);
}

void buf_put_help_escaped(struct buf *b, const char *s)
{
	put_escaped(b, s, false);
}

int buf_gzip(const void *data, size_t n, int level, struct buf *out)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	/* windowBits 15 + 16: a gzip header and trailer around deflate. */
	if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	int rc = 0;
	/* One reservation of the worst case keeps deflate from stopping for
	 * room; inputs above 4 GiB are fed in uInt-sized pieces. */
	if (buf_reserve(out, deflateBound(&zs, n) + 64) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	const unsigned char *in = data;
	size_t left = n;
	for (;;) {
		size_t chunk = left > UINT_MAX ? UINT_MAX : left;
		zs.next_in = (unsigned char *)in;
		zs.avail_in = (uInt)chunk;
		int flush = chunk == left ? Z_FINISH : Z_NO_FLUSH;
		do {
			if (out->cap - out->len < 64 &&
			    buf_reserve(out, out->cap) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			size_t room = out->cap - out->len;
			if (room > UINT_MAX)
				room = UINT_MAX;
			zs.next_out = (unsigned char *)out->data + out->len;
			zs.avail_out = (uInt)room;
			int zr = deflate(&zs, flush);
			if (zr == Z_STREAM_ERROR) {
				rc = -EIO;
				goto out;
			}
			out->len += room - zs.avail_out;
			if (zr == Z_STREAM_END)
				goto out;
		} while (zs.avail_in > 0 || zs.avail_out == 0);
		in += chunk;
		left -= chunk;
	}
out:
	deflateEnd(&zs);
	return rc;
}
