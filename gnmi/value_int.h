/*
 * gnmi_value internal: the character tests the pieces of the value
 * module share (value.c: the walk and its JSON scanner; value_num.c;
 * value_text.c). Internal to gnmi/value*.c. Inline: the JSON scanner
 * runs them per byte on the ingest path.
 */
#ifndef FABMON_GNMI_VALUE_INT_H
#define FABMON_GNMI_VALUE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline bool is_hex4(const char *p)
{
	return hex_val(p[0]) >= 0 && hex_val(p[1]) >= 0 && hex_val(p[2]) >= 0 &&
	       hex_val(p[3]) >= 0;
}

static inline bool span_is(const char *s, size_t len, const char *lit, size_t n)
{
	return len == n && memcmp(s, lit, n) == 0;
}

#endif
