/*
 * sim_pubsched: per-switch publish times with phase, jitter and lost
 * publishes (see pubsched.h). Every draw is a hash of (seed, member,
 * publish, what), not a stream of random numbers, so the times do not
 * depend on the order or the moments the caller asks for them.
 */
#include "config.h"

#include "pubsched.h"

#include "mem.h"
#include "units.h"

#include <stdlib.h>
#include <string.h>

enum { DRAW_PHASE = 1, DRAW_JITTER, DRAW_LOSS };

struct sim_pubsched {
	struct sim_pubsched_options o;
	uint64_t jit_ns;  /* the largest |jitter| */
	uint64_t *next_k; /* per member: the next publish not taken */
	size_t n;
	uint64_t taken, lost;
};

void sim_pubsched_options_init(struct sim_pubsched_options *o)
{
	memset(o, 0, sizeof *o);
	o->interval_ns = NS_PER_S;
	o->jitter = 0.25;
	o->loss = 0.005;
	o->phases = true;
	o->seed = 1;
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A uniform draw in [0, 1) for (member, publish, what). */
static double draw(const struct sim_pubsched *s, size_t i, uint64_t k,
		   unsigned what)
{
	uint64_t h = splitmix(s->o.seed ^ splitmix((uint64_t)i * 4 + what));
	h = splitmix(h ^ k);
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

struct sim_pubsched *sim_pubsched_new(size_t n,
				      const struct sim_pubsched_options *o)
{
	if (!o->interval_ns || !(o->jitter >= 0 && o->jitter < 0.5) ||
	    !(o->loss >= 0 && o->loss <= 1))
		return NULL;
	struct sim_pubsched *s = xcalloc(1, sizeof *s);
	s->o = *o;
	s->n = n;
	s->jit_ns = (uint64_t)(o->jitter * (double)o->interval_ns);
	s->next_k = xcalloc(n ? n : 1, sizeof *s->next_k);
	return s;
}

void sim_pubsched_free(struct sim_pubsched *s)
{
	if (!s)
		return;
	free(s->next_k);
	free(s);
}

static uint64_t phase_of(const struct sim_pubsched *s, size_t i)
{
	if (!s->o.phases)
		return 0;
	return (uint64_t)(draw(s, i, 0, DRAW_PHASE) * (double)s->o.interval_ns);
}

uint64_t sim_pubsched_at(const struct sim_pubsched *s, size_t i, uint64_t k,
			 bool *lost)
{
	/* jitter in [-jit, +jit), shifted by +jit so times stay >= 0 */
	uint64_t jit = 0;
	if (s->jit_ns)
		jit = (uint64_t)(draw(s, i, k, DRAW_JITTER) *
				 (double)(2 * s->jit_ns));
	if (lost)
		*lost = s->o.loss > 0 && draw(s, i, k, DRAW_LOSS) < s->o.loss;
	return phase_of(s, i) + k * s->o.interval_ns + jit;
}

bool sim_pubsched_take(struct sim_pubsched *s, size_t i, uint64_t now,
		       bool *lost)
{
	if (i >= s->n)
		return false;
	uint64_t k = s->next_k[i];
	if (sim_pubsched_at(s, i, k, NULL) > now)
		return false;
	/* Fell behind: the newest publish due. Every publish up to
	 * (now - phase - 2 jit) / interval is due; past it, jitter keeps
	 * the times in order, so a step or two finds the last one. */
	uint64_t floor = phase_of(s, i) + 2 * s->jit_ns;
	if (now > floor && (now - floor) / s->o.interval_ns > k)
		k = (now - floor) / s->o.interval_ns;
	while (sim_pubsched_at(s, i, k + 1, NULL) <= now)
		k++;
	sim_pubsched_at(s, i, k, lost);
	s->next_k[i] = k + 1;
	s->taken++;
	if (*lost)
		s->lost++;
	return true;
}

uint64_t sim_pubsched_taken(const struct sim_pubsched *s)
{
	return s->taken;
}

uint64_t sim_pubsched_lost(const struct sim_pubsched *s)
{
	return s->lost;
}
