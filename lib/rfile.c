/*
 * rfile: non-blocking opens of regular files (see rfile.h).
 */
#include "config.h"

#include "rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *rfile_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "regular file";
	if (S_ISFIFO(mode))
		return "fifo";
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISCHR(mode))
		return "character device";
	if (S_ISBLK(mode))
		return "block device";
	if (S_ISSOCK(mode))
		return "socket";
	if (S_ISLNK(mode))
		return "symbolic link";
	return "unknown file type";
}

static void say(char *err, size_t errlen, const char *prefix, int e)
{
	char eb[128];
	if (err && errlen)
		snprintf(err, errlen, "%s%s", prefix,
			 strerror_r(e, eb, sizeof eb));
}

/* Opens and fstat()s: the descriptor and *st, or -errno. A FIFO passes
 * when fifo_ok. */
static int open_stat_fifo(const char *path, struct stat *st, bool fifo_ok,
			  char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		say(err, errlen, "cannot open: ", e);
		return -e;
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		say(err, errlen, "cannot stat: ", e);
		return -e;
	}
	if (!S_ISREG(st->st_mode) && !(fifo_ok && S_ISFIFO(st->st_mode))) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "not a regular file (%s)",
				 rfile_kind(st->st_mode));
		return -RFILE_ENOTREG;
	}
	return fd;
}

static int open_stat(const char *path, struct stat *st, char *err,
		     size_t errlen)
{
	return open_stat_fifo(path, st, false, err, errlen);
}

/* Waits up to until (CLOCK_MONOTONIC ns) for fd to be readable: 0, or
 * -ETIMEDOUT / -errno of poll(). A FIFO's read end opened without a
 * writer polls readable only once a writer has come (Linux), so this is
 * also the wait for the writer. */
static int wait_readable(int fd, int64_t until)
{
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		if (now >= until)
			return -ETIMEDOUT;
		int64_t ms = (until - now + 999999) / 1000000;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n = poll(&pfd, 1, ms > INT_MAX ? INT_MAX : (int)ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

int rfile_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	return open_stat(path, &st, err, errlen);
}

int rfile_check(const char *path, size_t max, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		int e = errno;
		say(err, errlen, "cannot stat: ", e);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		if (err && errlen)
			snprintf(err, errlen, "not a regular file (%s)",
				 rfile_kind(st.st_mode));
		return -RFILE_ENOTREG;
	}
	if ((unsigned long long)st.st_size > (unsigned long long)max) {
		if (err && errlen)
			snprintf(err, errlen, "file is larger than %zu bytes",
				 max);
		return -EFBIG;
	}
	return 0;
}

/* rfile_load, and with fifo_ms > 0 rfile_load_stream. */
static char *load(const char *path, size_t max, int fifo_ms, size_t *len,
		  char *err, size_t errlen, int *errnum)
{
	struct stat st;
	int e = 0;
	*len = 0;
	int fd = open_stat_fifo(path, &st, fifo_ms > 0, err, errlen);
	if (fd < 0) {
		if (errnum)
			*errnum = fd;
		return NULL;
	}
	/* One byte more than the limit tells "too large" from "full". */
	char *buf = malloc(max + 2);
	if (!buf) {
		e = ENOMEM;
		say(err, errlen, "cannot read: ", e);
		goto fail;
	}
	bool fifo = S_ISFIFO(st.st_mode);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int64_t until = (int64_t)t0.tv_sec * 1000000000 + t0.tv_nsec +
			(int64_t)fifo_ms * 1000000;
	for (;;) {
		if (fifo) {
			int w = wait_readable(fd, until);
			if (w < 0) {
				e = -w;
				if (e == ETIMEDOUT && err && errlen)
					snprintf(err, errlen,
						 "cannot read: no end of file "
						 "within %d s (fifo)",
						 fifo_ms / 1000);
				else
					say(err, errlen, "cannot read: ", e);
				goto fail;
			}
		}
		ssize_t r = read(fd, buf + *len, max + 1 - *len);
		if (r < 0 && (errno == EINTR || (fifo && errno == EAGAIN)))
			continue;
		if (r < 0) {
			e = errno;
			say(err, errlen, "cannot read: ", e);
			goto fail;
		}
		if (r == 0)
			break;
		*len += (size_t)r;
		if (*len > max) {
			e = EFBIG;
			if (err && errlen)
				snprintf(err, errlen,
					 "file is larger than %zu bytes", max);
			goto fail;
		}
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
fail:
	close(fd);
	if (buf) /* it may hold a secret */
		explicit_bzero(buf, *len);
	free(buf);
	*len = 0;
	if (errnum)
		*errnum = -e;
	return NULL;
}

char *rfile_load(const char *path, size_t max, size_t *len, char *err,
		 size_t errlen, int *errnum)
{
	return load(path, max, 0, len, err, errlen, errnum);
}

char *rfile_load_stream(const char *path, size_t max, int fifo_ms, size_t *len,
			char *err, size_t errlen, int *errnum)
{
	return load(path, max, fifo_ms > 0 ? fifo_ms : 1, len, err, errlen,
		    errnum);
}
