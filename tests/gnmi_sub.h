/*
 * gnmi_sub.h: a bare gNMI Subscribe client on gRPC's core C API for the
 * sim suites: one STREAM or ONCE subscription to one path (SAMPLE at a
 * given interval), its responses read one at a time with a timeout, so
 * a test sees each notification and its timestamp exactly as sent.
 * One client per test thread; grpc_init() is the caller's.
 */
#ifndef FABMON_TESTS_GNMI_SUB_H
#define FABMON_TESTS_GNMI_SUB_H

#include "gnmi.pb-c.h"
#include "path.h"

#include <check.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gsub {
	grpc_channel *ch;
	grpc_completion_queue *cq;
	grpc_call *call;
	grpc_byte_buffer *sbb, *rbb;
	grpc_metadata_array imd, tmd;
	grpc_status_code status;
	grpc_slice details;
	bool recv_pending, ended;
	int tag_send, tag_recv, tag_status;
};

static inline gpr_timespec gsub_deadline(int ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
			    gpr_time_from_millis(ms, GPR_TIMESPAN));
}

static inline Gnmi__Path *gsub_path(const char *text, const char *target)
{
	struct gnmi_path gp;
	char err[128];
	ck_assert_msg(gnmi_path_parse(text, &gp, err, sizeof err) == 0,
		      "%s: %s", text, err);
	if (target)
		gp.target = strdup(target);
	Gnmi__Path *pb = gnmi_path_to_pb(&gp);
	gnmi_path_clear(&gp);
	return pb;
}

/*
 * Subscribes on 127.0.0.1:port to path (under prefix target, may be
 * NULL): STREAM with SAMPLE every sample_ns, or ONCE if once.
 */
static inline void gsub_open(struct gsub *g, int port, const char *target,
			     const char *path, uint64_t sample_ns, bool once)
{
	char addr[64];
	memset(g, 0, sizeof *g);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	grpc_channel_credentials *cr = grpc_insecure_credentials_create();
	g->ch = grpc_channel_create(addr, cr, NULL);
	grpc_channel_credentials_release(cr);
	g->cq = grpc_completion_queue_create_for_pluck(NULL);
	g->call = grpc_channel_create_call(
	    g->ch, NULL, GRPC_PROPAGATE_DEFAULTS, g->cq,
	    grpc_slice_from_static_string("/gnmi.gNMI/Subscribe"), NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_metadata_array_init(&g->imd);
	grpc_metadata_array_init(&g->tmd);

	Gnmi__Subscription sub = GNMI__SUBSCRIPTION__INIT;
	Gnmi__Subscription *subp = &sub;
	sub.path = gsub_path(path, NULL);
	sub.mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
	sub.sample_interval = sample_ns;
	Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
	list.mode = once ? GNMI__SUBSCRIPTION_LIST__MODE__ONCE
			 : GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
	list.encoding = GNMI__ENCODING__JSON_IETF;
	if (target)
		list.prefix = gsub_path("/", target);
	list.n_subscription = 1;
	list.subscription = &subp;
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
	req.subscribe = &list;
	size_t len = gnmi__subscribe_request__get_packed_size(&req);
	uint8_t *buf = malloc(len ? len : 1);
	gnmi__subscribe_request__pack(&req, buf);
	grpc_slice sl = grpc_slice_from_copied_buffer((const char *)buf, len);
	g->sbb = grpc_raw_byte_buffer_create(&sl, 1);
	grpc_slice_unref(sl);
	free(buf);
	gnmi_path_pb_free(sub.path);
	gnmi_path_pb_free(list.prefix);

	grpc_op ops[3];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = g->sbb;
	ops[2].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[2].data.recv_initial_metadata.recv_initial_metadata = &g->imd;
	ck_assert_int_eq(
	    grpc_call_start_batch(g->call, ops, 3, &g->tag_send, NULL),
	    GRPC_CALL_OK);
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[0].data.recv_status_on_client.trailing_metadata = &g->tmd;
	ops[0].data.recv_status_on_client.status = &g->status;
	ops[0].data.recv_status_on_client.status_details = &g->details;
	ck_assert_int_eq(
	    grpc_call_start_batch(g->call, ops, 1, &g->tag_status, NULL),
	    GRPC_CALL_OK);
	grpc_event ev = grpc_completion_queue_pluck(g->cq, &g->tag_send,
						    gsub_deadline(10000), NULL);
	ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
}

/* The next response within ms, or NULL (timeout, or the stream ended:
 * see g->ended). Free with gnmi__subscribe_response__free_unpacked. */
static inline Gnmi__SubscribeResponse *gsub_next(struct gsub *g, int ms)
{
	if (g->ended)
		return NULL;
	if (!g->recv_pending) {
		grpc_op op;
		memset(&op, 0, sizeof op);
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &g->rbb;
		ck_assert_int_eq(
		    grpc_call_start_batch(g->call, &op, 1, &g->tag_recv, NULL),
		    GRPC_CALL_OK);
		g->recv_pending = true;
	}
	grpc_event ev = grpc_completion_queue_pluck(g->cq, &g->tag_recv,
						    gsub_deadline(ms), NULL);
	if (ev.type == GRPC_QUEUE_TIMEOUT)
		return NULL;
	g->recv_pending = false;
	if (!ev.success || !g->rbb) {
		g->ended = true;
		return NULL;
	}
	grpc_byte_buffer_reader r;
	ck_assert(grpc_byte_buffer_reader_init(&r, g->rbb));
	grpc_slice all = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(g->rbb);
	g->rbb = NULL;
	Gnmi__SubscribeResponse *resp = gnmi__subscribe_response__unpack(
	    NULL, GRPC_SLICE_LENGTH(all), GRPC_SLICE_START_PTR(all));
	grpc_slice_unref(all);
	ck_assert_msg(resp != NULL, "undecodable SubscribeResponse");
	return resp;
}

static inline void gsub_close(struct gsub *g)
{
	gpr_timespec inf = gpr_inf_future(GPR_CLOCK_REALTIME);
	grpc_call_cancel(g->call, NULL);
	if (g->recv_pending) {
		grpc_completion_queue_pluck(g->cq, &g->tag_recv, inf, NULL);
		if (g->rbb)
			grpc_byte_buffer_destroy(g->rbb);
	}
	grpc_completion_queue_pluck(g->cq, &g->tag_status, inf, NULL);
	grpc_byte_buffer_destroy(g->sbb);
	grpc_slice_unref(g->details);
	grpc_metadata_array_destroy(&g->imd);
	grpc_metadata_array_destroy(&g->tmd);
	grpc_call_unref(g->call);
	grpc_channel_destroy(g->ch);
	grpc_completion_queue_shutdown(g->cq);
	grpc_completion_queue_destroy(g->cq);
}

#endif
