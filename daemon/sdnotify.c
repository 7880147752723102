/*
 * sdnotify: see sdnotify.h. Called from the main thread only.
 */
#include "config.h"

#include "sdnotify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

int sdnotify_send(const char *state)
{
#ifdef HAVE_SYSTEMD
	return sd_notify(0, state);
#else
	(void)state;
	return 0;
#endif
}

int sdnotify_status(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "STATUS=");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	va_end(ap);
	return sdnotify_send(buf);
}

uint64_t sdnotify_watchdog_usec(void)
{
#ifdef HAVE_SYSTEMD
	uint64_t usec = 0;
	if (sd_watchdog_enabled(0, &usec) > 0)
		return usec;
#endif
	return 0;
}
