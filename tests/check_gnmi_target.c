/*
 * check_gnmi_target: the gNMI target library, driven by a minimal gNMI
 * client written here on the gRPC core API (a channel, a pluck
 * completion queue and hand-made batches): Capabilities, Get, the
 * Subscribe modes and options, value encodings, the prefix target,
 * authentication, interval limits, unknown methods, TLS and mutual TLS
 * with certificates made by the openssl command, and the fault hooks
 * (stop/start, refuse, silence, injected payloads).
 *
 * grpc_init() runs in a checked fixture, so in the forked child of each
 * test, never in the Check parent (a gRPC initialised before fork hangs
 * the children). Servers bind 127.0.0.1 port 0 or a unix socket in a
 * temporary directory.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "path.h"
#include "target.h"

#include "gnmi.pb-c.h"
#include "grpc_down.h"

#include <check.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 3000
#define SEC	INT64_C(1000000000)
#define MS	INT64_C(1000000)
/* Tick timestamps: 2023-11-14T22:13:20Z and one second later. */
#define T1 INT64_C(1700000000000000000)
#define T2 (T1 + SEC)

#define ETH0	 "/interfaces/interface[name=Ethernet0]"
#define ETH4	 "/interfaces/interface[name=Ethernet4]"
#define IN0	 ETH0 "/state/counters/in-octets"
#define OUT0	 ETH0 "/state/counters/out-octets"
#define IN4	 ETH4 "/state/counters/in-octets"
#define OPER0	 ETH0 "/state/oper-status"
#define IN_WILD	 "/interfaces/interface[name=*]/state/counters/in-octets"
#define COUNTERS "/interfaces/interface/state/counters"

static void setup(void)
{
	grpc_init();
}

static void teardown(void)
{
	grpc_shutdown();
	/* gRPC's own last references go after ours (grpc_down.h). */
	ck_assert_msg(test_grpc_wait_down(20000),
		      "gRPC still initialised: something was not released");
}

static gpr_timespec deadline_ms(int ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			    gpr_time_from_millis(ms, GPR_TIMESPAN));
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Target helpers */

static struct gnmi_target *target_make(struct gnmi_target_loop *loop,
				       const struct gnmi_target_options *o)
{
	char err[256] = "";
	struct gnmi_target *t = gnmi_target_new(loop, o, err, sizeof err);
	ck_assert_msg(t != NULL, "gnmi_target_new: %s", err);
	return t;
}

static struct gnmi_target *target_plain(void)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	return target_make(NULL, &o);
}

/* Two interfaces' counters and a status, published at T1. */
static void target_seed(struct gnmi_target *t)
{
	ck_assert_int_eq(gnmi_target_set_uint(t, IN0, 100), 0);
	ck_assert_int_eq(gnmi_target_set_uint(t, OUT0, 200), 0);
	ck_assert_int_eq(gnmi_target_set_uint(t, IN4, 300), 0);
	ck_assert_int_eq(gnmi_target_set_string(t, OPER0, "UP"), 0);
	gnmi_target_tick(t, T1);
}

static char *target_addr(struct gnmi_target *t)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "127.0.0.1:%d", gnmi_target_port(t));
	return buf;
}

static void wait_streams(struct gnmi_target *t, size_t n)
{
	int64_t end = now_ms() + WAIT_MS;
	while (gnmi_target_stream_count(t) != n && now_ms() < end)
		usleep(5000);
	ck_assert_uint_eq(gnmi_target_stream_count(t), n);
}

/* Client */

struct client {
	grpc_channel *ch;
	grpc_completion_queue *cq;
};

static void client_open_creds(struct client *c, const char *target,
			      grpc_channel_credentials *creds)
{
	grpc_arg args[3];
	memset(args, 0, sizeof args);
	/* Reconnect fast after stop/start. (Not through the minimum
	 * backoff: gRPC also takes it as the connect timeout, which a TLS
	 * handshake under valgrind can exceed.) */
	args[0].type = GRPC_ARG_INTEGER;
	args[0].key = (char *)GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS;
	args[0].value.integer = 50;
	args[1].type = GRPC_ARG_INTEGER;
	args[1].key = (char *)GRPC_ARG_MAX_RECONNECT_BACKOFF_MS;
	args[1].value.integer = 100;
	/* Each client makes its own connections: by default channels to
	 * one address share them, and a new client would ride an old
	 * connection. */
	args[2].type = GRPC_ARG_INTEGER;
	args[2].key = (char *)GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL;
	args[2].value.integer = 1;
	grpc_channel_args cargs = { 3, args };
	c->ch = grpc_channel_create(target, creds, &cargs);
	grpc_channel_credentials_release(creds);
	c->cq = grpc_completion_queue_create_for_pluck(NULL);
}

static void client_open(struct client *c, const char *target)
{
	client_open_creds(c, target, grpc_insecure_credentials_create());
}

static void client_close(struct client *c)
{
	grpc_channel_destroy(c->ch);
	grpc_completion_queue_shutdown(c->cq);
	grpc_completion_queue_destroy(c->cq);
}

static size_t auth_md(grpc_metadata md[2], const char *user, const char *pass)
{
	size_t n = 0;
	memset(md, 0, 2 * sizeof *md);
	if (user) {
		md[n].key = grpc_slice_from_static_string("username");
		md[n++].value = grpc_slice_from_copied_string(user);
	}
	if (pass) {
		md[n].key = grpc_slice_from_static_string("password");
		md[n++].value = grpc_slice_from_copied_string(pass);
	}
	return n;
}

static void auth_md_free(grpc_metadata md[2], size_t n)
{
	for (size_t i = 0; i < n; i++)
		grpc_slice_unref(md[i].value);
}

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
	size_t len = m ? protobuf_c_message_get_packed_size(m) : 0;
	grpc_slice s = grpc_slice_malloc(len);
	if (m)
		protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

static grpc_slice flatten(grpc_byte_buffer *bb)
{
	grpc_byte_buffer_reader r;
	ck_assert(grpc_byte_buffer_reader_init(&r, bb));
	grpc_slice s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	return s;
}

struct reply {
	grpc_status_code status;
	char *details;
	bool has_body;
	grpc_slice body;
};

static void reply_free(struct reply *r)
{
	gpr_free(r->details);
	if (r->has_body)
		grpc_slice_unref(r->body);
}

/* One unary RPC: request bytes (taken), reply and status. */
static void unary_bb(struct client *c, const char *method, const char *user,
		     const char *pass, grpc_byte_buffer *send, struct reply *r)
{
	grpc_call *call = grpc_channel_create_call(
	    c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq,
	    grpc_slice_from_static_string(method), NULL, deadline_ms(WAIT_MS),
	    NULL);
	grpc_metadata md[2];
	size_t n_md = auth_md(md, user, pass);
	grpc_byte_buffer *recv = NULL;
	grpc_metadata_array imd, tmd;
	grpc_metadata_array_init(&imd);
	grpc_metadata_array_init(&tmd);
	grpc_slice details;
	grpc_op ops[6];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].data.send_initial_metadata.count = n_md;
	ops[0].data.send_initial_metadata.metadata = md;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &imd;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &tmd;
	ops[5].data.recv_status_on_client.status = &r->status;
	ops[5].data.recv_status_on_client.status_details = &details;
	ck_assert_int_eq(grpc_call_start_batch(call, ops, 6, r, NULL),
			 GRPC_CALL_OK);
	grpc_event ev = grpc_completion_queue_pluck(
	    c->cq, r, deadline_ms(WAIT_MS + 2000), NULL);
	ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
	r->details = grpc_slice_to_c_string(details);
	grpc_slice_unref(details);
	r->has_body = recv != NULL;
	if (recv) {
		r->body = flatten(recv);
		grpc_byte_buffer_destroy(recv);
	}
	grpc_byte_buffer_destroy(send);
	auth_md_free(md, n_md);
	grpc_metadata_array_destroy(&imd);
	grpc_metadata_array_destroy(&tmd);
	grpc_call_unref(call);
}

/* The same with a message (NULL: an empty one). */
static void unary(struct client *c, const char *method, const char *user,
		  const char *pass, const ProtobufCMessage *req,
		  struct reply *r)
{
	unary_bb(c, method, user, pass, pack(req), r);
}

/* A Subscribe call: status pending throughout, one receive at a time. */
struct stream {
	struct client *c;
	grpc_call *call;
	grpc_metadata_array imd, tmd;
	grpc_status_code status;
	grpc_slice details;
	bool status_done;
	bool recv_pending, send_pending, md_pending;
	grpc_byte_buffer *rbb, *sbb;
	int tag_send, tag_recv, tag_status, tag_md;
};

static void stream_send(struct stream *s, const ProtobufCMessage *req)
{
	if (s->send_pending) {
		grpc_event ev = grpc_completion_queue_pluck(
		    s->c->cq, &s->tag_send, deadline_ms(WAIT_MS), NULL);
		ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
		grpc_byte_buffer_destroy(s->sbb);
		s->send_pending = false;
	}
	s->sbb = pack(req);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = s->sbb;
	ck_assert_int_eq(
	    grpc_call_start_batch(s->call, &op, 1, &s->tag_send, NULL),
	    GRPC_CALL_OK);
	s->send_pending = true;
}

static void stream_open(struct client *c, struct stream *s, const char *user,
			const char *pass, const ProtobufCMessage *req)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->call = grpc_channel_create_call(
	    c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq,
	    grpc_slice_from_static_string("/gnmi.gNMI/Subscribe"), NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_metadata_array_init(&s->imd);
	grpc_metadata_array_init(&s->tmd);
	grpc_metadata md[2];
	size_t n_md = auth_md(md, user, pass);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_INITIAL_METADATA;
	op.data.send_initial_metadata.count = n_md;
	op.data.send_initial_metadata.metadata = md;
	ck_assert_int_eq(
	    grpc_call_start_batch(s->call, &op, 1, &s->tag_send, NULL),
	    GRPC_CALL_OK);
	grpc_event ev = grpc_completion_queue_pluck(c->cq, &s->tag_send,
						    deadline_ms(WAIT_MS), NULL);
	ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
	auth_md_free(md, n_md);

	/* Trailers-only answers (errors) complete the status only once the
	 * initial metadata has been asked for. */
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_INITIAL_METADATA;
	op.data.recv_initial_metadata.recv_initial_metadata = &s->imd;
	ck_assert_int_eq(
	    grpc_call_start_batch(s->call, &op, 1, &s->tag_md, NULL),
	    GRPC_CALL_OK);
	s->md_pending = true;

	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	op.data.recv_status_on_client.trailing_metadata = &s->tmd;
	op.data.recv_status_on_client.status = &s->status;
	op.data.recv_status_on_client.status_details = &s->details;
	ck_assert_int_eq(
	    grpc_call_start_batch(s->call, &op, 1, &s->tag_status, NULL),
	    GRPC_CALL_OK);
	if (req)
		stream_send(s, req);
}

/* 1 with a message in *out, 0 on timeout, -1 at the end of the stream. */
static int stream_recv_raw(struct stream *s, int ms, grpc_slice *out)
{
	if (!s->recv_pending) {
		grpc_op ops[1];
		memset(ops, 0, sizeof ops);
		ops[0].op = GRPC_OP_RECV_MESSAGE;
		ops[0].data.recv_message.recv_message = &s->rbb;
		ck_assert_int_eq(
		    grpc_call_start_batch(s->call, ops, 1, &s->tag_recv, NULL),
		    GRPC_CALL_OK);
		s->recv_pending = true;
	}
	grpc_event ev = grpc_completion_queue_pluck(s->c->cq, &s->tag_recv,
						    deadline_ms(ms), NULL);
	if (ev.type == GRPC_QUEUE_TIMEOUT)
		return 0;
	ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
	s->recv_pending = false;
	if (!s->rbb)
		return -1;
	*out = flatten(s->rbb);
	grpc_byte_buffer_destroy(s->rbb);
	s->rbb = NULL;
	return 1;
}

/* The next response, which must come within ms. */
static Gnmi__SubscribeResponse *stream_next(struct stream *s, int ms)
{
	grpc_slice raw;
	int rc = stream_recv_raw(s, ms, &raw);
	ck_assert_msg(rc == 1, "no message within %d ms (%d)", ms, rc);
	Gnmi__SubscribeResponse *r = gnmi__subscribe_response__unpack(
	    NULL, GRPC_SLICE_LENGTH(raw), GRPC_SLICE_START_PTR(raw));
	grpc_slice_unref(raw);
	ck_assert_msg(r != NULL, "undecodable SubscribeResponse");
	return r;
}

/* True if nothing arrives for ms (the receive stays pending). */
static bool stream_quiet(struct stream *s, int ms)
{
	grpc_slice raw;
	int rc = stream_recv_raw(s, ms, &raw);
	if (rc == 1)
		grpc_slice_unref(raw);
	return rc == 0;
}

static void expect_sync(struct stream *s)
{
	Gnmi__SubscribeResponse *r = stream_next(s, WAIT_MS);
	ck_assert_int_eq(r->response_case,
			 GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE);
	ck_assert(r->sync_response);
	gnmi__subscribe_response__free_unpacked(r, NULL);
}

/* The next response, which must be a notification; free with
 * gnmi__subscribe_response__free_unpacked. */
static Gnmi__SubscribeResponse *expect_update(struct stream *s, int ms)
{
	Gnmi__SubscribeResponse *r = stream_next(s, ms);
	ck_assert_int_eq(r->response_case,
			 GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
	return r;
}

static grpc_status_code stream_status(struct stream *s, int ms)
{
	if (!s->status_done) {
		grpc_event ev = grpc_completion_queue_pluck(
		    s->c->cq, &s->tag_status, deadline_ms(ms), NULL);
		ck_assert_msg(ev.type == GRPC_OP_COMPLETE,
			      "no status within %d ms", ms);
		s->status_done = true;
	}
	return s->status;
}

static void stream_close(struct stream *s)
{
	if (!s->status_done)
		grpc_call_cancel(s->call, NULL);
	gpr_timespec inf = gpr_inf_future(GPR_CLOCK_REALTIME);
	if (s->recv_pending) {
		grpc_completion_queue_pluck(s->c->cq, &s->tag_recv, inf, NULL);
		if (s->rbb)
			grpc_byte_buffer_destroy(s->rbb);
	}
	if (s->send_pending) {
		grpc_completion_queue_pluck(s->c->cq, &s->tag_send, inf, NULL);
		grpc_byte_buffer_destroy(s->sbb);
	}
	if (s->md_pending)
		grpc_completion_queue_pluck(s->c->cq, &s->tag_md, inf, NULL);
	if (!s->status_done)
		grpc_completion_queue_pluck(s->c->cq, &s->tag_status, inf,
					    NULL);
	grpc_slice_unref(s->details);
	grpc_metadata_array_destroy(&s->imd);
	grpc_metadata_array_destroy(&s->tmd);
	grpc_call_unref(s->call);
}

/* Requests */

static Gnmi__Path *pb_path(const char *s, const char *target)
{
	struct gnmi_path p;
	char err[128];
	ck_assert_msg(gnmi_path_parse(s, &p, err, sizeof err) == 0, "%s: %s", s,
		      err);
	if (target)
		p.target = strdup(target);
	Gnmi__Path *pb = gnmi_path_to_pb(&p);
	gnmi_path_clear(&p);
	return pb;
}

struct sub {
	const char *path;
	Gnmi__SubscriptionMode mode;
	uint64_t sample_ns;
	uint64_t heartbeat_ns;
	bool suppress;
};

struct list {
	Gnmi__SubscriptionList__Mode mode;
	Gnmi__Encoding encoding;
	bool updates_only;
	const char *prefix; /* NULL: none */
	const char *target; /* prefix target */
	const struct sub *subs;
	size_t n_subs;
};

static void subscribe(struct client *c, struct stream *s, const char *user,
		      const char *pass, const struct list *l)
{
	Gnmi__Subscription subs[8];
	Gnmi__Subscription *subp[8];
	ck_assert_uint_le(l->n_subs, 8);
	for (size_t i = 0; i < l->n_subs; i++) {
		gnmi__subscription__init(&subs[i]);
		subs[i].path = pb_path(l->subs[i].path, NULL);
		subs[i].mode = l->subs[i].mode;
		subs[i].sample_interval = l->subs[i].sample_ns;
		subs[i].heartbeat_interval = l->subs[i].heartbeat_ns;
		subs[i].suppress_redundant = l->subs[i].suppress;
		subp[i] = &subs[i];
	}
	Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
	list.mode = l->mode;
	list.encoding = l->encoding;
	list.updates_only = l->updates_only;
	if (l->prefix || l->target)
		list.prefix = pb_path(l->prefix ? l->prefix : "/", l->target);
	list.n_subscription = l->n_subs;
	list.subscription = subp;
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
	req.subscribe = &list;
	stream_open(c, s, user, pass, &req.base);
	for (size_t i = 0; i < l->n_subs; i++)
		gnmi_path_pb_free(subs[i].path);
	gnmi_path_pb_free(list.prefix);
}

static void send_poll(struct stream *s)
{
	Gnmi__Poll poll = GNMI__POLL__INIT;
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_POLL;
	req.poll = &poll;
	stream_send(s, &req.base);
}

/* A one-path (or zero-path) Get; the reply is in r. */
static Gnmi__GetResponse *get(struct client *c, const char *path,
			      Gnmi__Encoding enc, struct reply *r)
{
	Gnmi__GetRequest req = GNMI__GET_REQUEST__INIT;
	Gnmi__Path *p = path ? pb_path(path, NULL) : NULL;
	req.n_path = p ? 1 : 0;
	req.path = &p;
	req.encoding = enc;
	unary(c, "/gnmi.gNMI/Get", NULL, NULL, &req.base, r);
	gnmi_path_pb_free(p);
	if (r->status != GRPC_STATUS_OK || !r->has_body)
		return NULL;
	Gnmi__GetResponse *g = gnmi__get_response__unpack(
	    NULL, GRPC_SLICE_LENGTH(r->body), GRPC_SLICE_START_PTR(r->body));
	ck_assert(g != NULL);
	return g;
}

/* Notification content: prefix + path of each update, as strings. */

struct upd {
	char *path;
	const Gnmi__TypedValue *val;
};

static size_t note_updates(const Gnmi__Notification *n, struct upd *out,
			   size_t max)
{
	struct gnmi_path pfx = { 0 };
	if (n->prefix)
		ck_assert_int_eq(gnmi_path_from_pb(n->prefix, &pfx), 0);
	ck_assert_uint_le(n->n_update, max);
	for (size_t i = 0; i < n->n_update; i++) {
		struct gnmi_path p, j;
		ck_assert_int_eq(gnmi_path_from_pb(n->update[i]->path, &p), 0);
		gnmi_path_join(&j, &pfx, &p);
		free(j.target);
		j.target = NULL;
		out[i].path = gnmi_path_string(&j);
		out[i].val = n->update[i]->val;
		gnmi_path_clear(&p);
		gnmi_path_clear(&j);
	}
	gnmi_path_clear(&pfx);
	return n->n_update;
}

static void upd_free(struct upd *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(u[i].path);
}

static const Gnmi__TypedValue *find_val(const struct upd *u, size_t n,
					const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(u[i].path, path) == 0)
			return u[i].val;
	return NULL;
}

static uint64_t uint_of(const struct upd *u, size_t n, const char *path)
{
	const Gnmi__TypedValue *v = find_val(u, n, path);
	ck_assert_msg(v != NULL, "no update for %s", path);
	ck_assert_int_eq(v->value_case, GNMI__TYPED_VALUE__VALUE_UINT_VAL);
	return v->uint_val;
}

static bool has_update(const Gnmi__SubscribeResponse *r, const char *path)
{
	struct upd u[16];
	size_t n = note_updates(r->update, u, 16);
	bool found = find_val(u, n, path) != NULL;
	upd_free(u, n);
	return found;
}

static char *json_of(const Gnmi__TypedValue *v)
{
	const ProtobufCBinaryData *d =
	    v->value_case == GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL
		? &v->json_ietf_val
	    : v->value_case == GNMI__TYPED_VALUE__VALUE_JSON_VAL ? &v->json_val
								 : NULL;
	ck_assert_msg(d != NULL, "value is not JSON (case %d)",
		      (int)v->value_case);
	return strndup((const char *)d->data, d->len);
}

/* Tests: unary RPCs */

START_TEST(test_capabilities_report_models_encodings_and_version)
{
	static const struct gnmi_target_model models[] = {
		{ "openconfig-interfaces", "OpenConfig working group",
		  "3.0.0" },
		{ "sonic-db", "SONiC", "" },
	};
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.models = models;
	o.n_models = 2;
	o.encodings = GNMI_TARGET_ENC_JSON_IETF | GNMI_TARGET_ENC_PROTO;
	struct gnmi_target *t = target_make(NULL, &o);
	ck_assert_int_gt(gnmi_target_port(t), 0);
	struct client c;
	client_open(&c, target_addr(t));

	Gnmi__CapabilityRequest req = GNMI__CAPABILITY_REQUEST__INIT;
	struct reply r;
	unary(&c, "/gnmi.gNMI/Capabilities", NULL, NULL, &req.base, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_OK);
	ck_assert(r.has_body);
	Gnmi__CapabilityResponse *cap = gnmi__capability_response__unpack(
	    NULL, GRPC_SLICE_LENGTH(r.body), GRPC_SLICE_START_PTR(r.body));
	ck_assert(cap != NULL);
	ck_assert_str_eq(cap->gnmi_version, "0.10.0");
	ck_assert_uint_eq(cap->n_supported_models, 2);
	ck_assert_str_eq(cap->supported_models[0]->name,
			 "openconfig-interfaces");
	ck_assert_str_eq(cap->supported_models[0]->organization,
			 "OpenConfig working group");
	ck_assert_str_eq(cap->supported_models[0]->version, "3.0.0");
	ck_assert_str_eq(cap->supported_models[1]->name, "sonic-db");
	ck_assert_uint_eq(cap->n_supported_encodings, 2);
	ck_assert_int_eq(cap->supported_encodings[0], GNMI__ENCODING__PROTO);
	ck_assert_int_eq(cap->supported_encodings[1],
			 GNMI__ENCODING__JSON_IETF);
	gnmi__capability_response__free_unpacked(cap, NULL);
	reply_free(&r);

	/* An encoding the target does not list is refused. */
	get(&c, IN0, GNMI__ENCODING__JSON, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNIMPLEMENTED);
	reply_free(&r);

	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_get_returns_a_leaf_with_its_tick_timestamp)
{
	struct gnmi_target *t = target_plain();
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;

	/* Set but not ticked: not visible yet. */
	gnmi_target_set_uint(t, IN0, 100);
	ck_assert_ptr_null(get(&c, IN0, GNMI__ENCODING__PROTO, &r));
	ck_assert_int_eq(r.status, GRPC_STATUS_NOT_FOUND);
	ck_assert_ptr_nonnull(strstr(r.details, "not found"));
	reply_free(&r);

	target_seed(t);
	Gnmi__GetResponse *g = get(&c, IN0, GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->n_notification, 1);
	ck_assert_int_eq(g->notification[0]->timestamp, T1);
	struct upd u[8];
	size_t n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(u[0].path, IN0);
	ck_assert_uint_eq(uint_of(u, n, IN0), 100);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	/* A subtree returns every leaf under it. */
	g = get(&c, ETH0 "/state", GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(uint_of(u, n, OUT0), 200);
	const Gnmi__TypedValue *v = find_val(u, n, OPER0);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->value_case, GNMI__TYPED_VALUE__VALUE_STRING_VAL);
	ck_assert_str_eq(v->string_val, "UP");
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	ck_assert_ptr_null(get(&c, "/no/such/leaf", GNMI__ENCODING__PROTO, &r));
	ck_assert_int_eq(r.status, GRPC_STATUS_NOT_FOUND);
	reply_free(&r);

	/* A deleted leaf is gone after the next tick. */
	ck_assert_int_eq(gnmi_target_delete(t, IN0), 0);
	gnmi_target_tick(t, T2);
	ck_assert_ptr_null(get(&c, IN0, GNMI__ENCODING__PROTO, &r));
	ck_assert_int_eq(r.status, GRPC_STATUS_NOT_FOUND);
	reply_free(&r);

	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_get_with_wildcards_returns_every_match)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;
	struct upd u[8];

	Gnmi__GetResponse *g = get(&c, IN_WILD, GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	size_t n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(uint_of(u, n, IN0), 100);
	ck_assert_uint_eq(uint_of(u, n, IN4), 300);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	/* "..." spans any depth; a name glob as SONiC uses. */
	g = get(&c, "/interfaces/.../in-octets", GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 2);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	g = get(&c, ETH0 "/state/counters/*-octets", GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(uint_of(u, n, OUT0), 200);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	/* A list without keys matches every entry. */
	g = get(&c, COUNTERS, GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(n, 3);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_values_encode_per_requested_encoding)
{
	struct gnmi_target *t = target_plain();
	gnmi_target_set_uint(t, "/v/u64", UINT64_MAX);
	gnmi_target_set_int(t, "/v/i64", -5);
	gnmi_target_set_double(t, "/v/dbl", 1.5);
	gnmi_target_set_bool(t, "/v/flag", true);
	gnmi_target_set_string(t, "/v/str", "say \"hi\"");
	gnmi_target_set_json(t, "/v/blob",
			     "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"7\"}");
	gnmi_target_tick(t, T1);
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;
	struct upd u[8];

	static const struct {
		const char *path, *ietf, *json;
	} want[] = {
		{ "/v/u64", "\"18446744073709551615\"",
		  "18446744073709551615" },
		{ "/v/i64", "\"-5\"", "-5" },
		{ "/v/dbl", "\"1.5\"", "1.5" },
		{ "/v/flag", "true", "true" },
		{ "/v/str", "\"say \\\"hi\\\"\"", "\"say \\\"hi\\\"\"" },
		{ "/v/blob", "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"7\"}",
		  "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"7\"}" },
	};
	for (int pass = 0; pass < 2; pass++) {
		bool ietf = pass == 0;
		Gnmi__GetResponse *g =
		    get(&c, "/v",
			ietf ? GNMI__ENCODING__JSON_IETF : GNMI__ENCODING__JSON,
			&r);
		ck_assert_ptr_nonnull(g);
		size_t n = note_updates(g->notification[0], u, 8);
		ck_assert_uint_eq(n, 6);
		for (size_t i = 0; i < 6; i++) {
			const Gnmi__TypedValue *v =
			    find_val(u, n, want[i].path);
			ck_assert_ptr_nonnull(v);
			ck_assert_int_eq(
			    v->value_case,
			    ietf ? GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL
				 : GNMI__TYPED_VALUE__VALUE_JSON_VAL);
			char *s = json_of(v);
			ck_assert_str_eq(s, ietf ? want[i].ietf : want[i].json);
			free(s);
		}
		upd_free(u, n);
		gnmi__get_response__free_unpacked(g, NULL);
		reply_free(&r);
	}

	Gnmi__GetResponse *g = get(&c, "/v", GNMI__ENCODING__PROTO, &r);
	ck_assert_ptr_nonnull(g);
	size_t n = note_updates(g->notification[0], u, 8);
	ck_assert_uint_eq(uint_of(u, n, "/v/u64"), UINT64_MAX);
	ck_assert_int_eq(find_val(u, n, "/v/i64")->int_val, -5);
	ck_assert(find_val(u, n, "/v/dbl")->double_val == 1.5);
	ck_assert(find_val(u, n, "/v/flag")->bool_val);
	ck_assert_str_eq(find_val(u, n, "/v/str")->string_val, "say \"hi\"");
	ck_assert_int_eq(find_val(u, n, "/v/blob")->value_case,
			 GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL);
	upd_free(u, n);
	gnmi__get_response__free_unpacked(g, NULL);
	reply_free(&r);

	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

/* Tests: Subscribe */

START_TEST(test_stream_sample_sends_dump_sync_then_each_interval)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN_WILD, GNMI__SUBSCRIPTION_MODE__SAMPLE, 100 * MS, 0,
		  false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	/* From before the subscription (see the heartbeat test). */
	int64_t t0 = now_ms();
	subscribe(&c, &s, NULL, NULL, &l);

	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_int_eq(r->update->timestamp, T1);
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(uint_of(u, n, IN0), 100);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);

	/* The first interval resends the same sample, an interval after
	 * the dump. */
	r = expect_update(&s, 1000);
	ck_assert_int_ge(now_ms() - t0, 50);
	ck_assert_int_eq(r->update->timestamp, T1);
	n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(uint_of(u, n, IN0), 100);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);

	/* After the second tick, the samples carry its values and time. */
	gnmi_target_set_uint(t, IN0, 150);
	gnmi_target_set_uint(t, IN4, 350);
	gnmi_target_tick(t, T2);
	bool seen = false;
	for (int i = 0; i < 5 && !seen; i++) {
		r = expect_update(&s, 1000);
		n = note_updates(r->update, u, 8);
		ck_assert_uint_eq(n, 2);
		if (r->update->timestamp == T2) {
			ck_assert_uint_eq(uint_of(u, n, IN0), 150);
			ck_assert_uint_eq(uint_of(u, n, IN4), 350);
			seen = true;
		} else {
			ck_assert_int_eq(r->update->timestamp, T1);
		}
		upd_free(u, n);
		gnmi__subscribe_response__free_unpacked(r, NULL);
	}
	ck_assert(seen);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

/* A tick at ts setting IN0 to v. */
static void tick_in0(struct gnmi_target *t, uint64_t v, int64_t ts)
{
	gnmi_target_set_uint(t, IN0, v);
	gnmi_target_tick(t, ts);
}

/* The next notification's timestamp and IN0 value. */
static int64_t next_sample(struct stream *s, uint64_t *in0)
{
	Gnmi__SubscribeResponse *r = expect_update(s, WAIT_MS);
	int64_t ts = r->update->timestamp;
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	*in0 = uint_of(u, n, IN0);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	return ts;
}

/*
 * With tick_interval_ns, SAMPLE follows the ticks: a late tick is a
 * late sample with its own timestamp, an early one is still the next
 * interval's, a missing tick is a missing sample (never the old values
 * again with the old timestamp), and without ticks nothing is sent.
 */
START_TEST(test_samples_follow_ticks_late_early_and_missing)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.tick_interval_ns = (uint64_t)SEC;
	struct gnmi_target *t = target_make(NULL, &o);
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__SAMPLE, SEC, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	uint64_t v;
	ck_assert_int_eq(next_sample(&s, &v), T1);
	ck_assert_uint_eq(v, 100);
	expect_sync(&s);
	/* No tick, no sample: the loop's timer resends nothing. */
	ck_assert(stream_quiet(&s, 1500));

	tick_in0(t, 110, T1 + 1200 * MS); /* late by 200 ms */
	ck_assert_int_eq(next_sample(&s, &v), T1 + 1200 * MS);
	ck_assert_uint_eq(v, 110);
	tick_in0(t, 120, T1 + 1800 * MS); /* early: still the second's */
	ck_assert_int_eq(next_sample(&s, &v), T1 + 1800 * MS);
	ck_assert_uint_eq(v, 120);
	/* The third tick is lost; the fourth spans two intervals. */
	tick_in0(t, 140, T1 + 4100 * MS);
	ck_assert_int_eq(next_sample(&s, &v), T1 + 4100 * MS);
	ck_assert_uint_eq(v, 140);
	/* A tick too early for the next due time (5 s less half a tick)
	 * sends nothing; the one after it does. */
	tick_in0(t, 145, T1 + 4400 * MS);
	ck_assert(stream_quiet(&s, 300));
	tick_in0(t, 150, T1 + 4900 * MS);
	ck_assert_int_eq(next_sample(&s, &v), T1 + 4900 * MS);
	ck_assert_uint_eq(v, 150);
	ck_assert(stream_quiet(&s, 1500));
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_stream_on_change_sends_only_changes_and_deletes)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ "/interfaces", GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0,
		  false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_uint_eq(r->update->n_update, 4);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);

	/* An unchanged value and no tick: nothing. */
	gnmi_target_set_uint(t, IN0, 100);
	gnmi_target_tick(t, T2);
	ck_assert(stream_quiet(&s, 200));

	gnmi_target_set_uint(t, IN4, 301);
	gnmi_target_set_string(t, OPER0, "DOWN");
	gnmi_target_tick(t, T2 + SEC);
	r = expect_update(&s, 1000);
	ck_assert_int_eq(r->update->timestamp, T2 + SEC);
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(uint_of(u, n, IN4), 301);
	ck_assert_str_eq(find_val(u, n, OPER0)->string_val, "DOWN");
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);

	gnmi_target_delete(t, OUT0);
	gnmi_target_tick(t, T2 + 2 * SEC);
	r = expect_update(&s, 1000);
	ck_assert_uint_eq(r->update->n_update, 0);
	ck_assert_uint_eq(r->update->n_delete_, 1);
	struct gnmi_path p;
	ck_assert_int_eq(gnmi_path_from_pb(r->update->delete_[0], &p), 0);
	char *ps = gnmi_path_string(&p);
	ck_assert_str_eq(ps, OUT0);
	free(ps);
	gnmi_path_clear(&p);
	gnmi__subscribe_response__free_unpacked(r, NULL);

	/* A new leaf under the subscription is a change too. */
	gnmi_target_set_uint(t, ETH4 "/state/counters/out-octets", 9);
	gnmi_target_tick(t, T2 + 3 * SEC);
	r = expect_update(&s, 1000);
	ck_assert(has_update(r, ETH4 "/state/counters/out-octets"));
	gnmi__subscribe_response__free_unpacked(r, NULL);
	ck_assert(stream_quiet(&s, 150));

	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_stream_updates_only_sends_sync_first)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN_WILD, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  true,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	expect_sync(&s);
	ck_assert(stream_quiet(&s, 150));
	gnmi_target_set_uint(t, IN0, 101);
	gnmi_target_tick(t, T2);
	Gnmi__SubscribeResponse *r = expect_update(&s, 1000);
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(uint_of(u, n, IN0), 101);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_stream_suppress_redundant_skips_unchanged_leaves)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ ETH0 "/state/counters", GNMI__SUBSCRIPTION_MODE__SAMPLE,
		  50 * MS, 0, true },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_uint_eq(r->update->n_update, 2);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	/* Several intervals pass with nothing new. */
	ck_assert(stream_quiet(&s, 250));

	gnmi_target_set_uint(t, OUT0, 222);
	gnmi_target_set_uint(t, IN0, 100);
	gnmi_target_tick(t, T2);
	r = expect_update(&s, 1000);
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(uint_of(u, n, OUT0), 222);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	ck_assert(stream_quiet(&s, 200));
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_stream_heartbeat_resends_unchanged_values)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ OPER0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 100 * MS,
		  false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	/* From before the subscription: the target sends the sync, then a
	 * heartbeat every 100 ms, so the third one cannot arrive within
	 * 300 ms of this (a clock read after the sync arrived may be late
	 * under load, and the heartbeats then seem to come faster). */
	int64_t t0 = now_ms();
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	for (int i = 0; i < 3; i++) {
		r = expect_update(&s, 1000);
		struct upd u[4];
		size_t n = note_updates(r->update, u, 4);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(find_val(u, n, OPER0)->string_val, "UP");
		ck_assert_int_eq(r->update->timestamp, T1);
		upd_free(u, n);
		gnmi__subscribe_response__free_unpacked(r, NULL);
	}
	/* Three heartbeats at 100 ms after the sync: at least 300 ms (less
	 * a margin for the target's timer and clock reads). */
	ck_assert_int_ge(now_ms() - t0, 250);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_target_defined_samples_counters_and_streams_state_changes)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.default_sample_interval_ns = 400 * MS;
	struct gnmi_target *t = target_make(NULL, &o);
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ ETH0 "/state", GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED, 0, 0,
		  false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_uint_eq(r->update->n_update, 3);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);

	gnmi_target_set_string(t, OPER0, "DOWN");
	gnmi_target_set_uint(t, IN0, 111);
	gnmi_target_tick(t, T2);
	/* The status goes at once, the counters at the next sample. */
	r = expect_update(&s, 300);
	struct upd u[8];
	size_t n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(find_val(u, n, OPER0)->string_val, "DOWN");
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	r = expect_update(&s, 1000);
	n = note_updates(r->update, u, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(uint_of(u, n, IN0), 111);
	ck_assert_ptr_null(find_val(u, n, OPER0));
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_once_sends_dump_sync_then_ok)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN_WILD, GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED, 0, 0,
		  false },
		{ "/does/not/exist", GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED, 0,
		  0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__ONCE,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  2 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_uint_eq(r->update->n_update, 2);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	grpc_slice raw;
	ck_assert_int_eq(stream_recv_raw(&s, WAIT_MS, &raw), -1);
	ck_assert_int_eq(stream_status(&s, WAIT_MS), GRPC_STATUS_OK);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_poll_answers_each_poll_with_values_and_sync)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__POLL,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	/* The subscription itself gets the current values and a sync. */
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	/* Ticks alone send nothing. */
	gnmi_target_set_uint(t, IN0, 120);
	gnmi_target_tick(t, T2);
	ck_assert(stream_quiet(&s, 150));

	static const struct {
		uint64_t value;
		int64_t ts;
	} polls[] = { { 120, T2 }, { 130, T2 + SEC } };
	for (int i = 0; i < 2; i++) {
		if (i == 1) {
			gnmi_target_set_uint(t, IN0, 130);
			gnmi_target_tick(t, T2 + SEC);
		}
		send_poll(&s);
		r = expect_update(&s, WAIT_MS);
		ck_assert_int_eq(r->update->timestamp, polls[i].ts);
		struct upd u[4];
		size_t n = note_updates(r->update, u, 4);
		ck_assert_uint_eq(uint_of(u, n, IN0), polls[i].value);
		upd_free(u, n);
		gnmi__subscribe_response__free_unpacked(r, NULL);
		expect_sync(&s);
	}
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_json_ietf_sends_64bit_integers_as_strings)
{
	struct gnmi_target *t = target_plain();
	gnmi_target_set_uint(t, IN0, UINT64_C(9223372036854775813));
	gnmi_target_tick(t, T1);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__JSON_IETF,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	ck_assert_uint_eq(r->update->n_update, 1);
	const Gnmi__TypedValue *v = r->update->update[0]->val;
	ck_assert_int_eq(v->value_case, GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL);
	char *js = json_of(v);
	ck_assert_str_eq(js, "\"9223372036854775813\"");
	free(js);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_prefix_target_is_echoed_in_notifications)
{
	struct gnmi_target *t = target_plain();
	gnmi_target_set_json(t, "COUNTERS/Ethernet0",
			     "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"12\"}");
	gnmi_target_set_json(t, "COUNTERS/Ethernet4",
			     "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"0\"}");
	gnmi_target_set_json(t, "COUNTERS_PORT_NAME_MAP",
			     "{\"Ethernet0\":\"oid:0x1000000000002\"}");
	gnmi_target_tick(t, T1);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ "Ethernet*", GNMI__SUBSCRIPTION_MODE__SAMPLE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__JSON_IETF,
			  false,
			  "COUNTERS",
			  "COUNTERS_DB",
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	const Gnmi__Notification *n = r->update;
	ck_assert_ptr_nonnull(n->prefix);
	ck_assert_str_eq(n->prefix->target, "COUNTERS_DB");
	ck_assert_uint_eq(n->prefix->n_elem, 1);
	ck_assert_str_eq(n->prefix->elem[0]->name, "COUNTERS");
	ck_assert_uint_eq(n->n_update, 2);
	struct upd u[4];
	size_t nu = note_updates(n, u, 4);
	char *js = json_of(find_val(u, nu, "/COUNTERS/Ethernet0"));
	ck_assert_str_eq(js, "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"12\"}");
	free(js);
	ck_assert_ptr_nonnull(find_val(u, nu, "/COUNTERS/Ethernet4"));
	upd_free(u, nu);
	/* Update paths are relative to the echoed prefix. */
	ck_assert_uint_eq(n->update[0]->path->n_elem, 1);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	stream_close(&s);

	/* With a wildcard in the prefix only the target is echoed. */
	static const struct sub all[] = {
		{ "/", GNMI__SUBSCRIPTION_MODE__SAMPLE, 0, 0, false },
	};
	struct list l2 = { GNMI__SUBSCRIPTION_LIST__MODE__ONCE,
			   GNMI__ENCODING__JSON_IETF,
			   false,
			   "COUNTERS/*",
			   "COUNTERS_DB",
			   all,
			   1 };
	subscribe(&c, &s, NULL, NULL, &l2);
	r = expect_update(&s, WAIT_MS);
	ck_assert_str_eq(r->update->prefix->target, "COUNTERS_DB");
	ck_assert_uint_eq(r->update->prefix->n_elem, 0);
	ck_assert_uint_eq(r->update->n_update, 2);
	ck_assert_uint_eq(r->update->update[0]->path->n_elem, 2);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	ck_assert_int_eq(stream_status(&s, WAIT_MS), GRPC_STATUS_OK);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

/* Tests: errors */

START_TEST(test_wrong_or_missing_password_is_unauthenticated)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.username = "admin";
	o.password = "YourPaSsWoRd";
	struct gnmi_target *t = target_make(NULL, &o);
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;

	unary(&c, "/gnmi.gNMI/Capabilities", "admin", "wrong", NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNAUTHENTICATED);
	ck_assert_ptr_nonnull(
	    strstr(r.details, "invalid username or password"));
	reply_free(&r);
	unary(&c, "/gnmi.gNMI/Capabilities", NULL, NULL, NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNAUTHENTICATED);
	ck_assert_ptr_nonnull(strstr(r.details, "missing"));
	reply_free(&r);
	unary(&c, "/gnmi.gNMI/Capabilities", "admin", "YourPaSsWoRd", NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_OK);
	reply_free(&r);

	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, "admin", "nope", &l);
	ck_assert_int_eq(stream_status(&s, WAIT_MS),
			 GRPC_STATUS_UNAUTHENTICATED);
	stream_close(&s);
	subscribe(&c, &s, "admin", "YourPaSsWoRd", &l);
	Gnmi__SubscribeResponse *resp = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(resp, NULL);
	expect_sync(&s);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_too_small_sample_interval_is_invalid_argument)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.min_sample_interval_ns = SEC;
	struct gnmi_target *t = target_make(NULL, &o);
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	struct sub sub = { IN0, GNMI__SUBSCRIPTION_MODE__SAMPLE, 100 * MS, 0,
			   false };
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  &sub,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	ck_assert_int_eq(stream_status(&s, WAIT_MS),
			 GRPC_STATUS_INVALID_ARGUMENT);
	char *d = grpc_slice_to_c_string(s.details);
	ck_assert_str_eq(d,
			 "invalid interval 100ms. It cannot be less than 1s");
	gpr_free(d);
	stream_close(&s);

	/* 0 means the target's lowest interval, which is fine. */
	sub.sample_ns = 0;
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	wait_streams(t, 1);
	stream_close(&s);

	/* Neither a second list nor a poll belongs on a STREAM call. */
	subscribe(&c, &s, NULL, NULL, &l);
	r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	send_poll(&s);
	ck_assert_int_eq(stream_status(&s, WAIT_MS),
			 GRPC_STATUS_INVALID_ARGUMENT);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_unknown_methods_are_unimplemented_promptly)
{
	struct gnmi_target *t = target_plain();
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;
	/* Answered, not left to the call's deadline (DEADLINE_EXCEEDED). */
	unary(&c, "/gnmi.gNMI/Set", NULL, NULL, NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNIMPLEMENTED);
	reply_free(&r);
	unary(&c, "/gnoi.system.System/Reboot", NULL, NULL, NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNIMPLEMENTED);
	reply_free(&r);
	/* An undecodable request is refused and the server goes on. */
	static const char garbage[] = "\x0a\x7f\xff";
	grpc_slice sl = grpc_slice_from_copied_buffer(garbage, 3);
	unary_bb(&c, "/gnmi.gNMI/Get", NULL, NULL,
		 grpc_raw_byte_buffer_create(&sl, 1), &r);
	grpc_slice_unref(sl);
	ck_assert_int_eq(r.status, GRPC_STATUS_INVALID_ARGUMENT);
	reply_free(&r);
	unary(&c, "/gnmi.gNMI/Capabilities", NULL, NULL, NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_OK);
	reply_free(&r);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

/* Tests: TLS */

static char *read_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char *buf = calloc(1, 65536);
	size_t n = fread(buf, 1, 65535, f);
	fclose(f);
	ck_assert_uint_gt(n, 0);
	return buf;
}

struct pki {
	char dir[64];
	char *ca, *srv_cert, *srv_key, *cli_cert, *cli_key;
};

/* A CA, a server certificate for 127.0.0.1/localhost and a client
 * certificate, made with the openssl command in a temporary directory. */
static void pki_make(struct pki *p)
{
	snprintf(p->dir, sizeof p->dir, "/tmp/check_gnmi_target.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(p->dir));
	char cmd[4096];
	snprintf(
	    cmd, sizeof cmd,
	    "cd %s && "
	    "K='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes' && "
	    "openssl req -x509 $K -keyout ca.key -out ca.crt -days 2 "
	    "-subj /CN=fabmon-test-ca "
	    "-addext basicConstraints=critical,CA:TRUE "
	    "-addext keyUsage=critical,keyCertSign,cRLSign && "
	    "openssl req $K -keyout server.key -out server.csr "
	    "-subj /CN=localhost && "
	    "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n"
	    "extendedKeyUsage=serverAuth\\n' > server.ext && "
	    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key "
	    "-CAcreateserial -days 2 -extfile server.ext -out server.crt && "
	    "openssl req $K -keyout client.key -out client.csr "
	    "-subj /CN=fabmon-client && "
	    "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && "
	    "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key "
	    "-CAcreateserial -days 2 -extfile client.ext -out client.crt",
	    p->dir);
	char full[4200];
	snprintf(full, sizeof full, "(%s) >/dev/null 2>&1", cmd);
	ck_assert_msg(system(full) == 0, "openssl failed");
	p->ca = read_file(p->dir, "ca.crt");
	p->srv_cert = read_file(p->dir, "server.crt");
	p->srv_key = read_file(p->dir, "server.key");
	p->cli_cert = read_file(p->dir, "client.crt");
	p->cli_key = read_file(p->dir, "client.key");
}

static void pki_free(struct pki *p)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", p->dir);
	ck_assert_int_eq(system(cmd), 0);
	free(p->ca);
	free(p->srv_cert);
	free(p->srv_key);
	free(p->cli_cert);
	free(p->cli_key);
}

static grpc_status_code tls_capabilities(struct gnmi_target *t,
					 const struct pki *p, bool with_cert)
{
	grpc_ssl_pem_key_cert_pair pair = { p->cli_key, p->cli_cert };
	struct client c;
	client_open_creds(&c, target_addr(t),
			  grpc_ssl_credentials_create(
			      p->ca, with_cert ? &pair : NULL, NULL, NULL));
	struct reply r;
	unary(&c, "/gnmi.gNMI/Capabilities", NULL, NULL, NULL, &r);
	if (r.status == GRPC_STATUS_OK) {
		Gnmi__CapabilityResponse *cap =
		    gnmi__capability_response__unpack(
			NULL, GRPC_SLICE_LENGTH(r.body),
			GRPC_SLICE_START_PTR(r.body));
		ck_assert_ptr_nonnull(cap);
		ck_assert_str_eq(cap->gnmi_version, "0.10.0");
		gnmi__capability_response__free_unpacked(cap, NULL);
	}
	grpc_status_code st = r.status;
	reply_free(&r);
	client_close(&c);
	return st;
}

START_TEST(test_tls_serves_with_a_server_certificate)
{
	struct pki p;
	pki_make(&p);
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.tls_cert_pem = p.srv_cert;
	o.tls_key_pem = p.srv_key;
	struct gnmi_target *t = target_make(NULL, &o);
	ck_assert_int_eq(tls_capabilities(t, &p, false), GRPC_STATUS_OK);
	/* A plaintext client gets nowhere. */
	struct client c;
	client_open(&c, target_addr(t));
	struct reply r;
	unary(&c, "/gnmi.gNMI/Capabilities", NULL, NULL, NULL, &r);
	ck_assert_int_eq(r.status, GRPC_STATUS_UNAVAILABLE);
	reply_free(&r);
	client_close(&c);
	gnmi_target_free(t);

	/* Bad PEM: the target cannot start. */
	o.tls_key_pem = "not a key";
	char err[256];
	ck_assert_ptr_null(gnmi_target_new(NULL, &o, err, sizeof err));
	pki_free(&p);
}
END_TEST

START_TEST(test_mtls_requires_a_client_certificate)
{
	struct pki p;
	pki_make(&p);
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	o.tls_cert_pem = p.srv_cert;
	o.tls_key_pem = p.srv_key;
	o.tls_client_ca_pem = p.ca;
	struct gnmi_target *t = target_make(NULL, &o);
	ck_assert_int_eq(tls_capabilities(t, &p, true), GRPC_STATUS_OK);
	ck_assert_int_eq(tls_capabilities(t, &p, false),
			 GRPC_STATUS_UNAVAILABLE);
	gnmi_target_free(t);
	pki_free(&p);
}
END_TEST

/* Tests: fault hooks */

static grpc_status_code get_status(struct client *c)
{
	struct reply r;
	Gnmi__GetResponse *g = get(c, IN0, GNMI__ENCODING__PROTO, &r);
	if (g)
		gnmi__get_response__free_unpacked(g, NULL);
	grpc_status_code st = r.status;
	reply_free(&r);
	return st;
}

/* Retries a Get for a while: the channel reconnects with a backoff. */
static grpc_status_code get_status_eventually(struct client *c,
					      grpc_status_code want)
{
	grpc_status_code st = GRPC_STATUS_UNKNOWN;
	int64_t end = now_ms() + WAIT_MS;
	while (now_ms() < end) {
		st = get_status(c);
		if (st == want)
			break;
		usleep(20000);
	}
	return st;
}

START_TEST(test_stop_and_start_serve_again_on_the_same_port)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	int port = gnmi_target_port(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);

	ck_assert_int_eq(gnmi_target_stop(t), 0);
	ck_assert_int_eq(gnmi_target_stop(t), -EALREADY);
	ck_assert_int_eq(stream_status(&s, WAIT_MS), GRPC_STATUS_UNAVAILABLE);
	stream_close(&s);
	ck_assert_uint_eq(gnmi_target_stream_count(t), 0);
	ck_assert_int_eq(get_status(&c), GRPC_STATUS_UNAVAILABLE);

	ck_assert_int_eq(gnmi_target_start(t), 0);
	ck_assert_int_eq(gnmi_target_start(t), -EALREADY);
	ck_assert_int_eq(gnmi_target_port(t), port);
	ck_assert_int_eq(get_status_eventually(&c, GRPC_STATUS_OK),
			 GRPC_STATUS_OK);
	subscribe(&c, &s, NULL, NULL, &l);
	r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_refuse_keeps_streams_but_rejects_new_connections)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);

	ck_assert_int_eq(gnmi_target_refuse(t), 0);
	ck_assert_int_eq(gnmi_target_refuse(t), -EALREADY);
	struct client c2;
	client_open(&c2, target_addr(t));
	ck_assert_int_eq(get_status(&c2), GRPC_STATUS_UNAVAILABLE);
	client_close(&c2);

	/* The stream in progress still gets changes. */
	gnmi_target_set_uint(t, IN0, 500);
	gnmi_target_tick(t, T2);
	r = expect_update(&s, WAIT_MS);
	ck_assert_int_eq(r->update->timestamp, T2);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	ck_assert_uint_eq(gnmi_target_stream_count(t), 1);

	ck_assert_int_eq(gnmi_target_start(t), 0);
	client_open(&c2, target_addr(t));
	ck_assert_int_eq(get_status_eventually(&c2, GRPC_STATUS_OK),
			 GRPC_STATUS_OK);
	client_close(&c2);

	/* Stop ends the old stream too. */
	ck_assert_int_eq(gnmi_target_stop(t), 0);
	ck_assert_int_eq(stream_status(&s, WAIT_MS), GRPC_STATUS_UNAVAILABLE);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_silent_streams_stay_open_without_messages)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s;
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__SAMPLE, 50 * MS, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	r = expect_update(&s, 1000);
	gnmi__subscribe_response__free_unpacked(r, NULL);

	gnmi_target_set_silent(t, true);
	/* A sample may have been on its way already. */
	for (int i = 0; i < 3 && !stream_quiet(&s, 100); i++)
		;
	gnmi_target_set_uint(t, IN0, 777);
	gnmi_target_tick(t, T2);
	ck_assert(stream_quiet(&s, 400));
	ck_assert_uint_eq(gnmi_target_stream_count(t), 1);

	/* A new subscription while silent gets nothing, not even a sync. */
	struct stream s2;
	subscribe(&c, &s2, NULL, NULL, &l);
	wait_streams(t, 2);
	ck_assert(stream_quiet(&s2, 200));

	gnmi_target_set_silent(t, false);
	r = expect_update(&s, 1000);
	ck_assert_int_eq(r->update->timestamp, T2);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	r = expect_update(&s2, 1000);
	struct upd u[4];
	size_t n = note_updates(r->update, u, 4);
	ck_assert_uint_eq(uint_of(u, n, IN0), 777);
	upd_free(u, n);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s2);
	stream_close(&s2);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

/* Garbage: every notification is replaced by bytes no decoder takes
 * (forty draws of the generator), the stream stays open, and off means
 * real messages again; end_streams ends the stream with UNAVAILABLE; a
 * stream lifetime ends each new stream with UNAVAILABLE after its sync,
 * and 0 turns it off. */
START_TEST(test_garbage_end_streams_and_lifetime_hooks)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	struct stream s;
	subscribe(&c, &s, NULL, NULL, &l);
	Gnmi__SubscribeResponse *r = expect_update(&s, WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	wait_streams(t, 1);

	gnmi_target_set_garbage(t, true, 9);
	for (uint64_t i = 1; i <= 40; i++) {
		gnmi_target_set_uint(t, IN0, 1000 + i);
		gnmi_target_tick(t, T1 + (int64_t)i);
		grpc_slice raw;
		ck_assert_int_eq(stream_recv_raw(&s, 10 * WAIT_MS, &raw), 1);
		ck_assert_uint_gt(GRPC_SLICE_LENGTH(raw), 0);
		ck_assert_ptr_null(gnmi__subscribe_response__unpack(
		    NULL, GRPC_SLICE_LENGTH(raw), GRPC_SLICE_START_PTR(raw)));
		grpc_slice_unref(raw);
	}
	ck_assert_uint_eq(gnmi_target_stream_count(t), 1);
	gnmi_target_set_garbage(t, false, 0);
	gnmi_target_set_uint(t, IN0, 5);
	gnmi_target_tick(t, T2);
	r = expect_update(&s, 10 * WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);

	ck_assert_uint_eq(gnmi_target_end_streams(t), 1);
	ck_assert_int_eq(stream_status(&s, 10 * WAIT_MS),
			 GRPC_STATUS_UNAVAILABLE);
	stream_close(&s);

	gnmi_target_set_stream_lifetime(t, 300 * MS);
	subscribe(&c, &s, NULL, NULL, &l);
	r = expect_update(&s, 10 * WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	ck_assert_int_eq(stream_status(&s, 10 * WAIT_MS),
			 GRPC_STATUS_UNAVAILABLE);
	stream_close(&s);

	gnmi_target_set_stream_lifetime(t, 0);
	subscribe(&c, &s, NULL, NULL, &l);
	r = expect_update(&s, 10 * WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	expect_sync(&s);
	/* Past the old lifetime, the stream still carries changes. */
	usleep(400000);
	gnmi_target_set_uint(t, IN0, 6);
	gnmi_target_tick(t, T2 + 1);
	r = expect_update(&s, 10 * WAIT_MS);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	stream_close(&s);
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_injected_payload_reaches_every_stream)
{
	struct gnmi_target *t = target_plain();
	target_seed(t);
	struct client c;
	client_open(&c, target_addr(t));
	struct stream s[2];
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__ON_CHANGE, 0, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	for (int i = 0; i < 2; i++) {
		subscribe(&c, &s[i], NULL, NULL, &l);
		Gnmi__SubscribeResponse *r = expect_update(&s[i], WAIT_MS);
		gnmi__subscribe_response__free_unpacked(r, NULL);
		expect_sync(&s[i]);
	}
	wait_streams(t, 2);
	/* A field 1 of wire type 2 whose length runs past the end. */
	static const unsigned char garbage[] = { 0x0a, 0x7f, 0xff, 0x00, 0x01 };
	ck_assert_uint_eq(gnmi_target_inject(t, garbage, sizeof garbage), 2);
	for (int i = 0; i < 2; i++) {
		grpc_slice raw;
		ck_assert_int_eq(stream_recv_raw(&s[i], WAIT_MS, &raw), 1);
		ck_assert_uint_eq(GRPC_SLICE_LENGTH(raw), sizeof garbage);
		ck_assert_int_eq(
		    memcmp(GRPC_SLICE_START_PTR(raw), garbage, sizeof garbage),
		    0);
		ck_assert_ptr_null(gnmi__subscribe_response__unpack(
		    NULL, GRPC_SLICE_LENGTH(raw), GRPC_SLICE_START_PTR(raw)));
		grpc_slice_unref(raw);
	}
	/* The streams go on afterwards. */
	gnmi_target_set_uint(t, IN0, 1);
	gnmi_target_tick(t, T2);
	for (int i = 0; i < 2; i++) {
		Gnmi__SubscribeResponse *r = expect_update(&s[i], WAIT_MS);
		gnmi__subscribe_response__free_unpacked(r, NULL);
		stream_close(&s[i]);
	}
	client_close(&c);
	gnmi_target_free(t);
}
END_TEST

START_TEST(test_unix_socket_target_serves_and_restarts)
{
	char dir[64] = "/tmp/check_gnmi_target.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char addr[128];
	snprintf(addr, sizeof addr, "unix:%s/gnmi.sock", dir);
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = addr;
	struct gnmi_target *t = target_make(NULL, &o);
	ck_assert_int_eq(gnmi_target_port(t), 0);
	target_seed(t);
	struct client c;
	client_open(&c, addr);
	ck_assert_int_eq(get_status(&c), GRPC_STATUS_OK);
	ck_assert_int_eq(gnmi_target_stop(t), 0);
	ck_assert_int_eq(get_status(&c), GRPC_STATUS_UNAVAILABLE);
	ck_assert_int_eq(gnmi_target_start(t), 0);
	ck_assert_int_eq(get_status_eventually(&c, GRPC_STATUS_OK),
			 GRPC_STATUS_OK);
	client_close(&c);
	gnmi_target_free(t);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_many_targets_share_one_loop)
{
	enum { N = 40 };
	struct gnmi_target_loop *loop = gnmi_target_loop_new();
	ck_assert_ptr_nonnull(loop);
	struct gnmi_target *t[N];
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	for (int i = 0; i < N; i++) {
		t[i] = target_make(loop, &o);
		gnmi_target_set_uint(t[i], IN0, (uint64_t)i);
		gnmi_target_tick(t[i], T1);
	}
	/* Each serves its own tree; a few stream at once. */
	struct client c[N];
	struct stream s[4];
	static const struct sub subs[] = {
		{ IN0, GNMI__SUBSCRIPTION_MODE__SAMPLE, 50 * MS, 0, false },
	};
	struct list l = { GNMI__SUBSCRIPTION_LIST__MODE__STREAM,
			  GNMI__ENCODING__PROTO,
			  false,
			  NULL,
			  NULL,
			  subs,
			  1 };
	for (int i = 0; i < N; i++) {
		client_open(&c[i], target_addr(t[i]));
		struct reply r;
		Gnmi__GetResponse *g =
		    get(&c[i], IN0, GNMI__ENCODING__PROTO, &r);
		ck_assert_ptr_nonnull(g);
		ck_assert_uint_eq(g->notification[0]->update[0]->val->uint_val,
				  (uint64_t)i);
		gnmi__get_response__free_unpacked(g, NULL);
		reply_free(&r);
		if (i < 4)
			subscribe(&c[i], &s[i], NULL, NULL, &l);
	}
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < 3; k++) {
			Gnmi__SubscribeResponse *r =
			    stream_next(&s[i], WAIT_MS);
			gnmi__subscribe_response__free_unpacked(r, NULL);
		}
		stream_close(&s[i]);
	}
	for (int i = 0; i < N; i++) {
		client_close(&c[i]);
		gnmi_target_free(t[i]);
	}
	gnmi_target_loop_free(loop);
}
END_TEST

START_TEST(test_bad_options_and_paths_are_rejected)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	char err[256] = "";
	ck_assert_ptr_null(gnmi_target_new(NULL, &o, err, sizeof err));
	ck_assert_str_eq(err, "no listen address");
	o.address = "127.0.0.1:0";
	o.tls_cert_pem = "x";
	ck_assert_ptr_null(gnmi_target_new(NULL, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "both"));
	o.tls_cert_pem = NULL;
	o.address = "256.1.1.1:1";
	ck_assert_ptr_null(gnmi_target_new(NULL, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "cannot listen"));

	struct gnmi_target *t = target_plain();
	ck_assert_ptr_null(gnmi_target_leaf(t, IN_WILD));
	ck_assert_ptr_null(gnmi_target_leaf(t, "/a[b"));
	ck_assert_int_eq(gnmi_target_set_uint(t, "/a/...", 1), -EINVAL);
	struct gnmi_target_leaf *l = gnmi_target_leaf(t, IN0);
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_eq(gnmi_target_leaf(t, "openconfig:" IN0), l);
	ck_assert_uint_eq(gnmi_target_inject(t, "x", 1), 0);
	gnmi_target_free(t);
	gnmi_target_free(NULL);
	gnmi_target_loop_free(NULL);
}
END_TEST

static Suite *gnmi_target_suite(void)
{
	Suite *s = suite_create("gnmi_target");

	TCase *tc = tcase_create("rpc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc,
		       test_capabilities_report_models_encodings_and_version);
	tcase_add_test(tc, test_get_returns_a_leaf_with_its_tick_timestamp);
	tcase_add_test(tc, test_get_with_wildcards_returns_every_match);
	tcase_add_test(tc, test_values_encode_per_requested_encoding);
	tcase_add_test(tc, test_wrong_or_missing_password_is_unauthenticated);
	tcase_add_test(tc, test_too_small_sample_interval_is_invalid_argument);
	tcase_add_test(tc, test_unknown_methods_are_unimplemented_promptly);
	tcase_add_test(tc, test_bad_options_and_paths_are_rejected);
	suite_add_tcase(s, tc);

	TCase *sub = tcase_create("subscribe");
	tcase_add_checked_fixture(sub, setup, teardown);
	tcase_set_timeout(sub, 20);
	tcase_add_test(sub,
		       test_stream_sample_sends_dump_sync_then_each_interval);
	tcase_add_test(sub, test_samples_follow_ticks_late_early_and_missing);
	tcase_add_test(sub,
		       test_stream_on_change_sends_only_changes_and_deletes);
	tcase_add_test(sub, test_stream_updates_only_sends_sync_first);
	tcase_add_test(sub,
		       test_stream_suppress_redundant_skips_unchanged_leaves);
	tcase_add_test(sub, test_stream_heartbeat_resends_unchanged_values);
	tcase_add_test(
	    sub,
	    test_target_defined_samples_counters_and_streams_state_changes);
	tcase_add_test(sub, test_once_sends_dump_sync_then_ok);
	tcase_add_test(sub, test_poll_answers_each_poll_with_values_and_sync);
	tcase_add_test(sub, test_json_ietf_sends_64bit_integers_as_strings);
	tcase_add_test(sub, test_prefix_target_is_echoed_in_notifications);
	suite_add_tcase(s, sub);

	TCase *sec = tcase_create("tls");
	tcase_add_checked_fixture(sec, setup, teardown);
	tcase_set_timeout(sec, 20);
	tcase_add_test(sec, test_tls_serves_with_a_server_certificate);
	tcase_add_test(sec, test_mtls_requires_a_client_certificate);
	suite_add_tcase(s, sec);

	TCase *fault = tcase_create("faults");
	tcase_add_checked_fixture(fault, setup, teardown);
	tcase_set_timeout(fault, 20);
	tcase_add_test(fault, test_stop_and_start_serve_again_on_the_same_port);
	tcase_add_test(fault,
		       test_refuse_keeps_streams_but_rejects_new_connections);
	tcase_add_test(fault, test_silent_streams_stay_open_without_messages);
	tcase_add_test(fault, test_injected_payload_reaches_every_stream);
	tcase_add_test(fault, test_garbage_end_streams_and_lifetime_hooks);
	tcase_add_test(fault, test_unix_socket_target_serves_and_restarts);
	tcase_add_test(fault, test_many_targets_share_one_loop);
	suite_add_tcase(s, fault);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_target_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
