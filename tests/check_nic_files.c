/*
 * check_nic_files: reads that do not return (issue #16): nic_guard
 * gives up on a job stuck in a read (a pipe nobody writes stands in for
 * a hung driver), runs the next job on a fresh worker, calls the job's
 * late hook once the read returns, and ends a run at once when
 * interrupted.
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
	TCase *tc = tcase_create("guard");
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
