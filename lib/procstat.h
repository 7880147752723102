/*
 * procstat: the figures the Prometheus client libraries export as
 * process_* about the process itself, read from Linux's /proc: CPU
 * time, resident and virtual memory, open and allowed file
 * descriptors, the address-space limit and the start time.
 *
 * The kernel counts CPU and start time in clock ticks (the start since
 * boot) and resident memory in pages; procstat_read() converts them
 * once, here, to seconds, bytes and seconds since the epoch (boot time
 * from /proc/stat's btime), so callers never see a tick or a page.
 *
 * The proc root is injected (tests hand a directory of their own);
 * files are read with rfile (never blocking on anything but a regular
 * file). Pure function, no state: any thread.
 */
#ifndef FABMON_PROCSTAT_H
#define FABMON_PROCSTAT_H

/* What the Go client reports as the limit when there is none (2^64-1
 * as a double). */
#define PROCSTAT_UNLIMITED 18446744073709551615.0

struct procstat {
	double cpu_seconds;	  /* user + system time */
	double resident_bytes;	  /* resident set size */
	double virtual_bytes;	  /* virtual memory size */
	double start_time_s;	  /* start, seconds since the epoch */
	double open_fds;	  /* entries of self/fd; < 0: unknown */
	double max_fds;		  /* soft RLIMIT_NOFILE; < 0: unknown */
	double virtual_max_bytes; /* soft RLIMIT_AS; < 0: unknown */
};

/*
 * Reads the calling process's figures under root (NULL: "/proc"):
 * root/self/stat, root/stat (btime), root/self/fd and
 * root/self/limits. 0, or a negative errno when self/stat or btime
 * cannot be read or parsed (-EINVAL for content that does not parse);
 * the fd and limit figures are optional (< 0 when unreadable).
 */
int procstat_read(const char *root, struct procstat *out);

#endif
