/*
 * gnmi_decode: bounded protobuf-c decoding of what targets send.
 *
 * protobuf-c has no recursion limit (a 29 KB message nested 4,375 levels
 * deep overflows an 8 MiB stack) and allocates about 45x a message's
 * size. Every decode therefore goes through three bounds: a maximum
 * message size, a nesting-depth pre-scan (an iterative walk of the wire
 * format that follows only message-typed fields, using the
 * descriptors), and an arena allocator with a byte budget, reset per
 * message, which also makes decoding cost no malloc per field.
 *
 * An arena belongs to one thread at a time. A decoded message lives in
 * its arena until the next reset.
 */
#ifndef FABMON_GNMI_DECODE_H
#define FABMON_GNMI_DECODE_H

#include <protobuf-c/protobuf-c.h>

#include <stddef.h>
#include <stdint.h>

#define GNMI_DECODE_MAX_DEPTH 32
#define GNMI_DECODE_DEPTH_CAP 256

struct gnmi_arena;

/* An arena that refuses allocations past budget bytes per reset. */
struct gnmi_arena *gnmi_arena_new(size_t budget);
/* gnmi_arena_free(NULL) does nothing. */
void gnmi_arena_free(struct gnmi_arena *a);
/* Forgets every allocation (keeps the memory for the next message). */
void gnmi_arena_reset(struct gnmi_arena *a);
/* Bytes handed out since the last reset / held from the system. */
size_t gnmi_arena_used(const struct gnmi_arena *a);
size_t gnmi_arena_held(const struct gnmi_arena *a);
ProtobufCAllocator *gnmi_arena_allocator(struct gnmi_arena *a);

enum gnmi_decode_result {
	GNMI_DECODE_OK = 0,
	GNMI_DECODE_TOO_LARGE = -1, /* over max_size */
	GNMI_DECODE_TOO_DEEP = -2,  /* nesting over max_depth */
	GNMI_DECODE_MALFORMED = -3, /* not a valid message of that type */
	GNMI_DECODE_BUDGET = -4,    /* would allocate past the arena budget */
};

const char *gnmi_decode_strerror(int result);

/*
 * The deepest message nesting in data read as desc (1 for a message
 * without sub-messages), or GNMI_DECODE_TOO_DEEP as soon as it passes
 * max_depth, or GNMI_DECODE_MALFORMED if the wire format is broken.
 * It uses no recursion and a fixed stack: a max_depth above
 * GNMI_DECODE_DEPTH_CAP counts as GNMI_DECODE_DEPTH_CAP.
 */
int gnmi_decode_depth(const ProtobufCMessageDescriptor *desc,
		      const uint8_t *data, size_t len, unsigned max_depth);

/*
 * Decodes data as desc into *out, allocated in a (reset by the caller
 * between messages). GNMI_DECODE_OK or a negative gnmi_decode_result.
 */
int gnmi_decode(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
		size_t len, size_t max_size, struct gnmi_arena *a,
		ProtobufCMessage **out);

#endif
