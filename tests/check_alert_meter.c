/*
 * check_alert_meter: the Alertmanager pusher's figures for /metrics
 * (exporters/alert.h's alert_meter, exporters/prom.h's
 * prom_render_alertmanager). A real pusher posts to a loopback port
 * nothing listens on, so every post fails for real (connection
 * refused); the meter must count failures and retries, show the queue,
 * keep its counters when a reload replaces or removes the pusher, and
 * render typed families only once a pusher was configured. Two small
 * loopback receivers that answer 200 or 401 by the Authorization header
 * they get show that every URL gets every alert with its own counters,
 * that a 4xx is not retried, and that credentials reach the wire but
 * not the URL shown.
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
#include <pthread.h>
#include <stdatomic.h>
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

/* A receiver: 200 when the request carries want (a header line, e.g.
 * "Authorization: Bearer t"), else 401. */
struct rx {
	int lfd;
	pthread_t th;
	const char *want;
	_Atomic unsigned requests, accepted;
	unsigned port;
};

static void *rx_loop(void *arg)
{
	struct rx *r = arg;
	for (;;) {
		int fd = accept(r->lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		char buf[65536];
		size_t n = 0;
		/* Headers, then the Content-Length bytes of the body. */
		for (;;) {
			ssize_t k = read(fd, buf + n, sizeof buf - 1 - n);
			if (k <= 0)
				break;
			n += (size_t)k;
			buf[n] = 0;
			char *body = strstr(buf, "\r\n\r\n");
			const char *cl = strcasestr(buf, "Content-Length:");
			if (body &&
			    (!cl || (long)(n - (size_t)(body + 4 - buf)) >=
					strtol(cl + 15, NULL, 10)))
				break;
			if (n == sizeof buf - 1)
				break;
		}
		buf[n] = 0;
		bool ok = strstr(buf, r->want) != NULL;
		static const char yes[] = "HTTP/1.1 200 OK\r\nContent-Length: "
					  "0\r\nConnection: close\r\n\r\n";
		static const char no[] = "HTTP/1.1 401 Unauthorized\r\n"
					 "Content-Length: 0\r\nConnection: "
					 "close\r\n\r\n";
		ssize_t w = ok ? write(fd, yes, sizeof yes - 1)
			       : write(fd, no, sizeof no - 1);
		(void)w;
		close(fd);
		atomic_fetch_add(&r->requests, 1);
		if (ok)
			atomic_fetch_add(&r->accepted, 1);
	}
}

static void rx_start(struct rx *r, const char *want)
{
	memset(r, 0, sizeof *r);
	r->want = want;
	r->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(r->lfd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(r->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(r->lfd, 8), 0);
	socklen_t len = sizeof a;
	ck_assert_int_eq(getsockname(r->lfd, (struct sockaddr *)&a, &len), 0);
	r->port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&r->th, NULL, rx_loop, r), 0);
}

static void rx_stop(struct rx *r)
{
	shutdown(r->lfd, SHUT_RDWR);
	close(r->lfd);
	pthread_join(r->th, NULL);
}

static struct alert *pusher(char *url)
{
	struct cfg_alert c = { .urls = &url,
			       .n_urls = 1,
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

static bool posted_ok(const struct alert_meter_stats *st)
{
	return st->posts_ok + st->posts_failed >= 1;
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
	char url[64], shown[160];
	unsigned port = closed_port();
	snprintf(url, sizeof url, "http://127.0.0.1:%u/", port);
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
	/* Per URL (without its trailing slash), as one series each. */
	snprintf(shown, sizeof shown,
		 "\nfabmon_alertmanager_posts_total{alertmanager=\"http://"
		 "127.0.0.1:%u\"} 0\n",
		 port);
	ck_assert_ptr_nonnull(strstr(text, shown));
	snprintf(shown, sizeof shown,
		 "\nfabmon_alertmanager_queue_length{alertmanager=\"http://"
		 "127.0.0.1:%u\"} 1\n",
		 port);
	ck_assert_ptr_nonnull(strstr(text, shown));
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

/* The figures of the URL shown as url (fails if there is none). */
static const struct alert_url_stats *url_of(const struct alert_meter_stats *st,
					    const char *url)
{
	for (size_t i = 0; i < st->n_urls; i++)
		if (strcmp(st->url[i].url, url) == 0)
			return &st->url[i];
	ck_abort_msg("no figures for %s", url);
	return NULL;
}

static char shown_bad[64], shown_good[64];

static bool both_posted(const struct alert_meter_stats *st, uint64_t n)
{
	return st->n_urls == 2 && url_of(st, shown_good)->posts_ok >= n &&
	       url_of(st, shown_bad)->posts_failed >= n;
}

static bool both_posted_once(const struct alert_meter_stats *st)
{
	return both_posted(st, 1);
}

static bool both_posted_twice(const struct alert_meter_stats *st)
{
	return both_posted(st, 2);
}

START_TEST(test_every_url_gets_every_alert_and_4xx_is_not_retried)
{
	struct rx good, bad;
	rx_start(&good, "\r\nAuthorization: Bearer t0ken\r\n");
	rx_start(&bad, "\r\nAuthorization: Bearer other\r\n");
	/* Credentials in a URL stay out of what is shown. */
	char u_bad[96], u_good[64];
	snprintf(u_bad, sizeof u_bad, "http://user:s3cret@127.0.0.1:%u",
		 bad.port);
	snprintf(u_good, sizeof u_good, "http://127.0.0.1:%u", good.port);
	snprintf(shown_bad, sizeof shown_bad, "http://127.0.0.1:%u", bad.port);
	snprintf(shown_good, sizeof shown_good, "%s", u_good);
	char *urls[] = { u_bad, u_good };
	char type[] = "Bearer", cred[] = "t0ken";
	struct cfg_alert c = { .urls = urls,
			       .n_urls = 2,
			       .resend_ns = 3600000000000ull,
			       .timeout_ns = 5000000000ull,
			       .max_alerts = 4,
			       .auth_type = type,
			       .credentials = cred };
	struct alert_meter *m = alert_meter_new();
	struct alert *a = alert_new(&c);
	alert_meter_attach(m, a);
	ck_assert_int_eq(alert_start(a), 0);
	fire(a, 1);
	struct alert_meter_stats st;
	wait_stats(m, &st, both_posted_once);
	/* A second incident: one more post each, none of them a retry. */
	fire(a, 2);
	wait_stats(m, &st, both_posted_twice);
	const struct alert_url_stats *b = url_of(&st, shown_bad),
				     *g = url_of(&st, shown_good);
	ck_assert_uint_eq(g->posts_ok, 2);
	ck_assert_uint_eq(g->alerts_sent, 2);
	ck_assert_uint_eq(g->posts_failed, 0);
	ck_assert_uint_eq(b->posts_ok, 0);
	ck_assert_uint_eq(b->posts_failed, 2);
	ck_assert_uint_eq(b->retries, 0);
	ck_assert_uint_eq(b->dropped, 2);
	ck_assert_uint_eq(b->pending, 0);
	ck_assert_uint_eq(b->tracked, 2);
	ck_assert_uint_eq(b->latency_count, 2);
	ck_assert_uint_le(b->latency_le[ALERT_LATENCY_BUCKETS - 1], 2);
	ck_assert(b->last_ok_age_s < 0 && g->last_ok_age_s >= 0);
	ck_assert_uint_eq(atomic_load(&bad.requests), 2);
	ck_assert_uint_eq(atomic_load(&bad.accepted), 0);
	ck_assert_uint_eq(atomic_load(&good.accepted), 2);
	/* The sums keep the meaning they had with one URL. */
	ck_assert_uint_eq(st.posts_ok, 2);
	ck_assert_uint_eq(st.posts_failed, 2);

	char *text = render(&st);
	char want[256];
	snprintf(
	    want, sizeof want,
	    "\nfabmon_alertmanager_post_failures_total{alertmanager=\"%s\"}"
	    " 2\n",
	    shown_bad);
	ck_assert_ptr_nonnull(strstr(text, want));
	snprintf(want, sizeof want,
		 "\nfabmon_alertmanager_posts_total{alertmanager=\"%s\"} 2\n",
		 shown_good);
	ck_assert_ptr_nonnull(strstr(text, want));
	snprintf(want, sizeof want,
		 "\nfabmon_alertmanager_post_duration_seconds_count{"
		 "alertmanager=\"%s\"} 2\n",
		 shown_bad);
	ck_assert_ptr_nonnull(strstr(text, want));
	ck_assert_ptr_nonnull(
	    strstr(text, "# TYPE fabmon_alertmanager_post_duration_seconds "
			 "histogram\n"));
	ck_assert_ptr_null(strstr(text, "s3cret"));
	free(text);
	alert_meter_attach(m, NULL);
	alert_free(a);
	alert_meter_free(m);
	rx_stop(&good);
	rx_stop(&bad);
}
END_TEST

START_TEST(test_basic_auth_reaches_the_wire)
{
	struct rx r;
	/* base64("fabmon:pw") */
	rx_start(&r, "\r\nAuthorization: Basic ZmFibW9uOnB3\r\n");
	char url[64], user[] = "fabmon", pw[] = "pw";
	snprintf(url, sizeof url, "http://127.0.0.1:%u/", r.port);
	snprintf(shown_good, sizeof shown_good, "http://127.0.0.1:%u", r.port);
	char *urls[] = { url };
	struct cfg_alert c = { .urls = urls,
			       .n_urls = 1,
			       .resend_ns = 3600000000000ull,
			       .timeout_ns = 5000000000ull,
			       .max_alerts = 4,
			       .username = user,
			       .password = pw };
	struct alert_meter *m = alert_meter_new();
	struct alert *a = alert_new(&c);
	alert_meter_attach(m, a);
	ck_assert_int_eq(alert_start(a), 0);
	fire(a, 1);
	struct alert_meter_stats st;
	wait_stats(m, &st, posted_ok);
	ck_assert_uint_eq(url_of(&st, shown_good)->posts_ok, 1);
	ck_assert_uint_eq(atomic_load(&r.accepted), 1);
	alert_meter_attach(m, NULL);
	alert_free(a);
	alert_meter_free(m);
	rx_stop(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alert_meter");
	TCase *tc = tcase_create("meter");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_nothing_before_a_pusher);
	tcase_add_test(tc, test_failures_retries_and_reloads);
	tcase_add_test(tc,
		       test_every_url_gets_every_alert_and_4xx_is_not_retried);
	tcase_add_test(tc, test_basic_auth_reaches_the_wire);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
