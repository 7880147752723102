/*
 * gnmi_value numbers: a gNMI scalar (an integer, a double, a decimal, or
 * the text of a number in a string or JSON) read as a uint64 counter or
 * a double gauge (the contract is in value.h). Pure functions, no
 * state: any thread.
 */
#include "config.h"

#include "value.h"
#include "value_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The syntax of a decimal number text, split up. */
struct num {
	bool neg;
	const char *ip; /* integer digits */
	size_t ni;
	const char *fp; /* fraction digits */
	size_t nf;
	long exp; /* clamped to +-100000: beyond, only zero is exact */
};

/* "-"? digits ("." digits*)? ([eE] [+-]? digits)?, or ".5": 0/-EINVAL. */
static int parse_num(const char *s, size_t len, struct num *n)
{
	const char *p = s, *end = s + len;

	memset(n, 0, sizeof *n);
	if (p < end && *p == '-') {
		n->neg = true;
		p++;
	}
	n->ip = p;
	while (p < end && is_digit(*p))
		p++;
	n->ni = (size_t)(p - n->ip);
	n->fp = p;
	if (p < end && *p == '.') {
		n->fp = ++p;
		while (p < end && is_digit(*p))
			p++;
		n->nf = (size_t)(p - n->fp);
	}
	if (n->ni + n->nf == 0)
		return -EINVAL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end || !is_digit(*p))
			return -EINVAL;
		while (p < end && is_digit(*p)) {
			if (n->exp < 100000)
				n->exp = n->exp * 10 + (*p - '0');
			p++;
		}
		if (eneg)
			n->exp = -n->exp;
	}
	return p == end ? 0 : -EINVAL;
}

static char num_digit(const struct num *n, size_t k)
{
	return k < n->ni ? n->ip[k] : n->fp[k - n->ni];
}

static int text_u64(const char *s, size_t len, uint64_t *out)
{
	struct num n;
	size_t nd;
	long point;
	uint64_t v = 0;
	bool zero = true;
	int rc;

	if (span_is(s, len, "true", 4) || span_is(s, len, "false", 5)) {
		*out = s[0] == 't';
		return 0;
	}
	rc = parse_num(s, len, &n);
	if (rc < 0)
		return rc;
	nd = n.ni + n.nf;
	for (size_t k = 0; k < nd && zero; k++)
		zero = num_digit(&n, k) == '0';
	if (zero) {
		*out = 0;
		return 0;
	}
	if (n.neg)
		return -ERANGE;
	/* digits before the decimal point once the exponent is applied */
	point = (long)n.ni + n.exp;
	for (long k = point < 0 ? 0 : point; k < (long)nd; k++)
		if (num_digit(&n, (size_t)k) != '0')
			return -EINVAL; /* not an integer */
	for (long k = 0; k < point; k++) {
		unsigned d = k < (long)nd
				 ? (unsigned)(num_digit(&n, (size_t)k) - '0')
				 : 0;

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int double_u64(double d, uint64_t *out)
{
	if (d != d)
		return -EINVAL;
	if (d == 0) {
		*out = 0;
		return 0;
	}
	/* 2^64 is exact as a double; infinities fail the same tests */
	if (d < 0 || d >= 18446744073709551616.0)
		return -ERANGE;
	if ((double)(uint64_t)d != d)
		return -EINVAL;
	*out = (uint64_t)d;
	return 0;
}

int gnmi_scalar_u64(const struct gnmi_scalar *v, uint64_t *out)
{
	switch (v->kind) {
	case GNMI_SCALAR_UINT:
		*out = v->u;
		return 0;
	case GNMI_SCALAR_INT:
		if (v->i < 0)
			return -ERANGE;
		*out = (uint64_t)v->i;
		return 0;
	case GNMI_SCALAR_DOUBLE:
		return double_u64(v->d, out);
	case GNMI_SCALAR_BOOL:
		*out = v->b;
		return 0;
	case GNMI_SCALAR_STRING:
	case GNMI_SCALAR_NUMBER_TEXT:
		return v->s ? text_u64(v->s, v->len, out) : -EINVAL;
	default:
		return -EINVAL;
	}
}

static int text_double(const char *s, size_t len, double *out)
{
	static const double p10[] = { 1e0,  1e1,  1e2,	1e3, 1e4,  1e5,
				      1e6,  1e7,  1e8,	1e9, 1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15 };
	struct num n;
	char buf[512];
	char *endp;
	double d;
	int rc;

	if (span_is(s, len, "true", 4) || span_is(s, len, "false", 5)) {
		*out = s[0] == 't';
		return 0;
	}
	rc = parse_num(s, len, &n);
	if (rc < 0)
		return rc;
	if (n.exp == 0 && n.ni + n.nf <= 15) {
		/* exact integer digits and one exact division: one rounding */
		uint64_t m = 0;

		for (size_t k = 0; k < n.ni + n.nf; k++)
			m = m * 10 + (unsigned)(num_digit(&n, k) - '0');
		d = (double)m / p10[n.nf];
		*out = n.neg ? -d : d;
		return 0;
	}
	if (len >= sizeof buf)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* the syntax is checked above, so strtod sees no hex, inf or nan;
	 * fabmond never calls setlocale(), so the radix is '.' */
	d = strtod(buf, &endp);
	if (endp != buf + len)
		return -EINVAL;
	if (isinf(d))
		return -ERANGE;
	*out = d;
	return 0;
}

int gnmi_scalar_double(const struct gnmi_scalar *v, double *out)
{
	switch (v->kind) {
	case GNMI_SCALAR_UINT:
		*out = (double)v->u;
		return 0;
	case GNMI_SCALAR_INT:
		*out = (double)v->i;
		return 0;
	case GNMI_SCALAR_DOUBLE:
		*out = v->d;
		return 0;
	case GNMI_SCALAR_BOOL:
		*out = v->b ? 1 : 0;
		return 0;
	case GNMI_SCALAR_STRING:
	case GNMI_SCALAR_NUMBER_TEXT:
		return v->s ? text_double(v->s, v->len, out) : -EINVAL;
	default:
		return -EINVAL;
	}
}
