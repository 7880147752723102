/*
 * gnmi_target internal: what the pieces of the target library share
 * (target.c: calls; tree.c: the data tree; encode.c: messages from
 * leaves; server.c: loop thread, servers and the target API). Internal
 * to gnmi_target/; nothing outside it may include this. The objects and
 * the locking rules are described atop target.c; unless said otherwise
 * every function here is called with the target's mutex held.
 */
#ifndef FABMON_GNMI_TARGET_INT_H
#define FABMON_GNMI_TARGET_INT_H

#include "target.h"

#include "path.h"
#include "units.h"

#include "gnmi.pb-c.h"

#include <grpc/grpc.h>
#include <grpc/support/time.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gt_kind {
	GT_CAPS,
	GT_GET,
	GT_SUBSCRIBE,
	GT_OTHER,
	GT_NKINDS,
};

enum gt_tag_kind {
	GT_TAG_REQUEST,
	GT_TAG_CLOSE,
	GT_TAG_RECV,
	GT_TAG_SEND,
	GT_TAG_SHUTDOWN,
};

struct gt_tag {
	enum gt_tag_kind kind;
};

enum gt_type {
	GT_NONE,
	GT_UINT,
	GT_INT,
	GT_DOUBLE,
	GT_BOOL,
	GT_STRING,
	GT_JSON,
};

struct gt_value {
	enum gt_type type;
	union {
		uint64_t u;
		int64_t i;
		double d;
		bool b;
		char *s; /* GT_STRING, GT_JSON: owned (GT_JSON: in sl) */
	};
	size_t len; /* of s, without its NUL: counted once, when set */
	/* GT_JSON: the refcounted slice that holds s, so that messages
	 * carry the text by reference rather than by copy. */
	grpc_slice sl;
};

enum gt_stage {
	GT_STAGE_NONE,
	GT_STAGE_SET,
	GT_STAGE_DELETE,
};

struct gnmi_target_leaf {
	struct gnmi_target *t;
	struct gnmi_path path; /* no origin, no target, no wildcards */
	Gnmi__Path *pb;
	/* pb without its first pk_skip elements, packed (the stream
	 * encoder's cache; NULL until a stream sends the leaf). */
	uint8_t *pk;
	size_t pk_len, pk_skip;
	char *key; /* canonical path string, the hash key */
	uint32_t hash;
	struct gnmi_target_leaf *hnext;
	enum gt_stage staged;
	struct gt_value live; /* the staged value (GT_STAGE_SET) */
	struct gt_value pub;  /* the published value; GT_NONE: absent */
	uint64_t changed_gen; /* tick generation of the last change of pub */
};

/* One queued outgoing item: a message, or the final status. */
struct gt_out {
	struct gt_out *next;
	grpc_byte_buffer *bb; /* NULL for a status */
	grpc_status_code code;
	char *details;
};

enum gt_smode {
	GT_SM_ON_CHANGE,
	GT_SM_SAMPLE,
	GT_SM_TARGET_DEFINED,
};

struct gt_sub {
	struct gnmi_path path; /* prefix + path; target and origin unused */
	enum gt_smode mode;
	int64_t sample_ns; /* 0 for ON_CHANGE */
	int64_t hb_ns;	   /* 0: no heartbeat */
	bool suppress;
	int64_t next_sample; /* monotonic ns; INT64_MAX if due_ts is used */
	int64_t due_ts;	     /* tick timestamp due (tick-driven samples) */
	int64_t next_hb;
	uint64_t last_gen;	  /* changes up to this generation were sent */
	uint64_t last_sample_gen; /* generation of the last sample sent */
	struct gnmi_target_leaf **matched;
	size_t n_matched, cap_matched;
	size_t scanned; /* leaves of the target already matched */
};

/* A request's prefix and what notifications echo of it. */
struct gt_prefix {
	struct gnmi_path path; /* all zero when the request had none */
	Gnmi__Path *full;      /* NULL when the request had none */
	Gnmi__Path bare;       /* full without its elements */
	bool has_bare;	       /* bare has a target or an origin */
	bool relative_ok;      /* elements and no wildcards */
	/* full and bare packed, for the stream encoder */
	uint8_t *pk_full, *pk_bare;
	size_t pk_full_len, pk_bare_len;
};

struct gt_stream {
	int mode; /* GNMI__SUBSCRIPTION_LIST__MODE__* */
	int encoding;
	bool updates_only;
	bool need_initial; /* the initial dump waits for silence to end */
	struct gt_prefix pfx;
	struct gt_sub *subs;
	size_t n_subs;
	uint64_t skipped; /* sample cycles skipped for a full queue */
	/* STREAM: when the target ends it (monotonic ns; 0: never), see
	 * gnmi_target_set_stream_lifetime(). */
	int64_t end_at;
};

struct gt_server;

struct gt_call {
	struct gnmi_target *t;
	struct gt_server *srv;
	struct gt_call *prev, *next; /* in t->calls once accepted */
	enum gt_kind kind;
	grpc_call *call;
	grpc_call_details details; /* GT_OTHER */
	gpr_timespec deadline;
	grpc_metadata_array md;
	struct gt_tag t_req, t_close, t_recv, t_send;
	bool accepted;
	int pending; /* batches in flight */
	bool closed; /* RECV_CLOSE_ON_SERVER completed */
	int cancelled;
	bool broken; /* a batch failed to start: send nothing more */
	bool recv_busy;
	grpc_byte_buffer *recv_bb;
	bool send_busy;
	bool md_sent;
	bool finishing; /* the status is queued or sent */
	struct gt_out *inflight;
	struct gt_out *q_head, *q_tail;
	size_t q_len;
	size_t q_bytes; /* of the queued messages (not the in-flight one) */
	struct gt_stream *st;
};

struct gt_server {
	struct gnmi_target *t;
	struct gt_server *next;
	grpc_server *srv;
	void *rm[GT_OTHER];
	struct gt_tag t_shutdown;
	int pending_reqs;
	size_t ncalls;
	bool shutting_down;
	bool shutdown_done;
};

struct gnmi_target_loop {
	grpc_completion_queue *cq;
	pthread_t thread;
	pthread_mutex_t lock;	     /* guards targets */
	struct gnmi_target *targets; /* linked by lnext/lprev */
	/* The same targets as an array, their due times side by side
	 * (tdue[i] is tv[i]->next_due as the walk last saw it), so that
	 * finding the due ones among a thousand reads 8 KiB rather than
	 * a thousand scattered targets; guarded by lock. */
	struct gnmi_target **tv;
	int64_t *tdue;
	size_t n_tv, cap_tv;
	int64_t next_due; /* loop thread only */
	bool resync;	  /* loop thread only: a next_due changed elsewhere */
};

struct gnmi_target {
	struct gnmi_target_loop *loop;
	bool own_loop;
	struct gnmi_target *lprev, *lnext;
	size_t lidx;	  /* in loop->tv, under loop->lock */
	int64_t next_due; /* loop thread only: earliest timer of this target */

	pthread_mutex_t lock;
	pthread_cond_t cond;

	/* Configuration, fixed after gnmi_target_new(). */
	char *address; /* with the bound port once known */
	bool is_unix;
	int port;
	char *cert, *key, *ca;
	char *username, *password;
	unsigned encodings;
	int64_t min_ns, default_ns;
	int64_t tick_ns; /* tick_interval_ns: 0, samples are timed */
	unsigned min_ping_ms;
	Gnmi__ModelData *models;
	size_t n_models;

	struct gt_server *srv;	   /* the listening server, or NULL */
	struct gt_server *servers; /* every server not yet destroyed */
	struct gt_call *calls;	   /* accepted calls */

	struct gnmi_target_leaf **leaves;
	size_t n_leaves, cap_leaves;
	struct gnmi_target_leaf **buckets;
	size_t n_buckets; /* a power of two */
	struct gnmi_target_leaf **dirty;
	size_t n_dirty, cap_dirty;
	uint64_t gen;
	uint64_t del_gen; /* the last tick that deleted a published leaf */
	int64_t tick_ts;
	bool silent;
	bool end_after_sync; /* gnmi_target_set_end_after_sync() */
	int64_t lifetime_ns; /* gnmi_target_set_stream_lifetime(); 0: off */
	bool garbage;	     /* gnmi_target_set_garbage() */
	uint64_t garbage_rng;
};

/* Leaf updates (or deletes) collected for one send. */
struct gt_entry {
	struct gnmi_target_leaf *leaf;
	bool del;
};

struct gt_batch {
	struct gt_entry *v;
	size_t n, cap;
};

/* The protobuf scaffolding of one Notification, borrowing from leaves. */
struct gt_note {
	Gnmi__Notification n;
	Gnmi__Update *ups;
	Gnmi__Update **upp;
	Gnmi__TypedValue *tvs;
	Gnmi__Path *paths;
	Gnmi__Path **dels;
	char **texts;
	size_t n_texts;
};

/* Hot helpers, shared by several pieces: inline. */

static inline int64_t mono_ns(void)
{
	gpr_timespec ts = gpr_now(GPR_CLOCK_MONOTONIC);
	return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Counters (sampled under TARGET_DEFINED) versus state (on change). */
static inline bool value_is_counter(const struct gt_value *v)
{
	return v->type == GT_UINT || v->type == GT_INT ||
	       v->type == GT_DOUBLE || v->type == GT_JSON;
}

static inline bool call_can_send(const struct gt_call *c)
{
	return !c->closed && !c->broken && !c->finishing;
}

static inline bool call_streaming(const struct gt_call *c)
{
	return c->st && call_can_send(c);
}

/* tree.c */

/* Fills x from a request prefix (NULL: none): 0 or -EINVAL. */
int gt_prefix_init(struct gt_prefix *x, const Gnmi__Path *pb);
/* Frees what gt_prefix_init() made; x is left all zero. */
void gt_prefix_clear(struct gt_prefix *x);
/*
 * Converts a request path (NULL: the empty path, the whole tree) and
 * joins it to the prefix. 0 or -EINVAL.
 */
int gt_request_path(const struct gt_prefix *pfx, const Gnmi__Path *pb,
		    struct gnmi_path *out);
/* True if the leaf path l is at or below the request path q. */
bool gt_path_match(const struct gnmi_path_elem *q, size_t nq,
		   const struct gnmi_path_elem *l, size_t nl);
/* Frees l and its values (only when its target is freed). */
void gt_leaf_free(struct gnmi_target_leaf *l);

/* encode.c */

/* Builds the Notification of the n entries e in no (borrowing from
 * the leaves and the prefix); gt_note_clear() frees what it made. */
void gt_note_fill(struct gt_note *no, const struct gt_prefix *pfx,
		  const struct gt_entry *e, size_t n, int enc, int64_t ts);
void gt_note_clear(struct gt_note *no);
/* A SubscribeResponse whose update is the Notification of the n
 * entries e (as gt_note_fill() and gnmi_pack_message() would make it). */
grpc_byte_buffer *gt_pack_stream_note(const struct gt_prefix *pfx,
				      const struct gt_entry *e, size_t n,
				      int enc, int64_t ts);

/* target.c */

/* Queues a message (taking bb); at the head with front, for injection. */
void gt_call_enqueue(struct gt_call *c, grpc_byte_buffer *bb, bool front);
/* Queues the final status, after the queued messages. */
void gt_call_finish(struct gt_call *c, grpc_status_code code, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
/* The initial transmission of a stream (deferred while silent). */
void gt_stream_initial(struct gt_call *c);
/* After a tick: the changes and deletes a STREAM subscription sends. */
void gt_stream_on_tick(struct gt_call *c);
/* Runs the stream timers of t (loop thread); returns the next due time. */
int64_t gt_target_service(struct gnmi_target *t, int64_t now);
/* Asks server s for the next call of that kind. */
void gt_server_request(struct gt_server *s, enum gt_kind kind);
/* Handles one completion (loop thread; takes the target's mutex). */
void gt_loop_dispatch(struct gt_tag *tag, bool ok);

/* server.c */

/* 0 if the call may proceed; else it has been finished. */
int gt_call_authenticate(struct gt_call *c);
/* The next message of garbage mode: bytes that no SubscribeResponse
 * decoder accepts, drawn from t->garbage_rng. */
grpc_byte_buffer *gt_garbage_message(struct gnmi_target *t);

#endif
