/*
 * fmt: snprintf-style helpers (see fmt.h).
 */
#include "config.h"

#include "fmt.h"

#include <stdarg.h>
#include <stdio.h>

bool fmt_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}
