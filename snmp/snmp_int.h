/*
 * snmp_int: internal to the SNMP collector (snmp/); not an API. The
 * state of a poller and its targets, and the functions its pieces share:
 *
 *   snmp_poller.c   targets, phases and cycles, config, the loop thread
 *   snmp_session.c  net-snmp set-up, sessions and their callback
 *   snmp_walk.c     GETBULK walks, the index tables, samples to the store
 *   snmp_renum.c    a poll's samples held to its end, renumbering checks
 *   snmp_lldp.c     LLDP-MIB neighbours: the poller's copy, the link table
 *   snmp_keys.c     the SNMPv3 key cache (snmp_keys.h)
 *
 * Threads: everything declared here runs on the poller's loop thread
 * (see snmp_poller.h), except what says otherwise on the struct fields
 * (the LLDP copy under lldp_lock, the atomic totals).
 */
#ifndef FABMON_SNMP_INT_H
#define FABMON_SNMP_INT_H

#include "snmp_poller.h"

#include "cfg.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "snmp_cfg.h"
#include "snmp_keys.h"
#include "snmp_profile.h"
#include "store.h"
#include "units.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* net-snmp names the GETBULK fields of a PDU with macros over errstat
 * and errindex; struct cfg_snmp has a max_repetitions field of its own. */
#undef max_repetitions
#undef non_repeaters

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

/* The OIDs the collector asks for itself; static, as each piece uses a
 * few (the compiler drops the copies a file does not use). */
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

struct wcol {
	const oid *base;
	size_t base_len;
	oid cur[MAX_OID_LEN];
	size_t cur_len;
	int kind; /* >= 0: profile column; < 0: enum wkind */
	bool done;
	uint32_t rows;
	uint32_t bad_type; /* of the rows, values of the wrong width */
};

/* A poll's sample, held until the walk ends (snmp_renum.c). */
struct pend {
	int64_t ts_ns; /* arrival of its response (CLOCK_REALTIME) */
	uint64_t raw;  /* counter; W_DISC: the TimeTicks */
	double gauge;
	uint32_t ifindex;
	int col; /* profile column, or W_DISC */
	int8_t prio;
	uint8_t width;
};

/* An interface name as the poll saw it. */
struct seen_if {
	uint32_t ifindex;
	char *name;
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
	uint64_t bad_type; /* values of the wrong width (HC columns) */
	int64_t pdu_ts;	   /* arrival of the response being read */
	/* The poll's samples and names until the walk ends. */
	struct pend *pend;
	size_t npend, pend_cap;
	struct seen_if *seen;
	size_t nseen, seen_cap;
	/* The column the port labels come from, walked by each poll to
	 * catch a renumbering: W_IFNAME, W_IFDESCR, or 0 for none. */
	int name_col;

	/* Profile and state. */
	const struct snmp_profile *prof;
	char *prof_name;   /* configured, or NULL */
	bool *active;	   /* per column: walked (fallbacks start off) */
	bool *announced;   /* per column: fallback in use was logged */
	bool *type_logged; /* per column: a value of the wrong width */
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
	struct links *links;	/* NULL: LLDP is only kept here */
	struct snmp_keys *keys; /* the loop thread's SNMPv3 Ku cache */
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

/* snmp_session.c */

/* Initialises net-snmp once per process (see snmp_session.c). */
void snmp_lib_init(void);
/* Opens the target's session (or its v3 discovery session) and adds
 * its socket to the loop. 0, or -EINVAL with t->err set. */
int snmp_target_open(struct starget *t, bool discovery);
/* Closes the target's session, if any. */
void snmp_target_close(struct starget *t);
/* The phase ended; the loop moves the target on. Idempotent. */
void snmp_phase_end(struct starget *t, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Sends pdu; 0, or -1 with the phase ended as failed (pdu freed). */
int snmp_send_pdu(struct starget *t, netsnmp_pdu *pdu);

/* snmp_walk.c */

void snmp_walk_add(struct starget *t, const oid *base, size_t len, int kind);
void snmp_walk_reset(struct starget *t);
/* Sends the next GETBULK of the walk (see snmp_walk.c). */
int snmp_walk_send(struct starget *t);
/* One response of a walk (index or poll phase). */
void snmp_walk_response(struct starget *t, netsnmp_pdu *pdu);
/* The response of the identification GET. */
void snmp_ident_response(struct starget *t, netsnmp_pdu *pdu);
void snmp_ifs_free(struct ifent *v, size_t n);
/* Frees the index walk's tables not yet swapped in. */
void snmp_index_tmp_free(struct starget *t);
/* The entry of ifindex in v (sorted by ifindex), or NULL. */
struct ifent *snmp_find_if(struct ifent *v, size_t n, uint32_t ifindex);

/* Marks every series of e's port as a discontinuity. */
void snmp_mark_port_discontinuity(struct starget *t, struct ifent *e);
/* Writes one held sample to the store under the interface table. */
void snmp_pend_write(struct starget *t, const struct pend *p);

/* snmp_renum.c */

/* A new held sample (zeroed but for its time), owned by t. */
struct pend *snmp_pend_add(struct starget *t);
/* Records the name the poll saw at ifindex; takes name. */
void snmp_seen_add(struct starget *t, uint32_t ifindex, char *name);
/* Forgets the held samples and names (a poll that failed). */
void snmp_pend_clear(struct starget *t);
/* Frees them at the end of the target. */
void snmp_pend_free(struct starget *t);
/* The name e is known by in the name column (ifName or ifDescr). */
const char *snmp_if_label_src(const struct starget *t, const struct ifent *e);
/* The poll's walk ended: checks the names for a renumbering, then
 * writes the held samples (see snmp_renum.c). */
void snmp_poll_apply(struct starget *t);

/* snmp_lldp.c */

/* Hands the target's neighbours to the link table (see snmp_lldp.c). */
void snmp_lldp_report(struct starget *t);
/* Builds the target's neighbours from the index walk; their count. */
size_t snmp_lldp_index_done(struct starget *t);
/* Forgets the target's neighbours everywhere. */
void snmp_lldp_target_free(struct starget *t);

#endif
