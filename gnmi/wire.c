/*
 * gnmi_wire: validates and walks a packed gnmi.SubscribeResponse in
 * place (see wire.h for why, and doc/gnmi-wire.md for how it matches
 * protobuf-c).
 *
 * Two passes over the bytes. The first, validate(), is generic: it
 * follows protobuf-c's descriptors (through a table made from them)
 * with an explicit stack of (message type, end) levels, checks each
 * field's wire type against its descriptor, descends only into
 * message-typed fields, exactly those protobuf-c's unpack recurses
 * into, and stops at GNMI_DECODE_MAX_DEPTH; messages with at most one
 * level below them (PathElem, KeyEntry) are checked in line, without
 * the stack (validate_short()). It also notes the last member of each
 * oneof, which is all it needs to tell the one merge protobuf-c leaves
 * undefined (see fold_val()). The second pass, the walk, knows the
 * gNMI messages: it reads only the fields value.c reports and hands
 * everything to value.c's walk machinery (struct gnmi_walk), so the
 * views, scalars, JSON flattening and counts are built by the same
 * code as for a decoded message. It trusts the first pass but stays
 * within the bytes whatever it meets.
 *
 * A singular sub-message that occurs more than once is merged by
 * protobuf-c, and the walk reads such fields the way the merged
 * structure reads: a Path's elements are those of every occurrence in
 * order and its strings come from the last one; the TypedValue and the
 * deprecated Value follow protobuf-c's merge_messages() rules, quirks
 * included. A oneof member occurring twice is not merged (the last one
 * wins), again as protobuf-c does.
 *
 * Strings are C strings once decoded, so every name, key, origin and
 * target is cut at its first NUL. Origins and targets must be
 * NUL-terminated in the view and are copied into the walk state; names
 * and keys point into the message.
 *
 * No allocation and no recursion. The one global is the validator's
 * table of field types, derived once from protobuf-c's descriptors
 * (pthread_once) and read-only after; walks may run in parallel.
 */
#include "config.h"

#include "wire.h"

#include "decode.h"
#include "gnmi.pb-c.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define TAG(id, wt) ((uint32_t)(id) << 3 | (wt))

enum { WT_VARINT = 0, WT_64 = 1, WT_LEN = 2, WT_32 = 5 };

/* One field as read: its tag and its value or bytes. */
struct field {
	uint32_t tag;	  /* id << 3 | wire type; 0 for none */
	uint64_t v;	  /* varint, or the fixed32/fixed64 bits */
	const uint8_t *p; /* length-delimited: the bytes */
	size_t len;
};

/* A varint read: where it ends (NULL if malformed) and its value. */
struct varint {
	const uint8_t *p;
	uint64_t v;
};

/* Out of line and by value, so the callers' cursors stay in registers. */
static __attribute__((noinline)) struct varint
read_varint_slow(const uint8_t *p, const uint8_t *end, unsigned max_bytes)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < max_bytes; i++) {
		uint8_t b;

		if (p >= end)
			break;
		b = *p++;
		if (i == 9 && b > 1)
			break; /* past 64 bits */
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0)
			return (struct varint){ p, r };
	}
	return (struct varint){ NULL, 0 };
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* A varint of at most max_bytes (2 or more): false if longer, cut off
 * or past 64 bits (as gnmi_decode_depth() refuses them). One byte is
 * the rule. */
static ALWAYS_INLINE bool read_varint(const uint8_t **pp, const uint8_t *end,
				      unsigned max_bytes, uint64_t *v)
{
	struct varint r;

	if (*pp < end && **pp < 0x80) {
		*v = **pp;
		(*pp)++;
		return true;
	}
	/* two bytes: the length of an update or of a long string */
	if (end - *pp >= 2 && (*pp)[1] < 0x80) {
		*v = (uint64_t)((*pp)[0] & 0x7f) | (uint64_t)(*pp)[1] << 7;
		*pp += 2;
		return true;
	}
	r = read_varint_slow(*pp, end, max_bytes);
	if (r.p == NULL)
		return false;
	*pp = r.p;
	*v = r.v;
	return true;
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/*
 * The field at *pp into *f, moving past it: false at the end and on
 * anything malformed. Tags are protobuf-c's (at most 5 bytes, 32 bits)
 * with field numbers above 0; lengths at most 5 bytes and within end.
 */
static ALWAYS_INLINE bool next_field(const uint8_t **pp, const uint8_t *end,
				     struct field *f)
{
	uint64_t tag, n;

	if (*pp >= end || !read_varint(pp, end, 5, &tag) || tag > UINT32_MAX ||
	    tag >> 3 == 0)
		return false;
	f->tag = (uint32_t)tag;
	f->v = 0;
	f->p = NULL;
	f->len = 0;
	switch (tag & 7) {
	case WT_VARINT:
		return read_varint(pp, end, 10, &f->v);
	case WT_64:
	case WT_32: {
		unsigned size = (tag & 7) == WT_64 ? 8 : 4;

		if ((size_t)(end - *pp) < size)
			return false;
		f->v = read_le(*pp, size);
		*pp += size;
		return true;
	}
	case WT_LEN:
		if (!read_varint(pp, end, 5, &n) || n > (uint64_t)(end - *pp))
			return false;
		f->p = *pp;
		f->len = (size_t)n;
		*pp += n;
		return true;
	default:
		/* groups (3, 4), which protobuf-c refuses, and 6, 7 */
		return false;
	}
}

/*
 * The length of a string once decoded: up to its first NUL. Names are
 * short, so this reads 8 bytes a step with the "has a zero byte" trick
 * (the lowest flagged byte is exact, later ones may be false) rather
 * than calling memchr(): the last step overlaps the one before, and a
 * string shorter than 8 bytes is read as 8 when limit (the end of the
 * readable bytes around it) allows.
 */
static ALWAYS_INLINE size_t cstr_span(const uint8_t *p, size_t len,
				      const uint8_t *limit)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);
	uint64_t x, t;
	size_t i, z;

	if (len < 8 && (size_t)(limit - p) >= 8) {
		memcpy(&x, p, 8);
		t = (x - ones) & ~x & highs;
		z = t ? (size_t)(__builtin_ctzll(t) >> 3) : 8;
		return z < len ? z : len;
	}
	if (len >= 8) {
		for (i = 0;; i += 8) {
			if (i > len - 8)
				i = len - 8;
			memcpy(&x, p + i, 8);
			t = (x - ones) & ~x & highs;
			if (t != 0)
				return i + (size_t)(__builtin_ctzll(t) >> 3);
			if (i == len - 8)
				return len;
		}
	}
#else
	(void)limit;
#endif
	for (size_t k = 0; k < len; k++)
		if (p[k] == 0)
			return k;
	return len;
}

/*
 * A bool as protobuf-c's parse_boolean() reads it: true if any byte of
 * the field's value has one of its low 7 bits set. protobuf-c checks no
 * wire type for bools, and for a length-delimited one it reads the
 * length prefix too: true exactly when the bytes are not empty.
 */
static bool field_bool(const struct field *f)
{
	switch (f->tag & 7) {
	case WT_LEN:
		return f->len > 0;
	case WT_VARINT:
		return f->v != 0;
	default:
		return (f->v & UINT64_C(0x7f7f7f7f7f7f7f7f)) != 0;
	}
}

/* ---- validation ---- */

/* How the merged Update.val stands (see fold_val()). */
enum val_state {
	VAL_ABSENT = 0,
	VAL_NONE,    /* no value set */
	VAL_LOSABLE, /* a string or empty bytes: lost by a later empty one */
	VAL_KEPT,    /* kept by a later empty one */
};

struct vlevel {
	const uint8_t *end;
	size_t oneof_len;   /* length of the last oneof member, if bytes */
	uint32_t oneof;	    /* the last oneof member seen, 0 if none */
	uint32_t field;	    /* this message's field number in its parent */
	uint8_t msg;	    /* schema index of the message type */
	enum val_state val; /* Update levels: the merged val so far */
};

/*
 * The validator's view of protobuf-c's descriptors, derived from them
 * once: for each message type reachable from SubscribeResponse and each
 * one-byte field number, what protobuf-c's parse_required_member()
 * takes. Looking a field up is then one load instead of a chase through
 * descriptor, field table and field, a fifth of validation's time.
 * Field numbers past the table go to the descriptor.
 */
#define SCHEMA_MSGS 32 /* gnmi + gnmi_ext + Any reach 22 */
#define SCHEMA_IDS  16

enum {
	SF_KNOWN = 1,
	SF_ONEOF = 2,
	SF_PACKED = 4, /* repeated scalar: wire type 2 (packed) too */
	SF_MESSAGE = 8,
	SF_ANY_WT = 16, /* bool: protobuf-c checks no wire type */
};

struct sfield {
	uint8_t flags;
	uint8_t wt;    /* the wire type of an element */
	uint8_t child; /* SF_MESSAGE: the type's schema index */
};

struct smsg {
	const ProtobufCMessageDescriptor *desc;
	/* levels of messages below and with it (1: no message field),
	 * HEIGHT_MAX for recursive ones (TypedValue) */
	unsigned height;
	struct sfield f[SCHEMA_IDS];
};

#define HEIGHT_MAX 255

static struct smsg schema[SCHEMA_MSGS];
static unsigned n_schema;
static uint8_t schema_update, schema_notification;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static unsigned schema_find(const ProtobufCMessageDescriptor *d)
{
	for (unsigned i = 0; i < n_schema; i++)
		if (schema[i].desc == d)
			return i;
	return n_schema;
}

static struct sfield sfield_of(const ProtobufCFieldDescriptor *f)
{
	struct sfield sf = { .flags = SF_KNOWN };

	switch (f->type) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		sf.wt = WT_32;
		break;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		sf.wt = WT_64;
		break;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
		sf.wt = WT_LEN;
		break;
	case PROTOBUF_C_TYPE_MESSAGE:
		sf.wt = WT_LEN;
		sf.flags |= SF_MESSAGE;
		sf.child = (uint8_t)schema_find(f->descriptor);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		sf.wt = WT_VARINT;
		sf.flags |= SF_ANY_WT;
		break;
	default:
		sf.wt = WT_VARINT;
		break;
	}
	if (f->label == PROTOBUF_C_LABEL_REPEATED && sf.wt != WT_LEN)
		sf.flags |= SF_PACKED;
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
		sf.flags |= SF_ONEOF;
	return sf;
}

/* The heights, by rounds until they settle; a cycle climbs to the cap. */
static void schema_heights(void)
{
	bool changed = true;

	for (unsigned i = 0; i < n_schema; i++)
		schema[i].height = 1;
	while (changed) {
		changed = false;
		for (unsigned i = 0; i < n_schema; i++) {
			const ProtobufCMessageDescriptor *d = schema[i].desc;
			unsigned h = 1;

			for (unsigned k = 0; k < d->n_fields; k++) {
				const ProtobufCFieldDescriptor *f =
				    &d->fields[k];
				unsigned c;

				if (f->type != PROTOBUF_C_TYPE_MESSAGE)
					continue;
				c = schema[schema_find(f->descriptor)].height;
				if (c + 1 > h)
					h = c + 1 < HEIGHT_MAX ? c + 1
							       : HEIGHT_MAX;
			}
			if (h != schema[i].height) {
				schema[i].height = h;
				changed = true;
			}
		}
	}
}

static void schema_build(void)
{
	schema[n_schema++].desc = &gnmi__subscribe_response__descriptor;
	for (unsigned i = 0; i < n_schema; i++) {
		const ProtobufCMessageDescriptor *d = schema[i].desc;

		for (unsigned k = 0; k < d->n_fields; k++) {
			const ProtobufCFieldDescriptor *f = &d->fields[k];

			if (f->type == PROTOBUF_C_TYPE_MESSAGE &&
			    schema_find(f->descriptor) == n_schema) {
				/* our bug: SCHEMA_MSGS is too small */
				assert(n_schema < SCHEMA_MSGS);
				schema[n_schema++].desc = f->descriptor;
			}
			if (f->id < SCHEMA_IDS)
				schema[i].f[f->id] = sfield_of(f);
		}
	}
	schema_update = (uint8_t)schema_find(&gnmi__update__descriptor);
	schema_notification =
	    (uint8_t)schema_find(&gnmi__notification__descriptor);
	schema_heights();
}

/* A field numbered past the table: from the descriptor (rare). */
static struct sfield schema_field_slow(unsigned msg, uint32_t id)
{
	const ProtobufCFieldDescriptor *f =
	    protobuf_c_message_descriptor_get_field(schema[msg].desc, id);

	return f ? sfield_of(f) : (struct sfield){ 0 };
}

/* TypedValue fields that are bytes (bytes_val, json, json_ietf, proto) */
static bool is_bytes_member(uint32_t id)
{
	return id == 5 || id == 10 || id == 11 || id == 13;
}

static bool is_string_member(uint32_t id)
{
	return id == 1 || id == 12;
}

static enum val_state val_state_of(uint32_t oneof, size_t len)
{
	if (oneof == 0)
		return VAL_NONE;
	if (is_string_member(oneof) || (is_bytes_member(oneof) && len == 0))
		return VAL_LOSABLE;
	return VAL_KEPT;
}

/*
 * protobuf-c merges a second Update.val into the first with
 * merge_messages(): a later TypedValue with a value replaces the
 * earlier; a later one without keeps the earlier value, except a string
 * (the oneof's default is "", its union member NULL, so the test for
 * "latter unset" fails) or empty bytes (NULL data), which are lost. Two
 * TypedValues without a value look up the oneof member numbered 0,
 * which does not exist: protobuf-c indexes its field table at -1. That
 * is the one input refused as GNMI_WIRE_UNDEFINED.
 */
static int fold_val(enum val_state *acc, enum val_state next)
{
	if (*acc == VAL_ABSENT || next != VAL_NONE) {
		*acc = next;
		return 0;
	}
	if (*acc == VAL_NONE)
		return GNMI_WIRE_UNDEFINED;
	if (*acc == VAL_LOSABLE)
		*acc = VAL_NONE;
	return 0;
}

static ALWAYS_INLINE bool wire_type_fits(struct sfield sf, unsigned wt)
{
	return wt == sf.wt || (sf.flags & SF_ANY_WT) ||
	       (wt == WT_LEN && (sf.flags & SF_PACKED));
}

/* A message of height 1 (no message field, as KeyEntry): its fields'
 * wire types. */
static bool validate_flat(unsigned msg, const uint8_t *p, const uint8_t *end)
{
	const struct sfield *fields = schema[msg].f;
	struct field f;

	while (p < end) {
		struct sfield sf;
		uint32_t id;

		if (!next_field(&p, end, &f))
			return false;
		id = f.tag >> 3;
		sf = id < SCHEMA_IDS ? fields[id] : schema_field_slow(msg, id);
		if ((sf.flags & SF_KNOWN) && !wire_type_fits(sf, f.tag & 7))
			return false;
	}
	return true;
}

/*
 * A message of height 2 (its message fields have none, as PathElem),
 * checked in line rather than through validate()'s stack: most of a
 * notification's messages are PathElems and KeyEntries, and neither
 * holds a oneof or anything the walk's merge rules look at.
 */
static bool validate_short(unsigned msg, const uint8_t *p, const uint8_t *end)
{
	const struct sfield *fields = schema[msg].f;
	struct field f;

	while (p < end) {
		struct sfield sf;
		uint32_t id;

		if (!next_field(&p, end, &f))
			return false;
		id = f.tag >> 3;
		sf = id < SCHEMA_IDS ? fields[id] : schema_field_slow(msg, id);
		if (!(sf.flags & SF_KNOWN))
			continue;
		if (!wire_type_fits(sf, f.tag & 7))
			return false;
		if ((sf.flags & SF_MESSAGE) &&
		    !validate_flat(sf.child, f.p, f.p + f.len))
			return false;
	}
	return true;
}

/*
 * Proves [data, data + len) a SubscribeResponse protobuf-c unpacks and
 * gnmi_decode() lets through (depth), and puts the last member of its
 * response oneof into *top (tag 0 if none) and, for a notification,
 * its timestamp into *ts.
 */
static int validate(const uint8_t *data, size_t len, struct field *top,
		    int64_t *ts)
{
	struct vlevel stack[GNMI_DECODE_MAX_DEPTH];
	unsigned depth = 1;
	const uint8_t *p = data;
	/* the current level, kept out of memory: one load per field */
	struct vlevel cur = { .end = data + len };
	const struct sfield *fields;

	pthread_once(&schema_once, schema_build);
	fields = schema[0].f;
	top->tag = 0;
	*ts = 0;
	for (;;) {
		struct sfield sf;
		struct field fl;
		uint32_t id;

		if (p == cur.end) {
			struct vlevel done = cur;

			if (depth == 1)
				return GNMI_WIRE_OK;
			cur = stack[--depth - 1];
			fields = schema[cur.msg].f;
			if (done.field == 3 && cur.msg == schema_update &&
			    fold_val(&cur.val,
				     val_state_of(done.oneof, done.oneof_len)) <
				0)
				return GNMI_WIRE_UNDEFINED;
			continue;
		}
		if (!next_field(&p, cur.end, &fl))
			return GNMI_WIRE_MALFORMED;
		id = fl.tag >> 3;
		sf = id < SCHEMA_IDS ? fields[id]
				     : schema_field_slow(cur.msg, id);
		if (!(sf.flags & SF_KNOWN))
			continue; /* unknown: skipped, as protobuf-c keeps it */
		/* a repeated scalar may come packed; no message reachable
		 * from SubscribeResponse has one, so its bytes go unchecked */
		if (!wire_type_fits(sf, fl.tag & 7))
			return GNMI_WIRE_MALFORMED;
		if (sf.flags & SF_ONEOF) {
			cur.oneof = id;
			cur.oneof_len = fl.len;
			if (depth == 1) {
				*top = fl;
				*ts = 0;
			}
		}
		/* the notification of the response member just seen */
		if (depth == 2 && fl.tag == TAG(1, WT_VARINT) &&
		    cur.msg == schema_notification)
			*ts = (int64_t)fl.v;
		if (!(sf.flags & SF_MESSAGE))
			continue;
		if (schema[sf.child].height <= 2 &&
		    depth + schema[sf.child].height <= GNMI_DECODE_MAX_DEPTH) {
			/* p is past it already */
			if (!(schema[sf.child].height == 1
				  ? validate_flat(sf.child, fl.p, fl.p + fl.len)
				  : validate_short(sf.child, fl.p,
						   fl.p + fl.len)))
				return GNMI_WIRE_MALFORMED;
			continue;
		}
		if (depth == GNMI_DECODE_MAX_DEPTH)
			return GNMI_WIRE_TOO_DEEP;
		stack[depth++ - 1] = cur;
		cur = (struct vlevel){ .end = fl.p + fl.len,
				       .field = id,
				       .msg = sf.child };
		fields = schema[cur.msg].f;
		p = fl.p;
	}
}

static void copy_text(char *buf, size_t size, const uint8_t *p, size_t len)
{
	len = cstr_span(p, len, p + len);
	if (len >= size)
		len = size - 1;
	if (len)
		memcpy(buf, p, len);
	buf[len] = '\0';
}

int gnmi_wire_parse(const uint8_t *data, size_t len,
		    struct gnmi_wire_info *info)
{
	struct field top, f;
	const uint8_t *p, *end;
	int64_t ts;
	int rc;

	memset(info, 0, sizeof *info);
	if (len == 0)
		return GNMI_WIRE_OK;
	if (data == NULL)
		return GNMI_WIRE_MALFORMED;
	rc = validate(data, len, &top, &ts);
	if (rc < 0)
		return rc;
	switch (top.tag) {
	case TAG(1, WT_LEN):
		info->kind = GNMI_WIRE_UPDATE;
		info->notification = top.p;
		info->notification_len = top.len;
		info->timestamp = ts;
		break;
	case TAG(3, WT_VARINT):
	case TAG(3, WT_64):
	case TAG(3, WT_LEN):
	case TAG(3, WT_32):
		info->kind = GNMI_WIRE_SYNC;
		info->sync_response = field_bool(&top);
		break;
	case TAG(4, WT_LEN):
		info->kind = GNMI_WIRE_ERROR;
		p = top.p;
		end = top.p + top.len;
		while (next_field(&p, end, &f)) {
			if (f.tag == TAG(1, WT_VARINT))
				info->error_code = (uint32_t)f.v;
			else if (f.tag == TAG(2, WT_LEN))
				copy_text(info->error_message,
					  sizeof info->error_message, f.p,
					  f.len);
		}
		break;
	default:
		break;
	}
	return GNMI_WIRE_OK;
}

const char *gnmi_wire_strerror(int result)
{
	switch (result) {
	case GNMI_WIRE_OK:
		return "ok";
	case GNMI_WIRE_MALFORMED:
		return "malformed message";
	case GNMI_WIRE_TOO_DEEP:
		return "message nested too deep";
	case GNMI_WIRE_UNDEFINED:
		return "message merges two empty values";
	default:
		return "unknown wire result";
	}
}

/* ---- the walk ---- */

struct wire_walk {
	struct gnmi_walk w;
	const char *origin, *target; /* the prefix's */
	const uint8_t *limit;	     /* the end of the notification */
	char porigin[GNMI_WIRE_NAME_MAX], ptarget[GNMI_WIRE_NAME_MAX];
	char uorigin[GNMI_WIRE_NAME_MAX], utarget[GNMI_WIRE_NAME_MAX];
};

/* What the Paths read so far add up to (protobuf-c's merged Path). */
struct path_acc {
	const uint8_t *limit; /* the end of the notification's bytes */
	int rc;		      /* the first refusal, 0 if none */
	size_t n_elem;	      /* PathElems */
	size_t n_element;     /* deprecated element strings */
	const uint8_t *origin, *target; /* the last ones, if any */
	size_t origin_len, target_len;
};

/*
 * One PathElem appended to the view: 0, -E2BIG. The element is appended
 * at its first key or at its end, whichever comes first, so the usual
 * name-then-keys order names it once.
 */
static ALWAYS_INLINE int add_elem(struct gnmi_walk *w, const uint8_t *p,
				  const uint8_t *end, const uint8_t *limit)
{
	const uint8_t *name = NULL;
	size_t name_len = 0;
	bool added = false;
	struct field f;
	int rc;

	while (next_field(&p, end, &f)) {
		if (f.tag == TAG(1, WT_LEN)) {
			name = f.p;
			name_len = cstr_span(f.p, f.len, limit);
			if (added)
				gnmi_walk_set_name(w, (const char *)name,
						   name_len);
		} else if (f.tag == TAG(2, WT_LEN)) {
			const uint8_t *q = f.p, *qend = f.p + f.len;
			const uint8_t *k = NULL, *v = NULL;
			size_t klen = 0, vlen = 0;
			struct field g;

			if (!added) {
				rc = gnmi_walk_add_elem(
				    w, name ? (const char *)name : "",
				    name_len);
				if (rc < 0)
					return rc;
				added = true;
			}
			while (next_field(&q, qend, &g)) {
				if (g.tag == TAG(1, WT_LEN)) {
					k = g.p;
					klen = g.len;
				} else if (g.tag == TAG(2, WT_LEN)) {
					v = g.p;
					vlen = g.len;
				}
			}
			rc = gnmi_walk_add_key(
			    w, k ? (const char *)k : "",
			    k ? cstr_span(k, klen, limit) : 0,
			    v ? (const char *)v : "",
			    v ? cstr_span(v, vlen, limit) : 0);
			if (rc < 0)
				return rc;
		}
	}
	if (added)
		return 0;
	return gnmi_walk_add_elem(w, name ? (const char *)name : "", name_len);
}

/* The PathElems, origin and target of one Path (p to end). */
static void scan_path(struct gnmi_walk *w, const uint8_t *p, const uint8_t *end,
		      struct path_acc *a)
{
	struct field f;

	while (next_field(&p, end, &f)) {
		switch (f.tag) {
		case TAG(3, WT_LEN):
			a->n_elem++;
			if (a->rc == 0)
				a->rc = add_elem(w, f.p, f.p + f.len, a->limit);
			break;
		case TAG(1, WT_LEN):
			a->n_element++;
			break;
		case TAG(2, WT_LEN):
			a->origin = f.p;
			a->origin_len = f.len;
			break;
		case TAG(4, WT_LEN):
			a->target = f.p;
			a->target_len = f.len;
			break;
		default:
			break;
		}
	}
}

/* The deprecated element strings of one Path, used when the merged
 * Path has no PathElem at all (as value.c's add_path()). */
static void scan_path_strings(struct gnmi_walk *w, const uint8_t *p,
			      const uint8_t *end, struct path_acc *a)
{
	struct field f;

	while (a->rc == 0 && next_field(&p, end, &f))
		if (f.tag == TAG(1, WT_LEN))
			a->rc = gnmi_walk_add_element_string(
			    w, (const char *)f.p,
			    cstr_span(f.p, f.len, a->limit));
}

/*
 * Appends the Path that protobuf-c makes of every occurrence of field
 * id in the message p..end (prefix, Update.path), or of the single
 * Path one..one_end when one is not NULL (a delete).
 */
static void add_paths(struct gnmi_walk *w, const uint8_t *p, const uint8_t *end,
		      uint32_t id, const uint8_t *one, const uint8_t *one_end,
		      struct path_acc *a)
{
	const uint8_t *q = p;
	struct field f;

	if (one != NULL) {
		scan_path(w, one, one_end, a);
		if (a->n_elem == 0 && a->n_element > 0)
			scan_path_strings(w, one, one_end, a);
		return;
	}
	while (next_field(&q, end, &f))
		if (f.tag == TAG(id, WT_LEN))
			scan_path(w, f.p, f.p + f.len, a);
	if (a->n_elem > 0 || a->n_element == 0)
		return;
	q = p;
	while (next_field(&q, end, &f))
		if (f.tag == TAG(id, WT_LEN))
			scan_path_strings(w, f.p, f.p + f.len, a);
}

/* A path's origin or target into buf: "" or buf, or NULL if too long. */
static const char *copy_name(char *buf, const uint8_t *p, size_t len)
{
	if (p == NULL)
		return "";
	len = cstr_span(p, len, p + len);
	if (len >= GNMI_WIRE_NAME_MAX)
		return NULL;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

/* The value a TypedValue holds: its last oneof member (tag 0: none). */
static void typed_member(const uint8_t *p, const uint8_t *end, struct field *c)
{
	struct field f;

	c->tag = 0;
	while (next_field(&p, end, &f))
		if ((f.tag >> 3) >= 1 && (f.tag >> 3) <= 14)
			*c = f;
}

/* A scalar member into *sc (as value.c's typed_scalar()). */
static bool member_scalar(const struct field *c, struct gnmi_scalar *sc)
{
	memset(sc, 0, sizeof *sc);
	switch (c->tag) {
	case TAG(1, WT_LEN):
	case TAG(12, WT_LEN):
		sc->kind = GNMI_SCALAR_STRING;
		sc->s = (const char *)c->p;
		sc->len = cstr_span(c->p, c->len, c->p + c->len);
		return true;
	case TAG(2, WT_VARINT):
		sc->kind = GNMI_SCALAR_INT;
		sc->i = (int64_t)c->v;
		return true;
	case TAG(3, WT_VARINT):
		sc->kind = GNMI_SCALAR_UINT;
		sc->u = c->v;
		return true;
	case TAG(4, WT_VARINT):
	case TAG(4, WT_64):
	case TAG(4, WT_LEN):
	case TAG(4, WT_32):
		sc->kind = GNMI_SCALAR_BOOL;
		sc->b = field_bool(c);
		return true;
	case TAG(5, WT_LEN):
		sc->kind = GNMI_SCALAR_BYTES;
		sc->s = c->len ? (const char *)c->p : NULL;
		sc->len = c->len;
		return true;
	case TAG(6, WT_32): {
		uint32_t bits = (uint32_t)c->v;
		float x;

		memcpy(&x, &bits, sizeof x);
		sc->kind = GNMI_SCALAR_DOUBLE;
		sc->d = x;
		return true;
	}
	case TAG(14, WT_64):
		sc->kind = GNMI_SCALAR_DOUBLE;
		memcpy(&sc->d, &c->v, sizeof sc->d);
		return true;
	case TAG(7, WT_LEN): {
		const uint8_t *p = c->p, *end = c->p + c->len;
		int64_t digits = 0;
		uint32_t precision = 0;
		struct field f;

		while (next_field(&p, end, &f)) {
			if (f.tag == TAG(1, WT_VARINT))
				digits = (int64_t)f.v;
			else if (f.tag == TAG(2, WT_VARINT))
				precision = (uint32_t)f.v;
		}
		gnmi_scalar_decimal(digits, precision, sc);
		return true;
	}
	default:
		return false;
	}
}

/* Reports a TypedValue's member (as value.c's walk_typed()). */
static void walk_member(struct gnmi_walk *w, const struct field *c)
{
	struct gnmi_scalar sc;

	switch (c->tag) {
	case TAG(8, WT_LEN): {
		const uint8_t *p = c->p, *end = c->p + c->len;
		struct field f, el;

		while (next_field(&p, end, &f)) {
			if (f.tag != TAG(1, WT_LEN))
				continue;
			typed_member(f.p, f.p + f.len, &el);
			if (member_scalar(&el, &sc))
				gnmi_walk_scalar(w, &sc);
			else
				w->st->unsupported++;
		}
		return;
	}
	case TAG(10, WT_LEN):
	case TAG(11, WT_LEN):
		gnmi_walk_json(w, c->p, c->len);
		return;
	default:
		/* any_val and proto_bytes need a schema we do not have */
		if (member_scalar(c, &sc))
			gnmi_walk_scalar(w, &sc);
		else
			w->st->unsupported++;
		return;
	}
}

/* The deprecated Value, merged as protobuf-c merges it. */
struct old_value {
	const uint8_t *p;
	size_t len;
	uint32_t type;
};

/* An update or delete path's own origin and target (when it has them and
 * they are C strings) replace the prefix's in the view: 0, or
 * -ENAMETOOLONG if one does not fit the walk's name buffers. */
static int take_names(struct wire_walk *ww, const struct path_acc *a)
{
	struct gnmi_walk *w = &ww->w;
	if (a->origin &&
	    cstr_span(a->origin, a->origin_len, a->origin + a->origin_len)) {
		w->v.origin = copy_name(ww->uorigin, a->origin, a->origin_len);
		if (w->v.origin == NULL)
			return -ENAMETOOLONG;
	}
	if (a->target &&
	    cstr_span(a->target, a->target_len, a->target + a->target_len)) {
		w->v.target = copy_name(ww->utarget, a->target, a->target_len);
		if (w->v.target == NULL)
			return -ENAMETOOLONG;
	}
	return 0;
}

static void walk_update(struct wire_walk *ww, const uint8_t *u,
			const uint8_t *uend, int prc, size_t n_prefix,
			size_t n_prefix_keys)
{
	struct gnmi_walk *w = &ww->w;
	const uint8_t *p = u, *path = NULL, *path_end = NULL;
	size_t n_path = 0, n_val = 0, n_value = 0;
	struct field f, val = { 0 };
	struct old_value old = { 0 };
	int rc = prc;

	while (next_field(&p, uend, &f)) {
		switch (f.tag) {
		case TAG(1, WT_LEN):
			if (n_path++ == 0) {
				path = f.p;
				path_end = f.p + f.len;
			}
			break;
		case TAG(3, WT_LEN): {
			struct field m;

			typed_member(f.p, f.p + f.len, &m);
			/* fold_val()'s rules, on the member itself */
			if (n_val++ == 0 || m.tag != 0)
				val = m;
			else if (val.tag != 0 &&
				 val_state_of(val.tag >> 3, val.len) ==
				     VAL_LOSABLE)
				val.tag = 0;
			break;
		}
		case TAG(2, WT_LEN): {
			const uint8_t *q = f.p, *qend = f.p + f.len;
			struct old_value o = { 0 };
			struct field g;

			while (next_field(&q, qend, &g)) {
				if (g.tag == TAG(1, WT_LEN)) {
					o.p = g.p;
					o.len = g.len;
				} else if (g.tag == TAG(2, WT_VARINT)) {
					o.type = (uint32_t)g.v;
				}
			}
			/* a later Value's type always wins (proto3 scalars
			 * have no presence for merge_messages()), its bytes
			 * only when not empty */
			old.type = o.type;
			if (n_value++ == 0 || o.len > 0) {
				old.p = o.p;
				old.len = o.len;
			}
			break;
		}
		default:
			break;
		}
	}
	w->v.n = n_prefix;
	w->nkeys = n_prefix_keys;
	w->v.origin = ww->origin;
	w->v.target = ww->target;
	if (rc == 0 && n_path > 0) {
		struct path_acc a = { .limit = ww->limit };

		add_paths(w, u, uend, 1, n_path == 1 ? path : NULL, path_end,
			  &a);
		rc = a.rc ? a.rc : take_names(ww, &a);
	}
	if (rc < 0) {
		gnmi_walk_bad_path(w, rc);
		return;
	}
	if (n_val > 0)
		walk_member(w, &val);
	else if (n_value > 0)
		gnmi_walk_old_value(w, (int)old.type, old.len ? old.p : NULL,
				    old.len);
	else
		w->st->unsupported++;
}

static void walk_delete(struct wire_walk *ww, const uint8_t *p,
			const uint8_t *end, int prc, size_t n_prefix,
			size_t n_prefix_keys)
{
	struct gnmi_walk *w = &ww->w;
	struct path_acc a = { .limit = ww->limit };
	int rc = prc;

	w->v.n = n_prefix;
	w->nkeys = n_prefix_keys;
	w->v.origin = ww->origin;
	w->v.target = ww->target;
	if (rc == 0) {
		add_paths(w, NULL, NULL, 0, p, end, &a);
		rc = a.rc ? a.rc : take_names(ww, &a);
	}
	if (rc < 0) {
		gnmi_walk_bad_path(w, rc);
		return;
	}
	gnmi_walk_delete(w);
}

void gnmi_wire_walk(const struct gnmi_wire_info *info, gnmi_leaf_fn leaf,
		    gnmi_delete_fn del, void *ctx, struct gnmi_walk_stats *st)
{
	struct gnmi_walk_stats dummy = { 0 };
	struct wire_walk ww;
	const uint8_t *n, *end, *p;
	struct path_acc a = { 0 };
	size_t n_prefix, n_prefix_keys, n_prefixes = 0, n_deletes = 0;
	struct field f;
	int prc;

	if (info->kind != GNMI_WIRE_UPDATE || info->notification == NULL)
		return;
	n = info->notification;
	end = n + info->notification_len;
	gnmi_walk_init(&ww.w, leaf, del, ctx, st ? st : &dummy);
	ww.limit = end;
	a.limit = end;
	ww.origin = "";
	ww.target = "";
	for (p = n; next_field(&p, end, &f);) {
		if (f.tag == TAG(2, WT_LEN))
			n_prefixes++;
		else if (f.tag == TAG(5, WT_LEN))
			n_deletes++;
	}
	if (n_prefixes > 0) {
		add_paths(&ww.w, n, end, 2, NULL, NULL, &a);
		ww.origin = copy_name(ww.porigin, a.origin, a.origin_len);
		ww.target = copy_name(ww.ptarget, a.target, a.target_len);
		if (a.rc == 0 && (ww.origin == NULL || ww.target == NULL))
			a.rc = -ENAMETOOLONG;
		if (ww.origin == NULL)
			ww.origin = "";
		if (ww.target == NULL)
			ww.target = "";
	}
	prc = a.rc;
	n_prefix = ww.w.v.n;
	n_prefix_keys = ww.w.nkeys;
	for (p = n; next_field(&p, end, &f);)
		if (f.tag == TAG(4, WT_LEN))
			walk_update(&ww, f.p, f.p + f.len, prc, n_prefix,
				    n_prefix_keys);
	for (p = n; n_deletes > 0 && next_field(&p, end, &f);)
		if (f.tag == TAG(5, WT_LEN))
			walk_delete(&ww, f.p, f.p + f.len, prc, n_prefix,
				    n_prefix_keys);
}
