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

#include <errno.h>
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

/*
 * The machinery of a walk, shared with gnmi_wire (wire.h), which feeds
 * it from a SubscribeResponse's wire bytes instead of a decoded message
 * so that both paths report the same views, scalars and counts. Other
 * callers use gnmi_walk_notification(). The struct is public only to
 * live on the caller's stack (about 6 KB); its fields are private.
 */
struct gnmi_walk {
	struct gnmi_view v;
	gnmi_leaf_fn leaf;
	gnmi_delete_fn del;
	void *ctx;
	struct gnmi_walk_stats *st; /* never NULL */
	size_t nkeys;		    /* keys[] in use */
	/* keys of the prefix elements, then of the current path's */
	struct gnmi_view_key keys[GNMI_VIEW_MAX_KEYS];
	/* the key of a JSON-made element at each view position */
	struct gnmi_view_key jkey[GNMI_VIEW_MAX];
	char jidx[GNMI_VIEW_MAX][24];
};

/* An empty view ("" origin and target) reporting to leaf/del (either
 * may be NULL) and counting in *st, which must not be NULL. */
void gnmi_walk_init(struct gnmi_walk *w, gnmi_leaf_fn leaf, gnmi_delete_fn del,
		    void *ctx, struct gnmi_walk_stats *st);
/* Appends an element without keys (name is borrowed, len bytes, need
 * not be NUL-terminated): 0 or -E2BIG past GNMI_VIEW_MAX. Inline: it
 * runs once per path element. */
static inline int gnmi_walk_add_elem(struct gnmi_walk *w, const char *name,
				     size_t len)
{
	struct gnmi_view_elem *e;

	if (w->v.n == GNMI_VIEW_MAX)
		return -E2BIG;
	e = &w->v.elem[w->v.n++];
	e->name = name;
	e->name_len = len;
	e->keys = &w->keys[w->nkeys];
	e->n_keys = 0;
	return 0;
}

/* Renames the last element appended. */
static inline void gnmi_walk_set_name(struct gnmi_walk *w, const char *name,
				      size_t len)
{
	w->v.elem[w->v.n - 1].name = name;
	w->v.elem[w->v.n - 1].name_len = len;
}
/* Adds a key to the last element appended, keeping its keys sorted by
 * name (equal names in the order added): 0 or -E2BIG past
 * GNMI_VIEW_MAX_KEYS in the view. */
int gnmi_walk_add_key(struct gnmi_walk *w, const char *name, size_t name_len,
		      const char *value, size_t value_len);
/* Appends a deprecated Path.element string ("name[k=v]...", len bytes
 * without NUL): 0, -E2BIG, or -EINVAL if malformed or escaped. */
int gnmi_walk_add_element_string(struct gnmi_walk *w, const char *s,
				 size_t len);
/* Counts a path the add functions refused with rc. */
void gnmi_walk_bad_path(struct gnmi_walk *w, int rc);
/* Reports a leaf at the current view. */
void gnmi_walk_scalar(struct gnmi_walk *w, const struct gnmi_scalar *sc);
/* Reports the leaves of a json_val / json_ietf_val value (NULL or empty
 * counts as bad JSON) below the current view. */
void gnmi_walk_json(struct gnmi_walk *w, const uint8_t *data, size_t len);
/* The deprecated Update.value: type is its Encoding; data NULL when
 * empty. */
void gnmi_walk_old_value(struct gnmi_walk *w, int type, const uint8_t *data,
			 size_t len);
/* Reports the current view as deleted. */
void gnmi_walk_delete(struct gnmi_walk *w);
/* A Decimal64 (deprecated decimal_val) as a scalar: an INT when
 * precision is 0, else a DOUBLE. */
void gnmi_scalar_decimal(int64_t digits, uint32_t precision,
			 struct gnmi_scalar *sc);

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
