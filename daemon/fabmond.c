/*
 * fabmond: lifecycle (see fabmond.h).
 *
 * Start order: log, config, store, health, link table, rule engine,
 * collectors, HTTP; stop in reverse (collectors before the engine, so
 * nothing writes what the engine is letting go). A reload swaps the
 * config only after the new one has loaded and validated whole; the
 * previous struct cfg is freed once every module has been handed the
 * new one. The load runs on cfgload's thread (a big topology takes a
 * while to parse), so the main thread keeps pinging the watchdog and
 * taking signals; the swap itself is done on the main thread when the
 * loader wakes it with FABMOND_WAKE_SIG. A SIGHUP during a load has one
 * more load follow it.
 */
#include "config.h"

#include "fabmond.h"

#include "cfg.h"
#include "cfgload.h"
#include "client.h"
#include "collector.h"
#include "health.h"
#include "http.h"
#include "webcfg.h"
#include "ident.h"
#include "links.h"
#include "log.h"
#include "mem.h"
#include "rules.h"
#include "alert.h"
#include "cfg_alert.h"
#include "cfg_rules.h"
#include "report.h"
#include "nic_collector.h"
#include "sdnotify.h"
#include "snmp_poller.h"
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Sent by the loader's thread to the main thread when a reload's load
 * ends (blocked everywhere, taken by sigtimedwait like the others). */
#define FABMOND_WAKE_SIG SIGRTMIN

/*
 * The collectors of this build, in start order. Each later issue adds
 * its ops table here (gNMI, SNMP, NIC); a target block whose collector
 * is not in this table is reported down with that reason.
 */
static const struct collector_ops *const collectors[] = {
	&gnmi_collector_ops,
	&nic_collector_ops,
	&snmp_collector_ops,
	NULL,
};

#define N_COLLECTORS (sizeof collectors / sizeof collectors[0])

/* The config's sections: the collectors' hooks, then the rule engine's
 * and the alert and report ones. Built once, read-only after. */
static const struct cfg_section_ops *const other_sections[] = {
	&cfg_rules_section,
	&cfg_topology_section,
	&cfg_alert_section,
	&cfg_report_section,
};
#define N_OTHER (sizeof other_sections / sizeof other_sections[0])

static const struct cfg_section_ops *schema_ops[N_COLLECTORS + N_OTHER];
static struct cfg_schema schema = { .ops = schema_ops };
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void build_schema(void)
{
	for (size_t i = 0; collectors[i]; i++)
		if (collectors[i]->cfg)
			schema_ops[schema.n++] = collectors[i]->cfg;
	for (size_t i = 0; i < N_OTHER; i++)
		schema_ops[schema.n++] = other_sections[i];
}

const struct cfg_schema *fabmond_cfg_schema(void)
{
	pthread_once(&schema_once, build_schema);
	return &schema;
}

struct daemon {
	struct cfg *cfg;
	struct store *store;
	struct health *health;
	struct links *links;
	struct rules *rules;
	struct report *report; /* fed by rules, read by /api/v1/report */
	struct alert *alert;   /* NULL without alertmanager: */
	struct alert_meter *alert_meter; /* its figures, across reloads */
	struct http_server *http;
	struct ident_table *ident; /* NIC port identities: NIC collector in,
				    * HTTP out */
	void *collector_state[N_COLLECTORS];
	bool collector_running[N_COLLECTORS];
};

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *fabmond_default_config(void)
{
	return SYSCONFDIR "/fabmon/fabmon.yaml";
}

/* Loads the config named by the user, the default file if it exists,
 * or the built-in defaults. */
static struct cfg *load_config(const char *path, char *err, size_t errlen)
{
	if (path)
		return cfg_load(fabmond_cfg_schema(), path, err, errlen);
	if (access(fabmond_default_config(), F_OK) == 0)
		return cfg_load(fabmond_cfg_schema(), fabmond_default_config(),
				err, errlen);
	return cfg_default(fabmond_cfg_schema());
}

/* The web config c names (*out NULL if none): 0, or -1 with err. */
static int load_web(const struct cfg *c, struct webcfg **out, char *err,
		    size_t errlen)
{
	*out = NULL;
	if (!c->http_web_config)
		return 0;
	*out = webcfg_load(c->http_web_config, err, errlen);
	return *out ? 0 : -1;
}

int fabmond_check_config(const char *path)
{
	char err[1024];
	struct cfg *c = load_config(path, err, sizeof err);
	if (!c) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct webcfg *w;
	if (load_web(c, &w, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		cfg_free(c);
		return 1;
	}
	if (w)
		printf("%s: web config OK (%s, %zu user%s)\n", w->path,
		       w->tls ? "HTTPS" : "plain HTTP", w->n_users,
		       w->n_users == 1 ? "" : "s");
	webcfg_free(w);
	printf("%s: configuration OK (%zu target%s)\n",
	       c->path ? c->path : "built-in defaults", c->n_targets,
	       c->n_targets == 1 ? "" : "s");
	cfg_free(c);
	return 0;
}

static void apply_logging(const struct cfg *c, const struct fabmond_opts *o)
{
	log_set_level(c->log_level >= 0 ? (enum log_level)c->log_level
					: LOG_LVL_INFO);
	log_disable_debug();
	for (size_t i = 0; i < c->n_log_debug; i++)
		(void)log_enable_debug(c->log_debug[i]);
	for (size_t i = 0; i < o->n_debug; i++)
		(void)log_enable_debug(o->debug[i]);
	if (o->n_debug && log_get_level() < LOG_LVL_DEBUG)
		log_set_level(LOG_LVL_DEBUG);
}

static bool collector_built(const char *name)
{
	for (size_t i = 0; collectors[i]; i++)
		if (strcmp(collectors[i]->name, name) == 0)
			return true;
	return false;
}

/* Registers every (target, protocol) of c in the health registry, so
 * that configured targets are listed even before their first sample. */
static void register_targets(struct health *h, const struct cfg *c)
{
	for (size_t i = 0; i < c->n_targets; i++) {
		const struct cfg_target *t = &c->targets[i];
		for (size_t p = 0; p < t->n_blocks; p++) {
			const char *proto = t->blocks[p].ops->key;
			struct health_target *ht =
			    health_target(h, t->name, proto);
			if (!collector_built(proto)) {
				char why[96];
				snprintf(why, sizeof why,
					 "the %s collector is not part of "
					 "this build",
					 proto);
				health_target_set_up(ht, false, why);
			}
		}
	}
}

static bool same_listen(const struct cfg *a, const struct cfg *b)
{
	if (a->n_listen != b->n_listen)
		return false;
	for (size_t i = 0; i < a->n_listen; i++)
		if (strcmp(a->listen[i].host, b->listen[i].host) ||
		    strcmp(a->listen[i].port, b->listen[i].port))
			return false;
	return true;
}

static void configure_store(struct store *st, const struct cfg *c)
{
	store_set_opts(st, c->store_ring, c->store_stale_intervals,
		       (uint32_t)(c->interval_ns / 1000000));
}

static int start_http(struct daemon *d)
{
	char err[1024];
	struct http_opts ho = {
		.threads = d->cfg->http_threads,
		.max_connections = d->cfg->http_max_connections,
		.max_per_client = d->cfg->http_max_per_client,
		.header_timeout_ns = (int64_t)d->cfg->http_header_timeout_ns,
	};
	struct webcfg *w;
	if (load_web(d->cfg, &w, err, sizeof err) < 0) {
		log_err("http", "%s", err);
		return -1;
	}
	d->http = http_new(d->store, d->health, &ho);
	http_set_web(d->http, w);
	http_set_rules(d->http, d->rules, d->links);
	http_set_report(d->http, d->report);
	http_set_alert_meter(d->http, d->alert_meter);
	http_set_ident(d->http, d->ident);
	for (size_t i = 0; i < d->cfg->n_listen; i++) {
		const struct cfg_listen *l = &d->cfg->listen[i];
		if (http_add_listener(d->http, l->host, l->port, err,
				      sizeof err) < 0) {
			log_err("http", "cannot listen: %s", err);
			return -1;
		}
	}
	if (http_start(d->http, err, sizeof err) < 0) {
		log_err("http", "cannot start the HTTP server: %s", err);
		return -1;
	}
	return 0;
}

static void kick_rules(void *rules)
{
	rules_kick(rules);
}

static int start_collectors(struct daemon *d)
{
	struct collector_env env = { .store = d->store,
				     .health = d->health,
				     .links = d->links,
				     .ident = d->ident };
	for (size_t i = 0; collectors[i]; i++) {
		int rc =
		    collectors[i]->start(&env, d->cfg, &d->collector_state[i]);
		if (rc < 0) {
			log_err("core", "the %s collector did not start: %s",
				collectors[i]->name, strerror(-rc));
			return rc;
		}
		d->collector_running[i] = true;
	}
	return 0;
}

static void stop_collectors(struct daemon *d)
{
	/* Reverse order; the table ends with NULL, never running. */
	for (size_t i = N_COLLECTORS; i-- > 0;) {
		if (!d->collector_running[i])
			continue;
		collectors[i]->stop(d->collector_state[i]);
		d->collector_running[i] = false;
	}
}

static void report_opts_of(const struct cfg *c, struct report_opts *o)
{
	o->window_ns = c->report.window_ns;
	o->step_ns = c->report.step_ns;
	o->max_records = c->report.max_records;
	o->max_incidents = c->report.max_incidents;
	o->lossless_mask = c->lossless_mask;
}

/* The Alertmanager pusher of c (NULL if none or it cannot start). */
static struct alert *start_alert(struct alert_meter *m, const struct cfg *c)
{
	if (c->alert.n_urls == 0) {
		alert_meter_attach(m, NULL);
		return NULL;
	}
	struct alert *a = alert_new(&c->alert);
	alert_meter_attach(m, a);
	int rc = alert_start(a);
	if (rc < 0) {
		log_err("rules", "alertmanager: cannot start the pusher: %s",
			strerror(-rc));
		alert_free(a);
		return NULL;
	}
	return a;
}

/* The engine's outputs: the report's history and, if configured, the
 * Alertmanager pusher. */
static void set_outputs(struct daemon *d)
{
	struct rules_output out[2];
	size_t n = 0;
	out[n++] = (struct rules_output){ &report_output_ops, d->report };
	if (d->alert)
		out[n++] = (struct rules_output){ &alert_output_ops, d->alert };
	rules_set_outputs(d->rules, out, n);
}

/*
 * Hands the incidents firing now to a new pusher: the engine only tells
 * its outputs of changes, and a pusher replaced by a reload (new URLs,
 * a rotated password) would otherwise know none of them until they
 * change. One that fired or resolved since set_outputs() is told twice,
 * which alert_incident() takes as the same alert.
 */
static void replay_firing(struct daemon *d)
{
	if (!d->alert)
		return;
	struct rules_snapshot snap;
	rules_snapshot(d->rules, false, &snap);
	for (size_t i = 0; i < snap.n_active; i++)
		if (snap.active[i].state == RULES_FIRING)
			alert_incident(d->alert, &snap.active[i]);
	rules_snapshot_free(&snap);
}

/* Swaps in nc, a config that loaded and validated whole (main thread). */
static void apply_reload(struct daemon *d, const struct fabmond_opts *o,
			 struct cfg *nc)
{
	struct cfg *old = d->cfg;
	apply_logging(nc, o);
	configure_store(d->store, nc);
	links_set_static(d->links, &nc->topology);
	rules_configure(d->rules, nc);
	struct report_opts ro;
	report_opts_of(nc, &ro);
	report_configure(d->report, &ro);
	if (!alert_cfg_equal(&old->alert, &nc->alert)) {
		struct alert *old_alert = d->alert;
		d->alert = start_alert(d->alert_meter, nc);
		set_outputs(d);
		replay_firing(d);
		alert_free(old_alert);
	}
	if (!same_listen(old, nc))
		log_warn("http", "listen addresses changed: they take effect "
				 "at the next restart");

	/* Collectors first: they stop what left and wait for it, so no
	 * collector thread writes a series or a health entry after it
	 * is withdrawn below. */
	d->cfg = nc;
	for (size_t i = 0; collectors[i]; i++) {
		if (!d->collector_running[i])
			continue;
		int rc = collectors[i]->reload(d->collector_state[i], nc);
		if (rc < 0)
			log_warn("core",
				 "the %s collector could not apply "
				 "the whole new configuration: %s",
				 collectors[i]->name, strerror(-rc));
	}

	/* Targets that left: withdraw their series and health so that
	 * nothing stale is exported for them; protocols a target dropped:
	 * their health entry. */
	for (size_t i = 0; i < old->n_targets; i++) {
		const struct cfg_target *ot = &old->targets[i];
		const struct cfg_target *nt = cfg_find_target(nc, ot->name);
		if (!nt) {
			health_remove_target(d->health, ot->name);
			size_t n = store_withdraw_owner(
			    d->store, store_intern(d->store, ot->name));
			log_info("config",
				 "target %s removed, %zu series withdrawn",
				 ot->name, n);
			continue;
		}
		for (size_t p = 0; p < ot->n_blocks; p++) {
			const char *proto = ot->blocks[p].ops->key;
			if (!cfg_target_block(nt, proto))
				health_remove(d->health, ot->name, proto);
		}
	}
	register_targets(d->health, nc);

	cfg_free(old);
	health_set_reload(d->health, true, realtime_ns());
	log_notice("config", "reloaded %s (%zu targets)", nc->path,
		   nc->n_targets);
	sdnotify_send("READY=1");
	sdnotify_status("serving %zu targets", nc->n_targets);
}

/*
 * A stop that has not finished by then ends the process: the unit's
 * TimeoutStopSec is 10 s, and no module's teardown may turn SIGTERM into
 * systemd's SIGKILL. Every teardown is bounded on its own (the NIC
 * collector never waits for a read); this is the net under them.
 */
#define STOP_DEADLINE_S 8

static void *stop_deadline_main(void *arg)
{
	(void)arg;
	struct timespec ts = { .tv_sec = STOP_DEADLINE_S };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		; /* a cancellation point: cancelled once teardown ends */
	log_err("core", "stopping has taken over %d s: exiting unfinished",
		STOP_DEADLINE_S);
	_exit(1);
}

/* SIGHUP: starts loading the file on the loader's thread, or, if a load
 * runs, has one more follow it. */
static void request_reload(struct daemon *d, const struct fabmond_opts *o,
			   struct cfgload *loader)
{
	const char *path = o->config_path ? o->config_path : d->cfg->path;
	int rc = cfgload_request(loader, path);
	if (rc > 0) {
		log_info("core", "SIGHUP: reloading the configuration");
		sdnotify_send("RELOADING=1");
	} else if (rc == 0) {
		log_info("core", "SIGHUP during a reload: the file is loaded "
				 "again once this one ends");
	} else {
		log_err("config",
			"reload failed, keeping the running "
			"configuration: cannot start the loader: %s",
			strerror(-rc));
		health_set_reload(d->health, false, realtime_ns());
	}
}

/* A load that ended: swaps it in, or keeps the running config if it
 * failed; then the load a SIGHUP asked for meanwhile. */
static void finish_reload(struct daemon *d, const struct fabmond_opts *o,
			  struct cfgload *loader)
{
	char err[1024];
	struct cfg *nc;
	bool again;
	if (!cfgload_collect(loader, &nc, err, sizeof err, &again))
		return;
	/* The web config is part of the configuration: a broken one
	 * fails the reload and keeps the running one whole. */
	struct webcfg *w = NULL;
	if (nc && (load_web(nc, &w, err, sizeof err) < 0 ||
		   http_reload_web(d->http, w, err, sizeof err) < 0)) {
		cfg_free(nc);
		nc = NULL;
	}
	if (nc) {
		apply_reload(d, o, nc);
	} else {
		log_err("config",
			"reload failed, keeping the running "
			"configuration: %s",
			err);
		health_set_reload(d->health, false, realtime_ns());
		sdnotify_send("READY=1");
	}
	if (again)
		request_reload(d, o, loader);
}

static void teardown(struct daemon *d)
{
	stop_collectors(d);
	http_free(d->http);
	rules_free(d->rules);
	alert_free(d->alert);
	alert_meter_free(d->alert_meter);
	report_free(d->report);
	ident_table_free(d->ident);
	links_free(d->links);
	health_free(d->health);
	store_free(d->store);
	cfg_free(d->cfg);
}

int fabmond_run(const struct fabmond_opts *o)
{
	char err[1024];
	struct daemon d = { 0 };

	log_init();
	for (size_t i = 0; i < o->n_debug; i++) {
		if (log_enable_debug(o->debug[i]) < 0) {
			log_err("core", "unknown debug subsystem \"%s\"",
				o->debug[i]);
			return 1;
		}
	}

	d.cfg = load_config(o->config_path, err, sizeof err);
	if (!d.cfg) {
		log_err("config", "%s", err);
		return 1;
	}
	apply_logging(d.cfg, o);

	/* Block the signals main waits for before any thread exists, so
	 * every thread inherits the mask and only sigtimedwait sees them. */
	sigset_t waitset;
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGHUP);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, FABMOND_WAKE_SIG);
	pthread_sigmask(SIG_BLOCK, &waitset, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct store_opts so = {
		.ring_len = d.cfg->store_ring,
		.stale_intervals = d.cfg->store_stale_intervals,
		.default_interval_ms = (uint32_t)(d.cfg->interval_ns / 1000000),
	};
	d.store = store_new(&so);
	d.health = health_new();
	register_targets(d.health, d.cfg);
	d.links = links_new(NULL, NULL);
	links_set_static(d.links, &d.cfg->topology);
	d.ident = ident_table_new();
	d.rules = rules_new(d.store, d.links, d.health, d.cfg, NULL);
	struct report_opts ro;
	report_opts_of(d.cfg, &ro);
	d.report = report_new(d.store, &ro);
	d.alert_meter = alert_meter_new();
	d.alert = start_alert(d.alert_meter, d.cfg);
	set_outputs(&d);
	/* The engine ticks as samples arrive (collectors stop before it
	 * is freed, so the hook never outlives it). */
	health_set_updated_hook(d.health, kick_rules, d.rules);

	if (start_collectors(&d) < 0 || rules_start(d.rules) < 0 ||
	    start_http(&d) < 0) {
		teardown(&d);
		return 1;
	}

	log_notice("core", "fabmond %s started (%s, %zu targets)",
		   PACKAGE_VERSION, d.cfg->path ? d.cfg->path : "defaults",
		   d.cfg->n_targets);
	sdnotify_send("READY=1");
	sdnotify_status("serving %zu targets", d.cfg->n_targets);
	if (o->ready_fd >= 0) {
		(void)!write(o->ready_fd, "R", 1);
		close(o->ready_fd);
	}

	/* Ping the systemd watchdog at half its interval. */
	uint64_t wd_usec = sdnotify_watchdog_usec();
	int64_t tick_ns = wd_usec ? (int64_t)wd_usec * 1000 / 2 : 1000000000;
	if (tick_ns > 1000000000)
		tick_ns = 1000000000;

	/* Reloads load on a thread of their own (fabmond.c's opening). */
	struct cfgload *loader = cfgload_new(load_config, FABMOND_WAKE_SIG);
	int status = 0;
	for (;;) {
		struct timespec to = { .tv_sec = tick_ns / 1000000000,
				       .tv_nsec = tick_ns % 1000000000 };
		siginfo_t si;
		int sig = sigtimedwait(&waitset, &si, &to);
		int wait_errno = errno;
		if (wd_usec)
			sdnotify_send("WATCHDOG=1");
		finish_reload(&d, o, loader);
		if (sig < 0) {
			if (wait_errno == EAGAIN || wait_errno == EINTR)
				continue;
			log_err("core", "sigtimedwait: %s",
				strerror(wait_errno));
			status = 1;
			break;
		}
		if (sig == FABMOND_WAKE_SIG)
			continue;
		if (sig == SIGHUP) {
			request_reload(&d, o, loader);
			continue;
		}
		log_notice("core", "%s: stopping",
			   sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}

	sdnotify_send("STOPPING=1");
	pthread_t deadline;
	bool armed =
	    pthread_create(&deadline, NULL, stop_deadline_main, NULL) == 0;
	/* A load still running is waited for (it touches nothing of the
	 * daemon) and dropped. */
	cfgload_free(loader);
	teardown(&d);
	if (armed) {
		pthread_cancel(deadline);
		pthread_join(deadline, NULL);
	}
	log_notice("core", "stopped");
	return status;
}
