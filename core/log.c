/*
 * log: see log.h. The level, the debug set and the output fd are read
 * with relaxed atomics on every call and changed rarely (start-up,
 * reload), so no lock is needed on the hot path.
 */
#include "config.h"

#include "log.h"

#include "clock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const log_subsystems[] = {
	"core", "config", "store",    "http", "gnmi", "snmp",
	"nic",	"rules",  "topology", "sim",  NULL,
};

#define LOG_LINE_MAX 4096

static _Atomic int log_level = LOG_LVL_INFO;
static _Atomic uint32_t log_debug_mask;
static _Atomic int log_fd = -1;
static _Atomic bool log_journal;

static int subsystem_index(const char *subsys)
{
	for (int i = 0; log_subsystems[i]; i++)
		if (strcmp(log_subsystems[i], subsys) == 0)
			return i;
	return -1;
}

void log_init(void)
{
	/* JOURNAL_STREAM is "device:inode" of the stream journald gave us;
	 * only trust it if it still is our stderr. */
	const char *js = getenv("JOURNAL_STREAM");
	bool journal = false;
	struct stat st;
	unsigned long long dev, ino;
	if (js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 &&
	    (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino)
		journal = true;
	atomic_store(&log_journal, journal);
}

void log_set_level(enum log_level level)
{
	atomic_store(&log_level, (int)level);
}

enum log_level log_get_level(void)
{
	return (enum log_level)atomic_load(&log_level);
}

int log_level_parse(const char *name)
{
	static const struct {
		const char *name;
		enum log_level level;
	} levels[] = {
		{ "error", LOG_LVL_ERR },    { "warn", LOG_LVL_WARN },
		{ "warning", LOG_LVL_WARN }, { "notice", LOG_LVL_NOTICE },
		{ "info", LOG_LVL_INFO },    { "debug", LOG_LVL_DEBUG },
	};
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		if (strcmp(levels[i].name, name) == 0)
			return (int)levels[i].level;
	return -1;
}

int log_enable_debug(const char *token)
{
	if (strcmp(token, "all") == 0) {
		atomic_store(&log_debug_mask, UINT32_MAX);
		return 0;
	}
	int i = subsystem_index(token);
	if (i < 0)
		return -EINVAL;
	atomic_fetch_or(&log_debug_mask, UINT32_C(1) << i);
	return 0;
}

void log_disable_debug(void)
{
	atomic_store(&log_debug_mask, 0);
}

bool log_debug_enabled(const char *subsys)
{
	uint32_t mask =
	    atomic_load_explicit(&log_debug_mask, memory_order_relaxed);
	if (!mask)
		return false;
	if (mask == UINT32_MAX)
		return true;
	int i = subsystem_index(subsys);
	return i >= 0 && (mask & (UINT32_C(1) << i));
}

void log_set_fd(int fd)
{
	atomic_store(&log_fd, fd);
}

static const char *level_name(enum log_level level)
{
	switch (level) {
	case LOG_LVL_ERR:
		return "error";
	case LOG_LVL_WARN:
		return "warn";
	case LOG_LVL_NOTICE:
		return "notice";
	case LOG_LVL_INFO:
		return "info";
	case LOG_LVL_DEBUG:
		return "debug";
	}
	return "?";
}

static void log_vmsg(enum log_level level, const char *subsys, const char *fmt,
		     va_list ap) __attribute__((format(printf, 3, 0)));

static void log_vmsg(enum log_level level, const char *subsys, const char *fmt,
		     va_list ap)
{
	if (level == LOG_LVL_DEBUG ? !log_debug_enabled(subsys)
				   : (int)level > atomic_load(&log_level))
		return;

	char line[LOG_LINE_MAX];
	size_t len = 0;
	int n;
	if (atomic_load(&log_journal)) {
		n = snprintf(line, sizeof line, "<%d>%s: ", (int)level, subsys);
	} else {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		n = snprintf(line, sizeof line,
			     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %s: ",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			     tm.tm_hour, tm.tm_min, tm.tm_sec,
			     ts.tv_nsec / 1000000, level_name(level), subsys);
	}
	if (n > 0)
		len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	n = vsnprintf(line + len, sizeof line - len, fmt, ap);
	if (n > 0)
		len += (size_t)n < sizeof line - len ? (size_t)n
						     : sizeof line - len - 1;
	/* Keep a line a line: control characters from peers are masked. */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			line[i] = '?';
	if (len >= sizeof line - 1)
		len = sizeof line - 2;
	line[len++] = '\n';

	int fd = atomic_load(&log_fd);
	if (fd < 0)
		fd = STDERR_FILENO;
	(void)!write(fd, line, len);
}

void log_msg(enum log_level level, const char *subsys, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, subsys, fmt, ap);
	va_end(ap);
}

#define COMPLAIN_FIRST_GAP_NS (INT64_C(10) * 1000000000)
#define COMPLAIN_MAX_GAP_NS   (INT64_C(3600) * 1000000000)

void log_complain(struct log_complaint *c, enum log_level level,
		  const char *subsys, const char *fmt, ...)
{
	int64_t now = mono_ns();
	c->failures++;
	if (c->failures > 1 && now < c->next_ns) {
		c->suppressed++;
		return;
	}
	char msg[LOG_LINE_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->suppressed)
		log_msg(level, subsys, "%s (repeated %llu times)", msg,
			(unsigned long long)c->suppressed + 1);
	else
		log_msg(level, subsys, "%s", msg);
	c->suppressed = 0;
	c->gap_ns = c->gap_ns ? c->gap_ns * 2 : COMPLAIN_FIRST_GAP_NS;
	if (c->gap_ns > COMPLAIN_MAX_GAP_NS)
		c->gap_ns = COMPLAIN_MAX_GAP_NS;
	c->next_ns = now + c->gap_ns;
}

void log_complain_clear(struct log_complaint *c, const char *subsys,
			const char *fmt, ...)
{
	if (!c->failures)
		return;
	char msg[LOG_LINE_MAX / 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_msg(LOG_LVL_INFO, subsys, "%s (after %llu failures)", msg,
		(unsigned long long)c->failures);
	*c = (struct log_complaint){ 0 };
}
