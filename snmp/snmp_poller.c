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
 */
#include "config.h"

#include "snmp_poller.h"

#include "cfg.h"
#include "clock.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "mem.h"
#include "snmp_cfg.h"
#include "snmp_profile.h"
#include "snmp_varbind.h"
#include "store.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* net-snmp names the GETBULK fields of a PDU with macros over errstat
 * and errindex; struct cfg_snmp has a max_repetitions field of its own. */
#undef max_repetitions
#undef non_repeaters

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

#define MAX_INFLIGHT	    128		     /* targets polling at once */
#define TICK_NS		    (50 * NS_PER_MS) /* snmp_sess_timeout() cadence */
#define INDEX_REFRESH_NS    (300 * NS_PER_S)
#define GNMI_GRACE_NS	    (5 * NS_PER_S)
#define LLDP_REPORT_NS	    (30 * NS_PER_S)
#define BACKOFF_MAX_NS	    (60 * NS_PER_S)
#define MAX_PDUS_PER_WALK   100000
#define V3_REDISCOVER_AFTER 3 /* consecutive v3 timeouts */
/* A handle slot whose series the store refused (owned elsewhere). */
#define REFUSED	  UINT64_MAX
#define LABEL_MAX 255

/* Columns the collector walks itself (negative kinds). */
enum wkind {
	W_IFNAME = -1,
	W_IFDESCR = -2,
	W_IFALIAS = -3,
	W_DISC = -4,
	W_LOC_PORTID = -5,
	W_LOC_PORTDESC = -6,
	W_REM_PORTID = -7,
	W_REM_PORTDESC = -8,
	W_REM_SYSNAME = -9,
	W_REM_PORTSUB = -10,
};

static const oid OID_IFNAME[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1 };
static const oid OID_IFDESCR[] = { 1, 3, 6, 1, 2, 1, 2, 2, 1, 2 };
static const oid OID_IFALIAS[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 18 };
static const oid OID_DISC[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 19 };
static const oid OID_LOC_PORTID[] = { 1, 0, 8802, 1, 1, 2, 1, 3, 7, 1, 3 };
static const oid OID_LOC_PORTDESC[] = { 1, 0, 8802, 1, 1, 2, 1, 3, 7, 1, 4 };
static const oid OID_REM_PORTID[] = { 1, 0, 8802, 1, 1, 2, 1, 4, 1, 1, 7 };
static const oid OID_REM_PORTDESC[] = { 1, 0, 8802, 1, 1, 2, 1, 4, 1, 1, 8 };
static const oid OID_REM_SYSNAME[] = { 1, 0, 8802, 1, 1, 2, 1, 4, 1, 1, 9 };
static const oid OID_REM_PORTSUB[] = { 1, 0, 8802, 1, 1, 2, 1, 4, 1, 1, 6 };
static const oid OID_SYSOBJECTID0[] = { 1, 3, 6, 1, 2, 1, 1, 2, 0 };
static const oid OID_SYSUPTIME[] = { 1, 3, 6, 1, 2, 1, 1, 3 };
static const oid OID_SYSUPTIME0[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 };
static const oid OID_IFNUMBER[] = { 1, 3, 6, 1, 2, 1, 2, 1 };
static const oid OID_IFNUMBER0[] = { 1, 3, 6, 1, 2, 1, 2, 1, 0 };

#define OLEN(a) (sizeof(a) / sizeof((a)[0]))

enum phase { PH_IDLE, PH_DISCOVER, PH_IDENT, PH_INDEX, PH_POLL };
static const char *const phase_names[] = { "idle", "engine discovery",
					   "identification", "index walk",
					   "poll" };

struct wcol {
	const oid *base;
	size_t base_len;
	oid cur[MAX_OID_LEN];
	size_t cur_len;
	int kind; /* >= 0: profile column; < 0: enum wkind */
	bool done;
	uint32_t rows;
};

struct ifent {
	uint32_t ifindex;
	char *name, *descr, *alias; /* index walk only */
	store_label port;
	uint32_t disc;
	bool have_disc;
	store_handle *h; /* [n_cols * 8], lazily */
};

struct lldp_loc {
	uint32_t num;
	char *id, *desc;
};
struct lldp_rem {
	uint32_t locnum, remidx;
	int subtype; /* lldpRemPortIdSubtype; 0 unknown */
	char *portid, *portdesc, *sysname;
};

struct poller;

struct starget {
	struct poller *p;
	size_t slot;
	char *name;
	struct cfg_snmp *cfg;
	struct health_target *health;
	store_label owner, device;
	int64_t every_ns;

	void *sess;
	int fd;
	uint8_t engine[64];
	size_t engine_len;

	enum phase phase;
	int reqid;
	bool in_send;	/* inside snmp_sess_async_send */
	int send_cb_op; /* a callback ran inside it */
	int result;	/* phase outcome: 0 pending, 1 ok, -1 failed */
	bool timed_out; /* the failure was a timeout */
	char err[768];
	bool need_ident, need_index, failed_for_good;
	unsigned max_rep;

	/* The walk in flight. */
	struct wcol *w;
	size_t nw;
	int sent[256]; /* columns of the request in flight, in order */
	size_t nsent;
	size_t nonrep_sent;
	bool first_pdu;
	unsigned pdus;
	uint64_t values;
	uint64_t rejected;

	/* Profile and state. */
	const struct snmp_profile *prof;
	char *prof_name; /* configured, or NULL */
	bool *active;	 /* per column: walked (fallbacks start off) */
	bool *announced; /* per column: fallback in use was logged */
	bool fallback_checked;
	bool uptime_known;
	uint32_t uptime;
	uint32_t ifnumber;
	bool ifnumber_known;
	oid sysoid[MAX_OID_LEN];
	size_t sysoid_len;

	struct ifent *ifs;
	size_t nifs;
	/* Index walk results before they replace the above. */
	struct ifent *nifs_tmp;
	size_t n_tmp;
	struct lldp_loc *loc;
	size_t nloc;
	struct lldp_rem *rem;
	size_t nrem;

	/* LLDP neighbours as last read, and the local ports reported to
	 * the link table (re-reported within its TTL, forgotten when they
	 * leave the remote table). */
	struct snmp_lldp_neighbor *nb;
	size_t nnb;
	char **rep_ports;
	size_t n_rep;
	int64_t lldp_reported;

	int64_t t_next, t_start, t_index;
	unsigned failures, v3_timeouts;
	struct log_complaint complaint, overrun_complaint;
	bool unknown_if_logged;
};

struct mail {
	struct cfg *cfg; /* borrowed for the duration of the call */
	bool quit;
	bool trigger; /* every idle target is due now */
	bool done;
};

struct poller {
	struct store *store;
	struct health *health;
	struct links *links; /* NULL: LLDP is only kept here */
	char *profiles_dir;
	struct snmp_profile_set profiles;
	int64_t global_interval_ns;

	pthread_t tid;
	int ep, evfd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mail *mail;

	struct starget **t; /* slots; NULL holes are reused */
	size_t nt;
	unsigned inflight;
	/* The earliest due time of an idle target, valid unless rescan
	 * is set (a cycle ended, the window freed, targets changed). */
	int64_t next_due;
	bool rescan;
	netsnmp_large_fd_set lfds;
	uint64_t rng;

	/* Every target's LLDP neighbours, for readers on any thread. */
	pthread_mutex_t lldp_lock;
	struct snmp_lldp_neighbor *lldp;
	size_t nlldp;
	_Atomic uint64_t polls_ok, polls_failed, values, overruns, pdus,
	    lldp_count;
	_Atomic int64_t cpu_ns;
};

/* Ku per (auth protocol, password): generate_Ku hashes 1 MiB (4 ms). */
struct ku {
	enum cfg_snmp_auth auth;
	char *pass;
	uint8_t ku[USM_AUTH_KU_LEN > USM_PRIV_KU_LEN ? USM_AUTH_KU_LEN
						     : USM_PRIV_KU_LEN];
	size_t len;
};
static struct ku *ku_cache;
static size_t n_ku_cache;

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
 * net-snmp initialisation: once per process, never undone (a second
 * init_snmp() is a no-op and the library's globals outlive any one
 * collector). No config files are read (snmp.conf could change
 * timeouts, MIB loading or the persistent directory behind our back),
 * no MIBs are loaded (every OID here is numeric), nothing persistent is
 * loaded or saved, and the persistent directory is one that cannot
 * exist: init_snmp() still creates <dir>/cert_indexes (with parents,
 * even as root), and nothing can be created under /dev/null.
 */
static pthread_once_t snmp_once = PTHREAD_ONCE_INIT;

static int snmp_log_cb(int major, int minor, void *server, void *client)
{
	(void)major;
	(void)minor;
	(void)client;
	const struct snmp_log_message *m = server;
	if (m && m->msg) {
		size_t n = strlen(m->msg);
		while (n && (m->msg[n - 1] == '\n' || m->msg[n - 1] == '\r'))
			n--;
		log_debug("snmp", "net-snmp: %.*s", (int)n, m->msg);
	}
	return 0;
}

static void snmp_init_once(void)
{
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_QUICK_PRINT, 1);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID,
			      NETSNMP_DS_LIB_PERSISTENT_DIR,
			      "/dev/null/fabmon-snmp");
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS,
			      "/nonexistent");
	/* The library's own messages (MIB modules it cannot find, socket
	 * errors) go to our log at debug, never to stderr. */
	snmp_disable_log();
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_DEBUG);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING,
			       snmp_log_cb, NULL);
	init_snmp("fabmon");
	/* 1,000 targets are 1,000 sockets: lift the soft limit. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Targets.
 */

static void set_down(struct starget *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_down(struct starget *t, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	health_target_set_up(t->health, false, why);
}

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

static void free_ifs(struct ifent *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].descr);
		free(v[i].alias);
		free(v[i].h);
	}
	free(v);
}

static void free_lldp_tmp(struct starget *t)
{
	for (size_t i = 0; i < t->nloc; i++) {
		free(t->loc[i].id);
		free(t->loc[i].desc);
	}
	free(t->loc);
	t->loc = NULL;
	t->nloc = 0;
	for (size_t i = 0; i < t->nrem; i++) {
		free(t->rem[i].portid);
		free(t->rem[i].portdesc);
		free(t->rem[i].sysname);
	}
	free(t->rem);
	t->rem = NULL;
	t->nrem = 0;
	free_ifs(t->nifs_tmp, t->n_tmp);
	t->nifs_tmp = NULL;
	t->n_tmp = 0;
}

static void snmp_lldp_free_one(struct snmp_lldp_neighbor *v)
{
	free(v->device);
	free(v->port);
	free(v->neighbor_device);
	free(v->neighbor_port);
	free(v->neighbor_port_desc);
}

static struct snmp_lldp_neighbor *lldp_dup(const struct snmp_lldp_neighbor *s,
					   size_t n)
{
	struct snmp_lldp_neighbor *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct snmp_lldp_neighbor){
			xstrdup(s[i].device),
			xstrdup(s[i].port),
			xstrdup(s[i].neighbor_device),
			xstrdup(s[i].neighbor_port),
			s[i].neighbor_port_subtype,
			xstrdup(s[i].neighbor_port_desc),
		};
	return v;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Hands the target's neighbours to the link table (the rule engine's
 * topology): each local port once (the first neighbour of a port wins;
 * the table keeps one per port), and forgets the ports reported before
 * that no longer have one. Neighbours without a system name or port ID
 * (hosts that send neither) cannot be placed and are left out.
 */
static void report_lldp(struct starget *t)
{
	struct links *l = t->p->links;
	if (!l)
		return;
	char **now = xcalloc(t->nnb ? t->nnb : 1, sizeof *now);
	size_t nnow = 0;
	for (size_t i = 0; i < t->nnb; i++) {
		const struct snmp_lldp_neighbor *n = &t->nb[i];
		bool dup = false;
		for (size_t j = 0; j < nnow && !dup; j++)
			dup = strcmp(now[j], n->port) == 0;
		if (dup || !*n->neighbor_device || !*n->neighbor_port)
			continue;
		if (links_report_lldp(
			l, t->name, n->port, n->neighbor_device,
			n->neighbor_port, n->neighbor_port_subtype,
			*n->neighbor_port_desc ? n->neighbor_port_desc : NULL,
			"snmp", 0) == 0)
			now[nnow++] = xstrdup(n->port);
	}
	for (size_t i = 0; i < t->n_rep; i++) {
		bool kept = false;
		for (size_t j = 0; j < nnow && !kept; j++)
			kept = strcmp(now[j], t->rep_ports[i]) == 0;
		if (!kept)
			links_forget_lldp(l, t->name, t->rep_ports[i]);
	}
	free_strv(t->rep_ports, t->n_rep);
	t->rep_ports = now;
	t->n_rep = nnow;
	t->lldp_reported = mono_ns();
}

void snmp_lldp_free(struct snmp_lldp_neighbor *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snmp_lldp_free_one(&v[i]);
	free(v);
}

/* Replaces the neighbours of device with nb[0..n) (taken over). */
static void lldp_replace(struct poller *p, const char *device,
			 struct snmp_lldp_neighbor *nb, size_t n)
{
	pthread_mutex_lock(&p->lldp_lock);
	size_t k = 0;
	for (size_t i = 0; i < p->nlldp; i++) {
		if (strcmp(p->lldp[i].device, device) == 0)
			snmp_lldp_free_one(&p->lldp[i]);
		else
			p->lldp[k++] = p->lldp[i];
	}
	p->lldp = xreallocarray(p->lldp, k + n + 1, sizeof *p->lldp);
	if (n)
		memcpy(&p->lldp[k], nb, n * sizeof *nb);
	p->nlldp = k + n;
	atomic_store(&p->lldp_count, p->nlldp);
	pthread_mutex_unlock(&p->lldp_lock);
	free(nb);
}

static void close_session(struct starget *t)
{
	if (!t->sess)
		return;
	epoll_ctl(t->p->ep, EPOLL_CTL_DEL, t->fd, NULL);
	snmp_sess_close(t->sess);
	t->sess = NULL;
	t->fd = -1;
	t->reqid = 0;
}

static void target_free(struct starget *t)
{
	if (!t)
		return;
	close_session(t);
	if (t->phase != PH_IDLE)
		t->p->inflight--;
	free_lldp_tmp(t);
	free_ifs(t->ifs, t->nifs);
	lldp_replace(t->p, t->name, NULL, 0);
	if (t->p->links)
		for (size_t i = 0; i < t->n_rep; i++)
			links_forget_lldp(t->p->links, t->name,
					  t->rep_ports[i]);
	free_strv(t->rep_ports, t->n_rep);
	snmp_lldp_free(t->nb, t->nnb);
	free(t->w);
	free(t->active);
	free(t->announced);
	free(t->prof_name);
	snmp_cfg_free(t->cfg);
	free(t->name);
	free(t);
}

static const struct ku *ku_get(enum cfg_snmp_auth auth, const char *pass,
			       char *err, size_t errlen)
{
	for (size_t i = 0; i < n_ku_cache; i++)
		if (ku_cache[i].auth == auth &&
		    strcmp(ku_cache[i].pass, pass) == 0)
			return &ku_cache[i];
	const oid *proto;
	size_t plen;
	switch (auth) {
	case CFG_SNMP_AUTH_SHA256:
		proto = usmHMAC192SHA256AuthProtocol;
		plen = OLEN(usmHMAC192SHA256AuthProtocol);
		break;
	case CFG_SNMP_AUTH_SHA512:
		proto = usmHMAC384SHA512AuthProtocol;
		plen = OLEN(usmHMAC384SHA512AuthProtocol);
		break;
	default:
		proto = usmHMACSHA1AuthProtocol;
		plen = OLEN(usmHMACSHA1AuthProtocol);
		break;
	}
	struct ku k = { .auth = auth };
	k.len = sizeof k.ku;
	if (generate_Ku(proto, (u_int)plen, (const u_char *)pass, strlen(pass),
			k.ku, &k.len) != SNMPERR_SUCCESS) {
		snprintf(err, errlen,
			 "cannot derive a key from the password (at least 8 "
			 "characters)");
		return NULL;
	}
	k.pass = xstrdup(pass);
	ku_cache = xreallocarray(ku_cache, n_ku_cache + 1, sizeof *ku_cache);
	ku_cache[n_ku_cache] = k;
	return &ku_cache[n_ku_cache++];
}

static int sess_cb(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu,
		   void *magic);

/* Opens the target's session (or its v3 discovery session). */
static int open_session(struct starget *t, bool discovery)
{
	netsnmp_session s;
	const struct cfg_snmp *c = t->cfg;
	snmp_sess_init(&s);
	s.peername = c->address;
	s.timeout = (long)(c->timeout_ns ? c->timeout_ns / 1000 : 1000000);
	s.retries = (int)c->retries;
	s.callback = sess_cb;
	s.callback_magic = t;
	if (c->version != 3) {
		s.version = SNMP_VERSION_2c;
		s.community =
		    (u_char *)(c->community ? c->community : "public");
		s.community_len = strlen((char *)s.community);
	} else {
		s.version = SNMP_VERSION_3;
		s.securityName = c->user;
		s.securityNameLen = strlen(c->user);
		s.securityModel = SNMP_SEC_MODEL_USM;
		if (discovery) {
			s.securityLevel = SNMP_SEC_LEVEL_NOAUTH;
		} else {
			s.securityEngineID = t->engine;
			s.securityEngineIDLen = t->engine_len;
			s.securityLevel = SNMP_SEC_LEVEL_NOAUTH;
			if (c->auth != CFG_SNMP_AUTH_NONE) {
				const struct ku *k =
				    ku_get(c->auth, c->auth_key, t->err,
					   sizeof t->err);
				if (!k)
					return -EINVAL;
				switch (c->auth) {
				case CFG_SNMP_AUTH_SHA256:
					s.securityAuthProto =
					    usmHMAC192SHA256AuthProtocol;
					s.securityAuthProtoLen =
					    OLEN(usmHMAC192SHA256AuthProtocol);
					break;
				case CFG_SNMP_AUTH_SHA512:
					s.securityAuthProto =
					    usmHMAC384SHA512AuthProtocol;
					s.securityAuthProtoLen =
					    OLEN(usmHMAC384SHA512AuthProtocol);
					break;
				default:
					s.securityAuthProto =
					    usmHMACSHA1AuthProtocol;
					s.securityAuthProtoLen =
					    OLEN(usmHMACSHA1AuthProtocol);
					break;
				}
				memcpy(s.securityAuthKey, k->ku, k->len);
				s.securityAuthKeyLen = k->len;
				s.securityLevel = SNMP_SEC_LEVEL_AUTHNOPRIV;
			}
			if (c->priv != CFG_SNMP_PRIV_NONE) {
				/* The privacy Ku uses the auth hash too. */
				const struct ku *k =
				    ku_get(c->auth, c->priv_key, t->err,
					   sizeof t->err);
				if (!k)
					return -EINVAL;
				if (c->priv == CFG_SNMP_PRIV_AES256) {
					s.securityPrivProto =
					    usmAES256PrivProtocol;
					s.securityPrivProtoLen =
					    OLEN(usmAES256PrivProtocol);
				} else {
					s.securityPrivProto =
					    usmAESPrivProtocol;
					s.securityPrivProtoLen =
					    OLEN(usmAESPrivProtocol);
				}
				size_t kl = k->len < sizeof s.securityPrivKey
						? k->len
						: sizeof s.securityPrivKey;
				memcpy(s.securityPrivKey, k->ku, kl);
				s.securityPrivKeyLen = kl;
				s.securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
			}
		}
	}
	t->sess = snmp_sess_open(&s);
	explicit_bzero(s.securityAuthKey, sizeof s.securityAuthKey);
	explicit_bzero(s.securityPrivKey, sizeof s.securityPrivKey);
	if (!t->sess) {
		char *msg = NULL;
		int cerr, serr;
		snmp_error(&s, &cerr, &serr, &msg);
		snprintf(t->err, sizeof t->err,
			 "cannot open a session to %s: %s", c->address,
			 msg ? msg : "unknown error");
		free(msg);
		return -EINVAL;
	}
	if (discovery)
		snmp_sess_session(t->sess)->flags |= SNMP_FLAGS_DONT_PROBE;
	netsnmp_transport *tr = snmp_sess_transport(t->sess);
	t->fd = tr ? tr->sock : -1;
	if (t->fd < 0) {
		snprintf(t->err, sizeof t->err, "%s: no socket", c->address);
		snmp_sess_close(t->sess);
		t->sess = NULL;
		return -EINVAL;
	}
	/* A stray wake-up must never block the loop in recvfrom. */
	int fl = fcntl(t->fd, F_GETFL);
	if (fl >= 0)
		fcntl(t->fd, F_SETFL, fl | O_NONBLOCK);
	if ((unsigned)t->fd >= t->p->lfds.lfs_setsize)
		netsnmp_large_fd_set_resize(&t->p->lfds, t->fd + 1);
	struct epoll_event ev = { .events = EPOLLIN };
	ev.data.u64 = ((uint64_t)t->slot << 32) | (uint32_t)t->fd;
	epoll_ctl(t->p->ep, EPOLL_CTL_ADD, t->fd, &ev);
	return 0;
}

/* The phase ended; the loop moves the target on. Idempotent. */
static void phase_end(struct starget *t, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void phase_end(struct starget *t, bool ok, const char *fmt, ...)
{
	if (t->result)
		return;
	t->reqid = 0;
	t->result = ok ? 1 : -1;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->err, sizeof t->err, fmt, ap);
		va_end(ap);
	}
}

/* Sends pdu; 0, or -1 with the phase ended as failed (pdu freed). */
static int send_pdu(struct starget *t, netsnmp_pdu *pdu)
{
	t->in_send = true;
	t->send_cb_op = 0;
	int id = snmp_sess_async_send(t->sess, pdu, sess_cb, t);
	t->in_send = false;
	if (id == 0) {
		snmp_free_pdu(pdu);
		int e = snmp_sess_session(t->sess)->s_snmp_errno;
		t->timed_out = t->send_cb_op == NETSNMP_CALLBACK_OP_TIMED_OUT;
		phase_end(t, false, "send failed: %s", snmp_api_errstring(e));
		return -1;
	}
	t->reqid = id;
	return 0;
}

/*
 * Walks.
 */

static void walk_add(struct starget *t, const oid *base, size_t len, int kind)
{
	t->w = xreallocarray(t->w, t->nw + 1, sizeof *t->w);
	struct wcol *c = &t->w[t->nw++];
	memset(c, 0, sizeof *c);
	c->base = base;
	c->base_len = len;
	memcpy(c->cur, base, len * sizeof *base);
	c->cur_len = len;
	c->kind = kind;
}

static void walk_reset(struct starget *t)
{
	t->nw = 0;
	t->pdus = 0;
	t->first_pdu = true;
}

/* Sends the next GETBULK of the walk: every unfinished column (at most
 * 256), plus the non-repeaters on a poll's first request. */
static int walk_send(struct starget *t)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK);
	long nonrep = 0;
	if (t->phase == PH_POLL && t->first_pdu) {
		snmp_add_null_var(pdu, OID_SYSUPTIME, OLEN(OID_SYSUPTIME));
		snmp_add_null_var(pdu, OID_IFNUMBER, OLEN(OID_IFNUMBER));
		nonrep = 2;
	}
	t->nsent = 0;
	for (size_t i = 0; i < t->nw && t->nsent < OLEN(t->sent); i++) {
		if (t->w[i].done)
			continue;
		snmp_add_null_var(pdu, t->w[i].cur, t->w[i].cur_len);
		t->sent[t->nsent++] = (int)i;
	}
	unsigned rep = t->max_rep;
	/* net-snmp agents answer at most ~100 varbinds per GETBULK. */
	if (t->nsent && rep * t->nsent > 100 && rep > 1) {
		rep = 100 / (unsigned)t->nsent;
		if (rep < 1)
			rep = 1;
		if (rep > t->max_rep)
			rep = t->max_rep;
	}
	pdu->errstat = nonrep;	   /* non-repeaters */
	pdu->errindex = (long)rep; /* max-repetitions */
	t->nonrep_sent = (size_t)nonrep;
	return send_pdu(t, pdu);
}

/*
 * A label from an OCTET STRING: printable ASCII as is (trailing NULs
 * dropped), anything else, such as a MAC address sent as 6 raw bytes
 * (LLDP port and chassis IDs), as colon-separated hex.
 */
static char *vb_string(const struct snmp_vb_value *v)
{
	size_t n = v->len > LABEL_MAX ? LABEL_MAX : v->len;
	while (n && v->str[n - 1] == 0)
		n--;
	bool printable = true;
	for (size_t i = 0; i < n && printable; i++)
		printable = v->str[i] >= 0x20 && v->str[i] < 0x7f;
	if (printable)
		return xstrndup((const char *)v->str, n);
	if (n > LABEL_MAX / 3)
		n = LABEL_MAX / 3;
	char *s = xmalloc(3 * n + 1);
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			snprintf(s + 3 * i - 1, 4, ":%02x", v->str[i]);
		else
			snprintf(s, 3, "%02x", v->str[i]);
	}
	return s;
}

static struct ifent *find_if(struct ifent *v, size_t n, uint32_t ifindex)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].ifindex < ifindex)
			lo = mid + 1;
		else if (v[mid].ifindex > ifindex)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

static struct ifent *tmp_if(struct starget *t, uint32_t ifindex)
{
	struct ifent *e = find_if(t->nifs_tmp, t->n_tmp, ifindex);
	if (e)
		return e;
	size_t pos = t->n_tmp;
	while (pos && t->nifs_tmp[pos - 1].ifindex > ifindex)
		pos--;
	t->nifs_tmp =
	    xreallocarray(t->nifs_tmp, t->n_tmp + 1, sizeof *t->nifs_tmp);
	memmove(&t->nifs_tmp[pos + 1], &t->nifs_tmp[pos],
		(t->n_tmp - pos) * sizeof *t->nifs_tmp);
	t->n_tmp++;
	e = &t->nifs_tmp[pos];
	memset(e, 0, sizeof *e);
	e->ifindex = ifindex;
	return e;
}

static struct lldp_rem *rem_row(struct starget *t, const oid *sub, size_t n)
{
	/* timeMark.localPortNum.remIndex */
	if (n != 3 || sub[1] > UINT32_MAX || sub[2] > UINT32_MAX)
		return NULL;
	for (size_t i = t->nrem; i-- > 0;)
		if (t->rem[i].locnum == sub[1] && t->rem[i].remidx == sub[2])
			return &t->rem[i];
	t->rem = xreallocarray(t->rem, t->nrem + 1, sizeof *t->rem);
	struct lldp_rem *r = &t->rem[t->nrem++];
	memset(r, 0, sizeof *r);
	r->locnum = (uint32_t)sub[1];
	r->remidx = (uint32_t)sub[2];
	return r;
}

static void index_value(struct starget *t, const struct wcol *c,
			const netsnmp_variable_list *vb,
			const struct snmp_vb_value *v)
{
	const oid *sub = vb->name + c->base_len;
	size_t n = vb->name_length - c->base_len;
	if (c->kind == W_REM_PORTSUB) {
		struct lldp_rem *r = rem_row(t, sub, n);
		if (r && v->kind == SNMP_VB_INTEGER && v->i > 0 && v->i < 256)
			r->subtype = (int)v->i;
		return;
	}
	if (v->kind != SNMP_VB_STRING)
		return;
	switch (c->kind) {
	case W_IFNAME:
	case W_IFDESCR:
	case W_IFALIAS: {
		if (n != 1 || sub[0] == 0 || sub[0] > UINT32_MAX)
			return;
		struct ifent *e = tmp_if(t, (uint32_t)sub[0]);
		char **dst = c->kind == W_IFNAME    ? &e->name
			     : c->kind == W_IFDESCR ? &e->descr
						    : &e->alias;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	case W_LOC_PORTID:
	case W_LOC_PORTDESC: {
		if (n != 1 || sub[0] > UINT32_MAX)
			return;
		struct lldp_loc *l = NULL;
		for (size_t i = t->nloc; i-- > 0 && !l;)
			if (t->loc[i].num == sub[0])
				l = &t->loc[i];
		if (!l) {
			t->loc =
			    xreallocarray(t->loc, t->nloc + 1, sizeof *t->loc);
			l = &t->loc[t->nloc++];
			memset(l, 0, sizeof *l);
			l->num = (uint32_t)sub[0];
		}
		char **dst = c->kind == W_LOC_PORTID ? &l->id : &l->desc;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	case W_REM_PORTID:
	case W_REM_PORTDESC:
	case W_REM_SYSNAME: {
		struct lldp_rem *r = rem_row(t, sub, n);
		if (!r)
			return;
		char **dst = c->kind == W_REM_PORTID	 ? &r->portid
			     : c->kind == W_REM_PORTDESC ? &r->portdesc
							 : &r->sysname;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	default:
		return;
	}
}

static store_handle resolve(struct starget *t, struct ifent *e, size_t col,
			    int prio, uint8_t width)
{
	const struct snmp_column *c = &t->prof->cols[col];
	const struct fm_counter_info *ci = fm_counter_info(c->counter);
	struct store_key key = {
		.device = t->device,
		.port = e->port,
		.sub = prio >= 0 ? (uint32_t)prio : 0,
		.counter = (uint16_t)c->counter,
	};
	struct store_series_spec spec = {
		.owner = t->owner,
		.width = ci->kind == FM_KIND_COUNTER ? width : 0,
		.scale = c->scale,
		.max_rate = c->max_rate,
		.interval_ms = (uint32_t)(t->every_ns / NS_PER_MS),
	};
	return store_series(t->p->store, &key, &spec);
}

static void mark_port_discontinuity(struct starget *t, struct ifent *e)
{
	if (!e->h)
		return;
	for (size_t i = 0; i < t->prof->n_cols * 8; i++)
		if (e->h[i] && e->h[i] != REFUSED)
			store_mark_discontinuity(t->p->store, e->h[i]);
}

static void poll_value(struct starget *t, struct wcol *c,
		       const netsnmp_variable_list *vb,
		       const struct snmp_vb_value *v)
{
	if (c->kind == W_DISC) {
		if (vb->name_length != c->base_len + 1 ||
		    v->kind != SNMP_VB_TIMETICKS)
			return;
		struct ifent *e =
		    find_if(t->ifs, t->nifs, (uint32_t)vb->name[c->base_len]);
		if (!e)
			return;
		uint32_t d = (uint32_t)v->u;
		if (e->have_disc && d != e->disc) {
			log_debug("snmp",
				  "%s: %s: ifCounterDiscontinuityTime changed "
				  "(%u -> %u): no rate from this sample",
				  t->name,
				  store_label_str(t->p->store, e->port),
				  e->disc, d);
			mark_port_discontinuity(t, e);
		}
		e->disc = d;
		e->have_disc = true;
		return;
	}
	const struct snmp_column *col = &t->prof->cols[c->kind];
	struct snmp_vb_row row;
	if (snmp_vb_row(col->oid, col->oid_len, vb->name, vb->name_length,
			&col->index, &row)) {
		t->rejected++;
		return;
	}
	struct ifent *e = find_if(t->ifs, t->nifs, row.ifindex);
	if (!e) {
		/* A new interface: pick it up at the next index walk. */
		t->need_index = true;
		if (!t->unknown_if_logged) {
			t->unknown_if_logged = true;
			log_info("snmp",
				 "%s: ifIndex %u is not in the index table; "
				 "refreshing it",
				 t->name, row.ifindex);
		}
		return;
	}
	struct snmp_vb_map map = { col->map_from, col->map_to, col->n_map };
	struct snmp_vb_sample s;
	if (snmp_vb_sample(v, col->kind, &map, &s)) {
		t->rejected++;
		return;
	}
	if (!e->h)
		e->h = xcalloc(t->prof->n_cols * 8, sizeof *e->h);
	size_t slot =
	    (size_t)c->kind * 8 + (size_t)(row.priority > 0 ? row.priority : 0);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!e->h[slot])
			e->h[slot] =
			    resolve(t, e, (size_t)c->kind, row.priority,
				    s.width ? s.width : 64);
		if (!e->h[slot]) {
			/* Refused: most often another collector (gNMI)
			 * writes this series. Counted once; the next index
			 * walk tries again. */
			e->h[slot] = REFUSED;
			t->rejected++;
			return;
		}
		if (e->h[slot] == REFUSED)
			return;
		int rc =
		    col->kind == SNMP_SAMPLE_GAUGE
			? store_set_gauge(t->p->store, e->h[slot], s.gauge, 0)
			: store_update(t->p->store, e->h[slot], s.raw, 0);
		if (rc == -ESTALE) {
			e->h[slot] = 0;
			continue;
		}
		if (rc == 0)
			t->values++;
		else
			t->rejected++;
		return;
	}
}

static void poll_nonrep(struct starget *t, const netsnmp_variable_list *vb)
{
	struct snmp_vb_value v;
	if (snmp_vb_decode(vb, &v))
		return;
	if (snmp_oid_compare(vb->name, vb->name_length, OID_SYSUPTIME0,
			     OLEN(OID_SYSUPTIME0)) == 0 &&
	    v.kind == SNMP_VB_TIMETICKS) {
		uint32_t up = (uint32_t)v.u;
		if (t->uptime_known && up < t->uptime) {
			log_info("snmp",
				 "%s: sysUpTime went back (%u -> %u "
				 "centiseconds): the agent restarted; no rates "
				 "from this poll, index tables refreshed",
				 t->name, t->uptime, up);
			store_mark_owner_discontinuity(t->p->store, t->owner);
			t->need_index = true;
		}
		t->uptime = up;
		t->uptime_known = true;
	} else if (snmp_oid_compare(vb->name, vb->name_length, OID_IFNUMBER0,
				    OLEN(OID_IFNUMBER0)) == 0 &&
		   v.kind == SNMP_VB_INTEGER) {
		uint32_t n = (uint32_t)v.u;
		if (t->ifnumber_known && n != t->ifnumber) {
			log_info("snmp",
				 "%s: ifNumber changed (%u -> %u): refreshing "
				 "the index tables",
				 t->name, t->ifnumber, n);
			t->need_index = true;
		}
		t->ifnumber = n;
		t->ifnumber_known = true;
	}
}

/* One response of a walk. */
static void walk_response(struct starget *t, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *vb = pdu->variables;
	if (t->phase == PH_POLL && t->first_pdu) {
		for (size_t i = 0; i < t->nonrep_sent && vb; i++) {
			poll_nonrep(t, vb);
			vb = vb->next_variable;
		}
	}
	t->first_pdu = false;
	size_t i = 0;
	bool any = false;
	for (; vb && t->nsent; vb = vb->next_variable, i++) {
		struct wcol *c = &t->w[t->sent[i % t->nsent]];
		if (c->done)
			continue;
		any = true;
		struct snmp_vb_value v;
		if (snmp_vb_decode(vb, &v)) {
			t->rejected++;
			c->done = true;
			continue;
		}
		if (snmp_vb_is_exception(v.kind) ||
		    snmp_oidtree_compare(c->base, c->base_len, vb->name,
					 vb->name_length) != 0 ||
		    snmp_oid_compare(vb->name, vb->name_length, c->cur,
				     c->cur_len) <= 0 ||
		    vb->name_length > MAX_OID_LEN) {
			c->done = true;
			continue;
		}
		memcpy(c->cur, vb->name, vb->name_length * sizeof(oid));
		c->cur_len = vb->name_length;
		c->rows++;
		if (t->phase == PH_INDEX)
			index_value(t, c, vb, &v);
		else
			poll_value(t, c, vb, &v);
	}
	if (!any) {
		/* An empty answer: nothing more will come. */
		for (size_t j = 0; j < t->nw; j++)
			t->w[j].done = true;
	}
	bool more = false;
	for (size_t j = 0; j < t->nw; j++)
		more |= !t->w[j].done;
	if (!more) {
		phase_end(t, true, NULL);
		return;
	}
	if (++t->pdus > MAX_PDUS_PER_WALK) {
		phase_end(t, false, "walk did not end after %d requests",
			  MAX_PDUS_PER_WALK);
		return;
	}
	walk_send(t);
}

static void ident_response(struct starget *t, netsnmp_pdu *pdu)
{
	for (netsnmp_variable_list *vb = pdu->variables; vb;
	     vb = vb->next_variable) {
		if (snmp_oid_compare(vb->name, vb->name_length,
				     OID_SYSOBJECTID0,
				     OLEN(OID_SYSOBJECTID0)) == 0 &&
		    vb->type == ASN_OBJECT_ID && vb->val.objid &&
		    vb->val_len / sizeof(oid) <= MAX_OID_LEN) {
			t->sysoid_len = vb->val_len / sizeof(oid);
			memcpy(t->sysoid, vb->val.objid, vb->val_len);
		} else {
			poll_nonrep(t, vb);
		}
	}
	phase_end(t, true, NULL);
}

static int sess_cb(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu,
		   void *magic)
{
	(void)sp;
	struct starget *t = magic;
	if (t->in_send) {
		/* Called from inside a failing snmp_sess_async_send. */
		t->send_cb_op = op;
		return 1;
	}
	if (!t->reqid || t->result)
		return 1;
	bool report = op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && pdu &&
		      pdu->command == SNMP_MSG_REPORT;
	if (t->phase == PH_DISCOVER &&
	    (report || op == NETSNMP_CALLBACK_OP_SEC_ERROR) && pdu &&
	    pdu->securityEngineIDLen > 0) {
		/* The engine answered: its ID is all we wanted. */
		size_t n = pdu->securityEngineIDLen;
		if (n > sizeof t->engine)
			n = sizeof t->engine;
		memcpy(t->engine, pdu->securityEngineID, n);
		t->engine_len = n;
		phase_end(t, true, NULL);
		return 1;
	}
	/* The library re-sends by itself after notInTimeWindow. */
	if (report && snmpv3_get_report_type(pdu) == SNMPERR_NOT_IN_TIME_WINDOW)
		return 1;
	if ((report || op == NETSNMP_CALLBACK_OP_SEC_ERROR) &&
	    (reqid == t->reqid || reqid == 0)) {
		const char *what =
		    pdu ? snmp_api_errstring(snmpv3_get_report_type(pdu))
			: "security error";
		phase_end(t, false, "SNMPv3: %s", what);
		return 1;
	}
	if (reqid != t->reqid)
		return 1;
	switch (op) {
	case NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE:
		atomic_fetch_add(&t->p->pdus, 1);
		if (pdu->errstat == SNMP_ERR_TOOBIG && t->max_rep > 1) {
			t->max_rep /= 2;
			if (t->phase == PH_INDEX || t->phase == PH_POLL)
				walk_send(t);
			else
				phase_end(t, false, "answer too big");
			return 1;
		}
		if (pdu->errstat != SNMP_ERR_NOERROR) {
			phase_end(t, false, "agent error: %s (index %ld)",
				  snmp_errstring((int)pdu->errstat),
				  pdu->errindex);
			return 1;
		}
		if (t->phase == PH_IDENT)
			ident_response(t, pdu);
		else if (t->phase == PH_INDEX || t->phase == PH_POLL)
			walk_response(t, pdu);
		else
			phase_end(t, false, "unexpected answer");
		return 1;
	case NETSNMP_CALLBACK_OP_TIMED_OUT:
		t->timed_out = true;
		phase_end(t, false, "no answer (timeout %.3gs x %u tries)",
			  (double)(t->cfg->timeout_ns ? t->cfg->timeout_ns
						      : NS_PER_S) /
			      1e9,
			  t->cfg->retries + 1);
		return 1;
	case NETSNMP_CALLBACK_OP_SEND_FAILED:
		phase_end(t, false, "send failed");
		return 1;
	default: /* RESEND and the rest: informational */
		return 1;
	}
}

/*
 * Phases.
 */

static void start_discover(struct starget *t)
{
	t->phase = PH_DISCOVER;
	if (open_session(t, true)) {
		phase_end(t, false, NULL);
		return;
	}
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	pdu->securityName = xstrdup("");
	pdu->securityNameLen = 0;
	pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	pdu->securityModel = SNMP_SEC_MODEL_USM;
	send_pdu(t, pdu);
}

static void start_ident(struct starget *t)
{
	t->phase = PH_IDENT;
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	snmp_add_null_var(pdu, OID_SYSOBJECTID0, OLEN(OID_SYSOBJECTID0));
	snmp_add_null_var(pdu, OID_SYSUPTIME0, OLEN(OID_SYSUPTIME0));
	snmp_add_null_var(pdu, OID_IFNUMBER0, OLEN(OID_IFNUMBER0));
	send_pdu(t, pdu);
}

static void start_index(struct starget *t)
{
	t->phase = PH_INDEX;
	free_lldp_tmp(t);
	walk_reset(t);
	walk_add(t, OID_IFNAME, OLEN(OID_IFNAME), W_IFNAME);
	walk_add(t, OID_IFDESCR, OLEN(OID_IFDESCR), W_IFDESCR);
	walk_add(t, OID_IFALIAS, OLEN(OID_IFALIAS), W_IFALIAS);
	walk_add(t, OID_LOC_PORTID, OLEN(OID_LOC_PORTID), W_LOC_PORTID);
	walk_add(t, OID_LOC_PORTDESC, OLEN(OID_LOC_PORTDESC), W_LOC_PORTDESC);
	walk_add(t, OID_REM_PORTID, OLEN(OID_REM_PORTID), W_REM_PORTID);
	walk_add(t, OID_REM_PORTDESC, OLEN(OID_REM_PORTDESC), W_REM_PORTDESC);
	walk_add(t, OID_REM_SYSNAME, OLEN(OID_REM_SYSNAME), W_REM_SYSNAME);
	walk_add(t, OID_REM_PORTSUB, OLEN(OID_REM_PORTSUB), W_REM_PORTSUB);
	walk_send(t);
}

static void start_poll(struct starget *t)
{
	t->phase = PH_POLL;
	t->values = 0;
	t->rejected = 0;
	walk_reset(t);
	walk_add(t, OID_DISC, OLEN(OID_DISC), W_DISC);
	for (size_t i = 0; i < t->prof->n_cols; i++)
		if (t->active[i])
			walk_add(t, t->prof->cols[i].oid,
				 t->prof->cols[i].oid_len, (int)i);
	walk_send(t);
}

static const char *port_of(struct starget *t, uint32_t locnum)
{
	const struct lldp_loc *l = NULL;
	for (size_t i = 0; i < t->nloc && !l; i++)
		if (t->loc[i].num == locnum)
			l = &t->loc[i];
	/* lldpRemLocalPortNum is an LldpPortNumber, often the ifIndex but
	 * not always: prefer a local port ID or description that names
	 * one of our interfaces. */
	if (l) {
		for (size_t i = 0; i < t->nifs; i++) {
			const char *n =
			    store_label_str(t->p->store, t->ifs[i].port);
			if ((l->id && strcmp(l->id, n) == 0) ||
			    (l->desc && strcmp(l->desc, n) == 0))
				return n;
		}
	}
	struct ifent *e = find_if(t->ifs, t->nifs, locnum);
	if (e)
		return store_label_str(t->p->store, e->port);
	if (l && l->id && *l->id)
		return l->id;
	return NULL;
}

/* The index walk finished: swap in the new interface table and LLDP. */
static void index_done(struct starget *t)
{
	char buf[32];
	free_ifs(t->ifs, t->nifs);
	t->ifs = t->nifs_tmp;
	t->nifs = t->n_tmp;
	t->nifs_tmp = NULL;
	t->n_tmp = 0;
	for (size_t i = 0; i < t->nifs; i++) {
		struct ifent *e = &t->ifs[i];
		const char *n = e->name && *e->name	? e->name
				: e->descr && *e->descr ? e->descr
							: NULL;
		if (!n) {
			snprintf(buf, sizeof buf, "ifIndex%u", e->ifindex);
			n = buf;
		}
		e->port = store_intern(t->p->store, n);
	}
	struct snmp_lldp_neighbor *nb =
	    xcalloc(t->nrem ? t->nrem : 1, sizeof *nb);
	size_t nn = 0;
	for (size_t i = 0; i < t->nrem; i++) {
		const struct lldp_rem *r = &t->rem[i];
		const char *lp = port_of(t, r->locnum);
		const char *rp =
		    r->portid && *r->portid ? r->portid : r->portdesc;
		if (!lp) {
			snprintf(buf, sizeof buf, "lldpPort%u", r->locnum);
			lp = buf;
		}
		nb[nn++] = (struct snmp_lldp_neighbor){
			.device = xstrdup(t->name),
			.port = xstrdup(lp),
			.neighbor_device =
			    xstrdup(r->sysname ? r->sysname : ""),
			.neighbor_port = xstrdup(rp ? rp : ""),
			.neighbor_port_subtype = r->subtype,
			.neighbor_port_desc =
			    xstrdup(r->portdesc ? r->portdesc : ""),
		};
	}
	snmp_lldp_free(t->nb, t->nnb);
	t->nb = nb;
	t->nnb = nn;
	lldp_replace(t->p, t->name, lldp_dup(nb, nn), nn);
	report_lldp(t);
	free_lldp_tmp(t);
	log_info("snmp", "%s: %zu interfaces, %zu LLDP neighbours (profile %s)",
		 t->name, t->nifs, nn, t->prof->name);
	t->need_index = false;
	t->unknown_if_logged = false;
	t->fallback_checked = false;
	for (size_t i = 0; i < t->prof->n_cols; i++) {
		t->active[i] = t->prof->cols[i].fallback_for < 0;
		t->announced[i] = false;
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
		if (col->fallback_for >= 0 && c->rows &&
		    !t->announced[c->kind]) {
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
		if (t->fallback_checked || c->rows)
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
		t->active = xcalloc(pr->n_cols, sizeof *t->active);
		t->announced = xcalloc(pr->n_cols, sizeof *t->announced);
		for (size_t i = 0; i < pr->n_cols; i++)
			t->active[i] = pr->cols[i].fallback_for < 0;
		free_ifs(t->ifs, t->nifs);
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
	if (!t->sess && open_session(t, false)) {
		t->phase = PH_IDENT;
		phase_end(t, false, NULL);
		return;
	}
	if (t->need_ident)
		start_ident(t);
	else if (t->need_index)
		start_index(t);
	else
		start_poll(t);
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
		health_target_set_up(t->health, true, NULL);
		log_complain_clear(&t->complaint, "snmp", "%s: polling again",
				   t->name);
		/* Within the link table's TTL (120 s). */
		if (now - t->lldp_reported >= LLDP_REPORT_NS)
			report_lldp(t);
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
			close_session(t);
			t->engine_len = 0;
			t->v3_timeouts = 0;
		}
	}
	if (ph == PH_DISCOVER)
		close_session(t);
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
	set_down(t, "%s: %s (retrying in %.0fs)", phase_names[ph], t->err,
		 (double)wait / 1e9);
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
			close_session(t);
			log_debug("snmp", "%s: engine discovered", t->name);
			if (open_session(t, false)) {
				t->phase = PH_IDENT;
				phase_end(t, false, NULL);
				continue;
			}
			if (t->need_ident)
				start_ident(t);
			else if (t->need_index)
				start_index(t);
			else
				start_poll(t);
			break;
		case PH_IDENT:
			t->need_ident = false;
			if (!choose_profile(t)) {
				t->need_ident = true;
				t->phase = PH_IDENT;
				phase_end(t, false, NULL);
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
		set_down(t, "SNMPv3 needs a user");
	} else {
		set_down(t, "polling");
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
	pthread_once(&snmp_once, snmp_init_once);
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

size_t snmp_poller_lldp(void *state, struct snmp_lldp_neighbor **out)
{
	struct poller *p = state;
	pthread_mutex_lock(&p->lldp_lock);
	size_t n = p->nlldp;
	struct snmp_lldp_neighbor *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const struct snmp_lldp_neighbor *s = &p->lldp[i];
		v[i] = (struct snmp_lldp_neighbor){
			xstrdup(s->device),
			xstrdup(s->port),
			xstrdup(s->neighbor_device),
			xstrdup(s->neighbor_port),
			s->neighbor_port_subtype,
			xstrdup(s->neighbor_port_desc),
		};
	}
	pthread_mutex_unlock(&p->lldp_lock);
	*out = v;
	return n;
}

const struct collector_ops snmp_collector_ops = {
	.name = "snmp",
	.cfg = &snmp_cfg_section,
	.start = snmp_start,
	.reload = snmp_reload,
	.stop = snmp_stop,
};
