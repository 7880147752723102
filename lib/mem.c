/*
 * mem: abort-on-OOM allocation wrappers (see mem.h).
 */
#include "config.h"

#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die_oom(size_t n)
{
	char msg[96];
	int len = snprintf(msg, sizeof msg,
			   "fabmon: out of memory allocating %zu bytes\n", n);
	if (len > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)len);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xaligned_zalloc(size_t align, size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, align, n ? n : 1))
		die_oom(n);
	memset(p, 0, n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		die_oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		die_oom(SIZE_MAX);
	return xrealloc(p, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	char *s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
