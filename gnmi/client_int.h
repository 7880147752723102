/*
 * gnmi_client internal: what the pieces of the gNMI collector share
 * (client.c: a target's calls; client_target.c: building a target and
 * its requests; client_thread.c: threads, mailboxes, collector ops).
 * Internal to gnmi/client*.c; nothing else may include it. A target is
 * touched by its thread only once handed over (see client.c).
 */
#ifndef FABMON_GNMI_CLIENT_INT_H
#define FABMON_GNMI_CLIENT_INT_H

#include "cfg.h"
#include "clock.h"
#include "gnmi_cfg.h"
#include "log.h"
#include "path.h"
#include "units.h"

#include <grpc/grpc.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WAKE_MAX_NS	    (100 * NS_PER_MS) /* mailbox and stop latency */
#define BACKOFF_MIN_NS	    (1 * NS_PER_S)
#define BACKOFF_MAX_NS	    (60 * NS_PER_S)
#define FATAL_RETRY_NS	    (300 * NS_PER_S) /* 5 min, jittered up to 10 */
#define CAPS_DEADLINE_MS    10000
#define CONNECT_CAP_WAIT_NS (100 * NS_PER_MS)
#define PEM_MAX_BYTES	    GNMI_PEM_MAX_BYTES
#define KEEPALIVE_MS	    300000 /* targets' default ping policy allows it */
/* A stream is healthy once it has delivered for max(STABLE_MIN_NS, its
 * watchdog period); only then does a reconnect start over from the
 * shortest backoff (see client.c, "Backoff"). */
#define STABLE_MIN_NS (10 * NS_PER_S)
/* Objects streams: a change of the object set is served once the map
 * has been quiet OBJ_QUIET_NS, at least OBJ_MIN_GAP_NS after the last
 * Subscribe, and at most OBJ_MAX_DELAY_NS after the first change. */
#define OBJ_QUIET_NS	 (1 * NS_PER_S)
#define OBJ_MIN_GAP_NS	 (5 * NS_PER_S)
#define OBJ_MAX_DELAY_NS (30 * NS_PER_S)

enum op {
	OP_CAPS,    /* the whole Capabilities call */
	OP_SEND,    /* initial metadata + request, or a Poll */
	OP_RECV_MD, /* initial metadata */
	OP_STATUS,  /* status on client */
	OP_RECV,    /* one message */
	OP__COUNT
};

struct tag {
	struct gtarget *t;
	enum op op;
};

enum gstate {
	GS_IDLE,   /* nothing in flight; t_action says when to connect */
	GS_CAPS,   /* Capabilities in flight */
	GS_STREAM, /* Subscribe in flight */
	GS_WAIT,   /* waiting for t_action (backoff, next ONCE) */
	GS_FAILED, /* cannot run (bad profile, unreadable TLS file) */
};

struct gsub {
	struct gnmi_path path;
	enum cfg_sub_mode mode;
	uint64_t sample_ns;
	uint64_t heartbeat_ns;
	bool suppress_redundant;
};

struct gthread;
struct gnmi_col;

struct gtarget {
	struct gtarget *next; /* in the thread's list */
	/* The switch's next helper stream: its subscriptions with another
	 * prefix target (sonic-gnmi serves one database per Subscribe).
	 * A helper runs as a target of its own on the same thread, for
	 * the same device, without a health entry (its failures are
	 * logged: a helper that cannot subscribe does not make the
	 * switch down). Started and stopped with the main one. */
	struct gtarget *companion;
	struct gthread *th;
	struct gnmi_col *col;
	char *name;
	struct cfg_gnmi *cfg;
	struct health_target *health;
	struct gnmi_profile *profile;
	struct gnmi_mapper *mapper;
	struct gnmi_lldp *lldp; /* its LLDP neighbours; NULL: no table */
	/* The switch's name maps (gnmi/objmap.h), shared by its streams,
	 * a reference each; NULL if the profile has none. seen_set_gen:
	 * the object set this stream last told the objects streams of. */
	struct gnmi_objmap *objmap;
	uint64_t seen_set_gen;
	/* An objects stream (client_objects.c): it subscribes to the
	 * objects of name map obj_map, one path each, and subscribes
	 * again when their set changes (debounced). */
	bool is_objects;
	bool resubscribing; /* its call is cancelled to resubscribe */
	size_t obj_map;
	uint64_t obj_set_gen;	  /* the set its subscription lists */
	int64_t obj_pending_ns;	  /* first unserved change, 0: none */
	int64_t obj_last_sub_ns;  /* when it last subscribed */
	struct gnmi_arena *arena; /* for the Capabilities answer */
	char *prefix_target;	  /* "" if none */
	struct gsub *subs;
	size_t n_subs;
	int64_t watchdog_ns; /* 0: no watchdog */
	int64_t every_ns;    /* ONCE re-run / POLL interval */
	char *ca_pem, *cert_pem, *key_pem;
	char *failed_reason; /* GS_FAILED */

	grpc_channel *ch;
	enum gstate state;
	int encoding; /* chosen after Capabilities */
	bool encoding_known;

	/* The call in flight. */
	grpc_call *call;
	int pending;
	bool status_done;
	bool cancelled_by_watchdog;
	bool stopping;
	struct tag tags[OP__COUNT];
	grpc_metadata md_send[2];
	size_t n_md_send;
	grpc_metadata_array md_recv;
	grpc_metadata_array md_trailing;
	grpc_status_code status;
	grpc_slice details;
	grpc_byte_buffer *send_bb;
	grpc_byte_buffer *recv_bb;
	bool send_pending;
	bool got_message; /* this stream delivered something */
	bool connecting;  /* counted in col->connecting */

	int64_t t_action; /* next connect / poll / once; 0: none */
	int64_t last_msg_ns;
	int64_t backoff_ns;
	/* When this stream will have been healthy long enough to forget
	 * the failures before it; 0: not pending (no message yet, or
	 * already judged healthy). */
	int64_t stable_at_ns;
	unsigned failures; /* since the target was last healthy */
	uint64_t messages;
	uint64_t unmapped_seen;
	struct log_complaint complaint;
	struct log_complaint decode_complaint;
};

enum mail_kind { MAIL_START, MAIL_STOP, MAIL_QUIT };

struct mail {
	struct mail *next;
	enum mail_kind kind;
	struct gtarget *t;
};

struct gthread {
	struct gnmi_col *col;
	pthread_t tid;
	grpc_completion_queue *cq;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct mail *mail;
	bool quitting;
	struct gtarget *targets;
	int64_t next_timer_ns;
	uint64_t rng;
};

/* Main-thread view of a running target. */
struct entry {
	char *name;
	struct cfg_gnmi *cfg; /* what it runs with, for reload diffs */
	struct gtarget *t;
	struct gthread *th;
	/* Could not start (profile, paths, TLS files): a reload retries
	 * it even with the same config, since the fix may be in a file. */
	bool failed;
};

struct gnmi_col {
	struct store *store;
	struct health *health;
	struct links *links; /* NULL: LLDP is not read */
	struct gthread *threads;
	unsigned n_threads;
	unsigned next_thread;
	_Atomic unsigned connecting;
	/* Set by start and reload (main thread), read by the client
	 * threads. */
	_Atomic unsigned max_connecting;
	uint64_t max_message;
	uint64_t global_interval_ns;
	char *profiles_dir;
	struct entry *entries;
	size_t n_entries;
};

/* Small helpers several pieces use: inline. */

/* Full jitter: uniform in [0, max). xorshift, per thread. */
static inline int64_t jitter(struct gthread *th, int64_t max)
{
	if (max <= 0)
		return 0;
	uint64_t x = th->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	th->rng = x;
	return (int64_t)(x % (uint64_t)max);
}

/* The thread wakes at the earliest due time it knows. A due time that
 * moves later (a watchdog pushed by a message) needs no update: the
 * thread wakes early, finds nothing due and recomputes. */
static inline void note_due(struct gthread *th, int64_t when)
{
	if (when && (th->next_timer_ns == 0 || when < th->next_timer_ns))
		th->next_timer_ns = when;
}

static inline void set_timer(struct gtarget *t, int64_t when)
{
	t->t_action = when;
	note_due(t->th, when);
}

static inline void connecting_done(struct gtarget *t)
{
	if (t->connecting) {
		t->connecting = false;
		atomic_fetch_sub(&t->col->connecting, 1);
	}
}

/* client.c (a target's thread) */

/* Starts a connection attempt, unless too many are in flight. */
void client_connect_target(struct gtarget *t);
/* Sends a Poll on a POLL stream. */
void client_send_poll(struct gtarget *t);
/* Handles the completion of operation op of t's call. */
void client_handle_event(struct gtarget *t, enum op op, bool ok);
/* At stable_at_ns (now is past it): if t's stream is still delivering
 * (a message in the second half of the stable period, or no watchdog),
 * client_mark_stable(); otherwise the judgement waits for more data. */
void client_check_stable(struct gtarget *t, int64_t now);
/* t's stream has delivered since stable_at_ns (now is past it): the
 * failures before it are forgotten (logged once) and the backoff
 * starts over. */
void client_mark_stable(struct gtarget *t);

/* client_target.c */

/*
 * A switch's main stream and, chained on it (companion), a helper
 * stream for each other prefix target its subscriptions name (main
 * thread). Never NULL: a target that cannot run is in GS_FAILED.
 */
struct gtarget *client_target_new(struct gnmi_col *col, const char *name,
				  const struct cfg_gnmi *g);
/* Frees t (not its companions); its call must be over. */
void client_target_free(struct gtarget *t);
/* The channel to t's address, with its credentials. */
grpc_channel *client_make_channel(struct gtarget *t);
/* The username/password metadata of t's calls (none without a
 * username), and its release. */
void client_fill_metadata(struct gtarget *t);
void client_clear_metadata(struct gtarget *t);
/* The gtarget of name map i's objects for device name (main thread),
 * sharing main's objmap: idle until the map lists objects. */
struct gtarget *client_objects_target(struct gnmi_col *col, const char *name,
				      const struct cfg_gnmi *g,
				      struct gtarget *main, size_t i);

/* client_objects.c (a target's thread) */

/* Rebuilds objects stream t's subscriptions from its map (before a
 * Subscribe). */
void client_objects_take(struct gtarget *t);
/* t's timer fired: connect, resubscribe or stay idle. */
void client_objects_timer(struct gtarget *t, int64_t now);
/* After t applied a message: if its switch's object set changed, the
 * objects streams of the thread that share its objmap are told. */
void client_objects_notify(struct gtarget *t);

/* Packed SubscribeRequests: t's SubscriptionList, and a Poll. */
grpc_byte_buffer *client_subscribe_request(struct gtarget *t);
grpc_byte_buffer *client_poll_request(void);

#endif
