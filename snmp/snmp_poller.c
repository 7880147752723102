/*
 * snmp_poller: the SNMP collector (see snmp_poller.h).
 *
 * A target's cycle runs as phases, each one request or one walk:
 *
 *   [DISCOVER] -> [IDENT] -> [INDEX] -> POLL -> (idle until due)
 *
 * net-snmp calls sess_cb() from inside snmp_sess_read2() and
 * snmp_sess_timeout(). The callback only consumes the response and, in a
 * walk, sends the next GETBULK; it never opens or closes a session. When
 * a phase ends it records the outcome, and the loop moves the target on
 * (advance()) once the library call has returned. Callbacks are matched
 * to the request in flight by reqid and made idempotent, because the
 * library may call back twice for one REPORT and may call back from
 * inside a failing snmp_sess_async_send().
 *
 * This file holds the targets, their phases and cycles, the config and
 * the loop; sessions, walks and LLDP are beside it (snmp_int.h).
 */
#include "config.h"

#include "snmp_int.h"

#include "cfg.h"
#include "clock.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "mem.h"
#include "snmp_keys.h"
#include "snmp_profile.h"
#include "store.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static const char *const phase_names[] = { "idle", "engine discovery",
					   "identification", "index walk",
					   "poll" };

static int64_t jitter(struct poller *p, int64_t max)
{
	if (max <= 0)
		return 0;
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	return (int64_t)(p->rng % (uint64_t)max);
}

/*
 * Targets.
 */

static struct cfg_snmp *snmp_cfg_dup(const struct cfg_snmp *s)
{
	struct cfg_snmp *d = xcalloc(1, sizeof *d);
	*d = *s;
	d->address = s->address ? xstrdup(s->address) : NULL;
	d->community = s->community ? xstrdup(s->community) : NULL;
	d->user = s->user ? xstrdup(s->user) : NULL;
	d->auth_key = s->auth_key ? xstrdup(s->auth_key) : NULL;
	d->priv_key = s->priv_key ? xstrdup(s->priv_key) : NULL;
	d->profile = s->profile ? xstrdup(s->profile) : NULL;
	return d;
}

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void snmp_cfg_free(struct cfg_snmp *s)
{
	if (!s)
		return;
	free(s->address);
	wipe_free(s->community);
	free(s->user);
	wipe_free(s->auth_key);
	wipe_free(s->priv_key);
	free(s->profile);
	free(s);
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool snmp_cfg_equal(const struct cfg_snmp *a, const struct cfg_snmp *b)
{
	return str_eq(a->address, b->address) && a->version == b->version &&
	       str_eq(a->community, b->community) && str_eq(a->user, b->user) &&
	       a->auth == b->auth && str_eq(a->auth_key, b->auth_key) &&
	       a->priv == b->priv && str_eq(a->priv_key, b->priv_key) &&
	       a->interval_ns == b->interval_ns &&
	       a->timeout_ns == b->timeout_ns && a->retries == b->retries &&
	       a->max_repetitions == b->max_repetitions &&
	       str_eq(a->profile, b->profile);
}

static void target_free(struct starget *t)
{
	if (!t)
		return;
	snmp_target_close(t);
	if (t->phase != PH_IDLE)
		t->p->inflight--;
	snmp_index_tmp_free(t);
	snmp_pend_free(t);
	snmp_ifs_free(t->ifs, t->nifs);
	snmp_lldp_target_free(t);
	free(t->w);
	free(t->active);
	free(t->announced);
	free(t->type_logged);
	free(t->prof_name);
	snmp_cfg_free(t->cfg);
	free(t->name);
	free(t);
}

/*
 * Phases.
 */

static void start_discover(struct starget *t)
{
	t->phase = PH_DISCOVER;
	if (snmp_target_open(t, true)) {
		snmp_phase_end(t, false, NULL);
		return;
	}
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	pdu->securityName = xstrdup("");
	pdu->securityNameLen = 0;
	pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	pdu->securityModel = SNMP_SEC_MODEL_USM;
	snmp_send_pdu(t, pdu);
}

static void start_ident(struct starget *t)
{
	t->phase = PH_IDENT;
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	snmp_add_null_var(pdu, OID_SYSOBJECTID0, OLEN(OID_SYSOBJECTID0));
	snmp_add_null_var(pdu, OID_SYSUPTIME0, OLEN(OID_SYSUPTIME0));
	snmp_add_null_var(pdu, OID_IFNUMBER0, OLEN(OID_IFNUMBER0));
	snmp_send_pdu(t, pdu);
}

static void start_index(struct starget *t)
{
	t->phase = PH_INDEX;
	snmp_index_tmp_free(t);
	snmp_walk_reset(t);
	snmp_walk_add(t, OID_IFNAME, OLEN(OID_IFNAME), W_IFNAME);
	snmp_walk_add(t, OID_IFDESCR, OLEN(OID_IFDESCR), W_IFDESCR);
	snmp_walk_add(t, OID_IFALIAS, OLEN(OID_IFALIAS), W_IFALIAS);
	snmp_walk_add(t, OID_LOC_PORTID, OLEN(OID_LOC_PORTID), W_LOC_PORTID);
	snmp_walk_add(t, OID_LOC_PORTDESC, OLEN(OID_LOC_PORTDESC),
		      W_LOC_PORTDESC);
	snmp_walk_add(t, OID_REM_PORTID, OLEN(OID_REM_PORTID), W_REM_PORTID);
	snmp_walk_add(t, OID_REM_PORTDESC, OLEN(OID_REM_PORTDESC),
		      W_REM_PORTDESC);
	snmp_walk_add(t, OID_REM_SYSNAME, OLEN(OID_REM_SYSNAME), W_REM_SYSNAME);
	snmp_walk_add(t, OID_REM_PORTSUB, OLEN(OID_REM_PORTSUB), W_REM_PORTSUB);
	snmp_walk_send(t);
}

static void start_poll(struct starget *t)
{
	t->phase = PH_POLL;
	t->values = 0;
	t->rejected = 0;
	t->bad_type = 0;
	snmp_pend_clear(t);
	snmp_walk_reset(t);
	/* The labels' column, a few bytes a port, to see a renumbering
	 * before any sample is written (snmp_renum.c). */
	t->name_col = 0;
	for (size_t i = 0; i < t->nifs && t->name_col != W_IFNAME; i++)
		if (t->ifs[i].name && *t->ifs[i].name)
			t->name_col = W_IFNAME;
		else if (t->ifs[i].descr && *t->ifs[i].descr)
			t->name_col = W_IFDESCR;
	if (t->name_col == W_IFNAME)
		snmp_walk_add(t, OID_IFNAME, OLEN(OID_IFNAME), W_IFNAME);
	else if (t->name_col == W_IFDESCR)
		snmp_walk_add(t, OID_IFDESCR, OLEN(OID_IFDESCR), W_IFDESCR);
	snmp_walk_add(t, OID_DISC, OLEN(OID_DISC), W_DISC);
	for (size_t i = 0; i < t->prof->n_cols; i++)
		if (t->active[i])
			snmp_walk_add(t, t->prof->cols[i].oid,
				      t->prof->cols[i].oid_len, (int)i);
	snmp_walk_send(t);
}

/* A port found at another ifIndex than the last table's: its series
 * take a new base (a renumbering no poll saw, or the agent's tables
 * changed between polls). Returns how many ports moved. */
static size_t index_moves(struct starget *t)
{
	size_t moved = 0;
	for (size_t i = 0; i < t->n_tmp; i++) {
		struct ifent *e = &t->nifs_tmp[i];
		for (size_t j = 0; j < t->nifs; j++) {
			struct ifent *o = &t->ifs[j];
			if (o->port != e->port || o->ifindex == e->ifindex)
				continue;
			snmp_mark_port_discontinuity(t, o);
			moved++;
		}
	}
	if (moved)
		log_info("snmp",
			 "%s: the index walk found %zu port(s) at another "
			 "ifIndex: their next samples are a new base",
			 t->name, moved);
	return moved;
}

/* The index walk finished: swap in the new interface table and LLDP. */
static void index_done(struct starget *t)
{
	char buf[32];
	for (size_t i = 0; i < t->n_tmp; i++) {
		struct ifent *e = &t->nifs_tmp[i];
		const char *n = e->name && *e->name	? e->name
				: e->descr && *e->descr ? e->descr
							: NULL;
		if (!n) {
			snprintf(buf, sizeof buf, "ifIndex%u", e->ifindex);
			n = buf;
		}
		e->port = store_intern(t->p->store, n);
	}
	index_moves(t);
	snmp_ifs_free(t->ifs, t->nifs);
	t->ifs = t->nifs_tmp;
	t->nifs = t->n_tmp;
	t->nifs_tmp = NULL;
	t->n_tmp = 0;
	size_t nn = snmp_lldp_index_done(t);
	snmp_index_tmp_free(t);
	log_info("snmp", "%s: %zu interfaces, %zu LLDP neighbours (profile %s)",
		 t->name, t->nifs, nn, t->prof->name);
	t->need_index = false;
	t->unknown_if_logged = false;
	t->fallback_checked = false;
	for (size_t i = 0; i < t->prof->n_cols; i++) {
		t->active[i] = t->prof->cols[i].fallback_for < 0;
		t->announced[i] = false;
		t->type_logged[i] = false;
	}
	t->t_index = mono_ns() + INDEX_REFRESH_NS;
}

/* After the first poll on fresh index tables, a 64-bit column the agent
 * lacks gives way to its 32-bit fallback; once the fallback has rows,
 * the log says so (once per index refresh). */
static void check_fallbacks(struct starget *t)
{
	for (size_t i = 0; i < t->nw; i++) {
		const struct wcol *c = &t->w[i];
		if (c->kind < 0)
			continue;
		const struct snmp_column *col = &t->prof->cols[c->kind];
		/* Rows of the wrong width count as none. */
		uint32_t rows = c->rows - c->bad_type;
		if (col->fallback_for >= 0 && rows && !t->announced[c->kind]) {
			t->announced[c->kind] = true;
			log_notice(
			    "snmp",
			    "%s: %s is not served; using the 32-bit %s "
			    "for %s, which can wrap between polls on "
			    "fast links (octets wrap in 344 ms at "
			    "100G)",
			    t->name, t->prof->cols[col->fallback_for].name,
			    col->name, fm_counter_info(col->counter)->name);
		}
		if (t->fallback_checked || rows)
			continue;
		for (size_t j = 0; j < t->prof->n_cols; j++) {
			if (t->prof->cols[j].fallback_for != c->kind)
				continue;
			t->active[c->kind] = false;
			t->active[j] = true;
		}
	}
	t->fallback_checked = true;
}

static bool choose_profile(struct starget *t)
{
	struct poller *p = t->p;
	const struct snmp_profile *pr;
	char buf[MAX_OID_LEN * 11];
	if (t->prof_name) {
		pr = snmp_profile_find(&p->profiles, t->prof_name);
		if (!pr && !strchr(t->prof_name, '/')) {
			/* A profile outside the snmp-*.yaml set. */
			char err[512];
			struct snmp_profile *np = snmp_profile_load_named(
			    p->profiles_dir, t->prof_name, err, sizeof err);
			if (!np) {
				snprintf(t->err, sizeof t->err, "profile: %s",
					 err);
				t->failed_for_good = true;
				return false;
			}
			p->profiles.v =
			    xreallocarray(p->profiles.v, p->profiles.n + 1,
					  sizeof *p->profiles.v);
			p->profiles.v[p->profiles.n++] = np;
			pr = np;
		}
	} else
		pr =
		    snmp_profile_choose(&p->profiles, t->sysoid, t->sysoid_len);
	if (!pr) {
		if (t->prof_name)
			snprintf(t->err, sizeof t->err,
				 "profile %s not found in %s (or it failed to "
				 "load: see the log)",
				 t->prof_name, p->profiles_dir);
		else
			snprintf(t->err, sizeof t->err,
				 "no profile matches the sysObjectID and "
				 "there is no %s profile in %s",
				 SNMP_PROFILE_DEFAULT, p->profiles_dir);
		return false;
	}
	if (t->prof != pr) {
		t->prof = pr;
		free(t->active);
		free(t->announced);
		free(t->type_logged);
		t->active = xcalloc(pr->n_cols, sizeof *t->active);
		t->announced = xcalloc(pr->n_cols, sizeof *t->announced);
		t->type_logged = xcalloc(pr->n_cols, sizeof *t->type_logged);
		for (size_t i = 0; i < pr->n_cols; i++)
			t->active[i] = pr->cols[i].fallback_for < 0;
		snmp_ifs_free(t->ifs, t->nifs);
		t->ifs = NULL;
		t->nifs = 0;
		log_info("snmp", "%s: sysObjectID %s: profile %s", t->name,
			 t->sysoid_len
			     ? snmp_oid_format(t->sysoid, t->sysoid_len, buf,
					       sizeof buf)
			     : "unknown",
			 pr->name);
	}
	return true;
}

/* Opens the target's session if open is set, then starts the first
 * phase the target needs (ident, index or poll). Returns false if the
 * open failed: the ident phase has then ended in failure. */
static bool start_first_phase(struct starget *t, bool open)
{
	if (open && snmp_target_open(t, false)) {
		t->phase = PH_IDENT;
		snmp_phase_end(t, false, NULL);
		return false;
	}
	if (t->need_ident)
		start_ident(t);
	else if (t->need_index)
		start_index(t);
	else
		start_poll(t);
	return true;
}

static void start_cycle(struct starget *t, int64_t now)
{
	t->p->inflight++;
	t->t_start = now;
	t->result = 0;
	t->timed_out = false;
	t->err[0] = '\0';
	t->max_rep = t->cfg->max_repetitions ? t->cfg->max_repetitions : 25;
	if (now >= t->t_index)
		t->need_index = true;
	if (!t->sess && t->cfg->version == 3 && !t->engine_len) {
		start_discover(t);
		return;
	}
	start_first_phase(t, !t->sess);
}

static void cycle_end(struct starget *t, bool ok)
{
	struct poller *p = t->p;
	int64_t now = mono_ns();
	enum phase ph = t->phase;
	t->phase = PH_IDLE;
	p->inflight--;
	p->rescan = true;
	health_target_set_duration(t->health, (double)(now - t->t_start) / 1e9);
	if (ok) {
		t->failures = 0;
		t->v3_timeouts = 0;
		atomic_fetch_add(&p->polls_ok, 1);
		atomic_fetch_add(&p->values, t->values);
		health_target_updated(t->health, t->values);
		if (t->rejected)
			health_target_count(t->health, HEALTH_C_UNMAPPED,
					    t->rejected);
		if (t->bad_type)
			health_target_count(t->health, HEALTH_C_DECODE_ERRORS,
					    t->bad_type);
		health_target_set_up(t->health, true, NULL);
		log_complain_clear(&t->complaint, "snmp", "%s: polling again",
				   t->name);
		/* Within the link table's TTL (120 s). */
		if (now - t->lldp_reported >= LLDP_REPORT_NS)
			snmp_lldp_report(t);
		int64_t next = t->t_next + t->every_ns;
		if (now >= next) {
			/* Still polling when the next one was due. */
			atomic_fetch_add(&p->overruns, 1);
			health_target_count(t->health, HEALTH_C_OVERRUNS, 1);
			log_complain(&t->overrun_complaint, LOG_LVL_WARN,
				     "snmp",
				     "%s: poll took %.3fs, longer than the "
				     "%.3fs interval (slots skipped)",
				     t->name, (double)(now - t->t_start) / 1e9,
				     (double)t->every_ns / 1e9);
			while (next <= now)
				next += t->every_ns;
		}
		t->t_next = next;
		return;
	}
	t->failures++;
	atomic_fetch_add(&p->polls_failed, 1);
	health_target_count(t->health, HEALTH_C_ERRORS, 1);
	if (t->timed_out) {
		health_target_count(t->health, HEALTH_C_TIMEOUTS, 1);
		if (t->cfg->version == 3 &&
		    ++t->v3_timeouts >= V3_REDISCOVER_AFTER) {
			/* A restarted agent with a new engineID would
			 * drop our requests forever: discover again. */
			snmp_target_close(t);
			t->engine_len = 0;
			t->v3_timeouts = 0;
		}
	}
	if (ph == PH_DISCOVER)
		snmp_target_close(t);
	int64_t wait = t->every_ns;
	if (t->failures > 1) {
		unsigned sh = t->failures - 1 > 6 ? 6 : t->failures - 1;
		wait = t->every_ns << sh;
		int64_t cap =
		    t->every_ns > BACKOFF_MAX_NS ? t->every_ns : BACKOFF_MAX_NS;
		if (wait > cap)
			wait = cap;
	}
	wait += jitter(p, wait / 10 + 1);
	t->t_next = now + wait;
	health_target_set_down(t->health, "%s: %s (retrying in %.0fs)",
			       phase_names[ph], t->err, (double)wait / 1e9);
	log_complain(&t->complaint, LOG_LVL_WARN, "snmp", "%s: %s: %s", t->name,
		     phase_names[ph], t->err);
}

/* Moves a target whose phase ended to the next phase, or ends its
 * cycle. Runs on the loop, outside any net-snmp callback. */
static void advance(struct starget *t)
{
	while (t->result) {
		bool ok = t->result > 0;
		enum phase ph = t->phase;
		t->result = 0;
		if (!ok) {
			cycle_end(t, false);
			return;
		}
		switch (ph) {
		case PH_DISCOVER:
			snmp_target_close(t);
			log_debug("snmp", "%s: engine discovered", t->name);
			if (!start_first_phase(t, true))
				continue;
			break;
		case PH_IDENT:
			t->need_ident = false;
			if (!choose_profile(t)) {
				t->need_ident = true;
				t->phase = PH_IDENT;
				snmp_phase_end(t, false, NULL);
				continue;
			}
			start_index(t);
			break;
		case PH_INDEX:
			index_done(t);
			start_poll(t);
			break;
		case PH_POLL:
			check_fallbacks(t);
			cycle_end(t, true);
			return;
		default:
			return;
		}
	}
}

static struct starget *target_new(struct poller *p, const char *name,
				  const struct cfg_snmp *c)
{
	struct starget *t = xcalloc(1, sizeof *t);
	t->p = p;
	t->name = xstrdup(name);
	t->cfg = snmp_cfg_dup(c);
	t->fd = -1;
	t->health = health_target(p->health, name, "snmp");
	/* Series of the target's SNMP side: an owner of their own, so that
	 * a target polled over gNMI too cannot have one series written by
	 * both (the store refuses the second writer: gNMI's series win
	 * when they exist first, SNMP fills in what gNMI does not send). */
	char *own = xasprintf("snmp:%s", name);
	t->owner = store_intern(p->store, own);
	free(own);
	t->device = store_intern(p->store, name);
	t->every_ns =
	    (int64_t)(c->interval_ns ? c->interval_ns
				     : (uint64_t)p->global_interval_ns);
	if (t->every_ns <= 0)
		t->every_ns = NS_PER_S;
	t->prof_name = c->profile ? xstrdup(c->profile) : NULL;
	t->need_ident = true;
	t->need_index = true;
	int64_t now = mono_ns();
	/* Spread a fabric's first polls over a second (or the interval). */
	t->t_next =
	    now + jitter(p, t->every_ns < NS_PER_S ? t->every_ns : NS_PER_S);
	t->t_index = now + INDEX_REFRESH_NS;
	if (c->version == 3 && !c->user) {
		t->failed_for_good = true;
		health_target_set_down(t->health, "SNMPv3 needs a user");
	} else {
		health_target_set_down(t->health, "polling");
	}
	return t;
}

static void add_target(struct poller *p, const char *name,
		       const struct cfg_snmp *c, bool has_gnmi)
{
	size_t slot = 0;
	while (slot < p->nt && p->t[slot])
		slot++;
	if (slot == p->nt) {
		p->t = xreallocarray(p->t, p->nt + 1, sizeof *p->t);
		p->nt++;
	}
	/* net-snmp is set up with the first target, on this thread: a
	 * fabmond without SNMP targets never touches the library. */
	snmp_lib_init();
	struct starget *t = target_new(p, name, c);
	t->slot = slot;
	/* gNMI first: a target streamed over gNMI too starts polling after
	 * a grace period, so that gNMI's series exist by then and SNMP only
	 * fills in what gNMI does not send (or all, when gNMI is down). */
	if (has_gnmi) {
		int64_t grace = 2 * t->every_ns;
		if (grace < GNMI_GRACE_NS)
			grace = GNMI_GRACE_NS;
		t->t_next += grace;
	}
	p->t[slot] = t;
}

static void load_profiles(struct poller *p);

/* Applies a new config (loop thread). */
static void apply_config(struct poller *p, const struct cfg *cfg)
{
	p->global_interval_ns = (int64_t)cfg->interval_ns;
	const char *dir =
	    cfg->profiles_dir ? cfg->profiles_dir : FABMON_PROFILEDIR;
	/* Profiles are read at start and when profiles_dir changes, as for
	 * gNMI; targets point into the set, so a new set restarts them. */
	bool any = false;
	for (size_t i = 0; i < cfg->n_targets && !any; i++)
		any = snmp_cfg_of(&cfg->targets[i]) != NULL;
	/* Without SNMP targets there is nothing to read profiles for
	 * (and the directory need not exist). */
	if (any && (!p->profiles_dir || strcmp(dir, p->profiles_dir) != 0)) {
		for (size_t i = 0; i < p->nt; i++) {
			if (p->t[i]) {
				target_free(p->t[i]);
				p->t[i] = NULL;
			}
		}
		free(p->profiles_dir);
		p->profiles_dir = xstrdup(dir);
		snmp_profile_set_clear(&p->profiles);
		load_profiles(p);
	}
	for (size_t i = 0; i < p->nt; i++) {
		struct starget *t = p->t[i];
		if (!t)
			continue;
		const struct cfg_target *nt = cfg_find_target(cfg, t->name);
		/* A target that failed for good (its profile) is retried
		 * on every reload: the file may have been fixed. */
		if (nt && snmp_cfg_of(nt) && !t->failed_for_good &&
		    snmp_cfg_equal(snmp_cfg_of(nt), t->cfg))
			continue;
		log_info("snmp", "%s: %s", t->name,
			 nt && snmp_cfg_of(nt)
			     ? "configuration changed, restarting"
			     : "removed");
		if (!nt || !snmp_cfg_of(nt))
			store_withdraw_owner(p->store, t->owner);
		target_free(t);
		p->t[i] = NULL;
	}
	size_t n = 0;
	for (size_t i = 0; i < cfg->n_targets; i++) {
		const struct cfg_target *ct = &cfg->targets[i];
		if (!snmp_cfg_of(ct))
			continue;
		n++;
		bool have = false;
		for (size_t j = 0; j < p->nt && !have; j++)
			have = p->t[j] && strcmp(p->t[j]->name, ct->name) == 0;
		if (!have)
			add_target(p, ct->name, snmp_cfg_of(ct),
				   cfg_target_block(ct, "gnmi") != NULL);
	}
	if (n)
		log_info("snmp", "polling %zu targets from one thread", n);
}

static void report_profile(void *ctx, const char *msg)
{
	(void)ctx;
	log_err("snmp", "profile not loaded: %s", msg);
}

static void load_profiles(struct poller *p)
{
	snmp_profile_set_load(&p->profiles, p->profiles_dir, report_profile,
			      NULL);
}

/*
 * The loop.
 */

static void read_target(struct poller *p, struct starget *t)
{
	NETSNMP_LARGE_FD_SET(t->fd, &p->lfds);
	snmp_sess_read2(t->sess, &p->lfds);
	NETSNMP_LARGE_FD_CLR(t->fd, &p->lfds);
	if (t->result)
		advance(t);
}

static bool take_mail(struct poller *p)
{
	uint64_t v;
	bool quit = false;
	if (read(p->evfd, &v, sizeof v) < 0 && errno != EAGAIN)
		log_debug("snmp", "eventfd read: %s", strerror(errno));
	pthread_mutex_lock(&p->lock);
	struct mail *m = p->mail;
	if (m && !m->done) {
		if (m->quit) {
			quit = true;
		} else if (m->trigger) {
			int64_t now = mono_ns();
			for (size_t i = 0; i < p->nt; i++)
				if (p->t[i] && p->t[i]->phase == PH_IDLE)
					p->t[i]->t_next = now;
		} else {
			apply_config(p, m->cfg);
		}
		m->done = true;
		p->rescan = true;
		p->mail = NULL;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return quit;
}

static void *loop_main(void *arg)
{
	struct poller *p = arg;
	struct epoll_event evs[256];
	int64_t next_tick = 0;
	for (;;) {
		int64_t now = mono_ns();
		/* Start due cycles, as many as the window allows; the scan
		 * runs only when something may be due (1,000 targets and a
		 * wake-up per response would otherwise cost a scan each). */
		if (p->rescan || now >= p->next_due) {
			p->rescan = false;
			int64_t next_due = now + NS_PER_S;
			for (size_t i = 0; i < p->nt; i++) {
				struct starget *t = p->t[i];
				if (!t || t->failed_for_good ||
				    t->phase != PH_IDLE)
					continue;
				if (t->t_next <= now &&
				    p->inflight < MAX_INFLIGHT) {
					start_cycle(t, now);
					if (t->result)
						advance(t);
				}
				if (t->phase == PH_IDLE && t->t_next < next_due)
					next_due = t->t_next;
			}
			p->next_due = next_due;
		}
		int64_t next_due = p->next_due;
		if (p->inflight && now >= next_tick) {
			for (size_t i = 0; i < p->nt; i++) {
				struct starget *t = p->t[i];
				if (!t || t->phase == PH_IDLE || !t->sess)
					continue;
				snmp_sess_timeout(t->sess);
				if (t->result)
					advance(t);
			}
			next_tick = now + TICK_NS;
		}
		int64_t wait = next_due - now;
		if (p->inflight && next_tick - now < wait)
			wait = next_tick - now;
		if (p->inflight >= MAX_INFLIGHT && wait < TICK_NS)
			wait = TICK_NS; /* window full: due ones wait */
		int ms =
		    wait <= 0 ? 0 : (int)((wait + NS_PER_MS - 1) / NS_PER_MS);
		int n = epoll_wait(p->ep, evs, (int)OLEN(evs), ms);
		for (int i = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;
			if (d == UINT64_MAX) {
				if (take_mail(p))
					goto out;
				continue;
			}
			size_t slot = (size_t)(d >> 32);
			int fd = (int)(uint32_t)d;
			if (slot >= p->nt || !p->t[slot] ||
			    p->t[slot]->fd != fd || !p->t[slot]->sess)
				continue;
			read_target(p, p->t[slot]);
		}
		struct timespec ts;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		atomic_store(&p->cpu_ns,
			     (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec);
	}
out:
	for (size_t i = 0; i < p->nt; i++)
		target_free(p->t[i]);
	free(p->t);
	p->t = NULL;
	p->nt = 0;
	return NULL;
}

/* Hands m to the loop and waits until it is applied. */
static void post_and_wait(struct poller *p, struct mail *m)
{
	pthread_mutex_lock(&p->lock);
	while (p->mail)
		pthread_cond_wait(&p->cond, &p->lock);
	p->mail = m;
	uint64_t one = 1;
	if (write(p->evfd, &one, sizeof one) < 0)
		log_err("snmp", "cannot wake the loop: %s", strerror(errno));
	while (!m->done)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

static int snmp_start(const struct collector_env *env, const struct cfg *cfg,
		      void **state)
{
	struct poller *p = xcalloc(1, sizeof *p);
	p->store = env->store;
	p->health = env->health;
	p->links = env->links;
	p->keys = snmp_keys_new(SNMP_KEYS_DEFAULT_CAP);
	p->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)mono_ns();
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->ep < 0 || p->evfd < 0) {
		int e = errno;
		log_err("snmp", "cannot create the loop: %s", strerror(e));
		if (p->ep >= 0)
			close(p->ep);
		if (p->evfd >= 0)
			close(p->evfd);
		snmp_keys_free(p->keys);
		free(p);
		return -e;
	}
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
	epoll_ctl(p->ep, EPOLL_CTL_ADD, p->evfd, &ev);
	netsnmp_large_fd_set_init(&p->lfds, 1024);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_mutex_init(&p->lldp_lock, NULL);
	int rc = pthread_create(&p->tid, NULL, loop_main, p);
	if (rc) {
		log_err("snmp", "cannot start the loop thread: %s",
			strerror(rc));
		abort();
	}
	struct mail m = { .cfg = (struct cfg *)cfg };
	post_and_wait(p, &m);
	*state = p;
	return 0;
}

static int snmp_reload(void *state, const struct cfg *cfg)
{
	struct poller *p = state;
	struct mail m = { .cfg = (struct cfg *)cfg };
	post_and_wait(p, &m);
	return 0;
}

static void snmp_stop(void *state)
{
	struct poller *p = state;
	if (!p)
		return;
	struct mail m = { .quit = true };
	post_and_wait(p, &m);
	pthread_join(p->tid, NULL);
	snmp_profile_set_clear(&p->profiles);
	netsnmp_large_fd_set_cleanup(&p->lfds);
	close(p->ep);
	close(p->evfd);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lldp_lock);
	snmp_lldp_free(p->lldp, p->nlldp);
	snmp_keys_free(p->keys);
	free(p->profiles_dir);
	free(p);
}

void snmp_poller_trigger(void *state)
{
	struct mail m = { .trigger = true };
	post_and_wait(state, &m);
}

void snmp_poller_get_stats(void *state, struct snmp_poller_stats *out)
{
	struct poller *p = state;
	out->polls_ok = atomic_load(&p->polls_ok);
	out->polls_failed = atomic_load(&p->polls_failed);
	out->values = atomic_load(&p->values);
	out->overruns = atomic_load(&p->overruns);
	out->pdus = atomic_load(&p->pdus);
	out->loop_cpu_ns = atomic_load(&p->cpu_ns);
	out->lldp_neighbors = atomic_load(&p->lldp_count);
}

const struct collector_ops snmp_collector_ops = {
	.name = "snmp",
	.cfg = &snmp_cfg_section,
	.start = snmp_start,
	.reload = snmp_reload,
	.stop = snmp_stop,
};
