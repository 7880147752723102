/*
 * mem: allocation wrappers that abort on out-of-memory.
 *
 * fabmond cannot do anything useful once malloc fails, so small
 * allocations go through these wrappers and callers do not grow untested
 * NULL branches. Large, input-sized buffers that may legitimately fail
 * (a hostile message length) must use plain malloc and handle NULL.
 */
#ifndef FABMON_MEM_H
#define FABMON_MEM_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
/* n zeroed bytes at a multiple of align (a power of two, >= sizeof(void
 * *)); free() releases them. */
void *xaligned_zalloc(size_t align, size_t n);
void *xrealloc(void *p, size_t n);
/* xreallocarray(p, nmemb, size) checks nmemb * size for overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A newly allocated string formatted as by printf; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

#endif
