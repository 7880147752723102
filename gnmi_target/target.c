/*
 * gnmi_target: a gNMI server on the gRPC core C API, for fabsim and the
 * tests (the contract is in target.h).
 *
 * Objects. A loop owns a completion queue and the thread that drains
 * it; every grpc_server of every target on the loop is registered with
 * that queue. A target owns its data tree, its listening server (and
 * servers still draining after gnmi_target_refuse() or stop), and its
 * calls. A call (struct gt_call) is one RPC; a Subscribe call gets a
 * stream (struct gt_stream) once its SubscriptionList arrives, with one
 * struct gt_sub per Subscription.
 *
 * Locking. Each target has one mutex that guards everything in it:
 * the tree, the servers and the calls. The loop thread takes it to
 * handle a completion for that target and to run the target's sample
 * and heartbeat timers; API threads take it for setters, ticks and the
 * fault hooks. gRPC core never calls back into us synchronously, so
 * grpc functions are called with the mutex held; grpc_call_start_batch
 * is thus serialised per call as gRPC requires, whichever thread sends.
 * The loop's own mutex guards its list of targets only; the lock order
 * is loop, then target.
 *
 * Completions. Every batch and request carries a tag embedded in the
 * struct it belongs to (struct gt_tag, found back with container_of).
 * A call is freed once its RECV_CLOSE_ON_SERVER has completed and no
 * batch of it is pending; a server is destroyed once its shutdown tag
 * has arrived, its pending request_call tags have come back and its
 * calls are freed. The target's condition variable is broadcast after
 * every completion, so stop and free can wait for the target to drain.
 * Since a target is freed only when no tag of it is outstanding, the
 * loop never sees a tag of a freed target.
 *
 * Sending. gRPC allows one SEND_MESSAGE in flight per call, so each
 * call has a FIFO of packed messages and at most one final status. The
 * first batch carries the initial metadata; a status right after a
 * message goes in the same batch. A stream whose queue is longer than
 * GT_QUEUE_SOFT messages or GT_QUEUE_SOFT_BYTES skips its sample and
 * heartbeat cycles (a slow client loses samples, as on a real target),
 * and one reaching GT_QUEUE_HARD or GT_QUEUE_HARD_BYTES is cancelled
 * with RESOURCE_EXHAUSTED.
 * Stream notifications are packed by hand (the stream encoder, below),
 * byte for byte as protobuf-c would pack them, with each long JSON
 * value referenced from the refcounted slice it was set in rather than
 * copied; Get and everything else go through protobuf-c.
 *
 * Timers. The core C API has no timer, so the loop passes the earliest
 * due time of its targets as the deadline of grpc_completion_queue_next
 * (at most a second ahead). Each target caches its own earliest due
 * time, and the loop a copy of them all in one array, so a loop with a
 * thousand targets reads one array and locks only the targets that are
 * due. Due times are set by the loop thread only (when a
 * subscription starts and when its timers run; silence suppresses the
 * sends, not the timers), so API threads never need to wake the loop:
 * what they cause (ON_CHANGE updates, injections) they queue on the
 * calls themselves.
 *
 * Tree. Leaves are found by their canonical path string in a chained
 * hash table and listed in creation order; they are never freed before
 * the target, so subscriptions cache the leaves they match as pointers
 * and only scan the leaves created since. A tick moves each staged
 * value to the published one; a leaf whose published value changes (or
 * appears, or goes) gets the tick's generation, so a subscription finds
 * what changed since it last sent by comparing generations, without
 * per-leaf state; the target keeps the generation of its last delete,
 * so that a SAMPLE subscription (which hears of deletes only) skips
 * that walk when there was none.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "target.h"

#include "log.h"
#include "mem.h"
#include "pack.h"
#include "path.h"

#include "gnmi.pb-c.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define GT_NS	       INT64_C(1000000000)
#define GT_MAX_WAIT_NS GT_NS
#define GT_QUEUE_SOFT  256
#define GT_QUEUE_HARD  16384
/* The same bounds in bytes: messages run up to GT_CHUNK_BYTES, so a
 * count alone would let a thousand slow streams hold gigabytes. */
#define GT_QUEUE_SOFT_BYTES (4u << 20)
#define GT_QUEUE_HARD_BYTES (32u << 20)
#define GT_CHUNK_UPDATES    512
#define GT_CHUNK_BYTES	    (1024 * 1024)
#define GT_BIND_RETRIES	    50
/* JSON values at least this long are sent by reference (see the
 * stream encoder), shorter ones copied. */
#define GT_REF_MIN 512
/* The loop wakes for its timers on this grid: a sample is late by up
 * to this much, never early, and a loop whose thousand targets fall
 * due at scattered times walks them at most 1/GT_TIMER_GRAIN_NS times
 * a second rather than once per target. */
#define GT_TIMER_GRAIN_NS INT64_C(5000000)

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

enum gt_kind {
	GT_CAPS,
	GT_GET,
	GT_SUBSCRIBE,
	GT_OTHER,
	GT_NKINDS,
};

static const char *const gt_methods[GT_OTHER] = {
	"/gnmi.gNMI/Capabilities",
	"/gnmi.gNMI/Get",
	"/gnmi.gNMI/Subscribe",
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
	int64_t next_sample; /* monotonic ns */
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

static void call_flush(struct gt_call *c);

/* Time */

static int64_t mono_ns(void)
{
	gpr_timespec ts = gpr_now(GPR_CLOCK_MONOTONIC);
	return ts.tv_sec * GT_NS + ts.tv_nsec;
}

static gpr_timespec mono_deadline(int64_t ns)
{
	gpr_timespec ts;
	ts.tv_sec = ns / GT_NS;
	ts.tv_nsec = (int32_t)(ns % GT_NS);
	ts.clock_type = GPR_CLOCK_MONOTONIC;
	return ts;
}

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * GT_NS + ts.tv_nsec;
}

static int64_t advance(int64_t next, int64_t interval, int64_t now)
{
	next += interval;
	return next > now ? next : now + interval;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Go's way of printing a duration, for SONiC's error text: 1s, 1.5s,
 * 100ms, 250us, 10ns. */
static void format_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t div;
		int width;
		const char *unit;
	} units[] = {
		{ 1000000000, 9, "s" },
		{ 1000000, 6, "ms" },
		{ 1000, 3, "us" },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (ns < units[i].div)
			continue;
		uint64_t whole = ns / units[i].div;
		uint64_t frac = ns % units[i].div;
		char digits[12] = "";
		if (frac) {
			int w = units[i].width;
			digits[0] = '.';
			for (int k = w; k >= 1; k--) {
				digits[k] = (char)('0' + frac % 10);
				frac /= 10;
			}
			digits[w + 1] = '\0';
			for (int k = w; k > 1 && digits[k] == '0'; k--)
				digits[k] = '\0';
		}
		snprintf(buf, len, "%" PRIu64 "%s%s", whole, digits,
			 units[i].unit);
		return;
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
}

/* Values */

static void value_clear(struct gt_value *v)
{
	if (v->type == GT_STRING)
		free(v->s);
	else if (v->type == GT_JSON)
		grpc_slice_unref(v->sl);
	v->type = GT_NONE;
}

static bool value_equal(const struct gt_value *a, const struct gt_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case GT_NONE:
		return true;
	case GT_UINT:
		return a->u == b->u;
	case GT_INT:
		return a->i == b->i;
	case GT_DOUBLE:
		return memcmp(&a->d, &b->d, sizeof a->d) == 0;
	case GT_BOOL:
		return a->b == b->b;
	case GT_STRING:
	case GT_JSON:
		return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
	}
	return false;
}

/* Counters (sampled under TARGET_DEFINED) versus state (on change). */
static bool value_is_counter(const struct gt_value *v)
{
	return v->type == GT_UINT || v->type == GT_INT ||
	       v->type == GT_DOUBLE || v->type == GT_JSON;
}

/* The shortest %g text that reads back as d. */
static void format_double(char *buf, size_t len, double d)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

static char *json_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(n * 6 + 3);
	char *p = out;
	*p++ = '"';
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			*p++ = '\\';
			*p++ = (char)ch;
		} else if (ch == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else if (ch == '\t') {
			*p++ = '\\';
			*p++ = 't';
		} else if (ch < 0x20) {
			p += sprintf(p, "\\u%04x", ch);
		} else {
			*p++ = (char)ch;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}

/*
 * The JSON text of a scalar. RFC 7951 (JSON_IETF) writes 64-bit
 * integers and decimal64 as strings; our integers are 64-bit and our
 * doubles stand for decimal64, so JSON_IETF quotes all of them.
 * Non-finite doubles have no JSON number form and become strings.
 */
static char *json_text(const struct gt_value *v, bool ietf)
{
	char num[64];
	switch (v->type) {
	case GT_UINT:
		snprintf(num, sizeof num, "%" PRIu64, v->u);
		break;
	case GT_INT:
		snprintf(num, sizeof num, "%" PRId64, v->i);
		break;
	case GT_DOUBLE:
		if (isnan(v->d))
			return xstrdup("\"NaN\"");
		if (isinf(v->d))
			return xstrdup(v->d > 0 ? "\"Infinity\""
						: "\"-Infinity\"");
		format_double(num, sizeof num, v->d);
		break;
	case GT_BOOL:
		return xstrdup(v->b ? "true" : "false");
	case GT_STRING:
		return json_quote(v->s);
	case GT_JSON:
		return xstrdup(v->s);
	case GT_NONE:
		return xstrdup("null");
	}
	return ietf ? xasprintf("\"%s\"", num) : xstrdup(num);
}

/*
 * Fills tv with v in encoding enc. Text it allocates goes to *text
 * (NULL if none), to be freed once the message is packed; strings are
 * otherwise borrowed from v.
 */
static void typed_value_set(Gnmi__TypedValue *tv, const struct gt_value *v,
			    int enc, char **text)
{
	*text = NULL;
	if (enc == GNMI__ENCODING__PROTO) {
		switch (v->type) {
		case GT_UINT:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
			tv->uint_val = v->u;
			return;
		case GT_INT:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_INT_VAL;
			tv->int_val = v->i;
			return;
		case GT_DOUBLE:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_DOUBLE_VAL;
			tv->double_val = v->d;
			return;
		case GT_BOOL:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_BOOL_VAL;
			tv->bool_val = v->b;
			return;
		case GT_STRING:
			tv->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
			tv->string_val = v->s;
			return;
		case GT_JSON:
		case GT_NONE:
			break;
		}
	}
	ProtobufCBinaryData data;
	if (v->type == GT_JSON) {
		data.len = v->len;
		data.data = (uint8_t *)v->s;
	} else {
		*text = json_text(v, enc != GNMI__ENCODING__JSON);
		data.len = strlen(*text);
		data.data = (uint8_t *)*text;
	}
	if (enc == GNMI__ENCODING__JSON) {
		tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_VAL;
		tv->json_val = data;
	} else {
		tv->value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
		tv->json_ietf_val = data;
	}
}

/* Paths */

/* Glob with '*' only (SONiC's "Ethernet*" as well as gNMI's "*"). */
static bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static const char *elem_key(const struct gnmi_path_elem *e, const char *name)
{
	for (size_t i = 0; i < e->n_keys; i++)
		if (strcmp(e->keys[i].name, name) == 0)
			return e->keys[i].value;
	return NULL;
}

/* A request element against a leaf element; keys the request omits
 * match any value. */
static bool elem_match(const struct gnmi_path_elem *q,
		       const struct gnmi_path_elem *l)
{
	if (!glob_match(q->name, l->name))
		return false;
	for (size_t i = 0; i < q->n_keys; i++) {
		const char *v = elem_key(l, q->keys[i].name);
		if (!v || !glob_match(q->keys[i].value, v))
			return false;
	}
	return true;
}

/* True if the leaf path l is at or below the request path q. */
static bool path_match(const struct gnmi_path_elem *q, size_t nq,
		       const struct gnmi_path_elem *l, size_t nl)
{
	while (nq > 0) {
		if (strcmp(q->name, "...") == 0) {
			for (size_t k = 0; k <= nl; k++)
				if (path_match(q + 1, nq - 1, l + k, nl - k))
					return true;
			return false;
		}
		if (nl == 0 || !elem_match(q, l))
			return false;
		q++;
		nq--;
		l++;
		nl--;
	}
	return true;
}

static bool path_has_wildcard(const struct gnmi_path *p)
{
	for (size_t i = 0; i < p->n_elem; i++) {
		const struct gnmi_path_elem *e = &p->elem[i];
		if (strchr(e->name, '*') || strcmp(e->name, "...") == 0)
			return true;
		for (size_t k = 0; k < e->n_keys; k++)
			if (strchr(e->keys[k].value, '*'))
				return true;
	}
	return false;
}

static bool elem_equal(const struct gnmi_path_elem *a,
		       const struct gnmi_path_elem *b)
{
	if (strcmp(a->name, b->name) != 0 || a->n_keys != b->n_keys)
		return false;
	for (size_t i = 0; i < a->n_keys; i++)
		if (strcmp(a->keys[i].name, b->keys[i].name) != 0 ||
		    strcmp(a->keys[i].value, b->keys[i].value) != 0)
			return false;
	return true;
}

static bool nonempty(const char *s)
{
	return s && *s;
}

static int prefix_init(struct gt_prefix *x, const Gnmi__Path *pb)
{
	memset(x, 0, sizeof *x);
	if (!pb)
		return 0;
	if (gnmi_path_from_pb(pb, &x->path) < 0) {
		memset(&x->path, 0, sizeof x->path);
		return -EINVAL;
	}
	x->full = gnmi_path_to_pb(&x->path);
	x->bare = *x->full;
	x->bare.n_elem = 0;
	x->bare.elem = NULL;
	x->has_bare = nonempty(x->path.target) || nonempty(x->path.origin);
	x->relative_ok = x->path.n_elem > 0 && !path_has_wildcard(&x->path);
	x->pk_full_len = gnmi__path__get_packed_size(x->full);
	x->pk_full = xmalloc(x->pk_full_len + 1);
	gnmi__path__pack(x->full, x->pk_full);
	x->pk_bare_len = gnmi__path__get_packed_size(&x->bare);
	x->pk_bare = xmalloc(x->pk_bare_len + 1);
	gnmi__path__pack(&x->bare, x->pk_bare);
	return 0;
}

static void prefix_clear(struct gt_prefix *x)
{
	if (x->full)
		gnmi_path_pb_free(x->full);
	free(x->pk_full);
	free(x->pk_bare);
	gnmi_path_clear(&x->path);
	memset(x, 0, sizeof *x);
}

/*
 * Converts a request path (NULL: the empty path, the whole tree) and
 * joins it to the prefix. 0 or -EINVAL.
 */
static int request_path(const struct gt_prefix *pfx, const Gnmi__Path *pb,
			struct gnmi_path *out)
{
	struct gnmi_path p;
	memset(&p, 0, sizeof p);
	if (pb && gnmi_path_from_pb(pb, &p) < 0)
		return -EINVAL;
	gnmi_path_join(out, &pfx->path, &p);
	gnmi_path_clear(&p);
	return 0;
}

/* Tree */

static uint32_t hash_string(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static struct gnmi_target_leaf *tree_find(struct gnmi_target *t,
					  const char *key, uint32_t h)
{
	if (!t->n_buckets)
		return NULL;
	struct gnmi_target_leaf *l = t->buckets[h & (t->n_buckets - 1)];
	for (; l; l = l->hnext)
		if (l->hash == h && strcmp(l->key, key) == 0)
			return l;
	return NULL;
}

static void tree_insert(struct gnmi_target *t, struct gnmi_target_leaf *l)
{
	if (t->n_leaves + 1 > t->n_buckets) {
		size_t n = t->n_buckets ? t->n_buckets * 2 : 64;
		struct gnmi_target_leaf **b = xcalloc(n, sizeof *b);
		for (size_t i = 0; i < t->n_leaves; i++) {
			struct gnmi_target_leaf *x = t->leaves[i];
			x->hnext = b[x->hash & (n - 1)];
			b[x->hash & (n - 1)] = x;
		}
		free(t->buckets);
		t->buckets = b;
		t->n_buckets = n;
	}
	if (t->n_leaves == t->cap_leaves) {
		t->cap_leaves = t->cap_leaves ? t->cap_leaves * 2 : 64;
		t->leaves =
		    xreallocarray(t->leaves, t->cap_leaves, sizeof *t->leaves);
	}
	t->leaves[t->n_leaves++] = l;
	l->hnext = t->buckets[l->hash & (t->n_buckets - 1)];
	t->buckets[l->hash & (t->n_buckets - 1)] = l;
}

static void leaf_free(struct gnmi_target_leaf *l)
{
	value_clear(&l->live);
	value_clear(&l->pub);
	gnmi_path_pb_free(l->pb);
	free(l->pk);
	gnmi_path_clear(&l->path);
	free(l->key);
	free(l);
}

/* Called with the target locked. */
static void leaf_mark_dirty(struct gnmi_target_leaf *l)
{
	struct gnmi_target *t = l->t;
	if (l->staged != GT_STAGE_NONE)
		return;
	if (t->n_dirty == t->cap_dirty) {
		t->cap_dirty = t->cap_dirty ? t->cap_dirty * 2 : 64;
		t->dirty =
		    xreallocarray(t->dirty, t->cap_dirty, sizeof *t->dirty);
	}
	t->dirty[t->n_dirty++] = l;
}

/* Takes ownership of v's string. */
static void leaf_stage(struct gnmi_target_leaf *l, struct gt_value v)
{
	struct gnmi_target *t = l->t;
	pthread_mutex_lock(&t->lock);
	leaf_mark_dirty(l);
	value_clear(&l->live);
	l->live = v;
	l->staged = GT_STAGE_SET;
	pthread_mutex_unlock(&t->lock);
}

/* Publishes l's staged value at generation gen; target locked. */
static void leaf_publish(struct gnmi_target_leaf *l, uint64_t gen)
{
	if (l->staged == GT_STAGE_SET) {
		if (value_equal(&l->pub, &l->live)) {
			value_clear(&l->live);
		} else {
			value_clear(&l->pub);
			l->pub = l->live;
			l->live.type = GT_NONE;
			l->changed_gen = gen;
		}
	} else if (l->staged == GT_STAGE_DELETE && l->pub.type != GT_NONE) {
		value_clear(&l->pub);
		l->changed_gen = gen;
		l->t->del_gen = gen;
	}
	l->staged = GT_STAGE_NONE;
}

/* Batches and notifications */

static void batch_add(struct gt_batch *b, struct gnmi_target_leaf *l, bool del)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->v = xreallocarray(b->v, b->cap, sizeof *b->v);
	}
	b->v[b->n].leaf = l;
	b->v[b->n].del = del;
	b->n++;
}

/* Can these leaves go relative to the request prefix, which then goes
 * in the notification? Only if each starts with exactly its elements
 * (a prefix that omits keys would lose them). */
static bool note_relative(const struct gt_prefix *pfx, const struct gt_entry *e,
			  size_t n)
{
	if (!pfx->relative_ok)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct gnmi_path *lp = &e[i].leaf->path;
		if (lp->n_elem < pfx->path.n_elem)
			return false;
		for (size_t k = 0; k < pfx->path.n_elem; k++)
			if (!elem_equal(&pfx->path.elem[k], &lp->elem[k]))
				return false;
	}
	return true;
}

static void note_fill(struct gt_note *no, const struct gt_prefix *pfx,
		      const struct gt_entry *e, size_t n, int enc, int64_t ts)
{
	memset(no, 0, sizeof *no);
	gnmi__notification__init(&no->n);
	no->n.timestamp = ts;
	size_t skip = 0;
	if (note_relative(pfx, e, n)) {
		no->n.prefix = pfx->full;
		skip = pfx->path.n_elem;
	} else if (pfx->has_bare) {
		no->n.prefix = (Gnmi__Path *)&pfx->bare;
	}
	no->ups = xcalloc(n + 1, sizeof *no->ups);
	no->upp = xcalloc(n + 1, sizeof *no->upp);
	no->tvs = xcalloc(n + 1, sizeof *no->tvs);
	no->paths = xcalloc(n + 1, sizeof *no->paths);
	no->dels = xcalloc(n + 1, sizeof *no->dels);
	no->texts = xcalloc(n + 1, sizeof *no->texts);
	for (size_t i = 0; i < n; i++) {
		const struct gnmi_target_leaf *l = e[i].leaf;
		Gnmi__Path *p = &no->paths[i];
		*p = *l->pb;
		p->elem += skip;
		p->n_elem -= skip;
		if (e[i].del) {
			no->dels[no->n.n_delete_++] = p;
			continue;
		}
		size_t j = no->n.n_update++;
		gnmi__update__init(&no->ups[j]);
		gnmi__typed_value__init(&no->tvs[j]);
		typed_value_set(&no->tvs[j], &l->pub, enc,
				&no->texts[no->n_texts]);
		if (no->texts[no->n_texts])
			no->n_texts++;
		no->ups[j].path = p;
		no->ups[j].val = &no->tvs[j];
		no->upp[j] = &no->ups[j];
	}
	no->n.update = no->upp;
	no->n.delete_ = no->dels;
}

static void note_clear(struct gt_note *no)
{
	for (size_t i = 0; i < no->n_texts; i++)
		free(no->texts[i]);
	free(no->texts);
	free(no->ups);
	free(no->upp);
	free(no->tvs);
	free(no->paths);
	free(no->dels);
}

static bool encoding_supported(const struct gnmi_target *t, int enc)
{
	return enc >= 0 && enc < 32 && (t->encodings & (1u << enc)) &&
	       (1u << enc) & GNMI_TARGET_ENC_ALL;
}

/* Calls: queue and batches */

static void out_free(struct gt_out *o)
{
	if (o->bb)
		grpc_byte_buffer_destroy(o->bb);
	free(o->details);
	free(o);
}

static void call_drop_queue(struct gt_call *c)
{
	while (c->q_head) {
		struct gt_out *o = c->q_head;
		c->q_head = o->next;
		out_free(o);
	}
	c->q_tail = NULL;
	c->q_len = 0;
	c->q_bytes = 0;
}

static bool call_can_send(const struct gt_call *c)
{
	return !c->closed && !c->broken && !c->finishing;
}

static bool call_streaming(const struct gt_call *c)
{
	return c->st && call_can_send(c);
}

static void call_break(struct gt_call *c, const char *what, grpc_call_error e)
{
	log_warn("sim", "gNMI target: %s failed: %s", what,
		 grpc_call_error_to_string(e));
	c->broken = true;
	call_drop_queue(c);
	grpc_call_cancel(c->call, NULL);
}

/* Queues a message (taking bb); at the head with front, for injection. */
static void call_enqueue(struct gt_call *c, grpc_byte_buffer *bb, bool front)
{
	if (!call_can_send(c)) {
		grpc_byte_buffer_destroy(bb);
		return;
	}
	if (c->q_len >= GT_QUEUE_HARD || c->q_bytes >= GT_QUEUE_HARD_BYTES) {
		grpc_byte_buffer_destroy(bb);
		log_warn("sim",
			 "gNMI target port %d: client too slow, %zu "
			 "messages (%zu bytes) queued: cancelling its RPC",
			 c->t->port, c->q_len, c->q_bytes);
		c->broken = true;
		call_drop_queue(c);
		grpc_call_cancel_with_status(c->call,
					     GRPC_STATUS_RESOURCE_EXHAUSTED,
					     "client too slow", NULL);
		return;
	}
	struct gt_out *o = xcalloc(1, sizeof *o);
	o->bb = bb;
	if (front) {
		o->next = c->q_head;
		c->q_head = o;
		if (!c->q_tail)
			c->q_tail = o;
	} else {
		if (c->q_tail)
			c->q_tail->next = o;
		else
			c->q_head = o;
		c->q_tail = o;
	}
	c->q_len++;
	c->q_bytes += grpc_byte_buffer_length(bb);
	call_flush(c);
}

/* Queues the final status, after the queued messages. */
static void call_finish(struct gt_call *c, grpc_status_code code,
			const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void call_finish(struct gt_call *c, grpc_status_code code,
			const char *fmt, ...)
{
	if (!call_can_send(c))
		return;
	c->finishing = true;
	struct gt_out *o = xcalloc(1, sizeof *o);
	o->code = code;
	va_list ap;
	va_start(ap, fmt);
	o->details = xvasprintf(fmt, ap);
	va_end(ap);
	if (c->q_tail)
		c->q_tail->next = o;
	else
		c->q_head = o;
	c->q_tail = o;
	call_flush(c);
}

/* Starts the next send batch if none is in flight. */
static void call_flush(struct gt_call *c)
{
	if (c->send_busy || c->closed || c->broken || !c->q_head)
		return;
	grpc_op ops[3];
	size_t n = 0;
	grpc_slice details = grpc_empty_slice();
	memset(ops, 0, sizeof ops);
	if (!c->md_sent) {
		ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
		ops[n].data.send_initial_metadata.count = 0;
		n++;
		c->md_sent = true;
	}
	struct gt_out *o = c->q_head;
	struct gt_out *last = o;
	if (o->bb) {
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n].data.send_message.send_message = o->bb;
		n++;
		c->q_len--;
		size_t len = grpc_byte_buffer_length(o->bb);
		c->q_bytes = c->q_bytes > len ? c->q_bytes - len : 0;
		/* A status right behind the message rides along. */
		if (o->next && !o->next->bb)
			last = o->next;
	}
	if (!last->bb) {
		details = grpc_slice_from_copied_string(last->details);
		ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
		ops[n].data.send_status_from_server.status = last->code;
		ops[n].data.send_status_from_server.status_details = &details;
		n++;
	}
	c->q_head = last->next;
	if (!c->q_head)
		c->q_tail = NULL;
	last->next = NULL;
	c->inflight = o;
	grpc_call_error e =
	    grpc_call_start_batch(c->call, ops, n, &c->t_send, NULL);
	grpc_slice_unref(details);
	if (e != GRPC_CALL_OK) {
		while (c->inflight) {
			struct gt_out *x = c->inflight;
			c->inflight = x->next;
			out_free(x);
		}
		call_break(c, "send batch", e);
		return;
	}
	c->pending++;
	c->send_busy = true;
}

static void call_recv(struct gt_call *c)
{
	if (c->recv_busy || !call_can_send(c))
		return;
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &c->recv_bb;
	grpc_call_error e =
	    grpc_call_start_batch(c->call, &op, 1, &c->t_recv, NULL);
	if (e != GRPC_CALL_OK) {
		call_break(c, "receive batch", e);
		return;
	}
	c->pending++;
	c->recv_busy = true;
}

/* Streams: collecting and sending */

static void stream_free(struct gt_stream *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n_subs; i++) {
		gnmi_path_clear(&st->subs[i].path);
		free(st->subs[i].matched);
	}
	free(st->subs);
	prefix_clear(&st->pfx);
	free(st);
}

/* Extends s->matched with the leaves created since the last call. */
static void sub_refresh(struct gnmi_target *t, struct gt_sub *s)
{
	for (; s->scanned < t->n_leaves; s->scanned++) {
		struct gnmi_target_leaf *l = t->leaves[s->scanned];
		if (!path_match(s->path.elem, s->path.n_elem, l->path.elem,
				l->path.n_elem))
			continue;
		if (s->n_matched == s->cap_matched) {
			s->cap_matched =
			    s->cap_matched ? s->cap_matched * 2 : 16;
			s->matched = xreallocarray(s->matched, s->cap_matched,
						   sizeof *s->matched);
		}
		s->matched[s->n_matched++] = l;
	}
}

static void sub_collect_all(struct gnmi_target *t, struct gt_sub *s,
			    struct gt_batch *b)
{
	sub_refresh(t, s);
	for (size_t i = 0; i < s->n_matched; i++)
		if (s->matched[i]->pub.type != GT_NONE)
			batch_add(b, s->matched[i], false);
}

static void send_response(struct gt_call *c, Gnmi__SubscribeResponse *r)
{
	call_enqueue(c, gnmi_pack_message(&r->base), false);
}

/*
 * The stream encoder. A sample round of a big switch is thousands of
 * updates of a few hundred bytes of JSON each, sent every second on
 * each of a thousand streams, so building the protobuf-c tree and
 * packing it (sizing every field, copying every text) was most of the
 * loop thread's time. This writes the same bytes that packing the
 * SubscribeResponse note_fill() builds would (the same fields in the
 * same order, protobuf-c's rules for what is omitted), but by hand:
 * leaf paths are packed once and cached on the leaf, prefixes once per
 * stream, and long JSON values are not copied at all: the message is a
 * list of slices, the framing bytes (and short values) in one buffer
 * and each long JSON text by reference to the refcounted slice it was
 * set in. Other values go through protobuf-c's TypedValue packing.
 */

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A length-delimited field of len bytes (field numbers below 16: a
 * one-byte key), all told; and its key and length. */
static size_t ld_size(size_t len)
{
	return 1 + varint_len(len) + len;
}

static uint8_t *put_ld(uint8_t *p, unsigned field, size_t len)
{
	*p++ = (uint8_t)(field << 3 | 2);
	return put_varint(p, len);
}

/* l's path without its first skip elements, packed (cached). */
static const uint8_t *leaf_packed_path(struct gnmi_target_leaf *l, size_t skip,
				       size_t *len)
{
	if (!l->pk || l->pk_skip != skip) {
		Gnmi__Path p = *l->pb;
		p.elem += skip;
		p.n_elem -= skip;
		size_t n = gnmi__path__get_packed_size(&p);
		l->pk = xrealloc(l->pk, n + 1);
		gnmi__path__pack(&p, l->pk);
		l->pk_len = n;
		l->pk_skip = skip;
	}
	*len = l->pk_len;
	return l->pk;
}

/* JSON values go by reference, but for short ones a slice of their
 * own costs more than a copy; typed_value_set puts them in json_val for
 * the JSON encoding and in json_ietf_val for the others. */
static bool value_by_ref(const struct gt_value *v)
{
	return v->type == GT_JSON && v->len >= GT_REF_MIN;
}

/* Copied as JSON straight into the framing (no protobuf-c either). */
static bool value_json_copy(const struct gt_value *v)
{
	return v->type == GT_JSON && v->len > 0 && v->len < GT_REF_MIN;
}

static unsigned json_field(int enc)
{
	return enc == GNMI__ENCODING__JSON ? 10 : 11;
}

/* A SubscribeResponse whose update is the Notification of the n
 * entries e (as note_fill() and gnmi_pack_message() would make it). */
static grpc_byte_buffer *pack_stream_note(const struct gt_prefix *pfx,
					  const struct gt_entry *e, size_t n,
					  int enc, int64_t ts)
{
	size_t skip = 0;
	const uint8_t *pre = NULL;
	size_t pre_len = 0;
	if (note_relative(pfx, e, n)) {
		pre = pfx->pk_full;
		pre_len = pfx->pk_full_len;
		skip = pfx->path.n_elem;
	} else if (pfx->has_bare) {
		pre = pfx->pk_bare;
		pre_len = pfx->pk_bare_len;
	}
	/* Sizes: the Notification, and the bytes of framing (all but the
	 * values sent by reference). Values packed by protobuf-c are
	 * kept for the second pass. */
	struct gt_tv {
		uint8_t *buf;
		size_t len;
	} *tv = xcalloc(n, sizeof *tv);
	size_t note = 0, by_ref = 0;
	if (ts)
		note += 1 + varint_len((uint64_t)ts);
	if (pre)
		note += ld_size(pre_len);
	for (size_t i = 0; i < n; i++) {
		size_t plen;
		leaf_packed_path(e[i].leaf, skip, &plen);
		if (e[i].del) {
			note += ld_size(plen);
			continue;
		}
		const struct gt_value *v = &e[i].leaf->pub;
		size_t tvl;
		if (value_by_ref(v)) {
			tvl = ld_size(v->len);
			by_ref += v->len;
		} else if (value_json_copy(v)) {
			tvl = ld_size(v->len);
		} else {
			Gnmi__TypedValue t;
			char *text;
			gnmi__typed_value__init(&t);
			typed_value_set(&t, v, enc, &text);
			tv[i].len = gnmi__typed_value__get_packed_size(&t);
			tv[i].buf = xmalloc(tv[i].len + 1);
			gnmi__typed_value__pack(&t, tv[i].buf);
			free(text);
			tvl = tv[i].len;
		}
		note += ld_size(ld_size(plen) + ld_size(tvl));
	}
	size_t total = ld_size(note);
	size_t frame = total - by_ref;
	grpc_slice arena = grpc_slice_malloc_large(frame ? frame : 1);
	uint8_t *base = GRPC_SLICE_START_PTR(arena), *p = base, *from = base;
	/* The pieces go straight into the buffer's slice list, each with
	 * its own reference. */
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(NULL, 0);
	grpc_slice_buffer *sb = &bb->data.raw.slice_buffer;
	p = put_ld(p, 1, note);
	if (ts) {
		*p++ = 1 << 3; /* timestamp, varint */
		p = put_varint(p, (uint64_t)ts);
	}
	if (pre) {
		p = put_ld(p, 2, pre_len);
		memcpy(p, pre, pre_len);
		p += pre_len;
	}
	/* protobuf-c packs every update (4), then every delete (5). */
	for (size_t i = 0; i < n; i++) {
		if (e[i].del)
			continue;
		const struct gt_value *v = &e[i].leaf->pub;
		size_t plen;
		const uint8_t *path = leaf_packed_path(e[i].leaf, skip, &plen);
		bool ref = value_by_ref(v), copy = value_json_copy(v);
		size_t tvl = ref || copy ? ld_size(v->len) : tv[i].len;
		p = put_ld(p, 4, ld_size(plen) + ld_size(tvl));
		p = put_ld(p, 1, plen);
		memcpy(p, path, plen);
		p += plen;
		p = put_ld(p, 3, tvl);
		if (copy) {
			p = put_ld(p, json_field(enc), v->len);
			memcpy(p, v->s, v->len);
			p += v->len;
			continue;
		}
		if (!ref) {
			memcpy(p, tv[i].buf, tv[i].len);
			p += tv[i].len;
			continue;
		}
		p = put_ld(p, json_field(enc), v->len);
		grpc_slice_buffer_add(sb, grpc_slice_sub(arena,
							 (size_t)(from - base),
							 (size_t)(p - base)));
		grpc_slice_buffer_add(sb, grpc_slice_sub(v->sl, 0, v->len));
		from = p;
	}
	for (size_t i = 0; i < n; i++) {
		if (!e[i].del)
			continue;
		size_t plen;
		const uint8_t *path = leaf_packed_path(e[i].leaf, skip, &plen);
		p = put_ld(p, 5, plen);
		memcpy(p, path, plen);
		p += plen;
	}
	if (p > from)
		grpc_slice_buffer_add(sb, grpc_slice_sub(arena,
							 (size_t)(from - base),
							 (size_t)(p - base)));
	grpc_slice_unref(arena);
	for (size_t i = 0; i < n; i++)
		free(tv[i].buf);
	free(tv);
	return bb;
}

/* Sends the entries as notifications, in chunks of bounded size. */
static void stream_emit(struct gt_call *c, const struct gt_batch *b)
{
	struct gt_stream *st = c->st;
	size_t i = 0;
	while (i < b->n) {
		size_t bytes = 0, n = 0;
		while (i + n < b->n && n < GT_CHUNK_UPDATES &&
		       bytes < GT_CHUNK_BYTES) {
			const struct gt_value *v = &b->v[i + n].leaf->pub;
			if (v->type == GT_STRING || v->type == GT_JSON)
				bytes += v->len;
			bytes += 64;
			n++;
		}
		call_enqueue(c,
			     pack_stream_note(&st->pfx, &b->v[i], n,
					      st->encoding, c->t->tick_ts),
			     false);
		i += n;
	}
}

static void stream_sync(struct gt_call *c)
{
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
	r.sync_response = 1;
	send_response(c, &r);
}

/* Every published leaf of every subscription, then sync_response. */
static void stream_dump(struct gt_call *c, bool with_values)
{
	struct gt_stream *st = c->st;
	struct gt_batch b = { 0 };
	if (with_values)
		for (size_t i = 0; i < st->n_subs; i++)
			sub_collect_all(c->t, &st->subs[i], &b);
	stream_emit(c, &b);
	free(b.v);
	stream_sync(c);
}

/*
 * The initial transmission: current values (unless updates_only) and
 * sync_response; ONCE then ends with OK. Deferred while silent.
 */
static void stream_initial(struct gt_call *c)
{
	struct gt_stream *st = c->st;
	struct gnmi_target *t = c->t;
	if (t->silent) {
		st->need_initial = true;
		return;
	}
	st->need_initial = false;
	for (size_t i = 0; i < st->n_subs; i++) {
		st->subs[i].last_gen = t->gen;
		st->subs[i].last_sample_gen = t->gen;
	}
	stream_dump(c, !st->updates_only);
	if (st->mode == GNMI__SUBSCRIPTION_LIST__MODE__ONCE)
		call_finish(c, GRPC_STATUS_OK, "%s", "");
}

/* After a tick: ON_CHANGE updates (string and bool leaves under
 * TARGET_DEFINED) and deletes for every STREAM subscription. */
static void stream_on_tick(struct gt_call *c)
{
	struct gt_stream *st = c->st;
	struct gnmi_target *t = c->t;
	struct gt_batch b = { 0 };
	for (size_t i = 0; i < st->n_subs; i++) {
		struct gt_sub *s = &st->subs[i];
		/* A SAMPLE subscription hears of deletes only: with none
		 * since it last looked, its leaves need no walk. */
		if (s->mode == GT_SM_SAMPLE && t->del_gen <= s->last_gen) {
			s->last_gen = t->gen;
			continue;
		}
		sub_refresh(t, s);
		for (size_t k = 0; k < s->n_matched; k++) {
			struct gnmi_target_leaf *l = s->matched[k];
			if (l->changed_gen <= s->last_gen)
				continue;
			if (l->pub.type == GT_NONE)
				batch_add(&b, l, true);
			else if (s->mode == GT_SM_ON_CHANGE ||
				 (s->mode == GT_SM_TARGET_DEFINED &&
				  !value_is_counter(&l->pub)))
				batch_add(&b, l, false);
		}
		s->last_gen = t->gen;
	}
	stream_emit(c, &b);
	free(b.v);
}

/* Runs the sample and heartbeat timers of a STREAM subscription (loop
 * thread); returns its next due time. */
static int64_t stream_service(struct gt_call *c, int64_t now)
{
	struct gt_stream *st = c->st;
	struct gnmi_target *t = c->t;
	struct gt_batch b = { 0 };
	int64_t due = INT64_MAX;
	bool can_send = !t->silent && !st->need_initial;
	if (can_send &&
	    (c->q_len >= GT_QUEUE_SOFT || c->q_bytes >= GT_QUEUE_SOFT_BYTES)) {
		can_send = false;
		if (st->skipped++ == 0)
			log_warn("sim",
				 "gNMI target port %d: subscriber is slow, "
				 "skipping samples",
				 t->port);
	}
	for (size_t i = 0; i < st->n_subs; i++) {
		struct gt_sub *s = &st->subs[i];
		bool hb = s->hb_ns && now >= s->next_hb;
		bool sample = s->sample_ns && now >= s->next_sample;
		if (hb)
			s->next_hb = advance(s->next_hb, s->hb_ns, now);
		if (sample)
			s->next_sample =
			    advance(s->next_sample, s->sample_ns, now);
		if (s->hb_ns)
			due = min64(due, s->next_hb);
		if (s->sample_ns)
			due = min64(due, s->next_sample);
		if (!can_send || !(hb || sample))
			continue;
		sub_refresh(t, s);
		for (size_t k = 0; k < s->n_matched; k++) {
			struct gnmi_target_leaf *l = s->matched[k];
			if (l->pub.type == GT_NONE)
				continue;
			if (!hb) {
				if (s->mode == GT_SM_TARGET_DEFINED &&
				    !value_is_counter(&l->pub))
					continue;
				if (s->suppress &&
				    l->changed_gen <= s->last_sample_gen)
					continue;
			}
			batch_add(&b, l, false);
		}
		s->last_sample_gen = t->gen;
	}
	stream_emit(c, &b);
	free(b.v);
	return due;
}

/* Loop thread, target locked. */
static int64_t target_service(struct gnmi_target *t, int64_t now)
{
	int64_t due = INT64_MAX;
	for (struct gt_call *c = t->calls; c; c = c->next)
		if (call_streaming(c) &&
		    c->st->mode == GNMI__SUBSCRIPTION_LIST__MODE__STREAM)
			due = min64(due, stream_service(c, now));
	return due;
}

static void schedule(struct gnmi_target *t, int64_t due)
{
	t->next_due = min64(t->next_due, due);
	t->loop->next_due = min64(t->loop->next_due, due);
	t->loop->resync = true;
}

/* RPC handlers */

static bool flatten(grpc_byte_buffer *bb, grpc_slice *out)
{
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, bb))
		return false;
	*out = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	return true;
}

static bool md_equals(const grpc_metadata_array *md, const char *key,
		      const char *want, bool *present)
{
	for (size_t i = 0; i < md->count; i++) {
		if (grpc_slice_str_cmp(md->metadata[i].key, key) != 0)
			continue;
		*present = true;
		const grpc_slice v = md->metadata[i].value;
		return GRPC_SLICE_LENGTH(v) == strlen(want) &&
		       memcmp(GRPC_SLICE_START_PTR(v), want,
			      GRPC_SLICE_LENGTH(v)) == 0;
	}
	*present = false;
	return false;
}

/* 0 if the call may proceed; else it has been finished. */
static int call_authenticate(struct gt_call *c)
{
	struct gnmi_target *t = c->t;
	if (!t->username)
		return 0;
	bool has_user, has_pass;
	bool user_ok = md_equals(&c->md, "username", t->username, &has_user);
	bool pass_ok = md_equals(&c->md, "password", t->password, &has_pass);
	if (!has_user || !has_pass) {
		call_finish(c, GRPC_STATUS_UNAUTHENTICATED,
			    "missing username or password in the metadata");
		return -EACCES;
	}
	if (!user_ok || !pass_ok) {
		call_finish(c, GRPC_STATUS_UNAUTHENTICATED,
			    "authentication failed: invalid username or "
			    "password");
		return -EACCES;
	}
	return 0;
}

static void handle_capabilities(struct gt_call *c, const grpc_slice *msg)
{
	struct gnmi_target *t = c->t;
	Gnmi__CapabilityRequest *req = gnmi__capability_request__unpack(
	    NULL, GRPC_SLICE_LENGTH(*msg), GRPC_SLICE_START_PTR(*msg));
	if (!req) {
		call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			    "cannot decode the CapabilityRequest");
		return;
	}
	gnmi__capability_request__free_unpacked(req, NULL);

	Gnmi__CapabilityResponse r = GNMI__CAPABILITY_RESPONSE__INIT;
	Gnmi__ModelData **models = xcalloc(t->n_models + 1, sizeof *models);
	for (size_t i = 0; i < t->n_models; i++)
		models[i] = &t->models[i];
	static const Gnmi__Encoding order[] = {
		GNMI__ENCODING__JSON,
		GNMI__ENCODING__PROTO,
		GNMI__ENCODING__JSON_IETF,
	};
	Gnmi__Encoding encs[3];
	size_t n_encs = 0;
	for (size_t i = 0; i < 3; i++)
		if (encoding_supported(t, order[i]))
			encs[n_encs++] = order[i];
	r.n_supported_models = t->n_models;
	r.supported_models = models;
	r.n_supported_encodings = n_encs;
	r.supported_encodings = encs;
	r.gnmi_version = (char *)GNMI_TARGET_VERSION;
	call_enqueue(c, gnmi_pack_message(&r.base), false);
	free(models);
	call_finish(c, GRPC_STATUS_OK, "%s", "");
}

static void handle_get(struct gt_call *c, const grpc_slice *msg)
{
	struct gnmi_target *t = c->t;
	Gnmi__GetRequest *req = gnmi__get_request__unpack(
	    NULL, GRPC_SLICE_LENGTH(*msg), GRPC_SLICE_START_PTR(*msg));
	if (!req) {
		call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			    "cannot decode the GetRequest");
		return;
	}
	struct gt_prefix pfx;
	size_t n_paths = req->n_path ? req->n_path : 1;
	struct gt_note *notes = xcalloc(n_paths, sizeof *notes);
	Gnmi__Notification **np = xcalloc(n_paths, sizeof *np);
	struct gt_batch *batches = xcalloc(n_paths, sizeof *batches);
	size_t done = 0;

	if (!encoding_supported(t, req->encoding)) {
		call_finish(c, GRPC_STATUS_UNIMPLEMENTED,
			    "unsupported encoding %d", (int)req->encoding);
		goto out;
	}
	if (prefix_init(&pfx, req->prefix) < 0) {
		call_finish(c, GRPC_STATUS_INVALID_ARGUMENT, "invalid prefix");
		goto out;
	}
	for (; done < n_paths; done++) {
		struct gnmi_path p;
		if (request_path(&pfx, req->n_path ? req->path[done] : NULL,
				 &p) < 0) {
			call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				    "invalid path");
			break;
		}
		for (size_t i = 0; i < t->n_leaves; i++) {
			struct gnmi_target_leaf *l = t->leaves[i];
			if (l->pub.type != GT_NONE &&
			    path_match(p.elem, p.n_elem, l->path.elem,
				       l->path.n_elem))
				batch_add(&batches[done], l, false);
		}
		if (!batches[done].n) {
			char *s = gnmi_path_string(&p);
			call_finish(c, GRPC_STATUS_NOT_FOUND,
				    "path %s not found", s);
			free(s);
			gnmi_path_clear(&p);
			break;
		}
		gnmi_path_clear(&p);
		note_fill(&notes[done], &pfx, batches[done].v, batches[done].n,
			  req->encoding, t->tick_ts);
		np[done] = &notes[done].n;
	}
	if (done == n_paths) {
		Gnmi__GetResponse r = GNMI__GET_RESPONSE__INIT;
		r.n_notification = n_paths;
		r.notification = np;
		call_enqueue(c, gnmi_pack_message(&r.base), false);
		call_finish(c, GRPC_STATUS_OK, "%s", "");
	}
	for (size_t i = 0; i < done; i++)
		note_clear(&notes[i]);
	prefix_clear(&pfx);
out:
	for (size_t i = 0; i < n_paths; i++)
		free(batches[i].v);
	free(batches);
	free(np);
	free(notes);
	gnmi__get_request__free_unpacked(req, NULL);
}

/*
 * Validates a SubscriptionList into a stream. 0, or a gRPC status with
 * its message in msg.
 */
static grpc_status_code stream_create(struct gt_call *c,
				      const Gnmi__SubscriptionList *list,
				      char *msg, size_t msglen)
{
	struct gnmi_target *t = c->t;
	int mode = (int)list->mode;
	if (mode != GNMI__SUBSCRIPTION_LIST__MODE__STREAM &&
	    mode != GNMI__SUBSCRIPTION_LIST__MODE__ONCE &&
	    mode != GNMI__SUBSCRIPTION_LIST__MODE__POLL) {
		snprintf(msg, msglen, "unknown subscription list mode %d",
			 mode);
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	if (!encoding_supported(t, list->encoding)) {
		snprintf(msg, msglen, "unsupported encoding %d",
			 (int)list->encoding);
		return GRPC_STATUS_UNIMPLEMENTED;
	}
	if (!list->n_subscription) {
		snprintf(msg, msglen, "the subscription list is empty");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	struct gt_stream *st = xcalloc(1, sizeof *st);
	st->mode = mode;
	st->encoding = list->encoding;
	st->updates_only = list->updates_only;
	st->subs = xcalloc(list->n_subscription, sizeof *st->subs);
	grpc_status_code code = GRPC_STATUS_OK;
	if (prefix_init(&st->pfx, list->prefix) < 0) {
		snprintf(msg, msglen, "invalid prefix");
		code = GRPC_STATUS_INVALID_ARGUMENT;
		goto fail;
	}
	int64_t now = mono_ns();
	for (size_t i = 0; i < list->n_subscription; i++) {
		const Gnmi__Subscription *in = list->subscription[i];
		struct gt_sub *s = &st->subs[i];
		if (request_path(&st->pfx, in->path, &s->path) < 0) {
			snprintf(msg, msglen,
				 "invalid path in subscription %zu", i);
			code = GRPC_STATUS_INVALID_ARGUMENT;
			goto fail;
		}
		st->n_subs++;
		if (mode != GNMI__SUBSCRIPTION_LIST__MODE__STREAM)
			continue;
		uint64_t iv = in->sample_interval;
		uint64_t hb = in->heartbeat_interval;
		switch ((int)in->mode) {
		case GNMI__SUBSCRIPTION_MODE__ON_CHANGE:
			s->mode = GT_SM_ON_CHANGE;
			iv = 0;
			break;
		case GNMI__SUBSCRIPTION_MODE__SAMPLE:
			s->mode = GT_SM_SAMPLE;
			break;
		case GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED:
			s->mode = GT_SM_TARGET_DEFINED;
			break;
		default:
			snprintf(msg, msglen, "unknown subscription mode %d",
				 (int)in->mode);
			code = GRPC_STATUS_INVALID_ARGUMENT;
			goto fail;
		}
		uint64_t bad = 0;
		if (iv && iv < (uint64_t)t->min_ns)
			bad = iv;
		else if (hb && hb < (uint64_t)t->min_ns)
			bad = hb;
		if (bad) {
			char got[40], min[40];
			format_duration(got, sizeof got, bad);
			format_duration(min, sizeof min, (uint64_t)t->min_ns);
			snprintf(msg, msglen,
				 "invalid interval %s. It cannot be less than "
				 "%s",
				 got, min);
			code = GRPC_STATUS_INVALID_ARGUMENT;
			goto fail;
		}
		/* Keep the timer arithmetic far from overflow. */
		const uint64_t cap = (uint64_t)INT64_MAX / 4;
		if (s->mode != GT_SM_ON_CHANGE)
			s->sample_ns = (int64_t)(iv ? (iv < cap ? iv : cap)
						    : (uint64_t)t->default_ns);
		s->hb_ns = (int64_t)(hb < cap ? hb : cap);
		s->suppress = in->suppress_redundant;
		s->next_sample = now + s->sample_ns;
		s->next_hb = now + s->hb_ns;
	}
	c->st = st;
	return GRPC_STATUS_OK;
fail:
	stream_free(st);
	return code;
}

static void handle_subscribe(struct gt_call *c, const grpc_slice *msg)
{
	struct gnmi_target *t = c->t;
	Gnmi__SubscribeRequest *req = gnmi__subscribe_request__unpack(
	    NULL, GRPC_SLICE_LENGTH(*msg), GRPC_SLICE_START_PTR(*msg));
	if (!req) {
		call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			    "cannot decode the SubscribeRequest");
		return;
	}
	switch (req->request_case) {
	case GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE: {
		if (c->st) {
			call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				    "a subscription list was already received");
			break;
		}
		char err[256];
		grpc_status_code code =
		    stream_create(c, req->subscribe, err, sizeof err);
		if (code != GRPC_STATUS_OK) {
			call_finish(c, code, "%s", err);
			break;
		}
		if (c->st->mode != GNMI__SUBSCRIPTION_LIST__MODE__ONCE)
			call_recv(c);
		stream_initial(c);
		if (c->st->mode == GNMI__SUBSCRIPTION_LIST__MODE__STREAM) {
			int64_t due = INT64_MAX;
			for (size_t i = 0; i < c->st->n_subs; i++) {
				const struct gt_sub *s = &c->st->subs[i];
				if (s->sample_ns)
					due = min64(due, s->next_sample);
				if (s->hb_ns)
					due = min64(due, s->next_hb);
			}
			schedule(t, due);
		}
		break;
	}
	case GNMI__SUBSCRIBE_REQUEST__REQUEST_POLL:
		if (!c->st ||
		    c->st->mode != GNMI__SUBSCRIPTION_LIST__MODE__POLL) {
			call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				    "poll request without a POLL "
				    "subscription");
			break;
		}
		call_recv(c);
		if (!t->silent && !c->st->need_initial)
			stream_dump(c, true);
		break;
	default:
		call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			    "SubscribeRequest without subscribe or poll");
		break;
	}
	gnmi__subscribe_request__free_unpacked(req, NULL);
}

/* Completions (loop thread, target locked) */

static void call_destroy(struct gt_call *c)
{
	if (c->call)
		grpc_call_unref(c->call);
	if (c->recv_bb)
		grpc_byte_buffer_destroy(c->recv_bb);
	grpc_metadata_array_destroy(&c->md);
	if (c->kind == GT_OTHER)
		grpc_call_details_destroy(&c->details);
	call_drop_queue(c);
	while (c->inflight) {
		struct gt_out *o = c->inflight;
		c->inflight = o->next;
		out_free(o);
	}
	stream_free(c->st);
	free(c);
}

static void server_request(struct gt_server *s, enum gt_kind kind)
{
	struct gt_call *c = xcalloc(1, sizeof *c);
	grpc_completion_queue *cq = s->t->loop->cq;
	c->t = s->t;
	c->srv = s;
	c->kind = kind;
	c->t_req.kind = GT_TAG_REQUEST;
	c->t_close.kind = GT_TAG_CLOSE;
	c->t_recv.kind = GT_TAG_RECV;
	c->t_send.kind = GT_TAG_SEND;
	grpc_metadata_array_init(&c->md);
	grpc_call_error e;
	if (kind == GT_OTHER) {
		grpc_call_details_init(&c->details);
		e = grpc_server_request_call(s->srv, &c->call, &c->details,
					     &c->md, cq, cq, &c->t_req);
	} else {
		e = grpc_server_request_registered_call(
		    s->srv, s->rm[kind], &c->call, &c->deadline, &c->md, NULL,
		    cq, cq, &c->t_req);
	}
	if (e != GRPC_CALL_OK) {
		log_warn("sim", "gNMI target: request_call failed: %s",
			 grpc_call_error_to_string(e));
		call_destroy(c);
		return;
	}
	s->pending_reqs++;
}

static void server_reap(struct gt_server *s)
{
	struct gnmi_target *t = s->t;
	if (!s->shutdown_done || s->pending_reqs || s->ncalls)
		return;
	grpc_server_destroy(s->srv);
	for (struct gt_server **pp = &t->servers; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

/* Frees c once gRPC is done with it. */
static void call_reap(struct gt_call *c)
{
	if (!c->closed || c->pending)
		return;
	struct gnmi_target *t = c->t;
	struct gt_server *s = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		t->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	call_destroy(c);
	s->ncalls--;
	server_reap(s);
}

static void on_request(struct gt_call *c, bool ok)
{
	struct gt_server *s = c->srv;
	struct gnmi_target *t = c->t;
	s->pending_reqs--;
	if (!ok) {
		call_destroy(c);
		server_reap(s);
		return;
	}
	if (!s->shutting_down)
		server_request(s, c->kind);
	c->accepted = true;
	s->ncalls++;
	c->next = t->calls;
	if (t->calls)
		t->calls->prev = c;
	t->calls = c;

	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c->cancelled;
	grpc_call_error e =
	    grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL);
	if (e != GRPC_CALL_OK) {
		/* Without it we would never learn the call is over. */
		c->closed = true;
		call_break(c, "close batch", e);
		call_reap(c);
		return;
	}
	c->pending++;

	if (c->kind == GT_OTHER) {
		char *m = grpc_slice_to_c_string(c->details.method);
		call_finish(c, GRPC_STATUS_UNIMPLEMENTED, "unknown method %s",
			    m);
		gpr_free(m);
		return;
	}
	if (call_authenticate(c) < 0)
		return;
	call_recv(c);
}

static void on_recv(struct gt_call *c, bool ok)
{
	grpc_byte_buffer *bb = c->recv_bb;
	c->recv_bb = NULL;
	c->recv_busy = false;
	c->pending--;
	if (!ok || !call_can_send(c)) {
		if (bb)
			grpc_byte_buffer_destroy(bb);
		return;
	}
	if (!bb) {
		/*
		 * Half-close. A STREAM subscription goes on; a POLL one
		 * can get no more polls, so it ends; a unary call or a
		 * Subscribe without a request is an error.
		 */
		if (!c->st)
			call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				    "no request message");
		else if (c->st->mode == GNMI__SUBSCRIPTION_LIST__MODE__POLL)
			call_finish(c, GRPC_STATUS_OK, "%s", "");
		return;
	}
	grpc_slice msg;
	bool flat = flatten(bb, &msg);
	grpc_byte_buffer_destroy(bb);
	if (!flat) {
		call_finish(c, GRPC_STATUS_INTERNAL, "cannot read the message");
		return;
	}
	switch (c->kind) {
	case GT_CAPS:
		handle_capabilities(c, &msg);
		break;
	case GT_GET:
		handle_get(c, &msg);
		break;
	case GT_SUBSCRIBE:
		handle_subscribe(c, &msg);
		break;
	case GT_OTHER:
	case GT_NKINDS:
		break;
	}
	grpc_slice_unref(msg);
}

static void on_send(struct gt_call *c, bool ok)
{
	c->send_busy = false;
	c->pending--;
	while (c->inflight) {
		struct gt_out *o = c->inflight;
		c->inflight = o->next;
		out_free(o);
	}
	if (!ok) {
		/* The call is being torn down; its close will follow. */
		c->broken = true;
		call_drop_queue(c);
		return;
	}
	call_flush(c);
}

static void on_close(struct gt_call *c)
{
	c->closed = true;
	c->pending--;
	call_drop_queue(c);
}

static void loop_dispatch(struct gt_tag *tag, bool ok)
{
	struct gnmi_target *t;
	if (tag->kind == GT_TAG_SHUTDOWN) {
		struct gt_server *s =
		    container_of(tag, struct gt_server, t_shutdown);
		t = s->t;
		pthread_mutex_lock(&t->lock);
		s->shutdown_done = true;
		server_reap(s);
	} else {
		struct gt_call *c = NULL;
		switch (tag->kind) {
		case GT_TAG_REQUEST:
			c = container_of(tag, struct gt_call, t_req);
			break;
		case GT_TAG_CLOSE:
			c = container_of(tag, struct gt_call, t_close);
			break;
		case GT_TAG_RECV:
			c = container_of(tag, struct gt_call, t_recv);
			break;
		case GT_TAG_SEND:
			c = container_of(tag, struct gt_call, t_send);
			break;
		case GT_TAG_SHUTDOWN:
			break;
		}
		t = c->t;
		pthread_mutex_lock(&t->lock);
		switch (tag->kind) {
		case GT_TAG_REQUEST:
			on_request(c, ok);
			break;
		case GT_TAG_CLOSE:
			on_close(c);
			call_reap(c);
			break;
		case GT_TAG_RECV:
			on_recv(c, ok);
			call_reap(c);
			break;
		case GT_TAG_SEND:
			on_send(c, ok);
			call_reap(c);
			break;
		case GT_TAG_SHUTDOWN:
			break;
		}
	}
	/* Nothing of t may be touched after the unlock: a waiting
	 * gnmi_target_free() may free it. */
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

/* Runs the timers of every due target (loop thread). */
static void loop_run_due(struct gnmi_target_loop *loop, int64_t now)
{
	int64_t due = INT64_MAX;
	pthread_mutex_lock(&loop->lock);
	if (loop->resync) {
		for (size_t i = 0; i < loop->n_tv; i++)
			loop->tdue[i] = loop->tv[i]->next_due;
		loop->resync = false;
	}
	for (size_t i = 0; i < loop->n_tv; i++) {
		if (loop->tdue[i] <= now) {
			struct gnmi_target *t = loop->tv[i];
			pthread_mutex_lock(&t->lock);
			t->next_due = target_service(t, now);
			pthread_mutex_unlock(&t->lock);
			loop->tdue[i] = t->next_due;
		}
		due = min64(due, loop->tdue[i]);
	}
	pthread_mutex_unlock(&loop->lock);
	if (due != INT64_MAX && due <= INT64_MAX - GT_TIMER_GRAIN_NS)
		due += GT_TIMER_GRAIN_NS - 1 -
		       (due + GT_TIMER_GRAIN_NS - 1) % GT_TIMER_GRAIN_NS;
	loop->next_due = due;
}

static void *loop_main(void *arg)
{
	struct gnmi_target_loop *loop = arg;
	pthread_setname_np(pthread_self(), "gnmi-target");
	for (;;) {
		int64_t now = mono_ns();
		int64_t until = min64(loop->next_due, now + GT_MAX_WAIT_NS);
		grpc_event ev = grpc_completion_queue_next(
		    loop->cq, mono_deadline(until), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type == GRPC_OP_COMPLETE)
			loop_dispatch(ev.tag, ev.success != 0);
		now = mono_ns();
		if (now >= loop->next_due)
			loop_run_due(loop, now);
	}
	return NULL;
}

/* Loop API */

struct gnmi_target_loop *gnmi_target_loop_new(void)
{
	struct gnmi_target_loop *loop = xcalloc(1, sizeof *loop);
	grpc_init();
	loop->cq = grpc_completion_queue_create_for_next(NULL);
	loop->next_due = INT64_MAX;
	pthread_mutex_init(&loop->lock, NULL);
	if (pthread_create(&loop->thread, NULL, loop_main, loop) != 0) {
		grpc_completion_queue_shutdown(loop->cq);
		grpc_completion_queue_destroy(loop->cq);
		pthread_mutex_destroy(&loop->lock);
		grpc_shutdown();
		free(loop);
		return NULL;
	}
	return loop;
}

void gnmi_target_loop_free(struct gnmi_target_loop *loop)
{
	if (!loop)
		return;
	if (loop->targets)
		log_err("sim", "gNMI target loop freed with targets on it");
	/* The thread sees GRPC_QUEUE_SHUTDOWN once the queue is empty. */
	grpc_completion_queue_shutdown(loop->cq);
	pthread_join(loop->thread, NULL);
	grpc_completion_queue_destroy(loop->cq);
	pthread_mutex_destroy(&loop->lock);
	grpc_shutdown();
	free(loop->tv);
	free(loop->tdue);
	free(loop);
}

/* Servers (target locked) */

static grpc_server_credentials *server_credentials(struct gnmi_target *t)
{
	if (!t->cert)
		return grpc_insecure_server_credentials_create();
	grpc_ssl_pem_key_cert_pair pair = { t->key, t->cert };
	return grpc_ssl_server_credentials_create_ex(
	    t->ca, &pair, 1,
	    t->ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
		  : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
	    NULL);
}

/* Creates, binds and starts a server on t->address: 0 or -EADDRINUSE. */
static int server_start(struct gnmi_target *t)
{
	grpc_arg args[4];
	size_t n = 0;
	memset(args, 0, sizeof args);
	/* Without this a second server could share the port silently. */
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = (char *)GRPC_ARG_ALLOW_REUSEPORT;
	args[n++].value.integer = 0;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key =
	    (char *)GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS;
	args[n++].value.integer = t->min_ping_ms ? (int)t->min_ping_ms : 1000;
	if (!t->min_ping_ms) {
		args[n].type = GRPC_ARG_INTEGER;
		args[n].key = (char *)GRPC_ARG_HTTP2_MAX_PING_STRIKES;
		args[n++].value.integer = 0;
		args[n].type = GRPC_ARG_INTEGER;
		args[n].key = (char *)GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS;
		args[n++].value.integer = 1;
	}
	grpc_channel_args cargs = { n, args };

	struct gt_server *s = xcalloc(1, sizeof *s);
	s->t = t;
	s->t_shutdown.kind = GT_TAG_SHUTDOWN;
	s->srv = grpc_server_create(&cargs, NULL);
	grpc_server_register_completion_queue(s->srv, t->loop->cq, NULL);
	for (int k = 0; k < GT_OTHER; k++)
		s->rm[k] = grpc_server_register_method(
		    s->srv, gt_methods[k], NULL, GRPC_SRM_PAYLOAD_NONE, 0);
	grpc_server_credentials *creds = server_credentials(t);
	int port =
	    creds ? grpc_server_add_http2_port(s->srv, t->address, creds) : 0;
	if (creds)
		grpc_server_credentials_release(creds);
	if (port <= 0) {
		grpc_server_destroy(s->srv);
		free(s);
		return creds ? -EADDRINUSE : -EINVAL;
	}
	grpc_server_start(s->srv);
	/* Restarts bind the same port: set once, then only read. */
	if (!t->is_unix && !t->port)
		t->port = port;
	s->next = t->servers;
	t->servers = s;
	t->srv = s;
	for (int k = 0; k < GT_NKINDS; k++)
		server_request(s, (enum gt_kind)k);
	return 0;
}

static void server_shutdown(struct gt_server *s, bool cancel)
{
	if (!s->shutting_down) {
		s->shutting_down = true;
		grpc_server_shutdown_and_notify(s->srv, s->t->loop->cq,
						&s->t_shutdown);
	}
	if (cancel)
		grpc_server_cancel_all_calls(s->srv);
	if (s->t->srv == s)
		s->t->srv = NULL;
}

/* Shuts every server down, cancels every call and waits until all are
 * gone. Target locked. */
static void target_drain(struct gnmi_target *t)
{
	for (struct gt_server *s = t->servers; s; s = s->next)
		server_shutdown(s, true);
	while (t->servers)
		pthread_cond_wait(&t->cond, &t->lock);
}

/* Target API */

void gnmi_target_options_init(struct gnmi_target_options *o)
{
	memset(o, 0, sizeof *o);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void target_release(struct gnmi_target *t)
{
	for (size_t i = 0; i < t->n_leaves; i++)
		leaf_free(t->leaves[i]);
	free(t->leaves);
	free(t->buckets);
	free(t->dirty);
	for (size_t i = 0; i < t->n_models; i++) {
		free(t->models[i].name);
		free(t->models[i].organization);
		free(t->models[i].version);
	}
	free(t->models);
	free(t->address);
	free(t->cert);
	free(t->key);
	free(t->ca);
	free(t->username);
	free(t->password);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void loop_link(struct gnmi_target_loop *loop, struct gnmi_target *t)
{
	pthread_mutex_lock(&loop->lock);
	t->lnext = loop->targets;
	if (loop->targets)
		loop->targets->lprev = t;
	loop->targets = t;
	if (loop->n_tv == loop->cap_tv) {
		loop->cap_tv = loop->cap_tv ? 2 * loop->cap_tv : 16;
		loop->tv =
		    xreallocarray(loop->tv, loop->cap_tv, sizeof *loop->tv);
		loop->tdue =
		    xreallocarray(loop->tdue, loop->cap_tv, sizeof *loop->tdue);
	}
	t->lidx = loop->n_tv++;
	loop->tv[t->lidx] = t;
	loop->tdue[t->lidx] = t->next_due;
	pthread_mutex_unlock(&loop->lock);
}

static void loop_unlink(struct gnmi_target_loop *loop, struct gnmi_target *t)
{
	pthread_mutex_lock(&loop->lock);
	if (t->lprev)
		t->lprev->lnext = t->lnext;
	else
		loop->targets = t->lnext;
	if (t->lnext)
		t->lnext->lprev = t->lprev;
	size_t last = --loop->n_tv;
	loop->tv[t->lidx] = loop->tv[last];
	loop->tdue[t->lidx] = loop->tdue[last];
	loop->tv[t->lidx]->lidx = t->lidx;
	pthread_mutex_unlock(&loop->lock);
}

static const char *options_check(const struct gnmi_target_options *o)
{
	if (!o || !o->address || !*o->address)
		return "no listen address";
	if (!o->tls_cert_pem != !o->tls_key_pem)
		return "TLS needs both a certificate and a key";
	if (o->tls_client_ca_pem && !o->tls_cert_pem)
		return "a client CA needs TLS";
	if (o->encodings & ~GNMI_TARGET_ENC_ALL)
		return "unsupported encoding bits";
	if (o->n_models && !o->models)
		return "n_models without models";
	if (o->min_sample_interval_ns > (uint64_t)INT64_MAX / 4 ||
	    o->default_sample_interval_ns > (uint64_t)INT64_MAX / 4)
		return "sample interval out of range";
	return NULL;
}

struct gnmi_target *gnmi_target_new(struct gnmi_target_loop *loop,
				    const struct gnmi_target_options *opt,
				    char *err, size_t errlen)
{
	const char *bad = options_check(opt);
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		return NULL;
	}
	struct gnmi_target *t = xcalloc(1, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	t->next_due = INT64_MAX;
	t->address = xstrdup(opt->address);
	t->is_unix = strncmp(opt->address, "unix:", 5) == 0;
	t->cert = dup_or_null(opt->tls_cert_pem);
	t->key = dup_or_null(opt->tls_key_pem);
	t->ca = dup_or_null(opt->tls_client_ca_pem);
	if (opt->username) {
		t->username = xstrdup(opt->username);
		t->password = xstrdup(opt->password ? opt->password : "");
	}
	t->encodings = opt->encodings ? opt->encodings : GNMI_TARGET_ENC_ALL;
	t->min_ns = (int64_t)opt->min_sample_interval_ns;
	t->default_ns = (int64_t)opt->default_sample_interval_ns;
	if (!t->default_ns)
		t->default_ns = GT_NS;
	if (t->default_ns < t->min_ns)
		t->default_ns = t->min_ns;
	t->min_ping_ms = opt->min_ping_interval_ms;
	t->n_models = opt->n_models;
	t->models = xcalloc(opt->n_models + 1, sizeof *t->models);
	for (size_t i = 0; i < opt->n_models; i++) {
		const struct gnmi_target_model *m = &opt->models[i];
		gnmi__model_data__init(&t->models[i]);
		t->models[i].name = xstrdup(m->name ? m->name : "");
		t->models[i].organization =
		    xstrdup(m->organization ? m->organization : "");
		t->models[i].version = xstrdup(m->version ? m->version : "");
	}

	if (!loop) {
		loop = gnmi_target_loop_new();
		if (!loop) {
			snprintf(err, errlen, "cannot start the loop thread");
			target_release(t);
			return NULL;
		}
		t->own_loop = true;
	}
	t->loop = loop;
	loop_link(loop, t);

	pthread_mutex_lock(&t->lock);
	int rc = server_start(t);
	pthread_mutex_unlock(&t->lock);
	if (rc < 0) {
		snprintf(err, errlen, "cannot listen on %s%s", opt->address,
			 t->cert ? " (or bad TLS certificate or key)" : "");
		loop_unlink(loop, t);
		if (t->own_loop)
			gnmi_target_loop_free(loop);
		target_release(t);
		return NULL;
	}
	/* Restarts bind the same port as the first start. */
	size_t alen = strlen(t->address);
	if (!t->is_unix && alen > 2 &&
	    strcmp(t->address + alen - 2, ":0") == 0) {
		char *a =
		    xasprintf("%.*s:%d", (int)(alen - 2), t->address, t->port);
		free(t->address);
		t->address = a;
	}
	return t;
}

void gnmi_target_free(struct gnmi_target *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	target_drain(t);
	pthread_mutex_unlock(&t->lock);
	struct gnmi_target_loop *loop = t->loop;
	loop_unlink(loop, t);
	bool own = t->own_loop;
	target_release(t);
	if (own)
		gnmi_target_loop_free(loop);
}

int gnmi_target_port(const struct gnmi_target *t)
{
	return t->port;
}

struct gnmi_target_leaf *gnmi_target_leaf(struct gnmi_target *t,
					  const char *path)
{
	struct gnmi_path p;
	char err[128];
	if (!path || gnmi_path_parse(path, &p, err, sizeof err) < 0)
		return NULL;
	if (path_has_wildcard(&p)) {
		gnmi_path_clear(&p);
		return NULL;
	}
	free(p.origin);
	free(p.target);
	p.origin = NULL;
	p.target = NULL;
	char *key = gnmi_path_string(&p);
	uint32_t h = hash_string(key);

	pthread_mutex_lock(&t->lock);
	struct gnmi_target_leaf *l = tree_find(t, key, h);
	if (l) {
		pthread_mutex_unlock(&t->lock);
		free(key);
		gnmi_path_clear(&p);
		return l;
	}
	l = xcalloc(1, sizeof *l);
	l->t = t;
	l->path = p;
	l->pb = gnmi_path_to_pb(&l->path);
	l->key = key;
	l->hash = h;
	tree_insert(t, l);
	pthread_mutex_unlock(&t->lock);
	return l;
}

void gnmi_target_leaf_set_uint(struct gnmi_target_leaf *l, uint64_t v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_UINT, .u = v });
}

void gnmi_target_leaf_set_int(struct gnmi_target_leaf *l, int64_t v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_INT, .i = v });
}

void gnmi_target_leaf_set_double(struct gnmi_target_leaf *l, double v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_DOUBLE, .d = v });
}

void gnmi_target_leaf_set_bool(struct gnmi_target_leaf *l, bool v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_BOOL, .b = v });
}

/* A text value: a copy of the n bytes at s with its length (JSON in a
 * refcounted slice, never an inlined one: s points into it and the
 * value is moved around by copy). */
static struct gt_value value_text(enum gt_type type, const char *s, size_t n)
{
	struct gt_value v = { .type = type, .len = n };
	if (type == GT_JSON) {
		v.sl = grpc_slice_malloc_large(n + 1);
		v.s = (char *)GRPC_SLICE_START_PTR(v.sl);
	} else {
		v.s = xmalloc(n + 1);
	}
	memcpy(v.s, s, n);
	v.s[n] = '\0';
	return v;
}

void gnmi_target_leaf_set_string(struct gnmi_target_leaf *l, const char *v)
{
	if (!v)
		v = "";
	leaf_stage(l, value_text(GT_STRING, v, strlen(v)));
}

void gnmi_target_leaf_set_json(struct gnmi_target_leaf *l, const char *json)
{
	if (!json)
		json = "null";
	leaf_stage(l, value_text(GT_JSON, json, strlen(json)));
}

void gnmi_target_leaf_set_json_len(struct gnmi_target_leaf *l, const char *json,
				   size_t len)
{
	if (!json)
		gnmi_target_leaf_set_json(l, NULL);
	else
		leaf_stage(l, value_text(GT_JSON, json, len));
}

void gnmi_target_leaf_delete(struct gnmi_target_leaf *l)
{
	struct gnmi_target *t = l->t;
	pthread_mutex_lock(&t->lock);
	leaf_mark_dirty(l);
	value_clear(&l->live);
	l->staged = GT_STAGE_DELETE;
	pthread_mutex_unlock(&t->lock);
}

#define SET_BY_PATH(fn, type)                                             \
	int gnmi_target_set_##fn(struct gnmi_target *t, const char *path, \
				 type v)                                  \
	{                                                                 \
		struct gnmi_target_leaf *l = gnmi_target_leaf(t, path);   \
		if (!l)                                                   \
			return -EINVAL;                                   \
		gnmi_target_leaf_set_##fn(l, v);                          \
		return 0;                                                 \
	}

SET_BY_PATH(uint, uint64_t)
SET_BY_PATH(int, int64_t)
SET_BY_PATH(double, double)
SET_BY_PATH(bool, bool)
SET_BY_PATH(string, const char *)
SET_BY_PATH(json, const char *)

int gnmi_target_delete(struct gnmi_target *t, const char *path)
{
	struct gnmi_target_leaf *l = gnmi_target_leaf(t, path);
	if (!l)
		return -EINVAL;
	gnmi_target_leaf_delete(l);
	return 0;
}

void gnmi_target_tick(struct gnmi_target *t, int64_t timestamp_ns)
{
	if (!timestamp_ns)
		timestamp_ns = real_ns();
	pthread_mutex_lock(&t->lock);
	uint64_t gen = t->gen + 1;
	for (size_t i = 0; i < t->n_dirty; i++)
		leaf_publish(t->dirty[i], gen);
	t->n_dirty = 0;
	t->gen = gen;
	t->tick_ts = timestamp_ns;
	if (!t->silent)
		for (struct gt_call *c = t->calls; c; c = c->next)
			if (call_streaming(c) && !c->st->need_initial &&
			    c->st->mode ==
				GNMI__SUBSCRIPTION_LIST__MODE__STREAM)
				stream_on_tick(c);
	pthread_mutex_unlock(&t->lock);
}

size_t gnmi_target_stream_count(struct gnmi_target *t)
{
	size_t n = 0;
	pthread_mutex_lock(&t->lock);
	for (struct gt_call *c = t->calls; c; c = c->next)
		if (call_streaming(c))
			n++;
	pthread_mutex_unlock(&t->lock);
	return n;
}

int gnmi_target_stop(struct gnmi_target *t)
{
	pthread_mutex_lock(&t->lock);
	int rc = t->servers ? 0 : -EALREADY;
	target_drain(t);
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/*
 * Whether something still listens on t->address: a bind probe for TCP
 * (with SO_REUSEADDR only a listening socket makes the port busy), a
 * connect probe for unix sockets. An address we cannot parse or
 * resolve counts as closed.
 */
static bool listener_open(const struct gnmi_target *t)
{
	if (t->is_unix) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		const char *path = t->address + 5;
		if (strlen(path) >= sizeof sun.sun_path)
			return false;
		strcpy(sun.sun_path, path);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return false;
		bool open =
		    connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0;
		close(fd);
		return open;
	}
	const char *colon = strrchr(t->address, ':');
	if (!colon)
		return false;
	char host[256];
	const char *h = t->address;
	size_t hlen = (size_t)(colon - h);
	if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof host)
		return false;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	if (getaddrinfo(hlen ? host : NULL, colon + 1, &hints, &res) != 0)
		return false;
	bool open = false;
	for (struct addrinfo *ai = res; ai && !open; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				ai->ai_protocol);
		if (fd < 0)
			continue;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		    errno == EADDRINUSE)
			open = true;
		close(fd);
	}
	freeaddrinfo(res);
	return open;
}

int gnmi_target_refuse(struct gnmi_target *t)
{
	pthread_mutex_lock(&t->lock);
	if (!t->srv) {
		pthread_mutex_unlock(&t->lock);
		return -EALREADY;
	}
	server_shutdown(t->srv, false);
	pthread_mutex_unlock(&t->lock);
	/* gRPC closes the listener a moment after the shutdown: wait for
	 * it, so that connections are refused once we return. */
	for (int i = 0; i < GT_BIND_RETRIES * 4 && listener_open(t); i++)
		usleep(5000);
	return 0;
}

int gnmi_target_start(struct gnmi_target *t)
{
	int rc = -EALREADY;
	/*
	 * The old listener closes asynchronously after a shutdown, so
	 * the port may still be busy for a moment: retry for a second.
	 */
	for (int attempt = 0; attempt < GT_BIND_RETRIES; attempt++) {
		pthread_mutex_lock(&t->lock);
		rc = t->srv ? -EALREADY : server_start(t);
		pthread_mutex_unlock(&t->lock);
		if (rc != -EADDRINUSE)
			break;
		usleep(20000);
	}
	return rc;
}

void gnmi_target_set_silent(struct gnmi_target *t, bool silent)
{
	pthread_mutex_lock(&t->lock);
	t->silent = silent;
	if (!silent)
		for (struct gt_call *c = t->calls; c; c = c->next)
			if (call_streaming(c) && c->st->need_initial)
				stream_initial(c);
	pthread_mutex_unlock(&t->lock);
}

/* Queues payload on every streaming call, first or last in line. */
static size_t queue_raw(struct gnmi_target *t, const void *payload, size_t len,
			bool front)
{
	size_t n = 0;
	pthread_mutex_lock(&t->lock);
	for (struct gt_call *c = t->calls; c; c = c->next) {
		if (!call_streaming(c))
			continue;
		grpc_slice s = grpc_slice_from_copied_buffer(payload, len);
		grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
		grpc_slice_unref(s);
		call_enqueue(c, bb, front);
		n++;
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

size_t gnmi_target_inject(struct gnmi_target *t, const void *payload,
			  size_t len)
{
	return queue_raw(t, payload, len, true);
}

size_t gnmi_target_send_raw(struct gnmi_target *t, const void *payload,
			    size_t len)
{
	return queue_raw(t, payload, len, false);
}

size_t gnmi_target_queued(struct gnmi_target *t)
{
	size_t most = 0;
	pthread_mutex_lock(&t->lock);
	for (struct gt_call *c = t->calls; c; c = c->next)
		if (call_streaming(c) && (size_t)c->q_len > most)
			most = (size_t)c->q_len;
	pthread_mutex_unlock(&t->lock);
	return most;
}
