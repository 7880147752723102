/*
 * fabsim_sink: a lightweight gNMI subscriber for load-testing fabsim
 * (bench/bench_fabsim_scale.sh). It opens one Subscribe STREAM per
 * target, with the subscriptions fabmond would send, and only counts
 * what arrives: messages and bytes per target and per second, without
 * decoding them, so that one process on one thread keeps up with a
 * thousand switches that fabmond itself could not decode on a small
 * machine. Prints figures; never fails on time.
 *
 * Targets: every gNMI target of a fabmond configuration (fabsim's
 * --emit-config), with its subscriptions (those of its profile when the
 * config lists none, as the collector does; sample intervals default to
 * the target's or the global interval) and its prefix target, in
 * JSON_IETF unless the config names an encoding; or host:port arguments,
 * subscribed to /COUNTERS/Ethernet* (SAMPLE, prefix target COUNTERS_DB,
 * SONiC's) at -i.
 *
 * Phases: subscribe everything, wait (at most -t seconds) until every
 * stream has sent its sync_response (a two-byte message, the only thing
 * the sink looks into), let -w seconds go by, then count for -s
 * seconds. It prints "fabsim_sink: window begins" when counting starts
 * (callers measure other processes over the same window), one line per
 * second of the window with how many targets delivered in it, one per
 * round (a target's rounds are its sample intervals, centred on its
 * own samples: a sample late by less than half an interval stays in
 * its round, where a second of the wall clock would lose it to the
 * next) and a summary: targets that delivered in every round and in
 * every second, the largest gap between two messages of a target,
 * messages and bytes per second, streams that ended, and the sink's
 * own CPU. A stream that ends is subscribed again after a second. With -k
 * the streams stay open after the summary until the sink is killed
 * (callers measuring over the same window then see no drop at its end).
 *
 * Threads: one, which owns everything and drains one completion queue.
 *
 * Usage: fabsim_sink [-k] [-s SECONDS] [-w SECONDS] [-t SECONDS]
 *                    [-i INTERVAL] CONFIG | HOST:PORT...
 */
#include "config.h"

#include "cfg.h"
#include "clock.h"
#include "mem.h"
#include "pack.h"
#include "path.h"
#include "profile.h"

#include "fabmond.h"
#include "gnmi.pb-c.h"
#include "gnmi_cfg.h"
#include "units.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

enum tag_kind { TAG_SEND, TAG_MD, TAG_STATUS, TAG_RECV };

struct tag {
	enum tag_kind kind;
};

struct target {
	char *name;
	char *address;
	grpc_channel *ch;
	grpc_call *call;
	grpc_byte_buffer *req;	   /* the packed SubscribeRequest */
	grpc_byte_buffer *send_bb; /* its copy being sent (gRPC empties it) */
	int64_t interval_ns;	   /* shortest sample interval asked for */
	struct tag t_send, t_md, t_status, t_recv;
	int pending;
	grpc_byte_buffer *recv_bb;
	grpc_metadata_array md, trailing;
	grpc_status_code status;
	grpc_slice details;
	int64_t restart_at; /* 0: running */
	bool synced;
	/* Counting. */
	int64_t last_msg; /* monotonic ns of the last message */
	int64_t max_gap;  /* in the window */
	int64_t anchor;	  /* start of its first round in the window */
	uint64_t msgs, bytes;
	unsigned ended;
};

static struct target *targets;
static size_t n_targets;
static grpc_completion_queue *cq;

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void usage(void)
{
	fprintf(stderr, "usage: fabsim_sink [-k] [-s SECONDS] [-w SECONDS] "
			"[-t SECONDS] [-i INTERVAL] CONFIG | HOST:PORT...\n");
	exit(2);
}

/* ---- Requests ---- */

/* The SubscribeRequest for subs (sample intervals 0 default to every);
 * sets t->interval_ns. NULL with a message on a bad path. */
static grpc_byte_buffer *subscribe_request(struct target *t,
					   const struct cfg_gnmi_sub *subs,
					   size_t n, const char *prefix_target,
					   int encoding, uint64_t every)
{
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT;
	Gnmi__Subscription *sv = xcalloc(n, sizeof *sv);
	Gnmi__Subscription **sp = xcalloc(n, sizeof *sp);
	Gnmi__Path **paths = xcalloc(n, sizeof *paths);
	grpc_byte_buffer *bb = NULL;
	size_t done = 0;
	t->interval_ns = 0;
	for (; done < n; done++) {
		struct gnmi_path p;
		char err[256];
		if (gnmi_path_parse(subs[done].path, &p, err, sizeof err) < 0) {
			fprintf(stderr, "fabsim_sink: %s: path %s: %s\n",
				t->name, subs[done].path, err);
			goto out;
		}
		paths[done] = gnmi_path_to_pb(&p);
		gnmi_path_clear(&p);
		gnmi__subscription__init(&sv[done]);
		sv[done].path = paths[done];
		uint64_t si = subs[done].sample_interval_ns;
		switch (subs[done].mode) {
		case CFG_SUB_ON_CHANGE:
			sv[done].mode = GNMI__SUBSCRIPTION_MODE__ON_CHANGE;
			break;
		case CFG_SUB_TARGET_DEFINED:
			sv[done].mode = GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED;
			break;
		case CFG_SUB_SAMPLE:
			sv[done].mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
			if (!si)
				si = every;
			if (!t->interval_ns || (int64_t)si < t->interval_ns)
				t->interval_ns = (int64_t)si;
			break;
		}
		sv[done].sample_interval = si;
		sv[done].heartbeat_interval = subs[done].heartbeat_interval_ns;
		sv[done].suppress_redundant = subs[done].suppress_redundant;
		sp[done] = &sv[done];
	}
	if (prefix_target && *prefix_target) {
		prefix.target = (char *)prefix_target;
		list.prefix = &prefix;
	}
	list.subscription = sp;
	list.n_subscription = n;
	list.mode = GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
	list.encoding = (Gnmi__Encoding)encoding;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
	req.subscribe = &list;
	bb = gnmi_pack_message(&req.base);
out:
	for (size_t i = 0; i < done; i++)
		gnmi_path_pb_free(paths[i]);
	free(paths);
	free(sp);
	free(sv);
	return bb;
}

/* Every gNMI target of the config at path. 0 or -1 with a message. */
static int load_config(const char *path)
{
	char err[512];
	struct cfg *c = cfg_load(fabmond_cfg_schema(), path, err, sizeof err);
	if (!c) {
		fprintf(stderr, "fabsim_sink: %s\n", err);
		return -1;
	}
	int rc = 0;
	targets = xcalloc(c->n_targets ? c->n_targets : 1, sizeof *targets);
	for (size_t i = 0; i < c->n_targets && rc == 0; i++) {
		const struct cfg_gnmi *g = gnmi_cfg_of(&c->targets[i]);
		if (!g)
			continue;
		if (!g->insecure) {
			fprintf(stderr,
				"fabsim_sink: %s: only plaintext targets "
				"(insecure: true)\n",
				c->targets[i].name);
			rc = -1;
			break;
		}
		const char *pname =
		    g->profile ? g->profile
		    : g->target && strcmp(g->target, "COUNTERS_DB") == 0
			? "sonic"
			: "openconfig";
		struct gnmi_profile *p = gnmi_profile_load_named(
		    c->profiles_dir, pname, err, sizeof err);
		if (!p) {
			fprintf(stderr, "fabsim_sink: %s: profile: %s\n",
				c->targets[i].name, err);
			rc = -1;
			break;
		}
		const char *ptarget = NULL;
		size_t n_psubs = 0;
		const struct cfg_gnmi_sub *psubs =
		    gnmi_profile_subscriptions(p, &n_psubs, &ptarget);
		const struct cfg_gnmi_sub *all = g->n_subs ? g->subs : psubs;
		size_t n_all = g->n_subs ? g->n_subs : n_psubs;
		const char *own = g->target ? g->target
				  : ptarget ? ptarget
					    : "";
		/* The main stream's subscriptions only: fabmond puts those
		 * with another prefix target (SONiC's APPL_DB LLDP table)
		 * on a second stream, which carries no counters. */
		struct cfg_gnmi_sub *subs =
		    xcalloc(n_all ? n_all : 1, sizeof *subs);
		size_t n = 0;
		for (size_t k = 0; k < n_all; k++)
			if (!all[k].target || strcmp(all[k].target, own) == 0)
				subs[n++] = all[k];
		struct target *t = &targets[n_targets];
		t->name = xstrdup(c->targets[i].name);
		t->address = xstrdup(g->address);
		int enc = g->encoding == CFG_GNMI_ENC_AUTO
			      ? GNMI__ENCODING__JSON_IETF
			      : (int)g->encoding;
		t->req =
		    n ? subscribe_request(
			    t, subs, n, g->target ? g->target : ptarget, enc,
			    g->interval_ns ? g->interval_ns : c->interval_ns)
		      : NULL;
		free(subs);
		gnmi_profile_free(p);
		n_targets++;
		if (!t->req) {
			if (!n)
				fprintf(stderr,
					"fabsim_sink: %s: no subscriptions\n",
					t->name);
			rc = -1;
		}
	}
	cfg_free(c);
	return rc;
}

/* ---- Calls ---- */

static bool start_batch(struct target *t, const grpc_op *ops, size_t n,
			struct tag *tag)
{
	grpc_call_error e = grpc_call_start_batch(t->call, ops, n, tag, NULL);
	if (e != GRPC_CALL_OK) {
		fprintf(stderr, "fabsim_sink: %s: cannot start a batch: %s\n",
			t->name, grpc_call_error_to_string(e));
		return false;
	}
	t->pending++;
	return true;
}

static void call_over(struct target *t, int64_t now);

static bool arm_recv(struct target *t)
{
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_MESSAGE;
	op.data.recv_message.recv_message = &t->recv_bb;
	return start_batch(t, &op, 1, &t->t_recv);
}

static void subscribe(struct target *t)
{
	t->restart_at = 0;
	t->synced = false;
	grpc_metadata_array_init(&t->md);
	grpc_metadata_array_init(&t->trailing);
	t->details = grpc_empty_slice();
	t->call = grpc_channel_create_call(
	    t->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
	    grpc_slice_from_static_string("/gnmi.gNMI/Subscribe"), NULL,
	    gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	/* Wait for the connection rather than fail while a thousand
	 * channels connect. */
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[0].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	t->send_bb = grpc_byte_buffer_copy(t->req);
	ops[1].data.send_message.send_message = t->send_bb;
	bool ok = start_batch(t, ops, 2, &t->t_send);
	if (!ok) {
		grpc_byte_buffer_destroy(t->send_bb);
		t->send_bb = NULL;
	}
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[0].data.recv_initial_metadata.recv_initial_metadata = &t->md;
	ok = ok && start_batch(t, ops, 1, &t->t_md);
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[0].data.recv_status_on_client.trailing_metadata = &t->trailing;
	ops[0].data.recv_status_on_client.status = &t->status;
	ops[0].data.recv_status_on_client.status_details = &t->details;
	ok = ok && start_batch(t, ops, 1, &t->t_status);
	ok = ok && arm_recv(t);
	if (!ok)
		grpc_call_cancel(t->call, NULL);
	if (t->pending == 0) /* nothing started: nothing will complete */
		call_over(t, mono_ns());
}

/* The call is over (every batch back): report and schedule a retry. */
static void call_over(struct target *t, int64_t now)
{
	char *d = grpc_slice_to_c_string(t->details);
	fprintf(stderr, "fabsim_sink: %s: stream ended: status %d %s\n",
		t->name, (int)t->status, d);
	gpr_free(d);
	grpc_slice_unref(t->details);
	grpc_metadata_array_destroy(&t->md);
	grpc_metadata_array_destroy(&t->trailing);
	grpc_call_unref(t->call);
	t->call = NULL;
	t->ended++;
	t->restart_at = now + NS_PER_S;
}

/* The sync_response is the two-byte SubscribeResponse {sync_response:
 * true}: field 3, varint 1. */
static bool is_sync(grpc_byte_buffer *bb)
{
	if (grpc_byte_buffer_length(bb) != 2)
		return false;
	grpc_byte_buffer_reader r;
	if (!grpc_byte_buffer_reader_init(&r, bb))
		return false;
	grpc_slice s = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	bool yes = GRPC_SLICE_LENGTH(s) == 2 &&
		   GRPC_SLICE_START_PTR(s)[0] == 0x18 &&
		   GRPC_SLICE_START_PTR(s)[1] == 0x01;
	grpc_slice_unref(s);
	return yes;
}

/* ---- Counting ---- */

struct window {
	bool on;
	int64_t start;
	unsigned secs;
	uint32_t *hits;	     /* [sec * n_targets + target]: messages */
	uint64_t *bytes;     /* per second */
	uint64_t *msgs;	     /* per second */
	unsigned *delivered; /* per second: targets with a message */
	/* The same per round: a target's round k is the interval that
	 * starts half an interval before its first message in the
	 * window, plus k intervals, so that the jitter of a target whose
	 * samples fall near a second's boundary does not move them into
	 * the next second. */
	uint32_t *rhits;
	unsigned *rdelivered;
};

static void count(struct window *w, struct target *t, size_t ti, size_t len,
		  int64_t now)
{
	if (w->on && t->last_msg && now - t->last_msg > t->max_gap)
		t->max_gap = now - t->last_msg;
	t->last_msg = now;
	if (!w->on || now < w->start)
		return;
	int64_t sec = (now - w->start) / NS_PER_S;
	if (sec >= (int64_t)w->secs)
		return;
	t->msgs++;
	t->bytes += len;
	w->msgs[sec]++;
	w->bytes[sec] += len;
	if (w->hits[(size_t)sec * n_targets + ti]++ == 0)
		w->delivered[sec]++;
	int64_t iv = t->interval_ns ? t->interval_ns : NS_PER_S;
	if (!t->anchor)
		t->anchor = now - iv / 2;
	int64_t k = (now - t->anchor) / iv;
	if (k < (int64_t)w->secs && w->rhits[(size_t)k * n_targets + ti]++ == 0)
		w->rdelivered[k]++;
}

static void dispatch(struct window *w, struct tag *tag, bool ok, int64_t now)
{
	struct target *t = NULL;
	switch (tag->kind) {
	case TAG_SEND:
		t = container_of(tag, struct target, t_send);
		grpc_byte_buffer_destroy(t->send_bb);
		t->send_bb = NULL;
		break;
	case TAG_MD:
		t = container_of(tag, struct target, t_md);
		break;
	case TAG_STATUS:
		t = container_of(tag, struct target, t_status);
		break;
	case TAG_RECV:
		t = container_of(tag, struct target, t_recv);
		if (ok && t->recv_bb) {
			size_t len = grpc_byte_buffer_length(t->recv_bb);
			if (!t->synced && is_sync(t->recv_bb))
				t->synced = true;
			count(w, t, (size_t)(t - targets), len, now);
			grpc_byte_buffer_destroy(t->recv_bb);
			t->recv_bb = NULL;
			t->pending--;
			if (!arm_recv(t))
				grpc_call_cancel(t->call, NULL);
			goto check;
		}
		if (t->recv_bb)
			grpc_byte_buffer_destroy(t->recv_bb);
		t->recv_bb = NULL;
		break;
	}
	t->pending--;
check:
	if (t->pending == 0)
		call_over(t, now);
}

/* Drains the queue until mono time end. */
static void run_until(struct window *w, int64_t end, bool until_synced)
{
	for (;;) {
		int64_t now = mono_ns();
		if (now >= end)
			return;
		if (until_synced) {
			size_t s = 0;
			for (size_t i = 0; i < n_targets; i++)
				s += targets[i].synced;
			if (s == n_targets)
				return;
		}
		for (size_t i = 0; i < n_targets; i++)
			if (targets[i].restart_at &&
			    now >= targets[i].restart_at)
				subscribe(&targets[i]);
		int64_t wait = end - now;
		if (wait > NS_PER_S / 10)
			wait = NS_PER_S / 10;
		gpr_timespec dl =
		    gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
				 gpr_time_from_nanos(wait, GPR_TIMESPAN));
		grpc_event ev = grpc_completion_queue_next(cq, dl, NULL);
		/* Drain what is ready without re-reading the clock each
		 * time: messages of one wakeup share its timestamp. */
		while (ev.type == GRPC_OP_COMPLETE) {
			dispatch(w, ev.tag, ev.success != 0, mono_ns());
			ev = grpc_completion_queue_next(
			    cq, gpr_inf_past(GPR_CLOCK_MONOTONIC), NULL);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned secs = 30, warm = 5, settle = 120;
	uint64_t every = (uint64_t)NS_PER_S;
	bool keep = false;
	int opt;
	while ((opt = getopt(argc, argv, "ks:w:t:i:h")) != -1) {
		switch (opt) {
		case 'k':
			keep = true;
			break;
		case 's':
			secs = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			warm = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 't':
			settle = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'i':
			if (units_parse_duration(optarg, &every) < 0 ||
			    !every) {
				fprintf(stderr,
					"fabsim_sink: -i %s: not a duration\n",
					optarg);
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || secs == 0)
		usage();
	struct stat sb;
	if (argc - optind == 1 && stat(argv[optind], &sb) == 0) {
		if (load_config(argv[optind]) < 0)
			return 1;
	} else {
		static const struct cfg_gnmi_sub sonic = {
			.path = (char *)"/COUNTERS/Ethernet*",
			.mode = CFG_SUB_SAMPLE,
		};
		targets = xcalloc((size_t)(argc - optind), sizeof *targets);
		for (int i = optind; i < argc; i++) {
			struct target *t = &targets[n_targets++];
			t->name = xstrdup(argv[i]);
			t->address = xstrdup(argv[i]);
			t->req =
			    subscribe_request(t, &sonic, 1, "COUNTERS_DB",
					      GNMI__ENCODING__JSON_IETF, every);
		}
	}
	if (n_targets == 0) {
		fprintf(stderr, "fabsim_sink: no gNMI targets\n");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	grpc_init();
	cq = grpc_completion_queue_create_for_next(NULL);
	grpc_channel_credentials *creds = grpc_insecure_credentials_create();
	static char k_maxrecv[] = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	static char k_local[] = GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL;
	grpc_arg args[2];
	args[0].type = GRPC_ARG_INTEGER;
	args[0].key = k_maxrecv;
	args[0].value.integer = -1;
	/* One connection per target, as fabmond's channels have. */
	args[1].type = GRPC_ARG_INTEGER;
	args[1].key = k_local;
	args[1].value.integer = 1;
	grpc_channel_args ca = { .num_args = 2, .args = args };
	for (size_t i = 0; i < n_targets; i++) {
		struct target *t = &targets[i];
		t->t_send.kind = TAG_SEND;
		t->t_md.kind = TAG_MD;
		t->t_status.kind = TAG_STATUS;
		t->t_recv.kind = TAG_RECV;
		t->ch = grpc_channel_create(t->address, creds, &ca);
		subscribe(t);
	}
	grpc_channel_credentials_release(creds);

	struct window w;
	memset(&w, 0, sizeof w);
	w.secs = secs;
	w.hits = xcalloc((size_t)secs * n_targets, sizeof *w.hits);
	w.bytes = xcalloc(secs, sizeof *w.bytes);
	w.msgs = xcalloc(secs, sizeof *w.msgs);
	w.delivered = xcalloc(secs, sizeof *w.delivered);
	w.rhits = xcalloc((size_t)secs * n_targets, sizeof *w.rhits);
	w.rdelivered = xcalloc(secs, sizeof *w.rdelivered);

	int64_t t0 = mono_ns();
	printf("fabsim_sink: %zu targets, subscribing\n", n_targets);
	run_until(&w, t0 + (int64_t)settle * NS_PER_S, true);
	size_t synced = 0;
	for (size_t i = 0; i < n_targets; i++)
		synced += targets[i].synced;
	printf("fabsim_sink: %zu of %zu streams synced after %.1f s\n", synced,
	       n_targets, (double)(mono_ns() - t0) / 1e9);
	run_until(&w, mono_ns() + (int64_t)warm * NS_PER_S, false);

	for (size_t i = 0; i < n_targets; i++)
		targets[i].ended = 0;
	w.on = true;
	w.start = mono_ns();
	double c0 = cpu_s();
	printf("fabsim_sink: window begins\n");
	run_until(&w, w.start + (int64_t)secs * NS_PER_S, false);
	double cpu = (cpu_s() - c0) / secs;

	/* Per second of the window, then per round (the last round may
	 * end after the window: left out). */
	unsigned fewest = UINT32_MAX, rfewest = UINT32_MAX;
	unsigned rounds = secs > 1 ? secs - 1 : 1;
	uint64_t msgs = 0, bytes = 0;
	for (unsigned s = 0; s < secs; s++) {
		printf("fabsim_sink: second %u: %u targets delivered, %" PRIu64
		       " messages, %.1f MB\n",
		       s + 1, w.delivered[s], w.msgs[s],
		       (double)w.bytes[s] / 1e6);
		if (w.delivered[s] < fewest)
			fewest = w.delivered[s];
		msgs += w.msgs[s];
		bytes += w.bytes[s];
	}
	for (unsigned k = 0; k < rounds; k++) {
		printf("fabsim_sink: round %u: %u targets delivered\n", k + 1,
		       w.rdelivered[k]);
		if (w.rdelivered[k] < rfewest)
			rfewest = w.rdelivered[k];
	}
	size_t every_sec = 0, every_round = 0, ended = 0;
	int64_t worst = 0;
	int64_t end = w.start + (int64_t)secs * NS_PER_S;
	for (size_t i = 0; i < n_targets; i++) {
		struct target *t = &targets[i];
		bool all = true;
		for (unsigned s = 0; s < secs && all; s++)
			all = w.hits[(size_t)s * n_targets + i] != 0;
		every_sec += all;
		all = t->ended == 0;
		for (unsigned k = 0; k < rounds && all; k++)
			all = w.rhits[(size_t)k * n_targets + i] != 0;
		every_round += all;
		/* The time since its last message counts as a gap too. */
		int64_t gap = t->max_gap;
		if (!t->last_msg)
			gap = INT64_MAX;
		else if (end - t->last_msg > gap)
			gap = end - t->last_msg;
		if (gap > worst)
			worst = gap;
		ended += t->ended;
	}
	printf("fabsim_sink: window %u s: %zu targets, %zu delivered in every "
	       "round (fewest in a round %u), %zu in every second (fewest "
	       "in a second %u), largest gap between messages %.2f s, %.0f "
	       "messages/s, %.1f MB/s, %zu streams ended, sink CPU %.3f "
	       "s/s\n",
	       secs, n_targets, every_round, rfewest, every_sec, fewest,
	       worst == INT64_MAX ? -1.0 : (double)worst / 1e9,
	       (double)msgs / secs, (double)bytes / secs / 1e6, ended, cpu);

	fflush(stdout);
	while (keep)
		run_until(&w, mono_ns() + 3600 * NS_PER_S, false);
	/* Exit without tearing a thousand calls down: the process ends. */
	_exit(0);
}
