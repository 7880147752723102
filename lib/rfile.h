/*
 * rfile: opening and reading a file named by the configuration (or found
 * in a sysfs-like tree) without ever blocking on what is not a regular
 * file. A FIFO opened for reading waits for a writer, a terminal may
 * become the controlling one, and /dev/zero never ends: every open here
 * is O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, is checked with
 * fstat() to be a regular file, and loads are capped in size.
 *
 * O_NONBLOCK cannot bound a read that hangs inside a driver (sysfs
 * attributes call into it); the NIC collector bounds those with its own
 * deadline (nic_collector.c). Pure functions, no state: any thread.
 * Messages name no path (callers add it, with the key that named it)
 * and never quote content.
 */
#ifndef FABMON_RFILE_H
#define FABMON_RFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Returned (negated) for a path that exists but is not a regular file. */
#define RFILE_ENOTREG EINVAL

/* "fifo", "directory", "character device", "block device", "socket",
 * "symbolic link", "regular file" or "unknown file type". */
const char *rfile_kind(mode_t mode);

/*
 * Opens path for reading, non-blocking. Returns the descriptor, or
 * -errno of open() (-EACCES, -ENOENT, ...), or -RFILE_ENOTREG for
 * anything but a regular file (the descriptor is closed). On failure
 * err gets "not a regular file (fifo)" or strerror's text; err may be
 * NULL.
 */
int rfile_open(const char *path, char *err, size_t errlen);

/*
 * Checks with stat() (nothing is opened) that path is a regular file of
 * at most max bytes: 0, or -errno of stat() ("cannot stat: ..."),
 * -RFILE_ENOTREG ("not a regular file (fifo)") or -EFBIG ("file is
 * larger than N bytes").
 */
int rfile_check(const char *path, size_t max, char *err, size_t errlen);

/*
 * Reads the whole regular file path, of at most max bytes. Returns a
 * malloc'd buffer with a NUL after the *len bytes (the caller frees
 * it), or NULL with err set ("cannot open: ...", "not a regular file
 * (fifo)", "file is larger than N bytes", "cannot read: ...") and, if errnum
 * is not NULL, *errnum = the -errno. A file that grows past max while
 * it is read is refused the same way.
 */
char *rfile_load(const char *path, size_t max, size_t *len, char *err,
		 size_t errlen, int *errnum);

/*
 * rfile_load for a file an operator may also hand over as a pipe (the
 * daemon's own config: `-c <(generate)`, a FIFO): a FIFO is read too,
 * waiting for its writer and its end of file for fifo_ms at most in all
 * ("cannot read: no end of file within N s (fifo)" after that), never
 * blocking past it. Anything else but a regular file is refused as by
 * rfile_load.
 */
char *rfile_load_stream(const char *path, size_t max, int fifo_ms, size_t *len,
			char *err, size_t errlen, int *errnum);

#endif
