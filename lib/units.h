/*
 * units: the time constants every module counts in, and durations and
 * sizes as fabmon's files and messages write them ("1s", "250ms",
 * "1m30s"; "16MiB"). Parsing is exact (integers, no floating point) and
 * range-checked; formatting gives the shortest exact form.
 */
#ifndef FABMON_UNITS_H
#define FABMON_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Signed, so that differences of times stay signed; they convert to
 * unsigned where a caller counts in uint64_t. */
#define NS_PER_US INT64_C(1000)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

/* Durations: "0", or one or more <number><unit> with units ns, us (or
 * µs), ms, s, m, h, d; a number may have a fraction ("1.5s"). Returns 0,
 * -EINVAL for bad syntax or -ERANGE when the total overflows 64 bits. */
int units_parse_duration(const char *s, uint64_t *ns);
/* Sizes: <number>[B|KB|MB|GB|KiB|MiB|GiB]; 0 or -EINVAL / -ERANGE. */
int units_parse_size(const char *s, uint64_t *bytes);
/* Formats ns as the shortest exact duration ("1s", "200ms", "1m30s")
 * into buf (always terminated when len > 0). */
void units_format_duration(uint64_t ns, char *buf, size_t len);

#endif
