/*
 * json: the jansson helpers every JSON writer shares: strings that are
 * never refused, numbers that are integral when they can be and null
 * when they are not finite, durations in seconds and RFC 3339 times.
 *
 * Each returns a new reference (NULL only when jansson runs out of
 * memory); the callers hand it to json_object_set_new() and the like.
 * No state, any thread.
 */
#ifndef FABMON_JSON_H
#define FABMON_JSON_H

#include <jansson.h>
#include <stdint.h>

/*
 * A JSON string of s (NULL: ""). jansson wants UTF-8; names come from
 * config files, devices and query strings, so anything else is made
 * ASCII ('?' for each byte >= 0x80) rather than failing the response.
 */
json_t *json_str(const char *s);
/* A JSON number, integral when v is (below 2^53); null when v is not
 * finite. */
json_t *json_num(double v);
/* v as a JSON integer, saturated at INT64_MAX. */
json_t *json_u64(uint64_t v);
/* ns as a number of seconds (json_num(ns / 1e9)). */
json_t *json_secs(int64_t ns);
/* ns since the epoch as an RFC 3339 string (rfc3339_format()). */
json_t *json_time(int64_t ns);

#endif
