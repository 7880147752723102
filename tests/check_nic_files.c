/*
 * check_nic_files: what the NIC collector does with files it cannot
 * read and reads that do not return (issue #16). A FIFO and an
 * unreadable file among a host's counter files are skipped, counted in
 * errors at each scan, named in last_error and logged once, while the
 * rest is read (before, the FIFO blocked open() for ever); and
 * nic_guard gives up on a job stuck in a read (a pipe nobody writes
 * stands in for a hung driver), runs the next job on a fresh worker,
 * calls the job's late hook once the read returns, and ends a run at
 * once when interrupted.
 *
 * Runs as root too: chmod 000 does not stop root, so the unreadable
 * file is read after dropping to an unprivileged user, in the forked
 * test process (Check's default CK_FORK mode).
 */
#include "config.h"

#include "clock.h"
#include "counters.h"
#include "health.h"
#include "ident.h"
#include "log.h"
#include "nic_guard.h"
#include "nic_host.h"
#include "store.h"
#include "units.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tree[4096];

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

#define HW "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"

/* A copy of the RoCE tree, made and removed by the runner's own process
 * (an unchecked fixture), so a test may drop its privileges. */
static void tree_setup(void)
{
	const char *dir = getenv("TMPDIR");
	snprintf(tree, sizeof tree, "%s/check_nic_files.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tree));
	ck_assert_int_eq(chmod(tree, 0755), 0);
	char cmd[16384];
	snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/t' && chmod -R a+rX,u+w '%s'",
		 srcpath("tests/data/nic-roce"), tree, tree);
	ck_assert_int_eq(system(cmd), 0);
	char path[4400];
	snprintf(path, sizeof path, "%s/t" HW "out_of_buffer", tree);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof path, "%s/t" HW "np_cnp_sent", tree);
	ck_assert_int_eq(chmod(path, 0), 0);
}

static void tree_teardown(void)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree);
	ck_assert_int_eq(system(cmd), 0);
}

static size_t count_in(const char *file, const char *needle)
{
	FILE *f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	char line[2048];
	size_t n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

static bool has(struct store *st, const char *port, enum fm_counter c)
{
	struct store_key k = {
		.device = store_intern(st, "h1"),
		.port = store_intern(st, port),
		.counter = (uint16_t)c,
	};
	return store_lookup(st, &k) != 0;
}

/* Whether every directory above path lets others through (so that the
 * tree stays readable once the test is nobody). */
static bool others_reach(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
		*slash = '\0';
		struct stat st;
		if (stat(dir, &st) != 0 || !(st.st_mode & S_IXOTH))
			return false;
	}
	return true;
}

START_TEST(test_fifo_and_unreadable_files_are_counted_and_named_once)
{
	bool eacces = true;
	if (geteuid() == 0) {
		const char *fork_mode = getenv("CK_FORK");
		if (!others_reach(tree)) {
			fprintf(stderr,
				"check_nic_files: %s is not reachable "
				"by others: the EACCES case is not "
				"checked as root\n",
				tree);
			eacces = false;
		} else if (fork_mode && strcmp(fork_mode, "no") == 0) {
			fprintf(stderr, "check_nic_files: root without "
					"CK_FORK: the EACCES case is not "
					"checked\n");
			eacces = false;
		} else {
			/* nobody: mode 000 then means EACCES */
			ck_assert_int_eq(setgroups(0, NULL), 0);
			ck_assert_int_eq(setresgid(65534, 65534, 65534), 0);
			ck_assert_int_eq(setresuid(65534, 65534, 65534), 0);
		}
	}
	char logfile[] = "/tmp/check_nic_files.log.XXXXXX";
	int lfd = mkstemp(logfile);
	ck_assert_int_ge(lfd, 0);
	log_set_fd(lfd);

	char root[4200], eth[4200];
	snprintf(root, sizeof root, "%s/t/sys", tree);
	snprintf(eth, sizeof eth, "%s/t/ethtool", tree);
	struct store *st = store_new(NULL);
	struct health *hl = health_new();
	struct nic_host_opts o = {
		.store = st,
		.health = health_target(hl, "h1", "nic"),
		.device = "h1",
		.sysfs_root = root,
		.ethtool_dir = eth,
		.interval_ms = 100,
	};
	struct nic_host *h = nic_host_new(&o);
	/* Three scans: the files are met three times. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_gt(nic_host_poll(h), 0);
		nic_host_rescan(h);
	}
	struct health_target_info *v;
	size_t n = health_snapshot(hl, &v);
	ck_assert_uint_eq(n, 1);
	ck_assert(v[0].up);
	uint64_t per_scan = eacces ? 2 : 1;
	ck_assert_uint_eq(v[0].counters[HEALTH_C_ERRORS], 3 * per_scan);
	ck_assert_ptr_nonnull(v[0].last_error);
	ck_assert_msg(strstr(v[0].last_error,
			     "out_of_buffer: not a regular file (fifo)") ||
			  strstr(v[0].last_error,
				 "np_cnp_sent: cannot open: Permission denied"),
		      "last_error: %s", v[0].last_error);
	health_snapshot_free(v, n);
	/* The rest was read; the two were not. */
	ck_assert(has(st, "mlx5_0", FM_C_CNP_HANDLED));
	ck_assert(!has(st, "mlx5_0", FM_C_NIC_OUT_OF_BUFFER));
	if (eacces)
		ck_assert(!has(st, "mlx5_0", FM_C_CNP_SENT));

	log_set_fd(-1);
	close(lfd);
	ck_assert_uint_eq(count_in(logfile, "out_of_buffer: not a regular "
					    "file (fifo)"),
			  1);
	if (eacces)
		ck_assert_uint_eq(count_in(logfile, "np_cnp_sent: cannot open: "
						    "Permission denied"),
				  1);
	unlink(logfile);
	nic_host_free(h);
	health_free(hl);
	store_free(st);
}
END_TEST

/*
 * nic_guard. A job reads one byte from a pipe: it returns when the test
 * writes, as a hung driver read returns when the firmware answers.
 */

struct stuck {
	int fds[2];
	atomic_int ran, late;
};

static void stuck_read(void *arg)
{
	struct stuck *s = arg;
	char c;
	atomic_fetch_add(&s->ran, 1);
	while (read(s->fds[0], &c, 1) < 0 && errno == EINTR)
		;
}

static void stuck_late(void *arg)
{
	struct stuck *s = arg;
	atomic_fetch_add(&s->late, 1);
}

static void quick(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

/* Waits (a bound, not a timing check) for *v to reach want. */
static bool wait_for(atomic_int *v, int want)
{
	for (int i = 0; i < 2000 && atomic_load(v) < want; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return atomic_load(v) >= want;
}

START_TEST(test_guard_gives_up_on_a_stuck_read_and_goes_on)
{
	struct stuck s = { .ran = 0, .late = 0 };
	ck_assert_int_eq(pipe(s.fds), 0);
	struct nic_guard *g = nic_guard_new();
	atomic_int q = 0;
	ck_assert_int_eq(
	    nic_guard_run(g, quick, NULL, &q, mono_ns() + 60 * NS_PER_S), 0);
	ck_assert_int_eq(atomic_load(&q), 1);

	int rc = nic_guard_run(g, stuck_read, stuck_late, &s,
			       mono_ns() + 100 * NS_PER_MS);
	ck_assert_int_eq(rc, -ETIMEDOUT);
	ck_assert_int_eq(atomic_load(&s.ran), 1);
	/* The next job runs on a fresh worker while the first is stuck. */
	ck_assert_int_eq(
	    nic_guard_run(g, quick, NULL, &q, mono_ns() + 60 * NS_PER_S), 0);
	ck_assert_int_eq(atomic_load(&q), 2);
	ck_assert_int_eq(atomic_load(&s.late), 0);

	/* The read returns: late() runs once, on the stuck worker. */
	ck_assert_int_eq(write(s.fds[1], "x", 1), 1);
	ck_assert(wait_for(&s.late, 1));
	nic_guard_free(g);
	ck_assert_int_eq(atomic_load(&s.late), 1);
	close(s.fds[0]);
	close(s.fds[1]);
}
END_TEST

static void *interrupt_soon(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	nic_guard_interrupt(arg);
	return NULL;
}

START_TEST(test_guard_interrupt_ends_a_stuck_run_at_once)
{
	struct stuck s = { .ran = 0, .late = 0 };
	ck_assert_int_eq(pipe(s.fds), 0);
	struct nic_guard *g = nic_guard_new();
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, interrupt_soon, g), 0);
	/* An hour's deadline: only the interrupt can end this run. */
	int rc = nic_guard_run(g, stuck_read, stuck_late, &s,
			       mono_ns() + 3600 * NS_PER_S);
	ck_assert_int_eq(rc, -EINTR);
	pthread_join(t, NULL);
	/* Interrupted for good: later jobs do not run. */
	atomic_int q = 0;
	ck_assert_int_eq(
	    nic_guard_run(g, quick, NULL, &q, mono_ns() + 60 * NS_PER_S),
	    -ECANCELED);
	ck_assert_int_eq(atomic_load(&q), 0);
	/* Freeing does not wait for the stuck worker. */
	nic_guard_free(g);
	ck_assert_int_eq(atomic_load(&s.late), 0);
	ck_assert_int_eq(write(s.fds[1], "x", 1), 1);
	ck_assert(wait_for(&s.late, 1));
	close(s.fds[0]);
	close(s.fds[1]);
}
END_TEST

static Suite *nic_files_suite(void)
{
	Suite *s = suite_create("nic_files");
	TCase *tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, tree_setup, tree_teardown);
	tcase_add_test(
	    tc, test_fifo_and_unreadable_files_are_counted_and_named_once);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("guard");
	tcase_add_test(tc, test_guard_gives_up_on_a_stuck_read_and_goes_on);
	tcase_add_test(tc, test_guard_interrupt_ends_a_stuck_run_at_once);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nic_files_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
