/*
 * sim_pubsched: when each simulated switch publishes its counters. A
 * real fabric's switches do not sample on one shared grid: each runs
 * its own counter collection, on its own phase, a little early or late
 * each time, and now and then a collection is missed. The schedule
 * gives member i (a node id) publishes on its own grid
 *
 *   at(i, k) = phase(i) + k * interval + j + jitter(i, k)
 *
 * with phase(i) in [0, interval) and jitter(i, k) in [-j, +j) for a
 * jitter fraction j of the interval (below a half), and marks publish
 * k of member i lost with probability loss. All three are drawn from a
 * hash of (seed, i, k), so a schedule is the same on every run with the
 * same seed, whatever the timing of the run. A quiet schedule (jitter
 * and loss 0, no phases) publishes every member on the same grid.
 *
 * Times are ns since the schedule's start (the + j keeps the first
 * publish at or after it).
 * Ownership: the caller's; one thread at a time.
 */
#ifndef FABMON_SIM_PUBSCHED_H
#define FABMON_SIM_PUBSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_pubsched_options {
	uint64_t interval_ns; /* the publish interval; > 0 */
	double jitter;	      /* fraction of the interval, 0 .. < 0.5 */
	double loss;	      /* probability a publish is lost, 0 .. 1 */
	bool phases;	      /* a random phase per member, else 0 */
	uint64_t seed;
};

/* Defaults: 1 s interval, jitter 0.25, loss 0.005, phases on, seed 1. */
void sim_pubsched_options_init(struct sim_pubsched_options *o);

struct sim_pubsched;

/* A schedule of n members (NULL if o is out of range). */
struct sim_pubsched *sim_pubsched_new(size_t n,
				      const struct sim_pubsched_options *o);
void sim_pubsched_free(struct sim_pubsched *s);

/*
 * The time of publish k of member i (ns since the start), and whether
 * it is lost (lost may be NULL). A pure function of the options.
 */
uint64_t sim_pubsched_at(const struct sim_pubsched *s, size_t i, uint64_t k,
			 bool *lost);

/*
 * Whether member i has a publish due at now (ns since the start) that
 * it has not taken yet: true takes it (the newest one due, when the
 * caller fell behind by more than one) and sets *lost as
 * sim_pubsched_at() does; the caller publishes unless lost.
 */
bool sim_pubsched_take(struct sim_pubsched *s, size_t i, uint64_t now,
		       bool *lost);

/* Publishes taken and lost so far, over all members. */
uint64_t sim_pubsched_taken(const struct sim_pubsched *s);
uint64_t sim_pubsched_lost(const struct sim_pubsched *s);

#endif
