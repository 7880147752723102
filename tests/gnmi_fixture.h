/*
 * gnmi_fixture: a real gNMI target on loopback and the real gNMI
 * collector writing a real store, shared by check_gnmi_collector and
 * check_gnmi_reconnect. The target (the target library, gRPC core)
 * listens on 127.0.0.1 with a port the kernel picks; the collector runs
 * on a config the test writes, with the shipped profiles.
 *
 * A header of static inline functions over one static fixture (loop,
 * tgt, st, hl, col, cfg, tmpdir): each test program includes it once and
 * calls gnmi_fix_setup() / gnmi_fix_teardown() around every test (from
 * its Check checked fixture). Everything runs in the test's own process;
 * the collector's threads write st and hl, which the test reads through
 * their locked snapshots. Waits are bounded polls (a hang guard, not a
 * timing check): WAIT_FOR awaits a condition for up to WAIT_S seconds.
 */
#ifndef FABMON_TESTS_GNMI_FIXTURE_H
#define FABMON_TESTS_GNMI_FIXTURE_H

#include "cfg.h"
#include "collector.h"
#include "fabmond.h"
#include "health.h"
#include "store.h"
#include "target.h"

#include "grpc_down.h"

#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_S	 20
#define NS_PER_S INT64_C(1000000000)

static struct gnmi_target_loop *loop;
static struct gnmi_target *tgt;
static struct store *st;
static struct health *hl;
static void *col;
static struct cfg *cfg;
static char tmpdir[64];

static inline const char *srcdir(void)
{
	const char *s = getenv("top_srcdir");
	return s && *s ? s : ".";
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* Awaits cond for up to secs seconds, then asserts it (message: the
 * printf arguments after it). */
#define WAIT_FOR_S(secs, cond, ...)                      \
	do {                                             \
		int waited_ = 0;                         \
		while (!(cond) && waited_ < (secs)*50) { \
			sleep_ms(20);                    \
			waited_++;                       \
		}                                        \
		ck_assert_msg((cond), __VA_ARGS__);      \
	} while (0)

#define WAIT_FOR(cond, ...) WAIT_FOR_S(WAIT_S, cond, __VA_ARGS__)

/* A fresh store, health table, target loop and temporary folder
 * (tmpdir); no target and no collector yet. */
static inline void gnmi_fix_setup(void)
{
	st = store_new(NULL);
	hl = health_new();
	loop = gnmi_target_loop_new();
	ck_assert_ptr_nonnull(loop);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fabmon-gnmi-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* Stops the collector, frees the target, its loop, the config, health
 * and store, waits for gRPC to be down and removes tmpdir. */
static inline void gnmi_fix_teardown(void)
{
	if (col)
		gnmi_collector_ops.stop(col);
	col = NULL;
	gnmi_target_free(tgt);
	tgt = NULL;
	gnmi_target_loop_free(loop);
	loop = NULL;
	/* gRPC's own last references go after ours (grpc_down.h). */
	ck_assert_msg(test_grpc_wait_down(20000),
		      "gRPC still initialised: something was not released");
	cfg_free(cfg);
	cfg = NULL;
	health_free(hl);
	store_free(st);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Starts tgt on 127.0.0.1, a port the kernel picks, with the options
 * extra (NULL: the defaults; their address is replaced). */
static inline void start_target(const struct gnmi_target_options *extra)
{
	struct gnmi_target_options o;
	char err[256];
	if (extra)
		o = *extra;
	else
		gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	tgt = gnmi_target_new(loop, &o, err, sizeof err);
	ck_assert_msg(tgt != NULL, "target: %s", err);
}

/* Loads a config made of fmt (with the target's port in %d, first),
 * the source tree's profiles_dir before it. */
static inline struct cfg *load_cfg(const char *fmt, ...)
{
	char text[4096], full[4400], err[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	snprintf(full, sizeof full, "profiles_dir: %s/etc/profiles\n%s",
		 srcdir(), text);
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "test.yaml", full,
					strlen(full), err, sizeof err);
	ck_assert_msg(c != NULL, "config: %s\n%s", err, full);
	return c;
}

/* Starts the collector on c (the fixture owns c from now). */
static inline void start_collector(struct cfg *c)
{
	cfg = c;
	struct collector_env env = { .store = st, .health = hl };
	ck_assert_int_eq(gnmi_collector_ops.start(&env, cfg, &col), 0);
}

/* The health entry last found by get_info (its strings freed by the
 * next call). */
static struct health_target_info info;

/* Copies target's gnmi health entry into info; false if none. */
static inline bool get_info(const char *target)
{
	struct health_target_info *v = NULL;
	size_t n = health_snapshot(hl, &v);
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].target, target) == 0 &&
		    strcmp(v[i].protocol, "gnmi") == 0) {
			free(info.target);
			free(info.protocol);
			free(info.last_error);
			info = v[i];
			v[i].target = v[i].protocol = v[i].last_error = NULL;
			found = true;
		}
	}
	health_snapshot_free(v, n);
	return found;
}

/* Lines of file that contain text (0 if it cannot be read). */
static inline int lines_with(const char *file, const char *text)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	int n = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

#endif
