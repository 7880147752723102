/*
 * tsan: happens-before annotations for ThreadSanitizer builds
 * (--enable-tsan), empty in every other build. Header-only.
 *
 * gRPC core is not built with TSan, so the hand-over of a tag through a
 * completion queue (one thread passes the tag to grpc_call_start_batch
 * or grpc_server_shutdown_and_notify, another gets it back from
 * grpc_completion_queue_next) synchronises inside the library, where TSan
 * cannot see it; the second thread's reads of what the first wrote before
 * the call then look like races. fm_handoff_release(tag) before handing
 * a tag to gRPC and fm_handoff_acquire(tag) after getting it back tell
 * TSan about the edge the completion queue really provides.
 */
#ifndef FABMON_TSAN_H
#define FABMON_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define FM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FM_TSAN 1
#endif
#endif

#ifdef FM_TSAN
/* From the TSan runtime (sanitizer/tsan_interface.h). */
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define fm_handoff_release(p) __tsan_release((void *)(p))
#define fm_handoff_acquire(p) __tsan_acquire((void *)(p))
#else
#define fm_handoff_release(p) ((void)(p))
#define fm_handoff_acquire(p) ((void)(p))
#endif

#endif
