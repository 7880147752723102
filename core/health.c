/*
 * health: the registry of per-target collector health and the daemon's
 * status (see health.h). Entries live in a singly linked list guarded by
 * one mutex; there are a few per target and they change at most once per
 * sample batch, so a list is cheaper to get right than an index.
 */
#include "config.h"

#include "health.h"

#include "clock.h"
#include "mem.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct health_target {
	struct health_target *next;
	struct health *owner;
	char *target;
	char *protocol;
	bool up;
	bool sync_seen;
	int64_t last_update_ns; /* monotonic; 0: never */
	double last_duration_s;
	uint64_t counters[HEALTH_C__COUNT];
	int64_t created_ns; /* realtime */
	char *last_error;
};

struct health {
	pthread_mutex_t lock;
	struct health_target *targets;
	int64_t start_ns; /* realtime */
	bool reload_ok;
	int64_t reload_ns;
	int64_t reload_success_ns;
	void (*updated_hook)(void *ctx);
	void *updated_ctx;
};

const char *health_counter_name(enum health_counter c)
{
	static const char *const names[HEALTH_C__COUNT] = {
		[HEALTH_C_UPDATES] = "updates",
		[HEALTH_C_RECONNECTS] = "reconnects",
		[HEALTH_C_ERRORS] = "errors",
		[HEALTH_C_DECODE_ERRORS] = "decode_errors",
		[HEALTH_C_UNMAPPED] = "unmapped_updates",
		[HEALTH_C_TIMEOUTS] = "timeouts",
		[HEALTH_C_OVERRUNS] = "overruns",
	};
	return (unsigned)c < HEALTH_C__COUNT ? names[c] : "unknown";
}

struct health *health_new(void)
{
	struct health *h = xcalloc(1, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	h->start_ns = clock_ns(CLOCK_REALTIME);
	h->reload_ok = true;
	h->reload_ns = h->start_ns;
	h->reload_success_ns = h->start_ns;
	return h;
}

static void target_free(struct health_target *t)
{
	free(t->target);
	free(t->protocol);
	free(t->last_error);
	free(t);
}

void health_free(struct health *h)
{
	if (!h)
		return;
	struct health_target *t = h->targets;
	while (t) {
		struct health_target *next = t->next;
		target_free(t);
		t = next;
	}
	pthread_mutex_destroy(&h->lock);
	free(h);
}

struct health_target *health_target(struct health *h, const char *target,
				    const char *protocol)
{
	pthread_mutex_lock(&h->lock);
	struct health_target *t;
	for (t = h->targets; t; t = t->next)
		if (strcmp(t->target, target) == 0 &&
		    strcmp(t->protocol, protocol) == 0)
			break;
	if (!t) {
		t = xcalloc(1, sizeof *t);
		t->owner = h;
		t->target = xstrdup(target);
		t->protocol = xstrdup(protocol);
		t->last_duration_s = -1;
		t->created_ns = clock_ns(CLOCK_REALTIME);
		t->last_error = xstrdup("not started");
		t->next = h->targets;
		h->targets = t;
	}
	pthread_mutex_unlock(&h->lock);
	return t;
}

void health_target_set_up(struct health_target *t, bool up, const char *reason)
{
	if (!t)
		return;
	char *copy = reason ? xstrdup(reason) : NULL;
	pthread_mutex_lock(&t->owner->lock);
	t->up = up;
	if (copy || up) {
		free(t->last_error);
		t->last_error = copy;
	}
	pthread_mutex_unlock(&t->owner->lock);
}

void health_target_set_down(struct health_target *t, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	health_target_set_up(t, false, why);
}

void health_target_updated(struct health_target *t, uint64_t n)
{
	if (!t)
		return;
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	struct health *h = t->owner;
	pthread_mutex_lock(&h->lock);
	t->last_update_ns = now;
	t->counters[HEALTH_C_UPDATES] += n;
	void (*hook)(void *) = n ? h->updated_hook : NULL;
	void *ctx = h->updated_ctx;
	pthread_mutex_unlock(&h->lock);
	if (hook)
		hook(ctx);
}

void health_set_updated_hook(struct health *h, void (*fn)(void *ctx), void *ctx)
{
	pthread_mutex_lock(&h->lock);
	h->updated_hook = fn;
	h->updated_ctx = ctx;
	pthread_mutex_unlock(&h->lock);
}

void health_target_count(struct health_target *t, enum health_counter c,
			 uint64_t n)
{
	if (!t || (unsigned)c >= HEALTH_C__COUNT)
		return;
	pthread_mutex_lock(&t->owner->lock);
	t->counters[c] += n;
	pthread_mutex_unlock(&t->owner->lock);
}

void health_target_set_sync(struct health_target *t, bool seen)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->owner->lock);
	t->sync_seen = seen;
	pthread_mutex_unlock(&t->owner->lock);
}

void health_target_set_duration(struct health_target *t, double seconds)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->owner->lock);
	t->last_duration_s = seconds;
	pthread_mutex_unlock(&t->owner->lock);
}

/* Removes the entries of target, of one protocol or (NULL) of all. */
static void remove_entries(struct health *h, const char *target,
			   const char *protocol)
{
	pthread_mutex_lock(&h->lock);
	struct health_target **pp = &h->targets;
	while (*pp) {
		struct health_target *t = *pp;
		if (strcmp(t->target, target) == 0 &&
		    (!protocol || strcmp(t->protocol, protocol) == 0)) {
			*pp = t->next;
			target_free(t);
		} else {
			pp = &t->next;
		}
	}
	pthread_mutex_unlock(&h->lock);
}

void health_remove_target(struct health *h, const char *target)
{
	remove_entries(h, target, NULL);
}

void health_remove(struct health *h, const char *target, const char *protocol)
{
	remove_entries(h, target, protocol);
}

static int info_cmp(const void *a, const void *b)
{
	const struct health_target_info *x = a, *y = b;
	int c = strcmp(x->target, y->target);
	return c ? c : strcmp(x->protocol, y->protocol);
}

size_t health_snapshot(struct health *h, struct health_target_info **out)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&h->lock);
	size_t n = 0;
	for (struct health_target *t = h->targets; t; t = t->next)
		n++;
	struct health_target_info *v = xcalloc(n ? n : 1, sizeof *v);
	size_t i = 0;
	for (struct health_target *t = h->targets; t; t = t->next, i++) {
		v[i].target = xstrdup(t->target);
		v[i].protocol = xstrdup(t->protocol);
		v[i].up = t->up;
		v[i].sync_seen = t->sync_seen;
		v[i].last_update_age_ns =
		    t->last_update_ns ? now - t->last_update_ns : -1;
		v[i].last_duration_s = t->last_duration_s;
		memcpy(v[i].counters, t->counters, sizeof v[i].counters);
		v[i].created_ns = t->created_ns;
		v[i].last_error = t->last_error ? xstrdup(t->last_error) : NULL;
	}
	pthread_mutex_unlock(&h->lock);
	qsort(v, n, sizeof *v, info_cmp);
	*out = v;
	return n;
}

void health_snapshot_free(struct health_target_info *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].target);
		free(v[i].protocol);
		free(v[i].last_error);
	}
	free(v);
}

void health_set_reload(struct health *h, bool ok, int64_t when_realtime_ns)
{
	pthread_mutex_lock(&h->lock);
	h->reload_ok = ok;
	h->reload_ns = when_realtime_ns;
	if (ok)
		h->reload_success_ns = when_realtime_ns;
	pthread_mutex_unlock(&h->lock);
}

void health_get_reload(struct health *h, bool *ok, int64_t *when_ns,
		       int64_t *last_success_ns)
{
	pthread_mutex_lock(&h->lock);
	*ok = h->reload_ok;
	*when_ns = h->reload_ns;
	*last_success_ns = h->reload_success_ns;
	pthread_mutex_unlock(&h->lock);
}

int64_t health_start_time_ns(const struct health *h)
{
	return h->start_ns;
}
