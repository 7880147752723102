/*
 * alert: the Alertmanager pusher (see alert.h).
 *
 * A pusher holds the settings every URL shares (labels, auth, TLS) and
 * one target per URL. Each target's table holds one entry per incident id: its
 * labels and annotations as a ready JSON object (built once, when the incident
 * fires), its startsAt, its resolution time (0 while firing), how many more
 * times a resolution is to be posted, and whether it is due now. The target's
 * sender copies the due entries' JSON (under its lock, by reference
 * count), sets endsAt, posts without the lock, and on success (or a
 * rejection) clears what it posted. Entries whose resolution was posted
 * enough times are removed. The meter keeps one slot of counters per
 * URL shown; a target holds a reference (the slot's refs, under the
 * meter's lock) from its attach until its thread has ended, and only a
 * slot nobody references is reused.
 */
#include "config.h"

#include "alert.h"

#include "cfg.h"
#include "clock.h"
#include "json.h"
#include "log.h"
#include "mem.h"
#include "rules.h"
#include "units.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH	       256
#define RESOLVED_SENDS 3
#define BACKOFF_MIN_NS NS_PER_S

const double alert_latency_bounds[ALERT_LATENCY_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10
};

struct entry {
	uint64_t id;
	json_t *base;	     /* labels, annotations, startsAt, generatorURL */
	int64_t resolved;    /* ns; 0 while firing */
	unsigned sends_left; /* resolved: posts still to make */
	bool due;
};

/* A URL's counters in the meter; kept for the meter's life. */
struct meter_url {
	char url[ALERT_URL_LEN]; /* "": slot unused */
	unsigned refs;		 /* targets counting here (meter lock) */
	struct target *cur;	 /* the attached pusher's target; NULL */
	_Atomic uint64_t posts_ok, posts_failed, retries, alerts_sent, dropped;
	_Atomic int64_t last_ok_ns; /* CLOCK_MONOTONIC; 0: none */
	_Atomic uint64_t lat_count, lat_sum_ns;
	_Atomic uint64_t lat_bucket[ALERT_LATENCY_BUCKETS + 1];
};

enum target_state { T_OK, T_FAILING, T_REJECTED };

/* One URL: its table, its sender thread, its backoff. */
struct target {
	const struct alert *a; /* the shared settings */
	char *url;	       /* what is posted to: .../api/v2/alerts */
	char *shown;	       /* base URL without credentials */
	struct curl_slist *headers, *connect_to;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct entry *e;
	size_t n;
	bool stop, running;
	pthread_t thread;
	int64_t next_resend; /* CLOCK_MONOTONIC ns */
	struct alert_stats stats;
	enum target_state state;
	struct meter_url *mu; /* under lock; NULL: not counted */
};

struct alert {
	int64_t resend_ns, timeout_ns;
	size_t max;
	json_t *static_labels;
	char *username, *password; /* basic auth; NULL: none */
	char *authz;		   /* "Authorization: type creds"; NULL */
	char *ca_file, *cert_file, *key_file, *server_name;
	bool insecure;
	enum cfg_alert_tls tls_min;
	struct target *t;
	size_t n_t;
	struct alert_meter *meter; /* NULL: none */
};

struct alert_meter {
	pthread_mutex_t lock; /* guards cur, ever and the slots' refs/cur */
	struct alert *cur;
	bool ever;
	struct meter_url u[ALERT_METER_URLS];
};

static const char *api_suffix = "/api/v2/alerts";

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* s without its trailing slashes, then suffix. */
static char *join(const char *s, const char *suffix)
{
	size_t len = strlen(s);
	while (len && s[len - 1] == '/')
		len--;
	return xasprintf("%.*s%s", (int)len, s, suffix);
}

/*
 * The URL to post to, the URL shown (no user or password) and, when
 * server_name is set for an https URL, how to reach it: libcurl takes
 * the TLS name (SNI and certificate check) from the URL's host, so the
 * URL gets server_name as its host, CURLOPT_CONNECT_TO sends the
 * connection to the configured host and port, and a Host header keeps
 * what the configured URL says (as Prometheus's server_name does).
 */
static void target_urls(struct target *t, const char *base,
			const char *server_name)
{
	CURLU *u = curl_url();
	char *full = NULL, *host = NULL, *port = NULL, *dport = NULL;
	if (!u || curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK) {
		/* Not for libcurl's parser: post as configured; the
		 * failure is logged with each post. */
		t->url = join(base, api_suffix);
		t->shown = xstrdup("(unparsable URL)");
		curl_url_cleanup(u);
		return;
	}
	curl_url_set(u, CURLUPART_USER, NULL, 0);
	curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
	if (curl_url_get(u, CURLUPART_URL, &full, 0) == CURLUE_OK)
		t->shown = join(full, "");
	curl_free(full);
	full = NULL;
	if (!t->shown)
		t->shown = xstrdup("(unparsable URL)");
	if (server_name && strncmp(base, "https://", 8) == 0 &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &dport, CURLU_DEFAULT_PORT) ==
		CURLUE_OK) {
		curl_url_get(u, CURLUPART_PORT, &port, 0);
		char *ct =
		    xasprintf("%s:%s:%s:%s", server_name, dport, host, dport);
		t->connect_to = curl_slist_append(NULL, ct);
		free(ct);
		char *hh = xasprintf("Host: %s%s%s", host, port ? ":" : "",
				     port ? port : "");
		t->headers = curl_slist_append(t->headers, hh);
		free(hh);
		/* The host part only: userinfo stays as configured. */
		CURLU *v = curl_url();
		if (v && curl_url_set(v, CURLUPART_URL, base, 0) == CURLUE_OK &&
		    curl_url_set(v, CURLUPART_HOST, server_name, 0) ==
			CURLUE_OK &&
		    curl_url_get(v, CURLUPART_URL, &full, 0) == CURLUE_OK)
			t->url = join(full, api_suffix);
		curl_free(full);
		curl_url_cleanup(v);
	}
	if (!t->url)
		t->url = join(base, api_suffix);
	curl_free(host);
	curl_free(port);
	curl_free(dport);
	curl_url_cleanup(u);
}

static void target_init(struct target *t, const struct alert *a,
			const char *base)
{
	t->a = a;
	t->headers = curl_slist_append(NULL, "Content-Type: application/json");
	if (a->authz)
		t->headers = curl_slist_append(t->headers, a->authz);
	target_urls(t, base, a->server_name);
	t->e = xcalloc(a->max, sizeof *t->e);
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &ca);
	pthread_condattr_destroy(&ca);
}

struct alert *alert_new(const struct cfg_alert *c)
{
	struct alert *a = xcalloc(1, sizeof *a);
	a->resend_ns = (int64_t)c->resend_ns;
	a->timeout_ns = (int64_t)c->timeout_ns;
	a->max = c->max_alerts ? c->max_alerts : 1;
	a->static_labels = json_object();
	for (size_t i = 0; i < c->n_labels; i++)
		json_object_set_new(a->static_labels, c->label_names[i],
				    json_string(c->label_values[i]));
	a->username = dup_or_null(c->username);
	a->password = dup_or_null(c->password);
	if (c->auth_type && c->credentials)
		a->authz = xasprintf("Authorization: %s %s", c->auth_type,
				     c->credentials);
	a->ca_file = dup_or_null(c->ca_file);
	a->cert_file = dup_or_null(c->cert_file);
	a->key_file = dup_or_null(c->key_file);
	a->server_name = dup_or_null(c->server_name);
	a->insecure = c->insecure_skip_verify;
	a->tls_min = c->tls_min;
	a->n_t = c->n_urls;
	a->t = xcalloc(a->n_t ? a->n_t : 1, sizeof *a->t);
	for (size_t i = 0; i < a->n_t; i++)
		target_init(&a->t[i], a, c->urls[i]);
	return a;
}

static bool same_str(const char *a, const char *b)
{
	return !a == !b && (!a || strcmp(a, b) == 0);
}

bool alert_cfg_equal(const struct cfg_alert *a, const struct cfg_alert *b)
{
	if (a->n_urls != b->n_urls || a->resend_ns != b->resend_ns ||
	    a->timeout_ns != b->timeout_ns || a->max_alerts != b->max_alerts ||
	    a->n_labels != b->n_labels || !same_str(a->username, b->username) ||
	    !same_str(a->password, b->password) ||
	    !same_str(a->auth_type, b->auth_type) ||
	    !same_str(a->credentials, b->credentials) ||
	    !same_str(a->ca_file, b->ca_file) ||
	    !same_str(a->cert_file, b->cert_file) ||
	    !same_str(a->key_file, b->key_file) ||
	    !same_str(a->server_name, b->server_name) ||
	    a->insecure_skip_verify != b->insecure_skip_verify ||
	    a->tls_min != b->tls_min)
		return false;
	for (size_t i = 0; i < a->n_urls; i++)
		if (strcmp(a->urls[i], b->urls[i]) != 0)
			return false;
	for (size_t i = 0; i < a->n_labels; i++)
		if (strcmp(a->label_names[i], b->label_names[i]) != 0 ||
		    strcmp(a->label_values[i], b->label_values[i]) != 0)
			return false;
	return true;
}

/* "pfc_storm" -> "FabmonPfcStorm". */
static char *alertname(const char *kind)
{
	char *s = xmalloc(strlen(kind) + 7);
	strcpy(s, "Fabmon");
	char *o = s + 6;
	bool up = true;
	for (const char *p = kind; *p; p++) {
		if (*p == '_') {
			up = true;
			continue;
		}
		*o++ = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p;
		up = false;
	}
	*o = '\0';
	return s;
}

static const char *severity(enum rules_kind k)
{
	switch (k) {
	case RULES_PFC_STORM:
	case RULES_PFC_DEADLOCK:
	case RULES_LOSSLESS_DROP:
		return "critical";
	default:
		return "warning";
	}
}

static json_t *base_json(const struct alert *a, const struct rules_incident *in)
{
	json_t *labels = json_deep_copy(a->static_labels);
	const char *kind = rules_kind_name(in->kind);
	char *name = alertname(kind);
	json_object_set_new(labels, "alertname", json_string(name));
	free(name);
	json_object_set_new(labels, "kind", json_string(kind));
	json_object_set_new(labels, "severity",
			    json_string(severity(in->kind)));
	const struct rules_subject *o =
	    in->n_subjects ? &in->subjects[0] : NULL;
	if (o) {
		json_object_set_new(labels, "device", json_str(o->device));
		if (o->port && o->port[0])
			json_object_set_new(labels, "port", json_str(o->port));
		char *org = o->port && o->port[0]
				? xasprintf("%s:%s", o->device, o->port)
				: xstrdup(o->device);
		json_object_set_new(labels, "origin", json_str(org));
		free(org);
	}
	if (in->priority >= 0) {
		char p[16];
		snprintf(p, sizeof p, "%d", in->priority);
		json_object_set_new(labels, "priority", json_string(p));
	}
	/* A storm from outside the view; absent otherwise, as an empty
	 * label would be (the summary says whether it is a far end). */
	if (in->sender != RULES_SENDER_MONITORED)
		json_object_set_new(labels, "sender",
				    json_string(rules_sender_name(in->sender)));
	json_t *ann = json_object();
	json_object_set_new(ann, "summary", json_str(in->summary));
	char id[24];
	snprintf(id, sizeof id, "%llu", (unsigned long long)in->id);
	json_object_set_new(ann, "incident_id", json_string(id));
	json_t *j = json_object();
	json_object_set_new(j, "labels", labels);
	json_object_set_new(j, "annotations", ann);
	json_object_set_new(
	    j, "startsAt",
	    json_time(in->fired_ns ? in->fired_ns : in->started_ns));
	return j;
}

static void entry_clear(struct entry *e)
{
	json_decref(e->base);
	memset(e, 0, sizeof *e);
}

static void remove_at(struct target *t, size_t i)
{
	entry_clear(&t->e[i]);
	t->e[i] = t->e[--t->n];
	memset(&t->e[t->n], 0, sizeof t->e[t->n]);
}

/* The entry of in in t's table, made if new; NULL if it does not fit. */
static struct entry *entry_for(struct target *t,
			       const struct rules_incident *in)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].id == in->id)
			return &t->e[i];
	if (t->n == t->a->max) {
		/* Forget the oldest resolution still being repeated (it
		 * was posted at least once unless due). */
		size_t victim = t->n;
		for (size_t i = 0; i < t->n; i++)
			if (t->e[i].resolved &&
			    (victim == t->n ||
			     t->e[i].resolved < t->e[victim].resolved))
				victim = i;
		if (victim == t->n) {
			t->stats.dropped++;
			if (t->mu)
				atomic_fetch_add(&t->mu->dropped, 1);
			return NULL;
		}
		remove_at(t, victim);
	}
	struct entry *e = &t->e[t->n++];
	e->id = in->id;
	e->base = base_json(t->a, in);
	return e;
}

void alert_incident(struct alert *a, const struct rules_incident *in)
{
	if (!a || in->state == RULES_PENDING)
		return;
	for (size_t k = 0; k < a->n_t; k++) {
		struct target *t = &a->t[k];
		pthread_mutex_lock(&t->lock);
		struct entry *e = entry_for(t, in);
		if (e) {
			if (in->state == RULES_RESOLVED) {
				e->resolved = in->resolved_ns ? in->resolved_ns
							      : real_ns();
				e->sends_left = RESOLVED_SENDS;
			}
			e->due = true;
			pthread_cond_signal(&t->cond);
		}
		pthread_mutex_unlock(&t->lock);
	}
}

static size_t discard_cb(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

/* The TLS and auth options of a on c. */
static void set_security(CURL *c, const struct alert *a)
{
	static const long versions[] = {
		[CFG_ALERT_TLS_DEFAULT] = CURL_SSLVERSION_DEFAULT,
		[CFG_ALERT_TLS10] = CURL_SSLVERSION_TLSv1_0,
		[CFG_ALERT_TLS11] = CURL_SSLVERSION_TLSv1_1,
		[CFG_ALERT_TLS12] = CURL_SSLVERSION_TLSv1_2,
		[CFG_ALERT_TLS13] = CURL_SSLVERSION_TLSv1_3,
	};
	if (a->username) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, a->username);
		curl_easy_setopt(c, CURLOPT_PASSWORD,
				 a->password ? a->password : "");
	}
	if (a->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, a->ca_file);
	if (a->cert_file) {
		curl_easy_setopt(c, CURLOPT_SSLCERT, a->cert_file);
		curl_easy_setopt(c, CURLOPT_SSLKEY, a->key_file);
	}
	if (a->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_easy_setopt(c, CURLOPT_SSLVERSION, versions[a->tls_min]);
}

/* What a post's outcome asks of the sender. */
enum post_result { POST_OK, POST_RETRY, POST_REJECTED };

/* Posts body to t; the reason of a failure in why. A 4xx other than
 * 408 and 429 is a rejection (retrying the same post cannot help). */
static enum post_result post(const struct target *t, const char *body,
			     char *why, size_t whylen)
{
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(why, whylen, "curl_easy_init failed");
		return POST_RETRY;
	}
	curl_easy_setopt(c, CURLOPT_URL, t->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, t->headers);
	if (t->connect_to)
		curl_easy_setopt(c, CURLOPT_CONNECT_TO, t->connect_to);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
			 (long)(t->a->timeout_ns / 1000000));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_cb);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	set_security(c, t->a);
	CURLcode rc = curl_easy_perform(c);
	long code = 0;
	enum post_result ret = POST_OK;
	if (rc != CURLE_OK) {
		snprintf(why, whylen, "%s", curl_easy_strerror(rc));
		ret = POST_RETRY;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code < 200 || code > 299) {
			snprintf(why, whylen, "HTTP status %ld", code);
			ret = code >= 400 && code <= 499 && code != 408 &&
				      code != 429
				  ? POST_REJECTED
				  : POST_RETRY;
		}
	}
	curl_easy_cleanup(c);
	return ret;
}

/* Takes up to BATCH due entries: their ids into ids, the JSON array to
 * post as the return. NULL if nothing is due. */
static json_t *take_batch(struct target *t, int64_t now_real, uint64_t *ids,
			  size_t *n_ids)
{
	json_t *arr = NULL;
	*n_ids = 0;
	for (size_t i = 0; i < t->n && *n_ids < BATCH; i++) {
		struct entry *e = &t->e[i];
		if (!e->due)
			continue;
		if (!arr)
			arr = json_array();
		json_t *j = json_copy(e->base);
		json_object_set_new(
		    j, "endsAt",
		    json_time(e->resolved ? e->resolved
					  : now_real + 4 * t->a->resend_ns));
		json_array_append_new(arr, j);
		ids[(*n_ids)++] = e->id;
	}
	return arr;
}

/* After a post of ids that is not to be retried: clear due, count down
 * resolutions. */
static void settle(struct target *t, const uint64_t *ids, size_t n_ids)
{
	for (size_t k = 0; k < n_ids; k++)
		for (size_t i = 0; i < t->n; i++) {
			struct entry *e = &t->e[i];
			if (e->id != ids[k])
				continue;
			e->due = false;
			if (e->resolved && e->sends_left &&
			    --e->sends_left == 0)
				remove_at(t, i);
			break;
		}
}

/* Counts a post of duration ns in the meter. */
static void count_post(struct meter_url *m, enum post_result r, bool retry,
		       size_t n_ids, int64_t ns)
{
	if (!m)
		return;
	if (retry)
		atomic_fetch_add(&m->retries, 1);
	if (r == POST_OK) {
		atomic_fetch_add(&m->posts_ok, 1);
		atomic_fetch_add(&m->alerts_sent, n_ids);
		atomic_store(&m->last_ok_ns, mono_ns());
	} else {
		atomic_fetch_add(&m->posts_failed, 1);
	}
	if (r == POST_REJECTED)
		atomic_fetch_add(&m->dropped, n_ids);
	size_t b = 0;
	while (b < ALERT_LATENCY_BUCKETS &&
	       (double)ns / 1e9 > alert_latency_bounds[b])
		b++;
	atomic_fetch_add(&m->lat_bucket[b], 1);
	atomic_fetch_add(&m->lat_count, 1);
	atomic_fetch_add(&m->lat_sum_ns, (uint64_t)(ns > 0 ? ns : 0));
}

/* The outcome r of a post of ids (under t's lock): the table, the
 * stats, the log (once per change of state), the next attempt. */
static void after_post(struct target *t, enum post_result r, const char *why,
		       const uint64_t *ids, size_t n_ids, int64_t *backoff,
		       int64_t *retry_at)
{
	if (r == POST_RETRY) {
		t->stats.posts_failed++;
		if (t->state != T_FAILING)
			log_warn("rules",
				 "alertmanager: posting to %s failed: %s "
				 "(retrying with backoff)",
				 t->shown, why);
		t->state = T_FAILING;
		*backoff = *backoff ? *backoff * 2 : BACKOFF_MIN_NS;
		if (*backoff > t->a->resend_ns)
			*backoff = t->a->resend_ns;
		*retry_at = mono_ns() + *backoff;
		return;
	}
	settle(t, ids, n_ids);
	*backoff = 0;
	*retry_at = 0;
	if (r == POST_REJECTED) {
		t->stats.posts_failed++;
		t->stats.dropped += n_ids;
		if (t->state != T_REJECTED)
			log_warn("rules",
				 "alertmanager: %s rejected the alerts: %s "
				 "(not retried; firing alerts go again with "
				 "the next resend)",
				 t->shown, why);
		t->state = T_REJECTED;
		return;
	}
	t->stats.posts_ok++;
	t->stats.alerts_sent += n_ids;
	if (t->state != T_OK)
		log_notice("rules", "alertmanager: posting to %s works again",
			   t->shown);
	t->state = T_OK;
}

static void *send_thread(void *arg)
{
	struct target *t = arg;
	uint64_t ids[BATCH];
	int64_t backoff = 0, retry_at = 0;
	pthread_mutex_lock(&t->lock);
	t->next_resend = mono_ns() + t->a->resend_ns;
	for (;;) {
		int64_t now = mono_ns();
		bool resend = now >= t->next_resend;
		bool any_due = false;
		for (size_t i = 0; i < t->n && !any_due; i++)
			any_due = t->e[i].due;
		if (t->stop && (!any_due || backoff))
			break;
		if (resend) {
			for (size_t i = 0; i < t->n; i++)
				t->e[i].due = true;
			t->next_resend = now + t->a->resend_ns;
			any_due = t->n > 0;
		}
		if (!any_due || now < retry_at) {
			int64_t until = t->next_resend;
			if (any_due && retry_at < until)
				until = retry_at;
			struct timespec ts = { .tv_sec = until / NS_PER_S,
					       .tv_nsec = until % NS_PER_S };
			pthread_cond_timedwait(&t->cond, &t->lock, &ts);
			continue;
		}
		size_t n_ids;
		json_t *arr = take_batch(t, real_ns(), ids, &n_ids);
		bool retry = t->state == T_FAILING;
		pthread_mutex_unlock(&t->lock);
		char *body = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
		json_decref(arr);
		char why[256] = "out of memory";
		int64_t t0 = mono_ns();
		enum post_result r =
		    body ? post(t, body, why, sizeof why) : POST_RETRY;
		int64_t took = mono_ns() - t0;
		free(body);
		pthread_mutex_lock(&t->lock);
		count_post(t->mu, r, retry, n_ids, took);
		after_post(t, r, why, ids, n_ids, &backoff, &retry_at);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void target_stop(struct target *t)
{
	if (!t->running)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	t->running = false;
}

int alert_start(struct alert *a)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	for (size_t i = 0; i < a->n_t; i++) {
		struct target *t = &a->t[i];
		if (t->running)
			continue;
		t->stop = false;
		int rc = pthread_create(&t->thread, NULL, send_thread, t);
		if (rc) {
			for (size_t j = 0; j < i; j++)
				target_stop(&a->t[j]);
			return -rc;
		}
		t->running = true;
		log_info("rules", "alertmanager: pushing incidents to %s",
			 t->shown);
	}
	return 0;
}

/* Zeroes what a curl list holds (a header may carry credentials). */
static void free_headers(struct curl_slist *l)
{
	for (struct curl_slist *p = l; p; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

static void target_fini(struct target *t)
{
	for (size_t i = 0; i < t->n; i++)
		entry_clear(&t->e[i]);
	free(t->e);
	free_headers(t->headers);
	curl_slist_free_all(t->connect_to);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t->url);
	free(t->shown);
}

void alert_free(struct alert *a)
{
	if (!a)
		return;
	struct alert_meter *m = a->meter;
	if (m) {
		/* No longer shown; the last posts below still count. */
		pthread_mutex_lock(&m->lock);
		if (m->cur == a)
			m->cur = NULL;
		for (size_t i = 0; i < ALERT_METER_URLS; i++)
			for (size_t k = 0; k < a->n_t; k++)
				if (m->u[i].cur == &a->t[k])
					m->u[i].cur = NULL;
		pthread_mutex_unlock(&m->lock);
	}
	for (size_t k = 0; k < a->n_t; k++)
		target_stop(&a->t[k]);
	if (m) {
		pthread_mutex_lock(&m->lock);
		for (size_t k = 0; k < a->n_t; k++)
			if (a->t[k].mu)
				a->t[k].mu->refs--;
		pthread_mutex_unlock(&m->lock);
	}
	for (size_t k = 0; k < a->n_t; k++)
		target_fini(&a->t[k]);
	free(a->t);
	json_decref(a->static_labels);
	free(a->username);
	free_secret(a->password);
	free_secret(a->authz);
	free(a->ca_file);
	free(a->cert_file);
	free(a->key_file);
	free(a->server_name);
	free(a);
}

static void out_incident(void *ctx, const struct rules_incident *in)
{
	alert_incident(ctx, in);
}

const struct rules_output_ops alert_output_ops = {
	.name = "alertmanager",
	.incident = out_incident,
};

static void target_stats(struct target *t, struct alert_stats *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->stats;
	out->tracked = t->n;
	out->pending = 0;
	for (size_t i = 0; i < t->n; i++)
		out->pending += t->e[i].due;
	pthread_mutex_unlock(&t->lock);
}

void alert_get_stats(struct alert *a, struct alert_stats *out)
{
	memset(out, 0, sizeof *out);
	for (size_t k = 0; k < a->n_t; k++) {
		struct alert_stats st;
		target_stats(&a->t[k], &st);
		out->posts_ok += st.posts_ok;
		out->posts_failed += st.posts_failed;
		out->alerts_sent += st.alerts_sent;
		out->dropped += st.dropped;
		out->pending += st.pending;
		if (st.tracked > out->tracked)
			out->tracked = st.tracked;
	}
}

struct alert_meter *alert_meter_new(void)
{
	struct alert_meter *m = xcalloc(1, sizeof *m);
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

void alert_meter_free(struct alert_meter *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* The slot of url in m (under m's lock): its own, a free one, or one no
 * pusher uses (reset); NULL if every slot is in use. */
static struct meter_url *meter_slot(struct alert_meter *m, const char *url)
{
	struct meter_url *free_slot = NULL, *unused = NULL;
	for (size_t i = 0; i < ALERT_METER_URLS; i++) {
		struct meter_url *u = &m->u[i];
		if (u->url[0] && strcmp(u->url, url) == 0)
			return u;
		if (!u->url[0] && !free_slot)
			free_slot = u;
		if (u->url[0] && u->refs == 0 && !unused)
			unused = u;
	}
	struct meter_url *u = free_slot ? free_slot : unused;
	if (!u)
		return NULL;
	/* No target counts here (refs 0): nothing writes it. */
	memset(u, 0, sizeof *u);
	snprintf(u->url, sizeof u->url, "%s", url);
	return u;
}

void alert_meter_attach(struct alert_meter *m, struct alert *a)
{
	pthread_mutex_lock(&m->lock);
	m->cur = a;
	m->ever = m->ever || a;
	for (size_t i = 0; i < ALERT_METER_URLS; i++)
		m->u[i].cur = NULL;
	for (size_t k = 0; a && k < a->n_t; k++) {
		struct target *t = &a->t[k];
		struct meter_url *u = meter_slot(m, t->shown);
		if (u) {
			u->refs++;
			u->cur = t;
		}
		pthread_mutex_lock(&t->lock);
		t->mu = u;
		pthread_mutex_unlock(&t->lock);
	}
	if (a)
		a->meter = m;
	pthread_mutex_unlock(&m->lock);
}

/* Slot u's figures (under m's lock). */
static void url_get(struct meter_url *u, struct alert_url_stats *o)
{
	memset(o, 0, sizeof *o);
	snprintf(o->url, sizeof o->url, "%s", u->url);
	o->attached = u->cur != NULL;
	if (u->cur) {
		struct alert_stats st;
		target_stats(u->cur, &st);
		o->pending = st.pending;
		o->tracked = st.tracked;
	}
	o->posts_ok = atomic_load(&u->posts_ok);
	o->posts_failed = atomic_load(&u->posts_failed);
	o->retries = atomic_load(&u->retries);
	o->alerts_sent = atomic_load(&u->alerts_sent);
	o->dropped = atomic_load(&u->dropped);
	uint64_t cum = 0;
	for (size_t b = 0; b < ALERT_LATENCY_BUCKETS; b++) {
		cum += atomic_load(&u->lat_bucket[b]);
		o->latency_le[b] = cum;
	}
	/* The count last: at least the buckets' sum however posts race. */
	o->latency_count = atomic_load(&u->lat_count);
	if (o->latency_count < cum)
		o->latency_count = cum;
	o->latency_sum_s = (double)atomic_load(&u->lat_sum_ns) / 1e9;
	int64_t ok = atomic_load(&u->last_ok_ns);
	o->last_ok_age_s = ok ? (double)(mono_ns() - ok) / 1e9 : -1;
}

void alert_meter_get(struct alert_meter *m, struct alert_meter_stats *out)
{
	memset(out, 0, sizeof *out);
	out->last_ok_age_s = -1;
	pthread_mutex_lock(&m->lock);
	out->attached = m->cur != NULL;
	out->ever = m->ever;
	for (size_t i = 0; i < ALERT_METER_URLS; i++) {
		if (!m->u[i].url[0])
			continue;
		struct alert_url_stats *o = &out->url[out->n_urls++];
		url_get(&m->u[i], o);
		out->posts_ok += o->posts_ok;
		out->posts_failed += o->posts_failed;
		out->retries += o->retries;
		out->alerts_sent += o->alerts_sent;
		out->dropped += o->dropped;
		out->pending += o->pending;
		if (o->tracked > out->tracked)
			out->tracked = o->tracked;
		if (o->last_ok_age_s >= 0 &&
		    (out->last_ok_age_s < 0 ||
		     o->last_ok_age_s < out->last_ok_age_s))
			out->last_ok_age_s = o->last_ok_age_s;
	}
	pthread_mutex_unlock(&m->lock);
}
