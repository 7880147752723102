/*
 * gnmi_value: the leaves of a gNMI notification, as borrowed views.
 *
 * gnmi_walk_notification() visits every scalar leaf of a decoded
 * gnmi.Notification without allocating: for each update it joins the
 * notification's prefix and the update's path into a struct gnmi_view
 * (pointers into the protobuf message), and when the value is a JSON
 * object (json_val / json_ietf_val, as SONiC sends whole COUNTERS_DB
 * tables) it flattens it: each member becomes one more path element,
 * named by the member name without its YANG module prefix
 * ("openconfig-interfaces:in-octets" -> "in-octets"); an array of
 * objects becomes one element per entry, keyed by the entry's "name",
 * "index" or "id" member when it has one (else by its position,
 * [index=N]). leaflist_val reports one leaf per element with the same
 * path. The JSON walker is iterative, bounded in depth
 * (GNMI_VIEW_MAX elements in all) and never allocates. A JSON value is
 * checked whole before any of its leaves is reported, so a malformed or
 * too deep one is skipped entirely (bad_json / too_deep), never in part.
 * A member name loses its prefix only when the prefix looks like a YANG
 * module name (lowercase, RFC 8407) and the rest like an identifier, so
 * SONiC's "Ethernet68:3" queue names are kept as they are.
 *
 * Scalars keep their wire form; gnmi_scalar_u64() and
 * gnmi_scalar_double() read them as numbers the way gNMI targets send
 * counters: uint_val/int_val, decimal strings in JSON_IETF ("123"),
 * JSON numbers, double_val and decimal_val.
 *
 * Views and scalars are valid only during the callback.
 */
#ifndef FABMON_GNMI_VALUE_H
#define FABMON_GNMI_VALUE_H

#include "gnmi.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GNMI_VIEW_MAX	   48 /* path elements, prefix + path + JSON levels */
#define GNMI_VIEW_MAX_KEYS 64 /* keys of the prefix + path elements */

struct gnmi_view_key {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

struct gnmi_view_elem {
	const char *name; /* not NUL-terminated when it comes from JSON */
	size_t name_len;
	const struct gnmi_view_key *keys; /* sorted by name */
	size_t n_keys;
};

struct gnmi_view {
	const char *origin; /* "" if none */
	const char *target; /* "" if none */
	size_t n;
	struct gnmi_view_elem elem[GNMI_VIEW_MAX];
};

enum gnmi_scalar_kind {
	GNMI_SCALAR_UINT,
	GNMI_SCALAR_INT,
	GNMI_SCALAR_DOUBLE,
	GNMI_SCALAR_BOOL,
	GNMI_SCALAR_STRING, /* string_val, ascii_val, JSON strings */
	GNMI_SCALAR_BYTES,
	GNMI_SCALAR_NUMBER_TEXT, /* a JSON number, as its text */
	GNMI_SCALAR_NULL,
};

struct gnmi_scalar {
	enum gnmi_scalar_kind kind;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
	const char *s; /* STRING, BYTES, NUMBER_TEXT: not NUL-terminated */
	size_t len;
};

/* The scalar as an unsigned counter: 0, -ERANGE (negative, too large,
 * not finite) or -EINVAL (not a number). Strings must be decimal
 * integers (optionally with a fraction of zeros); booleans give 0/1. */
int gnmi_scalar_u64(const struct gnmi_scalar *v, uint64_t *out);
/* The scalar as a double (gauges, rates): 0, -EINVAL, or -ERANGE for
 * a number text past a double's range. Strings may be decimal numbers;
 * "true"/"false" give 1/0 (gnmi_scalar_u64 accepts them too, as SONiC
 * sends flags such as SAI_QUEUE_ATTR_PAUSE_STATUS as "true"/"false"). */
int gnmi_scalar_double(const struct gnmi_scalar *v, double *out);

/* What the walk saw, for the caller's counters. */
struct gnmi_walk_stats {
	uint64_t leaves;   /* scalar leaves reported */
	uint64_t deletes;  /* deleted paths reported */
	uint64_t bad_json; /* json values that did not parse (skipped) */
	/* values past GNMI_VIEW_MAX elements, or paths with more than
	 * GNMI_VIEW_MAX_KEYS keys (skipped) */
	uint64_t too_deep;
	uint64_t unsupported; /* any_val, proto_bytes, missing values */
};

typedef void (*gnmi_leaf_fn)(void *ctx, const struct gnmi_view *path,
			     const struct gnmi_scalar *value);
typedef void (*gnmi_delete_fn)(void *ctx, const struct gnmi_view *path);

/*
 * Walks every leaf and delete of n (prefix joined with each path).
 * leaf or del may be NULL. Bad pieces are skipped and counted in st
 * (which the walk adds to; it may be NULL); the rest is still walked.
 */
void gnmi_walk_notification(const Gnmi__Notification *n, gnmi_leaf_fn leaf,
			    gnmi_delete_fn del, void *ctx,
			    struct gnmi_walk_stats *st);

/* Prints a view in gnmi_path syntax ("/a/b[k=v]/c") into buf, as
 * snprintf (for logs of unmapped paths). */
size_t gnmi_view_format(const struct gnmi_view *v, char *buf, size_t len);

/*
 * JSON strings (member names, key values and STRING scalars that come
 * from json_val / json_ietf_val) are reported as their raw text between
 * the quotes, escapes included. This decodes such a span (\" \\ \/ \b
 * \f \n \r \t \uXXXX with surrogate pairs, to UTF-8) into buf with a
 * terminating NUL; len + 1 bytes always suffice. 0 and the decoded
 * length in *outlen, -EINVAL for a bad escape, -ENOSPC if buf is short.
 */
int gnmi_json_unescape(const char *s, size_t len, char *buf, size_t buflen,
		       size_t *outlen);

#endif
