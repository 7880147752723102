/*
 * check_snmp: the SNMP collector's pure parts: varbind decoding and
 * conversion to samples (types, widths and a column's declared width,
 * exceptions, value maps; a
 * Counter32 wrap and a Counter64 reset through the store), row
 * index parsing, and profile loading with its file:line:col errors and
 * the choice of a profile by sysObjectID, over the shipped profiles.
 */
#include "config.h"

#include "counters.h"
#include "snmp_keys.h"
#include "snmp_profile.h"
#include "snmp_varbind.h"
#include "store.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const oid COL[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6 };

/* A varbind built by net-snmp itself, as a response would carry. */
static netsnmp_variable_list *vb_new(u_char type, const void *val, size_t len)
{
	netsnmp_variable_list *vb = NULL;
	oid name[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 7 };
	snmp_varlist_add_variable(&vb, name, OID_LENGTH(name), type, val, len);
	ck_assert_ptr_nonnull(vb);
	return vb;
}

START_TEST(test_counter64_is_width_64)
{
	struct counter64 c = { .high = 0x12, .low = 0x34567890 };
	netsnmp_variable_list *vb = vb_new(ASN_COUNTER64, &c, sizeof c);
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_COUNTER64);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s), 0);
	ck_assert_uint_eq(s.raw, 0x1234567890ULL);
	ck_assert_uint_eq(s.width, 64);
	snmp_free_varbind(vb);
}
END_TEST

START_TEST(test_counter32_is_width_32_at_its_max)
{
	long x = 0xffffffffL;
	netsnmp_variable_list *vb = vb_new(ASN_COUNTER, &x, sizeof x);
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_COUNTER32);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s), 0);
	ck_assert_uint_eq(s.raw, 4294967295ULL);
	ck_assert_uint_eq(s.width, 32);
	snmp_free_varbind(vb);
}
END_TEST

START_TEST(test_gauge_timeticks_and_integer)
{
	long g = 400000, neg = -5;
	netsnmp_variable_list *vb = vb_new(ASN_GAUGE, &g, sizeof g);
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_GAUGE32);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, NULL, &s), 0);
	ck_assert(s.gauge == 400000.0);
	snmp_free_varbind(vb);

	vb = vb_new(ASN_TIMETICKS, &g, sizeof g);
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_TIMETICKS);
	snmp_free_varbind(vb);

	/* A negative INTEGER is a gauge value, never a counter. */
	vb = vb_new(ASN_INTEGER, &neg, sizeof neg);
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_INTEGER);
	ck_assert_int_eq(v.i, -5);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, NULL, &s), 0);
	ck_assert(s.gauge == -5.0);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s),
			 -EINVAL);
	snmp_free_varbind(vb);
}
END_TEST

START_TEST(test_value_map_translates_and_refuses_unknown)
{
	static const int64_t from[] = { 1, 2 };
	static const double to[] = { 1, 0 };
	struct snmp_vb_map map = { from, to, 2 };
	long up = 1, down = 2, odd = 9;
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	netsnmp_variable_list *vb = vb_new(ASN_INTEGER, &up, sizeof up);
	snmp_vb_decode(vb, &v);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, &map, &s), 0);
	ck_assert(s.gauge == 1.0);
	snmp_free_varbind(vb);
	vb = vb_new(ASN_INTEGER, &down, sizeof down);
	snmp_vb_decode(vb, &v);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, &map, &s), 0);
	ck_assert(s.gauge == 0.0);
	snmp_free_varbind(vb);
	vb = vb_new(ASN_INTEGER, &odd, sizeof odd);
	snmp_vb_decode(vb, &v);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, &map, &s),
			 -EINVAL);
	snmp_free_varbind(vb);
}
END_TEST

START_TEST(test_exceptions_end_walks_and_are_not_samples)
{
	static const u_char types[] = { SNMP_NOSUCHOBJECT, SNMP_NOSUCHINSTANCE,
					SNMP_ENDOFMIBVIEW };
	static const enum snmp_vb_kind kinds[] = { SNMP_VB_NOSUCHOBJECT,
						   SNMP_VB_NOSUCHINSTANCE,
						   SNMP_VB_ENDOFMIBVIEW };
	for (int i = 0; i < 3; i++) {
		netsnmp_variable_list *vb = vb_new(types[i], NULL, 0);
		struct snmp_vb_value v;
		struct snmp_vb_sample s;
		ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
		ck_assert_int_eq(v.kind, kinds[i]);
		ck_assert(snmp_vb_is_exception(v.kind));
		ck_assert_int_eq(
		    snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s), -EINVAL);
		ck_assert_int_eq(
		    snmp_vb_sample(&v, SNMP_SAMPLE_GAUGE, NULL, &s), -EINVAL);
		snmp_free_varbind(vb);
	}
}
END_TEST

START_TEST(test_strings_are_not_counters)
{
	netsnmp_variable_list *vb = vb_new(ASN_OCTET_STR, "Ethernet1", 9);
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(v.kind, SNMP_VB_STRING);
	ck_assert_uint_eq(v.len, 9);
	ck_assert(memcmp(v.str, "Ethernet1", 9) == 0);
	ck_assert(!snmp_vb_is_exception(v.kind));
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s),
			 -EINVAL);
	snmp_free_varbind(vb);
}
END_TEST

START_TEST(test_row_port_and_priority)
{
	struct snmp_vb_index idx = { .el = { SNMP_IDX_PORT, SNMP_IDX_PRIORITY },
				     .n = 2 };
	struct snmp_vb_row r;
	oid in[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 17, 3 };
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), in, OID_LENGTH(in), &idx, &r), 0);
	ck_assert_uint_eq(r.ifindex, 17);
	ck_assert_int_eq(r.priority, 3);
	/* Priority 8 is out of range; with base 1 it is priority 7. */
	in[12] = 8;
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), in, OID_LENGTH(in), &idx, &r),
	    -EINVAL);
	idx.priority_base = 1;
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), in, OID_LENGTH(in), &idx, &r), 0);
	ck_assert_int_eq(r.priority, 7);
	in[12] = 0;
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), in, OID_LENGTH(in), &idx, &r),
	    -EINVAL);
}
END_TEST

START_TEST(test_row_outside_column_and_bad_shapes)
{
	struct snmp_vb_index idx = { .el = { SNMP_IDX_PORT }, .n = 1 };
	struct snmp_vb_row r;
	oid next_col[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 7, 1 };
	ck_assert_int_eq(snmp_vb_row(COL, OID_LENGTH(COL), next_col,
				     OID_LENGTH(next_col), &idx, &r),
			 -ENOENT);
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), COL, OID_LENGTH(COL), &idx, &r),
	    -ENOENT);
	oid two[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 1, 2 };
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), two, OID_LENGTH(two), &idx, &r),
	    -EINVAL);
	oid zero[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 0 };
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), zero, OID_LENGTH(zero), &idx, &r),
	    -EINVAL);
	/* A fixed element filters rows (Arista's unicast queues). */
	struct snmp_vb_index fx = { .el = { SNMP_IDX_PORT, SNMP_IDX_FIXED,
					    SNMP_IDX_PRIORITY },
				    .fixed = { 0, 0, 0 },
				    .n = 3 };
	oid uc[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6, 5, 0, 3 };
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), uc, OID_LENGTH(uc), &fx, &r), 0);
	ck_assert_uint_eq(r.ifindex, 5);
	ck_assert_int_eq(r.priority, 3);
	uc[12] = 1;
	ck_assert_int_eq(
	    snmp_vb_row(COL, OID_LENGTH(COL), uc, OID_LENGTH(uc), &fx, &r),
	    -EINVAL);
}
END_TEST

/* A Counter32 varbind's sample, written to a store series the way the
 * collector writes it: the width comes from the type. */
static uint64_t sample_of(u_char type, uint64_t value, uint8_t *width)
{
	netsnmp_variable_list *vb;
	struct snmp_vb_value v;
	struct snmp_vb_sample s;
	if (type == ASN_COUNTER64) {
		struct counter64 c = { .high = (u_long)(value >> 32),
				       .low = (u_long)(value & 0xffffffffu) };
		vb = vb_new(type, &c, sizeof c);
	} else {
		long x = (long)value;
		vb = vb_new(type, &x, sizeof x);
	}
	ck_assert_int_eq(snmp_vb_decode(vb, &v), 0);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s), 0);
	snmp_free_varbind(vb);
	*width = s.width;
	return s.raw;
}

START_TEST(test_counter32_wrap_gives_the_true_rate)
{
	struct store *st = store_new(NULL);
	struct store_key k = { .device = store_intern(st, "sw"),
			       .port = store_intern(st, "Ethernet1"),
			       .counter = FM_C_DISCARDS_RX };
	uint8_t w;
	uint64_t a = sample_of(ASN_COUNTER, 4294967000u, &w);
	struct store_series_spec spec = { .owner = k.device, .width = w };
	store_handle h = store_series(st, &k, &spec);
	ck_assert_uint_eq(w, 32);
	ck_assert_int_eq(store_update(st, h, a, 1000000000), 0);
	uint64_t b = sample_of(ASN_COUNTER, 200, &w);
	ck_assert_int_eq(store_update(st, h, b, 2000000000), 0);
	struct store_sample out;
	ck_assert_int_eq(store_read(st, store_handle_slot(h), &out), 0);
	ck_assert(out.has_rate);
	ck_assert_msg(out.rate > 495.9 && out.rate < 496.1, "rate %f",
		      out.rate);
	store_free(st);
}
END_TEST

START_TEST(test_counter64_going_back_is_a_reset_not_a_spike)
{
	struct store *st = store_new(NULL);
	struct store_key k = { .device = store_intern(st, "sw"),
			       .port = store_intern(st, "Ethernet1"),
			       .counter = FM_C_BYTES_RX };
	uint8_t w;
	uint64_t a = sample_of(ASN_COUNTER64, 5000000000000ull, &w);
	struct store_series_spec spec = { .owner = k.device, .width = w };
	store_handle h = store_series(st, &k, &spec);
	ck_assert_uint_eq(w, 64);
	ck_assert_int_eq(store_update(st, h, a, 1000000000), 0);
	ck_assert_int_eq(
	    store_update(st, h, sample_of(ASN_COUNTER64, 1000, &w), 2000000000),
	    0);
	struct store_sample out;
	store_read(st, store_handle_slot(h), &out);
	ck_assert(!out.has_rate);
	ck_assert(out.value == 5000000000000.0);
	struct store_stats ss;
	store_get_stats(st, &ss);
	ck_assert_uint_eq(ss.resets_total, 1);
	store_free(st);
}
END_TEST

static struct snmp_profile *load(const char *yaml, char *err, size_t len)
{
	return snmp_profile_load_buffer("p.yaml", yaml, strlen(yaml), NULL, err,
					len);
}

START_TEST(test_profile_loads_columns)
{
	char err[512];
	struct snmp_profile *p =
	    load("name: t\nmatch: [1.3.6.1.4.1.30065]\ncolumns:\n"
		 "  - oid: 1.3.6.1.2.1.31.1.1.1.6\n    counter: bytes_rx\n"
		 "  - oid: .1.3.6.1.2.1.2.2.1.10\n    counter: bytes_rx\n"
		 "    fallback_for: 1.3.6.1.2.1.31.1.1.1.6\n"
		 "  - oid: 1.3.6.1.4.1.9.9.813.1.2.1.3\n"
		 "    counter: pfc_rx_frames\n    index: [port, priority]\n"
		 "  - oid: 1.3.6.1.2.1.2.2.1.8\n    counter: link_up\n"
		 "    values: {1: 1, 2: 0}\n",
		 err, sizeof err);
	ck_assert_msg(p, "%s", err);
	ck_assert_uint_eq(p->n_cols, 4);
	ck_assert_int_eq(p->cols[0].counter, FM_C_BYTES_RX);
	ck_assert_int_eq(p->cols[0].fallback_for, -1);
	ck_assert_int_eq(p->cols[1].fallback_for, 0);
	ck_assert_uint_eq(p->cols[1].oid_len, 10);
	ck_assert_int_eq(p->cols[2].index.el[1], SNMP_IDX_PRIORITY);
	ck_assert_int_eq(p->cols[3].kind, SNMP_SAMPLE_GAUGE);
	ck_assert_uint_eq(p->cols[3].n_map, 2);
	ck_assert_str_eq(p->cols[0].name, "1.3.6.1.2.1.31.1.1.1.6");
	/* The column with a 32-bit fallback is declared 64 bits wide; the
	 * others take their varbinds' types. */
	ck_assert_uint_eq(p->cols[0].width, 64);
	ck_assert_uint_eq(p->cols[1].width, 0);
	ck_assert_uint_eq(p->cols[2].width, 0);
	snmp_profile_free(p);
	p = load("name: t\ncolumns:\n"
		 "  - oid: 1.3.6.1.4.1.9.9.813.1.2.1.3\n"
		 "    counter: pfc_rx_frames\n    index: [port, priority]\n"
		 "    width: 64\n"
		 "  - oid: 1.3.6.1.2.1.2.2.1.10\n    counter: bytes_rx\n"
		 "    width: 32\n",
		 err, sizeof err);
	ck_assert_msg(p, "%s", err);
	ck_assert_uint_eq(p->cols[0].width, 64);
	ck_assert_uint_eq(p->cols[1].width, 32);
	snmp_profile_free(p);
}
END_TEST

/* A counter in a column of the other width is refused by its type: a
 * Counter32 (or Gauge32) in an HC column would make its 32-bit wrap a
 * 64-bit delta of ~1.8e19. */
START_TEST(test_width_is_checked_against_the_column)
{
	long x = 0xfffffff0L;
	struct counter64 c = { .high = 1, .low = 5 };
	netsnmp_variable_list *c32 = vb_new(ASN_COUNTER, &x, sizeof x);
	netsnmp_variable_list *g32 = vb_new(ASN_GAUGE, &x, sizeof x);
	netsnmp_variable_list *c64 = vb_new(ASN_COUNTER64, &c, sizeof c);
	struct snmp_vb_value v;
	struct snmp_vb_sample s32, sg, s64;
	ck_assert_int_eq(snmp_vb_decode(c32, &v), 0);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s32),
			 0);
	ck_assert_int_eq(snmp_vb_decode(g32, &v), 0);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &sg), 0);
	ck_assert_int_eq(snmp_vb_decode(c64, &v), 0);
	ck_assert_int_eq(snmp_vb_sample(&v, SNMP_SAMPLE_COUNTER, NULL, &s64),
			 0);
	ck_assert_int_eq(snmp_vb_check_width(&s32, 64), -EPROTO);
	ck_assert_int_eq(snmp_vb_check_width(&sg, 64), -EPROTO);
	ck_assert_int_eq(snmp_vb_check_width(&s64, 64), 0);
	ck_assert_int_eq(snmp_vb_check_width(&s64, 32), -EPROTO);
	ck_assert_int_eq(snmp_vb_check_width(&s32, 32), 0);
	ck_assert_int_eq(snmp_vb_check_width(&s32, 0), 0);
	ck_assert_int_eq(snmp_vb_check_width(&s64, 0), 0);
	snmp_free_varbind(c32);
	snmp_free_varbind(g32);
	snmp_free_varbind(c64);
}
END_TEST

static void expect_error(const char *yaml, const char *want)
{
	char err[512];
	struct snmp_profile *p = load(yaml, err, sizeof err);
	ck_assert_msg(!p, "loaded: %s", yaml);
	ck_assert_msg(strstr(err, want), "error \"%s\" lacks \"%s\"", err,
		      want);
}

START_TEST(test_profile_errors_name_line_col_and_key)
{
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6.1\n"
		     "    counter: pfc_rx_frame\n",
		     "p.yaml:4:14: columns[0].counter: unknown counter "
		     "\"pfc_rx_frame\" (did you mean \"pfc_rx_frames\"?)");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6.1\n"
		     "    counter: bytes_rx\n    width: 48\n",
		     "columns[0].width: must be 32 or 64");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6.1\n"
		     "    counter: link_speed\n    width: 32\n",
		     "only counters take width");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.x\n    counter: "
		     "bytes_rx\n",
		     "p.yaml:3:10: columns[0].oid: \"1.3.x\" is not a numeric "
		     "OID");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "pfc_rx_frames\n",
		     "must include priority");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    index: [port, priority]\n",
		     "cannot include priority");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    index: [priority]\n",
		     "the index must include port");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    values: {1: 1}\n",
		     "only gauges take values");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    fallback_for: 1.3.7\n",
		     "no earlier column has this OID");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    colour: red\n",
		     "colour");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n  - oid: 1.3.6\n    counter: bytes_tx\n",
		     "listed twice");
	expect_error("name: t\n", "no columns");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    scale: 0\n",
		     "positive");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "bytes_rx\n    scale: 1e999\n",
		     "p.yaml:5:12: columns[0].scale: \"1e999\" is out of range "
		     "(a number is 0 or of magnitude 2.2e-308 to 1.8e+308)");
	expect_error("name: t\ncolumns:\n  - oid: 1.3.6\n    counter: "
		     "link_up\n    values: {1: nan}\n",
		     "p.yaml:5:17: columns[0].values.1: \"nan\" is not a "
		     "number");
}
END_TEST

static char *profiles_dir(void)
{
	const char *src = getenv("top_srcdir");
	char *d = NULL;
	if (asprintf(&d, "%s/etc/profiles", src ? src : ".") < 0)
		abort();
	return d;
}

START_TEST(test_shipped_profiles_load_and_choose_by_sysobjectid)
{
	char *dir = profiles_dir();
	struct snmp_profile_set set;
	size_t n = snmp_profile_set_load(&set, dir, NULL, NULL);
	ck_assert_uint_ge(n, 6);
	ck_assert_uint_eq(n, set.n);
	static const struct {
		oid o[16];
		size_t len;
		const char *want;
	} cases[] = {
		/* The recordings' sysObjectIDs. */
		{ { 1, 3, 6, 1, 4, 1, 30065, 1, 3011, 7050, 1958, 128 },
		  12,
		  "snmp-arista" },
		{ { 1, 3, 6, 1, 4, 1, 9, 12, 3, 1, 3, 2193 },
		  12,
		  "snmp-cisco" },
		{ { 1, 3, 6, 1, 4, 1, 4413, 1, 2, 1, 2, 34 },
		  12,
		  "snmp-sonic" },
		{ { 1, 3, 6, 1, 4, 1, 8072, 3, 2, 10 }, 10, "snmp-generic" },
		{ { 1, 3, 6, 1, 4, 1, 2636, 1, 1, 1, 4, 82, 28 },
		  13,
		  "snmp-generic" },
		{ { 1, 3, 6, 1, 4, 1, 33049, 1 }, 8, "snmp-mellanox" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct snmp_profile *p =
		    snmp_profile_choose(&set, cases[i].o, cases[i].len);
		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p->name, cases[i].want);
	}
	/* Includes come first: the Arista profile has every generic
	 * column and its own PFC table. */
	const struct snmp_profile *g = snmp_profile_find(&set, "snmp-generic");
	const struct snmp_profile *a = snmp_profile_find(&set, "snmp-arista");
	ck_assert_uint_gt(a->n_cols, g->n_cols);
	for (size_t i = 0; i < g->n_cols; i++) {
		ck_assert_str_eq(a->cols[i].name, g->cols[i].name);
		ck_assert_int_eq(a->cols[i].fallback_for,
				 g->cols[i].fallback_for);
		ck_assert_uint_eq(a->cols[i].width, g->cols[i].width);
	}
	/* snmp-generic's HC columns are declared 64 bits wide. */
	for (size_t i = 0; i < g->n_cols; i++)
		if (strncmp(g->cols[i].name, "ifHC", 4) == 0)
			ck_assert_uint_eq(g->cols[i].width, 64);
	snmp_profile_set_clear(&set);
	free(dir);
}
END_TEST

/* The SNMPv3 key cache derives each (auth, password) once, holds at
 * most its capacity (the least recently used entry goes), refuses a
 * short password and leaves no byte of a key or password behind. */
START_TEST(test_v3_key_cache_is_bounded_and_wiped)
{
	struct snmp_keys *c = snmp_keys_new(2);
	ck_assert(snmp_keys_wiped(c));
	uint8_t a[SNMP_KEYS_KU_MAX], b[SNMP_KEYS_KU_MAX];
	size_t la, lb;
	char err[128];
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "password-one",
				       a, &la, err, sizeof err),
			 0);
	ck_assert_uint_gt(la, 0);
	/* A hit gives the same key without deriving again. */
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "password-one",
				       b, &lb, err, sizeof err),
			 0);
	ck_assert_uint_eq(la, lb);
	ck_assert_mem_eq(a, b, la);
	ck_assert_uint_eq(snmp_keys_count(c), 1);
	/* Another protocol is another key. */
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA512, "password-one",
				       b, &lb, err, sizeof err),
			 0);
	ck_assert_uint_eq(snmp_keys_count(c), 2);
	/* Use the first again, then a third evicts the second. */
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "password-one",
				       b, &lb, err, sizeof err),
			 0);
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "password-two",
				       b, &lb, err, sizeof err),
			 0);
	ck_assert_uint_eq(snmp_keys_count(c), 2);
	ck_assert(snmp_keys_has(c, CFG_SNMP_AUTH_SHA256, "password-one"));
	ck_assert(snmp_keys_has(c, CFG_SNMP_AUTH_SHA256, "password-two"));
	ck_assert(!snmp_keys_has(c, CFG_SNMP_AUTH_SHA512, "password-one"));
	/* Too short to derive: an error, nothing cached. */
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "short", b, &lb,
				       err, sizeof err),
			 -EINVAL);
	ck_assert_str_eq(err, "cannot derive a key from the password (at "
			      "least 8 characters)");
	ck_assert_uint_eq(snmp_keys_count(c), 2);
	ck_assert(!snmp_keys_wiped(c));
	snmp_keys_clear(c);
	ck_assert_uint_eq(snmp_keys_count(c), 0);
	ck_assert(snmp_keys_wiped(c));
	ck_assert(!snmp_keys_has(c, CFG_SNMP_AUTH_SHA256, "password-one"));
	/* A cleared cache derives again, the same key. */
	ck_assert_int_eq(snmp_keys_get(c, CFG_SNMP_AUTH_SHA256, "password-one",
				       b, &lb, err, sizeof err),
			 0);
	ck_assert_mem_eq(a, b, la);
	snmp_keys_free(c);
	snmp_keys_free(NULL);
}
END_TEST

static Suite *snmp_suite(void)
{
	Suite *s = suite_create("snmp");
	TCase *tc = tcase_create("varbind");
	tcase_add_test(tc, test_counter64_is_width_64);
	tcase_add_test(tc, test_counter32_is_width_32_at_its_max);
	tcase_add_test(tc, test_gauge_timeticks_and_integer);
	tcase_add_test(tc, test_value_map_translates_and_refuses_unknown);
	tcase_add_test(tc, test_exceptions_end_walks_and_are_not_samples);
	tcase_add_test(tc, test_strings_are_not_counters);
	tcase_add_test(tc, test_row_port_and_priority);
	tcase_add_test(tc, test_row_outside_column_and_bad_shapes);
	tcase_add_test(tc, test_counter32_wrap_gives_the_true_rate);
	tcase_add_test(tc, test_counter64_going_back_is_a_reset_not_a_spike);
	suite_add_tcase(s, tc);
	tc = tcase_create("profile");
	tcase_add_test(tc, test_profile_loads_columns);
	tcase_add_test(tc, test_width_is_checked_against_the_column);
	tcase_add_test(tc, test_profile_errors_name_line_col_and_key);
	tcase_add_test(tc,
		       test_shipped_profiles_load_and_choose_by_sysobjectid);
	suite_add_tcase(s, tc);
	tc = tcase_create("keys");
	tcase_add_test(tc, test_v3_key_cache_is_bounded_and_wiped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(snmp_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
