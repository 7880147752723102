/*
 * nic_guard: jobs with a deadline on a replaceable worker (see
 * nic_guard.h).
 *
 * A worker is shared by its thread and, until it is given up on, the
 * guard; its mutex guards its fields and refs counts the two holders,
 * the last of which frees it. The guard's own mutex only guards which
 * worker is current, so that nic_guard_interrupt() can reach the
 * waiter; its flag is atomic, read by the waiter under the worker's
 * mutex. Lock order: guard, then worker.
 */
#include "config.h"

#include "nic_guard.h"

#include "clock.h"
#include "mem.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct worker {
	pthread_mutex_t mu;
	pthread_cond_t cond; /* job posted, job done, quit, interrupt */
	pthread_t tid;
	void (*fn)(void *);
	void (*late)(void *);
	void *arg;
	bool has_job, job_done, abandoned, quit;
	int refs;
};

struct nic_guard {
	pthread_mutex_t mu;
	struct worker *w; /* NULL: none yet, or the last was given up on */
	atomic_bool interrupted;
};

static void worker_unref(struct worker *w)
{
	pthread_mutex_lock(&w->mu);
	bool last = --w->refs == 0;
	pthread_mutex_unlock(&w->mu);
	if (last) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cond);
		free(w);
	}
}

static void *worker_main(void *a)
{
	struct worker *w = a;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->has_job && !w->quit)
			pthread_cond_wait(&w->cond, &w->mu);
		if (!w->has_job)
			break;
		void (*fn)(void *) = w->fn;
		void *arg = w->arg;
		pthread_mutex_unlock(&w->mu);
		fn(arg);
		pthread_mutex_lock(&w->mu);
		w->has_job = false;
		if (w->abandoned) {
			/* The guard has forgotten this worker: finish the
			 * job's business and go. */
			void (*late)(void *) = w->late;
			pthread_mutex_unlock(&w->mu);
			if (late)
				late(arg);
			pthread_mutex_lock(&w->mu);
			break;
		}
		w->job_done = true;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->mu);
	worker_unref(w);
	return NULL;
}

struct nic_guard *nic_guard_new(void)
{
	struct nic_guard *g = xcalloc(1, sizeof *g);
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

static int start_worker(struct nic_guard *g)
{
	struct worker *w = xcalloc(1, sizeof *w);
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	w->refs = 2; /* the guard and the thread */
	int rc = pthread_create(&w->tid, NULL, worker_main, w);
	if (rc != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cond);
		free(w);
		return -rc;
	}
	pthread_mutex_lock(&g->mu);
	g->w = w;
	pthread_mutex_unlock(&g->mu);
	return 0;
}

/* Gives up on w (its job runs on): the guard forgets it, its thread
 * frees it. Called with w->mu held; releases it. */
static void abandon(struct nic_guard *g, struct worker *w)
{
	w->abandoned = true;
	pthread_t tid = w->tid;
	pthread_mutex_unlock(&w->mu);
	pthread_mutex_lock(&g->mu);
	g->w = NULL;
	pthread_mutex_unlock(&g->mu);
	pthread_detach(tid);
	worker_unref(w);
}

static bool interrupted(struct nic_guard *g)
{
	return atomic_load(&g->interrupted);
}

int nic_guard_run(struct nic_guard *g, void (*fn)(void *arg),
		  void (*late)(void *arg), void *arg, int64_t deadline_ns)
{
	if (interrupted(g))
		return -ECANCELED;
	if (!g->w) {
		int rc = start_worker(g);
		if (rc < 0)
			return rc;
	}
	struct worker *w = g->w;
	struct timespec ts = { .tv_sec = deadline_ns / NS_PER_S,
			       .tv_nsec = deadline_ns % NS_PER_S };
	pthread_mutex_lock(&w->mu);
	w->fn = fn;
	w->late = late;
	w->arg = arg;
	w->job_done = false;
	w->has_job = true;
	pthread_cond_broadcast(&w->cond);
	int rc = 0;
	for (;;) {
		if (w->job_done) {
			pthread_mutex_unlock(&w->mu);
			return 0;
		}
		/* Read under w->mu: nic_guard_interrupt() sets the flag,
		 * then broadcasts under w->mu, so it cannot be missed. */
		if (interrupted(g)) {
			rc = -EINTR;
			break;
		}
		if (rc != 0) { /* ETIMEDOUT */
			rc = -ETIMEDOUT;
			break;
		}
		rc = pthread_cond_timedwait(&w->cond, &w->mu, &ts);
	}
	abandon(g, w);
	return rc;
}

void nic_guard_interrupt(struct nic_guard *g)
{
	atomic_store(&g->interrupted, true);
	pthread_mutex_lock(&g->mu);
	if (g->w) {
		pthread_mutex_lock(&g->w->mu);
		pthread_cond_broadcast(&g->w->cond);
		pthread_mutex_unlock(&g->w->mu);
	}
	pthread_mutex_unlock(&g->mu);
}

void nic_guard_free(struct nic_guard *g)
{
	if (!g)
		return;
	struct worker *w = g->w;
	if (w) {
		/* Idle: nic_guard_run() returned, so its job is done. */
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->tid, NULL);
		worker_unref(w);
	}
	pthread_mutex_destroy(&g->mu);
	free(g);
}
