/*
 * log: levelled, subsystem-tagged logging to stderr.
 *
 * Every line is formatted into a private buffer and written with one
 * write(2), so lines from several threads never interleave. When stderr
 * is connected to the journal (JOURNAL_STREAM names our stderr), lines
 * carry "<N>" priority prefixes and no timestamp, since journald adds
 * its own.
 *
 * Debug output is per subsystem: log_enable_debug("gnmi") turns on debug
 * lines of that subsystem only, "all" turns on every one. The set of
 * subsystem tokens is fixed (log_subsystems) so that a typo on the
 * command line is an error, not silence.
 *
 * log_complain() rate-limits the failures of one thing (a target, a
 * file): the first failure is logged, repeats are logged with growing
 * gaps and a count, and log_complain_clear() logs once when it recovers.
 * A struct log_complaint belongs to one thread at a time.
 */
#ifndef FABMON_LOG_H
#define FABMON_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level {
	LOG_LVL_ERR = 3,
	LOG_LVL_WARN = 4,
	LOG_LVL_NOTICE = 5,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

/* Subsystem tokens accepted by -D and by log: debug: in the config. */
extern const char *const log_subsystems[];

/* Reads JOURNAL_STREAM; safe to call again (tests do). */
void log_init(void);
/* Lines below this level are dropped (debug lines also need their token). */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parses "error", "warn", "notice", "info", "debug"; -1 if unknown. */
int log_level_parse(const char *name);
/* 0, or -EINVAL if token is not a known subsystem nor "all". */
int log_enable_debug(const char *token);
void log_disable_debug(void);
bool log_debug_enabled(const char *subsys);
/* Redirect output (tests); -1 restores stderr. */
void log_set_fd(int fd);

void log_msg(enum log_level level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define log_err(sub, ...)    log_msg(LOG_LVL_ERR, sub, __VA_ARGS__)
#define log_warn(sub, ...)   log_msg(LOG_LVL_WARN, sub, __VA_ARGS__)
#define log_notice(sub, ...) log_msg(LOG_LVL_NOTICE, sub, __VA_ARGS__)
#define log_info(sub, ...)   log_msg(LOG_LVL_INFO, sub, __VA_ARGS__)
#define log_debug(sub, ...)                                       \
	do {                                                      \
		if (log_debug_enabled(sub))                       \
			log_msg(LOG_LVL_DEBUG, sub, __VA_ARGS__); \
	} while (0)

struct log_complaint {
	int64_t next_ns;     /* monotonic time before which repeats are quiet */
	int64_t gap_ns;	     /* current quiet gap, doubles up to one hour */
	uint64_t suppressed; /* repeats not logged since the last line */
	uint64_t failures;   /* failures since the last success */
};

void log_complain(struct log_complaint *c, enum log_level level,
		  const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Logs fmt (at info) only if c recorded failures; then resets c. */
void log_complain_clear(struct log_complaint *c, const char *subsys,
			const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
