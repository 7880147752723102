/*
 * check_expfmt: the choice of exposition format from an Accept header
 * (q-values, wildcards, versions, odd headers) and the family headers,
 * _created samples and end of each format.
 */
#include "config.h"

#include "buf.h"
#include "expfmt.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define TEXT EXPFMT_TEXT
#define OM   EXPFMT_OPENMETRICS

/* What Prometheus 2.x sends when it scrapes. */
#define PROMETHEUS_ACCEPT                                    \
	"application/openmetrics-text;version=1.0.0,"        \
	"application/openmetrics-text;version=0.0.1;q=0.75," \
	"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

static const struct {
	const char *accept;
	enum expfmt want;
} cases[] = {
	/* No header, an empty one, what curl sends. */
	{ NULL, TEXT },
	{ "", TEXT },
	{ "*/*", TEXT },
	{ PROMETHEUS_ACCEPT, OM },
	/* Prometheus 3's order, protobuf first (not served). */
	{ "application/vnd.google.protobuf;proto=io.prometheus.client."
	  "MetricFamily;encoding=delimited;q=0.8,"
	  "application/openmetrics-text;version=1.0.0;q=0.6,"
	  "text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
	  OM },
	{ "application/openmetrics-text", OM },
	{ "application/openmetrics-text; version=0.0.1", OM },
	/* A version we do not speak names nothing we serve. */
	{ "application/openmetrics-text;version=2.0.0", TEXT },
	{ "text/plain;version=1.0.0, application/openmetrics-text", OM },
	/* q decides. */
	{ "text/plain;version=0.0.4;q=0.5,"
	  "application/openmetrics-text;version=1.0.0;q=0.4",
	  TEXT },
	{ "text/plain;q=0.3, application/openmetrics-text;q=0.7", OM },
	{ "application/openmetrics-text;q=0.001, text/plain;q=0", OM },
	{ "application/openmetrics-text;q=0", TEXT },
	{ "application/openmetrics-text;q=0.000, text/plain", TEXT },
	/* On a tie, the first listed. */
	{ "text/plain, application/openmetrics-text", TEXT },
	{ "application/openmetrics-text, text/plain", OM },
	{ "application/openmetrics-text;q=0.5, text/plain;q=0.500", OM },
	/* Wildcards: the most specific range decides a format's q. */
	{ "application/*", OM },
	{ "text/*;q=0.2, application/*;q=0.9", OM },
	{ "application/*;q=0.9, application/openmetrics-text;q=0.1, "
	  "text/plain;q=0.5",
	  TEXT },
	{ "*/*;q=0.9, text/plain;q=0", OM },
	{ "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
	  TEXT },
	/* Case, spaces, quoted parameters. */
	{ " APPLICATION/OpenMetrics-Text ; Version=\"1.0.0\" ; Q=1 ", OM },
	{ "application/openmetrics-text;foo=\"a,text/plain\";q=0.1,"
	  "text/plain;q=0.2",
	  TEXT },
	/* Malformed q counts as 1. */
	{ "application/openmetrics-text;q=abc, text/plain;q=0.9", OM },
	{ "text/plain;q=0.9, application/openmetrics-text;q=1.5", OM },
	{ "text/plain;q=, application/openmetrics-text;q=0.99", TEXT },
	{ "application/openmetrics-text;q=0.1234, text/plain;q=0.9", OM },
	/* Garbage and other types. */
	{ ",,,;;;", TEXT },
	{ "application/json", TEXT },
	{ "application", TEXT },
	{ "/", TEXT },
	{ "application/openmetrics-text;version", OM },
	{ "application/openmetrics-text;=;q", OM },
	{ "\"application/openmetrics-text", TEXT },
};

START_TEST(test_negotiation)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum expfmt got = expfmt_negotiate(cases[i].accept);
		ck_assert_msg(got == cases[i].want, "Accept: %s gave %s",
			      cases[i].accept ? cases[i].accept : "(none)",
			      got == OM ? "OpenMetrics" : "text");
	}
	ck_assert_str_eq(expfmt_content_type(TEXT),
			 "text/plain; version=0.0.4; charset=utf-8");
	ck_assert_str_eq(expfmt_content_type(OM),
			 "application/openmetrics-text; version=1.0.0; "
			 "charset=utf-8");
}
END_TEST

static const char *unit(const char *name)
{
	return expfmt_unit(name, strlen(name));
}

START_TEST(test_units_are_suffixes_of_the_name)
{
	ck_assert_str_eq(unit("process_cpu_seconds"), "seconds");
	ck_assert_str_eq(unit("fabmon_store_memory_bytes"), "bytes");
	ck_assert_str_eq(unit("fabmon_pause_ratio"), "ratio");
	ck_assert_ptr_null(unit("fabmon_pfc_frames"));
	ck_assert_ptr_null(unit("fabmon_pfc_pause_seconds_total"));
	ck_assert_ptr_null(unit("x_microseconds"));
	ck_assert_ptr_null(unit("seconds"));
	ck_assert_ptr_null(unit("_seconds"));
	ck_assert_ptr_null(unit(""));
	/* Only the given length counts. */
	ck_assert_str_eq(expfmt_unit("a_bytes_total", 7), "bytes");
}
END_TEST

static char *family(enum expfmt f, const char *name, const char *type,
		    const char *help)
{
	struct buf b;
	buf_init(&b);
	expfmt_put_family(&b, f, name, type, help);
	size_t len;
	char *s = buf_steal(&b, &len);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_family_headers)
{
	char *s =
	    family(TEXT, "x_pause_seconds_total", "counter", "a\\b\n\"c\"");
	ck_assert_str_eq(s, "# HELP x_pause_seconds_total a\\\\b\\n\"c\"\n"
			    "# TYPE x_pause_seconds_total counter\n");
	free(s);
	s = family(OM, "x_pause_seconds_total", "counter", "a\\b\n\"c\"");
	ck_assert_str_eq(s, "# HELP x_pause_seconds a\\\\b\\n\\\"c\\\"\n"
			    "# TYPE x_pause_seconds counter\n"
			    "# UNIT x_pause_seconds seconds\n");
	free(s);
	s = family(TEXT, "x_build_info", "info", "h");
	ck_assert_str_eq(s, "# HELP x_build_info h\n"
			    "# TYPE x_build_info gauge\n");
	free(s);
	s = family(OM, "x_build_info", "info", "h");
	ck_assert_str_eq(s, "# HELP x_build h\n# TYPE x_build info\n");
	free(s);
	/* No unit on an info family, even one ending like a unit. */
	s = family(OM, "x_seconds_info", "info", "h");
	ck_assert_str_eq(s, "# HELP x_seconds h\n# TYPE x_seconds info\n");
	free(s);
	s = family(OM, "x_memory_bytes", "gauge", "h");
	ck_assert_str_eq(s, "# HELP x_memory_bytes h\n"
			    "# TYPE x_memory_bytes gauge\n"
			    "# UNIT x_memory_bytes bytes\n");
	free(s);
	s = family(OM, "x_frames_total", "counter", "h");
	ck_assert_str_eq(s, "# HELP x_frames h\n# TYPE x_frames counter\n");
	free(s);
}
END_TEST

START_TEST(test_created_and_eof_only_in_openmetrics)
{
	struct buf b;
	buf_init(&b);
	expfmt_put_created(&b, TEXT, "x_total", "", 5);
	expfmt_put_eof(&b, TEXT);
	expfmt_put_created(&b, OM, "x_total", "", -1);
	ck_assert_uint_eq(b.len, 0);
	expfmt_put_created(&b, OM, "x_total", "{a=\"1\"}", 1700000000.25);
	expfmt_put_created(&b, OM, "y_total", "", 0);
	expfmt_put_eof(&b, OM);
	size_t len;
	char *s = buf_steal(&b, &len);
	ck_assert_str_eq(s, "x_created{a=\"1\"} 1700000000.25\n"
			    "y_created 0\n# EOF\n");
	free(s);
}
END_TEST

static Suite *expfmt_suite(void)
{
	Suite *s = suite_create("expfmt");
	TCase *tc = tcase_create("expfmt");
	tcase_add_test(tc, test_negotiation);
	tcase_add_test(tc, test_units_are_suffixes_of_the_name);
	tcase_add_test(tc, test_family_headers);
	tcase_add_test(tc, test_created_and_eof_only_in_openmetrics);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(expfmt_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
