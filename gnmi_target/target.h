/*
 * gnmi_target: a gNMI server (target) on the gRPC core C API, for the
 * fabric simulator (fabsim) and the tests to play switches. fabmond
 * does not link it.
 *
 * A target serves Capabilities, Get and Subscribe (STREAM with SAMPLE,
 * ON_CHANGE and TARGET_DEFINED, ONCE, POLL) from a flat data tree of
 * leaves addressed by gNMI paths (the syntax of gnmi/path.h, without
 * wildcards). Every other method gets UNIMPLEMENTED. The caller sets
 * leaf values (uint, int, double, bool, string, or a JSON text sent as
 * is, as SONiC sends whole COUNTERS_DB tables) and then publishes them
 * with gnmi_target_tick(): a tick is the moment the values are
 * sampled. Get, ONCE, POLL and the initial dump of a subscription see
 * the values of the last tick, stamped with that tick's timestamp;
 * SAMPLE subscriptions send the last tick's values at their interval;
 * ON_CHANGE subscriptions send the leaves a tick changed (and deletes
 * for the leaves a tick removed) when the tick is published; every
 * STREAM subscription gets deletes. TARGET_DEFINED samples numeric and
 * JSON leaves (counters) at the requested sample_interval (or the
 * default one) and streams string and bool leaves on change.
 * A Get path without a published leaf ends with NOT_FOUND; a
 * subscription to one sends no update (only the sync_response).
 * Notifications echo the request prefix's target and origin; when the
 * prefix has no wildcard its elements are echoed too and update paths
 * are relative to it, else update paths are absolute.
 *
 * Threads. Targets are served by a loop: one gRPC completion queue and
 * one thread that runs it. One loop can serve many targets (a thousand
 * is fine on one thread); gnmi_target_new() with a NULL loop makes a
 * private loop for that target. Sample intervals and heartbeats are
 * timed by the loop thread; ON_CHANGE updates, injected payloads and
 * the catch-up after silence are queued by the thread that calls
 * gnmi_target_tick(), gnmi_target_inject() or gnmi_target_set_silent().
 * Every function here except the _new/_free pairs may be called from
 * any thread at any time; each target has one mutex, so callers of one
 * target serialise on it and different targets do not contend.
 * gnmi_target_free() must not race with other calls on the same
 * target, and gnmi_target_loop_free() with anything on that loop.
 *
 * gRPC. gnmi_target_loop_new() calls grpc_init() and
 * gnmi_target_loop_free() grpc_shutdown(); a process that forks (Check
 * in fork mode) must create loops only in the child.
 *
 * Ownership. The options are copied by gnmi_target_new(). Leaves are
 * owned by their target and live until gnmi_target_free(), also after
 * a delete (setting a deleted leaf again revives it), so a leaf handle
 * stays valid for the target's lifetime. Strings passed to setters are
 * copied.
 */
#ifndef FABMON_GNMI_TARGET_H
#define FABMON_GNMI_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gnmi_target_loop;
struct gnmi_target;
struct gnmi_target_leaf;

/* Encodings, as bits of gnmi.Encoding values (JSON=0, PROTO=2,
 * JSON_IETF=4). */
#define GNMI_TARGET_ENC_JSON	  (1u << 0)
#define GNMI_TARGET_ENC_PROTO	  (1u << 2)
#define GNMI_TARGET_ENC_JSON_IETF (1u << 4)
#define GNMI_TARGET_ENC_ALL                             \
	(GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_PROTO | \
	 GNMI_TARGET_ENC_JSON_IETF)

/* gNMI service version reported by Capabilities. */
#define GNMI_TARGET_VERSION "0.10.0"

/* A gnmi.ModelData entry for Capabilities. */
struct gnmi_target_model {
	const char *name;
	const char *organization;
	const char *version;
};

struct gnmi_target_options {
	/*
	 * "host:port" ("127.0.0.1:0" binds an ephemeral port, see
	 * gnmi_target_port()) or "unix:/path". Required.
	 */
	const char *address;
	/* PEM text. Both set: TLS; both NULL: plaintext. */
	const char *tls_cert_pem;
	const char *tls_key_pem;
	/* PEM text of the CA that signs client certificates: set, the
	 * target requires and verifies one (mutual TLS). Needs TLS. */
	const char *tls_client_ca_pem;
	/*
	 * When username is set, every gNMI RPC must carry the metadata
	 * "username" and "password" with these values, else it ends
	 * with UNAUTHENTICATED.
	 */
	const char *username;
	const char *password;
	/* GNMI_TARGET_ENC_* bits; 0 means all three. Requests for another
	 * encoding end with UNIMPLEMENTED. */
	unsigned encodings;
	/*
	 * A non-zero sample_interval (or heartbeat_interval) below this
	 * ends the Subscribe with INVALID_ARGUMENT "invalid interval 100ms.
	 * It cannot be less than 1s", as SONiC does. 0: no minimum.
	 */
	uint64_t min_sample_interval_ns;
	/* The interval used for sample_interval = 0 (also under
	 * TARGET_DEFINED); 0 means 1 s. Raised to the minimum if below. */
	uint64_t default_sample_interval_ns;
	/* Models for Capabilities (copied). */
	const struct gnmi_target_model *models;
	size_t n_models;
	/*
	 * Keepalive policy: the shortest gap between client pings on a
	 * connection without data that the target tolerates, in ms; a
	 * client pinging faster gets GOAWAY "too_many_pings" after two
	 * strikes. 0 is permissive (pings every second, without calls,
	 * no strikes), which is what a simulator wants by default.
	 */
	unsigned min_ping_interval_ms;
	/*
	 * 0: SAMPLE subscriptions (and TARGET_DEFINED counters) are timed
	 * by the loop and send the last tick's values with its timestamp,
	 * so a tick that comes late or not at all shows as a repeated
	 * timestamp. Non-zero: the caller promises a tick about every
	 * tick_interval_ns (each early or late by less than half of it,
	 * some missing), and samples follow the ticks as a device's
	 * samples follow its counter collections: a subscription sends at
	 * the first tick whose timestamp reaches its due time less half
	 * the tick interval, and is then due one sample interval later on
	 * the grid of its first due time (a missed tick skips the due
	 * times it spans). A late tick is a late sample, a missing tick a
	 * missing one; the timestamp is always the tick's. Heartbeats stay
	 * timed by the loop.
	 */
	uint64_t tick_interval_ns;
};

/* Fills o with the defaults (all zero: plaintext, no auth, all
 * encodings, no minimum interval). */
void gnmi_target_options_init(struct gnmi_target_options *o);

/*
 * A loop: a completion queue and its thread, shared by the targets
 * created on it. NULL if the thread cannot be started. The loop must
 * outlive its targets: gnmi_target_loop_free() expects every target on
 * it freed, then stops the thread and calls grpc_shutdown().
 * gnmi_target_loop_free(NULL) is a no-op.
 */
struct gnmi_target_loop *gnmi_target_loop_new(void);
void gnmi_target_loop_free(struct gnmi_target_loop *loop);

/*
 * Creates a target on loop (NULL: a private loop, freed with the
 * target), binds opt->address and starts serving. NULL on failure,
 * with a message in err (bad options, address in use, bad PEM).
 */
struct gnmi_target *gnmi_target_new(struct gnmi_target_loop *loop,
				    const struct gnmi_target_options *opt,
				    char *err, size_t errlen);
/*
 * Stops serving (clients see UNAVAILABLE), waits until every RPC of
 * the target is over, and frees it with its leaves. NULL is a no-op.
 */
void gnmi_target_free(struct gnmi_target *t);

/* The bound TCP port (the same across stop/start); 0 for unix:. */
int gnmi_target_port(const struct gnmi_target *t);

/*
 * The leaf at path ("/interfaces/interface[name=Ethernet0]/state/
 * counters/in-octets", or relative as SONiC's "COUNTERS/Ethernet0"),
 * created if new (with no value: clients see it once it is set and
 * ticked). NULL if path does not parse or has wildcards. The origin of
 * path, if any, is ignored: the tree has none; a request's origin and
 * target are echoed in the notification prefix. The handle is valid
 * until gnmi_target_free().
 */
struct gnmi_target_leaf *gnmi_target_leaf(struct gnmi_target *t,
					  const char *path);

/*
 * Stage a leaf's next value, or its deletion; clients see it at the
 * next gnmi_target_tick(). A value equal to the published one is no
 * change (ON_CHANGE sends nothing for it). set_json takes a JSON text,
 * sent as is in json_val / json_ietf_val (in PROTO too), unchecked so
 * that tests can send malformed JSON.
 */
void gnmi_target_leaf_set_uint(struct gnmi_target_leaf *l, uint64_t v);
void gnmi_target_leaf_set_int(struct gnmi_target_leaf *l, int64_t v);
void gnmi_target_leaf_set_double(struct gnmi_target_leaf *l, double v);
void gnmi_target_leaf_set_bool(struct gnmi_target_leaf *l, bool v);
void gnmi_target_leaf_set_string(struct gnmi_target_leaf *l, const char *v);
void gnmi_target_leaf_set_json(struct gnmi_target_leaf *l, const char *json);
/* The same with the text's length given (json need not end with a NUL:
 * the len bytes at json are taken). */
void gnmi_target_leaf_set_json_len(struct gnmi_target_leaf *l, const char *json,
				   size_t len);
void gnmi_target_leaf_delete(struct gnmi_target_leaf *l);

/* The same by path (gnmi_target_leaf() then the setter): 0, or
 * -EINVAL if path does not parse or has wildcards. Deleting a path
 * that was never set is not an error. */
int gnmi_target_set_uint(struct gnmi_target *t, const char *path, uint64_t v);
int gnmi_target_set_int(struct gnmi_target *t, const char *path, int64_t v);
int gnmi_target_set_double(struct gnmi_target *t, const char *path, double v);
int gnmi_target_set_bool(struct gnmi_target *t, const char *path, bool v);
int gnmi_target_set_string(struct gnmi_target *t, const char *path,
			   const char *v);
int gnmi_target_set_json(struct gnmi_target *t, const char *path,
			 const char *json);
int gnmi_target_delete(struct gnmi_target *t, const char *path);

/*
 * Publishes the staged values and deletions with timestamp_ns (ns since
 * the epoch; 0 = now) and queues the ON_CHANGE updates they cause. Ticks
 * should carry increasing timestamps; the target does not check.
 */
void gnmi_target_tick(struct gnmi_target *t, int64_t timestamp_ns);

/* Subscribe RPCs that have a subscription and are not finished (tests
 * wait for it to reach a count before acting). */
size_t gnmi_target_stream_count(struct gnmi_target *t);

/*
 * Fault hooks.
 *
 * gnmi_target_stop() closes the listener and cancels every RPC
 * (clients see UNAVAILABLE), and returns once they are all over.
 * gnmi_target_refuse() closes the listener only, and returns once the
 * port refuses connections (gRPC closes it asynchronously; it waits up
 * to a second): existing connections get GOAWAY, so new RPCs on them
 * fail, while the RPCs in progress go on. gnmi_target_start() listens
 * again on the same address and port after either (retrying for a
 * second while the old listener goes away). 0, -EALREADY (already in
 * that state), -EADDRINUSE if the bind fails, or -EINVAL if gRPC
 * refuses the TLS credentials.
 */
int gnmi_target_stop(struct gnmi_target *t);
int gnmi_target_refuse(struct gnmi_target *t);
int gnmi_target_start(struct gnmi_target *t);

/*
 * Silent: Subscribe RPCs stay open but send nothing (no samples,
 * heartbeats, changes, poll answers, nor the initial dump of new
 * subscriptions). Turning it off sends the pending initial dumps now
 * and the ON_CHANGE changes missed meanwhile at the next tick.
 */
void gnmi_target_set_silent(struct gnmi_target *t, bool silent);

/*
 * End after sync: each STREAM or POLL Subscribe that sends its initial
 * dump while this is on ends with UNAVAILABLE right after its
 * sync_response, as a target does that drops its streams once
 * synchronised (clients' reconnect backoff is tested this way).
 * Streams already past their sync_response go on.
 */
void gnmi_target_set_end_after_sync(struct gnmi_target *t, bool on);

/*
 * Stream lifetime (a flapping session): each STREAM Subscribe that
 * starts while ns is non-zero is ended by the target with UNAVAILABLE
 * about ns after its SubscriptionList arrived (timed by the loop, so
 * up to a few ms late), whatever it sent meanwhile; the listener and
 * the connection stay up, so the client's next Subscribe is accepted
 * (and ended in its turn). 0 turns it off for streams that start
 * afterwards. Streams already open are not touched: end them with
 * gnmi_target_end_streams().
 */
void gnmi_target_set_stream_lifetime(struct gnmi_target *t, uint64_t ns);

/*
 * Ends every active Subscribe RPC now with UNAVAILABLE (after the
 * messages already queued on it); the listener stays open. Returns the
 * number of RPCs ended.
 */
size_t gnmi_target_end_streams(struct gnmi_target *t);

/*
 * Garbage: while on, every notification a Subscribe RPC would send
 * (the initial dump's updates, samples, heartbeats, changes, poll
 * answers) is replaced, message for message, by a few bytes that are
 * not a valid gnmi.SubscribeResponse (a wrong wire type, a length past
 * the end, a truncated varint or a wire type that does not exist),
 * drawn from a generator started at seed: the same seed and the same
 * sends give the same bytes. sync_response and the final status stay
 * valid, and the RPC stays open. Get and Capabilities are unchanged.
 */
void gnmi_target_set_garbage(struct gnmi_target *t, bool on, uint64_t seed);

/*
 * Queues the len bytes at payload, unchecked, as the next message of
 * every active Subscribe RPC (silent or not), to test a client's
 * handling of malformed messages. Returns the number of RPCs it was
 * queued on.
 */
size_t gnmi_target_inject(struct gnmi_target *t, const void *payload,
			  size_t len);

/*
 * Queues the len bytes at payload, unchecked, after the messages already
 * queued on every active Subscribe RPC (benchmarks stream prepacked
 * notifications this way). Returns the number of RPCs it was queued on.
 * gnmi_target_queued() is the longest send queue among them, for
 * callers that pace themselves.
 */
size_t gnmi_target_send_raw(struct gnmi_target *t, const void *payload,
			    size_t len);
size_t gnmi_target_queued(struct gnmi_target *t);

#endif
