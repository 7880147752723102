/*
 * check_ytree: the shared YAML tree. The loader's bounds (bytes, depth,
 * anchors, documents) hold with the caller's limits; nodes carry their
 * 1-based line:column; the key path grows and is cut back; the getters
 * (a double among them) and the key table give their exact one-line
 * messages, in the one dialect every loader shares.
 */
#include "config.h"

#include "ytree.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char err[512];
static struct ytree_ctx x;
static struct ytree_node *root;

static void setup(void)
{
	memset(&x, 0, sizeof x);
	x.name = "t.yaml";
	x.err = err;
	x.errlen = sizeof err;
	err[0] = '\0';
	root = NULL;
}

static void teardown(void)
{
	ytree_free(root);
}

static int load(const char *yaml)
{
	return ytree_load(&x, yaml, strlen(yaml), 4096, 4, &root);
}

enum { K_NAME, K_INTERVAL, K_COUNT, K_ON, K_N };
static const char *const keys[K_N] = { "name", "interval", "count", "on" };

START_TEST(test_limits_are_the_callers)
{
	char big[5000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(load(big), -EINVAL);
	ck_assert_str_eq(err, "t.yaml: file is larger than 4096 bytes");
	ck_assert_ptr_null(root);

	ck_assert_int_eq(load("a: {b: {c: {d: 1}}}\n"), 0);
	ytree_free(root);
	ck_assert_int_eq(load("a: {b: {c: {d: {e: 1}}}}\n"), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:1:16: nested deeper than 4 levels");
	ck_assert_ptr_null(root);
}
END_TEST

START_TEST(test_refuses_anchors_documents_and_bad_syntax)
{
	ck_assert_int_eq(load("a: &x 1\nb: *x\n"), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:1:4: anchors and aliases are not "
			      "supported");
	ck_assert_int_eq(load("a: 1\n---\nb: 2\n"), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:2:1: only one YAML document is allowed");
	ck_assert_int_eq(load("a: [1\n"), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:2:1: did not find expected ',' or ']' "
			      "(while parsing a flow sequence at 1:4)");
	ck_assert_int_eq(load(""), 0);
	ck_assert_ptr_null(root);
}
END_TEST

START_TEST(test_nodes_carry_their_marks)
{
	ck_assert_int_eq(load("top:\n  - one\n  -   \"two\"\n"), 0);
	ck_assert_int_eq(root->kind, YTREE_MAP);
	ck_assert_uint_eq(root->line, 1);
	ck_assert_uint_eq(root->col, 1);
	const struct ytree_node *seq = root->kids[1];
	ck_assert_int_eq(seq->kind, YTREE_SEQ);
	ck_assert_uint_eq(seq->n, 2);
	ck_assert_uint_eq(seq->kids[1]->line, 3);
	ck_assert_uint_eq(seq->kids[1]->col, 7);
	ck_assert_str_eq(seq->kids[1]->str, "two");
	ck_assert(!seq->kids[1]->plain);
}
END_TEST

START_TEST(test_key_path_grows_and_is_cut)
{
	struct ytree_fields f;
	ck_assert_int_eq(load("targets:\n  - {name: a}\n  - {nmae: b}\n"), 0);
	size_t top = ytree_path_key(&x, "targets");
	size_t item = ytree_path_index(&x, 0);
	ck_assert_str_eq(x.path, "targets[0]");
	ytree_path_cut(&x, item);
	ytree_path_index(&x, 1);
	ck_assert_int_eq(
	    ytree_fields_get(&x, root->kids[1]->kids[1], keys, K_N, &f),
	    -EINVAL);
	ck_assert_str_eq(err, "t.yaml:3:6: targets[1].nmae: unknown key "
			      "(did you mean \"name\"?)");
	ytree_path_cut(&x, top);
	ck_assert_str_eq(x.path, "");
}
END_TEST

START_TEST(test_fields_and_getters_messages)
{
	struct ytree_fields f;
	unsigned count = 0;
	uint64_t ns = 0;
	bool on = false;
	char *name = NULL;

	ck_assert_int_eq(load("name: x\ninterval: 2s\ncount: 7\non: yes\n"), 0);
	ck_assert_int_eq(ytree_fields_get(&x, root, keys, K_N, &f), 0);
	ck_assert_int_eq(ytree_opt_str(&x, &f, K_NAME, &name), 0);
	ck_assert_int_eq(ytree_opt_duration(&x, &f, K_INTERVAL, 1000000000,
					    UINT64_MAX, false, &ns),
			 0);
	ck_assert_int_eq(ytree_opt_uint(&x, &f, K_COUNT, 1, 10, &count), 0);
	ck_assert_int_eq(ytree_opt_bool(&x, &f, K_ON, &on), 0);
	ck_assert_str_eq(name, "x");
	ck_assert_uint_eq(ns, 2000000000);
	ck_assert_uint_eq(count, 7);
	ck_assert(on);
	ck_assert_str_eq(x.path, "");
	free(name);

	ck_assert_int_eq(ytree_opt_uint(&x, &f, K_COUNT, 1, 5, &count),
			 -EINVAL);
	ck_assert_str_eq(err, "t.yaml:3:8: count: must be between 1 and 5, "
			      "not 7");
	ytree_path_cut(&x, 0);
	ck_assert_int_eq(ytree_need(&x, &f, K_NAME), 0);
	ck_assert_int_eq(ytree_fail_key(&x, &f, K_ON, "needs %s", "name"),
			 -EINVAL);
	ck_assert_str_eq(err, "t.yaml:4:5: on: needs name");
	ytree_path_cut(&x, 0);
	ck_assert_int_eq(ytree_bool(&x, root->kids[0], &on), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:1:1: expected a boolean (true/false, "
			      "yes/no, on/off), not \"name\"");
}
END_TEST

START_TEST(test_duplicates_nulls_and_minus)
{
	struct ytree_fields f;
	uint64_t v = 0;

	ck_assert_int_eq(load("count: 1\ncount: 2\n"), 0);
	ck_assert_int_eq(ytree_fields_get(&x, root, keys, K_N, &f), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:2:1: count: duplicate key (first at "
			      "1:1)");
	ytree_free(root);
	ytree_path_cut(&x, 0);

	ck_assert_int_eq(load("[~, NULL, nUlL, -0, -1]\n"), 0);
	ck_assert(ytree_is_null(root->kids[0]));
	ck_assert(ytree_is_null(root->kids[1]));
	ck_assert(!ytree_is_null(root->kids[2]));
	ck_assert_int_eq(ytree_uint(&x, root->kids[3], 0, 9, &v), 0);
	ck_assert_int_eq(ytree_uint(&x, root->kids[4], 0, 9, &v), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:1:21: must be between 0 and 9, not -1");
	/* Only null, Null and NULL (and "", ~) are null: nUlL is a word. */
	ck_assert_int_eq(ytree_uint(&x, root->kids[2], 0, 9, &v), -EINVAL);
	ck_assert_str_eq(err, "t.yaml:1:11: expected a number, not \"nUlL\"");
}
END_TEST

START_TEST(test_double_is_finite_decimal)
{
	static const char *const bad[] = {
		"t.yaml:1:27: scale: \"1e999\" is out of range (a number is 0 "
		"or of magnitude 2.2e-308 to 1.8e+308)",
		"t.yaml:1:34: scale: \"1e-400\" is out of range (a number is 0 "
		"or of magnitude 2.2e-308 to 1.8e+308)",
		"t.yaml:1:42: scale: \"inf\" is not a number",
		"t.yaml:1:47: scale: \"nan\" is not a number",
		"t.yaml:1:52: scale: \"0x10\" is not a number",
		"t.yaml:1:58: scale: \"1.5x\" is not a number",
		"t.yaml:1:64: scale: expected a number, not a mapping",
		"t.yaml:1:72: scale: missing value (expected a number)",
	};
	static const double good[] = { 1e-6, -2.5, 0.5, 125000 };
	double d = 7;

	ck_assert_int_eq(load("[1e-6, -2.5, +.5, 125000, 1e999, 1e-400, inf, "
			      "nan, 0x10, 1.5x, {a: 1}, ~]\n"),
			 0);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_int_eq(ytree_node_double(&x, root->kids[i], &d), 0);
		ck_assert(d == good[i]);
	}
	ytree_path_key(&x, "scale");
	for (size_t i = 0; i < 8; i++) {
		ck_assert_int_eq(ytree_node_double(&x, root->kids[4 + i], &d),
				 -EINVAL);
		ck_assert_str_eq(err, bad[i]);
		/* A failed read leaves *out alone. */
		ck_assert(d == 125000);
	}
}
END_TEST

static Suite *ytree_suite(void)
{
	Suite *s = suite_create("ytree");
	TCase *tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_limits_are_the_callers);
	tcase_add_test(tc, test_refuses_anchors_documents_and_bad_syntax);
	tcase_add_test(tc, test_nodes_carry_their_marks);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_key_path_grows_and_is_cut);
	tcase_add_test(tc, test_fields_and_getters_messages);
	tcase_add_test(tc, test_duplicates_nulls_and_minus);
	tcase_add_test(tc, test_double_is_finite_decimal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ytree_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
