/*
 * procstat: the process's own figures from /proc (see procstat.h).
 *
 * self/stat is parsed from after the last ')' (the command name in
 * parentheses may hold spaces and parentheses); the fields used are
 * utime, stime, starttime (clock ticks), vsize (bytes) and rss (pages),
 * proc(5). Clock ticks and the page size come from sysconf once per
 * read.
 */
#include "config.h"

#include "procstat.h"

#include "rfile.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* self/stat is a few hundred bytes; /proc/stat grows with CPUs and
 * interrupts (its intr line), tens of KiB on big machines. */
#define PROCSTAT_SELF_MAX  4096
#define PROCSTAT_STAT_MAX  (1024 * 1024)
#define PROCSTAT_LIMIT_MAX 16384

static char *load(const char *root, const char *rel, size_t max, int *rc)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >=
	    sizeof path) {
		*rc = -ENAMETOOLONG;
		return NULL;
	}
	size_t len;
	char *s = rfile_load(path, max, &len, NULL, 0, rc);
	if (s && strlen(s) != len) { /* a NUL inside: not proc's text */
		free(s);
		*rc = -EINVAL;
		return NULL;
	}
	return s;
}

/* The decimal at *p (after spaces), advancing past it; false if none. */
static bool next_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	*v = x;
	*p = end;
	return true;
}

/* Skips one space-separated field (of any content). */
static bool skip_field(const char **p)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return false;
	while (*s && *s != ' ' && *s != '\n')
		s++;
	*p = s;
	return true;
}

/* The fields of self/stat procstat needs, in their units. */
struct self_stat {
	uint64_t utime, stime, starttime; /* ticks */
	uint64_t vsize;			  /* bytes */
	uint64_t rss;			  /* pages */
};

static int parse_self_stat(const char *text, struct self_stat *ss)
{
	const char *p = strrchr(text, ')');
	if (!p)
		return -EINVAL;
	p++;
	/* Fields 3 (state) .. 24 (rss), proc(5) numbering. */
	uint64_t f[25] = { 0 };
	for (int i = 3; i <= 24; i++) {
		if (i == 3) {
			if (!skip_field(&p))
				return -EINVAL;
		} else if (!next_u64(&p, &f[i])) {
			/* Some fields may be negative (priority, nice,
			 * cutime...): only those we use must parse. */
			if (i == 14 || i == 15 || i >= 22 || !skip_field(&p))
				return -EINVAL;
		}
	}
	ss->utime = f[14];
	ss->stime = f[15];
	ss->starttime = f[22];
	ss->vsize = f[23];
	ss->rss = f[24];
	return 0;
}

/* The start of the line after the one at p, or NULL at the end. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p && p[1] ? p + 1 : NULL;
}

/* btime of /proc/stat: the boot time, seconds since the epoch. */
static int parse_btime(const char *text, uint64_t *btime)
{
	for (const char *p = text; p; p = next_line(p)) {
		if (strncmp(p, "btime ", 6) == 0) {
			p += 5;
			return next_u64(&p, btime) ? 0 : -EINVAL;
		}
	}
	return -EINVAL;
}

/* The soft limit on the line of limit name in self/limits: its value,
 * PROCSTAT_UNLIMITED, or -1. */
static double parse_limit(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = text; p; p = next_line(p)) {
		if (strncmp(p, name, n) != 0 || p[n] != ' ')
			continue;
		p += n;
		while (*p == ' ')
			p++;
		if (strncmp(p, "unlimited", 9) == 0)
			return PROCSTAT_UNLIMITED;
		uint64_t v;
		return next_u64(&p, &v) ? (double)v : -1;
	}
	return -1;
}

/* Entries of root/self/fd (the descriptor reading it included, as the
 * client libraries count), or -1. */
static double count_fds(const char *root)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/self/fd", root) >=
	    sizeof path)
		return -1;
	DIR *d = opendir(path);
	if (!d)
		return -1;
	double n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int procstat_read(const char *root, struct procstat *out)
{
	if (!root)
		root = "/proc";
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	if (ticks <= 0 || page <= 0)
		return -EINVAL;
	int rc = 0;
	char *self = load(root, "self/stat", PROCSTAT_SELF_MAX, &rc);
	if (!self)
		return rc;
	struct self_stat ss = { 0 };
	rc = parse_self_stat(self, &ss);
	free(self);
	if (rc < 0)
		return rc;
	char *stat = load(root, "stat", PROCSTAT_STAT_MAX, &rc);
	if (!stat)
		return rc;
	uint64_t btime = 0;
	rc = parse_btime(stat, &btime);
	free(stat);
	if (rc < 0)
		return rc;

	out->cpu_seconds = (double)(ss.utime + ss.stime) / (double)ticks;
	out->resident_bytes = (double)ss.rss * (double)page;
	out->virtual_bytes = (double)ss.vsize;
	out->start_time_s =
	    (double)btime + (double)ss.starttime / (double)ticks;
	out->open_fds = count_fds(root);
	out->max_fds = out->virtual_max_bytes = -1;
	char *limits = load(root, "self/limits", PROCSTAT_LIMIT_MAX, &rc);
	if (limits) {
		out->max_fds = parse_limit(limits, "Max open files");
		out->virtual_max_bytes =
		    parse_limit(limits, "Max address space");
		free(limits);
	}
	return 0;
}
