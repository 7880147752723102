/*
 * check_gnmi_reconnect: the gNMI collector's reconnect backoff and its
 * logging, end to end over loopback. A real gNMI target (the target
 * library on 127.0.0.1, a port the kernel picks) accepts every
 * Subscribe, sends the sync_response and ends the stream with
 * UNAVAILABLE (gnmi_target_set_end_after_sync), as a switch does that
 * drops its streams once synchronised; the real collector runs against
 * it with its log in a file (the fixture is gnmi_fixture.h's).
 *
 * No assertion depends on speed: counts are bounded by what the
 * backoff schedule allows in the time the test measured (load only
 * makes that time longer and the counts smaller), and the recovery is
 * judged by the wait the collector scheduled ("retrying in Ns" in the
 * target's health), not by a stopwatch. Waits are bounded polls.
 */
#include "config.h"

#include "cfg.h"
#include "client.h"
#include "collector.h"
#include "fabmond.h"
#include "health.h"
#include "log.h"
#include "store.h"
#include "target.h"

#include "gnmi_fixture.h"

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The longest scheduled wait (60 s backoff) and some: a hang guard. */
#define WAIT_RETRY_S 75

static char log_path[128];
static int logfd = -1;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void setup(void)
{
	gnmi_fix_setup();
	snprintf(log_path, sizeof log_path, "%s/log", tmpdir);
	logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(logfd, 0);
	log_set_fd(logfd);

	start_target(NULL);
	/* A counter, so that a stream that stays gets samples. */
	ck_assert_int_eq(
	    gnmi_target_set_uint(tgt,
				 "/interfaces/interface[name=Ethernet1]/state/"
				 "counters/in-octets",
				 1000),
	    0);
	gnmi_target_tick(tgt, 0);
	gnmi_target_set_end_after_sync(tgt, true);
}

static void teardown(void)
{
	gnmi_fix_teardown();
	log_set_fd(-1);
	close(logfd);
}

static void start_leaf1(void)
{
	start_collector(load_cfg(
	    "targets:\n"
	    "  - name: leaf1\n"
	    "    gnmi:\n"
	    "      address: 127.0.0.1:%d\n"
	    "      insecure: true\n"
	    "      profile: arista\n"
	    "      subscriptions:\n"
	    "        - path: /interfaces/interface[name=*]/state/counters\n"
	    "          sample_interval: 100ms\n",
	    gnmi_target_port(tgt)));
}

static uint64_t counter(enum health_counter c)
{
	ck_assert(get_info("leaf1"));
	return info.counters[c];
}

/* Lines of the log that contain text. */
static int log_lines_with(const char *text)
{
	return lines_with(log_path, text);
}

/*
 * The most failed attempts that fit in elapsed_ns: after each one the
 * collector waits at least half its backoff, which starts at 1 s and
 * doubles up to 60 s (gnmi/client.c).
 */
static uint64_t max_attempts(int64_t elapsed_ns)
{
	uint64_t n = 1;
	int64_t backoff = NS_PER_S, spent = backoff / 2;
	while (spent <= elapsed_ns) {
		n++;
		backoff =
		    backoff * 2 > 60 * NS_PER_S ? 60 * NS_PER_S : backoff * 2;
		spent += backoff / 2;
	}
	return n;
}

/* The most lines one log_complain() writes in elapsed_ns: the first,
 * then one after gaps of 10 s, 20 s, 40 s ... (core/log.c). */
static int max_complaints(int64_t elapsed_ns)
{
	int n = 1;
	int64_t gap = 10 * NS_PER_S, spent = gap;
	while (spent <= elapsed_ns) {
		n++;
		gap *= 2;
		spent += gap;
	}
	return n;
}

START_TEST(test_streams_ending_after_sync_back_off_and_log_rarely)
{
	int64_t t0 = now_ns();
	start_leaf1();
	WAIT_FOR(counter(HEALTH_C_RECONNECTS) >= 1, "the stream never ended");
	/* Each stream was up (it delivered its sync_response)... */
	ck_assert_ptr_nonnull(strstr(info.last_error, "fault hook"));
	while (now_ns() - t0 < 8 * NS_PER_S)
		sleep_ms(100);
	uint64_t attempts = counter(HEALTH_C_ERRORS);
	int64_t elapsed = now_ns() - t0;
	/* ... yet the backoff kept growing: 5 attempts at most in 8 s
	 * (the backoff reset on every stream made about 13). */
	ck_assert_msg(attempts <= max_attempts(elapsed),
		      "%llu attempts in %.1f s; at most %llu expected",
		      (unsigned long long)attempts, (double)elapsed / 1e9,
		      (unsigned long long)max_attempts(elapsed));
	ck_assert_uint_ge(info.counters[HEALTH_C_RECONNECTS], 1);
	/* One complaint, rate-limited; no recovery lines for streams
	 * that did not last, nor a "subscribing" line per retry. */
	int complaints = log_lines_with("leaf1: UNAVAILABLE");
	ck_assert_int_ge(complaints, 1);
	ck_assert_msg(complaints <= max_complaints(elapsed),
		      "%d failure lines in %.1f s", complaints,
		      (double)elapsed / 1e9);
	ck_assert_int_eq(log_lines_with("leaf1: streaming again"), 0);
	ck_assert_int_eq(log_lines_with("leaf1: subscribing"), 1);
}
END_TEST

/* The scheduled wait in leaf1's last error, in seconds; -1 if none. */
static long long retry_in_s(void)
{
	const char *p =
	    info.last_error ? strstr(info.last_error, "retrying in ") : NULL;
	long long s;
	if (!p || sscanf(p, "retrying in %llds", &s) != 1)
		return -1;
	return s;
}

START_TEST(test_a_stream_healthy_for_a_while_resets_the_backoff)
{
	start_leaf1();
	/* Four short streams: the backoff is at 8 s (the snapshot may show
	 * the third failure's wait, 2 to 4 s), the next at 16 s. */
	WAIT_FOR(counter(HEALTH_C_ERRORS) >= 4, "the streams did not end");
	ck_assert_int_ge(retry_in_s(), 2);
	/* The target recovers: the next stream stays. The collector
	 * judges it healthy after 10 s of messages (100 ms samples). */
	gnmi_target_set_end_after_sync(tgt, false);
	WAIT_FOR_S(WAIT_RETRY_S, log_lines_with("leaf1: streaming again") == 1,
		   "the stream was never judged healthy");
	ck_assert(get_info("leaf1"));
	ck_assert(info.up);
	uint64_t errors = info.counters[HEALTH_C_ERRORS];

	/* An outage now is retried from the shortest backoff: 1 s after
	 * its first failure, 2 s after the second (should the test look
	 * late), where the grown backoff would wait 8 s or more. */
	ck_assert_int_eq(gnmi_target_stop(tgt), 0);
	WAIT_FOR(get_info("leaf1") && !info.up && retry_in_s() >= 0,
		 "the stop was not seen");
	uint64_t k = info.counters[HEALTH_C_ERRORS] - errors;
	ck_assert_uint_ge(k, 1);
	ck_assert_msg(k > 3 || retry_in_s() <= (1LL << (k - 1)),
		      "after a healthy stream and %llu failures: %s",
		      (unsigned long long)k, info.last_error);
	ck_assert_int_eq(gnmi_target_start(tgt), 0);
	WAIT_FOR_S(WAIT_RETRY_S, gnmi_target_stream_count(tgt) == 1,
		   "no stream after the restart");
}
END_TEST

START_TEST(test_a_target_silent_after_sync_is_resubscribed_with_backoff)
{
	gnmi_target_set_end_after_sync(tgt, false);
	start_leaf1();
	WAIT_FOR(get_info("leaf1") && info.up, "leaf1 never came up");
	/* The switch goes quiet: its stream stays open, sends nothing, and
	 * so do the streams that follow (no sync_response either). The
	 * watchdog (3 x 100 ms) ends each one. */
	gnmi_target_set_silent(tgt, true);
	int64_t t0 = now_ns();
	WAIT_FOR(counter(HEALTH_C_RECONNECTS) >= 1, "the silence was not seen");
	ck_assert(!info.up);
	ck_assert_ptr_nonnull(strstr(info.last_error, "no message for 300ms"));
	while (now_ns() - t0 < 8 * NS_PER_S)
		sleep_ms(100);
	uint64_t resubscribes = counter(HEALTH_C_RECONNECTS);
	int64_t elapsed = now_ns() - t0;
	/* One at once, then the backoff: at most 6 in 8 s, where
	 * resubscribing every watchdog period made about 26. */
	ck_assert_msg(resubscribes <= max_attempts(elapsed) + 1,
		      "%llu resubscribes in %.1f s; at most %llu expected",
		      (unsigned long long)resubscribes, (double)elapsed / 1e9,
		      (unsigned long long)max_attempts(elapsed) + 1);
	int complaints = log_lines_with("leaf1: no message for 300ms");
	ck_assert_int_ge(complaints, 1);
	ck_assert_msg(complaints <= max_complaints(elapsed),
		      "%d silence lines in %.1f s", complaints,
		      (double)elapsed / 1e9);
	/* It speaks again: the next resubscribe brings it up. */
	gnmi_target_set_silent(tgt, false);
	WAIT_FOR_S(WAIT_RETRY_S, get_info("leaf1") && info.up,
		   "leaf1 did not come back");
}
END_TEST

static Suite *gnmi_reconnect_suite(void)
{
	Suite *s = suite_create("gnmi_reconnect");
	TCase *tc = tcase_create("backoff");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc,
		       test_streams_ending_after_sync_back_off_and_log_rarely);
	tcase_add_test(tc,
		       test_a_stream_healthy_for_a_while_resets_the_backoff);
	tcase_add_test(
	    tc, test_a_target_silent_after_sync_is_resubscribed_with_backoff);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	log_init();
	SRunner *sr = srunner_create(gnmi_reconnect_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
