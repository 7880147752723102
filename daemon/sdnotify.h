/*
 * sdnotify: the systemd service notification protocol (READY=1,
 * STOPPING=1, RELOADING=1, WATCHDOG=1, STATUS=...).
 *
 * Messages go to $NOTIFY_SOCKET through libsystemd's sd_notify() when
 * fabmond is built with it; without systemd (no NOTIFY_SOCKET) every
 * call is a cheap no-op. The watchdog interval comes from WATCHDOG_USEC
 * (and WATCHDOG_PID, when set, must be ours).
 */
#ifndef FABMON_SDNOTIFY_H
#define FABMON_SDNOTIFY_H

#include <stdint.h>

/* Sends state (e.g. "READY=1"); 1 if sent, 0 if not under systemd,
 * negative errno on failure. */
int sdnotify_send(const char *state);
/* Sends "STATUS=<formatted>". */
int sdnotify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The watchdog interval in µs that systemd expects pings within, or 0
 * if the watchdog is not enabled for this process. */
uint64_t sdnotify_watchdog_usec(void);

#endif
