/*
 * gnmi_target: a gNMI server on the gRPC core C API, for fabsim and the
 * tests (the contract is in target.h). This file holds the calls: their
 * send queues, the Capabilities, Get and Subscribe handlers, the streams
 * and their timers, and the completions the loop thread dispatches. The
 * data tree is in tree.c, the stream encoder in encode.c, the loop
 * thread, the listening servers and the target API in server.c; what
 * they share is in target_int.h.
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
 * Stream notifications are packed by hand (the stream encoder, encode.c),
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
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "target_int.h"

#include "log.h"
#include "mem.h"
#include "pack.h"
#include "tsan.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/support/alloc.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GT_QUEUE_SOFT 256
#define GT_QUEUE_HARD 16384
/* The same bounds in bytes: messages run up to GT_CHUNK_BYTES, so a
 * count alone would let a thousand slow streams hold gigabytes. */
#define GT_QUEUE_SOFT_BYTES (4u << 20)
#define GT_QUEUE_HARD_BYTES (32u << 20)
#define GT_CHUNK_UPDATES    512
#define GT_CHUNK_BYTES	    (1024 * 1024)

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

static void call_flush(struct gt_call *c);

static int64_t advance(int64_t next, int64_t interval, int64_t now)
{
	next += interval;
	return next > now ? next : now + interval;
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

/* Batches */

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

static void call_break(struct gt_call *c, const char *what, grpc_call_error e)
{
	log_warn("sim", "gNMI target: %s failed: %s", what,
		 grpc_call_error_to_string(e));
	c->broken = true;
	call_drop_queue(c);
	grpc_call_cancel(c->call, NULL);
}

/* Queues a message (taking bb); at the head with front, for injection. */
void gt_call_enqueue(struct gt_call *c, grpc_byte_buffer *bb, bool front)
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

void gt_call_finish(struct gt_call *c, grpc_status_code code, const char *fmt,
		    ...)
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
	fm_handoff_release(&c->t_send);
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
	fm_handoff_release(&c->t_recv);
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
	gt_prefix_clear(&st->pfx);
	free(st);
}

/* Extends s->matched with the leaves created since the last call. */
static void sub_refresh(struct gnmi_target *t, struct gt_sub *s)
{
	for (; s->scanned < t->n_leaves; s->scanned++) {
		struct gnmi_target_leaf *l = t->leaves[s->scanned];
		if (!gt_path_match(s->path.elem, s->path.n_elem, l->path.elem,
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
	gt_call_enqueue(c, gnmi_pack_message(&r->base), false);
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
		/* Garbage mode: the same message count, none decodable. */
		gt_call_enqueue(c,
				c->t->garbage
				    ? gt_garbage_message(c->t)
				    : gt_pack_stream_note(&st->pfx, &b->v[i], n,
							  st->encoding,
							  c->t->tick_ts),
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
void gt_stream_initial(struct gt_call *c)
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
		gt_call_finish(c, GRPC_STATUS_OK, "%s", "");
	else if (t->end_after_sync)
		gt_call_finish(c, GRPC_STATUS_UNAVAILABLE, "%s",
			       "the stream ended after its sync_response "
			       "(fault hook)");
}

/* Adds subscription s's leaves to b: all of them for a heartbeat, else
 * those a sample sends (counters under TARGET_DEFINED, the changed
 * ones under suppress_redundant). */
static void sub_sample(struct gnmi_target *t, struct gt_sub *s,
		       struct gt_batch *b, bool hb)
{
	sub_refresh(t, s);
	for (size_t k = 0; k < s->n_matched; k++) {
		struct gnmi_target_leaf *l = s->matched[k];
		if (l->pub.type == GT_NONE)
			continue;
		if (!hb) {
			if (s->mode == GT_SM_TARGET_DEFINED &&
			    !value_is_counter(&l->pub))
				continue;
			if (s->suppress && l->changed_gen <= s->last_sample_gen)
				continue;
		}
		batch_add(b, l, false);
	}
	s->last_sample_gen = t->gen;
}

/* Whether the tick just published is subscription s's sample (samples
 * that follow ticks, see tick_interval_ns in target.h); moves its due
 * time on along its grid if so. */
static bool tick_is_due(const struct gnmi_target *t, struct gt_sub *s)
{
	if (!t->tick_ns || !s->sample_ns)
		return false;
	int64_t reach = t->tick_ts + t->tick_ns / 2;
	if (s->due_ts == INT64_MIN) /* the first tick since subscribing */
		s->due_ts = t->tick_ts;
	if (reach < s->due_ts)
		return false;
	s->due_ts += ((reach - s->due_ts) / s->sample_ns + 1) * s->sample_ns;
	return true;
}

/* The send queue of c is too long for a sample (a slow client). */
static bool queue_full(struct gt_call *c)
{
	if (c->q_len < GT_QUEUE_SOFT && c->q_bytes < GT_QUEUE_SOFT_BYTES)
		return false;
	if (c->st->skipped++ == 0)
		log_warn("sim",
			 "gNMI target port %d: subscriber is slow, "
			 "skipping samples",
			 c->t->port);
	return true;
}

/* After a tick: the samples that follow ticks, ON_CHANGE updates
 * (string and bool leaves under TARGET_DEFINED) and deletes for every
 * STREAM subscription. */
void gt_stream_on_tick(struct gt_call *c)
{
	struct gt_stream *st = c->st;
	struct gnmi_target *t = c->t;
	struct gt_batch b = { 0 };
	int full = -1; /* the send queue checked once a sample is due */
	for (size_t i = 0; i < st->n_subs; i++) {
		struct gt_sub *s = &st->subs[i];
		if (tick_is_due(t, s)) {
			if (full < 0)
				full = queue_full(c);
			if (!full)
				sub_sample(t, s, &b, false);
		}
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
	if (st->end_at && now >= st->end_at) {
		gt_call_finish(c, GRPC_STATUS_UNAVAILABLE, "%s",
			       "the target reset the stream (fault hook)");
		return due;
	}
	if (st->end_at)
		due = st->end_at;
	bool can_send = !t->silent && !st->need_initial;
	if (can_send && queue_full(c))
		can_send = false;
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
		sub_sample(t, s, &b, hb);
	}
	stream_emit(c, &b);
	free(b.v);
	return due;
}

/* Loop thread, target locked. */
int64_t gt_target_service(struct gnmi_target *t, int64_t now)
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

static void handle_capabilities(struct gt_call *c, const grpc_slice *msg)
{
	struct gnmi_target *t = c->t;
	Gnmi__CapabilityRequest *req = gnmi__capability_request__unpack(
	    NULL, GRPC_SLICE_LENGTH(*msg), GRPC_SLICE_START_PTR(*msg));
	if (!req) {
		gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
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
	gt_call_enqueue(c, gnmi_pack_message(&r.base), false);
	free(models);
	gt_call_finish(c, GRPC_STATUS_OK, "%s", "");
}

static void handle_get(struct gt_call *c, const grpc_slice *msg)
{
	struct gnmi_target *t = c->t;
	Gnmi__GetRequest *req = gnmi__get_request__unpack(
	    NULL, GRPC_SLICE_LENGTH(*msg), GRPC_SLICE_START_PTR(*msg));
	if (!req) {
		gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
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
		gt_call_finish(c, GRPC_STATUS_UNIMPLEMENTED,
			       "unsupported encoding %d", (int)req->encoding);
		goto out;
	}
	if (gt_prefix_init(&pfx, req->prefix) < 0) {
		gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			       "invalid prefix");
		goto out;
	}
	for (; done < n_paths; done++) {
		struct gnmi_path p;
		if (gt_request_path(&pfx, req->n_path ? req->path[done] : NULL,
				    &p) < 0) {
			gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				       "invalid path");
			break;
		}
		for (size_t i = 0; i < t->n_leaves; i++) {
			struct gnmi_target_leaf *l = t->leaves[i];
			if (l->pub.type != GT_NONE &&
			    gt_path_match(p.elem, p.n_elem, l->path.elem,
					  l->path.n_elem))
				batch_add(&batches[done], l, false);
		}
		if (!batches[done].n) {
			char *s = gnmi_path_string(&p);
			gt_call_finish(c, GRPC_STATUS_NOT_FOUND,
				       "path %s not found", s);
			free(s);
			gnmi_path_clear(&p);
			break;
		}
		gnmi_path_clear(&p);
		gt_note_fill(&notes[done], &pfx, batches[done].v,
			     batches[done].n, req->encoding, t->tick_ts);
		np[done] = &notes[done].n;
	}
	if (done == n_paths) {
		Gnmi__GetResponse r = GNMI__GET_RESPONSE__INIT;
		r.n_notification = n_paths;
		r.notification = np;
		gt_call_enqueue(c, gnmi_pack_message(&r.base), false);
		gt_call_finish(c, GRPC_STATUS_OK, "%s", "");
	}
	for (size_t i = 0; i < done; i++)
		gt_note_clear(&notes[i]);
	gt_prefix_clear(&pfx);
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
	if (gt_prefix_init(&st->pfx, list->prefix) < 0) {
		snprintf(msg, msglen, "invalid prefix");
		code = GRPC_STATUS_INVALID_ARGUMENT;
		goto fail;
	}
	int64_t now = mono_ns();
	for (size_t i = 0; i < list->n_subscription; i++) {
		const Gnmi__Subscription *in = list->subscription[i];
		struct gt_sub *s = &st->subs[i];
		if (gt_request_path(&st->pfx, in->path, &s->path) < 0) {
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
		/* Samples that follow ticks: due at the first tick after
		 * the initial dump's, one interval on. */
		s->due_ts = INT64_MIN;
		if (t->tick_ns && s->sample_ns) {
			s->next_sample = INT64_MAX;
			if (t->tick_ts)
				s->due_ts = t->tick_ts + s->sample_ns;
		}
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
		gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
			       "cannot decode the SubscribeRequest");
		return;
	}
	switch (req->request_case) {
	case GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE: {
		if (c->st) {
			gt_call_finish(
			    c, GRPC_STATUS_INVALID_ARGUMENT,
			    "a subscription list was already received");
			break;
		}
		char err[256];
		grpc_status_code code =
		    stream_create(c, req->subscribe, err, sizeof err);
		if (code != GRPC_STATUS_OK) {
			gt_call_finish(c, code, "%s", err);
			break;
		}
		if (c->st->mode != GNMI__SUBSCRIPTION_LIST__MODE__ONCE)
			call_recv(c);
		gt_stream_initial(c);
		if (c->st->mode == GNMI__SUBSCRIPTION_LIST__MODE__STREAM) {
			int64_t due = INT64_MAX;
			if (t->lifetime_ns)
				due = c->st->end_at =
				    mono_ns() + t->lifetime_ns;
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
			gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				       "poll request without a POLL "
				       "subscription");
			break;
		}
		call_recv(c);
		if (!t->silent && !c->st->need_initial)
			stream_dump(c, true);
		break;
	default:
		gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
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

void gt_server_request(struct gt_server *s, enum gt_kind kind)
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
	fm_handoff_release(&c->t_req);
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
		gt_server_request(s, c->kind);
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
	fm_handoff_release(&c->t_close);
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
		gt_call_finish(c, GRPC_STATUS_UNIMPLEMENTED,
			       "unknown method %s", m);
		gpr_free(m);
		return;
	}
	if (gt_call_authenticate(c) < 0)
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
			gt_call_finish(c, GRPC_STATUS_INVALID_ARGUMENT,
				       "no request message");
		else if (c->st->mode == GNMI__SUBSCRIPTION_LIST__MODE__POLL)
			gt_call_finish(c, GRPC_STATUS_OK, "%s", "");
		return;
	}
	grpc_slice msg;
	bool flat = flatten(bb, &msg);
	grpc_byte_buffer_destroy(bb);
	if (!flat) {
		gt_call_finish(c, GRPC_STATUS_INTERNAL,
			       "cannot read the message");
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

void gt_loop_dispatch(struct gt_tag *tag, bool ok)
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
