/*
 * grpc_down: waits until gRPC core has really shut down, for the gRPC
 * tests' teardowns (Check runs each test in a child that exits right
 * after its teardown).
 *
 * A test's last grpc_shutdown() is often not gRPC's last: channels,
 * subchannels and server transports hold gRPC initialised until their
 * last reference goes, and a channel destroyed while its handshake is
 * still running (a TLS connection the target refuses, retried) goes
 * after the test's grpc_shutdown(). gRPC then shuts down on a detached
 * thread of its own, joining its executor threads. A child that exits
 * meanwhile races that shutdown: OpenSSL's atexit cleanup removes the
 * thread-exit handler that frees each thread's error state (904 bytes,
 * made by the handshake's ERR_clear_error() on an executor thread), the
 * executor thread then exits without freeing it, and LeakSanitizer
 * reports it (#16 item 9). Waiting here closes the race.
 *
 * grpc_is_initialized() takes the lock gRPC's shutdown holds from its
 * last reference to the end of its cleanup, so once it says false the
 * shutdown is over. Header of static inline functions, one per test
 * program.
 */
#ifndef FABMON_TESTS_GRPC_DOWN_H
#define FABMON_TESTS_GRPC_DOWN_H

#include <grpc/grpc.h>

#include <stdbool.h>
#include <time.h>

/*
 * Waits up to max_ms for gRPC to be shut down; false if it is still
 * initialised then (a channel, server or call of the test was never
 * released, or the machine is very slow: a hang guard, not a timing
 * check).
 */
static inline bool test_grpc_wait_down(int max_ms)
{
	for (int waited = 0; grpc_is_initialized(); waited += 10) {
		if (waited >= max_ms)
			return false;
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return true;
}

#endif
