/*
 * fmt: small snprintf-style helpers shared by modules of any layer.
 * Pure functions into the caller's buffer, no state: any thread.
 */
#ifndef FABMON_FMT_H
#define FABMON_FMT_H

#include <stdbool.h>
#include <stddef.h>

/* snprintf for file paths: formats into buf (size bytes, always
 * terminated when size > 0). A path cut short names no file, so callers
 * need not check; returns false if it was cut (or on a format error). */
bool fmt_path(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
