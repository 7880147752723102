/*
 * gnmi_decode: bounded decoding of gNMI protobuf messages (see decode.h
 * for why every decode is bounded three ways).
 *
 * The arena hands out memory from 64 KiB chunks that it keeps from one
 * message to the next, so a steady stream of notifications decodes
 * without malloc; requests above a quarter chunk get their own block,
 * freed at the next reset. It counts what it hands out against a
 * budget and refuses (returns NULL to protobuf-c) past it; protobuf-c
 * then fails the unpack cleanly, and gnmi_decode() tells that apart
 * from a malformed message by the arena's refusal count. Freeing is a
 * no-op: everything goes at the next reset.
 *
 * The depth pre-scan walks the wire format with an explicit stack of
 * (descriptor, end) pairs: it descends only into fields whose
 * descriptor says TYPE_MESSAGE, exactly those protobuf-c's unpack will
 * recurse into, and stops at max_depth. It also refuses tags that do
 * not fit 32 bits, which keeps protobuf-c's parse_tag_and_wiretype away
 * from its signed-shift overflow.
 *
 * An arena belongs to one thread at a time; the functions keep no other
 * state.
 */
#include "config.h"

#include "decode.h"
#include "mem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#define ARENA_CHUNK (64 * 1024)
#define ARENA_LARGE (ARENA_CHUNK / 4)
#define ARENA_ALIGN (_Alignof(max_align_t))

struct chunk {
	struct chunk *next;
	size_t size; /* bytes of data */
	size_t used;
	max_align_t data[];
};

struct gnmi_arena {
	ProtobufCAllocator pa;
	size_t budget;
	size_t used;	      /* handed out since the last reset, <= budget */
	size_t held;	      /* chunk and block data from malloc */
	struct chunk *chunks; /* kept across resets, filled in order */
	struct chunk *cur;
	struct chunk *large; /* single blocks, freed at reset */
	uint64_t refused;    /* allocations refused, ever */
};

static struct chunk *chunk_new(size_t size)
{
	struct chunk *c = malloc(sizeof *c + size);

	if (c == NULL)
		return NULL;
	c->next = NULL;
	c->size = size;
	c->used = 0;
	return c;
}

static void *refuse(struct gnmi_arena *a)
{
	a->refused++;
	return NULL;
}

static void *arena_alloc(void *data, size_t size)
{
	struct gnmi_arena *a = data;
	struct chunk *c;
	void *p;

	if (size > SIZE_MAX - ARENA_ALIGN)
		return refuse(a);
	size = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	if (size == 0)
		size = ARENA_ALIGN;
	if (size > a->budget - a->used)
		return refuse(a);
	if (size > ARENA_LARGE) {
		c = chunk_new(size);
		if (c == NULL)
			return refuse(a);
		c->used = size;
		c->next = a->large;
		a->large = c;
		a->held += size;
		a->used += size;
		return c->data;
	}
	/* later chunks are empty: take the next one that exists, or add */
	while (a->cur == NULL || a->cur->size - a->cur->used < size) {
		if (a->cur != NULL && a->cur->next != NULL) {
			a->cur = a->cur->next;
			continue;
		}
		c = chunk_new(ARENA_CHUNK);
		if (c == NULL)
			return refuse(a);
		if (a->cur != NULL)
			a->cur->next = c;
		else
			a->chunks = c;
		a->cur = c;
		a->held += ARENA_CHUNK;
	}
	p = (char *)a->cur->data + a->cur->used;
	a->cur->used += size;
	a->used += size;
	return p;
}

static void arena_free_noop(void *data, void *p)
{
	(void)data;
	(void)p;
}

struct gnmi_arena *gnmi_arena_new(size_t budget)
{
	struct gnmi_arena *a = xcalloc(1, sizeof *a);

	a->budget = budget;
	a->pa.alloc = arena_alloc;
	a->pa.free = arena_free_noop;
	a->pa.allocator_data = a;
	return a;
}

static void free_list(struct chunk *c)
{
	while (c != NULL) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
}

void gnmi_arena_free(struct gnmi_arena *a)
{
	if (a == NULL)
		return;
	free_list(a->chunks);
	free_list(a->large);
	free(a);
}

void gnmi_arena_reset(struct gnmi_arena *a)
{
	for (struct chunk *c = a->chunks; c != NULL; c = c->next)
		c->used = 0;
	for (struct chunk *c = a->large; c != NULL; c = c->next)
		a->held -= c->size;
	free_list(a->large);
	a->large = NULL;
	a->cur = a->chunks;
	a->used = 0;
}

size_t gnmi_arena_used(const struct gnmi_arena *a)
{
	return a->used;
}

size_t gnmi_arena_held(const struct gnmi_arena *a)
{
	return a->held;
}

ProtobufCAllocator *gnmi_arena_allocator(struct gnmi_arena *a)
{
	return &a->pa;
}

const char *gnmi_decode_strerror(int result)
{
	switch (result) {
	case GNMI_DECODE_OK:
		return "ok";
	case GNMI_DECODE_TOO_LARGE:
		return "message too large";
	case GNMI_DECODE_TOO_DEEP:
		return "message nested too deep";
	case GNMI_DECODE_MALFORMED:
		return "malformed message";
	case GNMI_DECODE_BUDGET:
		return "message needs more memory than the decode budget";
	default:
		return "unknown decode result";
	}
}

/* A varint of at most max_bytes into *v: false if longer or cut off. */
static bool read_varint(const uint8_t **pp, const uint8_t *end,
			unsigned max_bytes, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;

	for (unsigned i = 0; i < max_bytes; i++) {
		uint8_t b;

		if (p >= end)
			return false;
		b = *p++;
		if (i == 9 && b > 1)
			return false; /* past 64 bits */
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*pp = p;
			*v = r;
			return true;
		}
	}
	return false;
}

/*
 * The descriptor of field id, or NULL. gNMI messages have at most 14
 * fields, where a scan beats the library's call and binary search
 * (half the pre-scan's time otherwise).
 */
static const ProtobufCFieldDescriptor *
find_field(const ProtobufCMessageDescriptor *d, uint32_t id)
{
	if (d->n_fields > 16)
		return protobuf_c_message_descriptor_get_field(d, id);
	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].id == id)
			return &d->fields[i];
	return NULL;
}

struct level {
	const ProtobufCMessageDescriptor *desc;
	const uint8_t *end;
};

int gnmi_decode_depth(const ProtobufCMessageDescriptor *desc,
		      const uint8_t *data, size_t len, unsigned max_depth)
{
	struct level stack[GNMI_DECODE_DEPTH_CAP];
	unsigned cap = max_depth < GNMI_DECODE_DEPTH_CAP
			   ? max_depth
			   : GNMI_DECODE_DEPTH_CAP;
	unsigned depth = 1, deepest = 1;
	const uint8_t *p = data;

	if (cap < 1)
		return GNMI_DECODE_TOO_DEEP;
	if (len == 0)
		return 1;
	if (data == NULL)
		return GNMI_DECODE_MALFORMED;
	stack[0] = (struct level){ desc, data + len };
	for (;;) {
		const struct level *lv = &stack[depth - 1];
		const ProtobufCFieldDescriptor *f;
		uint64_t tag, n;

		if (p == lv->end) {
			if (depth == 1)
				return (int)deepest;
			depth--;
			continue;
		}
		/* protobuf-c reads tags of at most 5 bytes, as uint32 */
		if (!read_varint(&p, lv->end, 5, &tag) || tag > UINT32_MAX ||
		    tag >> 3 == 0)
			return GNMI_DECODE_MALFORMED;
		f = find_field(lv->desc, (uint32_t)(tag >> 3));
		if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE &&
		    (tag & 7) != 2)
			return GNMI_DECODE_MALFORMED;
		switch (tag & 7) {
		case 0:
			if (!read_varint(&p, lv->end, 10, &n))
				return GNMI_DECODE_MALFORMED;
			break;
		case 1:
			if (lv->end - p < 8)
				return GNMI_DECODE_MALFORMED;
			p += 8;
			break;
		case 5:
			if (lv->end - p < 4)
				return GNMI_DECODE_MALFORMED;
			p += 4;
			break;
		case 2:
			/* as protobuf-c: a length is a uint32 varint */
			if (!read_varint(&p, lv->end, 5, &n) ||
			    n > (uint64_t)(lv->end - p))
				return GNMI_DECODE_MALFORMED;
			if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE) {
				p += n; /* bytes, strings, packed scalars */
				break;
			}
			if (depth >= cap)
				return GNMI_DECODE_TOO_DEEP;
			stack[depth++] = (struct level){ f->descriptor, p + n };
			if (depth > deepest)
				deepest = depth;
			break;
		default:
			/* groups (3, 4), which protobuf-c refuses, and 6, 7 */
			return GNMI_DECODE_MALFORMED;
		}
	}
}

int gnmi_decode(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
		size_t len, size_t max_size, struct gnmi_arena *a,
		ProtobufCMessage **out)
{
	static const uint8_t empty[1];
	uint64_t refused = a->refused;
	ProtobufCMessage *m;
	int rc;

	*out = NULL;
	if (len > max_size)
		return GNMI_DECODE_TOO_LARGE;
	rc = gnmi_decode_depth(desc, data, len, GNMI_DECODE_MAX_DEPTH);
	if (rc < 0)
		return rc;
	m = protobuf_c_message_unpack(desc, &a->pa, len, len ? data : empty);
	if (m == NULL)
		return a->refused != refused ? GNMI_DECODE_BUDGET
					     : GNMI_DECODE_MALFORMED;
	*out = m;
	return GNMI_DECODE_OK;
}
