/*
 * check_gnmi_decode: bounded protobuf decoding. The arena refuses past
 * its budget and reuses its memory after a reset; the depth pre-scan
 * measures real messages and stops hostile nesting (5,000 levels, which
 * would overflow protobuf-c's recursion) without recursing itself;
 * amplification hits the budget instead of the heap; broken input is
 * MALFORMED, oversized input TOO_LARGE; and a real SubscribeResponse
 * decodes to what was packed.
 */
#include "config.h"

#include "decode.h"
#include "gnmi.pb-c.h"
#include "value.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024 * 1024)

START_TEST(test_arena_refuses_past_its_budget)
{
	struct gnmi_arena *a = gnmi_arena_new(1000);
	ProtobufCAllocator *pa = gnmi_arena_allocator(a);
	void *p, *q;

	ck_assert_uint_eq(gnmi_arena_used(a), 0);
	p = pa->alloc(pa->allocator_data, 600);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
	memset(p, 1, 600);
	ck_assert_uint_ge(gnmi_arena_used(a), 600);
	ck_assert_ptr_null(pa->alloc(pa->allocator_data, 600));
	ck_assert_ptr_null(pa->alloc(pa->allocator_data, SIZE_MAX));
	q = pa->alloc(pa->allocator_data, 100);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq((uintptr_t)q % _Alignof(max_align_t), 0);
	ck_assert_uint_le(gnmi_arena_used(a), 1000);
	pa->free(pa->allocator_data, p); /* a no-op */
	gnmi_arena_free(a);
	gnmi_arena_free(NULL);
}
END_TEST

START_TEST(test_arena_reset_reuses_its_memory)
{
	struct gnmi_arena *a = gnmi_arena_new(4 * MiB);
	ProtobufCAllocator *pa = gnmi_arena_allocator(a);
	void *first = NULL;
	size_t held = 0;

	for (int round = 0; round < 5; round++) {
		/* many small allocations over several chunks, and big ones */
		for (int i = 0; i < 10000; i++) {
			void *p = pa->alloc(pa->allocator_data, 40);

			ck_assert_ptr_nonnull(p);
			memset(p, 0xee, 40);
			if (i == 0 && round == 0)
				first = p;
			else if (i == 0)
				ck_assert_ptr_eq(p, first);
		}
		void *big = pa->alloc(pa->allocator_data, 1 * MiB);
		ck_assert_ptr_nonnull(big);
		memset(big, 0xdd, 1 * MiB);
		if (round == 0)
			held = gnmi_arena_held(a);
		ck_assert_uint_eq(gnmi_arena_held(a), held);
		ck_assert_uint_ge(gnmi_arena_used(a), 400000 + 1 * MiB);
		gnmi_arena_reset(a);
		ck_assert_uint_eq(gnmi_arena_used(a), 0);
		/* the big block went back to the system; chunks stay */
		ck_assert_uint_lt(gnmi_arena_held(a), held);
		ck_assert_uint_ge(gnmi_arena_held(a), 400000);
	}
	gnmi_arena_free(a);
}
END_TEST

/* Bytes built back to front, so that lengths are known when written. */
struct wbuf {
	uint8_t *buf;
	size_t cap;
	size_t start; /* data is buf[start..cap) */
};

static void wb_init(struct wbuf *w, size_t cap)
{
	w->buf = malloc(cap);
	w->cap = cap;
	w->start = cap;
}

static size_t wb_len(const struct wbuf *w)
{
	return w->cap - w->start;
}

static void wb_prepend(struct wbuf *w, const void *p, size_t n)
{
	ck_assert_uint_ge(w->start, n);
	w->start -= n;
	memcpy(w->buf + w->start, p, n);
}

static void wb_prepend_varint(struct wbuf *w, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	wb_prepend(w, t, n);
}

/* Wraps everything so far as length-delimited field `field`. */
static void wb_wrap(struct wbuf *w, unsigned field)
{
	wb_prepend_varint(w, wb_len(w));
	wb_prepend_varint(w, (uint64_t)field << 3 | 2);
}

/*
 * A SubscribeResponse whose update's value nests leaflist_val (field 8)
 * -> ScalarArray.element (field 1) -> TypedValue until the message is
 * `depth` levels deep (SubscribeResponse 1, Notification 2, Update 3,
 * TypedValue 4, then two levels per leaflist).
 */
static struct wbuf deep_response(unsigned depth)
{
	static const uint8_t uint_one[] = { 0x18, 0x01 }; /* uint_val = 1 */
	struct wbuf w;

	ck_assert_uint_ge(depth, 4);
	ck_assert_uint_eq(depth % 2, 0);
	wb_init(&w, (size_t)depth * 8 + 64);
	wb_prepend(&w, uint_one, sizeof uint_one);
	for (unsigned d = 4; d < depth; d += 2) {
		wb_wrap(&w, 1); /* ScalarArray.element */
		wb_wrap(&w, 8); /* TypedValue.leaflist_val */
	}
	wb_wrap(&w, 3); /* Update.val */
	wb_wrap(&w, 4); /* Notification.update */
	wb_wrap(&w, 1); /* SubscribeResponse.update */
	return w;
}

START_TEST(test_depth_scan_of_normal_messages)
{
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	Gnmi__Notification n = GNMI__NOTIFICATION__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT;
	Gnmi__PathElem pe = GNMI__PATH_ELEM__INIT, *pep = &pe;
	Gnmi__PathElem__KeyEntry ke = GNMI__PATH_ELEM__KEY_ENTRY__INIT,
				 *kep = &ke;
	uint8_t buf[256];
	size_t len;

	/* a sync_response is one level; an empty message too */
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
	r.sync_response = 1;
	len = gnmi__subscribe_response__pack(&r, buf);
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, buf, len,
			      32),
	    1);
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, NULL, 0,
			      32),
	    1);
	/* response -> notification -> path -> elem -> key entry: 5 */
	ke.key = "name";
	ke.value = "Ethernet0";
	pe.name = "interface";
	pe.n_key = 1;
	pe.key = &kep;
	prefix.n_elem = 1;
	prefix.elem = &pep;
	n.prefix = &prefix;
	n.timestamp = 1700000000000000000;
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
	r.update = &n;
	len = gnmi__subscribe_response__pack(&r, buf);
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, buf, len,
			      32),
	    5);
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, buf, len,
			      4),
	    GNMI_DECODE_TOO_DEEP);
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, buf, len,
			      0),
	    GNMI_DECODE_TOO_DEEP);
	/* an unknown length-delimited field is skipped, whatever it holds */
	static const uint8_t unknown[] = { 0x7a, 0x03, 0xff, 0xff, 0xff };
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, unknown,
			      sizeof unknown, 32),
	    1);
}
END_TEST

START_TEST(test_depth_scan_skips_packed_repeated_fields)
{
	Gnmi__CapabilityResponse c = GNMI__CAPABILITY_RESPONSE__INIT;
	Gnmi__Encoding enc[] = { GNMI__ENCODING__JSON, GNMI__ENCODING__PROTO,
				 GNMI__ENCODING__JSON_IETF };
	Gnmi__ModelData md = GNMI__MODEL_DATA__INIT, *mdp = &md;
	uint8_t buf[256];
	size_t len;
	struct gnmi_arena *a = gnmi_arena_new(1 * MiB);
	ProtobufCMessage *m;

	c.n_supported_encodings = 3;
	c.supported_encodings = enc;
	c.n_supported_models = 1;
	c.supported_models = &mdp;
	md.name = "openconfig-interfaces";
	c.gnmi_version = "0.10.0";
	len = gnmi__capability_response__pack(&c, buf);
	/* proto3 packs repeated enums: one length-delimited field */
	ck_assert_ptr_nonnull(memchr(buf, 2 << 3 | 2, len));
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__capability_response__descriptor, buf, len,
			      32),
	    2);
	ck_assert_int_eq(gnmi_decode(&gnmi__capability_response__descriptor,
				     buf, len, 4 * MiB, a, &m),
			 GNMI_DECODE_OK);
	Gnmi__CapabilityResponse *d = (Gnmi__CapabilityResponse *)m;
	ck_assert_uint_eq(d->n_supported_encodings, 3);
	ck_assert_int_eq(d->supported_encodings[2], GNMI__ENCODING__JSON_IETF);
	ck_assert_str_eq(d->supported_models[0]->name, "openconfig-interfaces");
	gnmi_arena_free(a);
}
END_TEST

/*
 * 5,000 levels is past what protobuf-c survives in a decode thread (it
 * needs about 0.9 KB of stack per level); 50,000 levels (190 KB) crash
 * even an 8 MiB main stack when unpacked directly.
 */
START_TEST(test_deep_nesting_is_too_deep_without_overflowing_the_stack)
{
	static const unsigned depths[] = { 5000, 50000 };
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);

	for (size_t i = 0; i < 2; i++) {
		struct wbuf w = deep_response(depths[i]);
		ProtobufCMessage *m = (ProtobufCMessage *)&w;
		const ProtobufCMessageDescriptor *d =
		    &gnmi__subscribe_response__descriptor;

		ck_assert_uint_lt(wb_len(&w), 4 * MiB); /* under any limit */
		ck_assert_int_eq(gnmi_decode_depth(d, w.buf + w.start,
						   wb_len(&w),
						   GNMI_DECODE_MAX_DEPTH),
				 GNMI_DECODE_TOO_DEEP);
		/* asking for more than the cap stays iterative and bounded */
		ck_assert_int_eq(
		    gnmi_decode_depth(d, w.buf + w.start, wb_len(&w), 100000),
		    GNMI_DECODE_TOO_DEEP);
		ck_assert_int_eq(
		    gnmi_decode(d, w.buf + w.start, wb_len(&w), 4 * MiB, a, &m),
		    GNMI_DECODE_TOO_DEEP);
		ck_assert_ptr_null(m);
		ck_assert_uint_eq(gnmi_arena_used(a), 0); /* no unpack ran */
		free(w.buf);
	}
	gnmi_arena_free(a);
}
END_TEST

START_TEST(test_moderate_nesting_decodes)
{
	struct wbuf w = deep_response(20);
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);
	ProtobufCMessage *m;
	Gnmi__SubscribeResponse *r;
	Gnmi__TypedValue *tv;
	unsigned levels = 0;

	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor,
			      w.buf + w.start, wb_len(&w), 32),
	    20);
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     w.buf + w.start, wb_len(&w), 4 * MiB, a,
				     &m),
			 GNMI_DECODE_OK);
	r = (Gnmi__SubscribeResponse *)m;
	ck_assert_int_eq(r->response_case,
			 GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
	tv = r->update->update[0]->val;
	while (tv->value_case == GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL) {
		ck_assert_uint_eq(tv->leaflist_val->n_element, 1);
		tv = tv->leaflist_val->element[0];
		levels++;
	}
	ck_assert_uint_eq(levels, 8);
	ck_assert_uint_eq(tv->uint_val, 1);
	/* a nested leaflist is not a scalar: the walk counts it */
	struct gnmi_walk_stats st = { 0 };
	gnmi_walk_notification(r->update, NULL, NULL, NULL, &st);
	ck_assert_uint_eq(st.leaves, 0);
	ck_assert_uint_eq(st.unsupported, 1);
	free(w.buf);
	gnmi_arena_free(a);
}
END_TEST

START_TEST(test_amplification_hits_the_budget_not_the_heap)
{
	const size_t n_updates = 1000000; /* 2 MB of empty Updates */
	struct wbuf w;
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);
	ProtobufCMessage *m;

	wb_init(&w, 2 * n_updates + 16);
	for (size_t i = 0; i < n_updates; i++)
		wb_prepend(&w, "\x22\x00", 2); /* Notification.update = {} */
	wb_wrap(&w, 1);
	ck_assert_uint_lt(wb_len(&w), 4 * MiB);
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     w.buf + w.start, wb_len(&w), 4 * MiB, a,
				     &m),
			 GNMI_DECODE_BUDGET);
	ck_assert_ptr_null(m);
	ck_assert_uint_le(gnmi_arena_used(a), 16 * MiB);
	ck_assert_uint_le(gnmi_arena_held(a), 17 * MiB);
	/* the arena is usable again after a reset */
	gnmi_arena_reset(a);
	static const uint8_t sync[] = { 0x18, 0x01 };
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     sync, sizeof sync, 4 * MiB, a, &m),
			 GNMI_DECODE_OK);
	ck_assert(((Gnmi__SubscribeResponse *)m)->sync_response);
	free(w.buf);
	gnmi_arena_free(a);
}
END_TEST

/* A SubscribeResponse with some of everything, packed into *len bytes. */
static uint8_t *sample_response(size_t *len)
{
	static char *json = "{\"in-octets\":\"42\",\"state\":{\"up\":true}}";
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	Gnmi__Notification n = GNMI__NOTIFICATION__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT, p[3];
	Gnmi__PathElem e[3], *ep[3];
	Gnmi__PathElem__KeyEntry ke = GNMI__PATH_ELEM__KEY_ENTRY__INIT,
				 *kep = &ke;
	Gnmi__PathElem pe = GNMI__PATH_ELEM__INIT, *pep = &pe;
	Gnmi__Update u[3], *up[3];
	Gnmi__TypedValue tv[3], el[2], *elp[2];
	Gnmi__ScalarArray arr = GNMI__SCALAR_ARRAY__INIT;
	Gnmi__Path del = GNMI__PATH__INIT, *delp = &del;
	static char *names[] = { "in-pkts", "counters", "servers" };
	uint8_t *buf;

	ke.key = "name";
	ke.value = "Ethernet1/1";
	pe.name = "interface";
	pe.n_key = 1;
	pe.key = &kep;
	prefix.n_elem = 1;
	prefix.elem = &pep;
	prefix.origin = "openconfig";
	prefix.target = "leaf1";
	for (int i = 0; i < 3; i++) {
		p[i] = (Gnmi__Path)GNMI__PATH__INIT;
		e[i] = (Gnmi__PathElem)GNMI__PATH_ELEM__INIT;
		e[i].name = names[i];
		ep[i] = &e[i];
		p[i].n_elem = 1;
		p[i].elem = &ep[i];
		u[i] = (Gnmi__Update)GNMI__UPDATE__INIT;
		tv[i] = (Gnmi__TypedValue)GNMI__TYPED_VALUE__INIT;
		u[i].path = &p[i];
		u[i].val = &tv[i];
		up[i] = &u[i];
	}
	tv[0].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	tv[0].uint_val = 1234567890123ULL;
	tv[1].value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	tv[1].json_ietf_val.data = (uint8_t *)json;
	tv[1].json_ietf_val.len = strlen(json);
	for (int i = 0; i < 2; i++) {
		el[i] = (Gnmi__TypedValue)GNMI__TYPED_VALUE__INIT;
		el[i].value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
		el[i].string_val = i ? "10.0.0.2" : "10.0.0.1";
		elp[i] = &el[i];
	}
	arr.n_element = 2;
	arr.element = elp;
	tv[2].value_case = GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL;
	tv[2].leaflist_val = &arr;
	del.n_elem = 1;
	del.elem = &ep[0];
	n.timestamp = 1700000000123456789;
	n.prefix = &prefix;
	n.n_update = 3;
	n.update = up;
	n.n_delete_ = 1;
	n.delete_ = &delp;
	n.atomic = 1;
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
	r.update = &n;
	*len = gnmi__subscribe_response__get_packed_size(&r);
	buf = malloc(*len);
	ck_assert_uint_eq(gnmi__subscribe_response__pack(&r, buf), *len);
	return buf;
}

START_TEST(test_truncated_and_garbage_input_is_malformed)
{
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);
	ProtobufCMessage *m;
	size_t len;
	uint8_t *good = sample_response(&len);

	/* every cut of a one-field message breaks that field */
	for (size_t n = 1; n < len; n++) {
		uint8_t *cut = malloc(n); /* exact size: ASan sees overreads */

		memcpy(cut, good, n);
		gnmi_arena_reset(a);
		ck_assert_msg(gnmi_decode(&gnmi__subscribe_response__descriptor,
					  cut, n, 4 * MiB, a,
					  &m) == GNMI_DECODE_MALFORMED,
			      "cut at %zu of %zu", n, len);
		free(cut);
	}
	static const struct {
		const char *what;
		size_t len;
		const uint8_t *data;
	} bad[] = {
		{ "11-byte varint", 12,
		  (const uint8_t *)"\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff"
				   "\xff\x01" },
		{ "varint past 64 bits", 11,
		  (const uint8_t *)"\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff"
				   "\x02" },
		{ "field 0", 2, (const uint8_t *)"\x00\x01" },
		{ "group start", 2, (const uint8_t *)"\x0b\x0c" },
		{ "wire type 7", 2, (const uint8_t *)"\x0f\x00" },
		{ "tag over 32 bits", 6,
		  (const uint8_t *)"\xf8\xff\xff\xff\x7f\x00" },
		{ "6-byte tag", 7,
		  (const uint8_t *)"\x98\x80\x80\x80\x80\x00\x01" },
		{ "length past the end", 3, (const uint8_t *)"\x0a\x05\x00" },
		{ "huge length", 7,
		  (const uint8_t *)"\x0a\xff\xff\xff\xff\x0f\x00" },
		{ "message field as varint", 2, (const uint8_t *)"\x08\x01" },
		{ "fixed64 cut", 4, (const uint8_t *)"\x79\x01\x02\x03" },
		{ "fixed32 cut", 3, (const uint8_t *)"\x7d\x01\x02" },
		{ "inner length past outer", 6,
		  (const uint8_t *)"\x0a\x02\x12\x05\x00\x00" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint8_t *copy = malloc(bad[i].len);

		memcpy(copy, bad[i].data, bad[i].len);
		gnmi_arena_reset(a);
		ck_assert_msg(gnmi_decode(&gnmi__subscribe_response__descriptor,
					  copy, bad[i].len, 4 * MiB, a,
					  &m) == GNMI_DECODE_MALFORMED,
			      "%s", bad[i].what);
		ck_assert_ptr_null(m);
		free(copy);
	}
	/* wire format the pre-scan passes but protobuf-c refuses: the
	 * string PathElem.name sent as a varint */
	static const uint8_t wrong_type[] = { 0x0a, 0x06, 0x12, 0x04,
					      0x1a, 0x02, 0x08, 0x01 };
	ck_assert_int_eq(
	    gnmi_decode_depth(&gnmi__subscribe_response__descriptor, wrong_type,
			      sizeof wrong_type, 32),
	    4);
	gnmi_arena_reset(a);
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     wrong_type, sizeof wrong_type, 4 * MiB, a,
				     &m),
			 GNMI_DECODE_MALFORMED);
	free(good);
	gnmi_arena_free(a);
}
END_TEST

START_TEST(test_size_limit_is_too_large)
{
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);
	ProtobufCMessage *m = (ProtobufCMessage *)a;
	size_t len;
	uint8_t *good = sample_response(&len);

	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     good, len, len - 1, a, &m),
			 GNMI_DECODE_TOO_LARGE);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor,
				     good, len, len, a, &m),
			 GNMI_DECODE_OK);
	free(good);
	gnmi_arena_free(a);
}
END_TEST

START_TEST(test_round_trip_equals_the_original)
{
	struct gnmi_arena *a = gnmi_arena_new(16 * MiB);
	ProtobufCMessage *m;
	size_t len, len2;
	uint8_t *good = sample_response(&len), *again;
	Gnmi__SubscribeResponse *r;
	Gnmi__Notification *n;

	for (int round = 0; round < 3; round++) {
		gnmi_arena_reset(a);
		ck_assert_int_eq(
		    gnmi_decode(&gnmi__subscribe_response__descriptor, good,
				len, 4 * MiB, a, &m),
		    GNMI_DECODE_OK);
		ck_assert_uint_gt(gnmi_arena_used(a), 0);
		r = (Gnmi__SubscribeResponse *)m;
		ck_assert_int_eq(r->response_case,
				 GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
		n = r->update;
		ck_assert_int_eq(n->timestamp, 1700000000123456789);
		ck_assert(n->atomic);
		ck_assert_str_eq(n->prefix->origin, "openconfig");
		ck_assert_str_eq(n->prefix->target, "leaf1");
		ck_assert_str_eq(n->prefix->elem[0]->key[0]->value,
				 "Ethernet1/1");
		ck_assert_uint_eq(n->n_update, 3);
		ck_assert_uint_eq(n->update[0]->val->uint_val,
				  1234567890123ULL);
		ck_assert_str_eq(
		    n->update[2]->val->leaflist_val->element[1]->string_val,
		    "10.0.0.2");
		ck_assert_uint_eq(n->n_delete_, 1);
		/* packing the decoded message gives the same bytes */
		len2 = protobuf_c_message_get_packed_size(m);
		ck_assert_uint_eq(len2, len);
		again = malloc(len2);
		ck_assert_uint_eq(protobuf_c_message_pack(m, again), len);
		ck_assert_mem_eq(again, good, len);
		free(again);
		/* and it walks */
		struct gnmi_walk_stats st = { 0 };
		gnmi_walk_notification(n, NULL, NULL, NULL, &st);
		ck_assert_uint_eq(st.leaves, 1 + 2 + 2);
		ck_assert_uint_eq(st.deletes, 1);
	}
	free(good);
	gnmi_arena_free(a);
}
END_TEST

START_TEST(test_strerror_names_every_result)
{
	ck_assert_str_eq(gnmi_decode_strerror(GNMI_DECODE_OK), "ok");
	ck_assert_str_eq(gnmi_decode_strerror(GNMI_DECODE_TOO_LARGE),
			 "message too large");
	ck_assert_str_eq(gnmi_decode_strerror(GNMI_DECODE_TOO_DEEP),
			 "message nested too deep");
	ck_assert_str_eq(gnmi_decode_strerror(GNMI_DECODE_MALFORMED),
			 "malformed message");
	ck_assert_str_eq(gnmi_decode_strerror(GNMI_DECODE_BUDGET),
			 "message needs more memory than the decode budget");
	ck_assert_str_eq(gnmi_decode_strerror(-99), "unknown decode result");
}
END_TEST

static Suite *gnmi_decode_suite(void)
{
	Suite *s = suite_create("gnmi_decode");
	TCase *ta = tcase_create("arena");
	TCase *td = tcase_create("decode");

	tcase_add_test(ta, test_arena_refuses_past_its_budget);
	tcase_add_test(ta, test_arena_reset_reuses_its_memory);
	suite_add_tcase(s, ta);
	tcase_add_test(td, test_depth_scan_of_normal_messages);
	tcase_add_test(td, test_depth_scan_skips_packed_repeated_fields);
	tcase_add_test(
	    td, test_deep_nesting_is_too_deep_without_overflowing_the_stack);
	tcase_add_test(td, test_moderate_nesting_decodes);
	tcase_add_test(td, test_amplification_hits_the_budget_not_the_heap);
	tcase_add_test(td, test_truncated_and_garbage_input_is_malformed);
	tcase_add_test(td, test_size_limit_is_too_large);
	tcase_add_test(td, test_round_trip_equals_the_original);
	tcase_add_test(td, test_strerror_names_every_result);
	tcase_set_timeout(td, 60); /* sanitizer builds are slow */
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_decode_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
