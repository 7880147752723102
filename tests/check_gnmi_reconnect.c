/*
 * check_gnmi_reconnect: the gNMI collector's reconnect backoff and its
 * logging, end to end over loopback. A real gNMI target (the target
 * library on 127.0.0.1, a port the kernel picks) accepts every
 * Subscribe, sends the sync_response and ends the stream with
 * UNAVAILABLE (gnmi_target_set_end_after_sync), as a switch does that
 * drops its streams once synchronised; the real collector runs against
 * it with its log in a file.
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

#include "grpc_down.h"

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S INT64_C(1000000000)
#define WAIT_S	 20
/* The longest scheduled wait (60 s backoff) and some: a hang guard. */
#define WAIT_RETRY_S 75

static struct gnmi_target_loop *loop;
static struct gnmi_target *tgt;
static struct store *st;
static struct health *hl;
static void *col;
static struct cfg *cfg;
static char tmpdir[64];
static char log_path[128];
static int logfd = -1;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

static void setup(void)
{
	st = store_new(NULL);
	hl = health_new();
	loop = gnmi_target_loop_new();
	ck_assert_ptr_nonnull(loop);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fabmon-reconnect-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(log_path, sizeof log_path, "%s/log", tmpdir);
	logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(logfd, 0);
	log_set_fd(logfd);

	struct gnmi_target_options o;
	char err[256];
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	tgt = gnmi_target_new(loop, &o, err, sizeof err);
	ck_assert_msg(tgt != NULL, "target: %s", err);
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
	if (col)
		gnmi_collector_ops.stop(col);
	col = NULL;
	gnmi_target_free(tgt);
	tgt = NULL;
	gnmi_target_loop_free(loop);
	loop = NULL;
	/* gRPC's own last references go after ours (grpc_down.h). */
	ck_assert_msg(test_grpc_wait_down(20000),
		      "gRPC still initialised: something was not released");
	cfg_free(cfg);
	cfg = NULL;
	health_free(hl);
	store_free(st);
	log_set_fd(-1);
	close(logfd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void start_collector(void)
{
	const char *s = getenv("top_srcdir");
	char text[2048], err[512];
	snprintf(
	    text, sizeof text,
	    "profiles_dir: %s/etc/profiles\n"
	    "targets:\n"
	    "  - name: leaf1\n"
	    "    gnmi:\n"
	    "      address: 127.0.0.1:%d\n"
	    "      insecure: true\n"
	    "      profile: arista\n"
	    "      subscriptions:\n"
	    "        - path: /interfaces/interface[name=*]/state/counters\n"
	    "          sample_interval: 100ms\n",
	    s && *s ? s : ".", gnmi_target_port(tgt));
	cfg = cfg_load_buffer(fabmond_cfg_schema(), "test.yaml", text,
			      strlen(text), err, sizeof err);
	ck_assert_msg(cfg != NULL, "config: %s", err);
	struct collector_env env = { .store = st, .health = hl };
	ck_assert_int_eq(gnmi_collector_ops.start(&env, cfg, &col), 0);
}

/* leaf1's health entry, copied into info (its strings freed later). */
static struct health_target_info info;

static bool get_info(void)
{
	struct health_target_info *v = NULL;
	size_t n = health_snapshot(hl, &v);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].target, "leaf1") == 0 &&
		    strcmp(v[i].protocol, "gnmi") == 0) {
			free(info.target);
			free(info.protocol);
			free(info.last_error);
			info = v[i];
			v[i].target = v[i].protocol = v[i].last_error = NULL;
			found = true;
		}
	}
	health_snapshot_free(v, n);
	return found;
}

static uint64_t counter(enum health_counter c)
{
	ck_assert(get_info());
	return info.counters[c];
}

#define WAIT_FOR(secs, cond, ...)                        \
	do {                                             \
		int waited_ = 0;                         \
		while (!(cond) && waited_ < (secs)*50) { \
			sleep_ms(20);                    \
			waited_++;                       \
		}                                        \
		ck_assert_msg((cond), __VA_ARGS__);      \
	} while (0)

/* Lines of the log that contain text. */
static int lines_with(const char *text)
{
	FILE *f = fopen(log_path, "r");
	char line[1024];
	int n = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
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
	start_collector();
	WAIT_FOR(WAIT_S, counter(HEALTH_C_RECONNECTS) >= 1,
		 "the stream never ended");
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
	int complaints = lines_with("leaf1: UNAVAILABLE");
	ck_assert_int_ge(complaints, 1);
	ck_assert_msg(complaints <= max_complaints(elapsed),
		      "%d failure lines in %.1f s", complaints,
		      (double)elapsed / 1e9);
	ck_assert_int_eq(lines_with("leaf1: streaming again"), 0);
	ck_assert_int_eq(lines_with("leaf1: subscribing"), 1);
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
	start_collector();
	/* Four short streams: the backoff is at 8 s (the snapshot may show
	 * the third failure's wait, 2 to 4 s), the next at 16 s. */
	WAIT_FOR(WAIT_S, counter(HEALTH_C_ERRORS) >= 4,
		 "the streams did not end");
	ck_assert_int_ge(retry_in_s(), 2);
	/* The target recovers: the next stream stays. The collector
	 * judges it healthy after 10 s of messages (100 ms samples). */
	gnmi_target_set_end_after_sync(tgt, false);
	WAIT_FOR(WAIT_RETRY_S, lines_with("leaf1: streaming again") == 1,
		 "the stream was never judged healthy");
	ck_assert(get_info());
	ck_assert(info.up);
	uint64_t errors = info.counters[HEALTH_C_ERRORS];

	/* An outage now is retried from the shortest backoff: 1 s after
	 * its first failure, 2 s after the second (should the test look
	 * late), where the grown backoff would wait 8 s or more. */
	ck_assert_int_eq(gnmi_target_stop(tgt), 0);
	WAIT_FOR(WAIT_S, get_info() && !info.up && retry_in_s() >= 0,
		 "the stop was not seen");
	uint64_t k = info.counters[HEALTH_C_ERRORS] - errors;
	ck_assert_uint_ge(k, 1);
	ck_assert_msg(k > 3 || retry_in_s() <= (1LL << (k - 1)),
		      "after a healthy stream and %llu failures: %s",
		      (unsigned long long)k, info.last_error);
	ck_assert_int_eq(gnmi_target_start(tgt), 0);
	WAIT_FOR(WAIT_RETRY_S, gnmi_target_stream_count(tgt) == 1,
		 "no stream after the restart");
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
