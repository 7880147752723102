/*
 * cfgload: a configuration load on a thread of its own (see cfgload.h).
 *
 * State: idle -> running (the thread owns path, result and err) ->
 * done (the thread has stored its result and exited; the main thread
 * joins it in cfgload_collect) -> idle. The mutex guards the done flag
 * and the handover; the main thread alone starts, joins and reads the
 * pending count.
 */
#include "config.h"

#include "cfgload.h"

#include "cfg.h"
#include "mem.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_LEN 1024

struct cfgload {
	cfgload_fn load;
	int wake_sig;
	pthread_t waker; /* the thread cfgload_new ran on */
	pthread_t thread;
	bool running; /* a thread was started and not joined yet */
	bool pending; /* requests arrived while it ran */
	char *path;
	pthread_mutex_t lock;
	bool done; /* under lock: the thread has stored its result */
	struct cfg *result;
	char err[ERR_LEN];
};

struct cfgload *cfgload_new(cfgload_fn load, int wake_sig)
{
	struct cfgload *l = xcalloc(1, sizeof *l);
	l->load = load;
	l->wake_sig = wake_sig;
	l->waker = pthread_self();
	pthread_mutex_init(&l->lock, NULL);
	return l;
}

static void *load_main(void *arg)
{
	struct cfgload *l = arg;
	char err[ERR_LEN] = "";
	struct cfg *c = l->load(l->path, err, sizeof err);
	pthread_mutex_lock(&l->lock);
	l->result = c;
	snprintf(l->err, sizeof l->err, "%s", err);
	l->done = true;
	pthread_mutex_unlock(&l->lock);
	/* Wakes the main thread from its wait; if it is not waiting, the
	 * signal stays pending (blocked) until it does. */
	pthread_kill(l->waker, l->wake_sig);
	return NULL;
}

int cfgload_request(struct cfgload *l, const char *path)
{
	if (l->running) {
		l->pending = true;
		return 0;
	}
	free(l->path);
	l->path = path ? xstrdup(path) : NULL;
	l->done = false;
	l->result = NULL;
	l->err[0] = '\0';
	int rc = pthread_create(&l->thread, NULL, load_main, l);
	if (rc)
		return -rc;
	l->running = true;
	return 1;
}

bool cfgload_busy(const struct cfgload *l)
{
	return l->running;
}

bool cfgload_collect(struct cfgload *l, struct cfg **out, char *err,
		     size_t errlen, bool *again)
{
	if (!l->running)
		return false;
	pthread_mutex_lock(&l->lock);
	bool done = l->done;
	pthread_mutex_unlock(&l->lock);
	if (!done)
		return false;
	pthread_join(l->thread, NULL);
	l->running = false;
	*out = l->result;
	l->result = NULL;
	if (errlen)
		snprintf(err, errlen, "%s", l->err);
	*again = l->pending;
	l->pending = false;
	return true;
}

void cfgload_free(struct cfgload *l)
{
	if (!l)
		return;
	if (l->running)
		pthread_join(l->thread, NULL);
	cfg_free(l->result);
	free(l->path);
	pthread_mutex_destroy(&l->lock);
	free(l);
}
