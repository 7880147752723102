/*
 * gnmi_client: the gNMI collector. Subscribes to every target that has
 * a gnmi: block, decodes what it streams and writes canonical samples
 * into the store through the target's profile (gnmi_profile.h).
 *
 * Threads: a small, configured number of completion-queue threads
 * (gnmi.threads, default 2) carry every target; a target is pinned to
 * one thread and all its calls, timers and state live there, so no
 * per-target lock exists. The main thread talks to them only through a
 * mailbox per thread (start target, stop target, stop), read at each
 * wake-up (at most every 100 ms, since the gRPC core C API has no timer
 * and no way to post an event into a queue).
 *
 * Per target: Capabilities (models and encodings logged at debug; the
 * encoding chosen or checked against them), then one Subscribe stream
 * (STREAM, ONCE re-run every interval, or POLL every poll_interval).
 * Failures reconnect with exponential backoff (1 s to 60 s, each wait
 * between half the backoff and all of it); a stream that ends within
 * max(10 s, its watchdog period) of its first message counts as a
 * failure that grows the backoff, and only a stream that lasted that
 * long (or an answered ONCE) starts it over, so a target that drops
 * every stream after its sync_response is not reconnected every second.
 * A target's repeated failures share one rate-limited log line. Answers
 * that retrying will not fix (UNAUTHENTICATED,
 * PERMISSION_DENIED, INVALID_ARGUMENT, UNIMPLEMENTED) are reported and
 * retried slowly (5 to 10 min). A global cap bounds connection attempts
 * in flight. A stream silent for max(3 x sample_interval, 2 x heartbeat)
 * is cancelled and resubscribed. The Capabilities answer is decoded
 * within bounds (gnmi_decode.h); stream messages are validated and read
 * in place (gnmi_wire.h). A bad one is counted and the stream goes on.
 */
#ifndef FABMON_GNMI_CLIENT_H
#define FABMON_GNMI_CLIENT_H

#include "collector.h"

/* The collector ops table fabmond lists. */
extern const struct collector_ops gnmi_collector_ops;

#endif
