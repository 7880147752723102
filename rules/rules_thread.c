/*
 * rules_thread: the rule engine's tick thread (part of rules.c's
 * engine; see rules.h and rules_int.h): when to tick, on the periodic
 * rules.tick and on the kicks that say samples arrived (rules_kick),
 * and the thread's start and stop.
 *
 * The wake mutex guards the kick state and the stop flag; the engine's
 * lock is taken only by rules_tick() and to read the last tick's CPU
 * time. rules_kick() may be called from any thread.
 */
#include "config.h"

#include "rules.h"

#include "rules_int.h"

#include "clock.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

void rules_kick(struct rules *r)
{
	/* Only the first kick after a tick takes the lock; the others
	 * only say the round goes on. */
	int64_t now = mono_ns();
	atomic_store_explicit(&r->last_kick_ns, now, memory_order_relaxed);
	if (atomic_exchange(&r->kick_pending, true))
		return;
	pthread_mutex_lock(&r->wake);
	if (!r->kicked) {
		r->kicked = true;
		r->kick_ns = now;
	}
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->wake);
}

/*
 * Ticks follow the samples: a kick (rules_kick) schedules a tick once
 * the kicks have been quiet for RULES_KICK_QUIET_NS (a round of samples
 * from many targets, or one switch's ports sent as separate
 * notifications, lands in one tick: a tick between a device's ports
 * would see half a round, old and new windows side by side), at most
 * RULES_KICK_MAX_NS after the first, but no sooner than
 * RULES_KICK_GAP_NS, nor than ten
 * times the last tick's CPU time, after the previous tick: kicked ticks
 * cost at most a tenth of a core however the targets' samples are
 * staggered. Without kicks the engine ticks every rules.tick (silence
 * must be noticed too).
 */
static void *tick_thread(void *arg)
{
	struct rules *r = arg;
	int64_t last = mono_ns();
	int64_t next = last + (int64_t)rules_tick_ns(r);
	double cpu = 0; /* the last tick's, written by this thread */
	pthread_mutex_lock(&r->wake);
	while (!r->stop) {
		int64_t due = next;
		if (r->kicked) {
			int64_t gap = (int64_t)(cpu * 10 * 1e9);
			if (gap < RULES_KICK_GAP_NS)
				gap = RULES_KICK_GAP_NS;
			int64_t k = atomic_load_explicit(&r->last_kick_ns,
							 memory_order_relaxed) +
				    RULES_KICK_QUIET_NS;
			if (k > r->kick_ns + RULES_KICK_MAX_NS)
				k = r->kick_ns + RULES_KICK_MAX_NS;
			if (k < last + gap)
				k = last + gap;
			if (k < due)
				due = k;
		}
		int64_t now = mono_ns();
		if (now < due) {
			struct timespec ts = { .tv_sec = due / NS_PER_S,
					       .tv_nsec = due % NS_PER_S };
			pthread_cond_timedwait(&r->cond, &r->wake, &ts);
			continue;
		}
		r->kicked = false;
		atomic_store(&r->kick_pending, false);
		pthread_mutex_unlock(&r->wake);
		rules_tick(r, r->real_ns(r->clock_ctx));
		uint64_t t = rules_tick_ns(r);
		int64_t wall = mono_ns() - now;
		pthread_mutex_lock(&r->lock);
		cpu = r->last_cpu_s;
		r->last_wall_s = (double)wall / 1e9;
		/* A tick longer than the period, or one that started a
		 * period late (the thread was starved or the lock held),
		 * means the engine did not keep pace. */
		if (wall > (int64_t)t || now - due > (int64_t)t)
			r->overruns++;
		pthread_mutex_unlock(&r->lock);
		pthread_mutex_lock(&r->wake);
		last = now;
		/* The next periodic tick counts from this one: while
		 * samples keep arriving, kicks drive the engine. */
		next = now + (int64_t)t;
	}
	pthread_mutex_unlock(&r->wake);
	return NULL;
}

int rules_start(struct rules *r)
{
	if (r->running)
		return -EALREADY;
	r->stop = false;
	int rc = pthread_create(&r->thread, NULL, tick_thread, r);
	if (rc)
		return -rc;
	r->running = true;
	log_info("rules", "rule engine ticking every %.3g s",
		 (double)r->c.tick_ns / 1e9);
	return 0;
}

void rules_stop(struct rules *r)
{
	if (!r->running)
		return;
	pthread_mutex_lock(&r->wake);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->wake);
	pthread_join(r->thread, NULL);
	r->running = false;
}
