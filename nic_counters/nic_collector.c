/*
 * nic_collector: the NIC collector's thread and reload (see
 * nic_collector.h).
 *
 * Ownership: the collector owns its hosts (struct nic_host) and a copy
 * of each host's settings; the lock is held by the thread for a whole
 * cycle and by reload while it edits the list, so a removed host is
 * never read after reload returns.
 *
 * Reads with a deadline. A sysfs read or an ethtool ioctl calls into
 * the driver, which may never answer (a firmware command that hangs);
 * O_NONBLOCK does not help there and a thread blocked in the kernel
 * cannot be cancelled. So the collector's thread does not read: it
 * hands each host's poll to a worker (nic_guard) and waits at most
 * read_timeout for it. A poll that overruns is given up on: the host is
 * detached (nic_host_detach: it writes nothing more anywhere), marked
 * down "read timed out" (counted in timeouts), and left to the stuck
 * worker, which frees it when the kernel lets the read return; until
 * then the host's entry is "stuck" and not polled (no second thread
 * piles up on the same driver), after that it gets a fresh host and is
 * read again. The other hosts go on with a new worker. A host's struct
 * nic_job is shared by the entry and a stuck worker, freed by the last.
 *
 * Stopping interrupts the guard, so a poll in progress is given up on at
 * once and stop never waits for a read: fabmond's SIGTERM is bounded
 * whatever a driver does. A stuck worker may outlive the collector; it
 * touches only its job and its detached host.
 */
#include "config.h"

#include "nic_collector.h"

#include "cfg.h"
#include "clock.h"
#include "health.h"
#include "log.h"
#include "mem.h"
#include "nic_cfg.h"
#include "nic_guard.h"
#include "nic_host.h"
#include "store.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define LOG_SUB "nic"

/* The shortest read_timeout: a healthy cycle takes milliseconds. */
#define READ_TIMEOUT_MIN_NS (5 * NS_PER_S)

/* An entry's host, as handed to a worker. */
struct nic_job {
	pthread_mutex_t mu;
	struct nic_host *host; /* NULL once a stuck worker freed it */
	bool done;	       /* a worker given up on has returned */
	int refs;	       /* the entry, and a worker given up on */
};

struct nic_entry {
	char *device, *root, *ethtool_dir; /* ethtool_dir may be NULL */
	struct nic_job *job;
	bool stuck; /* job->host is left to a worker given up on */
	struct health_target *health;
};

struct nic_col {
	struct store *store;
	struct health *health;
	struct links *links;
	struct ident_table *ident; /* borrowed; may be NULL */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* reload and stop wake the thread */
	atomic_bool quit;    /* set without the lock: the cycle holds it */
	struct nic_guard *guard;
	uint64_t interval_ns;
	struct nic_entry *entries;
	size_t n_entries;
};

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* The hosts a config asks for, as cfg_nic_host views into it (the
 * single-host form is one entry). */
static size_t wanted(const struct cfg *cfg, struct cfg_nic_host *one,
		     const struct cfg_nic_host **out)
{
	const struct cfg_nic *nic = nic_cfg_of(cfg);
	if (!nic->enabled) {
		*out = NULL;
		return 0;
	}
	if (nic->n_hosts) {
		*out = nic->hosts;
		return nic->n_hosts;
	}
	one->device = nic->device;
	one->sysfs_root = nic->sysfs_root;
	one->ethtool_dir = nic->ethtool_dir;
	*out = one;
	return 1;
}

static uint64_t interval_of(const struct cfg *cfg)
{
	const struct cfg_nic *nic = nic_cfg_of(cfg);
	return nic->interval_ns ? nic->interval_ns : cfg->interval_ns;
}

static struct nic_job *new_job(struct nic_col *col, struct nic_entry *e)
{
	struct nic_host_opts o = {
		.store = col->store,
		.health = e->health,
		.links = col->links,
		.ident = col->ident,
		.device = e->device,
		.sysfs_root = e->root,
		.ethtool_dir = e->ethtool_dir,
		.interval_ms = (uint32_t)(col->interval_ns / NS_PER_MS),
	};
	struct nic_job *j = xcalloc(1, sizeof *j);
	pthread_mutex_init(&j->mu, NULL);
	j->host = nic_host_new(&o);
	j->refs = 1;
	return j;
}

/* Drops a reference; the last frees the job and a host still in it. */
static void job_unref(struct nic_job *j)
{
	pthread_mutex_lock(&j->mu);
	bool last = --j->refs == 0;
	pthread_mutex_unlock(&j->mu);
	if (!last)
		return;
	nic_host_free(j->host);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

static void job_poll(void *arg)
{
	struct nic_job *j = arg;
	(void)nic_host_poll(j->host);
}

/* On a worker given up on, once its poll returned: the host was
 * detached, so freeing it here touches nothing shared. */
static void job_late(void *arg)
{
	struct nic_job *j = arg;
	pthread_mutex_lock(&j->mu);
	struct nic_host *h = j->host;
	j->host = NULL;
	j->done = true;
	pthread_mutex_unlock(&j->mu);
	nic_host_free(h);
	job_unref(j);
}

static void add_entry(struct nic_col *col, const struct cfg_nic_host *c)
{
	col->entries = xreallocarray(col->entries, col->n_entries + 1,
				     sizeof *col->entries);
	struct nic_entry *e = &col->entries[col->n_entries++];
	e->device = xstrdup(c->device);
	e->root = xstrdup(c->sysfs_root);
	e->ethtool_dir = c->ethtool_dir ? xstrdup(c->ethtool_dir) : NULL;
	e->health = health_target(col->health, c->device, "nic");
	e->stuck = false;
	e->job = new_job(col, e);
}

/* Frees entry i; withdraw: it left the config (else it is rebuilt). */
static void drop_entry(struct nic_col *col, size_t i, bool withdraw)
{
	struct nic_entry *e = &col->entries[i];
	/* A stuck host was detached when it was given up on: withdrawing
	 * below is safe while its worker still runs. */
	job_unref(e->job);
	if (withdraw) {
		health_remove(col->health, e->device, "nic");
		char *owner = xasprintf("nic/%s", e->device);
		size_t n = store_withdraw_owner(
		    col->store, store_intern(col->store, owner));
		free(owner);
		log_info(LOG_SUB, "%s: removed, %zu series withdrawn",
			 e->device, n);
	}
	free(e->device);
	free(e->root);
	free(e->ethtool_dir);
	col->entries[i] = col->entries[--col->n_entries];
}

static int64_t read_timeout(const struct nic_col *col)
{
	int64_t t = (int64_t)col->interval_ns;
	return t > READ_TIMEOUT_MIN_NS ? t : READ_TIMEOUT_MIN_NS;
}

/* A stuck entry whose worker has returned gets a fresh host; true if
 * the entry may be polled. */
static bool unstick(struct nic_col *col, struct nic_entry *e)
{
	if (!e->stuck)
		return true;
	pthread_mutex_lock(&e->job->mu);
	bool done = e->job->done;
	pthread_mutex_unlock(&e->job->mu);
	if (!done)
		return false;
	job_unref(e->job);
	e->job = new_job(col, e);
	e->stuck = false;
	log_notice(LOG_SUB,
		   "%s: the read that hung has returned: reading "
		   "afresh",
		   e->device);
	return true;
}

/* Polls entry e on the guard's worker, within read_timeout. */
static void poll_entry(struct nic_col *col, struct nic_entry *e)
{
	if (!unstick(col, e))
		return;
	struct nic_job *j = e->job;
	pthread_mutex_lock(&j->mu);
	j->refs++; /* the worker's, should it be given up on */
	pthread_mutex_unlock(&j->mu);
	int64_t limit = read_timeout(col);
	int rc =
	    nic_guard_run(col->guard, job_poll, job_late, j, mono_ns() + limit);
	if (rc != -ETIMEDOUT && rc != -EINTR) {
		job_unref(j); /* the worker's: never the last */
		/* No worker thread (and not stopping): read unguarded
		 * rather than not at all. */
		if (rc < 0 && rc != -ECANCELED)
			(void)nic_host_poll(j->host);
		return;
	}
	/* Given up on: job_late() now owns the worker's reference. */
	pthread_mutex_lock(&j->mu);
	if (j->host)
		nic_host_detach(j->host);
	pthread_mutex_unlock(&j->mu);
	e->stuck = true;
	if (rc == -EINTR)
		return; /* stopping */
	char every[32];
	units_format_duration((uint64_t)limit, every, sizeof every);
	health_target_set_down(e->health, "read timed out after %s under %s",
			       every, e->root);
	health_target_count(e->health, HEALTH_C_TIMEOUTS, 1);
	log_warn(LOG_SUB,
		 "%s: a read under %s has not returned after %s: the host is "
		 "down until it does (a driver or firmware hang?)",
		 e->device, e->root, every);
}

static void *thread_main(void *arg)
{
	struct nic_col *col = arg;
	pthread_mutex_lock(&col->lock);
	int64_t next = mono_ns();
	while (!atomic_load(&col->quit)) {
		int64_t now = mono_ns();
		if (now >= next) {
			for (size_t i = 0;
			     i < col->n_entries && !atomic_load(&col->quit);
			     i++)
				poll_entry(col, &col->entries[i]);
			int64_t done = mono_ns();
			next += (int64_t)col->interval_ns;
			if (done >= next) {
				/* Overran: count it and start afresh. */
				for (size_t i = 0; i < col->n_entries; i++)
					health_target_count(
					    col->entries[i].health,
					    HEALTH_C_OVERRUNS, 1);
				next = done + (int64_t)col->interval_ns;
			}
			continue;
		}
		struct timespec ts = { .tv_sec = next / NS_PER_S,
				       .tv_nsec = next % NS_PER_S };
		(void)pthread_cond_timedwait(&col->cond, &col->lock, &ts);
	}
	pthread_mutex_unlock(&col->lock);
	return NULL;
}

/* Counter files stay open (about 20 per port), and fabsim's hosts can
 * be many: take the whole hard limit on descriptors. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_debug(LOG_SUB, "setrlimit(RLIMIT_NOFILE): %s",
				  strerror(errno));
	}
}

static int nic_start(const struct collector_env *env, const struct cfg *cfg,
		     void **state)
{
	raise_nofile();
	struct nic_col *col = xcalloc(1, sizeof *col);
	col->store = env->store;
	col->health = env->health;
	col->links = env->links;
	col->ident = env->ident;
	col->interval_ns = interval_of(cfg);
	pthread_mutex_init(&col->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&col->cond, &ca);
	pthread_condattr_destroy(&ca);
	col->guard = nic_guard_new();

	struct cfg_nic_host one;
	const struct cfg_nic_host *hosts;
	size_t n = wanted(cfg, &one, &hosts);
	for (size_t i = 0; i < n; i++)
		add_entry(col, &hosts[i]);
	if (n) {
		char every[32];
		units_format_duration(col->interval_ns, every, sizeof every);
		log_info(LOG_SUB, "reading the NICs of %zu host%s every %s", n,
			 n == 1 ? "" : "s", every);
	}
	int rc = pthread_create(&col->tid, NULL, thread_main, col);
	if (rc != 0) {
		log_err(LOG_SUB, "cannot start a thread: %s", strerror(rc));
		while (col->n_entries)
			drop_entry(col, col->n_entries - 1, false);
		free(col->entries);
		nic_guard_free(col->guard);
		free(col);
		return -rc;
	}
	*state = col;
	return 0;
}

static int nic_reload(void *state, const struct cfg *cfg)
{
	struct nic_col *col = state;
	struct cfg_nic_host one;
	const struct cfg_nic_host *hosts;
	size_t n = wanted(cfg, &one, &hosts);

	pthread_mutex_lock(&col->lock);
	uint64_t interval = interval_of(cfg);
	bool interval_changed = interval != col->interval_ns;
	col->interval_ns = interval;
	for (size_t i = 0; i < col->n_entries;) {
		struct nic_entry *e = &col->entries[i];
		const struct cfg_nic_host *c = NULL;
		for (size_t j = 0; j < n && !c; j++)
			if (strcmp(hosts[j].device, e->device) == 0)
				c = &hosts[j];
		if (c && !interval_changed && str_eq(c->sysfs_root, e->root) &&
		    str_eq(c->ethtool_dir, e->ethtool_dir)) {
			i++;
			continue;
		}
		if (c)
			log_info(LOG_SUB,
				 "%s: configuration changed, reading "
				 "afresh",
				 e->device);
		drop_entry(col, i, c == NULL);
	}
	for (size_t j = 0; j < n; j++) {
		bool have = false;
		for (size_t i = 0; i < col->n_entries && !have; i++)
			have = strcmp(col->entries[i].device,
				      hosts[j].device) == 0;
		if (!have)
			add_entry(col, &hosts[j]);
	}
	pthread_cond_signal(&col->cond);
	pthread_mutex_unlock(&col->lock);
	return 0;
}

static void nic_stop(void *state)
{
	struct nic_col *col = state;
	if (!col)
		return;
	/* The cycle holds the lock: quit and the interrupt reach it
	 * without, and a poll in progress is given up on at once. */
	atomic_store(&col->quit, true);
	nic_guard_interrupt(col->guard);
	pthread_mutex_lock(&col->lock);
	pthread_cond_signal(&col->cond);
	pthread_mutex_unlock(&col->lock);
	pthread_join(col->tid, NULL);
	nic_guard_free(col->guard);
	while (col->n_entries)
		drop_entry(col, col->n_entries - 1, false);
	free(col->entries);
	pthread_mutex_destroy(&col->lock);
	pthread_cond_destroy(&col->cond);
	free(col);
}

const struct collector_ops nic_collector_ops = {
	.name = "nic",
	.cfg = &nic_cfg_section,
	.start = nic_start,
	.reload = nic_reload,
	.stop = nic_stop,
};
