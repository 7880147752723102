/*
 * gnmi_client threads: the completion-queue threads that carry the
 * targets (each target pinned to one), the mailbox through which the
 * main thread starts and stops targets, the targets' timers, and the
 * collector ops (start, reload, stop) run by the main thread.
 */
#include "config.h"

#include "client.h"
#include "client_int.h"

#include "log.h"
#include "mem.h"

#include <grpc/support/log.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* gRPC core logs through ours: its errors explain our UNAVAILABLEs,
 * so they are debug lines of the gnmi subsystem. */
static void grpc_log(gpr_log_func_args *a)
{
	log_debug("gnmi", "grpc %s:%d: %s", a->file, a->line, a->message);
}

/* A target's timers fired (thread). */
static void run_target_timers(struct gtarget *t, int64_t now)
{
	if (t->stopping)
		return;
	client_check_stable(t, now);
	if (t->t_action && now >= t->t_action) {
		t->t_action = 0;
		if (t->is_objects)
			client_objects_timer(t, now);
		else if (t->state == GS_IDLE || t->state == GS_WAIT)
			client_connect_target(t);
		else if (t->state == GS_STREAM &&
			 t->cfg->mode == CFG_GNMI_POLL) {
			client_send_poll(t);
			set_timer(t, now + t->every_ns);
		}
	}
	if (t->state == GS_STREAM && t->watchdog_ns && t->call &&
	    !t->cancelled_by_watchdog &&
	    now - t->last_msg_ns > t->watchdog_ns) {
		t->cancelled_by_watchdog = true;
		grpc_call_cancel(t->call, NULL);
	}
}

static int64_t target_next_due(const struct gtarget *t)
{
	int64_t due = t->t_action;
	if (t->stable_at_ns && (!due || t->stable_at_ns < due))
		due = t->stable_at_ns;
	if (t->state == GS_STREAM && t->watchdog_ns && t->call &&
	    !t->cancelled_by_watchdog) {
		int64_t w = t->last_msg_ns + t->watchdog_ns + 1;
		if (!due || w < due)
			due = w;
	}
	return due;
}

/*
 * Threads.
 */

static void thread_start_target(struct gthread *th, struct gtarget *t)
{
	t->th = th;
	pthread_mutex_lock(&th->lock);
	t->next = th->targets;
	th->targets = t;
	pthread_mutex_unlock(&th->lock);
	if (t->state != GS_FAILED) {
		/* Spread a fabric's worth of first connects over 100 ms. */
		set_timer(t, mono_ns() + jitter(th, 100 * NS_PER_MS));
	}
}

static void thread_stop_target(struct gthread *th, struct gtarget *t)
{
	(void)th;
	t->stopping = true;
	t->t_action = 0;
	if (t->call)
		grpc_call_cancel(t->call, NULL);
}

/* Frees stopped targets whose calls are over; true if any remain. */
static bool reap_targets(struct gthread *th)
{
	bool any = false;
	struct gtarget **pp = &th->targets;
	while (*pp) {
		struct gtarget *t = *pp;
		if (t->stopping && !t->call) {
			pthread_mutex_lock(&th->lock);
			*pp = t->next;
			pthread_mutex_unlock(&th->lock);
			client_target_free(t);
			continue;
		}
		any = true;
		pp = &t->next;
	}
	return any;
}

static void process_mail(struct gthread *th)
{
	pthread_mutex_lock(&th->lock);
	struct mail *m = th->mail;
	th->mail = NULL;
	pthread_mutex_unlock(&th->lock);

	/* Oldest first. */
	struct mail *rev = NULL;
	while (m) {
		struct mail *next = m->next;
		m->next = rev;
		rev = m;
		m = next;
	}
	for (m = rev; m;) {
		struct mail *next = m->next;
		switch (m->kind) {
		case MAIL_START:
			thread_start_target(th, m->t);
			break;
		case MAIL_STOP:
			thread_stop_target(th, m->t);
			break;
		case MAIL_QUIT:
			th->quitting = true;
			for (struct gtarget *t = th->targets; t; t = t->next)
				thread_stop_target(th, t);
			break;
		}
		free(m);
		m = next;
	}
}

static void *thread_main(void *arg)
{
	struct gthread *th = arg;
	for (;;) {
		process_mail(th);
		bool any = reap_targets(th);
		pthread_mutex_lock(&th->lock);
		pthread_cond_broadcast(&th->cond); /* stops may be done */
		pthread_mutex_unlock(&th->lock);
		if (th->quitting && !any)
			break;

		int64_t now = mono_ns();
		if (th->next_timer_ns && now >= th->next_timer_ns) {
			th->next_timer_ns = 0;
			for (struct gtarget *t = th->targets; t; t = t->next) {
				run_target_timers(t, now);
				int64_t due = target_next_due(t);
				if (due && (!th->next_timer_ns ||
					    due < th->next_timer_ns))
					th->next_timer_ns = due;
			}
		}

		int64_t wait = WAKE_MAX_NS;
		if (th->next_timer_ns) {
			int64_t d = th->next_timer_ns - mono_ns();
			if (d < wait)
				wait = d > 0 ? d : 0;
		}
		gpr_timespec deadline =
		    gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
				 gpr_time_from_nanos(wait, GPR_TIMESPAN));
		/* Drain what is ready before looking at mail and timers. */
		for (int burst = 0; burst < 1024; burst++) {
			grpc_event ev =
			    grpc_completion_queue_next(th->cq, deadline, NULL);
			if (ev.type != GRPC_OP_COMPLETE)
				break;
			struct tag *tg = ev.tag;
			client_handle_event(tg->t, tg->op, ev.success != 0);
			deadline = gpr_time_0(GPR_CLOCK_MONOTONIC);
		}
	}
	grpc_completion_queue_shutdown(th->cq);
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(
		    th->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
	}
	grpc_completion_queue_destroy(th->cq);
	return NULL;
}

static void post(struct gthread *th, enum mail_kind kind, struct gtarget *t)
{
	struct mail *m = xcalloc(1, sizeof *m);
	m->kind = kind;
	m->t = t;
	pthread_mutex_lock(&th->lock);
	m->next = th->mail;
	th->mail = m;
	pthread_mutex_unlock(&th->lock);
}

static bool thread_has(struct gthread *th, const struct gtarget *t)
{
	for (struct gtarget *x = th->targets; x; x = x->next)
		if (x == t)
			return true;
	for (struct mail *m = th->mail; m; m = m->next)
		if (m->t == t)
			return true;
	return false;
}

/* Stops t and waits until its thread has freed it. */
static void stop_and_wait(struct gthread *th, struct gtarget *t)
{
	post(th, MAIL_STOP, t);
	pthread_mutex_lock(&th->lock);
	while (thread_has(th, t))
		pthread_cond_wait(&th->cond, &th->lock);
	pthread_mutex_unlock(&th->lock);
}

/*
 * The collector ops.
 */

static void add_entry(struct gnmi_col *col, const char *name,
		      const struct cfg_gnmi *g)
{
	struct gtarget *t = client_target_new(col, name, g);
	struct gthread *th = &col->threads[col->next_thread++ % col->n_threads];
	col->entries = xreallocarray(col->entries, col->n_entries + 1,
				     sizeof *col->entries);
	col->entries[col->n_entries++] = (struct entry){
		.name = xstrdup(name),
		.cfg = cfg_gnmi_dup(g),
		.t = t,
		.th = th,
		.failed = t->state == GS_FAILED,
	};
	for (struct gtarget *x = t; x; x = x->companion)
		post(th, MAIL_START, x);
}

static void drop_entry(struct gnmi_col *col, size_t i)
{
	struct entry *e = &col->entries[i];
	/* The helpers first: the main target holds their chain. */
	for (struct gtarget *x = e->t->companion; x;) {
		struct gtarget *next = x->companion;
		stop_and_wait(e->th, x);
		x = next;
	}
	stop_and_wait(e->th, e->t);
	free(e->name);
	cfg_gnmi_free(e->cfg);
	col->entries[i] = col->entries[--col->n_entries];
}

static int gnmi_start(const struct collector_env *env, const struct cfg *cfg,
		      void **state)
{
	struct gnmi_col *col = xcalloc(1, sizeof *col);
	col->store = env->store;
	col->health = env->health;
	col->links = env->links;
	const struct cfg_gnmi_collector *gc = gnmi_cfg_collector(cfg);
	col->n_threads = gc->threads ? gc->threads : 2;
	atomic_init(&col->max_connecting,
		    gc->max_connecting ? gc->max_connecting : 32);
	col->max_message = gc->max_message ? gc->max_message : (16u << 20);
	col->global_interval_ns = cfg->interval_ns;
	col->profiles_dir =
	    xstrdup(cfg->profiles_dir ? cfg->profiles_dir : FABMON_PROFILEDIR);
	gpr_set_log_function(grpc_log);
	gpr_set_log_verbosity(log_debug_enabled("gnmi")
				  ? GPR_LOG_SEVERITY_DEBUG
				  : GPR_LOG_SEVERITY_ERROR);
	grpc_init();
	col->threads = xcalloc(col->n_threads, sizeof *col->threads);
	for (unsigned i = 0; i < col->n_threads; i++) {
		struct gthread *th = &col->threads[i];
		th->col = col;
		th->cq = grpc_completion_queue_create_for_next(NULL);
		th->rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)mono_ns() + i);
		pthread_mutex_init(&th->lock, NULL);
		pthread_cond_init(&th->cond, NULL);
		int rc = pthread_create(&th->tid, NULL, thread_main, th);
		if (rc != 0) {
			log_err("gnmi", "cannot start a thread: %s",
				strerror(rc));
			abort();
		}
	}
	for (size_t i = 0; i < cfg->n_targets; i++)
		if (gnmi_cfg_of(&cfg->targets[i]))
			add_entry(col, cfg->targets[i].name,
				  gnmi_cfg_of(&cfg->targets[i]));
	if (col->n_entries)
		log_info("gnmi", "collecting from %zu targets on %u threads",
			 col->n_entries, col->n_threads);
	*state = col;
	return 0;
}

static int gnmi_reload(void *state, const struct cfg *cfg)
{
	struct gnmi_col *col = state;
	col->global_interval_ns = cfg->interval_ns;
	bool dir_changed = strcmp(col->profiles_dir,
				  cfg->profiles_dir ? cfg->profiles_dir
						    : FABMON_PROFILEDIR) != 0;
	if (dir_changed) {
		free(col->profiles_dir);
		col->profiles_dir = xstrdup(
		    cfg->profiles_dir ? cfg->profiles_dir : FABMON_PROFILEDIR);
	}
	if (gnmi_cfg_collector(cfg)->threads != col->n_threads)
		log_warn("gnmi", "gnmi.threads changed: it takes effect at the "
				 "next restart");
	atomic_store_explicit(&col->max_connecting,
			      gnmi_cfg_collector(cfg)->max_connecting,
			      memory_order_relaxed);

	for (size_t i = 0; i < col->n_entries;) {
		struct entry *e = &col->entries[i];
		const struct cfg_target *nt = cfg_find_target(cfg, e->name);
		if (nt && gnmi_cfg_of(nt) && !dir_changed && !e->failed &&
		    cfg_gnmi_equal(gnmi_cfg_of(nt), e->cfg)) {
			i++;
			continue;
		}
		log_info("gnmi", "%s: %s", e->name,
			 nt && gnmi_cfg_of(nt)
			     ? "configuration changed, restarting"
			     : "removed");
		drop_entry(col, i);
	}
	for (size_t i = 0; i < cfg->n_targets; i++) {
		const struct cfg_target *t = &cfg->targets[i];
		if (!gnmi_cfg_of(t))
			continue;
		bool have = false;
		for (size_t j = 0; j < col->n_entries && !have; j++)
			have = strcmp(col->entries[j].name, t->name) == 0;
		if (!have)
			add_entry(col, t->name, gnmi_cfg_of(t));
	}
	return 0;
}

static void gnmi_stop(void *state)
{
	struct gnmi_col *col = state;
	if (!col)
		return;
	for (unsigned i = 0; i < col->n_threads; i++)
		post(&col->threads[i], MAIL_QUIT, NULL);
	for (unsigned i = 0; i < col->n_threads; i++) {
		pthread_join(col->threads[i].tid, NULL);
		pthread_mutex_destroy(&col->threads[i].lock);
		pthread_cond_destroy(&col->threads[i].cond);
	}
	for (size_t i = 0; i < col->n_entries; i++) {
		free(col->entries[i].name);
		cfg_gnmi_free(col->entries[i].cfg);
	}
	free(col->entries);
	free(col->threads);
	free(col->profiles_dir);
	free(col);
	grpc_shutdown();
}

const struct collector_ops gnmi_collector_ops = {
	.name = "gnmi",
	.cfg = &gnmi_cfg_section,
	.start = gnmi_start,
	.reload = gnmi_reload,
	.stop = gnmi_stop,
};
