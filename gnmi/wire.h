/*
 * gnmi_wire: a gnmi.SubscribeResponse read straight from its wire bytes.
 *
 * Decoding a notification into protobuf-c structures costs about eight
 * allocations and a copy of every string per update, and caps the
 * collector well below what the mapper and the store can take. This
 * module reads the packed message in place instead: gnmi_wire_parse()
 * validates the whole message and tells what it is (an update, a
 * sync_response, a deprecated error), and gnmi_wire_walk() then reports
 * the notification's leaves and deletes exactly as
 * gnmi_walk_notification() reports them for the same message decoded by
 * gnmi_decode(): the same views (keys sorted by name), the same
 * scalars, the same JSON flattening (value.c's walker) and the same
 * counts. Where protobuf-c's merge of a repeated singular sub-message
 * (Path, TypedValue, Value) has an odd but defined result, the walker
 * reproduces it; doc/gnmi-wire.md lists those cases and the few
 * deliberate differences.
 *
 * Validation comes first and is whole: a message is either walked
 * entirely or refused, never applied in part. It checks varints (at most
 * 10 bytes, 64 bits), tags (at most 5 bytes, 32 bits, field > 0),
 * lengths within their enclosing message, the wire type of every known
 * field of every message type (protobuf-c's descriptors, so the same
 * fields protobuf-c checks, extensions included), skips unknown fields
 * by wire type, refuses groups, and bounds nesting at
 * GNMI_DECODE_MAX_DEPTH levels with an explicit stack (leaflist_val ->
 * ScalarArray -> TypedValue recursion included) as gnmi_decode() does.
 *
 * Neither function allocates or recurses; the walk keeps its state
 * (about 10 KB) on the caller's stack. Views point into the message
 * bytes or that state and live during the callback only. The module has
 * no global state.
 */
#ifndef FABMON_GNMI_WIRE_H
#define FABMON_GNMI_WIRE_H

#include "value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Origins and targets are copied with a NUL into buffers of this size;
 * a path with a longer one is counted unsupported. */
#define GNMI_WIRE_NAME_MAX 1024
/* The deprecated error's message is cut to this (NUL included). */
#define GNMI_WIRE_ERROR_MAX 256

enum gnmi_wire_kind {
	GNMI_WIRE_NONE = 0, /* no response set (an empty message) */
	GNMI_WIRE_UPDATE,   /* a Notification */
	GNMI_WIRE_SYNC,	    /* sync_response */
	GNMI_WIRE_ERROR,    /* the deprecated Error */
};

enum gnmi_wire_result {
	GNMI_WIRE_OK = 0,
	GNMI_WIRE_MALFORMED = -1, /* not a valid SubscribeResponse */
	GNMI_WIRE_TOO_DEEP = -2,  /* nested past GNMI_DECODE_MAX_DEPTH */
	/* two TypedValues without a value merged into one Update.val:
	 * protobuf-c has no defined result (it reads outside its
	 * descriptor table, and in practice fails the unpack) */
	GNMI_WIRE_UNDEFINED = -3,
};

/* What a message is. Filled by gnmi_wire_parse(); read-only after. */
struct gnmi_wire_info {
	enum gnmi_wire_kind kind;
	bool sync_response; /* SYNC: its value */
	int64_t timestamp;  /* UPDATE: the notification's (ns) */
	uint32_t error_code;
	char error_message[GNMI_WIRE_ERROR_MAX]; /* ERROR, NUL-terminated */
	/* UPDATE: the notification's bytes, inside the parsed message (so
	 * the message must outlive this struct's use) */
	const uint8_t *notification;
	size_t notification_len;
};

/*
 * Validates data as a SubscribeResponse and fills *info. GNMI_WIRE_OK
 * or a negative gnmi_wire_result (then *info says NONE). An empty
 * message is valid (kind NONE). Costs a few ns per field.
 */
int gnmi_wire_parse(const uint8_t *data, size_t len,
		    struct gnmi_wire_info *info);

/*
 * Reports the leaves and deletes of an UPDATE that gnmi_wire_parse()
 * accepted (other kinds report nothing): updates in order, then
 * deletes, as gnmi_walk_notification() does. leaf or del may be NULL;
 * st (which the walk adds to) may be NULL.
 */
void gnmi_wire_walk(const struct gnmi_wire_info *info, gnmi_leaf_fn leaf,
		    gnmi_delete_fn del, void *ctx, struct gnmi_walk_stats *st);

const char *gnmi_wire_strerror(int result);

#endif
