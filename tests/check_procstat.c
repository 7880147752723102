/*
 * check_procstat: the process's own figures (procstat_read): the tick,
 * page and boot-time conversions against a proc tree written by the
 * test, the errors of missing and malformed files, and plausible
 * figures of the test process itself from the real /proc.
 */
#include "config.h"

#include "procstat.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char root[512];
static time_t test_start; /* when main() began */

static void put_file(const char *rel, const char *text)
{
	char path[768];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/check_procstat.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char path[768];
	snprintf(path, sizeof path, "%s/self", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/self/fd", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

static void teardown(void)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * A self/stat line: pid 4242, a command name with spaces and
 * parentheses, negative priority and tpgid, utime 250 and stime 150
 * ticks, starttime 12345 ticks, vsize 104857600, rss 2560 pages.
 */
static const char stat_line[] =
    "4242 (fab mon) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 150 "
    "0 0 -2 0 3 0 12345 104857600 2560 18446744073709551615 1 1 0 0 0 "
    "0 0 0 0 0 0 0 17 0 0 0 0 0 0\n";

static const char proc_stat[] = "cpu  1 2 3 4 5 6 7 8 9 10\n"
				"intr 12345 0 0 0\n"
				"ctxt 999\n"
				"btime 1700000000\n"
				"processes 77\n";

static const char limits[] =
    "Limit                     Soft Limit           Hard Limit           "
    "Units     \n"
    "Max cpu time              unlimited            unlimited            "
    "seconds   \n"
    "Max open files            1024                 524288               "
    "files     \n"
    "Max address space         unlimited            unlimited            "
    "bytes     \n";

START_TEST(test_ticks_pages_and_boot_time_are_converted)
{
	put_file("self/stat", stat_line);
	put_file("stat", proc_stat);
	put_file("self/limits", limits);
	for (int i = 0; i < 5; i++) {
		char rel[32];
		snprintf(rel, sizeof rel, "self/fd/%d", i);
		put_file(rel, "");
	}
	struct procstat ps;
	ck_assert_int_eq(procstat_read(root, &ps), 0);
	double ticks = (double)sysconf(_SC_CLK_TCK);
	double page = (double)sysconf(_SC_PAGESIZE);
	ck_assert_double_eq_tol(ps.cpu_seconds, 400 / ticks, 1e-9);
	ck_assert_double_eq_tol(ps.start_time_s, 1700000000 + 12345 / ticks,
				1e-6);
	ck_assert_double_eq(ps.resident_bytes, 2560 * page);
	ck_assert_double_eq(ps.virtual_bytes, 104857600);
	ck_assert_double_eq(ps.open_fds, 5);
	ck_assert_double_eq(ps.max_fds, 1024);
	ck_assert_double_eq(ps.virtual_max_bytes, PROCSTAT_UNLIMITED);
}
END_TEST

START_TEST(test_a_numeric_address_space_limit)
{
	put_file("self/stat", stat_line);
	put_file("stat", proc_stat);
	put_file("self/limits", "Max open files            4096   4096  files\n"
				"Max address space         8589934592 "
				"unlimited bytes\n");
	struct procstat ps;
	ck_assert_int_eq(procstat_read(root, &ps), 0);
	ck_assert_double_eq(ps.max_fds, 4096);
	ck_assert_double_eq(ps.virtual_max_bytes, 8589934592.0);
	ck_assert_double_eq(ps.open_fds, 0);
}
END_TEST

START_TEST(test_optional_files_missing_leave_figures_unknown)
{
	put_file("self/stat", stat_line);
	put_file("stat", proc_stat);
	char path[768];
	snprintf(path, sizeof path, "%s/self/fd", root);
	ck_assert_int_eq(rmdir(path), 0);
	struct procstat ps;
	ck_assert_int_eq(procstat_read(root, &ps), 0);
	ck_assert(ps.open_fds < 0);
	ck_assert(ps.max_fds < 0);
	ck_assert(ps.virtual_max_bytes < 0);
	ck_assert(ps.cpu_seconds > 0);
}
END_TEST

START_TEST(test_missing_and_malformed_required_files_fail)
{
	struct procstat ps;
	ck_assert_int_eq(procstat_read(root, &ps), -ENOENT);
	put_file("self/stat", stat_line);
	ck_assert_int_eq(procstat_read(root, &ps), -ENOENT); /* no stat */
	put_file("stat", "cpu 1 2 3\nctxt 5\n");
	ck_assert_int_eq(procstat_read(root, &ps), -EINVAL); /* no btime */
	put_file("stat", "btime x\n");
	ck_assert_int_eq(procstat_read(root, &ps), -EINVAL);
	put_file("stat", proc_stat);
	ck_assert_int_eq(procstat_read(root, &ps), 0);
	/* self/stat cut short, without its parenthesis, or with a word
	 * where a tick count belongs. */
	put_file("self/stat", "4242 (fabmon) S 1 4242 4242 0 -1 4194560\n");
	ck_assert_int_eq(procstat_read(root, &ps), -EINVAL);
	put_file("self/stat", "4242 fabmon S 1\n");
	ck_assert_int_eq(procstat_read(root, &ps), -EINVAL);
	put_file("self/stat",
		 "1 (f) S 1 1 1 0 -1 0 0 0 0 0 x 150 0 0 20 0 1 0 5 6 7\n");
	ck_assert_int_eq(procstat_read(root, &ps), -EINVAL);
	/* A directory where a file belongs is refused, not read. */
	char path[768];
	snprintf(path, sizeof path, "%s/self/stat", root);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_lt(procstat_read(root, &ps), 0);
	ck_assert_int_eq(rmdir(path), 0);
}
END_TEST

START_TEST(test_own_figures_from_proc_are_plausible)
{
	struct procstat ps;
	ck_assert_int_eq(procstat_read(NULL, &ps), 0);
	ck_assert(ps.resident_bytes > 0);
	ck_assert(ps.virtual_bytes >= ps.resident_bytes);
	ck_assert(ps.open_fds >= 3); /* stdin, stdout, stderr */
	ck_assert(ps.max_fds >= ps.open_fds);
	ck_assert(ps.cpu_seconds >= 0);
	/* Started (the test, or the child Check forked for this test)
	 * at most a minute before main(), and not in the future; btime
	 * is whole seconds, hence the second of slack. */
	time_t now = time(NULL);
	ck_assert_msg(ps.start_time_s >= (double)test_start - 60 &&
			  ps.start_time_s <= (double)now + 1,
		      "start %.2f, test start %lld, now %lld", ps.start_time_s,
		      (long long)test_start, (long long)now);
	/* One more descriptor shows. */
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	struct procstat ps2;
	ck_assert_int_eq(procstat_read(NULL, &ps2), 0);
	close(fd);
	ck_assert_double_eq(ps2.open_fds, ps.open_fds + 1);
}
END_TEST

static Suite *procstat_suite(void)
{
	Suite *s = suite_create("procstat");
	TCase *tc = tcase_create("procstat");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ticks_pages_and_boot_time_are_converted);
	tcase_add_test(tc, test_a_numeric_address_space_limit);
	tcase_add_test(tc, test_optional_files_missing_leave_figures_unknown);
	tcase_add_test(tc, test_missing_and_malformed_required_files_fail);
	tcase_add_test(tc, test_own_figures_from_proc_are_plausible);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	test_start = time(NULL);
	SRunner *sr = srunner_create(procstat_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
