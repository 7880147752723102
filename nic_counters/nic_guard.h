/*
 * nic_guard: runs a job on a worker thread and waits for it with a
 * deadline, so that a read stuck inside a driver (a sysfs attribute or
 * an ethtool ioctl whose firmware command never completes) cannot hold
 * the thread that waits. O_NONBLOCK bounds nothing there, and a thread
 * blocked in the kernel cannot be cancelled: the guard gives up on it
 * instead.
 *
 * A job that overruns its deadline (or is interrupted) is abandoned with
 * its worker: the worker finishes the job whenever the kernel lets it,
 * then calls the job's late() hook, on its own thread, and exits; the
 * guard starts a fresh worker for the next job. So at most one worker
 * runs the guard's jobs at a time, plus one per job it gave up on.
 *
 * Threads: one thread owns a guard and calls nic_guard_run() and
 * nic_guard_free(); nic_guard_interrupt() may be called from any
 * thread. Once nic_guard_run() has given up, the guard never touches
 * the job again; late() owns it.
 */
#ifndef FABMON_NIC_GUARD_H
#define FABMON_NIC_GUARD_H

#include <stdint.h>

struct nic_guard;

/* A guard; its first worker starts at the first run. Never NULL. */
struct nic_guard *nic_guard_new(void);

/*
 * Joins the idle worker and frees g (NULL: nothing). A worker that was
 * given up on is never joined: it frees itself when its job returns.
 */
void nic_guard_free(struct nic_guard *g);

/*
 * Runs fn(arg) on g's worker and waits until it returns or until
 * deadline_ns (CLOCK_MONOTONIC, as mono_ns()). Returns 0 once fn has
 * returned (late is not called); -ETIMEDOUT at the deadline, or -EINTR
 * when nic_guard_interrupt() is called meanwhile: fn(arg) then goes on
 * alone and late(arg) is called exactly once after it returns, on the
 * worker's thread. Once interrupted, runs return -ECANCELED at once
 * without calling fn or late; so does a run whose worker thread could
 * not start (-errno of pthread_create).
 */
int nic_guard_run(struct nic_guard *g, void (*fn)(void *arg),
		  void (*late)(void *arg), void *arg, int64_t deadline_ns);

/* Makes the run in progress, and every later one, return -EINTR now
 * (shutdown). Any thread. */
void nic_guard_interrupt(struct nic_guard *g);

#endif
