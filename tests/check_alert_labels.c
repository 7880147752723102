/*
 * check_alert_labels: the labels and summary the Alertmanager pusher
 * (exporters/alert.c) posts for an incident, read off the wire. A small
 * HTTP receiver on a loopback port the kernel picks answers every POST
 * with 200 and keeps the bodies; the real pusher posts to it with
 * libcurl. A storm from outside the view carries sender="unmonitored"
 * and a summary that names the far end; an ordinary storm carries no
 * sender label.
 *
 * Waits are bounded polls (a hang guard, not a timing check).
 */
#include "config.h"

#include "alert.h"
#include "cfg.h"
#include "rules.h"

#include <arpa/inet.h>
#include <check.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The receiver: a listening socket and the bodies posted to it. */
static int lfd = -1;
static pthread_t rx_thread;
static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *rx_alerts; /* every alert posted, in order */

/* Reads one request from fd: headers, then Content-Length bytes. */
static char *read_request(int fd)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	ck_assert_ptr_nonnull(b);
	long want = -1;
	char *body = NULL;
	for (;;) {
		if (n == cap)
			break;
		ssize_t k = read(fd, b + n, cap - n);
		if (k <= 0)
			break;
		n += (size_t)k;
		b[n] = 0;
		if (!body && (body = strstr(b, "\r\n\r\n"))) {
			body += 4;
			const char *cl = strcasestr(b, "Content-Length:");
			want = cl ? strtol(cl + 15, NULL, 10) : 0;
		}
		if (body && (long)(n - (size_t)(body - b)) >= want)
			break;
	}
	b[n] = 0;
	char *out = body ? strdup(body) : NULL;
	free(b);
	return out;
}

static void *receive(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		char *body = read_request(fd);
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: "
					 "0\r\nConnection: close\r\n\r\n";
		ssize_t w = write(fd, ok, sizeof ok - 1);
		(void)w;
		close(fd);
		json_t *arr = body ? json_loads(body, 0, NULL) : NULL;
		free(body);
		if (!json_is_array(arr)) {
			json_decref(arr);
			continue;
		}
		pthread_mutex_lock(&rx_lock);
		json_array_extend(rx_alerts, arr);
		pthread_mutex_unlock(&rx_lock);
		json_decref(arr);
	}
}

static unsigned start_receiver(void)
{
	rx_alerts = json_array();
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(lfd, 8), 0);
	socklen_t len = sizeof a;
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&a, &len), 0);
	ck_assert_int_eq(pthread_create(&rx_thread, NULL, receive, NULL), 0);
	return ntohs(a.sin_port);
}

static void stop_receiver(void)
{
	shutdown(lfd, SHUT_RDWR);
	close(lfd);
	pthread_join(rx_thread, NULL);
	json_decref(rx_alerts);
}

/* A copy of the labels of the alert posted for incident id (NULL: none
 * yet), and its summary into *summary (malloc'd). */
static json_t *posted(uint64_t id, char **summary)
{
	char want[24];
	snprintf(want, sizeof want, "%llu", (unsigned long long)id);
	json_t *labels = NULL;
	pthread_mutex_lock(&rx_lock);
	size_t i;
	json_t *al;
	json_array_foreach(rx_alerts, i, al)
	{
		json_t *ann = json_object_get(al, "annotations");
		const char *v =
		    json_string_value(json_object_get(ann, "incident_id"));
		if (!v || strcmp(v, want))
			continue;
		labels = json_deep_copy(json_object_get(al, "labels"));
		const char *s =
		    json_string_value(json_object_get(ann, "summary"));
		*summary = strdup(s ? s : "");
		break;
	}
	pthread_mutex_unlock(&rx_lock);
	return labels;
}

static json_t *wait_posted(uint64_t id, char **summary)
{
	for (int i = 0; i < 3000; i++) {
		json_t *l = posted(id, summary);
		if (l)
			return l;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("incident %llu was never posted", (unsigned long long)id);
	return NULL;
}

static void fire(struct alert *a, uint64_t id, const char *dev,
		 const char *port, bool far_end, enum rules_sender sender,
		 const char *summary)
{
	struct rules_subject s = { .device = (char *)dev,
				   .port = (char *)port,
				   .priority = 3 };
	struct rules_incident in = { .id = id,
				     .kind = RULES_PFC_STORM,
				     .state = RULES_FIRING,
				     .priority = 3,
				     .started_ns = 1,
				     .fired_ns = 2,
				     .summary = (char *)summary,
				     .subjects = &s,
				     .n_subjects = 1,
				     .far_end = far_end,
				     .sender = sender };
	alert_incident(a, &in);
}

static const char *label(json_t *l, const char *k)
{
	return json_string_value(json_object_get(l, k));
}

START_TEST(test_sender_label_and_far_end_summary)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/", start_receiver());
	char *urls[] = { url };
	struct cfg_alert c = { .urls = urls,
			       .n_urls = 1,
			       .resend_ns = 60000000000ull,
			       .timeout_ns = 5000000000ull,
			       .max_alerts = 8 };
	struct alert *a = alert_new(&c);
	ck_assert_int_eq(alert_start(a), 0);
	fire(a, 1, "leaf0", "Ethernet0", true, RULES_SENDER_UNMONITORED,
	     "pfc_storm priority 3: leaf0:Ethernet0 held paused by its far "
	     "end (sender not monitored), 0 other ports involved, peak 1");
	fire(a, 2, "host0", "mlx5_0", false, RULES_SENDER_MONITORED,
	     "pfc_storm at host0:mlx5_0 priority 3, 1 other port involved, "
	     "peak 1");

	char *sum = NULL;
	json_t *l = wait_posted(1, &sum);
	ck_assert_str_eq(label(l, "alertname"), "FabmonPfcStorm");
	ck_assert_str_eq(label(l, "sender"), "unmonitored");
	ck_assert_str_eq(label(l, "origin"), "leaf0:Ethernet0");
	ck_assert_str_eq(label(l, "priority"), "3");
	ck_assert_ptr_nonnull(strstr(sum, "held paused by its far end"));
	json_decref(l);
	free(sum);

	l = wait_posted(2, &sum);
	ck_assert_str_eq(label(l, "origin"), "host0:mlx5_0");
	ck_assert_ptr_null(json_object_get(l, "sender"));
	json_decref(l);
	free(sum);

	alert_free(a);
	stop_receiver();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alert_labels");
	TCase *tc = tcase_create("labels");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sender_label_and_far_end_summary);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
