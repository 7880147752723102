/*
 * gnmi_client: the gNMI collector (see client.h). This file holds a
 * target's calls: Capabilities, Subscribe and Poll, their completions
 * and what follows a call (retry, backoff, the next ONCE). A target's
 * construction from its config (profile, subscriptions, TLS material,
 * channel, request messages) is in client_target.c; the threads, their
 * mailboxes and the collector ops are in client_thread.c; what they
 * share is in client_int.h.
 *
 * Each target is a small state machine driven by completions on its
 * thread's queue and by two timers (the next action: connect, poll,
 * re-run a ONCE; and the stream watchdog):
 *
 *   IDLE -> CAPS (Capabilities) -> STREAM (Subscribe) -> ... -> WAIT
 *
 * WAIT is a backoff before the next connect, or the interval before the
 * next ONCE.
 *
 * Backoff: each failure doubles the backoff (1 s to 60 s) and waits
 * between half of it and all of it (the jitter spreads a fabric's
 * reconnects; the half floor keeps a failing target's retries apart
 * whatever the draw). A stream that ends soon after it started is a
 * failure like a refused connect: the backoff is reset, and the
 * failures forgotten, only once a stream has delivered for
 * max(STABLE_MIN_NS, its watchdog period), still delivering at its end,
 * or a ONCE has been answered. So a target that drops every stream
 * after its sync_response is retried at 1, 2, 4 ... 60 s rather than
 * every second, and its failures share one rate-limited complaint
 * (log_complain) rather than a failure line and a recovery line each.
 * Silence is treated alike: the watchdog's first cancel after a healthy
 * stream resubscribes at once, the ones after it take the backoff.
 *
 * A call is over when its status batch has completed and no
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

#include "client_int.h"

#include "decode.h"
#include "health.h"
#include "links.h"
#include "lldp.h"
#include "log.h"
#include "mem.h"
#include "objmap.h"
#include "pack.h"
#include "profile.h"
#include "store.h"

#include "gnmi.pb-c.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/support/alloc.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	t->stable_at_ns = 0;
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
	client_fill_metadata(t);
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
		client_clear_metadata(t);
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
	client_fill_metadata(t);
	grpc_slice method =
	    grpc_slice_from_static_string("/gnmi.gNMI/Subscribe");
	t->call = grpc_channel_create_call(
	    t->ch, NULL, GRPC_PROPAGATE_DEFAULTS, t->th->cq, method, NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	if (t->is_objects)
		client_objects_take(t);
	t->send_bb = client_subscribe_request(t);
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

void client_send_poll(struct gtarget *t)
{
	if (!t->call || t->send_pending || t->stopping)
		return;
	t->send_bb = client_poll_request();
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
void client_connect_target(struct gtarget *t)
{
	unsigned cur = atomic_load(&t->col->connecting);
	do {
		if (cur >= atomic_load_explicit(&t->col->max_connecting,
						memory_order_relaxed)) {
			set_timer(t, mono_ns() + CONNECT_CAP_WAIT_NS +
					 jitter(t->th, CONNECT_CAP_WAIT_NS));
			t->state = GS_WAIT;
			return;
		}
	} while (
	    !atomic_compare_exchange_weak(&t->col->connecting, &cur, cur + 1));
	t->connecting = true;
	if (!t->ch)
		t->ch = client_make_channel(t);
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
		/* Half fixed, half jitter: at least backoff / 2. */
		wait = t->backoff_ns / 2 + jitter(t->th, t->backoff_ns / 2);
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
	health_target_set_down(
	    t->health, "%s: %s (retrying in %llds)", status_name(code),
	    detail && *detail ? detail : "no detail", (long long)in_s);
	log_complain(&t->complaint, fatal ? LOG_LVL_ERR : LOG_LVL_WARN, "gnmi",
		     "%s: %s: %s%s", t->name, status_name(code),
		     detail && *detail ? detail : "no detail",
		     fatal ? " (not retryable soon: check the config)" : "");
}

/* A usable stream or ONCE: the target is up (its health says so at
 * once; the backoff waits until it has stayed up, client_mark_stable). */
static void mark_up(struct gtarget *t)
{
	connecting_done(t);
	health_target_set_up(t->health, true, NULL);
}

/* How long t's stream must deliver to count as healthy. */
static int64_t stable_period(const struct gtarget *t)
{
	return t->watchdog_ns > STABLE_MIN_NS ? t->watchdog_ns : STABLE_MIN_NS;
}

void client_check_stable(struct gtarget *t, int64_t now)
{
	if (!t->stable_at_ns || now < t->stable_at_ns)
		return;
	/* Delivering still: a message in the second half of the period.
	 * A stream that sent its sync_response and went quiet has not
	 * proved anything (its watchdog ends it soon; were it judged
	 * healthy, a target silent after every sync would be resubscribed
	 * at once, forever). A stream without a watchdog (on-change
	 * paths only) may be quiet for good: staying open is enough. */
	int64_t period = stable_period(t);
	if (t->watchdog_ns && t->last_msg_ns < t->stable_at_ns - period / 2) {
		t->stable_at_ns = t->last_msg_ns + period > now
				      ? t->last_msg_ns + period
				      : now + period / 2;
		return;
	}
	client_mark_stable(t);
}

void client_mark_stable(struct gtarget *t)
{
	t->stable_at_ns = 0;
	if (t->failures)
		log_complain_clear(&t->complaint, "gnmi", "%s: streaming again",
				   t->name);
	t->failures = 0;
	t->backoff_ns = 0;
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
		if (t->is_objects) /* (for the count logged) */
			client_objects_take(t);
		/* Logged once per recovery, not on every retry of a target
		 * that keeps failing (its complaint says so). */
		log_msg(t->failures ? LOG_LVL_DEBUG : LOG_LVL_INFO, "gnmi",
			"%s: subscribing (%s, %s encoding, %zu paths)", t->name,
			t->cfg->mode == CFG_GNMI_ONCE	? "once"
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
		if (st.map_rejected) {
			/* A name map field fabmon cannot read. */
			health_target_count(t->health, HEALTH_C_DECODE_ERRORS,
					    st.map_rejected);
			log_complain(&t->decode_complaint, LOG_LVL_WARN, "gnmi",
				     "%s: %llu name map fields rejected (field "
				     "names the map's key does not parse, or "
				     "values that are not object ids)",
				     t->name,
				     (unsigned long long)st.map_rejected);
		}
		if (st.bad_values) {
			/* A switch sending "n/a" or the like for counters:
			 * the target answers, but those series stop. */
			health_target_count(t->health, HEALTH_C_DECODE_ERRORS,
					    st.bad_values);
			log_complain(&t->decode_complaint, LOG_LVL_WARN, "gnmi",
				     "%s: %llu values of mapped leaves are not "
				     "numbers fabmon can use (strings such as "
				     "\"n/a\", NaN, negative counters); those "
				     "series are not updated",
				     t->name,
				     (unsigned long long)st.bad_values);
		}
		if (t->objmap)
			client_objects_notify(t);
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
		t->last_msg_ns = mono_ns();
		if (!t->got_message) {
			t->got_message = true;
			t->stable_at_ns = t->last_msg_ns + stable_period(t);
			note_due(t->th, t->stable_at_ns);
			mark_up(t);
		}
		t->messages++;
		handle_response(t, GRPC_SLICE_START_PTR(flat),
				GRPC_SLICE_LENGTH(flat));
		grpc_slice_unref(flat);
	}
	grpc_byte_buffer_destroy(t->recv_bb);
	t->recv_bb = NULL;
	if (!t->stopping && !t->status_done)
		arm_recv(t);
}

/*
 * t's stream fell silent and its watchdog ended it. The first silence
 * after a healthy stream is resubscribed at once on the same channel
 * (a target that lost one subscription); silences that follow before
 * a stream has proved healthy again are failures and take the
 * backoff, so a target that goes quiet after every sync (or accepts
 * and never sends) is not resubscribed every watchdog period forever,
 * and its complaints share one rate-limited line.
 */
static void silent_stream(struct gtarget *t)
{
	long long w_s = (long long)(t->watchdog_ns / NS_PER_S);
	long long w_ms = (long long)(t->watchdog_ns / NS_PER_MS);
	health_target_count(t->health, HEALTH_C_RECONNECTS, 1);
	connecting_done(t);
	t->failures++;
	if (t->failures == 1) {
		t->state = GS_IDLE;
		set_timer(t, mono_ns());
	} else {
		health_target_count(t->health, HEALTH_C_ERRORS, 1);
		schedule_retry(t, false);
	}
	int64_t in_s = (t->t_action - mono_ns() + NS_PER_S / 2) / NS_PER_S;
	/* Silence is not health: down until a message arrives. */
	if (w_s >= 1)
		health_target_set_down(t->health,
				       "no message for %llds; resubscribing "
				       "in %llds",
				       w_s, (long long)in_s);
	else
		health_target_set_down(t->health,
				       "no message for %lldms; resubscribing "
				       "in %llds",
				       w_ms, (long long)in_s);
	log_complain(&t->complaint, LOG_LVL_WARN, "gnmi",
		     "%s: no message for %lldms: resubscribing", t->name, w_ms);
}

/* The call is over (status in, nothing pending): decide what is next. */
static void call_finished(struct gtarget *t)
{
	enum gstate was = t->state;
	char *detail = grpc_slice_to_c_string(t->details);
	grpc_status_code st = t->status;
	bool watchdog = t->cancelled_by_watchdog;
	bool got = t->got_message;
	/* A stream that delivered long enough was healthy, even if the
	 * thread has not yet looked at its timer. */
	client_check_stable(t, mono_ns());
	t->stable_at_ns = 0;
	grpc_byte_buffer *answer = was == GS_CAPS ? t->recv_bb : NULL;
	if (answer)
		t->recv_bb = NULL;

	grpc_call_unref(t->call);
	t->call = NULL;
	client_clear_metadata(t);
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

	if (t->resubscribing) {
		/* An objects stream whose set changed: subscribe again
		 * now (not a failure). */
		t->resubscribing = false;
		connecting_done(t);
		t->state = GS_IDLE;
		set_timer(t, mono_ns());
	} else if (watchdog) {
		silent_stream(t);
	} else if (t->cfg->mode == CFG_GNMI_ONCE && st == GRPC_STATUS_OK) {
		if (!got)
			mark_up(t);
		/* A whole answer: healthy, however short the call. */
		client_mark_stable(t);
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

void client_handle_event(struct gtarget *t, enum op op, bool ok)
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
