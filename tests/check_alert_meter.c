/*
 * check_alert_meter: the Alertmanager pusher's figures for /metrics
 * (exporters/alert.h's alert_meter, exporters/prom.h's
 * prom_render_alertmanager). A real pusher posts to a loopback port
 * nothing listens on, so every post fails for real (connection
 * refused); the meter must count failures and retries, show the queue,
 * keep its counters when a reload replaces or removes the pusher, and
 * render typed families only once a pusher was configured.
 */
#include "config.h"

#include "alert.h"
#include "buf.h"
#include "cfg.h"
#include "prom.h"
#include "rules.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A loopback port nothing listens on (bound, then closed). */
static unsigned closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	socklen_t len = sizeof a;
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static struct alert *pusher(char *url)
{
	struct cfg_alert c = { .url = url,
			       .resend_ns = 2000000000ull,
			       .timeout_ns = 1000000000ull,
			       .max_alerts = 4 };
	return alert_new(&c);
}

static void fire(struct alert *a, uint64_t id)
{
	struct rules_subject s = { .device = "host0", .port = "mlx5_0" };
	char summary[] = "incast at host0:mlx5_0";
	struct rules_incident in = { .id = id,
				     .kind = RULES_INCAST,
				     .state = RULES_FIRING,
				     .priority = 3,
				     .started_ns = 1,
				     .fired_ns = 2,
				     .summary = summary,
				     .subjects = &s,
				     .n_subjects = 1 };
	alert_incident(a, &in);
}

/* Waits (a hang guard, not a timing check) until pred holds. */
static void wait_stats(struct alert_meter *m, struct alert_meter_stats *st,
		       bool (*pred)(const struct alert_meter_stats *))
{
	for (int i = 0; i < 3000; i++) {
		alert_meter_get(m, st);
		if (pred(st))
			return;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("the pusher's figures never got there");
}

static bool failed_twice(const struct alert_meter_stats *st)
{
	return st->posts_failed >= 2;
}

static char *render(const struct alert_meter_stats *st)
{
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(prom_render_alertmanager(st, EXPFMT_TEXT, -1, &b), 0);
	size_t len;
	char *s = buf_steal(&b, &len);
	buf_fini(&b);
	return s ? s : strdup("");
}

START_TEST(test_nothing_before_a_pusher)
{
	struct alert_meter *m = alert_meter_new();
	struct alert_meter_stats st;
	alert_meter_get(m, &st);
	ck_assert(!st.ever && !st.attached);
	ck_assert(st.last_ok_age_s < 0);
	char *text = render(&st);
	ck_assert_str_eq(text, "");
	free(text);
	/* No alertmanager: in the config changes nothing. */
	alert_meter_attach(m, NULL);
	alert_meter_get(m, &st);
	ck_assert(!st.ever);
	alert_meter_free(m);
}
END_TEST

START_TEST(test_failures_retries_and_reloads)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/", closed_port());
	struct alert_meter *m = alert_meter_new();
	struct alert *a = pusher(url);
	alert_meter_attach(m, a);
	ck_assert_int_eq(alert_start(a), 0);
	fire(a, 1);

	struct alert_meter_stats st;
	wait_stats(m, &st, failed_twice);
	ck_assert(st.attached && st.ever);
	ck_assert_uint_eq(st.posts_ok, 0);
	/* Every post after the first failure is a retry. */
	ck_assert_uint_ge(st.retries, 1);
	ck_assert_uint_le(st.retries, st.posts_failed);
	ck_assert_uint_eq(st.pending, 1);
	ck_assert_uint_eq(st.tracked, 1);
	ck_assert(st.last_ok_age_s < 0);

	char *text = render(&st);
	ck_assert_ptr_nonnull(
	    strstr(text, "# TYPE fabmon_alertmanager_post_failures_total "
			 "counter\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "# TYPE fabmon_alertmanager_retries_total counter\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "# TYPE fabmon_alertmanager_queue_length gauge\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nfabmon_alertmanager_posts_total "
					   "0\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "\nfabmon_alertmanager_queue_length 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "\nfabmon_alertmanager_configured 1\n"));
	ck_assert_ptr_null(strstr(text, "last_success_age"));
	free(text);

	/* A reload replaces the pusher: the counters carry on, the queue
	 * is the new one's. */
	uint64_t failed = st.posts_failed;
	struct alert *b = pusher(url);
	alert_meter_attach(m, b);
	ck_assert_int_eq(alert_start(b), 0);
	alert_free(a);
	alert_meter_get(m, &st);
	ck_assert(st.attached);
	ck_assert_uint_ge(st.posts_failed, failed);
	ck_assert_uint_eq(st.tracked, 0);

	/* Removed: counters stay, gauges go to 0, configured 0. */
	alert_meter_attach(m, NULL);
	alert_free(b);
	alert_meter_get(m, &st);
	ck_assert(!st.attached && st.ever);
	ck_assert_uint_ge(st.posts_failed, failed);
	ck_assert_uint_eq(st.pending, 0);
	text = render(&st);
	ck_assert_ptr_nonnull(
	    strstr(text, "\nfabmon_alertmanager_configured 0\n"));
	free(text);
	alert_meter_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alert_meter");
	TCase *tc = tcase_create("meter");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_nothing_before_a_pusher);
	tcase_add_test(tc, test_failures_retries_and_reloads);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
