/*
 * gnmi_target server: the loop thread that drains a completion queue
 * and runs the targets' timers, the listening gRPC servers (with TLS
 * and the username/password check), the target's life cycle and the
 * fault hooks (refuse, restart, silence, injection). The locking rules
 * are those of target.c's opening comment: loop, then target.
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "target_int.h"

#include "log.h"
#include "mem.h"
#include "tsan.h"

#include <grpc/grpc_security.h>

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define GT_MAX_WAIT_NS	NS_PER_S
#define GT_BIND_RETRIES 50
/* The loop wakes for its timers on this grid: a sample is late by up
 * to this much, never early, and a loop whose thousand targets fall
 * due at scattered times walks them at most 1/GT_TIMER_GRAIN_NS times
 * a second rather than once per target. */
#define GT_TIMER_GRAIN_NS INT64_C(5000000)

static const char *const gt_methods[GT_OTHER] = {
	"/gnmi.gNMI/Capabilities",
	"/gnmi.gNMI/Get",
	"/gnmi.gNMI/Subscribe",
};

static gpr_timespec mono_deadline(int64_t ns)
{
	gpr_timespec ts;
	ts.tv_sec = ns / NS_PER_S;
	ts.tv_nsec = (int32_t)(ns % NS_PER_S);
	ts.clock_type = GPR_CLOCK_MONOTONIC;
	return ts;
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
int gt_call_authenticate(struct gt_call *c)
{
	struct gnmi_target *t = c->t;
	if (!t->username)
		return 0;
	bool has_user, has_pass;
	bool user_ok = md_equals(&c->md, "username", t->username, &has_user);
	bool pass_ok = md_equals(&c->md, "password", t->password, &has_pass);
	if (!has_user || !has_pass) {
		gt_call_finish(c, GRPC_STATUS_UNAUTHENTICATED,
			       "missing username or password in the metadata");
		return -EACCES;
	}
	if (!user_ok || !pass_ok) {
		gt_call_finish(c, GRPC_STATUS_UNAUTHENTICATED,
			       "authentication failed: invalid username or "
			       "password");
		return -EACCES;
	}
	return 0;
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
			t->next_due = gt_target_service(t, now);
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
		if (ev.type == GRPC_OP_COMPLETE) {
			fm_handoff_acquire(ev.tag);
			gt_loop_dispatch(ev.tag, ev.success != 0);
		}
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
		gt_server_request(s, (enum gt_kind)k);
	return 0;
}

static void server_shutdown(struct gt_server *s, bool cancel)
{
	if (!s->shutting_down) {
		s->shutting_down = true;
		fm_handoff_release(&s->t_shutdown);
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
		gt_leaf_free(t->leaves[i]);
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
		t->default_ns = NS_PER_S;
	if (t->default_ns < t->min_ns)
		t->default_ns = t->min_ns;
	t->min_ping_ms = opt->min_ping_interval_ms;
	t->tick_ns = (int64_t)(opt->tick_interval_ns < (uint64_t)INT64_MAX / 4
				   ? opt->tick_interval_ns
				   : (uint64_t)INT64_MAX / 4);
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
				gt_stream_initial(c);
	pthread_mutex_unlock(&t->lock);
}

void gnmi_target_set_end_after_sync(struct gnmi_target *t, bool on)
{
	pthread_mutex_lock(&t->lock);
	t->end_after_sync = on;
	pthread_mutex_unlock(&t->lock);
}

void gnmi_target_set_stream_lifetime(struct gnmi_target *t, uint64_t ns)
{
	pthread_mutex_lock(&t->lock);
	t->lifetime_ns =
	    ns > (uint64_t)INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)ns;
	pthread_mutex_unlock(&t->lock);
}

size_t gnmi_target_end_streams(struct gnmi_target *t)
{
	size_t n = 0;
	pthread_mutex_lock(&t->lock);
	for (struct gt_call *c = t->calls; c; c = c->next) {
		if (!call_streaming(c))
			continue;
		gt_call_finish(c, GRPC_STATUS_UNAVAILABLE, "%s",
			       "the target ended the stream (fault hook)");
		n++;
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

void gnmi_target_set_garbage(struct gnmi_target *t, bool on, uint64_t seed)
{
	pthread_mutex_lock(&t->lock);
	t->garbage = on;
	/* xorshift64 must not start at 0. */
	t->garbage_rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	pthread_mutex_unlock(&t->lock);
}

/*
 * Four kinds of broken protobuf, chosen by the generator: each is
 * refused by a SubscribeResponse decoder (protobuf-c's unpack returns
 * NULL, Go's and C++'s parsers fail alike), whatever the random bytes.
 *   0  field 1 (update, a message) sent as a varint: wrong wire type;
 *   1  field 1 length-delimited, its length running past the end;
 *   2  field 1's length varint never terminated (truncated varint);
 *   3  a tag with wire type 7, which does not exist.
 */
grpc_byte_buffer *gt_garbage_message(struct gnmi_target *t)
{
	uint64_t x = t->garbage_rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->garbage_rng = x;
	uint8_t b[24];
	size_t n = 0;
	unsigned extra = (unsigned)(x >> 8) % 8; /* random filler bytes */
	switch (x % 4) {
	case 0:
		b[n++] = 0x08;
		b[n++] = (uint8_t)(1 + (x >> 16) % 0x7f);
		break;
	case 1:
		b[n++] = 0x0a;
		b[n++] = (uint8_t)(0x40 + (x >> 16) % 0x3f); /* > extra */
		break;
	case 2:
		b[n++] = 0x0a;
		for (unsigned k = 0; k <= extra; k++)
			b[n++] = (uint8_t)(0x80 | (x >> (16 + k)));
		extra = 0; /* the varint must run to the end */
		break;
	default:
		b[n++] = (uint8_t)(((1 + (x >> 16) % 15) << 3) | 7);
		break;
	}
	for (unsigned k = 0; k < extra; k++)
		b[n++] = (uint8_t)(x >> (24 + 4 * k));
	grpc_slice sl = grpc_slice_from_copied_buffer((const char *)b, n);
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
	grpc_slice_unref(sl);
	return bb;
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
		gt_call_enqueue(c, bb, front);
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
