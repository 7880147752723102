/*
 * check_gnmi_wire: the in-place SubscribeResponse walker against the
 * decoded path it replaces.
 *
 * Differential equivalence: for each message (built with protobuf-c,
 * or byte by byte where protobuf-c cannot write it: unknown fields,
 * repeated singular fields, NULs in strings), the leaves (view printed
 * with gnmi_view_format, target, scalar), deletes, walk counts, kind,
 * sync_response, timestamp and error text from gnmi_wire_parse() +
 * gnmi_wire_walk() equal those from gnmi_decode() +
 * gnmi_walk_notification(). The messages cover every TypedValue kind,
 * JSON and JSON_IETF values (the SONiC fixtures in tests/data/sonic-gnmi
 * among them), prefixes with origin and target, deprecated element
 * strings and Update.value, deletes, sync_response, the deprecated
 * error, extensions and unknown fields, the view's bounds, and
 * protobuf-c's merges of repeated singular sub-messages.
 *
 * Malformed input: every truncation of a valid message, bad varints,
 * tags and lengths, a wrong wire type for every field the walker reads,
 * groups, and leaflist nesting 5,000 levels deep are refused exactly
 * when gnmi_decode() refuses them, and never crash (the sanitizer build
 * checks the reads). Finally gnmi_mapper_apply_wire() maps Arista and
 * SONiC data into a store exactly as gnmi_mapper_apply() does, and a
 * profile loads from a buffer (gnmi_profile_load_buffer()).
 *
 * Fixtures are found through $top_srcdir (set by make check), else ".".
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* the tests build deprecated kinds */
#include "decode.h"
#include "gnmi.pb-c.h"
#include "path.h"
#include "profile.h"
#include "store.h"
#include "value.h"
#include "wire.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEC INT64_C(1000000000)
#define T0  (INT64_C(1704067200) * SEC)

/* ---- a byte-level protobuf writer ---- */

struct wb {
	uint8_t *b;
	size_t n, cap;
};

static void wb_put(struct wb *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->b = realloc(w->b, w->cap);
		ck_assert_ptr_nonnull(w->b);
	}
	if (n)
		memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void wb_varint(struct wb *w, uint64_t v)
{
	uint8_t c;

	while (v >= 0x80) {
		c = (uint8_t)(v | 0x80);
		wb_put(w, &c, 1);
		v >>= 7;
	}
	c = (uint8_t)v;
	wb_put(w, &c, 1);
}

static void wb_tag(struct wb *w, unsigned id, unsigned wt)
{
	wb_varint(w, (uint64_t)id << 3 | wt);
}

static void wb_bytes(struct wb *w, unsigned id, const void *p, size_t n)
{
	wb_tag(w, id, 2);
	wb_varint(w, n);
	wb_put(w, p, n);
}

static void wb_str(struct wb *w, unsigned id, const char *s)
{
	wb_bytes(w, id, s, strlen(s));
}

static void wb_sub(struct wb *w, unsigned id, const struct wb *sub)
{
	wb_bytes(w, id, sub->b, sub->n);
}

static void wb_uint(struct wb *w, unsigned id, uint64_t v)
{
	wb_tag(w, id, 0);
	wb_varint(w, v);
}

static void wb_fixed(struct wb *w, unsigned id, uint64_t v, unsigned size)
{
	uint8_t b[8];

	wb_tag(w, id, size == 8 ? 1 : 5);
	for (unsigned i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	wb_put(w, b, size);
}

static void wb_reset(struct wb *w)
{
	w->n = 0;
}

static void wb_free(struct wb *w)
{
	free(w->b);
	*w = (struct wb){ 0 };
}

/* A PathElem with up to two keys (NULL for none). */
static void wb_elem(struct wb *path, const char *name, const char *k1,
		    const char *v1, const char *k2, const char *v2)
{
	struct wb e = { 0 }, k = { 0 };

	wb_str(&e, 1, name);
	if (k1) {
		wb_str(&k, 1, k1);
		wb_str(&k, 2, v1);
		wb_sub(&e, 2, &k);
		wb_reset(&k);
	}
	if (k2) {
		wb_str(&k, 1, k2);
		wb_str(&k, 2, v2);
		wb_sub(&e, 2, &k);
	}
	wb_sub(path, 3, &e);
	wb_free(&e);
	wb_free(&k);
}

/* A SubscribeResponse with notification n: resp = { update: n }. */
static void wb_response(struct wb *resp, const struct wb *n)
{
	wb_reset(resp);
	wb_sub(resp, 1, n);
}

/* ---- recording what a walk reports ---- */

struct rec {
	char *b;
	size_t n, cap;
};

static void rec_put(struct rec *r, const void *p, size_t n)
{
	if (r->n + n + 1 > r->cap) {
		r->cap = (r->n + n + 1) * 2 + 256;
		r->b = realloc(r->b, r->cap);
		ck_assert_ptr_nonnull(r->b);
	}
	memcpy(r->b + r->n, p, n);
	r->n += n;
	r->b[r->n] = '\0';
}

__attribute__((format(printf, 2, 3))) static void
rec_printf(struct rec *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	rec_put(r, buf, (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
}

static void rec_view(struct rec *r, const struct gnmi_view *v)
{
	size_t need = gnmi_view_format(v, NULL, 0);
	char *buf = malloc(need + 1);

	ck_assert_uint_eq(gnmi_view_format(v, buf, need + 1), need);
	rec_put(r, buf, need);
	rec_printf(r, " @%s", v->target);
	free(buf);
}

static void on_leaf(void *ctx, const struct gnmi_view *v,
		    const struct gnmi_scalar *s)
{
	struct rec *r = ctx;
	uint64_t bits;

	memcpy(&bits, &s->d, sizeof bits);
	rec_put(r, "L ", 2);
	rec_view(r, v);
	rec_printf(r, " k%d u%llu i%lld d%llx b%d ", (int)s->kind,
		   (unsigned long long)s->u, (long long)s->i,
		   (unsigned long long)bits, (int)s->b);
	if (s->s == NULL) {
		rec_printf(r, "s- %zu", s->len);
	} else {
		rec_printf(r, "s%zu:", s->len);
		for (size_t i = 0; i < s->len; i++)
			rec_printf(r, "%02x", (unsigned char)s->s[i]);
	}
	rec_put(r, "\n", 1);
}

static void on_delete(void *ctx, const struct gnmi_view *v)
{
	struct rec *r = ctx;

	rec_put(r, "D ", 2);
	rec_view(r, v);
	rec_put(r, "\n", 1);
}

/* What one path (decode or wire) made of a message. */
struct outcome {
	int rc; /* 0, or the path's negative result */
	enum gnmi_wire_kind kind;
	bool sync;
	int64_t ts;
	char error[GNMI_WIRE_ERROR_MAX];
	struct gnmi_walk_stats st;
	struct rec r;
};

static struct gnmi_arena *arena;

static void via_decode(const uint8_t *d, size_t n, struct outcome *o)
{
	ProtobufCMessage *m;

	memset(o, 0, sizeof *o);
	gnmi_arena_reset(arena);
	o->rc = gnmi_decode(&gnmi__subscribe_response__descriptor, d, n,
			    64u << 20, arena, &m);
	if (o->rc != GNMI_DECODE_OK)
		return;
	const Gnmi__SubscribeResponse *r = (const Gnmi__SubscribeResponse *)m;
	switch (r->response_case) {
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE:
		o->kind = GNMI_WIRE_UPDATE;
		o->ts = r->update->timestamp;
		gnmi_walk_notification(r->update, on_leaf, on_delete, &o->r,
				       &o->st);
		break;
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE:
		o->kind = GNMI_WIRE_SYNC;
		o->sync = r->sync_response;
		break;
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_ERROR:
		o->kind = GNMI_WIRE_ERROR;
		snprintf(o->error, sizeof o->error, "%s",
			 r->error->message ? r->error->message : "");
		break;
	default:
		break;
	}
}

static void via_wire(const uint8_t *d, size_t n, struct outcome *o)
{
	struct gnmi_wire_info info;

	memset(o, 0, sizeof *o);
	o->rc = gnmi_wire_parse(d, n, &info);
	if (o->rc != GNMI_WIRE_OK) {
		ck_assert_int_eq(info.kind, GNMI_WIRE_NONE);
		/* a refused message reports nothing */
		gnmi_wire_walk(&info, on_leaf, on_delete, &o->r, &o->st);
		ck_assert_uint_eq(o->r.n, 0);
		return;
	}
	o->kind = info.kind;
	o->sync = info.sync_response;
	o->ts = info.timestamp;
	memcpy(o->error, info.error_message, sizeof o->error);
	gnmi_wire_walk(&info, on_leaf, on_delete, &o->r, &o->st);
}

static uint64_t checked, checked_ok;

/*
 * Both paths on d: they accept alike and, when they accept, report
 * alike. Returns whether the message was accepted.
 */
static bool same(const uint8_t *d, size_t n)
{
	struct outcome a, b;
	bool ok;

	via_decode(d, n, &a);
	via_wire(d, n, &b);
	if ((a.rc == 0) != (b.rc == 0)) {
		char hex[3 * 96 + 1] = "";

		for (size_t i = 0; i < n && i < 96; i++)
			snprintf(hex + 3 * i, 4, "%02x ", d[i]);
		ck_abort_msg("decode %d, wire %d on a %zu-byte message: %s",
			     a.rc, b.rc, n, hex);
	}
	ok = a.rc == 0;
	checked++;
	checked_ok += ok;
	if (ok) {
		ck_assert_int_eq(a.kind, b.kind);
		ck_assert_int_eq(a.sync, b.sync);
		ck_assert_int_eq(a.ts, b.ts);
		ck_assert_str_eq(a.error, b.error);
		ck_assert_msg(
		    a.r.n == b.r.n &&
			(a.r.n == 0 || memcmp(a.r.b, b.r.b, a.r.n) == 0),
		    "decode reported:\n%s\nwire reported:\n%s",
		    a.r.b ? a.r.b : "", b.r.b ? b.r.b : "");
		ck_assert_uint_eq(a.st.leaves, b.st.leaves);
		ck_assert_uint_eq(a.st.deletes, b.st.deletes);
		ck_assert_uint_eq(a.st.bad_json, b.st.bad_json);
		ck_assert_uint_eq(a.st.too_deep, b.st.too_deep);
		ck_assert_uint_eq(a.st.unsupported, b.st.unsupported);
	}
	free(a.r.b);
	free(b.r.b);
	return ok;
}

/* same() on a response whose notification is n, expected valid; the
 * leaves reported are returned. */
static uint64_t same_notification(const struct wb *n)
{
	struct wb r = { 0 };
	struct outcome o;

	wb_response(&r, n);
	ck_assert(same(r.b, r.n));
	via_wire(r.b, r.n, &o);
	free(o.r.b);
	wb_free(&r);
	return o.st.leaves;
}

static void setup(void)
{
	arena = gnmi_arena_new(256u << 20);
}

static void teardown(void)
{
	gnmi_arena_free(arena);
	arena = NULL;
}

/* ---- messages built with protobuf-c ---- */

static uint8_t *pack(const Gnmi__SubscribeResponse *r, size_t *len)
{
	*len = gnmi__subscribe_response__get_packed_size(r);
	uint8_t *b = malloc(*len ? *len : 1);
	gnmi__subscribe_response__pack(r, b);
	return b;
}

static Gnmi__Path *pb_path(const char *s)
{
	struct gnmi_path p;
	char err[128];

	ck_assert_msg(gnmi_path_parse(s, &p, err, sizeof err) == 0, "%s", err);
	Gnmi__Path *pb = gnmi_path_to_pb(&p);
	gnmi_path_clear(&p);
	return pb;
}

#define MAXU 64

/* A notification of updates built one by one. */
struct pbn {
	Gnmi__Notification n;
	Gnmi__Update u[MAXU];
	Gnmi__Update *up[MAXU];
	Gnmi__TypedValue tv[MAXU];
	Gnmi__Path *paths[MAXU + 1];
	size_t n_paths;
};

static void pbn_init(struct pbn *b, const char *prefix, int64_t ts)
{
	memset(b, 0, sizeof *b);
	gnmi__notification__init(&b->n);
	b->n.timestamp = ts;
	b->n.update = b->up;
	if (prefix) {
		b->n.prefix = pb_path(prefix);
		b->paths[b->n_paths++] = b->n.prefix;
	}
}

static Gnmi__TypedValue *pbn_add(struct pbn *b, const char *path)
{
	size_t i = b->n.n_update++;

	ck_assert_uint_lt(i, MAXU);
	gnmi__update__init(&b->u[i]);
	gnmi__typed_value__init(&b->tv[i]);
	if (path) {
		b->u[i].path = pb_path(path);
		b->paths[b->n_paths++] = b->u[i].path;
	}
	b->u[i].val = &b->tv[i];
	b->up[i] = &b->u[i];
	return &b->tv[i];
}

static void pbn_free(struct pbn *b)
{
	for (size_t i = 0; i < b->n_paths; i++)
		gnmi_path_pb_free(b->paths[i]);
}

/* same() on the packed notification; returns the leaves reported. */
static uint64_t pbn_same(struct pbn *b)
{
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	struct outcome o;
	size_t len;

	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
	r.update = &b->n;
	uint8_t *msg = pack(&r, &len);
	ck_assert(same(msg, len));
	via_wire(msg, len, &o);
	free(o.r.b);
	free(msg);
	return o.st.leaves;
}

START_TEST(test_every_typed_value_kind_matches_decode)
{
	static char s_str[] = "up", s_ascii[] = "ascii text", s_empty[] = "";
	static uint8_t bytes[] = { 0, 1, 2, 0xff };
	static char json[] =
	    "{\"in-octets\": \"12\", \"openconfig-if:out\": 3}";
	static char json_ietf[] = "[{\"name\": \"a\", \"v\": 1}, {\"v\": 2}]";
	Gnmi__Decimal64 dec[4] = { GNMI__DECIMAL64__INIT, GNMI__DECIMAL64__INIT,
				   GNMI__DECIMAL64__INIT,
				   GNMI__DECIMAL64__INIT };
	Gnmi__ScalarArray arr = GNMI__SCALAR_ARRAY__INIT;
	Gnmi__ScalarArray inner = GNMI__SCALAR_ARRAY__INIT;
	Gnmi__TypedValue el[5], *elp[5];
	Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
	struct pbn b;
	Gnmi__TypedValue *tv;

	pbn_init(&b, "openconfig:/interfaces/interface[name=Ethernet1]", T0);
	b.n.prefix->target = strdup("leaf1"); /* freed with the path */
	tv = pbn_add(&b, "/state/name");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	tv->string_val = s_str;
	tv = pbn_add(&b, "/state/empty");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	tv->string_val = s_empty;
	tv = pbn_add(&b, "/state/counters/in-octets");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	tv->uint_val = UINT64_MAX;
	tv = pbn_add(&b, "/state/counters/out-octets");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	tv->uint_val = 0;
	tv = pbn_add(&b, "/state/mtu");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_INT_VAL;
	tv->int_val = INT64_MIN;
	tv = pbn_add(&b, "/state/enabled");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_BOOL_VAL;
	tv->bool_val = 1;
	tv = pbn_add(&b, "/state/raw");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_BYTES_VAL;
	tv->bytes_val.data = bytes;
	tv->bytes_val.len = sizeof bytes;
	tv = pbn_add(&b, "/state/raw-empty");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_BYTES_VAL;
	tv = pbn_add(&b, "/state/float");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_FLOAT_VAL;
	tv->float_val = 1.5f;
	tv = pbn_add(&b, "/state/double");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL;
	tv->double_val = -0.1;
	dec[0].digits = 12345;
	dec[0].precision = 2;
	dec[1].digits = -7;
	dec[2].digits = 5;
	dec[2].precision = 45;
	dec[3].digits = 9;
	dec[3].precision = UINT32_MAX; /* a few steps, not 195 million */
	for (int i = 0; i < 4; i++) {
		tv = pbn_add(&b, "/state/decimal");
		tv->value_case = GNMI__TYPED_VALUE__VALUE_DECIMAL_VAL;
		tv->decimal_val = &dec[i];
	}
	for (int i = 0; i < 5; i++) {
		gnmi__typed_value__init(&el[i]);
		elp[i] = &el[i];
	}
	el[0].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	el[0].uint_val = 1;
	el[1].value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	el[1].string_val = s_str;
	el[2].value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL; /* unsupported */
	el[2].json_val.data = (uint8_t *)json;
	el[2].json_val.len = strlen(json);
	el[3].value_case = GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL;
	inner.n_element = 1;
	inner.element = elp;	     /* el[0] */
	el[3].leaflist_val = &inner; /* nested: unsupported */
	/* el[4] has no value: unsupported */
	arr.n_element = 5;
	arr.element = elp;
	tv = pbn_add(&b, "/state/list");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL;
	tv->leaflist_val = &arr;
	any.type_url = (char *)"type.googleapis.com/x";
	tv = pbn_add(&b, "/state/any");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_ANY_VAL;
	tv->any_val = &any;
	tv = pbn_add(&b, "/state/json");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL;
	tv->json_val.data = (uint8_t *)json;
	tv->json_val.len = strlen(json);
	tv = pbn_add(&b, "/state/json-ietf");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	tv->json_ietf_val.data = (uint8_t *)json_ietf;
	tv->json_ietf_val.len = strlen(json_ietf);
	tv = pbn_add(&b, "/state/json-empty");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL;
	tv = pbn_add(&b, "/state/json-bad");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	tv->json_ietf_val.data = (uint8_t *)json;
	tv->json_ietf_val.len = 5;
	tv = pbn_add(&b, "/state/ascii");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_ASCII_VAL;
	tv->ascii_val = s_ascii;
	tv = pbn_add(&b, "/state/proto");
	tv->value_case = GNMI__TYPED_VALUE__VALUE_PROTO_BYTES;
	tv->proto_bytes.data = bytes;
	tv->proto_bytes.len = sizeof bytes;
	tv = pbn_add(&b, "/state/none");
	b.u[b.n.n_update - 1].val = NULL; /* no value at all */
	(void)tv;
	ck_assert_uint_ge(pbn_same(&b), 20);
	pbn_free(&b);
}
END_TEST

static char *read_fixture(const char *rel, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", top && *top ? top : ".", rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

START_TEST(test_sonic_json_fixtures_match_decode)
{
	static const char *const files[] = {
		"tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt",
		"tests/data/sonic-gnmi/COUNTERS_Ethernet68_Pfcwd.txt",
		"tests/data/sonic-gnmi/COUNTERS_Ethernet68_Queues.txt",
		"tests/data/sonic-gnmi/COUNTERS_Ethernet_wildcard_Queues.txt",
		"tests/data/sonic-gnmi/COUNTERS_PORT_NAME_MAP.txt",
	};
	uint64_t leaves = 0;

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t len;
		char *text = read_fixture(files[i], &len);
		struct wb n = { 0 }, p = { 0 }, u = { 0 }, v = { 0 };

		/* json_ietf_val, json_val and the old Value, as SONiC's
		 * telemetry sends them (origin and target in the prefix) */
		wb_uint(&n, 1, (uint64_t)T0);
		wb_str(&p, 2, "COUNTERS_DB");
		wb_str(&p, 4, "COUNTERS_DB");
		wb_elem(&p, "COUNTERS", NULL, NULL, NULL, NULL);
		wb_sub(&n, 2, &p);
		for (unsigned kind = 0; kind < 3; kind++) {
			struct wb path = { 0 };

			wb_reset(&u);
			wb_reset(&v);
			wb_elem(&path, "Ethernet68", NULL, NULL, NULL, NULL);
			wb_sub(&u, 1, &path);
			if (kind < 2) {
				wb_bytes(&v, kind == 0 ? 11 : 10, text, len);
				wb_sub(&u, 3, &v);
			} else {
				wb_bytes(&v, 1, text, len);
				wb_uint(&v, 2, 4); /* JSON_IETF */
				wb_sub(&u, 2, &v);
			}
			wb_sub(&n, 4, &u);
			wb_free(&path);
		}
		leaves += same_notification(&n);
		wb_free(&n);
		wb_free(&p);
		wb_free(&u);
		wb_free(&v);
		free(text);
	}
	ck_assert_uint_gt(leaves, 300);
}
END_TEST

START_TEST(test_prefix_origin_target_and_path_override_match)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, path = { 0 }, v = { 0 };

	wb_uint(&n, 1, 42);
	wb_str(&p, 2, "openconfig");
	wb_str(&p, 4, "spine1");
	wb_elem(&p, "interfaces", NULL, NULL, NULL, NULL);
	/* keys out of order on the wire: sorted in the view */
	wb_elem(&p, "interface", "zz", "1", "name", "Ethernet1/1");
	wb_sub(&n, 2, &p);
	wb_uint(&v, 3, 7);
	/* an update path with its own origin and target */
	wb_str(&path, 2, "rfc7951");
	wb_str(&path, 4, "leaf9");
	wb_elem(&path, "state", NULL, NULL, NULL, NULL);
	wb_sub(&u, 1, &path);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	/* an empty origin does not override */
	wb_reset(&u);
	wb_reset(&path);
	wb_str(&path, 2, "");
	wb_elem(&path, "counters", "a", "1", "a", "0");
	wb_sub(&u, 1, &path);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	/* no path: the prefix alone */
	wb_reset(&u);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	ck_assert_uint_eq(same_notification(&n), 3);
	wb_free(&n);
	wb_free(&p);
	wb_free(&u);
	wb_free(&path);
	wb_free(&v);
}
END_TEST

START_TEST(test_deprecated_element_strings_and_old_value_match)
{
	static const char *const elements[] = {
		"interfaces", "interface[name=Ethernet1][b=2]",
		"state",      "bad[x",
		"esc\\aped",  "k[a=1]tail",
		"[=]",	      "n[k=v]]",
		"",
	};
	static const unsigned types[] = { 0, 1, 2, 3, 4, 9 };
	uint64_t leaves = 0;

	for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++) {
		for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
			struct wb n = { 0 }, path = { 0 }, u = { 0 }, v = { 0 };

			wb_str(&path, 1, "top");
			wb_str(&path, 1, elements[i]);
			wb_sub(&u, 1, &path);
			wb_str(&v, 1, t == 0 || t == 4 ? "{\"a\": 1}" : "xyz");
			wb_uint(&v, 2, types[t]);
			wb_sub(&u, 2, &v);
			wb_sub(&n, 4, &u);
			/* element strings are ignored once a PathElem is
			 * there */
			wb_reset(&u);
			wb_elem(&path, "mixed", NULL, NULL, NULL, NULL);
			wb_sub(&u, 1, &path);
			wb_sub(&u, 2, &v);
			wb_sub(&n, 4, &u);
			leaves += same_notification(&n);
			wb_free(&n);
			wb_free(&path);
			wb_free(&u);
			wb_free(&v);
		}
	}
	ck_assert_uint_gt(leaves, 20);
}
END_TEST

START_TEST(test_deletes_sync_error_and_empty_match)
{
	struct wb n = { 0 }, p = { 0 }, d = { 0 }, r = { 0 }, e = { 0 };
	struct outcome o;

	wb_elem(&p, "qos", NULL, NULL, NULL, NULL);
	wb_sub(&n, 2, &p);
	wb_elem(&d, "queue", "name", "q1", NULL, NULL);
	wb_sub(&n, 5, &d);
	wb_reset(&d);
	wb_str(&d, 2, "other");
	wb_str(&d, 1, "old[k=v]");
	wb_sub(&n, 5, &d);
	wb_reset(&d);
	wb_str(&d, 1, "bad[");
	wb_sub(&n, 5, &d);
	wb_sub(&n, 5, &(struct wb){ 0 }); /* the prefix itself */
	same_notification(&n);
	via_wire(r.b, 0, &o);
	ck_assert_int_eq(o.kind, GNMI_WIRE_NONE);

	/* sync_response true and false, then the deprecated error */
	for (uint64_t v = 0; v < 3; v++) {
		wb_reset(&r);
		wb_uint(&r, 3, v);
		ck_assert(same(r.b, r.n));
		via_wire(r.b, r.n, &o);
		ck_assert_int_eq(o.kind, GNMI_WIRE_SYNC);
		ck_assert_int_eq(o.sync, v != 0);
	}
	wb_uint(&e, 1, 14);
	wb_str(&e, 2, "first");
	wb_str(&e, 2, "target is going down");
	wb_reset(&r);
	wb_sub(&r, 4, &e);
	ck_assert(same(r.b, r.n));
	via_wire(r.b, r.n, &o);
	ck_assert_int_eq(o.kind, GNMI_WIRE_ERROR);
	ck_assert_str_eq(o.error, "target is going down");
	/* the last member of the oneof wins */
	wb_uint(&r, 3, 1);
	ck_assert(same(r.b, r.n));
	wb_sub(&r, 1, &n);
	ck_assert(same(r.b, r.n));
	ck_assert(same((const uint8_t *)"", 0));
	wb_free(&n);
	wb_free(&p);
	wb_free(&d);
	wb_free(&r);
	wb_free(&e);
}
END_TEST

/* Unknown fields of every wire type, appended to a message. */
static void wb_unknown(struct wb *w)
{
	wb_uint(w, 99, 1);
	wb_fixed(w, 100, 0x1122334455667788ull, 8);
	wb_fixed(w, 101, 0x11223344, 4);
	wb_str(w, 102, "ignored");
	wb_uint(w, 1000000, UINT64_MAX);
}

START_TEST(test_unknown_fields_and_extensions_are_skipped)
{
	struct wb r = { 0 }, n = { 0 }, p = { 0 }, u = { 0 }, v = { 0 };
	struct wb x = { 0 }, reg = { 0 }, ma = { 0 }, role = { 0 }, h = { 0 };
	struct wb tr = { 0 }, path = { 0 };

	wb_unknown(&p);
	wb_elem(&p, "a", "k", "v", NULL, NULL);
	wb_uint(&n, 3, 5); /* the removed alias, as a varint */
	wb_sub(&n, 2, &p);
	wb_elem(&path, "b", NULL, NULL, NULL, NULL);
	wb_unknown(&path);
	wb_sub(&u, 1, &path);
	wb_uint(&v, 3, 11);
	wb_unknown(&v);
	wb_sub(&u, 3, &v);
	wb_uint(&u, 4, 2); /* duplicates */
	wb_unknown(&u);
	wb_sub(&n, 4, &u);
	wb_uint(&n, 6, 1); /* atomic */
	wb_unknown(&n);
	/* extensions: registered, master arbitration, history */
	wb_uint(&reg, 1, 999);
	wb_str(&reg, 2, "opaque");
	wb_sub(&x, 1, &reg);
	wb_sub(&r, 5, &x);
	wb_reset(&x);
	wb_str(&role, 1, "primary");
	wb_sub(&ma, 1, &role);
	wb_sub(&x, 2, &ma);
	wb_sub(&r, 5, &x);
	wb_reset(&x);
	wb_uint(&tr, 1, 1);
	wb_uint(&tr, 2, 2);
	wb_sub(&h, 2, &tr);
	wb_sub(&x, 3, &h);
	wb_sub(&r, 5, &x);
	wb_unknown(&r);
	wb_sub(&r, 1, &n);
	wb_unknown(&r);
	ck_assert(same(r.b, r.n));
	/* a wrong wire type inside an extension is refused by both */
	wb_reset(&x);
	wb_reset(&reg);
	wb_str(&reg, 1, "999");
	wb_sub(&x, 1, &reg);
	wb_sub(&r, 5, &x);
	ck_assert(!same(r.b, r.n));
	struct wb *all[] = { &r,   &n,	&p,    &u, &v,	&x,
			     &reg, &ma, &role, &h, &tr, &path };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		wb_free(all[i]);
}
END_TEST

START_TEST(test_view_bounds_match)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, path = { 0 }, v = { 0 };
	char name[16];

	/* 40 prefix elements; paths of 8 fit, 9 do not */
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "p%d", i);
		wb_elem(&p, name, NULL, NULL, NULL, NULL);
	}
	wb_sub(&n, 2, &p);
	wb_uint(&v, 3, 1);
	for (int len = 7; len <= 10; len++) {
		wb_reset(&u);
		wb_reset(&path);
		for (int i = 0; i < len; i++)
			wb_elem(&path, "e", NULL, NULL, NULL, NULL);
		wb_sub(&u, 1, &path);
		wb_sub(&u, 3, &v);
		wb_sub(&n, 4, &u);
	}
	/* JSON that goes past the view */
	wb_reset(&u);
	wb_reset(&v);
	wb_str(&v, 10,
	       "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{"
	       "\"i\":1}}}}}}}}}");
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	same_notification(&n);

	/* 70 keys: past GNMI_VIEW_MAX_KEYS */
	wb_reset(&n);
	wb_reset(&path);
	for (int i = 0; i < 35; i++) {
		snprintf(name, sizeof name, "k%d", i);
		wb_elem(&path, "e", name, "1", "z", "2");
	}
	wb_reset(&u);
	wb_reset(&v);
	wb_uint(&v, 3, 1);
	wb_sub(&u, 1, &path);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_sub(&n, 5, &path);
	same_notification(&n);
	wb_free(&n);
	wb_free(&p);
	wb_free(&u);
	wb_free(&path);
	wb_free(&v);
}
END_TEST

START_TEST(test_nul_in_strings_cut_as_decoded)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, path = { 0 }, v = { 0 };
	struct wb e = { 0 }, k = { 0 };

	wb_bytes(&p, 2, "orig\0in", 7);
	wb_bytes(&p, 4, "\0tgt", 4);
	wb_sub(&n, 2, &p);
	wb_bytes(&e, 1, "interfa\0ce", 10);
	wb_bytes(&k, 1, "na\0me", 5);
	wb_bytes(&k, 2, "Ethernet1\0/1", 12);
	wb_sub(&e, 2, &k);
	wb_sub(&path, 3, &e);
	wb_bytes(&path, 4, "leaf\0", 5);
	wb_sub(&u, 1, &path);
	wb_bytes(&v, 1, "a\0b", 3);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_reset(&u);
	wb_reset(&v);
	wb_bytes(&v, 5, "a\0b", 3); /* bytes keep their NULs */
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_reset(&u);
	wb_reset(&path);
	wb_bytes(&path, 1, "old[k=v\0]", 9);
	wb_sub(&u, 1, &path);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	/* the element string is cut to "old[k=v": malformed */
	ck_assert_uint_eq(same_notification(&n), 2);
	struct wb *all[] = { &n, &p, &u, &path, &v, &e, &k };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		wb_free(all[i]);
}
END_TEST

/* An Update with path /a and the given raw fields appended. */
static bool merged_update_same(void (*fill)(struct wb *u))
{
	struct wb n = { 0 }, u = { 0 }, path = { 0 }, r = { 0 };
	bool ok;

	wb_elem(&path, "a", NULL, NULL, NULL, NULL);
	wb_sub(&u, 1, &path);
	fill(&u);
	wb_sub(&n, 4, &u);
	wb_response(&r, &n);
	ok = same(r.b, r.n);
	wb_free(&n);
	wb_free(&u);
	wb_free(&path);
	wb_free(&r);
	return ok;
}

static void tv_field(struct wb *u, void (*member)(struct wb *tv))
{
	struct wb tv = { 0 };

	if (member)
		member(&tv);
	wb_sub(u, 3, &tv);
	wb_free(&tv);
}

static void m_string(struct wb *tv)
{
	wb_str(tv, 1, "s");
}
static void m_ascii(struct wb *tv)
{
	wb_str(tv, 12, "a");
}
static void m_uint(struct wb *tv)
{
	wb_uint(tv, 3, 7);
}
static void m_bool(struct wb *tv)
{
	wb_uint(tv, 4, 1);
}
static void m_double(struct wb *tv)
{
	wb_fixed(tv, 14, 0x3ff8000000000000ull, 8);
}
static void m_bytes(struct wb *tv)
{
	wb_str(tv, 5, "zz");
}
static void m_bytes_empty(struct wb *tv)
{
	wb_str(tv, 5, "");
}
static void m_json_empty(struct wb *tv)
{
	wb_str(tv, 10, "");
}
static void m_json(struct wb *tv)
{
	wb_str(tv, 11, "{\"x\": 1}");
}
static void m_leaflist(struct wb *tv)
{
	struct wb a = { 0 }, el = { 0 };

	wb_uint(&el, 3, 1);
	wb_sub(&a, 1, &el);
	wb_sub(tv, 8, &a);
	wb_free(&a);
	wb_free(&el);
}
static void m_leaflist2(struct wb *tv)
{
	struct wb a = { 0 }, el = { 0 };

	wb_uint(&el, 2, 5);
	wb_sub(&a, 1, &el);
	wb_sub(&a, 1, &el);
	wb_sub(tv, 8, &a);
	wb_free(&a);
	wb_free(&el);
}
static void m_decimal(struct wb *tv)
{
	struct wb d = { 0 };

	wb_uint(&d, 1, 314);
	wb_uint(&d, 2, 2);
	wb_uint(&d, 2, 0x100000001ull); /* the last wins, cut to 32 bits */
	wb_sub(tv, 7, &d);
	wb_free(&d);
}
static void m_unknown_only(struct wb *tv)
{
	wb_uint(tv, 99, 1);
}
static void m_two_members(struct wb *tv)
{
	wb_str(tv, 1, "first");
	wb_uint(tv, 3, 9);
}

static void (*const members[])(struct wb *) = {
	m_string,    m_ascii,	    m_uint,	   m_bool, m_double,
	m_bytes,     m_bytes_empty, m_json_empty,  m_json, m_leaflist,
	m_leaflist2, m_decimal,	    m_two_members, NULL,   m_unknown_only,
};
#define N_MEMBERS (sizeof members / sizeof members[0])

static void (*pair_a)(struct wb *), (*pair_b)(struct wb *),
    (*pair_c)(struct wb *);

static void fill_pair(struct wb *u)
{
	tv_field(u, pair_a);
	tv_field(u, pair_b);
}

static void fill_triple(struct wb *u)
{
	tv_field(u, pair_a);
	tv_field(u, pair_b);
	tv_field(u, pair_c);
}

static bool is_empty_member(void (*m)(struct wb *))
{
	return m == NULL || m == m_unknown_only;
}

START_TEST(test_repeated_val_merges_as_protobuf_c)
{
	/* every pair of TypedValues in one Update: protobuf-c's merge
	 * (quirks included), except two empty ones (undefined) */
	for (size_t i = 0; i < N_MEMBERS; i++) {
		for (size_t j = 0; j < N_MEMBERS; j++) {
			pair_a = members[i];
			pair_b = members[j];
			if (is_empty_member(pair_a) && is_empty_member(pair_b))
				continue;
			ck_assert_msg(merged_update_same(fill_pair),
				      "pair %zu %zu", i, j);
		}
	}
	/* a value lost to an empty one, then merged with another empty
	 * one: undefined in protobuf-c, refused by the walker */
	pair_a = m_string;
	pair_b = NULL;
	pair_c = m_unknown_only;
	struct wb n = { 0 }, u = { 0 }, r = { 0 };
	struct outcome o;

	fill_triple(&u);
	wb_sub(&n, 4, &u);
	wb_response(&r, &n);
	via_wire(r.b, r.n, &o);
	ck_assert_int_eq(o.rc, GNMI_WIRE_UNDEFINED);
	wb_reset(&u);
	wb_reset(&n);
	pair_a = m_uint;
	fill_triple(&u);
	wb_sub(&n, 4, &u);
	wb_response(&r, &n);
	ck_assert(same(r.b, r.n));
	wb_free(&n);
	wb_free(&u);
	wb_free(&r);
}
END_TEST

static void fill_values(struct wb *u)
{
	struct wb v = { 0 };

	wb_str(&v, 1, "x");
	wb_uint(&v, 2, 3); /* ASCII */
	wb_sub(u, 2, &v);
	wb_reset(&v);
	wb_uint(&v, 2, pair_a ? 1 : 0x100000003ull);
	wb_sub(u, 2, &v);
	wb_reset(&v);
	wb_str(&v, 1, "");
	wb_sub(u, 2, &v);
	wb_free(&v);
}

static void fill_values_last_bytes(struct wb *u)
{
	struct wb v = { 0 };

	wb_str(&v, 1, "x");
	wb_str(&v, 1, "");
	wb_uint(&v, 2, 1);
	wb_sub(u, 2, &v);
	wb_reset(&v);
	wb_str(&v, 1, "{\"k\": \"v\"}");
	wb_sub(u, 2, &v);
	wb_free(&v);
}

static void fill_paths(struct wb *u)
{
	struct wb path = { 0 }, v = { 0 };

	wb_str(&path, 2, "o1");
	wb_elem(&path, "b", "k", "1", NULL, NULL);
	wb_str(&path, 1, "ignored");
	wb_sub(u, 1, &path);
	wb_reset(&path);
	wb_str(&path, 4, "t2");
	wb_elem(&path, "c", NULL, NULL, NULL, NULL);
	wb_sub(u, 1, &path);
	wb_uint(&v, 3, 1);
	wb_sub(u, 3, &v);
	wb_free(&path);
	wb_free(&v);
}

static void fill_element_paths(struct wb *u)
{
	struct wb path = { 0 }, v = { 0 };

	wb_str(&path, 1, "x[k=1]");
	wb_sub(u, 1, &path);
	wb_reset(&path);
	wb_str(&path, 1, "y");
	wb_str(&path, 2, "");
	wb_sub(u, 1, &path);
	wb_uint(&v, 3, 1);
	wb_sub(u, 3, &v);
	wb_free(&path);
	wb_free(&v);
}

START_TEST(test_repeated_singular_fields_merge_as_protobuf_c)
{
	struct wb r = { 0 }, n1 = { 0 }, n2 = { 0 }, p = { 0 }, u = { 0 };
	struct wb v = { 0 };

	/* Update.value twice or thrice: the later type always, the later
	 * bytes when not empty */
	pair_a = m_string;
	ck_assert(merged_update_same(fill_values));
	pair_a = NULL;
	ck_assert(merged_update_same(fill_values));
	ck_assert(merged_update_same(fill_values_last_bytes));
	/* Update.path twice: elements joined, strings from the last */
	ck_assert(merged_update_same(fill_paths));
	ck_assert(merged_update_same(fill_element_paths));

	/* two prefixes, two notifications (the last one wins whole) */
	wb_elem(&p, "p1", NULL, NULL, NULL, NULL);
	wb_str(&p, 2, "origin1");
	wb_sub(&n1, 2, &p);
	wb_reset(&p);
	wb_elem(&p, "p2", "i", "0", NULL, NULL);
	wb_sub(&n1, 2, &p);
	wb_uint(&v, 3, 5);
	wb_sub(&u, 3, &v);
	wb_sub(&n1, 4, &u);
	wb_uint(&n1, 1, 77);
	wb_uint(&n1, 1, 78);
	wb_uint(&n2, 1, 99);
	wb_sub(&n2, 4, &u);
	wb_sub(&r, 1, &n1);
	ck_assert(same(r.b, r.n));
	wb_sub(&r, 1, &n2);
	ck_assert(same(r.b, r.n));
	wb_sub(&r, 1, &n1);
	ck_assert(same(r.b, r.n));
	struct wb *all[] = { &r, &n1, &n2, &p, &u, &v };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		wb_free(all[i]);
}
END_TEST

/* A message with a bit of everything, for truncations and mutations. */
static void rich_message(struct wb *r)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, path = { 0 }, v = { 0 };
	struct wb x = { 0 }, reg = { 0 };

	wb_uint(&n, 1, (uint64_t)T0);
	wb_str(&p, 2, "openconfig");
	wb_str(&p, 4, "leaf1");
	wb_elem(&p, "interfaces", NULL, NULL, NULL, NULL);
	wb_elem(&p, "interface", "name", "Ethernet1", NULL, NULL);
	wb_sub(&n, 2, &p);
	wb_elem(&path, "state", NULL, NULL, NULL, NULL);
	wb_elem(&path, "counters", NULL, NULL, NULL, NULL);
	wb_elem(&path, "in-pkts", NULL, NULL, NULL, NULL);
	wb_sub(&u, 1, &path);
	wb_uint(&v, 3, 1234567);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_reset(&u);
	wb_reset(&v);
	wb_sub(&u, 1, &path);
	wb_str(&v, 11,
	       "{\"openconfig-if:a\": \"1\", \"b\": [{\"name\": "
	       "\"x\", \"c\": 2.5}]}");
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_reset(&u);
	wb_reset(&v);
	m_leaflist2(&v);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_reset(&u);
	wb_reset(&v);
	wb_str(&u, 1, "");
	m_decimal(&v);
	wb_fixed(&v, 14, 0x4000000000000000ull, 8);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_sub(&n, 5, &path);
	wb_uint(&reg, 1, 999);
	wb_str(&reg, 2, "m");
	wb_sub(&x, 1, &reg);
	wb_reset(r);
	wb_sub(r, 1, &n);
	wb_sub(r, 5, &x);
	struct wb *all[] = { &n, &p, &u, &path, &v, &x, &reg };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		wb_free(all[i]);
}

START_TEST(test_every_truncation_matches_decode)
{
	struct wb r = { 0 };
	size_t ok = 0;

	rich_message(&r);
	ck_assert(same(r.b, r.n));
	for (size_t cut = 0; cut < r.n; cut++) {
		/* a copy of exactly cut bytes, so the sanitizer sees any
		 * read past the end */
		uint8_t *c = malloc(cut ? cut : 1);

		memcpy(c, r.b, cut);
		ok += same(c, cut);
		free(c);
	}
	/* cuts at the end of the notification and 0 are valid */
	ck_assert_uint_ge(ok, 2);
	ck_assert_uint_lt(ok, r.n / 4);
	wb_free(&r);
}
END_TEST

START_TEST(test_every_byte_flip_matches_decode)
{
	struct wb r = { 0 };
	static const uint8_t xors[] = { 0x01, 0x02, 0x04, 0x07, 0x08,
					0x10, 0x40, 0x80, 0xff };

	rich_message(&r);
	for (size_t i = 0; i < r.n; i++) {
		for (size_t k = 0; k < sizeof xors; k++) {
			uint8_t *c = malloc(r.n);

			memcpy(c, r.b, r.n);
			c[i] ^= xors[k];
			(void)same(c, r.n);
			free(c);
		}
	}
	wb_free(&r);
}
END_TEST

START_TEST(test_bad_varints_tags_and_lengths_are_malformed)
{
	static const struct {
		const char *what;
		uint8_t b[16];
		size_t n;
	} cases[] = {
		{ "cut tag", { 0x80 }, 1 },
		{ "6-byte tag",
		  { 0x98, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01 },
		  7 },
		{ "tag past 32 bits",
		  { 0x98, 0x80, 0x80, 0x80, 0x70, 0x01 },
		  6 },
		{ "field 0", { 0x00, 0x01 }, 2 },
		{ "field 0 bytes", { 0x02, 0x00 }, 2 },
		{ "cut varint", { 0x18, 0x80 }, 2 },
		{ "11-byte varint",
		  { 0x18, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81,
		    0x81, 0x01 },
		  12 },
		{ "varint past 64 bits",
		  { 0x18, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81,
		    0x02 },
		  11 },
		{ "length past the end", { 0x0a, 0x05, 0x00 }, 3 },
		{ "6-byte length",
		  { 0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 },
		  7 },
		{ "huge length", { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f }, 6 },
		{ "inner length past its message",
		  { 0x0a, 0x02, 0x22, 0x05 },
		  4 },
		{ "cut fixed64", { 0x09, 1, 2, 3 }, 4 },
		{ "cut fixed32", { 0x0d, 1, 2 }, 3 },
		{ "start group", { 0x0b, 0x0c }, 2 },
		{ "end group", { 0x0c }, 1 },
		{ "wire type 6", { 0x0e, 0x00 }, 2 },
		{ "wire type 7", { 0x0f, 0x00 }, 2 },
		{ "unknown group", { 0xcb, 0x06, 0xcc, 0x06 }, 4 },
	};
	struct outcome o;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t *c = malloc(cases[i].n);

		memcpy(c, cases[i].b, cases[i].n);
		ck_assert_msg(!same(c, cases[i].n), "%s", cases[i].what);
		via_wire(c, cases[i].n, &o);
		ck_assert_msg(o.rc == GNMI_WIRE_MALFORMED, "%s: %d",
			      cases[i].what, o.rc);
		free(c);
	}
	/* a varint of exactly 10 bytes is fine */
	uint8_t ten[] = { 0x18, 0xff, 0xff, 0xff, 0xff, 0xff,
			  0xff, 0xff, 0xff, 0xff, 0x01 };
	ck_assert(same(ten, sizeof ten));
	ck_assert(!same(NULL, 5));
}
END_TEST

/* A field of the given number and wire type with a plausible body. */
static void wb_any_type(struct wb *w, unsigned id, unsigned wt)
{
	switch (wt) {
	case 0:
		wb_uint(w, id, 1);
		break;
	case 1:
		wb_fixed(w, id, 1, 8);
		break;
	case 5:
		wb_fixed(w, id, 1, 4);
		break;
	default:
		wb_str(w, id, "");
		break;
	}
}

START_TEST(test_wrong_wire_types_are_malformed)
{
	/* every field the walker reads, at its place, with each other wire
	 * type: (message path, field, right wire type) */
	static const struct {
		int level; /* 0 response, 1 notif, 2 update, 3 path, 4 elem,
			      5 key, 6 typed, 7 array, 8 decimal, 9 value,
			      10 error */
		unsigned id, wt; /* 9: any (a bool) */
	} fields[] = {
		{ 0, 1, 2 },  { 0, 3, 9 },  { 0, 4, 2 },  { 0, 5, 2 },
		{ 1, 1, 0 },  { 1, 2, 2 },  { 1, 4, 2 },  { 1, 5, 2 },
		{ 1, 6, 9 },  { 2, 1, 2 },  { 2, 2, 2 },  { 2, 3, 2 },
		{ 2, 4, 0 },  { 3, 1, 2 },  { 3, 2, 2 },  { 3, 3, 2 },
		{ 3, 4, 2 },  { 4, 1, 2 },  { 4, 2, 2 },  { 5, 1, 2 },
		{ 5, 2, 2 },  { 6, 1, 2 },  { 6, 2, 0 },  { 6, 3, 0 },
		{ 6, 4, 9 },  { 6, 5, 2 },  { 6, 6, 5 },  { 6, 7, 2 },
		{ 6, 8, 2 },  { 6, 9, 2 },  { 6, 10, 2 }, { 6, 11, 2 },
		{ 6, 12, 2 }, { 6, 13, 2 }, { 6, 14, 1 }, { 7, 1, 2 },
		{ 8, 1, 0 },  { 8, 2, 0 },  { 9, 1, 2 },  { 9, 2, 0 },
		{ 10, 1, 0 }, { 10, 2, 2 }, { 10, 3, 2 },
	};
	static const unsigned wts[] = { 0, 1, 2, 5 };
	size_t refused = 0, bools = 0;

	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		for (size_t k = 0; k < 4; k++) {
			struct wb m = { 0 }, t = { 0 };
			int level = fields[i].level;
			bool right = wts[k] == fields[i].wt;

			wb_any_type(&m, fields[i].id, wts[k]);
			/* wrap it up to the response */
			static const unsigned up[][2] = {
				{ 0, 0 }, { 1, 0 }, { 4, 1 }, { 1, 2 },
				{ 3, 3 }, { 2, 4 }, { 3, 2 }, { 8, 6 },
				{ 7, 6 }, { 2, 2 }, { 4, 0 },
			};
			while (level > 0) {
				wb_reset(&t);
				wb_sub(&t, up[level][0], &m);
				wb_reset(&m);
				wb_put(&m, t.b, t.n);
				level = (int)up[level][1];
			}
			bool ok = same(m.b, m.n);
			if (fields[i].wt == 9) {
				/* protobuf-c reads a bool of any wire type */
				ck_assert(ok);
				bools++;
			} else if (!right) {
				ck_assert_msg(
				    !ok, "field %u.%u as wire type %u",
				    fields[i].level, fields[i].id, wts[k]);
				refused++;
			}
			wb_free(&m);
			wb_free(&t);
		}
	}
	ck_assert_uint_eq(bools, 3 * 4);
	ck_assert_uint_eq(refused, 3 * (sizeof fields / sizeof fields[0] - 3));
}
END_TEST

/* A response whose one update's value is a leaflist nested depth
 * times (depth 0: a plain uint). */
static void nested_leaflist(struct wb *r, int depth)
{
	struct wb tv = { 0 }, t = { 0 }, u = { 0 }, n = { 0 };

	wb_uint(&tv, 3, 1);
	for (int i = 0; i < depth; i++) {
		wb_reset(&t);
		wb_sub(&t, 1, &tv); /* ScalarArray.element */
		wb_reset(&tv);
		wb_sub(&tv, 8, &t); /* TypedValue.leaflist_val */
	}
	wb_sub(&u, 3, &tv);
	wb_sub(&n, 4, &u);
	wb_response(r, &n);
	wb_free(&tv);
	wb_free(&t);
	wb_free(&u);
	wb_free(&n);
}

START_TEST(test_deep_leaflist_nesting_is_refused)
{
	struct wb r = { 0 };
	struct outcome o;
	int last_ok = -1;

	nested_leaflist(&r, 5000);
	via_wire(r.b, r.n, &o);
	ck_assert_int_eq(o.rc, GNMI_WIRE_TOO_DEEP);
	ck_assert(!same(r.b, r.n));
	/* the limit is gnmi_decode()'s, to the level */
	for (int d = 0; d < 20; d++) {
		nested_leaflist(&r, d);
		if (same(r.b, r.n))
			last_ok = d;
	}
	ck_assert_int_eq(last_ok, (GNMI_DECODE_MAX_DEPTH - 4) / 2);
	wb_free(&r);
}
END_TEST

START_TEST(test_parse_reports_kind_and_strerror_names_results)
{
	struct wb r = { 0 }, n = { 0 }, e = { 0 };
	struct gnmi_wire_info info;
	char long_msg[600];

	wb_uint(&n, 1, (uint64_t)-5);
	wb_sub(&r, 1, &n);
	ck_assert_int_eq(gnmi_wire_parse(r.b, r.n, &info), GNMI_WIRE_OK);
	ck_assert_int_eq(info.kind, GNMI_WIRE_UPDATE);
	ck_assert_int_eq(info.timestamp, -5);
	memset(long_msg, 'x', sizeof long_msg - 1);
	long_msg[sizeof long_msg - 1] = '\0';
	wb_str(&e, 2, long_msg);
	wb_reset(&r);
	wb_sub(&r, 4, &e);
	ck_assert_int_eq(gnmi_wire_parse(r.b, r.n, &info), GNMI_WIRE_OK);
	ck_assert_int_eq(info.kind, GNMI_WIRE_ERROR);
	ck_assert_uint_eq(strlen(info.error_message), GNMI_WIRE_ERROR_MAX - 1);
	ck_assert_str_eq(gnmi_wire_strerror(GNMI_WIRE_OK), "ok");
	ck_assert_str_eq(gnmi_wire_strerror(GNMI_WIRE_MALFORMED),
			 "malformed message");
	ck_assert_str_eq(gnmi_wire_strerror(GNMI_WIRE_TOO_DEEP),
			 "message nested too deep");
	ck_assert_ptr_nonnull(
	    strstr(gnmi_wire_strerror(GNMI_WIRE_UNDEFINED), "empty"));
	ck_assert_str_eq(gnmi_wire_strerror(-99), "unknown wire result");
	wb_free(&r);
	wb_free(&n);
	wb_free(&e);
}
END_TEST

START_TEST(test_long_origin_is_counted_unsupported)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, v = { 0 }, r = { 0 };
	char origin[GNMI_WIRE_NAME_MAX + 10];
	struct outcome o;

	memset(origin, 'o', sizeof origin - 1);
	origin[sizeof origin - 1] = '\0';
	wb_str(&p, 2, origin);
	wb_sub(&n, 2, &p);
	wb_uint(&v, 3, 1);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_response(&r, &n);
	via_wire(r.b, r.n, &o);
	ck_assert_int_eq(o.rc, 0);
	ck_assert_uint_eq(o.st.leaves, 0);
	ck_assert_uint_eq(o.st.unsupported, 1);
	/* one byte shorter fits */
	origin[GNMI_WIRE_NAME_MAX - 1] = '\0';
	wb_reset(&p);
	wb_reset(&n);
	wb_str(&p, 2, origin);
	wb_sub(&n, 2, &p);
	wb_sub(&n, 4, &u);
	ck_assert_uint_eq(same_notification(&n), 1);
	wb_free(&n);
	wb_free(&p);
	wb_free(&u);
	wb_free(&v);
	wb_free(&r);
}
END_TEST

/* ---- the mapper ---- */

static int64_t fake_ns = T0;

static int64_t fake_real(void *ctx)
{
	return *(int64_t *)ctx;
}

struct side {
	struct store *st;
	struct gnmi_mapper *m[2];
	struct gnmi_apply_stats as;
};

static struct gnmi_profile *profiles[2];

static void side_init(struct side *s)
{
	struct store_opts o = { .real_ns = fake_real, .clock_ctx = &fake_ns };

	memset(s, 0, sizeof *s);
	s->st = store_new(&o);
	for (int i = 0; i < 2; i++) {
		struct gnmi_mapper_opts mo = {
			.store = s->st,
			.owner =
			    store_intern(s->st, i ? "t-sonic" : "t-arista"),
			.device = store_intern(s->st, i ? "sonic1" : "arista1"),
			.interval_ms = 1000,
		};
		s->m[i] = gnmi_mapper_new(profiles[i], &mo);
	}
}

static void side_free(struct side *s)
{
	for (int i = 0; i < 2; i++)
		gnmi_mapper_free(s->m[i]);
	store_free(s->st);
}

/* One message into both sides, through each path. */
static void apply_both(struct side *dec, struct side *wire, int which,
		       const uint8_t *msg, size_t len)
{
	ProtobufCMessage *m;
	struct gnmi_wire_info info;

	gnmi_arena_reset(arena);
	ck_assert_int_eq(gnmi_decode(&gnmi__subscribe_response__descriptor, msg,
				     len, 64u << 20, arena, &m),
			 GNMI_DECODE_OK);
	const Gnmi__SubscribeResponse *r = (const Gnmi__SubscribeResponse *)m;
	if (r->response_case == GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE)
		gnmi_mapper_apply(dec->m[which], r->update, &dec->as);
	ck_assert_int_eq(
	    gnmi_mapper_apply_wire(wire->m[which], msg, len, &wire->as, &info),
	    GNMI_WIRE_OK);
	ck_assert_int_eq(info.kind == GNMI_WIRE_UPDATE,
			 r->response_case ==
			     GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
}

static void stores_equal(const struct side *a, const struct side *b)
{
	struct store_stats sa, sb;

	ck_assert_uint_eq(a->as.mapped, b->as.mapped);
	ck_assert_uint_eq(a->as.unmapped, b->as.unmapped);
	ck_assert_uint_eq(a->as.rejected, b->as.rejected);
	ck_assert_uint_eq(a->as.deletes, b->as.deletes);
	ck_assert_uint_eq(a->as.bad, b->as.bad);
	store_get_stats(a->st, &sa);
	store_get_stats(b->st, &sb);
	ck_assert_uint_eq(sa.series, sb.series);
	ck_assert_uint_eq(sa.updates_total, sb.updates_total);
	ck_assert_uint_eq(sa.resets_total, sb.resets_total);
	ck_assert_uint_eq(sa.rejected_total, sb.rejected_total);
	ck_assert_uint_eq(store_slots(a->st), store_slots(b->st));
	for (uint32_t i = 0; i < store_slots(a->st); i++) {
		struct store_sample x, y;
		int ra = store_read(a->st, i, &x),
		    rb = store_read(b->st, i, &y);

		ck_assert_int_eq(ra, rb);
		if (ra != 0)
			continue;
		ck_assert_uint_eq(x.key.device, y.key.device);
		ck_assert_uint_eq(x.key.port, y.key.port);
		ck_assert_uint_eq(x.key.sub, y.key.sub);
		ck_assert_uint_eq(x.key.counter, y.key.counter);
		ck_assert_int_eq(x.has_value, y.has_value);
		ck_assert_int_eq(x.has_rate, y.has_rate);
		ck_assert(x.value == y.value);
		ck_assert(x.rate == y.rate);
	}
}

/* The Arista PFC leaves of the arista profile, all at value. */
static void arista_message(struct wb *r, uint64_t value, int64_t ts,
			   bool with_delete)
{
	static const char *const leaves[] = { "in-frames", "out-frames",
					      "pfc-on-total-rx-time",
					      "rx-transitions",
					      "unmapped-leaf" };
	struct wb n = { 0 }, u = { 0 }, path = { 0 }, v = { 0 };
	char port[32];

	wb_uint(&n, 1, (uint64_t)ts);
	for (int i = 0; i < 40; i++) {
		snprintf(port, sizeof port, "Ethernet%d", i / 5 + 1);
		wb_reset(&path);
		wb_elem(&path, "interfaces", NULL, NULL, NULL, NULL);
		wb_elem(&path, "interface", "name", port, NULL, NULL);
		wb_elem(&path, "ethernet", NULL, NULL, NULL, NULL);
		wb_elem(&path, "pfc", NULL, NULL, NULL, NULL);
		wb_elem(&path, "priorities", NULL, NULL, NULL, NULL);
		wb_elem(&path, "priority", "index", i % 2 ? "3" : "4", NULL,
			NULL);
		wb_elem(&path, "state", NULL, NULL, NULL, NULL);
		wb_elem(&path, leaves[i % 5], NULL, NULL, NULL, NULL);
		wb_reset(&u);
		wb_reset(&v);
		wb_sub(&u, 1, &path);
		wb_uint(&v, 3, value + (uint64_t)i);
		wb_sub(&u, 3, &v);
		wb_sub(&n, 4, &u);
	}
	if (with_delete) {
		wb_reset(&path);
		wb_elem(&path, "interfaces", NULL, NULL, NULL, NULL);
		wb_elem(&path, "interface", "name", "Ethernet2", NULL, NULL);
		wb_sub(&n, 5, &path);
	}
	wb_response(r, &n);
	wb_free(&n);
	wb_free(&u);
	wb_free(&path);
	wb_free(&v);
}

static void sonic_message(struct wb *r, const char *json, int64_t ts)
{
	struct wb n = { 0 }, p = { 0 }, u = { 0 }, v = { 0 }, path = { 0 };

	wb_uint(&n, 1, (uint64_t)ts);
	wb_str(&p, 4, "COUNTERS_DB");
	wb_elem(&p, "COUNTERS", NULL, NULL, NULL, NULL);
	wb_sub(&n, 2, &p);
	wb_elem(&path, "Ethernet68", NULL, NULL, NULL, NULL);
	wb_sub(&u, 1, &path);
	wb_str(&v, 11, json);
	wb_sub(&u, 3, &v);
	wb_sub(&n, 4, &u);
	wb_response(r, &n);
	wb_free(&n);
	wb_free(&p);
	wb_free(&u);
	wb_free(&v);
	wb_free(&path);
}

START_TEST(test_mapper_apply_wire_maps_like_apply)
{
	const char *top = getenv("top_srcdir");
	char dir[1024], err[512];
	struct side dec, wire;
	struct wb r = { 0 };
	size_t len;
	char *zero =
	    read_fixture("tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt", &len);

	snprintf(dir, sizeof dir, "%s/etc/profiles", top && *top ? top : ".");
	profiles[0] = gnmi_profile_load_named(dir, "arista", err, sizeof err);
	ck_assert_msg(profiles[0] != NULL, "%s", err);
	profiles[1] = gnmi_profile_load_named(dir, "sonic", err, sizeof err);
	ck_assert_msg(profiles[1] != NULL, "%s", err);
	side_init(&dec);
	side_init(&wire);
	for (int round = 0; round < 6; round++) {
		int64_t ts = T0 + round * SEC;

		fake_ns = ts + SEC / 2;
		arista_message(&r, (uint64_t)round * 1000, ts, round == 3);
		apply_both(&dec, &wire, 0, r.b, r.n);
		/* a counter going back (a reset), then a zero timestamp */
		arista_message(&r,
			       round == 4 ? 0 : (uint64_t)round * 1000 + 500,
			       round == 5 ? 0 : ts + SEC / 4, false);
		apply_both(&dec, &wire, 0, r.b, r.n);
		sonic_message(&r, zero, ts);
		apply_both(&dec, &wire, 1, r.b, r.n);
		wb_reset(&r);
		wb_uint(&r, 3, 1);
		apply_both(&dec, &wire, 1, r.b, r.n);
		stores_equal(&dec, &wire);
	}
	ck_assert_uint_gt(wire.as.mapped, 500);
	ck_assert_uint_gt(wire.as.unmapped, 0);
	ck_assert_uint_gt(wire.as.deletes, 0);
	/* a refused message applies nothing */
	struct gnmi_apply_stats before = wire.as;
	struct gnmi_wire_info info;
	arista_message(&r, 1, T0, false);
	ck_assert_int_eq(
	    gnmi_mapper_apply_wire(wire.m[0], r.b, r.n - 1, &wire.as, &info),
	    GNMI_WIRE_MALFORMED);
	ck_assert_int_eq(info.kind, GNMI_WIRE_NONE);
	ck_assert(memcmp(&before, &wire.as, sizeof before) == 0);
	ck_assert_int_eq(
	    gnmi_mapper_apply_wire(wire.m[0], r.b, r.n, NULL, NULL), 0);
	side_free(&dec);
	side_free(&wire);
	gnmi_profile_free(profiles[0]);
	gnmi_profile_free(profiles[1]);
	free(zero);
	wb_free(&r);
}
END_TEST

START_TEST(test_profile_loads_from_a_buffer)
{
	static const char bad[] = "name: x\nmappings:\n  - path: /a\n"
				  "    counter: no_such_counter\n";
	char err[512];
	size_t len;
	char *text = read_fixture("etc/profiles/arista.yaml", &len);
	/* not NUL-terminated: the loader reads len bytes only */
	char *copy = malloc(len);
	struct gnmi_profile *p;

	memcpy(copy, text, len);
	p = gnmi_profile_load_buffer("arista.yaml", copy, len, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(gnmi_profile_name(p), "arista");
	ck_assert_uint_gt(gnmi_profile_mappings(p), 10);
	gnmi_profile_free(p);
	p = gnmi_profile_load_buffer("bad.yaml", bad, sizeof bad - 1, err,
				     sizeof err);
	ck_assert_ptr_null(p);
	ck_assert_msg(strncmp(err, "bad.yaml:4:", 11) == 0, "%s", err);
	ck_assert_ptr_null(strchr(err, '\n'));
	free(copy);
	free(text);
}
END_TEST

static Suite *gnmi_wire_suite(void)
{
	Suite *s = suite_create("gnmi_wire");
	TCase *te = tcase_create("equivalence");
	TCase *tm = tcase_create("malformed");
	TCase *tp = tcase_create("mapper");

	tcase_add_checked_fixture(te, setup, teardown);
	tcase_add_test(te, test_every_typed_value_kind_matches_decode);
	tcase_add_test(te, test_sonic_json_fixtures_match_decode);
	tcase_add_test(te, test_prefix_origin_target_and_path_override_match);
	tcase_add_test(te, test_deprecated_element_strings_and_old_value_match);
	tcase_add_test(te, test_deletes_sync_error_and_empty_match);
	tcase_add_test(te, test_unknown_fields_and_extensions_are_skipped);
	tcase_add_test(te, test_view_bounds_match);
	tcase_add_test(te, test_nul_in_strings_cut_as_decoded);
	tcase_add_test(te, test_repeated_val_merges_as_protobuf_c);
	tcase_add_test(te, test_repeated_singular_fields_merge_as_protobuf_c);
	tcase_add_test(te, test_parse_reports_kind_and_strerror_names_results);
	tcase_add_test(te, test_long_origin_is_counted_unsupported);
	tcase_set_timeout(te, 60);
	suite_add_tcase(s, te);
	tcase_add_checked_fixture(tm, setup, teardown);
	tcase_add_test(tm, test_every_truncation_matches_decode);
	tcase_add_test(tm, test_every_byte_flip_matches_decode);
	tcase_add_test(tm, test_bad_varints_tags_and_lengths_are_malformed);
	tcase_add_test(tm, test_wrong_wire_types_are_malformed);
	tcase_add_test(tm, test_deep_leaflist_nesting_is_refused);
	tcase_set_timeout(tm, 120); /* sanitizer builds are slow */
	suite_add_tcase(s, tm);
	tcase_add_checked_fixture(tp, setup, teardown);
	tcase_add_test(tp, test_mapper_apply_wire_maps_like_apply);
	tcase_add_test(tp, test_profile_loads_from_a_buffer);
	tcase_set_timeout(tp, 60);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_wire_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
