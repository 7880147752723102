/*
 * nic_collector: the NIC collector's thread and reload (see
 * nic_collector.h).
 *
 * Ownership: the collector owns its hosts (struct nic_host) and a copy
 * of each host's settings; the lock is held by the thread for a whole
 * cycle and by reload while it edits the list, so a removed host is
 * never read after reload returns.
 */
#include "config.h"

#include "nic_collector.h"

#include "cfg.h"
#include "clock.h"
#include "health.h"
#include "log.h"
#include "mem.h"
#include "nic_cfg.h"
#include "nic_host.h"
#include "store.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define LOG_SUB "nic"

struct nic_entry {
	char *device, *root, *ethtool_dir; /* ethtool_dir may be NULL */
	struct nic_host *host;
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
	bool quit;
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

static void add_entry(struct nic_col *col, const struct cfg_nic_host *c)
{
	col->entries = xreallocarray(col->entries, col->n_entries + 1,
				     sizeof *col->entries);
	struct nic_entry *e = &col->entries[col->n_entries++];
	e->device = xstrdup(c->device);
	e->root = xstrdup(c->sysfs_root);
	e->ethtool_dir = c->ethtool_dir ? xstrdup(c->ethtool_dir) : NULL;
	e->health = health_target(col->health, c->device, "nic");
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
	e->host = nic_host_new(&o);
}

/* Frees entry i; withdraw: it left the config (else it is rebuilt). */
static void drop_entry(struct nic_col *col, size_t i, bool withdraw)
{
	struct nic_entry *e = &col->entries[i];
	nic_host_free(e->host);
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

static void *thread_main(void *arg)
{
	struct nic_col *col = arg;
	pthread_mutex_lock(&col->lock);
	int64_t next = mono_ns();
	while (!col->quit) {
		int64_t now = mono_ns();
		if (now >= next) {
			for (size_t i = 0; i < col->n_entries; i++)
				(void)nic_host_poll(col->entries[i].host);
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
	pthread_mutex_lock(&col->lock);
	col->quit = true;
	pthread_cond_signal(&col->cond);
	pthread_mutex_unlock(&col->lock);
	pthread_join(col->tid, NULL);
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
