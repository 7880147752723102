/*
 * gnmi_client: the gNMI collector (see client.h).
 *
 * Each target is a small state machine driven by completions on its
 * thread's queue and by two timers (the next action: connect, poll,
 * re-run a ONCE; and the stream watchdog):
 *
 *   IDLE -> CAPS (Capabilities) -> STREAM (Subscribe) -> ... -> WAIT
 *
 * WAIT is a backoff before the next connect, or the interval before the
 * next ONCE. A call is over when its status batch has completed and no
 * other batch is pending; only then is it unreferenced (grpc-core-c.md
 * §3.4). A target being stopped cancels its call and is freed once the
 * call is over.
 *
 * Ownership: the main thread creates targets (config copy, profile,
 * mapper, TLS material) and hands them to a thread's mailbox; from then
 * on only that thread touches them, until it frees them after a stop
 * request, which the main thread waits for (so the store and health
 * entries of a removed target are not touched after reload returns).
 */
#include "config.h"

#include "client.h"

#include "cfg.h"
#include "clock.h"
#include "decode.h"
#include "health.h"
#include "links.h"
#include "lldp.h"
#include "log.h"
#include "mem.h"
#include "pack.h"
#include "path.h"
#include "profile.h"
#include "store.h"

#include "gnmi.pb-c.h"
#include "gnmi_cfg.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S  INT64_C(1000000000)

#define WAKE_MAX_NS	    (100 * NS_PER_MS) /* mailbox and stop latency */
#define BACKOFF_MIN_NS	    (1 * NS_PER_S)
#define BACKOFF_MAX_NS	    (60 * NS_PER_S)
#define FATAL_RETRY_NS	    (300 * NS_PER_S) /* 5 min, jittered up to 10 */
#define CAPS_DEADLINE_MS    10000
#define CONNECT_CAP_WAIT_NS (100 * NS_PER_MS)
#define PEM_MAX_BYTES	    (1024 * 1024)
#define KEEPALIVE_MS	    300000 /* targets' default ping policy allows it */

static const char *const status_names[] = {
	"OK",
	"CANCELLED",
	"UNKNOWN",
	"INVALID_ARGUMENT",
	"DEADLINE_EXCEEDED",
	"NOT_FOUND",
	"ALREADY_EXISTS",
	"PERMISSION_DENIED",
	"RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION",
	"ABORTED",
	"OUT_OF_RANGE",
	"UNIMPLEMENTED",
	"INTERNAL",
	"UNAVAILABLE",
	"DATA_LOSS",
	"UNAUTHENTICATED",
};

static const char *status_name(grpc_status_code s)
{
	if ((unsigned)s < sizeof status_names / sizeof status_names[0])
		return status_names[s];
	return "UNKNOWN";
}

/* Answers that retrying soon will not change. */
static bool status_is_fatal(grpc_status_code s)
{
	return s == GRPC_STATUS_UNAUTHENTICATED ||
	       s == GRPC_STATUS_PERMISSION_DENIED ||
	       s == GRPC_STATUS_INVALID_ARGUMENT ||
	       s == GRPC_STATUS_UNIMPLEMENTED ||
	       s == GRPC_STATUS_FAILED_PRECONDITION;
}

static const char *encoding_name(int e)
{
	switch (e) {
	case GNMI__ENCODING__JSON:
		return "json";
	case GNMI__ENCODING__BYTES:
		return "bytes";
	case GNMI__ENCODING__PROTO:
		return "proto";
	case GNMI__ENCODING__ASCII:
		return "ascii";
	case GNMI__ENCODING__JSON_IETF:
		return "json_ietf";
	}
	return "unknown";
}

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
	struct gnmi_lldp *lldp;	  /* its LLDP neighbours; NULL: no table */
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
	unsigned failures;
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
	unsigned max_connecting;
	uint64_t max_message;
	uint64_t global_interval_ns;
	char *profiles_dir;
	struct entry *entries;
	size_t n_entries;
};

/* Full jitter: uniform in [0, max). xorshift, per thread. */
static int64_t jitter(struct gthread *th, int64_t max)
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
static void note_due(struct gthread *th, int64_t when)
{
	if (when && (th->next_timer_ns == 0 || when < th->next_timer_ns))
		th->next_timer_ns = when;
}

static void set_timer(struct gtarget *t, int64_t when)
{
	t->t_action = when;
	note_due(t->th, when);
}

static void set_down(struct gtarget *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_down(struct gtarget *t, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	health_target_set_up(t->health, false, why);
}

static void connecting_done(struct gtarget *t)
{
	if (t->connecting) {
		t->connecting = false;
		atomic_fetch_sub(&t->col->connecting, 1);
	}
}

/*
 * Channel and request construction.
 */

static char *read_pem(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return NULL;
	}
	char *buf = xmalloc(PEM_MAX_BYTES + 1);
	size_t n = fread(buf, 1, PEM_MAX_BYTES + 1, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad || n > PEM_MAX_BYTES || n == 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 bad ? "read error"
			 : n ? "larger than 1 MiB"
			     : "empty");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static grpc_channel_credentials *make_creds(struct gtarget *t)
{
	const struct cfg_gnmi *g = t->cfg;
	if (g->insecure)
		return grpc_insecure_credentials_create();
	if (g->skip_verify) {
		/* gnmic's --skip-verify: encrypt, trust anything. */
		grpc_tls_credentials_options *o =
		    grpc_tls_credentials_options_create();
		if (t->cert_pem && t->key_pem) {
			grpc_tls_identity_pairs *pairs =
			    grpc_tls_identity_pairs_create();
			grpc_tls_identity_pairs_add_pair(pairs, t->key_pem,
							 t->cert_pem);
			grpc_tls_certificate_provider *p =
			    grpc_tls_certificate_provider_static_data_create(
				NULL, pairs);
			grpc_tls_credentials_options_set_certificate_provider(
			    o, p);
			grpc_tls_credentials_options_watch_identity_key_cert_pairs(
			    o);
			grpc_tls_certificate_provider_release(p);
		}
		grpc_tls_credentials_options_set_verify_server_cert(o, 0);
		grpc_tls_certificate_verifier *v =
		    grpc_tls_certificate_verifier_no_op_create();
		grpc_tls_credentials_options_set_certificate_verifier(o, v);
		grpc_tls_credentials_options_set_check_call_host(o, 0);
		grpc_channel_credentials *c = grpc_tls_credentials_create(o);
		grpc_tls_certificate_verifier_release(v);
		return c;
	}
	grpc_ssl_pem_key_cert_pair pair = { .private_key = t->key_pem,
					    .cert_chain = t->cert_pem };
	return grpc_ssl_credentials_create(
	    t->ca_pem, t->cert_pem ? &pair : NULL, NULL, NULL);
}

static grpc_channel *make_channel(struct gtarget *t)
{
	grpc_arg args[8];
	size_t n = 0;
	static char k_maxrecv[] = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	static char k_keepalive[] = GRPC_ARG_KEEPALIVE_TIME_MS;
	static char k_ka_timeout[] = GRPC_ARG_KEEPALIVE_TIMEOUT_MS;
	static char k_bdp[] = GRPC_ARG_HTTP2_BDP_PROBE;
	static char k_maxback[] = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS;
	static char k_agent[] = GRPC_ARG_PRIMARY_USER_AGENT_STRING;
	static char k_override[] = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
	static char agent[] = "fabmon/" PACKAGE_VERSION;

	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_maxrecv;
	args[n++].value.integer = (int)t->col->max_message;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_keepalive;
	args[n++].value.integer = KEEPALIVE_MS;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_ka_timeout;
	args[n++].value.integer = 20000;
	/* BDP probing lets a fast target outrun the decoder's memory. */
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_bdp;
	args[n++].value.integer = 0;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_maxback;
	args[n++].value.integer = (int)(BACKOFF_MAX_NS / NS_PER_MS);
	args[n].type = GRPC_ARG_STRING;
	args[n].key = k_agent;
	args[n++].value.string = agent;
	if (t->cfg->server_name && !t->cfg->insecure) {
		args[n].type = GRPC_ARG_STRING;
		args[n].key = k_override;
		args[n++].value.string = t->cfg->server_name;
	}
	grpc_channel_args ca = { .num_args = n, .args = args };
	grpc_channel_credentials *creds = make_creds(t);
	grpc_channel *ch = grpc_channel_create(t->cfg->address, creds, &ca);
	grpc_channel_credentials_release(creds);
	return ch;
}

static void fill_metadata(struct gtarget *t)
{
	t->n_md_send = 0;
	if (!t->cfg->username)
		return;
	t->md_send[0].key = grpc_slice_from_static_string("username");
	t->md_send[0].value = grpc_slice_from_copied_string(t->cfg->username);
	t->n_md_send = 1;
	if (t->cfg->password) {
		t->md_send[1].key = grpc_slice_from_static_string("password");
		t->md_send[1].value =
		    grpc_slice_from_copied_string(t->cfg->password);
		t->n_md_send = 2;
	}
}

static void clear_metadata(struct gtarget *t)
{
	for (size_t i = 0; i < t->n_md_send; i++) {
		grpc_slice_unref(t->md_send[i].key);
		grpc_slice_unref(t->md_send[i].value);
	}
	t->n_md_send = 0;
}

static Gnmi__SubscriptionList__Mode list_mode(enum cfg_gnmi_mode m)
{
	switch (m) {
	case CFG_GNMI_ONCE:
		return GNMI__SUBSCRIPTION_LIST__MODE__ONCE;
	case CFG_GNMI_POLL:
		return GNMI__SUBSCRIPTION_LIST__MODE__POLL;
	case CFG_GNMI_STREAM:
		break;
	}
	return GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
}

static grpc_byte_buffer *subscribe_request(struct gtarget *t)
{
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT;
	Gnmi__Subscription *subs =
	    xcalloc(t->n_subs ? t->n_subs : 1, sizeof *subs);
	Gnmi__Subscription **sp =
	    xcalloc(t->n_subs ? t->n_subs : 1, sizeof *sp);
	Gnmi__Path **paths = xcalloc(t->n_subs ? t->n_subs : 1, sizeof *paths);

	for (size_t i = 0; i < t->n_subs; i++) {
		const struct gsub *s = &t->subs[i];
		gnmi__subscription__init(&subs[i]);
		paths[i] = gnmi_path_to_pb(&s->path);
		subs[i].path = paths[i];
		switch (s->mode) {
		case CFG_SUB_ON_CHANGE:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__ON_CHANGE;
			break;
		case CFG_SUB_TARGET_DEFINED:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED;
			break;
		case CFG_SUB_SAMPLE:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
			break;
		}
		subs[i].sample_interval = s->sample_ns;
		subs[i].heartbeat_interval = s->heartbeat_ns;
		subs[i].suppress_redundant = s->suppress_redundant;
		sp[i] = &subs[i];
	}
	if (*t->prefix_target) {
		prefix.target = t->prefix_target;
		list.prefix = &prefix;
	}
	list.subscription = sp;
	list.n_subscription = t->n_subs;
	list.mode = list_mode(t->cfg->mode);
	list.encoding = (Gnmi__Encoding)t->encoding;
	list.updates_only = t->cfg->updates_only;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
	req.subscribe = &list;

	grpc_byte_buffer *bb = gnmi_pack_message(&req.base);
	for (size_t i = 0; i < t->n_subs; i++)
		gnmi_path_pb_free(paths[i]);
	free(paths);
	free(sp);
	free(subs);
	return bb;
}

static grpc_byte_buffer *poll_request(void)
{
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	Gnmi__Poll poll = GNMI__POLL__INIT;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_POLL;
	req.poll = &poll;
	return gnmi_pack_message(&req.base);
}

/*
 * Calls.
 */

static void call_reset(struct gtarget *t)
{
	grpc_metadata_array_init(&t->md_recv);
	grpc_metadata_array_init(&t->md_trailing);
	t->details = grpc_empty_slice();
	t->status = GRPC_STATUS_OK;
	t->status_done = false;
	t->pending = 0;
	t->recv_bb = NULL;
	t->send_bb = NULL;
	t->send_pending = false;
	t->cancelled_by_watchdog = false;
	t->got_message = false;
}

static bool start_batch(struct gtarget *t, const grpc_op *ops, size_t n,
			enum op op)
{
	grpc_call_error e =
	    grpc_call_start_batch(t->call, ops, n, &t->tags[op], NULL);
	if (e != GRPC_CALL_OK) {
		log_err("gnmi", "%s: cannot start a batch: %s", t->name,
			grpc_call_error_to_string(e));
		return false;
	}
	t->pending++;
	return true;
}

/* ops[0..1]: the call's metadata (credentials) and its request. */
static void fill_send_ops(struct gtarget *t, grpc_op *ops)
{
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = t->n_md_send;
	ops[0].data.send_initial_metadata.metadata = t->md_send;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = t->send_bb;
}

static void fail_attempt(struct gtarget *t, grpc_status_code code,
			 const char *detail);
static void call_finished(struct gtarget *t);

static void start_caps(struct gtarget *t)
{
	call_reset(t);
	fill_metadata(t);
	gpr_timespec deadline =
	    gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			 gpr_time_from_millis(CAPS_DEADLINE_MS, GPR_TIMESPAN));
	grpc_slice method =
	    grpc_slice_from_static_string("/gnmi.gNMI/Capabilities");
	t->call =
	    grpc_channel_create_call(t->ch, NULL, GRPC_PROPAGATE_DEFAULTS,
				     t->th->cq, method, NULL, deadline, NULL);
	Gnmi__CapabilityRequest req = GNMI__CAPABILITY_REQUEST__INIT;
	t->send_bb = gnmi_pack_message(&req.base);

	grpc_op ops[6];
	memset(ops, 0, sizeof ops);
	fill_send_ops(t, ops);
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &t->md_recv;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &t->recv_bb;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &t->md_trailing;
	ops[5].data.recv_status_on_client.status = &t->status;
	ops[5].data.recv_status_on_client.status_details = &t->details;
	t->state = GS_CAPS;
	if (!start_batch(t, ops, 6, OP_CAPS)) {
		grpc_call_unref(t->call);
		t->call = NULL;
		grpc_byte_buffer_destroy(t->send_bb);
		t->send_bb = NULL;
		clear_metadata(t);
		grpc_metadata_array_destroy(&t->md_recv);
		grpc_metadata_array_destroy(&t->md_trailing);
		fail_attempt(t, GRPC_STATUS_INTERNAL, "cannot start the call");
	}
}

static bool arm_recv(struct gtarget *t)
{
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &t->recv_bb;
	return start_batch(t, &op, 1, OP_RECV);
}

static void start_subscribe(struct gtarget *t)
{
	call_reset(t);
	fill_metadata(t);
	grpc_slice method =
	    grpc_slice_from_static_string("/gnmi.gNMI/Subscribe");
	t->call = grpc_channel_create_call(
	    t->ch, NULL, GRPC_PROPAGATE_DEFAULTS, t->th->cq, method, NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	t->send_bb = subscribe_request(t);
	t->state = GS_STREAM;
	t->last_msg_ns = mono_ns();
	if (t->lldp)
		gnmi_lldp_begin_sync(t->lldp);
	if (t->watchdog_ns)
		note_due(t->th, t->last_msg_ns + t->watchdog_ns + 1);

	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	fill_send_ops(t, ops);
	bool ok = start_batch(t, ops, 2, OP_SEND);
	t->send_pending = ok;

	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[0].data.recv_initial_metadata.recv_initial_metadata = &t->md_recv;
	ok = ok && start_batch(t, ops, 1, OP_RECV_MD);

	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[0].data.recv_status_on_client.trailing_metadata = &t->md_trailing;
	ops[0].data.recv_status_on_client.status = &t->status;
	ops[0].data.recv_status_on_client.status_details = &t->details;
	bool status_armed = ok && start_batch(t, ops, 1, OP_STATUS);
	ok = status_armed && arm_recv(t);
	if (!ok) {
		/* Whatever started completes after the cancel; without a
		 * status batch the call is over when those are. */
		grpc_call_cancel(t->call, NULL);
		if (!status_armed) {
			t->status = GRPC_STATUS_INTERNAL;
			t->status_done = true;
		}
		if (t->pending == 0)
			call_finished(t);
		return;
	}
	if (t->cfg->mode == CFG_GNMI_POLL)
		set_timer(t, mono_ns() + t->every_ns);
}

static void send_poll(struct gtarget *t)
{
	if (!t->call || t->send_pending || t->stopping)
		return;
	t->send_bb = poll_request();
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = t->send_bb;
	t->send_pending = start_batch(t, &op, 1, OP_SEND);
	if (!t->send_pending) {
		grpc_byte_buffer_destroy(t->send_bb);
		t->send_bb = NULL;
	}
}

/* Starts a connection attempt, unless too many are in flight. */
static void connect_target(struct gtarget *t)
{
	unsigned cur = atomic_load(&t->col->connecting);
	do {
		if (cur >= t->col->max_connecting) {
			set_timer(t, mono_ns() + CONNECT_CAP_WAIT_NS +
					 jitter(t->th, CONNECT_CAP_WAIT_NS));
			t->state = GS_WAIT;
			return;
		}
	} while (
	    !atomic_compare_exchange_weak(&t->col->connecting, &cur, cur + 1));
	t->connecting = true;
	if (!t->ch)
		t->ch = make_channel(t);
	else
		grpc_channel_reset_connect_backoff(t->ch);
	log_debug("gnmi", "%s: connecting to %s", t->name, t->cfg->address);
	if (t->encoding_known)
		start_subscribe(t);
	else
		start_caps(t);
}

/*
 * Results.
 */

static void schedule_retry(struct gtarget *t, bool fatal)
{
	int64_t wait;
	if (fatal) {
		wait = FATAL_RETRY_NS + jitter(t->th, FATAL_RETRY_NS);
	} else {
		t->backoff_ns =
		    t->backoff_ns ? t->backoff_ns * 2 : BACKOFF_MIN_NS;
		if (t->backoff_ns > BACKOFF_MAX_NS)
			t->backoff_ns = BACKOFF_MAX_NS;
		/* Full jitter, never below a tenth of a second. */
		wait = 100 * NS_PER_MS + jitter(t->th, t->backoff_ns);
	}
	t->state = GS_WAIT;
	set_timer(t, mono_ns() + wait);
}

static void fail_attempt(struct gtarget *t, grpc_status_code code,
			 const char *detail)
{
	connecting_done(t);
	bool fatal = status_is_fatal(code);
	t->failures++;
	health_target_count(t->health, HEALTH_C_ERRORS, 1);
	if (code == GRPC_STATUS_DEADLINE_EXCEEDED)
		health_target_count(t->health, HEALTH_C_TIMEOUTS, 1);
	schedule_retry(t, fatal);
	int64_t in_s = (t->t_action - mono_ns() + NS_PER_S / 2) / NS_PER_S;
	set_down(t, "%s: %s (retrying in %llds)", status_name(code),
		 detail && *detail ? detail : "no detail", (long long)in_s);
	log_complain(&t->complaint, fatal ? LOG_LVL_ERR : LOG_LVL_WARN, "gnmi",
		     "%s: %s: %s%s", t->name, status_name(code),
		     detail && *detail ? detail : "no detail",
		     fatal ? " (not retryable soon: check the config)" : "");
}

/* A usable stream or ONCE: the target is up. */
static void mark_up(struct gtarget *t)
{
	connecting_done(t);
	if (t->failures)
		log_complain_clear(&t->complaint, "gnmi", "%s: streaming again",
				   t->name);
	t->failures = 0;
	t->backoff_ns = 0;
	health_target_set_up(t->health, true, NULL);
}

static int choose_encoding(struct gtarget *t, const Gnmi__CapabilityResponse *r,
			   char *why, size_t whylen)
{
	bool sup[5] = { false };
	bool any = r && r->n_supported_encodings > 0;
	for (size_t i = 0; r && i < r->n_supported_encodings; i++)
		if ((unsigned)r->supported_encodings[i] < 5)
			sup[r->supported_encodings[i]] = true;
	if (t->cfg->encoding != CFG_GNMI_ENC_AUTO) {
		int e = (int)t->cfg->encoding;
		if (any && !sup[e]) {
			char list[128] = "";
			size_t len = 0;
			for (int i = 0; i < 5; i++)
				if (sup[i])
					len += (size_t)snprintf(
					    list + len,
					    len < sizeof list
						? sizeof list - len
						: 0,
					    "%s%s", len ? ", " : "",
					    encoding_name(i));
			snprintf(why, whylen,
				 "encoding %s is not supported by the target "
				 "(it supports %s)",
				 encoding_name(e), list);
			return -ENOTSUP;
		}
		t->encoding = e;
		return 0;
	}
	/* Automatic: DB targets (SONiC) answer in JSON_IETF; otherwise
	 * PROTO is the cheapest to decode. */
	static const int pref_db[] = { GNMI__ENCODING__JSON_IETF,
				       GNMI__ENCODING__JSON,
				       GNMI__ENCODING__PROTO };
	static const int pref[] = { GNMI__ENCODING__PROTO,
				    GNMI__ENCODING__JSON_IETF,
				    GNMI__ENCODING__JSON };
	const int *order = *t->prefix_target ? pref_db : pref;
	t->encoding = order[0];
	if (any) {
		for (int i = 0; i < 3; i++) {
			if (sup[order[i]]) {
				t->encoding = order[i];
				break;
			}
		}
	}
	return 0;
}

/* The Capabilities call is over: st, detail and the answer bb (owned
 * here, may be NULL). */
static void caps_done(struct gtarget *t, grpc_status_code st,
		      const char *detail, grpc_byte_buffer *bb)
{
	char why[256];
	const Gnmi__CapabilityResponse *resp = NULL;

	if (st == GRPC_STATUS_OK && bb) {
		grpc_byte_buffer_reader r;
		if (grpc_byte_buffer_reader_init(&r, bb)) {
			grpc_slice flat = grpc_byte_buffer_reader_readall(&r);
			grpc_byte_buffer_reader_destroy(&r);
			gnmi_arena_reset(t->arena);
			ProtobufCMessage *m = NULL;
			int rc = gnmi_decode(
			    &gnmi__capability_response__descriptor,
			    GRPC_SLICE_START_PTR(flat), GRPC_SLICE_LENGTH(flat),
			    t->col->max_message, t->arena, &m);
			grpc_slice_unref(flat);
			if (rc == GNMI_DECODE_OK)
				resp = (const Gnmi__CapabilityResponse *)m;
			else
				health_target_count(t->health,
						    HEALTH_C_DECODE_ERRORS, 1);
		}
	}
	if (resp && log_debug_enabled("gnmi")) {
		log_debug("gnmi", "%s: gNMI %s, %zu models, %zu encodings",
			  t->name, resp->gnmi_version, resp->n_supported_models,
			  resp->n_supported_encodings);
		for (size_t i = 0; i < resp->n_supported_models; i++)
			log_debug("gnmi", "%s: model %s %s %s", t->name,
				  resp->supported_models[i]->name,
				  resp->supported_models[i]->organization,
				  resp->supported_models[i]->version);
		for (size_t i = 0; i < resp->n_supported_encodings; i++)
			log_debug("gnmi", "%s: encoding %s", t->name,
				  encoding_name(resp->supported_encodings[i]));
	}

	if (st == GRPC_STATUS_OK || st == GRPC_STATUS_UNIMPLEMENTED) {
		/* A target without Capabilities still gets a Subscribe. */
		if (choose_encoding(t, resp, why, sizeof why) < 0) {
			fail_attempt(t, GRPC_STATUS_FAILED_PRECONDITION, why);
			goto out;
		}
		t->encoding_known = true;
		log_info("gnmi", "%s: subscribing (%s, %s encoding, %zu paths)",
			 t->name,
			 t->cfg->mode == CFG_GNMI_ONCE	 ? "once"
			 : t->cfg->mode == CFG_GNMI_POLL ? "poll"
							 : "stream",
			 encoding_name(t->encoding), t->n_subs);
		start_subscribe(t);
		goto out;
	}
	fail_attempt(t, st, detail);
out:
	if (bb)
		grpc_byte_buffer_destroy(bb);
}

/*
 * A SubscribeResponse is read in place (gnmi_wire.h): no decode into
 * protobuf-c structures, no allocation, and a malformed message is
 * refused whole before anything reaches the store.
 */
static void handle_response(struct gtarget *t, const uint8_t *data, size_t len)
{
	struct gnmi_apply_stats st = { 0 };
	struct gnmi_wire_info info;
	const char *why = NULL;
	int rc;

	if (len > t->col->max_message) {
		why = gnmi_decode_strerror(GNMI_DECODE_TOO_LARGE);
	} else {
		rc = gnmi_mapper_apply_wire(t->mapper, data, len, &st, &info);
		if (rc < 0)
			why = gnmi_wire_strerror(rc);
	}
	if (why) {
		health_target_count(t->health, HEALTH_C_DECODE_ERRORS, 1);
		log_complain(&t->decode_complaint, LOG_LVL_WARN, "gnmi",
			     "%s: dropped a %zu-byte message: %s", t->name, len,
			     why);
		return;
	}
	switch (info.kind) {
	case GNMI_WIRE_UPDATE:
		health_target_updated(t->health, st.mapped);
		if (st.unmapped)
			health_target_count(t->health, HEALTH_C_UNMAPPED,
					    st.unmapped);
		if (st.bad)
			health_target_count(t->health, HEALTH_C_DECODE_ERRORS,
					    st.bad);
		break;
	case GNMI_WIRE_SYNC:
		if (info.sync_response) {
			health_target_set_sync(t->health, true);
			log_debug("gnmi", "%s: sync_response", t->name);
			/* What the subscription listed is the whole list,
			 * unless it was asked for updates only. */
			if (t->lldp && !t->cfg->updates_only)
				gnmi_lldp_sync(t->lldp);
		}
		break;
	case GNMI_WIRE_ERROR:
		log_complain(&t->decode_complaint, LOG_LVL_WARN, "gnmi",
			     "%s: the target sent an error: %s", t->name,
			     info.error_message[0] ? info.error_message : "?");
		break;
	default:
		break;
	}
	if (t->lldp)
		gnmi_lldp_flush(t->lldp, mono_ns());
}

static void recv_done(struct gtarget *t, bool ok)
{
	if (!ok || !t->recv_bb) {
		/* Failed or end of stream: the status says why. */
		if (t->recv_bb) {
			grpc_byte_buffer_destroy(t->recv_bb);
			t->recv_bb = NULL;
		}
		return;
	}
	grpc_byte_buffer_reader r;
	if (grpc_byte_buffer_reader_init(&r, t->recv_bb)) {
		grpc_slice flat = grpc_byte_buffer_reader_readall(&r);
		grpc_byte_buffer_reader_destroy(&r);
		if (!t->got_message) {
			t->got_message = true;
			mark_up(t);
		}
		t->messages++;
		t->last_msg_ns = mono_ns();
		handle_response(t, GRPC_SLICE_START_PTR(flat),
				GRPC_SLICE_LENGTH(flat));
		grpc_slice_unref(flat);
	}
	grpc_byte_buffer_destroy(t->recv_bb);
	t->recv_bb = NULL;
	if (!t->stopping && !t->status_done)
		arm_recv(t);
}

/* The call is over (status in, nothing pending): decide what is next. */
static void call_finished(struct gtarget *t)
{
	enum gstate was = t->state;
	char *detail = grpc_slice_to_c_string(t->details);
	grpc_status_code st = t->status;
	bool watchdog = t->cancelled_by_watchdog;
	bool got = t->got_message;
	grpc_byte_buffer *answer = was == GS_CAPS ? t->recv_bb : NULL;
	if (answer)
		t->recv_bb = NULL;

	grpc_call_unref(t->call);
	t->call = NULL;
	clear_metadata(t);
	grpc_metadata_array_destroy(&t->md_recv);
	grpc_metadata_array_destroy(&t->md_trailing);
	grpc_slice_unref(t->details);
	if (t->send_bb) {
		grpc_byte_buffer_destroy(t->send_bb);
		t->send_bb = NULL;
	}
	if (t->recv_bb) {
		grpc_byte_buffer_destroy(t->recv_bb);
		t->recv_bb = NULL;
	}

	if (t->stopping) {
		if (answer)
			grpc_byte_buffer_destroy(answer);
		gpr_free(detail);
		connecting_done(t);
		t->state = GS_IDLE;
		return;
	}
	if (was == GS_CAPS) {
		caps_done(t, st, detail, answer);
		gpr_free(detail);
		return;
	}

	if (watchdog) {
		/* Silent stream: resubscribe now on the same channel. */
		health_target_count(t->health, HEALTH_C_RECONNECTS, 1);
		log_warn("gnmi", "%s: no message for %llds: resubscribing",
			 t->name, (long long)(t->watchdog_ns / NS_PER_S));
		/* Silence is not health: down until a message arrives. */
		set_down(t, "no message for %llds; resubscribing",
			 (long long)(t->watchdog_ns / NS_PER_S));
		connecting_done(t);
		t->state = GS_IDLE;
		set_timer(t, mono_ns());
	} else if (t->cfg->mode == CFG_GNMI_ONCE && st == GRPC_STATUS_OK) {
		if (!got)
			mark_up(t);
		t->state = GS_WAIT;
		set_timer(t, mono_ns() + t->every_ns);
	} else {
		if (got)
			health_target_count(t->health, HEALTH_C_RECONNECTS, 1);
		fail_attempt(
		    t, st == GRPC_STATUS_OK ? GRPC_STATUS_UNAVAILABLE : st,
		    st == GRPC_STATUS_OK ? "the target ended the stream"
					 : detail);
		/* The encoding is checked again on the next connect. */
		t->encoding_known = false;
	}
	gpr_free(detail);
}

static void handle_event(struct gtarget *t, enum op op, bool ok)
{
	t->pending--;
	switch (op) {
	case OP_CAPS:
		t->status_done = true;
		if (!ok)
			t->status = GRPC_STATUS_UNAVAILABLE;
		break;
	case OP_SEND:
		t->send_pending = false;
		if (t->send_bb) {
			grpc_byte_buffer_destroy(t->send_bb);
			t->send_bb = NULL;
		}
		break;
	case OP_RECV_MD:
		break;
	case OP_STATUS:
		t->status_done = true;
		break;
	case OP_RECV:
		recv_done(t, ok);
		break;
	case OP__COUNT:
		break;
	}
	if (t->call && t->pending == 0 && t->status_done)
		call_finished(t);
}

/*
 * Target life.
 */

static void target_free(struct gtarget *t)
{
	if (!t)
		return;
	connecting_done(t);
	if (t->ch)
		grpc_channel_destroy(t->ch);
	gnmi_mapper_free(t->mapper);
	gnmi_lldp_free(t->lldp);
	gnmi_profile_free(t->profile);
	gnmi_arena_free(t->arena);
	for (size_t i = 0; i < t->n_subs; i++)
		gnmi_path_clear(&t->subs[i].path);
	free(t->subs);
	cfg_gnmi_free(t->cfg);
	free(t->prefix_target);
	if (t->key_pem) {
		explicit_bzero(t->key_pem, strlen(t->key_pem));
		free(t->key_pem);
	}
	free(t->ca_pem);
	free(t->cert_pem);
	free(t->failed_reason);
	free(t->name);
	free(t);
}

/* Each unmapped path is reported once by the mapper; a SONiC port alone
 * has dozens, so only a target's first one is worth an info line. */
static void unmapped_cb(void *ctx, const char *path)
{
	struct gtarget *t = ctx;
	if (!t->unmapped_seen++)
		log_info("gnmi",
			 "%s: no profile mapping for %s (counted in "
			 "fabmon_target_unmapped_updates_total, not exported; "
			 "-D gnmi lists every such path)",
			 t->name, path);
	else
		log_debug("gnmi", "%s: no profile mapping for %s", t->name,
			  path);
}

/* LLDP neighbours (gnmi/lldp.h) go to the link table, not the store. */
static bool lldp_leaf_cb(void *ctx, const struct gnmi_view *v,
			 const struct gnmi_scalar *val)
{
	struct gtarget *t = ctx;
	return gnmi_lldp_leaf(t->lldp, v, val);
}

static bool lldp_delete_cb(void *ctx, const struct gnmi_view *v)
{
	struct gtarget *t = ctx;
	return gnmi_lldp_delete(t->lldp, v);
}

/* gRPC core logs through ours: its errors explain our UNAVAILABLEs,
 * so they are debug lines of the gnmi subsystem. */
static void grpc_log(gpr_log_func_args *a)
{
	log_debug("gnmi", "grpc %s:%d: %s", a->file, a->line, a->message);
}

/* Picks the profile when the config names none. */
static const char *default_profile(const struct cfg_gnmi *g)
{
	if (g->target && strcmp(g->target, "COUNTERS_DB") == 0)
		return "sonic";
	return "openconfig";
}

/* The subscriptions a target takes (profile's or config's), and its
 * own prefix target. */
static const struct cfg_gnmi_sub *target_subs(const struct cfg_gnmi *g,
					      const struct gnmi_profile *p,
					      size_t *n, const char **own)
{
	const char *ptarget = NULL;
	size_t n_psubs = 0;
	const struct cfg_gnmi_sub *psubs =
	    gnmi_profile_subscriptions(p, &n_psubs, &ptarget);
	*own = g->target ? g->target : ptarget ? ptarget : "";
	*n = g->n_subs ? g->n_subs : n_psubs;
	return g->n_subs ? g->subs : psubs;
}

/* Whether subscription s goes on the stream for prefix target want
 * (own: the target's own one). */
static bool sub_on(const struct cfg_gnmi_sub *s, const char *own,
		   const char *want)
{
	const char *st = s->target ? s->target : own;
	return strcmp(st, want) == 0;
}

/*
 * Builds a target (main thread): device name's main stream (helper
 * NULL), or its helper stream for the subscriptions whose prefix
 * target is helper. On a problem that retrying cannot fix (profile,
 * paths, TLS files) the target is still returned, in GS_FAILED, so
 * that its health (or, for a helper, the log) says why.
 */
static struct gtarget *target_build(struct gnmi_col *col, const char *name,
				    const struct cfg_gnmi *g,
				    const char *helper)
{
	struct gtarget *t = xcalloc(1, sizeof *t);
	char err[512];
	t->col = col;
	t->name = helper ? xasprintf("%s [%s]", name, helper) : xstrdup(name);
	t->cfg = cfg_gnmi_dup(g);
	t->health = helper ? NULL : health_target(col->health, name, "gnmi");
	t->arena = gnmi_arena_new(64 * 1024 * 1024 + 4 * col->max_message);
	for (int i = 0; i < OP__COUNT; i++)
		t->tags[i] = (struct tag){ t, (enum op)i };
	t->state = GS_IDLE;

	uint64_t every =
	    g->interval_ns ? g->interval_ns : col->global_interval_ns;
	const char *pname = g->profile ? g->profile : default_profile(g);
	if (strchr(pname, '/'))
		t->profile = gnmi_profile_load(pname, err, sizeof err);
	else
		t->profile = gnmi_profile_load_named(col->profiles_dir, pname,
						     err, sizeof err);
	if (!t->profile) {
		t->failed_reason = xasprintf("profile: %s", err);
		goto failed;
	}

	const char *own;
	size_t n_subs;
	const struct cfg_gnmi_sub *subs =
	    target_subs(g, t->profile, &n_subs, &own);
	t->prefix_target = xstrdup(helper ? helper : own);
	if (n_subs == 0) {
		t->failed_reason = xasprintf(
		    "no subscriptions: none configured and profile %s "
		    "has none",
		    pname);
		goto failed;
	}
	t->subs = xcalloc(n_subs, sizeof *t->subs);
	for (size_t i = 0; i < n_subs; i++) {
		if (!sub_on(&subs[i], own, t->prefix_target))
			continue;
		struct gsub *s = &t->subs[t->n_subs];
		if (gnmi_path_parse(subs[i].path, &s->path, err, sizeof err) <
		    0) {
			t->failed_reason =
			    xasprintf("subscription %s: %s", subs[i].path, err);
			goto failed;
		}
		t->n_subs++;
		if (subs[i].origin) {
			free(s->path.origin);
			s->path.origin = xstrdup(subs[i].origin);
		}
		s->mode = subs[i].mode;
		/* Profile subscriptions without an interval take the
		 * target's; target-defined ones leave it to the target. */
		s->sample_ns = subs[i].sample_interval_ns;
		if (!s->sample_ns && s->mode == CFG_SUB_SAMPLE)
			s->sample_ns = every;
		s->heartbeat_ns = subs[i].heartbeat_interval_ns;
		s->suppress_redundant = subs[i].suppress_redundant;
		/* Sampled paths arrive every interval and heartbeats every
		 * heartbeat: silence past three of the one or two of the
		 * other is a dead stream. On-change paths alone may be
		 * quiet for good and set no watchdog. */
		int64_t w = 0;
		if (s->mode == CFG_SUB_SAMPLE && s->sample_ns)
			w = 3 * (int64_t)s->sample_ns;
		if (s->heartbeat_ns && 2 * (int64_t)s->heartbeat_ns > w)
			w = 2 * (int64_t)s->heartbeat_ns;
		if (w > t->watchdog_ns)
			t->watchdog_ns = w;
	}
	if (t->n_subs == 0) {
		t->failed_reason =
		    xasprintf("no subscriptions with prefix target \"%s\"",
			      t->prefix_target);
		goto failed;
	}
	if (g->mode != CFG_GNMI_STREAM)
		t->watchdog_ns = 0;
	t->every_ns = (int64_t)(g->mode == CFG_GNMI_POLL && g->poll_interval_ns
				    ? g->poll_interval_ns
				    : every);

	if (!g->insecure) {
		if (g->ca && !(t->ca_pem = read_pem(g->ca, err, sizeof err))) {
			t->failed_reason = xasprintf("ca: %s", err);
			goto failed;
		}
		if (g->cert &&
		    !(t->cert_pem = read_pem(g->cert, err, sizeof err))) {
			t->failed_reason = xasprintf("cert: %s", err);
			goto failed;
		}
		if (g->key &&
		    !(t->key_pem = read_pem(g->key, err, sizeof err))) {
			t->failed_reason = xasprintf("key: %s", err);
			goto failed;
		}
		if (g->skip_verify && !helper)
			log_warn("gnmi",
				 "%s: skip_verify is set: the target's "
				 "certificate is NOT checked; anyone on the "
				 "path can impersonate it",
				 name);
	}

	struct gnmi_mapper_opts mo = {
		.store = col->store,
		.owner = store_intern(col->store, name),
		.device = store_intern(col->store, name),
		.interval_ms = (uint32_t)(every / (uint64_t)NS_PER_MS),
		.unmapped = unmapped_cb,
		.ctx = t,
	};
	if (col->links) {
		t->lldp = gnmi_lldp_new(col->links, name, "gnmi");
		mo.leaf_hook = lldp_leaf_cb;
		mo.delete_hook = lldp_delete_cb;
	}
	t->mapper = gnmi_mapper_new(t->profile, &mo);
	set_down(t, "connecting");
	return t;

failed:
	t->state = GS_FAILED;
	log_err("gnmi", "%s: cannot collect: %s", t->name, t->failed_reason);
	set_down(t, "%s", t->failed_reason);
	return t;
}

/* A switch's main stream and, chained on it, a helper stream for each
 * other prefix target its subscriptions name. */
static struct gtarget *target_new(struct gnmi_col *col, const char *name,
				  const struct cfg_gnmi *g)
{
	struct gtarget *t = target_build(col, name, g, NULL);
	if (!t->profile)
		return t;
	const char *own;
	size_t n;
	const struct cfg_gnmi_sub *subs = target_subs(g, t->profile, &n, &own);
	struct gtarget **tail = &t->companion;
	for (size_t i = 0; i < n; i++) {
		const char *st = subs[i].target;
		if (!st || strcmp(st, own) == 0)
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen =
			    subs[k].target && strcmp(subs[k].target, st) == 0;
		if (seen)
			continue;
		*tail = target_build(col, name, g, st);
		tail = &(*tail)->companion;
	}
	return t;
}

/* A target's timers fired (thread). */
static void run_target_timers(struct gtarget *t, int64_t now)
{
	if (t->stopping)
		return;
	if (t->t_action && now >= t->t_action) {
		t->t_action = 0;
		if (t->state == GS_IDLE || t->state == GS_WAIT)
			connect_target(t);
		else if (t->state == GS_STREAM &&
			 t->cfg->mode == CFG_GNMI_POLL) {
			send_poll(t);
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
			target_free(t);
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
			handle_event(tg->t, tg->op, ev.success != 0);
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
	struct gtarget *t = target_new(col, name, g);
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
	col->max_connecting = gc->max_connecting ? gc->max_connecting : 32;
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
	col->max_connecting = gnmi_cfg_collector(cfg)->max_connecting;

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
