/*
 * gnmi_target encode: how published leaves become gNMI messages. Get
 * responses are built as protobuf-c Notifications (gt_note_fill) and
 * packed by protobuf-c; stream notifications are packed by hand by the
 * stream encoder (gt_pack_stream_note), byte for byte the same. Both
 * borrow from the leaves, so they run with the target's mutex held.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "target_int.h"

#include "mem.h"

#include <grpc/byte_buffer.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON values at least this long are sent by reference (see the
 * stream encoder), shorter ones copied. */
#define GT_REF_MIN 512

/* The shortest %g text that reads back as d. */
static void format_double(char *buf, size_t len, double d)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

static char *json_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(n * 6 + 3);
	char *p = out;
	*p++ = '"';
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			*p++ = '\\';
			*p++ = (char)ch;
		} else if (ch == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else if (ch == '\t') {
			*p++ = '\\';
			*p++ = 't';
		} else if (ch < 0x20) {
			p += sprintf(p, "\\u%04x", ch);
		} else {
			*p++ = (char)ch;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

/*
 * The JSON text of a scalar. RFC 7951 (JSON_IETF) writes 64-bit
 * integers and decimal64 as strings; our integers are 64-bit and our
 * doubles stand for decimal64, so JSON_IETF quotes all of them.
 * Non-finite doubles have no JSON number form and become strings.
 */
static char *json_text(const struct gt_value *v, bool ietf)
{
	char num[64];
	switch (v->type) {
	case GT_UINT:
		snprintf(num, sizeof num, "%" PRIu64, v->u);
		break;
	case GT_INT:
		snprintf(num, sizeof num, "%" PRId64, v->i);
		break;
	case GT_DOUBLE:
		if (isnan(v->d))
			return xstrdup("\"NaN\"");
		if (isinf(v->d))
			return xstrdup(v->d > 0 ? "\"Infinity\""
						: "\"-Infinity\"");
		format_double(num, sizeof num, v->d);
		break;
	case GT_BOOL:
		return xstrdup(v->b ? "true" : "false");
	case GT_STRING:
		return json_quote(v->s);
	case GT_JSON:
		return xstrdup(v->s);
	case GT_NONE:
		return xstrdup("null");
	}
	return ietf ? xasprintf("\"%s\"", num) : xstrdup(num);
}

/*
 * Fills tv with v in encoding enc. Text it allocates goes to *text
 * (NULL if none), to be freed once the message is packed; strings are
 * otherwise borrowed from v.
 */
static void typed_value_set(Gnmi__TypedValue *tv, const struct gt_value *v,
			    int enc, char **text)
{
	*text = NULL;
	if (enc == GNMI__ENCODING__PROTO) {
		switch (v->type) {
		case GT_UINT:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
			tv->uint_val = v->u;
			return;
		case GT_INT:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_INT_VAL;
			tv->int_val = v->i;
			return;
		case GT_DOUBLE:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL;
			tv->double_val = v->d;
			return;
		case GT_BOOL:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_BOOL_VAL;
			tv->bool_val = v->b;
			return;
		case GT_STRING:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
			tv->string_val = v->s;
			return;
		case GT_JSON:
		case GT_NONE:
			break;
		}
	}
	ProtobufCBinaryData data;
	if (v->type == GT_JSON) {
		data.len = v->len;
		data.data = (uint8_t *)v->s;
	} else {
		*text = json_text(v, enc != GNMI__ENCODING__JSON);
		data.len = strlen(*text);
		data.data = (uint8_t *)*text;
	}
	if (enc == GNMI__ENCODING__JSON) {
		tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL;
		tv->json_val = data;
	} else {
		tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
		tv->json_ietf_val = data;
	}
}

static bool elem_equal(const struct gnmi_path_elem *a,
		       const struct gnmi_path_elem *b)
{
	if (strcmp(a->name, b->name) != 0 || a->n_keys != b->n_keys)
		return false;
	for (size_t i = 0; i < a->n_keys; i++)
		if (strcmp(a->keys[i].name, b->keys[i].name) != 0 ||
		    strcmp(a->keys[i].value, b->keys[i].value) != 0)
			return false;
	return true;
}

/* Can these leaves go relative to the request prefix, which then goes
 * in the notification? Only if each starts with exactly its elements
 * (a prefix that omits keys would lose them). */
static bool note_relative(const struct gt_prefix *pfx, const struct gt_entry *e,
			  size_t n)
{
	if (!pfx->relative_ok)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct gnmi_path *lp = &e[i].leaf->path;
		if (lp->n_elem < pfx->path.n_elem)
			return false;
		for (size_t k = 0; k < pfx->path.n_elem; k++)
			if (!elem_equal(&pfx->path.elem[k], &lp->elem[k]))
				return false;
	}
	return true;
}

void gt_note_fill(struct gt_note *no, const struct gt_prefix *pfx,
		  const struct gt_entry *e, size_t n, int enc, int64_t ts)
{
	memset(no, 0, sizeof *no);
	gnmi__notification__init(&no->n);
	no->n.timestamp = ts;
	size_t skip = 0;
	if (note_relative(pfx, e, n)) {
		no->n.prefix = pfx->full;
		skip = pfx->path.n_elem;
	} else if (pfx->has_bare) {
		no->n.prefix = (Gnmi__Path *)&pfx->bare;
	}
	no->ups = xcalloc(n + 1, sizeof *no->ups);
	no->upp = xcalloc(n + 1, sizeof *no->upp);
	no->tvs = xcalloc(n + 1, sizeof *no->tvs);
	no->paths = xcalloc(n + 1, sizeof *no->paths);
	no->dels = xcalloc(n + 1, sizeof *no->dels);
	no->texts = xcalloc(n + 1, sizeof *no->texts);
	for (size_t i = 0; i < n; i++) {
		const struct gnmi_target_leaf *l = e[i].leaf;
		Gnmi__Path *p = &no->paths[i];
		*p = *l->pb;
		p->elem += skip;
		p->n_elem -= skip;
		if (e[i].del) {
			no->dels[no->n.n_delete_++] = p;
			continue;
		}
		size_t j = no->n.n_update++;
		gnmi__update__init(&no->ups[j]);
		gnmi__typed_value__init(&no->tvs[j]);
		typed_value_set(&no->tvs[j], &l->pub, enc,
				&no->texts[no->n_texts]);
		if (no->texts[no->n_texts])
			no->n_texts++;
		no->ups[j].path = p;
		no->ups[j].val = &no->tvs[j];
		no->upp[j] = &no->ups[j];
	}
	no->n.update = no->upp;
	no->n.delete_ = no->dels;
}

void gt_note_clear(struct gt_note *no)
{
	for (size_t i = 0; i < no->n_texts; i++)
		free(no->texts[i]);
	free(no->texts);
	free(no->ups);
	free(no->upp);
	free(no->tvs);
	free(no->paths);
	free(no->dels);
}

/*
 * The stream encoder. A sample round of a big switch is thousands of
 * updates of a few hundred bytes of JSON each, sent every second on
 * each of a thousand streams, so building the protobuf-c tree and
 * packing it (sizing every field, copying every text) was most of the
 * loop thread's time. This writes the same bytes that packing the
 * SubscribeResponse gt_note_fill() builds would (the same fields in the
 * same order, protobuf-c's rules for what is omitted), but by hand:
 * leaf paths are packed once and cached on the leaf, prefixes once per
 * stream, and long JSON values are not copied at all: the message is a
 * list of slices, the framing bytes (and short values) in one buffer
 * and each long JSON text by reference to the refcounted slice it was
 * set in. Other values go through protobuf-c's TypedValue packing.
 */

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A length-delimited field of len bytes (field numbers below 16: a
 * one-byte key), all told; and its key and length. */
static size_t ld_size(size_t len)
{
	return 1 + varint_len(len) + len;
}

static uint8_t *put_ld(uint8_t *p, unsigned field, size_t len)
{
	*p++ = (uint8_t)(field << 3 | 2);
	return put_varint(p, len);
}

/* l's path without its first skip elements, packed (cached). */
static const uint8_t *leaf_packed_path(struct gnmi_target_leaf *l, size_t skip,
				       size_t *len)
{
	if (!l->pk || l->pk_skip != skip) {
		Gnmi__Path p = *l->pb;
		p.elem += skip;
		p.n_elem -= skip;
		size_t n = gnmi__path__get_packed_size(&p);
		l->pk = xrealloc(l->pk, n + 1);
		gnmi__path__pack(&p, l->pk);
		l->pk_len = n;
		l->pk_skip = skip;
	}
	*len = l->pk_len;
	return l->pk;
}

/* JSON values go by reference, but for short ones a slice of their
 * own costs more than a copy; typed_value_set puts them in json_val for
 * the JSON encoding and in json_ietf_val for the others. */
static bool value_by_ref(const struct gt_value *v)
{
	return v->type == GT_JSON && v->len >= GT_REF_MIN;
}

/* Copied as JSON straight into the framing (no protobuf-c either). */
static bool value_json_copy(const struct gt_value *v)
{
	return v->type == GT_JSON && v->len > 0 && v->len < GT_REF_MIN;
}

static unsigned json_field(int enc)
{
	return enc == GNMI__ENCODING__JSON ? 10 : 11;
}

/* A value packed by protobuf-c, kept from the sizing pass for the
 * writing pass (buf NULL for the values the encoder writes itself). */
struct gt_tv {
	uint8_t *buf;
	size_t len;
};

/* The writing pass: the framing goes to the arena, and the pieces go
 * straight into the buffer's slice list, each with its own reference. */
struct gt_frame {
	grpc_slice arena;
	uint8_t *base, *p, *from;
	grpc_slice_buffer *sb;
};

/* The sizing pass over the entries: the bytes of their update and
 * delete fields in the Notification, of which *by_ref bytes are values
 * sent by reference. Values packed by protobuf-c are kept in tv. */
static size_t entries_size(const struct gt_entry *e, size_t n, size_t skip,
			   int enc, struct gt_tv *tv, size_t *by_ref)
{
	size_t note = 0;
	for (size_t i = 0; i < n; i++) {
		size_t plen;
		leaf_packed_path(e[i].leaf, skip, &plen);
		if (e[i].del) {
			note += ld_size(plen);
			continue;
		}
		const struct gt_value *v = &e[i].leaf->pub;
		size_t tvl;
		if (value_by_ref(v)) {
			tvl = ld_size(v->len);
			*by_ref += v->len;
		} else if (value_json_copy(v)) {
			tvl = ld_size(v->len);
		} else {
			Gnmi__TypedValue t;
			char *text;
			gnmi__typed_value__init(&t);
			typed_value_set(&t, v, enc, &text);
			tv[i].len = gnmi__typed_value__get_packed_size(&t);
			tv[i].buf = xmalloc(tv[i].len + 1);
			gnmi__typed_value__pack(&t, tv[i].buf);
			free(text);
			tvl = tv[i].len;
		}
		note += ld_size(ld_size(plen) + ld_size(tvl));
	}
	return note;
}

/* Writes the update field of the entry e (not a delete). */
static void put_update(struct gt_frame *f, const struct gt_entry *e,
		       size_t skip, int enc, const struct gt_tv *tv)
{
	uint8_t *p = f->p;
	const struct gt_value *v = &e->leaf->pub;
	size_t plen;
	const uint8_t *path = leaf_packed_path(e->leaf, skip, &plen);
	bool ref = value_by_ref(v), copy = value_json_copy(v);
	size_t tvl = ref || copy ? ld_size(v->len) : tv->len;
	p = put_ld(p, 4, ld_size(plen) + ld_size(tvl));
	p = put_ld(p, 1, plen);
	memcpy(p, path, plen);
	p += plen;
	p = put_ld(p, 3, tvl);
	if (copy) {
		p = put_ld(p, json_field(enc), v->len);
		memcpy(p, v->s, v->len);
		p += v->len;
	} else if (!ref) {
		memcpy(p, tv->buf, tv->len);
		p += tv->len;
	} else {
		p = put_ld(p, json_field(enc), v->len);
		grpc_slice_buffer_add(
		    f->sb, grpc_slice_sub(f->arena, (size_t)(f->from - f->base),
					  (size_t)(p - f->base)));
		grpc_slice_buffer_add(f->sb, grpc_slice_sub(v->sl, 0, v->len));
		f->from = p;
	}
	f->p = p;
}

/* A SubscribeResponse whose update is the Notification of the n
 * entries e (as gt_note_fill() and gnmi_pack_message() would make it). */
grpc_byte_buffer *gt_pack_stream_note(const struct gt_prefix *pfx,
				      const struct gt_entry *e, size_t n,
				      int enc, int64_t ts)
{
	size_t skip = 0;
	const uint8_t *pre = NULL;
	size_t pre_len = 0;
	if (note_relative(pfx, e, n)) {
		pre = pfx->pk_full;
		pre_len = pfx->pk_full_len;
		skip = pfx->path.n_elem;
	} else if (pfx->has_bare) {
		pre = pfx->pk_bare;
		pre_len = pfx->pk_bare_len;
	}
	/* Sizes: the Notification, and the bytes of framing (all but the
	 * values sent by reference). */
	struct gt_tv *tv = xcalloc(n, sizeof *tv);
	size_t note = 0, by_ref = 0;
	if (ts)
		note += 1 + varint_len((uint64_t)ts);
	if (pre)
		note += ld_size(pre_len);
	note += entries_size(e, n, skip, enc, tv, &by_ref);
	size_t total = ld_size(note);
	size_t frame = total - by_ref;
	struct gt_frame f;
	f.arena = grpc_slice_malloc_large(frame ? frame : 1);
	f.base = f.p = f.from = GRPC_SLICE_START_PTR(f.arena);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(NULL, 0);
	f.sb = &bb->data.raw.slice_buffer;
	uint8_t *p = put_ld(f.p, 1, note);
	if (ts) {
		*p++ = 1 << 3; /* timestamp, varint */
		p = put_varint(p, (uint64_t)ts);
	}
	if (pre) {
		p = put_ld(p, 2, pre_len);
		memcpy(p, pre, pre_len);
		p += pre_len;
	}
	f.p = p;
	/* protobuf-c packs every update (4), then every delete (5). */
	for (size_t i = 0; i < n; i++)
		if (!e[i].del)
			put_update(&f, &e[i], skip, enc, &tv[i]);
	p = f.p;
	for (size_t i = 0; i < n; i++) {
		if (!e[i].del)
			continue;
		size_t plen;
		const uint8_t *path = leaf_packed_path(e[i].leaf, skip, &plen);
		p = put_ld(p, 5, plen);
		memcpy(p, path, plen);
		p += plen;
	}
	if (p > f.from)
		grpc_slice_buffer_add(
		    f.sb, grpc_slice_sub(f.arena, (size_t)(f.from - f.base),
					 (size_t)(p - f.base)));
	grpc_slice_unref(f.arena);
	for (size_t i = 0; i < n; i++)
		free(tv[i].buf);
	free(tv);
	return bb;
}
