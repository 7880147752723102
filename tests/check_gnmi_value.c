/*
 * check_gnmi_value: walking gNMI notifications into leaves. Every
 * TypedValue kind arrives as the right scalar; prefix and path join in
 * the view; JSON values flatten (module prefixes dropped, lists keyed
 * by name/index/id or position); malformed or too deep JSON is counted
 * and skipped whole while the rest of the notification is still walked;
 * scalars convert to counters and gauges as documented. The real SONiC
 * COUNTERS_DB answers in $top_srcdir/tests/data/sonic-gnmi walk to the
 * expected leaves.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* the tests build deprecated kinds */
#include "value.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a walk reported, one line per leaf or delete. */
#define MAX_SEEN 2048

struct seen {
	size_t n;
	char *path[MAX_SEEN]; /* gnmi_view_format, plus " @target" if any */
	struct gnmi_scalar val[MAX_SEEN];
	char *text[MAX_SEEN]; /* a copy of val.s (views die after the call) */
	bool deleted[MAX_SEEN];
};

static struct seen seen;
static struct gnmi_walk_stats st;

static void record(const struct gnmi_view *v, const struct gnmi_scalar *s,
		   bool deleted)
{
	char buf[1024];
	size_t n = gnmi_view_format(v, buf, sizeof buf);

	ck_assert_uint_lt(n, sizeof buf);
	ck_assert_uint_lt(seen.n, MAX_SEEN);
	ck_assert_uint_le(v->n, GNMI_VIEW_MAX);
	ck_assert_ptr_nonnull(v->origin);
	ck_assert_ptr_nonnull(v->target);
	if (v->target[0] != '\0') {
		ck_assert_uint_lt(n + strlen(v->target) + 2, sizeof buf);
		strcat(buf, " @");
		strcat(buf, v->target);
	}
	seen.path[seen.n] = strdup(buf);
	seen.deleted[seen.n] = deleted;
	if (s) {
		seen.val[seen.n] = *s;
		if (s->s)
			seen.text[seen.n] = strndup(s->s, s->len);
		seen.val[seen.n].s = NULL;
	}
	seen.n++;
}

static void on_leaf(void *ctx, const struct gnmi_view *v,
		    const struct gnmi_scalar *s)
{
	ck_assert_ptr_eq(ctx, &seen);
	record(v, s, false);
}

static void on_delete(void *ctx, const struct gnmi_view *v)
{
	ck_assert_ptr_eq(ctx, &seen);
	record(v, NULL, true);
}

static void reset(void)
{
	for (size_t i = 0; i < seen.n; i++) {
		free(seen.path[i]);
		free(seen.text[i]);
	}
	memset(&seen, 0, sizeof seen);
	memset(&st, 0, sizeof st);
}

static void walk(const Gnmi__Notification *n)
{
	reset();
	gnmi_walk_notification(n, on_leaf, on_delete, &seen, &st);
	ck_assert_uint_eq(st.leaves + st.deletes, seen.n);
}

/* The index of the leaf at path, which must have been seen once. */
static size_t find(const char *path)
{
	size_t at = seen.n;

	for (size_t i = 0; i < seen.n; i++) {
		if (strcmp(seen.path[i], path) != 0)
			continue;
		ck_assert_msg(at == seen.n, "%s seen twice", path);
		at = i;
	}
	ck_assert_msg(at < seen.n, "%s not seen", path);
	return at;
}

static void expect_text(size_t i, enum gnmi_scalar_kind kind, const char *text)
{
	ck_assert_int_eq(seen.val[i].kind, kind);
	ck_assert_ptr_nonnull(seen.text[i]);
	ck_assert_str_eq(seen.text[i], text);
}

/* One notification with one update, built on the stack. */
struct msg {
	Gnmi__Notification n;
	Gnmi__Path prefix, path;
	Gnmi__PathElem pe[8], e[8];
	Gnmi__PathElem *pep[8], *ep[8];
	Gnmi__Update u;
	Gnmi__Update *up;
	Gnmi__TypedValue tv;
};

/* A path "a/b/c" (no keys) into pb, using elems as storage. */
static void set_path(Gnmi__Path *pb, Gnmi__PathElem *elems,
		     Gnmi__PathElem **ptrs, char *spec)
{
	size_t n = 0;

	for (char *tok = strtok(spec, "/"); tok; tok = strtok(NULL, "/")) {
		elems[n] = (Gnmi__PathElem)GNMI__PATH_ELEM__INIT;
		elems[n].name = tok;
		ptrs[n] = &elems[n];
		n++;
	}
	pb->n_elem = n;
	pb->elem = ptrs;
}

static void msg_init(struct msg *m, const char *target, const char *prefix,
		     const char *path)
{
	static char pbuf[256], qbuf[256];

	memset(m, 0, sizeof *m);
	m->n = (Gnmi__Notification)GNMI__NOTIFICATION__INIT;
	m->prefix = (Gnmi__Path)GNMI__PATH__INIT;
	m->path = (Gnmi__Path)GNMI__PATH__INIT;
	m->u = (Gnmi__Update)GNMI__UPDATE__INIT;
	m->tv = (Gnmi__TypedValue)GNMI__TYPED_VALUE__INIT;
	snprintf(pbuf, sizeof pbuf, "%s", prefix);
	snprintf(qbuf, sizeof qbuf, "%s", path);
	set_path(&m->prefix, m->pe, m->pep, pbuf);
	set_path(&m->path, m->e, m->ep, qbuf);
	if (target)
		m->prefix.target = (char *)target;
	m->n.prefix = &m->prefix;
	m->u.path = &m->path;
	m->u.val = &m->tv;
	m->up = &m->u;
	m->n.update = &m->up;
	m->n.n_update = 1;
}

static void msg_json(struct msg *m, const char *json, size_t len)
{
	m->tv.value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	m->tv.json_ietf_val.data = (uint8_t *)json;
	m->tv.json_ietf_val.len = len;
}

/* Walks json as the json_ietf_val of prefix "/p" and path "/x". */
static void walk_json(const char *json)
{
	struct msg m;

	msg_init(&m, NULL, "p", "x");
	msg_json(&m, json, strlen(json));
	walk(&m.n);
}

START_TEST(test_every_typed_value_kind_is_a_scalar)
{
	struct msg m;
	Gnmi__Decimal64 dec = GNMI__DECIMAL64__INIT;
	Gnmi__Decimal64 dec0 = GNMI__DECIMAL64__INIT;
	Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
	uint64_t u;
	double d;

	msg_init(&m, NULL, "", "v");
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	m.tv.string_val = "operational";
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 1);
	expect_text(find("/v"), GNMI_SCALAR_STRING, "operational");

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_ASCII_VAL;
	m.tv.ascii_val = "up";
	walk(&m.n);
	expect_text(find("/v"), GNMI_SCALAR_STRING, "up");

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_INT_VAL;
	m.tv.int_val = -42;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_INT);
	ck_assert_int_eq(seen.val[0].i, -42);

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	m.tv.uint_val = UINT64_MAX;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_UINT);
	ck_assert_int_eq(gnmi_scalar_u64(&seen.val[0], &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_BOOL_VAL;
	m.tv.bool_val = 1;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_BOOL);
	ck_assert(seen.val[0].b);

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_BYTES_VAL;
	m.tv.bytes_val.data = (uint8_t *)"\x01\x02";
	m.tv.bytes_val.len = 2;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_BYTES);
	ck_assert_mem_eq(seen.text[0], "\x01\x02", 2);
	ck_assert_int_eq(gnmi_scalar_u64(&seen.val[0], &u), -EINVAL);

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_FLOAT_VAL;
	m.tv.float_val = 1.5f;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_DOUBLE);
	ck_assert(seen.val[0].d == 1.5);

	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL;
	m.tv.double_val = 0.25;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_DOUBLE);
	ck_assert(seen.val[0].d == 0.25);

	/* decimal: digits x 10^-precision */
	dec.digits = -12345;
	dec.precision = 2;
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_DECIMAL_VAL;
	m.tv.decimal_val = &dec;
	walk(&m.n);
	ck_assert_int_eq(seen.val[find("/v")].kind, GNMI_SCALAR_DOUBLE);
	ck_assert(seen.val[0].d == -123.45);
	/* ... and exact when it is an integer */
	dec0.digits = INT64_MAX;
	m.tv.decimal_val = &dec0;
	walk(&m.n);
	ck_assert_int_eq(gnmi_scalar_u64(&seen.val[find("/v")], &u), 0);
	ck_assert_uint_eq(u, INT64_MAX);
	ck_assert_int_eq(gnmi_scalar_double(&seen.val[0], &d), 0);

	/* what needs a schema or is missing is counted, not reported */
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_ANY_VAL;
	m.tv.any_val = &any;
	walk(&m.n);
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_PROTO_BYTES;
	m.tv.proto_bytes.len = 0;
	gnmi_walk_notification(&m.n, on_leaf, on_delete, &seen, &st);
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE__NOT_SET;
	gnmi_walk_notification(&m.n, on_leaf, on_delete, &seen, &st);
	m.u.val = NULL;
	gnmi_walk_notification(&m.n, on_leaf, on_delete, &seen, &st);
	ck_assert_uint_eq(seen.n, 0);
	ck_assert_uint_eq(st.unsupported, 4);
	reset();
}
END_TEST

START_TEST(test_leaflist_reports_one_leaf_per_element)
{
	struct msg m;
	Gnmi__TypedValue el[4] = { GNMI__TYPED_VALUE__INIT,
				   GNMI__TYPED_VALUE__INIT,
				   GNMI__TYPED_VALUE__INIT,
				   GNMI__TYPED_VALUE__INIT };
	Gnmi__TypedValue *elp[4] = { &el[0], &el[1], &el[2], &el[3] };
	Gnmi__ScalarArray arr = GNMI__SCALAR_ARRAY__INIT,
			  inner = GNMI__SCALAR_ARRAY__INIT;

	msg_init(&m, "t1", "system", "dns/servers");
	el[0].value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	el[0].string_val = "10.0.0.1";
	el[1].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	el[1].uint_val = 7;
	el[2].value_case = GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL;
	el[2].leaflist_val = &inner; /* not a scalar: counted */
	el[3].value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	el[3].string_val = "10.0.0.2";
	arr.n_element = 4;
	arr.element = elp;
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_LEAFLIST_VAL;
	m.tv.leaflist_val = &arr;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 3);
	ck_assert_uint_eq(st.unsupported, 1);
	for (size_t i = 0; i < 3; i++)
		ck_assert_str_eq(seen.path[i], "/system/dns/servers @t1");
	ck_assert_str_eq(seen.text[0], "10.0.0.1");
	ck_assert_uint_eq(seen.val[1].u, 7);
	ck_assert_str_eq(seen.text[2], "10.0.0.2");
	reset();
}
END_TEST

START_TEST(test_prefix_and_path_join_in_the_view)
{
	struct msg m;
	Gnmi__PathElem__KeyEntry k[3] = { GNMI__PATH_ELEM__KEY_ENTRY__INIT,
					  GNMI__PATH_ELEM__KEY_ENTRY__INIT,
					  GNMI__PATH_ELEM__KEY_ENTRY__INIT };
	Gnmi__PathElem__KeyEntry *kp[3] = { &k[0], &k[1], &k[2] };
	Gnmi__Path del = GNMI__PATH__INIT;
	Gnmi__PathElem de = GNMI__PATH_ELEM__INIT, *dep = &de;
	Gnmi__Path *delp = &del;

	msg_init(&m, "leaf1", "qos/interfaces/interface",
		 "output/queues/"
		 "queue/state/"
		 "transmit-pkts");
	m.prefix.origin = "openconfig";
	k[0].key = "interface-id";
	k[0].value = "Ethernet1/1";
	m.pe[2].n_key = 1;
	m.pe[2].key = &kp[0];
	k[1].key = "name";
	k[1].value = "3";
	k[2].key = "class"; /* keys arrive in any order: the view sorts */
	k[2].value = "lossless]";
	m.e[2].n_key = 2;
	m.e[2].key = &kp[1];
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	m.tv.uint_val = 99;
	de.name = "gone";
	del.n_elem = 1;
	del.elem = &dep;
	del.target = "leaf2";
	m.n.n_delete_ = 1;
	m.n.delete_ = &delp;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 1);
	ck_assert_uint_eq(st.deletes, 1);
	ck_assert_str_eq(seen.path[0],
			 "openconfig:/qos/interfaces/interface[interface-id="
			 "Ethernet1/1]/output/queues/queue[class=lossless\\]]"
			 "[name=3]/state/transmit-pkts @leaf1");
	ck_assert_uint_eq(seen.val[0].u, 99);
	ck_assert(seen.deleted[1]);
	ck_assert_str_eq(seen.path[1],
			 "openconfig:/qos/interfaces/interface[interface-id="
			 "Ethernet1/1]/gone @leaf2");

	/* the path's origin wins over the prefix's */
	m.path.origin = "native";
	m.n.n_delete_ = 0;
	walk(&m.n);
	ck_assert_str_eq(seen.path[0],
			 "native:/qos/interfaces/interface[interface-id="
			 "Ethernet1/1]/output/queues/queue[class=lossless\\]]"
			 "[name=3]/state/transmit-pkts @leaf1");
	/* no prefix at all, and a NULL leaf callback, are fine */
	m.n.prefix = NULL;
	reset();
	gnmi_walk_notification(&m.n, NULL, NULL, NULL, &st);
	ck_assert_uint_eq(st.leaves, 1);
	gnmi_walk_notification(&m.n, NULL, NULL, NULL, NULL);
	reset();
}
END_TEST

START_TEST(test_deprecated_element_strings_and_value_are_read)
{
	struct msg m;
	char *els[] = { "interfaces", "interface[name=eth0][unit=0]", "state" };
	Gnmi__Value old = GNMI__VALUE__INIT;

	msg_init(&m, NULL, "", "");
	m.path.n_element = 3;
	m.path.element = els;
	old.type = GNMI__ENCODING__JSON;
	old.value.data = (uint8_t *)"{\"oper-status\":\"UP\"}";
	old.value.len = strlen((char *)old.value.data);
	m.u.val = NULL;
	m.u.value = &old;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 1);
	expect_text(find("/interfaces/interface[name=eth0][unit=0]/state/"
			 "oper-status"),
		    GNMI_SCALAR_STRING, "UP");
	old.type = GNMI__ENCODING__ASCII;
	old.value.data = (uint8_t *)"text";
	old.value.len = 4;
	walk(&m.n);
	expect_text(find("/interfaces/interface[name=eth0][unit=0]/state"),
		    GNMI_SCALAR_STRING, "text");
	old.type = GNMI__ENCODING__PROTO;
	walk(&m.n);
	ck_assert_uint_eq(st.unsupported, 1);
	/* escapes or broken keys in element strings are not guessed at */
	els[1] = "interface[name=eth\\]0]";
	walk(&m.n);
	ck_assert_uint_eq(st.unsupported, 1);
	els[1] = "interface[name]";
	walk(&m.n);
	ck_assert_uint_eq(st.unsupported, 1);
	ck_assert_uint_eq(seen.n, 0);
	reset();
}
END_TEST

START_TEST(test_json_ietf_object_with_string_numbers)
{
	uint64_t u;

	walk_json("{\"in-octets\": \"18446744073709551615\", \"in-pkts\": "
		  "\"0\", \"out-pkts\": 12, \"mtu\": 9.1e3, \"up\": true, "
		  "\"desc\": null}");
	ck_assert_uint_eq(st.leaves, 6);
	ck_assert_uint_eq(st.bad_json, 0);
	size_t i = find("/p/x/in-octets");
	expect_text(i, GNMI_SCALAR_STRING, "18446744073709551615");
	ck_assert_int_eq(gnmi_scalar_u64(&seen.val[i], &u), -EINVAL);
	/* the recorded copy has no s: convert from the text */
	struct gnmi_scalar s = seen.val[i];
	s.s = seen.text[i];
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);
	expect_text(find("/p/x/out-pkts"), GNMI_SCALAR_NUMBER_TEXT, "12");
	expect_text(find("/p/x/mtu"), GNMI_SCALAR_NUMBER_TEXT, "9.1e3");
	ck_assert(seen.val[find("/p/x/up")].b);
	ck_assert_int_eq(seen.val[find("/p/x/desc")].kind, GNMI_SCALAR_NULL);
	/* a bare scalar is a leaf at the path itself */
	walk_json(" \"123\" ");
	expect_text(find("/p/x"), GNMI_SCALAR_STRING, "123");
	walk_json("-1.5e-3");
	expect_text(find("/p/x"), GNMI_SCALAR_NUMBER_TEXT, "-1.5e-3");
	reset();
}
END_TEST

START_TEST(test_json_module_prefixes_are_stripped)
{
	walk_json("{\"openconfig-interfaces:state\": {\"counters\": "
		  "{\"openconfig-if-ethernet:in-mac-pause-frames\": \"5\"}},"
		  " \"Ethernet68:3\": {\"x\": 1}, \"eth0:1\": 2,"
		  " \"Ethernet0:periodic\": 3, \"a:\": 4, \"Mod:leaf\": 5}");
	ck_assert_uint_eq(st.leaves, 6);
	expect_text(find("/p/x/state/counters/in-mac-pause-frames"),
		    GNMI_SCALAR_STRING, "5");
	find("/p/x/Ethernet68:3/x");
	find("/p/x/eth0:1");
	find("/p/x/Ethernet0:periodic");
	find("/p/x/a:");
	find("/p/x/Mod:leaf");
	reset();
}
END_TEST

START_TEST(test_json_nested_objects_add_elements)
{
	walk_json("{\"a\":{\"b\":{\"c\":{\"d\":\"1\"},\"e\":{}},\"f\":\"2\"}"
		  ",\"g\":{}}");
	ck_assert_uint_eq(st.leaves, 2);
	expect_text(find("/p/x/a/b/c/d"), GNMI_SCALAR_STRING, "1");
	expect_text(find("/p/x/a/f"), GNMI_SCALAR_STRING, "2");
	/* names with escapes are reported raw (so the backslash prints
	 * escaped) */
	walk_json("{\"a\\\"b/c\": \"v\\u00e9\"}");
	size_t i = find("/p/x/a\\\\\"b\\/c");
	expect_text(i, GNMI_SCALAR_STRING, "v\\u00e9");
	char buf[16];
	size_t n;
	ck_assert_int_eq(gnmi_json_unescape(seen.text[i], strlen(seen.text[i]),
					    buf, sizeof buf, &n),
			 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(buf, "v\xc3\xa9");
	reset();
}
END_TEST

START_TEST(test_json_arrays_are_keyed_by_name_index_id_or_position)
{
	walk_json("{\"interface\": [{\"id\": 9, \"name\": \"eth0\", \"mtu\": "
		  "1500}, {\"index\": 3, \"id\": \"x\", \"state\": {\"up\": "
		  "true}}, {\"id\": \"e2\", \"v\": 1}, {\"v\": 2, \"sub\": "
		  "{\"name\": \"notme\"}}, {\"name\": {\"no\": 1}, \"v\": 3}, "
		  "{}]}");
	ck_assert_uint_eq(st.leaves, 12);
	find("/p/x/interface[name=eth0]/id");
	find("/p/x/interface[name=eth0]/name");
	find("/p/x/interface[name=eth0]/mtu");
	find("/p/x/interface[index=3]/index");
	find("/p/x/interface[index=3]/id");
	find("/p/x/interface[index=3]/state/up");
	find("/p/x/interface[id=e2]/v");
	find("/p/x/interface[index=3]/v"); /* fourth entry: position 3 */
	find("/p/x/interface[index=3]/sub/name");
	find("/p/x/interface[index=4]/v"); /* a "name" object is no key */
	find("/p/x/interface[index=4]/name/no");
	/* module-qualified key members count too */
	walk_json("[{\"oc:name\": \"q1\", \"v\": 1}, {\"name\": 2, \"v\": 2}]");
	find("/p/x[name=q1]/v");
	find("/p/x[name=2]/v");
	reset();
}
END_TEST

START_TEST(test_json_top_level_array_keys_the_path_last_element)
{
	struct msg m;
	const char *json = "[{\"name\":\"Ethernet0\",\"mtu\":9100},"
			   "{\"name\":\"Ethernet4\",\"mtu\":1500}]";

	msg_init(&m, NULL, "interfaces", "interface");
	msg_json(&m, json, strlen(json));
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 4);
	expect_text(find("/interfaces/interface[name=Ethernet4]/mtu"),
		    GNMI_SCALAR_NUMBER_TEXT, "1500");
	find("/interfaces/interface[name=Ethernet0]/name");
	/* with no path at all the list has no name */
	msg_init(&m, NULL, "", "");
	msg_json(&m, json, strlen(json));
	walk(&m.n);
	find("/[name=Ethernet0]/mtu");
	/* the prefix element re-keyed for the JSON is restored after it */
	Gnmi__Update u2 = GNMI__UPDATE__INIT, *ups[2];
	Gnmi__TypedValue tv2 = GNMI__TYPED_VALUE__INIT;
	msg_init(&m, NULL, "interfaces/interface", "");
	msg_json(&m, json, strlen(json));
	tv2.value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	tv2.uint_val = 1;
	u2.val = &tv2;
	ups[0] = &m.u;
	ups[1] = &u2;
	m.n.update = ups;
	m.n.n_update = 2;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 5);
	ck_assert_str_eq(seen.path[4], "/interfaces/interface");
	reset();
}
END_TEST

START_TEST(test_json_arrays_of_scalars_and_arrays)
{
	walk_json("{\"servers\": [\"a\", \"b\", 3], \"m\": [[1, 2], [3]], "
		  "\"e\": []}");
	ck_assert_uint_eq(st.leaves, 6);
	ck_assert_str_eq(seen.path[0], "/p/x/servers");
	ck_assert_str_eq(seen.path[1], "/p/x/servers");
	ck_assert_str_eq(seen.path[2], "/p/x/servers");
	ck_assert_str_eq(seen.text[1], "b");
	ck_assert_str_eq(seen.path[3], "/p/x/m[index=0]/m");
	ck_assert_str_eq(seen.path[4], "/p/x/m[index=0]/m");
	ck_assert_str_eq(seen.path[5], "/p/x/m[index=1]/m");
	ck_assert_str_eq(seen.text[5], "3");
	reset();
}
END_TEST

START_TEST(test_malformed_json_is_counted_and_skipped_whole)
{
	static const char *bad[] = {
		"",
		"   ",
		"{",
		"{\"a\": \"1\", \"b\": \"2\"",
		"{\"a\": \"1\", \"b\": \"2",
		"{\"a\": \"1\\q\"}",
		"{\"a\": \"\\u12g4\"}",
		"{\"a\": \"\\u12",
		"{\"a\": \"1\",}",
		"{\"a\" \"1\"}",
		"{\"a\": 01}",
		"{\"a\": -}",
		"{\"a\": 1.}",
		"{\"a\": 1e}",
		"{\"a\": tru}",
		"{\"a\": True}",
		"{a: 1}",
		"[1, 2,]",
		"[1 2]",
		"{\"a\": 1}}",
		"{\"a\": 1} x",
		"{\"a\": [1, 2}",
		"{\"a\": {\"b\": 1]}",
		"\"abc",
		"\\",
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		walk_json(bad[i]);
		ck_assert_msg(st.bad_json == 1 && st.leaves == 0,
			      "%s: %llu bad, %llu leaves", bad[i],
			      (unsigned long long)st.bad_json,
			      (unsigned long long)st.leaves);
	}
	/* protobuf-c leaves an empty bytes field as NULL, 0 */
	struct msg e;
	msg_init(&e, NULL, "p", "x");
	msg_json(&e, NULL, 0);
	walk(&e.n);
	ck_assert_uint_eq(st.bad_json, 1);
	/* truncated anywhere, the SONiC table is skipped, never partly read */
	const char *good = "{\"a\":\"1\",\"b\":{\"c\":[1,{\"d\":\"x\"}]}}";
	for (size_t n = 0; n < strlen(good); n++) {
		char *cut =
		    malloc(n ? n : 1); /* exact size: ASan sees overreads */
		struct msg m;

		memcpy(cut, good, n);
		msg_init(&m, NULL, "p", "x");
		msg_json(&m, cut, n);
		walk(&m.n);
		ck_assert_uint_eq(st.bad_json, 1);
		ck_assert_uint_eq(st.leaves, 0);
		free(cut);
	}
	reset();
}
END_TEST

START_TEST(test_bad_json_does_not_stop_the_other_updates)
{
	struct msg m;
	Gnmi__Update u2 = GNMI__UPDATE__INIT, *ups[2];
	Gnmi__TypedValue tv2 = GNMI__TYPED_VALUE__INIT;

	msg_init(&m, NULL, "p", "x");
	msg_json(&m, "{\"a\": ", 6);
	tv2.value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL;
	tv2.json_val.data = (uint8_t *)"{\"b\": \"2\"}";
	tv2.json_val.len = 10;
	u2.val = &tv2;
	ups[0] = &m.u;
	ups[1] = &u2;
	m.n.update = ups;
	m.n.n_update = 2;
	walk(&m.n);
	ck_assert_uint_eq(st.bad_json, 1);
	ck_assert_uint_eq(st.leaves, 1);
	find("/p/b");
	reset();
}
END_TEST

static char *nested(size_t levels, const char *leaf)
{
	size_t n = strlen(leaf);
	char *s = malloc(levels * 7 + n + 1), *p = s;

	for (size_t i = 0; i < levels; i++)
		p += sprintf(p, "{\"a\":");
	p += sprintf(p, "%s", leaf);
	for (size_t i = 0; i < levels; i++)
		*p++ = '}';
	*p = '\0';
	return s;
}

START_TEST(test_deep_json_is_skipped_as_too_deep)
{
	char *s;

	/* 10,000 levels: one count, no recursion, no leaf */
	s = nested(10000, "1");
	walk_json(s);
	ck_assert_uint_eq(st.too_deep, 1);
	ck_assert_uint_eq(st.leaves, 0);
	free(s);
	s = malloc(20001);
	memset(s, '[', 10000);
	memset(s + 10000, ']', 10000);
	s[20000] = '\0';
	walk_json(s);
	ck_assert_uint_eq(st.too_deep, 1);
	free(s);
	/* the view holds 48 elements: 2 from the path, 46 from JSON */
	s = nested(46, "\"deep\"");
	walk_json(s);
	ck_assert_uint_eq(st.too_deep, 0);
	ck_assert_uint_eq(st.leaves, 1);
	free(s);
	s = nested(47, "\"deep\"");
	walk_json(s);
	ck_assert_uint_eq(st.too_deep, 1);
	ck_assert_uint_eq(st.leaves, 0);
	free(s);
}
END_TEST

START_TEST(test_too_many_path_elements_or_keys_are_too_deep)
{
	struct msg m;
	Gnmi__PathElem pe[GNMI_VIEW_MAX + 1];
	Gnmi__PathElem *pep[GNMI_VIEW_MAX + 1];
	Gnmi__PathElem__KeyEntry k[GNMI_VIEW_MAX_KEYS + 1];
	Gnmi__PathElem__KeyEntry *kp[GNMI_VIEW_MAX_KEYS + 1];

	msg_init(&m, NULL, "", "");
	m.tv.value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	for (size_t i = 0; i <= GNMI_VIEW_MAX; i++) {
		pe[i] = (Gnmi__PathElem)GNMI__PATH_ELEM__INIT;
		pe[i].name = "e";
		pep[i] = &pe[i];
	}
	m.path.elem = pep;
	m.path.n_elem = GNMI_VIEW_MAX;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 1);
	m.path.n_elem = GNMI_VIEW_MAX + 1;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 0);
	ck_assert_uint_eq(st.too_deep, 1);
	for (size_t i = 0; i <= GNMI_VIEW_MAX_KEYS; i++) {
		k[i] =
		    (Gnmi__PathElem__KeyEntry)GNMI__PATH_ELEM__KEY_ENTRY__INIT;
		k[i].key = "k";
		kp[i] = &k[i];
	}
	m.path.n_elem = 1;
	pe[0].key = kp;
	pe[0].n_key = GNMI_VIEW_MAX_KEYS + 1;
	walk(&m.n);
	ck_assert_uint_eq(st.too_deep, 1);
	pe[0].n_key = GNMI_VIEW_MAX_KEYS;
	walk(&m.n);
	ck_assert_uint_eq(st.leaves, 1);
	reset();
}
END_TEST

START_TEST(test_scalar_conversions)
{
	static const struct {
		enum gnmi_scalar_kind kind;
		const char *text;
		int u_rc;
		uint64_t u;
		int d_rc;
		double d;
	} cases[] = {
		{ GNMI_SCALAR_STRING, "123", 0, 123, 0, 123 },
		{ GNMI_SCALAR_STRING, "0", 0, 0, 0, 0 },
		{ GNMI_SCALAR_STRING, "007", 0, 7, 0, 7 },
		{ GNMI_SCALAR_STRING, "18446744073709551615", 0, UINT64_MAX, 0,
		  18446744073709551615.0 },
		{ GNMI_SCALAR_STRING, "18446744073709551616", -ERANGE, 0, 0,
		  18446744073709551616.0 },
		{ GNMI_SCALAR_STRING, "99999999999999999999999", -ERANGE, 0, 0,
		  1e23 },
		{ GNMI_SCALAR_STRING, "12.000", 0, 12, 0, 12 },
		{ GNMI_SCALAR_STRING, "12.5", -EINVAL, 0, 0, 12.5 },
		{ GNMI_SCALAR_STRING, "1.0e3", 0, 1000, 0, 1000 },
		{ GNMI_SCALAR_STRING, "1.5E1", 0, 15, 0, 15 },
		{ GNMI_SCALAR_STRING, "1e-1", -EINVAL, 0, 0, 0.1 },
		{ GNMI_SCALAR_STRING, "1500e-2", 0, 15, 0, 15 },
		{ GNMI_SCALAR_STRING, "0e999999999", 0, 0, 0, 0 },
		{ GNMI_SCALAR_STRING, "1e999999999", -ERANGE, 0, -ERANGE, 0 },
		{ GNMI_SCALAR_STRING, "-5", -ERANGE, 0, 0, -5 },
		{ GNMI_SCALAR_STRING, "-0", 0, 0, 0, 0 },
		{ GNMI_SCALAR_STRING, "-0.5", -ERANGE, 0, 0, -0.5 },
		{ GNMI_SCALAR_STRING, ".5", -EINVAL, 0, 0, 0.5 },
		{ GNMI_SCALAR_STRING, "0.1", -EINVAL, 0, 0, 0.1 },
		{ GNMI_SCALAR_STRING, "123456789.123456789", -EINVAL, 0, 0,
		  123456789.123456789 },
		{ GNMI_SCALAR_STRING, "true", 0, 1, 0, 1 },
		{ GNMI_SCALAR_STRING, "false", 0, 0, 0, 0 },
		{ GNMI_SCALAR_STRING, "", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "-", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, " 1", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "1 ", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "+1", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "0x10", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "inf", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "nan", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "1e", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_STRING, "operational", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_NUMBER_TEXT, "42", 0, 42, 0, 42 },
		{ GNMI_SCALAR_NUMBER_TEXT, "-3.25", -ERANGE, 0, 0, -3.25 },
		{ GNMI_SCALAR_NUMBER_TEXT, "2.5e-3", -EINVAL, 0, 0, 0.0025 },
		{ GNMI_SCALAR_BYTES, "12", -EINVAL, 0, -EINVAL, 0 },
		{ GNMI_SCALAR_NULL, "", -EINVAL, 0, -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gnmi_scalar s = { .kind = cases[i].kind };
		char *exact = strdup(cases[i].text); /* ASan sees overreads */
		uint64_t u = 77;
		double d = 77;

		s.s = exact;
		s.len = strlen(exact);
		ck_assert_msg(gnmi_scalar_u64(&s, &u) == cases[i].u_rc,
			      "u64 %s", cases[i].text);
		if (cases[i].u_rc == 0)
			ck_assert_msg(u == cases[i].u, "u64 %s = %llu",
				      cases[i].text, (unsigned long long)u);
		ck_assert_msg(gnmi_scalar_double(&s, &d) == cases[i].d_rc,
			      "double %s", cases[i].text);
		if (cases[i].d_rc == 0)
			ck_assert_msg(d == cases[i].d, "double %s = %.17g",
				      cases[i].text, d);
		free(exact);
	}
}
END_TEST

START_TEST(test_scalar_conversions_of_binary_kinds)
{
	struct gnmi_scalar s = { .kind = GNMI_SCALAR_INT, .i = -1 };
	uint64_t u;
	double d;

	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -ERANGE);
	ck_assert_int_eq(gnmi_scalar_double(&s, &d), 0);
	ck_assert(d == -1);
	s.i = 5;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	ck_assert_uint_eq(u, 5);
	s = (struct gnmi_scalar){ .kind = GNMI_SCALAR_DOUBLE, .d = 3.0 };
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	ck_assert_uint_eq(u, 3);
	s.d = 3.5;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -EINVAL);
	s.d = -0.0;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	ck_assert_uint_eq(u, 0);
	s.d = -1;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -ERANGE);
	s.d = 18446744073709551616.0;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -ERANGE);
	s.d = INFINITY;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -ERANGE);
	s.d = NAN;
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), -EINVAL);
	s = (struct gnmi_scalar){ .kind = GNMI_SCALAR_BOOL, .b = true };
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	ck_assert_uint_eq(u, 1);
	ck_assert_int_eq(gnmi_scalar_double(&s, &d), 0);
	ck_assert(d == 1);
	s = (struct gnmi_scalar){ .kind = GNMI_SCALAR_UINT, .u = 1u << 20 };
	ck_assert_int_eq(gnmi_scalar_double(&s, &d), 0);
	ck_assert(d == 1048576);
}
END_TEST

START_TEST(test_json_unescape)
{
	static const struct {
		const char *in;
		int rc;
		const char *out;
	} cases[] = {
		{ "plain", 0, "plain" },
		{ "a\\\"b\\\\c\\/d", 0, "a\"b\\c/d" },
		{ "\\b\\f\\n\\r\\t", 0, "\b\f\n\r\t" },
		{ "\\u0041\\u00e9\\u20ac", 0, "A\xc3\xa9\xe2\x82\xac" },
		{ "\\ud83d\\ude00", 0, "\xf0\x9f\x98\x80" },
		{ "\\ud83d", -EINVAL, NULL },
		{ "\\ud83dx", -EINVAL, NULL },
		{ "\\ude00", -EINVAL, NULL },
		{ "\\ud83d\\u0041", -EINVAL, NULL },
		{ "\\x", -EINVAL, NULL },
		{ "\\", -EINVAL, NULL },
		{ "\\u12", -EINVAL, NULL },
	};
	char buf[64];
	size_t n;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = gnmi_json_unescape(cases[i].in, strlen(cases[i].in),
					    buf, sizeof buf, &n);

		ck_assert_msg(rc == cases[i].rc, "%s: %d", cases[i].in, rc);
		if (rc == 0) {
			ck_assert_str_eq(buf, cases[i].out);
			ck_assert_uint_eq(n, strlen(cases[i].out));
		}
	}
	/* len + 1 always suffices; less may not */
	ck_assert_int_eq(gnmi_json_unescape("abc", 3, buf, 4, &n), 0);
	ck_assert_int_eq(gnmi_json_unescape("abc", 3, buf, 3, &n), -ENOSPC);
	ck_assert_int_eq(gnmi_json_unescape("\\u0000", 6, buf, 7, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(buf[0], 0);
}
END_TEST

START_TEST(test_view_format_escapes_like_path_format)
{
	struct gnmi_view_key k = { "na=me", 5, "v]\\/", 4 };
	struct gnmi_view v = { .origin = "oc", .target = "t", .n = 2 };
	char buf[64], small[5];

	v.elem[0] = (struct gnmi_view_elem){ "a/b[", 4, NULL, 0 };
	v.elem[1] = (struct gnmi_view_elem){ "cXX", 1, &k, 1 };
	ck_assert_uint_eq(gnmi_view_format(&v, buf, sizeof buf),
			  strlen("oc:/a\\/b\\[/c[na\\=me=v\\]\\\\/]"));
	ck_assert_str_eq(buf, "oc:/a\\/b\\[/c[na\\=me=v\\]\\\\/]");
	ck_assert_uint_eq(gnmi_view_format(&v, small, sizeof small), 27);
	ck_assert_str_eq(small, "oc:/");
	v.n = 0;
	v.origin = "";
	gnmi_view_format(&v, buf, sizeof buf);
	ck_assert_str_eq(buf, "/");
}
END_TEST

/* ---- SONiC COUNTERS_DB ---- */

static char *read_fixture(const char *name, size_t *len)
{
	char path[4096];
	const char *top = getenv("top_srcdir");
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof path, "%s/tests/data/sonic-gnmi/%s",
		 top && *top ? top : ".", name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 0);
	rewind(f);
	buf = malloc((size_t)n); /* exact size, no NUL: ASan sees overreads */
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Walks a fixture as SONiC sends it: target COUNTERS_DB, path. */
static void walk_sonic(const char *file, const char *path)
{
	struct msg m;
	size_t len;
	char *json = read_fixture(file, &len);

	msg_init(&m, "COUNTERS_DB", "", path);
	msg_json(&m, json, len);
	walk(&m.n);
	ck_assert_uint_eq(st.bad_json, 0);
	ck_assert_uint_eq(st.too_deep, 0);
	free(json);
}

static uint64_t u64_of(size_t i)
{
	struct gnmi_scalar s = seen.val[i];
	uint64_t u;

	s.s = seen.text[i];
	ck_assert_int_eq(gnmi_scalar_u64(&s, &u), 0);
	return u;
}

START_TEST(test_sonic_port_counters)
{
	walk_sonic("COUNTERS_Ethernet68.txt", "COUNTERS/Ethernet68");
	ck_assert_uint_eq(st.leaves, 106);
	size_t i = find("/COUNTERS/Ethernet68/SAI_PORT_STAT_PFC_3_RX_PKTS "
			"@COUNTERS_DB");
	expect_text(i, GNMI_SCALAR_STRING, "0");
	ck_assert_uint_eq(u64_of(i), 0);
	for (size_t k = 0; k < seen.n; k++)
		ck_assert(strncmp(seen.path[k],
				  "/COUNTERS/Ethernet68/SAI_PORT_"
				  "STAT_",
				  30) == 0);
	reset();
}
END_TEST

START_TEST(test_sonic_queue_counters)
{
	walk_sonic("COUNTERS_Ethernet68_Queues.txt",
		   "COUNTERS/Ethernet68/Queues");
	ck_assert_uint_eq(st.leaves, 36);
	expect_text(find("/COUNTERS/Ethernet68/Queues/Ethernet68:3/"
			 "SAI_QUEUE_STAT_PACKETS @COUNTERS_DB"),
		    GNMI_SCALAR_STRING, "0");
	size_t i = find("/COUNTERS/Ethernet68/Queues/Ethernet68:1/"
			"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES @COUNTERS_DB");
	ck_assert_uint_eq(u64_of(i), 64);
	i = find("/COUNTERS/Ethernet68/Queues/Ethernet68:3/"
		 "SAI_QUEUE_ATTR_PAUSE_STATUS @COUNTERS_DB");
	expect_text(i, GNMI_SCALAR_STRING, "false");
	ck_assert_uint_eq(u64_of(i), 0);
	expect_text(find("/COUNTERS/Ethernet68/Queues/Ethernet68:3/"
			 "PFC_WD_STATUS @COUNTERS_DB"),
		    GNMI_SCALAR_STRING, "operational");
	reset();
}
END_TEST

START_TEST(test_sonic_pfcwd_counters)
{
	walk_sonic("COUNTERS_Ethernet68_Pfcwd.txt",
		   "COUNTERS/Ethernet68/Pfcwd");
	ck_assert_uint_eq(st.leaves, 30);
	size_t i = find("/COUNTERS/Ethernet68/Pfcwd/Ethernet68:4/"
			"PFC_WD_DETECTION_TIME @COUNTERS_DB");
	ck_assert_uint_eq(u64_of(i), 200000);
	expect_text(find("/COUNTERS/Ethernet68/Pfcwd/Ethernet68:3/"
			 "PFC_WD_ACTION @COUNTERS_DB"),
		    GNMI_SCALAR_STRING, "drop");
	reset();
}
END_TEST

START_TEST(test_sonic_wildcard_queues)
{
	walk_sonic("COUNTERS_Ethernet_wildcard_Queues.txt",
		   "COUNTERS/Ethernet*/Queues");
	/* 1,081 queues, most empty: 5 + 5 + 1 leaves */
	ck_assert_uint_eq(st.leaves, 11);
	size_t i = find("/COUNTERS/Ethernet*/Queues/Ethernet7:5/"
			"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES @COUNTERS_DB");
	ck_assert_uint_eq(u64_of(i), 100);
	i = find("/COUNTERS/Ethernet*/Queues/Ethernet68:1:periodic/"
		 "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES @COUNTERS_DB");
	ck_assert_uint_eq(u64_of(i), 192);
	reset();
}
END_TEST

START_TEST(test_sonic_port_name_map)
{
	walk_sonic("COUNTERS_PORT_NAME_MAP.txt", "COUNTERS_PORT_NAME_MAP");
	ck_assert_uint_eq(st.leaves, 55);
	expect_text(find("/COUNTERS_PORT_NAME_MAP/Ethernet0 @COUNTERS_DB"),
		    GNMI_SCALAR_STRING, "oid:0x1000000000002");
	reset();
}
END_TEST

static Suite *gnmi_value_suite(void)
{
	Suite *s = suite_create("gnmi_value");
	TCase *tc = tcase_create("walk");
	TCase *tj = tcase_create("json");
	TCase *ts = tcase_create("scalar");
	TCase *tn = tcase_create("sonic");

	tcase_add_test(tc, test_every_typed_value_kind_is_a_scalar);
	tcase_add_test(tc, test_leaflist_reports_one_leaf_per_element);
	tcase_add_test(tc, test_prefix_and_path_join_in_the_view);
	tcase_add_test(tc, test_deprecated_element_strings_and_value_are_read);
	tcase_add_test(tc, test_too_many_path_elements_or_keys_are_too_deep);
	tcase_add_test(tc, test_view_format_escapes_like_path_format);
	suite_add_tcase(s, tc);
	tcase_add_test(tj, test_json_ietf_object_with_string_numbers);
	tcase_add_test(tj, test_json_module_prefixes_are_stripped);
	tcase_add_test(tj, test_json_nested_objects_add_elements);
	tcase_add_test(tj,
		       test_json_arrays_are_keyed_by_name_index_id_or_position);
	tcase_add_test(tj,
		       test_json_top_level_array_keys_the_path_last_element);
	tcase_add_test(tj, test_json_arrays_of_scalars_and_arrays);
	tcase_add_test(tj, test_malformed_json_is_counted_and_skipped_whole);
	tcase_add_test(tj, test_bad_json_does_not_stop_the_other_updates);
	tcase_add_test(tj, test_deep_json_is_skipped_as_too_deep);
	tcase_add_test(tj, test_json_unescape);
	suite_add_tcase(s, tj);
	tcase_add_test(ts, test_scalar_conversions);
	tcase_add_test(ts, test_scalar_conversions_of_binary_kinds);
	suite_add_tcase(s, ts);
	tcase_add_test(tn, test_sonic_port_counters);
	tcase_add_test(tn, test_sonic_queue_counters);
	tcase_add_test(tn, test_sonic_pfcwd_counters);
	tcase_add_test(tn, test_sonic_wildcard_queues);
	tcase_add_test(tn, test_sonic_port_name_map);
	suite_add_tcase(s, tn);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_value_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
