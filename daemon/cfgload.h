/*
 * cfgload: loads the configuration on a thread of its own for a reload,
 * so that parsing and validating a big file (a topology of 100k links)
 * never holds up the main thread, which keeps answering signals and
 * pinging the systemd watchdog meanwhile.
 *
 * At most one load runs at a time. A request while one runs is
 * coalesced: however many arrive, one more load follows the running one
 * (the file may have changed after the running load read it). When a
 * load ends, its thread sends the waker's signal (cfgload_new) to the
 * thread that created the loader, which then collects the result and
 * swaps it in itself; a load never touches the running daemon.
 *
 * Threading: every function is called from the thread that called
 * cfgload_new() (fabmond's main thread); the load thread only runs the
 * load function and hands over its result under the loader's mutex.
 * Ownership: a collected config is the caller's; cfgload_free() waits
 * for a running load and frees a result nobody collected.
 */
#ifndef FABMON_CFGLOAD_H
#define FABMON_CFGLOAD_H

#include <stdbool.h>
#include <stddef.h>

struct cfg;
struct cfgload;

/* Loads path (may be NULL) into a new config, or returns NULL with one
 * line of message in err. Runs on the load thread: it must be safe to
 * call from any thread (cfg_load() is). */
typedef struct cfg *(*cfgload_fn)(const char *path, char *err, size_t errlen);

/*
 * A loader that runs load and, when a load ends, sends wake_sig to the
 * calling thread (which should block wake_sig and wait for it with its
 * other signals: sigtimedwait). Never NULL.
 */
struct cfgload *cfgload_new(cfgload_fn load, int wake_sig);

/* Waits for a running load, frees an uncollected result and the
 * loader. NULL is a no-op. */
void cfgload_free(struct cfgload *l);

/*
 * Asks for a load of path (copied; NULL is passed on as is). Starts it
 * and returns 1 if none is running; returns 0 if one is, marking one
 * more load to follow it (cfgload_collect reports it); -errno if the
 * thread cannot be created.
 */
int cfgload_request(struct cfgload *l, const char *path);

/* Whether a load is running or finished but not collected. */
bool cfgload_busy(const struct cfgload *l);

/*
 * If a load has finished: collects it and returns true, with the new
 * config in *out (NULL if it failed, the message in err) and in *again
 * whether requests arrived while it ran (the caller then asks again).
 * Returns false, touching nothing, while a load runs or if none ran.
 */
bool cfgload_collect(struct cfgload *l, struct cfg **out, char *err,
		     size_t errlen, bool *again);

#endif
