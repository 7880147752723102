/*
 * check_gnmi_path: the gNMI path module. Paths parse and print back
 * identically; escapes, keys (sorted), wildcards, origins and relative
 * paths behave as path.h says; bad paths fail with the column; joins
 * take origin and target from the right side; protobuf conversions keep
 * everything, for elem and for the deprecated element strings.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* the tests build Path.element */
#include "gnmi.pb-c.h"

#include "path.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char err[256];

static struct gnmi_path parse_ok(const char *s)
{
	struct gnmi_path p;
	int rc = gnmi_path_parse(s, &p, err, sizeof err);

	ck_assert_msg(rc == 0, "%s: %s", s, err);
	ck_assert_str_eq(err, "");
	return p;
}

/* s parses and prints as want. */
static void expect_print(const char *s, const char *want)
{
	struct gnmi_path p = parse_ok(s);
	char *got = gnmi_path_string(&p);

	ck_assert_str_eq(got, want);
	free(got);
	/* and what was printed parses to the same path again */
	struct gnmi_path q = parse_ok(want);
	got = gnmi_path_string(&q);
	ck_assert_str_eq(got, want);
	free(got);
	gnmi_path_clear(&q);
	gnmi_path_clear(&p);
}

static void expect_error(const char *s, const char *msg)
{
	struct gnmi_path p;

	memset(&p, 0xa5, sizeof p);
	ck_assert_int_eq(gnmi_path_parse(s, &p, err, sizeof err), -EINVAL);
	ck_assert_str_eq(err, msg);
	ck_assert_ptr_null(p.elem);
	ck_assert_ptr_null(p.origin);
	ck_assert_uint_eq(p.n_elem, 0);
}

START_TEST(test_plain_paths_print_back_identically)
{
	expect_print("/", "/");
	expect_print("/interfaces", "/interfaces");
	expect_print("/interfaces/interface[name=Ethernet1]/state/counters",
		     "/interfaces/interface[name=Ethernet1]/state/counters");
	expect_print("/a/b/", "/a/b");
}
END_TEST

START_TEST(test_path_elements_and_keys_are_split)
{
	struct gnmi_path p =
	    parse_ok("/interfaces/interface[name=Ethernet1/1]/state");

	ck_assert_ptr_null(p.origin);
	ck_assert_ptr_null(p.target);
	ck_assert_uint_eq(p.n_elem, 3);
	ck_assert_str_eq(p.elem[0].name, "interfaces");
	ck_assert_uint_eq(p.elem[0].n_keys, 0);
	ck_assert_str_eq(p.elem[1].name, "interface");
	ck_assert_uint_eq(p.elem[1].n_keys, 1);
	ck_assert_str_eq(p.elem[1].keys[0].name, "name");
	ck_assert_str_eq(p.elem[1].keys[0].value, "Ethernet1/1");
	ck_assert_str_eq(p.elem[2].name, "state");
	gnmi_path_clear(&p);
	gnmi_path_clear(&p); /* clearing twice is harmless */
}
END_TEST

START_TEST(test_key_values_keep_escaped_brackets_and_plain_slashes)
{
	struct gnmi_path p = parse_ok("/a[k=x\\]y\\\\z/w[v]/b");

	ck_assert_uint_eq(p.n_elem, 2);
	ck_assert_str_eq(p.elem[0].keys[0].value, "x]y\\z/w[v");
	gnmi_path_clear(&p);
	expect_print("/a[k=x\\]y\\\\z/w[v]/b", "/a[k=x\\]y\\\\z/w[v]/b");
	/* '/' and '[' need no escape in a value: printing leaves them bare */
	expect_print("/a[k=1\\/2]", "/a[k=1/2]");
	expect_print("/a[k=]", "/a[k=]");
	expect_print("/a[k=a=b]", "/a[k=a=b]");
}
END_TEST

START_TEST(test_names_escape_slash_brackets_and_backslash)
{
	struct gnmi_path p = parse_ok("/a\\/b/c\\[0\\]/d\\\\e");

	ck_assert_uint_eq(p.n_elem, 3);
	ck_assert_str_eq(p.elem[0].name, "a/b");
	ck_assert_str_eq(p.elem[1].name, "c[0]");
	ck_assert_str_eq(p.elem[2].name, "d\\e");
	gnmi_path_clear(&p);
	expect_print("/a\\/b/c\\[0\\]/d\\\\e", "/a\\/b/c\\[0\\]/d\\\\e");
	/* key names escape like names, plus '=' */
	p = parse_ok("/x[a\\=b\\]=1]");
	ck_assert_str_eq(p.elem[0].keys[0].name, "a=b]");
	ck_assert_str_eq(p.elem[0].keys[0].value, "1");
	gnmi_path_clear(&p);
	expect_print("/x[a\\=b\\]=1]", "/x[a\\=b\\]=1]");
}
END_TEST

START_TEST(test_multiple_keys_are_sorted_by_name)
{
	struct gnmi_path p = parse_ok("/q/queue[name=3][interface-id=Eth1]");

	ck_assert_uint_eq(p.elem[1].n_keys, 2);
	ck_assert_str_eq(p.elem[1].keys[0].name, "interface-id");
	ck_assert_str_eq(p.elem[1].keys[1].name, "name");
	gnmi_path_clear(&p);
	expect_print("/q[c=3][a=1][b=2]", "/q[a=1][b=2][c=3]");
}
END_TEST

START_TEST(test_wildcards_are_detected)
{
	static const struct {
		const char *path;
		bool wild;
	} cases[] = {
		{ "/a/b", false },	    { "/a/*/b", true },
		{ "/a/.../b", true },	    { "/a[name=*]/b", true },
		{ "/a[name=x*]/b", false }, { "COUNTERS/Ethernet*", false },
		{ "/a/b*", false },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gnmi_path p = parse_ok(cases[i].path);

		ck_assert_msg(gnmi_path_has_wildcards(&p) == cases[i].wild,
			      "%s", cases[i].path);
		gnmi_path_clear(&p);
	}
	expect_print("/a/*/...[k=*]", "/a/*/...[k=*]");
}
END_TEST

START_TEST(test_origin_prefix_is_split_off)
{
	struct gnmi_path p = parse_ok("openconfig:/qos/interfaces");

	ck_assert_str_eq(p.origin, "openconfig");
	ck_assert_uint_eq(p.n_elem, 2);
	ck_assert_str_eq(p.elem[0].name, "qos");
	gnmi_path_clear(&p);
	expect_print("openconfig:/qos/interfaces",
		     "openconfig:/qos/interfaces");
	expect_print("rfc7951:/", "rfc7951:/");
	expect_print("cli:", "cli:/");
	/* a ':' after the first '/' is part of a name */
	p = parse_ok("/a/b:c");
	ck_assert_ptr_null(p.origin);
	ck_assert_str_eq(p.elem[1].name, "b:c");
	gnmi_path_clear(&p);
	expect_print("/a:b/c", "/a:b/c");
	/* ... as is one inside a key, or an escaped one */
	p = parse_ok("q[name=Ethernet68:3]/x");
	ck_assert_ptr_null(p.origin);
	ck_assert_str_eq(p.elem[0].keys[0].value, "Ethernet68:3");
	gnmi_path_clear(&p);
	p = parse_ok("Ethernet68\\:3/x");
	ck_assert_ptr_null(p.origin);
	ck_assert_str_eq(p.elem[0].name, "Ethernet68:3");
	gnmi_path_clear(&p);
}
END_TEST

START_TEST(test_relative_paths_parse_like_absolute_ones)
{
	struct gnmi_path p = parse_ok("COUNTERS/Ethernet*");

	ck_assert_ptr_null(p.origin);
	ck_assert_uint_eq(p.n_elem, 2);
	ck_assert_str_eq(p.elem[0].name, "COUNTERS");
	ck_assert_str_eq(p.elem[1].name, "Ethernet*");
	gnmi_path_clear(&p);
	expect_print("COUNTERS/Ethernet68/Queues",
		     "/COUNTERS/Ethernet68/Queues");
	expect_print("", "/");
}
END_TEST

START_TEST(test_bad_paths_name_the_column)
{
	expect_error("/interfaces/interface[name=eth0",
		     "column 22: unterminated key");
	expect_error("/a[k=v]/b[", "column 10: unterminated key");
	expect_error("/a[kv]", "column 3: key without '='");
	expect_error("/a[=v]", "column 4: empty key name");
	expect_error("/a//b", "column 4: empty element name");
	expect_error("//", "column 2: empty element name");
	expect_error("/[k=v]", "column 2: empty element name");
	expect_error("/a]b", "column 3: unexpected ']' (write \\])");
	expect_error("/a[k=v]x", "column 8: expected '/' or '[' after ']'");
	expect_error("/a\\", "column 3: '\\' escapes nothing");
	expect_error("/a[k=v\\", "column 7: '\\' escapes nothing");
	expect_error(":/a", "column 1: empty origin");
	expect_error("/x/a[k=1][j=2][k=3]", "column 4: duplicate key 'k'");
	/* a small buffer gets a truncated, terminated message */
	struct gnmi_path p;
	char small[8];
	ck_assert_int_eq(gnmi_path_parse("/a[", &p, small, sizeof small),
			 -EINVAL);
	ck_assert_str_eq(small, "column ");
	ck_assert_int_eq(gnmi_path_parse("/a[", &p, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_format_counts_like_snprintf)
{
	struct gnmi_path p = parse_ok("oc:/a[k=v]/b");
	char buf[6];

	ck_assert_uint_eq(gnmi_path_format(&p, NULL, 0), 12);
	ck_assert_uint_eq(gnmi_path_format(&p, buf, sizeof buf), 12);
	ck_assert_str_eq(buf, "oc:/a");
	gnmi_path_clear(&p);
}
END_TEST

START_TEST(test_join_appends_and_takes_origin_and_target_from_the_path)
{
	struct gnmi_path a = parse_ok("oc:/interfaces");
	struct gnmi_path b = parse_ok("interface[name=e1]/state");
	struct gnmi_path j;
	char *s;

	a.target = strdup("leaf1");
	gnmi_path_join(&j, &a, &b);
	s = gnmi_path_string(&j);
	ck_assert_str_eq(s, "oc:/interfaces/interface[name=e1]/state");
	free(s);
	ck_assert_str_eq(j.target, "leaf1");
	gnmi_path_clear(&j);

	b.origin = strdup("native");
	b.target = strdup("spine2");
	gnmi_path_join(&j, &a, &b);
	ck_assert_str_eq(j.origin, "native");
	ck_assert_str_eq(j.target, "spine2");
	ck_assert_uint_eq(j.n_elem, 3);
	gnmi_path_clear(&j);

	/* out may be one of the inputs */
	gnmi_path_join(&a, &a, &b);
	s = gnmi_path_string(&a);
	ck_assert_str_eq(s, "native:/interfaces/interface[name=e1]/state");
	free(s);
	gnmi_path_clear(&a);
	gnmi_path_clear(&b);
}
END_TEST

START_TEST(test_copy_is_deep)
{
	struct gnmi_path a = parse_ok("oc:/a[k=v]/b");
	struct gnmi_path c;
	char *s;

	gnmi_path_copy(&c, &a);
	gnmi_path_clear(&a);
	s = gnmi_path_string(&c);
	ck_assert_str_eq(s, "oc:/a[k=v]/b");
	free(s);
	gnmi_path_clear(&c);
}
END_TEST

START_TEST(test_from_pb_reads_elems_and_sorts_keys)
{
	Gnmi__PathElem__KeyEntry k1 = GNMI__PATH_ELEM__KEY_ENTRY__INIT;
	Gnmi__PathElem__KeyEntry k2 = GNMI__PATH_ELEM__KEY_ENTRY__INIT;
	Gnmi__PathElem__KeyEntry k3 = GNMI__PATH_ELEM__KEY_ENTRY__INIT;
	Gnmi__PathElem__KeyEntry *keys[] = { &k1, &k2, &k3 };
	Gnmi__PathElem e0 = GNMI__PATH_ELEM__INIT, e1 = GNMI__PATH_ELEM__INIT;
	Gnmi__PathElem *elems[] = { &e0, &e1 };
	Gnmi__Path pb = GNMI__PATH__INIT;
	struct gnmi_path p;
	char *s;

	k1.key = "name";
	k1.value = "3";
	k2.key = "interface-id";
	k2.value = "Ethernet1/1";
	k3.key = "name"; /* a repeated map key: the last one wins */
	k3.value = "4";
	e0.name = "qos";
	e1.name = "queue";
	e1.n_key = 3;
	e1.key = keys;
	pb.n_elem = 2;
	pb.elem = elems;
	pb.origin = "openconfig";
	pb.target = "leaf1";
	ck_assert_int_eq(gnmi_path_from_pb(&pb, &p), 0);
	s = gnmi_path_string(&p);
	ck_assert_str_eq(s, "openconfig:/qos/queue[interface-id=Ethernet1/1]"
			    "[name=4]");
	free(s);
	ck_assert_str_eq(p.target, "leaf1");
	gnmi_path_clear(&p);

	/* an unset origin and target (protobuf's empty string) give NULL */
	Gnmi__Path empty = GNMI__PATH__INIT;
	ck_assert_int_eq(gnmi_path_from_pb(&empty, &p), 0);
	ck_assert_ptr_null(p.origin);
	ck_assert_ptr_null(p.target);
	ck_assert_uint_eq(p.n_elem, 0);
	gnmi_path_clear(&p);
}
END_TEST

START_TEST(test_from_pb_parses_deprecated_element_strings)
{
	char *strs[] = { "interfaces", "interface[name=Ethernet1/1]", "state",
			 "counters" };
	Gnmi__Path pb = GNMI__PATH__INIT;
	struct gnmi_path p;
	char *s;

	pb.n_element = 4;
	pb.element = strs;
	ck_assert_int_eq(gnmi_path_from_pb(&pb, &p), 0);
	ck_assert_uint_eq(p.n_elem, 4);
	ck_assert_str_eq(p.elem[1].name, "interface");
	ck_assert_str_eq(p.elem[1].keys[0].value, "Ethernet1/1");
	s = gnmi_path_string(&p);
	ck_assert_str_eq(s, "/interfaces/interface[name=Ethernet1/1]/state/"
			    "counters");
	free(s);
	gnmi_path_clear(&p);

	char *bad[] = { "a", "b[k=v" };
	pb.n_element = 2;
	pb.element = bad;
	ck_assert_int_eq(gnmi_path_from_pb(&pb, &p), -EINVAL);
	ck_assert_ptr_null(p.elem);
}
END_TEST

START_TEST(test_to_pb_and_back_is_the_same_path)
{
	static const char *paths[] = {
		"/",
		"openconfig:/interfaces/interface[name=Ethernet1/1]/state",
		"/q/queue[name=3][interface-id=e\\]1]/x\\/y/*/...",
	};

	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		struct gnmi_path p = parse_ok(paths[i]), q;
		Gnmi__Path *pb;
		uint8_t buf[1024];
		size_t n;
		char *a, *b;

		p.target = strdup("COUNTERS_DB");
		pb = gnmi_path_to_pb(&p);
		ck_assert_str_eq(pb->target, "COUNTERS_DB");
		/* it is a valid message: it packs and unpacks */
		n = gnmi__path__get_packed_size(pb);
		ck_assert_uint_lt(n, sizeof buf);
		ck_assert_uint_eq(gnmi__path__pack(pb, buf), n);
		Gnmi__Path *u = gnmi__path__unpack(NULL, n, buf);
		ck_assert_ptr_nonnull(u);
		ck_assert_int_eq(gnmi_path_from_pb(u, &q), 0);
		gnmi__path__free_unpacked(u, NULL);
		gnmi_path_pb_free(pb);
		a = gnmi_path_string(&p);
		b = gnmi_path_string(&q);
		ck_assert_str_eq(a, b);
		ck_assert_str_eq(q.target, "COUNTERS_DB");
		free(a);
		free(b);
		gnmi_path_clear(&p);
		gnmi_path_clear(&q);
	}
	gnmi_path_pb_free(NULL);
}
END_TEST

static Suite *gnmi_path_suite(void)
{
	Suite *s = suite_create("gnmi_path");
	TCase *tc = tcase_create("path");

	tcase_add_test(tc, test_plain_paths_print_back_identically);
	tcase_add_test(tc, test_path_elements_and_keys_are_split);
	tcase_add_test(tc,
		       test_key_values_keep_escaped_brackets_and_plain_slashes);
	tcase_add_test(tc, test_names_escape_slash_brackets_and_backslash);
	tcase_add_test(tc, test_multiple_keys_are_sorted_by_name);
	tcase_add_test(tc, test_wildcards_are_detected);
	tcase_add_test(tc, test_origin_prefix_is_split_off);
	tcase_add_test(tc, test_relative_paths_parse_like_absolute_ones);
	tcase_add_test(tc, test_bad_paths_name_the_column);
	tcase_add_test(tc, test_format_counts_like_snprintf);
	tcase_add_test(
	    tc, test_join_appends_and_takes_origin_and_target_from_the_path);
	tcase_add_test(tc, test_copy_is_deep);
	tcase_add_test(tc, test_from_pb_reads_elems_and_sorts_keys);
	tcase_add_test(tc, test_from_pb_parses_deprecated_element_strings);
	tcase_add_test(tc, test_to_pb_and_back_is_the_same_path);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_path_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
