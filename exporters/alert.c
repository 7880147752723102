/*
 * alert: the Alertmanager pusher (see alert.h).
 *
 * The table holds one entry per incident id: its labels and annotations
 * as a ready JSON object (built once, when the incident fires), its
 * startsAt, its resolution time (0 while firing), how many more times a
 * resolution is to be posted, and whether it is due now. The sender
 * copies the due entries' JSON (under the lock, by reference count),
 * sets endsAt, posts without the lock, and on success clears what it
 * posted. Entries whose resolution was posted enough times are removed.
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

struct entry {
	uint64_t id;
	json_t *base;	     /* labels, annotations, startsAt, generatorURL */
	int64_t resolved;    /* ns; 0 while firing */
	unsigned sends_left; /* resolved: posts still to make */
	bool due;
};

struct alert {
	char *url; /* .../api/v2/alerts */
	int64_t resend_ns, timeout_ns;
	size_t max;
	json_t *static_labels;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct entry *e;
	size_t n;
	bool stop, running;
	pthread_t thread;
	int64_t next_resend; /* CLOCK_MONOTONIC ns */
	struct alert_stats stats;
	bool failing;
	struct alert_meter *meter; /* under lock; NULL: none */
};

struct alert_meter {
	pthread_mutex_t lock; /* guards cur and ever */
	struct alert *cur;
	bool ever;
	_Atomic uint64_t posts_ok, posts_failed, retries, alerts_sent, dropped;
	_Atomic int64_t last_ok_ns; /* CLOCK_MONOTONIC; 0: none */
};

static const char *api_suffix = "/api/v2/alerts";

struct alert *alert_new(const struct cfg_alert *c)
{
	struct alert *a = xcalloc(1, sizeof *a);
	const char *u = c->url ? c->url : "";
	size_t len = strlen(u);
	while (len && u[len - 1] == '/')
		len--;
	a->url = xasprintf("%.*s%s", (int)len, u, api_suffix);
	a->resend_ns = (int64_t)c->resend_ns;
	a->timeout_ns = (int64_t)c->timeout_ns;
	a->max = c->max_alerts ? c->max_alerts : 1;
	a->static_labels = json_object();
	for (size_t i = 0; i < c->n_labels; i++)
		json_object_set_new(a->static_labels, c->label_names[i],
				    json_string(c->label_values[i]));
	a->e = xcalloc(a->max, sizeof *a->e);
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cond, &ca);
	pthread_condattr_destroy(&ca);
	return a;
}

bool alert_cfg_equal(const struct cfg_alert *a, const struct cfg_alert *b)
{
	if (!a->url != !b->url || (a->url && strcmp(a->url, b->url) != 0) ||
	    a->resend_ns != b->resend_ns || a->timeout_ns != b->timeout_ns ||
	    a->max_alerts != b->max_alerts || a->n_labels != b->n_labels)
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

static void remove_at(struct alert *a, size_t i)
{
	entry_clear(&a->e[i]);
	a->e[i] = a->e[--a->n];
	memset(&a->e[a->n], 0, sizeof a->e[a->n]);
}

void alert_incident(struct alert *a, const struct rules_incident *in)
{
	if (!a || in->state == RULES_PENDING)
		return;
	pthread_mutex_lock(&a->lock);
	struct entry *e = NULL;
	for (size_t i = 0; i < a->n; i++)
		if (a->e[i].id == in->id) {
			e = &a->e[i];
			break;
		}
	if (!e) {
		if (a->n == a->max) {
			/* Forget the oldest resolution still being repeated
			 * (it was posted at least once unless due). */
			size_t victim = a->n;
			for (size_t i = 0; i < a->n; i++)
				if (a->e[i].resolved &&
				    (victim == a->n ||
				     a->e[i].resolved < a->e[victim].resolved))
					victim = i;
			if (victim == a->n) {
				a->stats.dropped++;
				if (a->meter)
					atomic_fetch_add(&a->meter->dropped, 1);
				pthread_mutex_unlock(&a->lock);
				return;
			}
			remove_at(a, victim);
		}
		e = &a->e[a->n++];
		e->id = in->id;
		e->base = base_json(a, in);
	}
	if (in->state == RULES_RESOLVED) {
		e->resolved = in->resolved_ns ? in->resolved_ns : real_ns();
		e->sends_left = RESOLVED_SENDS;
	}
	e->due = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

static size_t discard_cb(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

/* Posts body; 0 on a 2xx answer, else -EIO with a reason in why. */
static int post(const struct alert *a, const char *body, char *why,
		size_t whylen)
{
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(why, whylen, "curl_easy_init failed");
		return -EIO;
	}
	struct curl_slist *h =
	    curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, a->url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
			 (long)(a->timeout_ns / 1000000));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_cb);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	CURLcode rc = curl_easy_perform(c);
	long code = 0;
	int ret = 0;
	if (rc != CURLE_OK) {
		snprintf(why, whylen, "%s", curl_easy_strerror(rc));
		ret = -EIO;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code < 200 || code > 299) {
			snprintf(why, whylen, "HTTP status %ld", code);
			ret = -EIO;
		}
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

/* Takes up to BATCH due entries (all when resending): their ids into
 * ids, the JSON array to post as the return. NULL if nothing is due. */
static json_t *take_batch(struct alert *a, bool resend, int64_t now_real,
			  uint64_t *ids, size_t *n_ids)
{
	json_t *arr = NULL;
	*n_ids = 0;
	for (size_t i = 0; i < a->n && *n_ids < BATCH; i++) {
		struct entry *e = &a->e[i];
		if (!e->due && !resend)
			continue;
		if (!arr)
			arr = json_array();
		json_t *j = json_copy(e->base);
		json_object_set_new(
		    j, "endsAt",
		    json_time(e->resolved ? e->resolved
					  : now_real + 4 * a->resend_ns));
		json_array_append_new(arr, j);
		ids[(*n_ids)++] = e->id;
	}
	return arr;
}

/* After a successful post of ids: clear due, count down resolutions. */
static void settle(struct alert *a, const uint64_t *ids, size_t n_ids)
{
	for (size_t k = 0; k < n_ids; k++)
		for (size_t i = 0; i < a->n; i++) {
			struct entry *e = &a->e[i];
			if (e->id != ids[k])
				continue;
			e->due = false;
			if (e->resolved && e->sends_left &&
			    --e->sends_left == 0)
				remove_at(a, i);
			break;
		}
}

static void *send_thread(void *arg)
{
	struct alert *a = arg;
	uint64_t ids[BATCH];
	int64_t backoff = 0, retry_at = 0;
	pthread_mutex_lock(&a->lock);
	a->next_resend = mono_ns() + a->resend_ns;
	for (;;) {
		int64_t now = mono_ns();
		bool resend = now >= a->next_resend;
		bool any_due = false;
		for (size_t i = 0; i < a->n && !any_due; i++)
			any_due = a->e[i].due;
		if (a->stop && (!any_due || backoff))
			break;
		if (resend)
			for (size_t i = 0; i < a->n; i++)
				a->e[i].due = true;
		if (resend) {
			a->next_resend = now + a->resend_ns;
			any_due = a->n > 0;
		}
		if (!any_due || now < retry_at) {
			int64_t until = a->next_resend;
			if (any_due && retry_at < until)
				until = retry_at;
			struct timespec ts = { .tv_sec = until / NS_PER_S,
					       .tv_nsec = until % NS_PER_S };
			pthread_cond_timedwait(&a->cond, &a->lock, &ts);
			continue;
		}
		size_t n_ids;
		json_t *arr = take_batch(a, false, real_ns(), ids, &n_ids);
		bool retry = a->failing;
		pthread_mutex_unlock(&a->lock);
		char *body = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
		json_decref(arr);
		char why[256] = "out of memory";
		int rc = body ? post(a, body, why, sizeof why) : -ENOMEM;
		free(body);
		pthread_mutex_lock(&a->lock);
		struct alert_meter *m = a->meter;
		if (m && retry)
			atomic_fetch_add(&m->retries, 1);
		if (m && rc == 0) {
			atomic_fetch_add(&m->posts_ok, 1);
			atomic_fetch_add(&m->alerts_sent, n_ids);
			atomic_store(&m->last_ok_ns, mono_ns());
		} else if (m) {
			atomic_fetch_add(&m->posts_failed, 1);
		}
		if (rc == 0) {
			settle(a, ids, n_ids);
			a->stats.posts_ok++;
			a->stats.alerts_sent += n_ids;
			if (a->failing)
				log_notice("rules",
					   "alertmanager: posting to %s works "
					   "again",
					   a->url);
			a->failing = false;
			backoff = 0;
			retry_at = 0;
		} else {
			a->stats.posts_failed++;
			if (!a->failing)
				log_warn("rules",
					 "alertmanager: posting to %s failed: "
					 "%s (retrying with backoff)",
					 a->url, why);
			a->failing = true;
			backoff = backoff ? backoff * 2 : BACKOFF_MIN_NS;
			if (backoff > a->resend_ns)
				backoff = a->resend_ns;
			retry_at = mono_ns() + backoff;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int alert_start(struct alert *a)
{
	if (a->running)
		return -EALREADY;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	a->stop = false;
	int rc = pthread_create(&a->thread, NULL, send_thread, a);
	if (rc)
		return -rc;
	a->running = true;
	log_info("rules", "alertmanager: pushing incidents to %s", a->url);
	return 0;
}

void alert_free(struct alert *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	struct alert_meter *m = a->meter;
	pthread_mutex_unlock(&a->lock);
	if (m) {
		/* No longer shown; the last posts below still count. */
		pthread_mutex_lock(&m->lock);
		if (m->cur == a)
			m->cur = NULL;
		pthread_mutex_unlock(&m->lock);
	}
	if (a->running) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_signal(&a->cond);
		pthread_mutex_unlock(&a->lock);
		pthread_join(a->thread, NULL);
	}
	for (size_t i = 0; i < a->n; i++)
		entry_clear(&a->e[i]);
	free(a->e);
	json_decref(a->static_labels);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a->url);
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

void alert_get_stats(struct alert *a, struct alert_stats *out)
{
	pthread_mutex_lock(&a->lock);
	*out = a->stats;
	out->tracked = a->n;
	out->pending = 0;
	for (size_t i = 0; i < a->n; i++)
		out->pending += a->e[i].due;
	pthread_mutex_unlock(&a->lock);
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

void alert_meter_attach(struct alert_meter *m, struct alert *a)
{
	if (a) {
		pthread_mutex_lock(&a->lock);
		a->meter = m;
		pthread_mutex_unlock(&a->lock);
	}
	pthread_mutex_lock(&m->lock);
	m->cur = a;
	m->ever = m->ever || a;
	pthread_mutex_unlock(&m->lock);
}

void alert_meter_get(struct alert_meter *m, struct alert_meter_stats *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&m->lock);
	out->attached = m->cur != NULL;
	out->ever = m->ever;
	if (m->cur) {
		struct alert_stats st;
		alert_get_stats(m->cur, &st);
		out->pending = st.pending;
		out->tracked = st.tracked;
	}
	pthread_mutex_unlock(&m->lock);
	out->posts_ok = atomic_load(&m->posts_ok);
	out->posts_failed = atomic_load(&m->posts_failed);
	out->retries = atomic_load(&m->retries);
	out->alerts_sent = atomic_load(&m->alerts_sent);
	out->dropped = atomic_load(&m->dropped);
	int64_t ok = atomic_load(&m->last_ok_ns);
	out->last_ok_age_s = ok ? (double)(mono_ns() - ok) / 1e9 : -1;
}
