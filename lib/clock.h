/*
 * clock: the current time in nanoseconds, for code that times itself or
 * stamps samples (CLOCK_MONOTONIC for intervals and deadlines,
 * CLOCK_REALTIME for timestamps). Header-only: the daemon, the
 * simulator and the benches share it without linking.
 */
#ifndef FABMON_CLOCK_H
#define FABMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline int64_t real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

#endif
