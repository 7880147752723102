/*
 * fuzz_gnmi_wire: differential libFuzzer target for the in-place
 * SubscribeResponse walker (gnmi_wire.h) against the decoded path it
 * replaced (gnmi_decode() + gnmi_walk_notification()).
 *
 * Each input goes both ways. When protobuf-c (with the depth pre-scan
 * and a 16 MiB arena) accepts it, the wire walker must accept it too
 * and report the same kind, sync_response, timestamp, error text,
 * leaves (view printed with gnmi_view_format, target, scalar), deletes
 * and counts. When the pre-scan or protobuf-c finds it malformed or too
 * deep, the walker must refuse it as well. Whatever the walker accepts
 * is walked under ASan and UBSan. The differences allowed are those of
 * doc/gnmi-wire.md: a message protobuf-c would need more than the arena
 * budget for (the walker needs none), two empty TypedValues merged in
 * one Update.val (undefined in protobuf-c; the walker refuses), and an
 * origin or target of GNMI_WIRE_NAME_MAX bytes or more (the walker
 * counts the path unsupported). protobuf-c is the system library, so
 * its own code is not instrumented. Seeds: fuzz/corpus/gnmi_wire/.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1 /* Error, Update.value */
#include "decode.h"
#include "gnmi.pb-c.h"
#include "value.h"
#include "wire.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET	 (16 * 1024 * 1024)
#define MAX_SIZE (4 * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

struct rec {
	char *b;
	size_t n, cap;
};

static void rec_put(struct rec *r, const void *p, size_t n)
{
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2 + 256;
		r->b = realloc(r->b, r->cap);
		if (r->b == NULL)
			abort();
	}
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

__attribute__((format(printf, 2, 3))) static void
rec_printf(struct rec *r, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k > 0)
		rec_put(r, buf,
			(size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
}

static void rec_view(struct rec *r, const struct gnmi_view *v)
{
	size_t need = gnmi_view_format(v, NULL, 0);
	char *buf = malloc(need + 1);

	if (buf == NULL || gnmi_view_format(v, buf, need + 1) != need)
		abort();
	rec_put(r, buf, need);
	rec_put(r, " @", 2);
	rec_put(r, v->target, strlen(v->target));
	free(buf);
}

static void on_leaf(void *ctx, const struct gnmi_view *v,
		    const struct gnmi_scalar *s)
{
	struct rec *r = ctx;
	uint64_t bits;

	memcpy(&bits, &s->d, sizeof bits);
	rec_put(r, "L ", 2);
	rec_view(r, v);
	rec_printf(r, " %d %llu %lld %llx %d ", (int)s->kind,
		   (unsigned long long)s->u, (long long)s->i,
		   (unsigned long long)bits, (int)s->b);
	if (s->s == NULL) {
		rec_printf(r, "- %zu\n", s->len);
	} else {
		rec_printf(r, "%zu:", s->len);
		rec_put(r, s->s, s->len);
		rec_put(r, "\n", 1);
	}
}

static void on_delete(void *ctx, const struct gnmi_view *v)
{
	struct rec *r = ctx;

	rec_put(r, "D ", 2);
	rec_view(r, v);
	rec_put(r, "\n", 1);
}

static bool long_name(const Gnmi__Path *p)
{
	return p != NULL &&
	       ((p->origin && strlen(p->origin) >= GNMI_WIRE_NAME_MAX) ||
		(p->target && strlen(p->target) >= GNMI_WIRE_NAME_MAX));
}

/* An origin or target the walker refuses (see the file comment). */
static bool has_long_name(const Gnmi__Notification *n)
{
	if (long_name(n->prefix))
		return true;
	for (size_t i = 0; i < n->n_update; i++)
		if (long_name(n->update[i]->path))
			return true;
	for (size_t i = 0; i < n->n_delete_; i++)
		if (long_name(n->delete_[i]))
			return true;
	return false;
}

__attribute__((noreturn, format(printf, 1, 2))) static void
differ(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz_gnmi_wire: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static bool same_stats(const struct gnmi_walk_stats *a,
		       const struct gnmi_walk_stats *b)
{
	return a->leaves == b->leaves && a->deletes == b->deletes &&
	       a->bad_json == b->bad_json && a->too_deep == b->too_deep &&
	       a->unsupported == b->unsupported;
}

static struct gnmi_arena *arena;

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct rec ra = { 0 }, rb = { 0 };
	struct gnmi_walk_stats sa = { 0 }, sb = { 0 };
	struct gnmi_wire_info info;
	ProtobufCMessage *m = NULL;
	int drc, wrc;

	if (n > MAX_SIZE)
		return 0;
	if (arena == NULL)
		arena = gnmi_arena_new(BUDGET);
	gnmi_arena_reset(arena);
	drc = gnmi_decode(&gnmi__subscribe_response__descriptor, d, n, MAX_SIZE,
			  arena, &m);
	wrc = gnmi_wire_parse(d, n, &info);
	if (wrc < GNMI_WIRE_UNDEFINED || wrc > GNMI_WIRE_OK)
		differ("result %d out of range", wrc);
	if (wrc != GNMI_WIRE_OK && info.kind != GNMI_WIRE_NONE)
		differ("a refused message has a kind");
	/* whatever the walker accepts, it walks without harm */
	gnmi_wire_walk(&info, on_leaf, on_delete, &rb, &sb);
	if (wrc != GNMI_WIRE_OK && rb.n != 0)
		differ("a refused message reported leaves");
	if (drc == GNMI_DECODE_MALFORMED || drc == GNMI_DECODE_TOO_DEEP) {
		if (wrc == GNMI_WIRE_OK)
			differ("decode refused (%s), the walker accepted",
			       gnmi_decode_strerror(drc));
		goto out;
	}
	if (drc != GNMI_DECODE_OK)
		goto out; /* over the budget: the walker needs none */
	if (wrc == GNMI_WIRE_UNDEFINED)
		goto out; /* protobuf-c read outside its tables */
	if (wrc != GNMI_WIRE_OK)
		differ("decode accepted, the walker refused (%s)",
		       gnmi_wire_strerror(wrc));

	const Gnmi__SubscribeResponse *r = (const Gnmi__SubscribeResponse *)m;
	enum gnmi_wire_kind kind = GNMI_WIRE_NONE;

	switch (r->response_case) {
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE:
		kind = GNMI_WIRE_UPDATE;
		if (r->update->timestamp != info.timestamp)
			differ("timestamp");
		if (has_long_name(r->update))
			goto out;
		gnmi_walk_notification(r->update, on_leaf, on_delete, &ra, &sa);
		break;
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE:
		kind = GNMI_WIRE_SYNC;
		if ((r->sync_response != 0) != info.sync_response)
			differ("sync_response");
		break;
	case GNMI__SUBSCRIBE_RESPONSE__RESPONSE_ERROR: {
		char msg[GNMI_WIRE_ERROR_MAX];

		kind = GNMI_WIRE_ERROR;
		snprintf(msg, sizeof msg, "%s",
			 r->error->message ? r->error->message : "");
		if (strcmp(msg, info.error_message) != 0)
			differ("error message");
		break;
	}
	default:
		break;
	}
	if (kind != info.kind)
		differ("kind %d, wire %d", (int)kind, (int)info.kind);
	if (ra.n != rb.n || (ra.n && memcmp(ra.b, rb.b, ra.n) != 0))
		differ("leaves differ:\n%.*s\n---\n%.*s", (int)ra.n,
		       ra.b ? ra.b : "", (int)rb.n, rb.b ? rb.b : "");
	if (!same_stats(&sa, &sb))
		differ("walk counts differ");
out:
	free(ra.b);
	free(rb.b);
	return 0;
}
