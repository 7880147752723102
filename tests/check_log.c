/*
 * check_log: the logging module: line format, levels, per-subsystem
 * debug, journald prefixes, control-character masking and the
 * rate-limited complaints.
 */
#include "config.h"

#include "log.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int pipefd[2];

static void setup(void)
{
	ck_assert_int_eq(pipe(pipefd), 0);
	log_set_fd(pipefd[1]);
	log_set_level(LOG_LVL_INFO);
	log_disable_debug();
	unsetenv("JOURNAL_STREAM");
	log_init();
}

static void teardown(void)
{
	log_set_fd(-1);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* Everything logged so far (the pipe is far from full in these tests). */
static char *drain(void)
{
	static char buf[65536];
	close(pipefd[1]);
	ssize_t n, len = 0;
	while ((n = read(pipefd[0], buf + len, sizeof buf - 1 - (size_t)len)) >
	       0)
		len += n;
	buf[len] = '\0';
	close(pipefd[0]);
	ck_assert_int_eq(pipe(pipefd), 0);
	log_set_fd(pipefd[1]);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(line_has_time_level_subsystem_and_message)
{
	log_warn("gnmi", "target %s unreachable", "leaf1");
	const char *out = drain();
	/* 2026-11-29T17:37:42.123Z warn gnmi: target leaf1 unreachable */
	ck_assert_int_eq(count_lines(out), 1);
	ck_assert_msg(strlen(out) > 25 && out[4] == '-' && out[10] == 'T' &&
			  out[23] == 'Z',
		      "bad timestamp in %s", out);
	ck_assert_ptr_nonnull(
	    strstr(out, " warn gnmi: target leaf1 unreachable\n"));
}
END_TEST

START_TEST(level_filters_lines)
{
	log_set_level(LOG_LVL_WARN);
	log_info("core", "hidden");
	log_err("core", "shown");
	const char *out = drain();
	ck_assert_ptr_null(strstr(out, "hidden"));
	ck_assert_ptr_nonnull(strstr(out, "error core: shown"));
}
END_TEST

START_TEST(debug_is_per_subsystem)
{
	ck_assert_int_eq(log_enable_debug("gnmi"), 0);
	log_debug("gnmi", "g1");
	log_debug("snmp", "s1");
	const char *out = drain();
	ck_assert_ptr_nonnull(strstr(out, "debug gnmi: g1"));
	ck_assert_ptr_null(strstr(out, "s1"));
	ck_assert_int_eq(log_enable_debug("all"), 0);
	log_debug("snmp", "s2");
	ck_assert_ptr_nonnull(strstr(drain(), "debug snmp: s2"));
}
END_TEST

START_TEST(unknown_debug_token_is_rejected)
{
	ck_assert_int_eq(log_enable_debug("gnmmi"), -EINVAL);
	ck_assert_int_eq(log_level_parse("debug"), LOG_LVL_DEBUG);
	ck_assert_int_eq(log_level_parse("loud"), -1);
}
END_TEST

START_TEST(journal_stream_gives_priority_prefix)
{
	/* JOURNAL_STREAM must name our stderr; point stderr at a file
	 * whose device and inode we know. */
	char path[] = "/tmp/fabmon-logXXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	struct stat st;
	fstat(fd, &st);
	char js[64];
	snprintf(js, sizeof js, "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", js, 1);
	log_init();
	log_warn("snmp", "timeout");
	const char *out = drain();
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	unlink(path);
	unsetenv("JOURNAL_STREAM");
	log_init();
	ck_assert_str_eq(out, "<4>snmp: timeout\n");
}
END_TEST

START_TEST(control_characters_are_masked)
{
	log_info("core", "peer said \"%s\"", "a\nb\rc\x1b[31m");
	const char *out = drain();
	ck_assert_int_eq(count_lines(out), 1);
	ck_assert_ptr_nonnull(strstr(out, "peer said \"a?b?c?[31m\""));
}
END_TEST

START_TEST(long_lines_are_truncated_not_split)
{
	char big[10000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	log_info("core", "%s", big);
	const char *out = drain();
	ck_assert_int_eq(count_lines(out), 1);
	ck_assert_uint_le(strlen(out), 4096);
}
END_TEST

START_TEST(complaints_are_rate_limited_and_cleared_once)
{
	struct log_complaint c = { 0 };
	for (int i = 0; i < 100; i++)
		log_complain(&c, LOG_LVL_WARN, "gnmi", "leaf1: connect: %s",
			     "refused");
	const char *out = drain();
	ck_assert_int_eq(count_lines(out), 1);
	ck_assert_uint_eq(c.failures, 100);
	ck_assert_uint_eq(c.suppressed, 99);
	log_complain_clear(&c, "gnmi", "leaf1: connected");
	out = drain();
	ck_assert_ptr_nonnull(
	    strstr(out, "leaf1: connected (after 100 failures)"));
	log_complain_clear(&c, "gnmi", "leaf1: connected");
	ck_assert_str_eq(drain(), "");
}
END_TEST

START_TEST(complaint_repeats_after_the_gap_with_a_count)
{
	struct log_complaint c = { 0 };
	log_complain(&c, LOG_LVL_WARN, "snmp", "spine1: timeout");
	log_complain(&c, LOG_LVL_WARN, "snmp", "spine1: timeout");
	c.next_ns = 0; /* as if the quiet gap had passed */
	log_complain(&c, LOG_LVL_WARN, "snmp", "spine1: timeout");
	const char *out = drain();
	ck_assert_int_eq(count_lines(out), 2);
	ck_assert_ptr_nonnull(
	    strstr(out, "spine1: timeout (repeated 2 times)"));
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("log");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, line_has_time_level_subsystem_and_message);
	tcase_add_test(tc, level_filters_lines);
	tcase_add_test(tc, debug_is_per_subsystem);
	tcase_add_test(tc, unknown_debug_token_is_rejected);
	tcase_add_test(tc, journal_stream_gives_priority_prefix);
	tcase_add_test(tc, control_characters_are_masked);
	tcase_add_test(tc, long_lines_are_truncated_not_split);
	tcase_add_test(tc, complaints_are_rate_limited_and_cleared_once);
	tcase_add_test(tc, complaint_repeats_after_the_gap_with_a_count);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(log_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
