/*
 * rules_fixture: the rule engine on constructed store contents, shared
 * by check_rules and check_report. A real struct store, link table and
 * engine run on an injected clock; a test sets per-second rates of
 * counters and advances the clock one sample interval at a time: each
 * step adds rate x 1 s to every series' raw counter, stores it with the
 * step's timestamp and runs one engine tick. No sleeping, no wall
 * clock.
 *
 * A header of static inline functions over one static fixture F: each
 * test program includes it once, and opens and closes F around every
 * test (fab_open, fab_close).
 */
#ifndef FABMON_TESTS_RULES_FIXTURE_H
#define FABMON_TESTS_RULES_FIXTURE_H

#include "cfg.h"
#include "counters.h"
#include "fabmond.h"
#include "links.h"
#include "report.h"
#include "rules.h"
#include "store.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define BASE_NS INT64_C(1700000000000000000)
#define SEC	INT64_C(1000000000)
#define MAXS	512

struct series {
	char dev[32], port[32];
	enum fm_counter c;
	uint32_t sub; /* priority, or queue index for queue counters */
	double rate;  /* canonical units per second; gauges: the value */
	double raw;
	double scale;
	bool stopped; /* no more samples (a silent target) */
};

struct fab {
	struct store *st;
	struct links *l;
	struct rules *r;
	struct report *rep; /* set by the test if it feeds one; freed */
	struct cfg *cfg;
	int64_t now;
	struct series s[MAXS];
	size_t n;
};

static struct fab F;

static inline int64_t tmono(void *ctx)
{
	(void)ctx;
	return F.now;
}

static inline int64_t treal(void *ctx)
{
	(void)ctx;
	return BASE_NS + F.now;
}

/* A fresh fixture on the config yaml (its static links loaded). */
static inline void fab_open(const char *yaml)
{
	char err[512];
	memset(&F, 0, sizeof F);
	struct store_opts so = { .mono_ns = tmono, .real_ns = treal };
	F.st = store_new(&so);
	F.l = links_new(tmono, NULL);
	F.cfg = cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", yaml,
				strlen(yaml), err, sizeof err);
	ck_assert_msg(F.cfg, "%s", err);
	links_set_static(F.l, &F.cfg->topology);
	struct rules_opts ro = { .real_ns = treal };
	F.r = rules_new(F.st, F.l, NULL, F.cfg, &ro);
}

static inline void fab_close(void)
{
	rules_free(F.r);
	report_free(F.rep);
	links_free(F.l);
	store_free(F.st);
	cfg_free(F.cfg);
}

/* Opens the fixture on 1 s samples and lossless priority 3, with the
 * config lines extra (NULL: none) after them. */
static inline void fab_up(const char *extra)
{
	char yaml[1024];
	snprintf(yaml, sizeof yaml,
		 "interval: 1s\nlossless_priorities: [3]\n%s",
		 extra ? extra : "");
	fab_open(yaml);
}

/* Check's checked fixture: fab_up(NULL) before each test, fab_close()
 * after it. */
static inline void fab_setup(void)
{
	fab_up(NULL);
}

static inline void fab_teardown(void)
{
	fab_close();
}

/* a:ap and b:bp are cabled (an LLDP report from source "test"). */
static inline void link2(const char *a, const char *ap, const char *b,
			 const char *bp)
{
	ck_assert(links_report_lldp(F.l, a, ap, b, bp, LINKS_LLDP_PORT_IFNAME,
				    NULL, "test", 0) == 0);
}

/* Sets (or creates) a series' rate per second (gauges: its value). */
static inline void set(const char *dev, const char *port, enum fm_counter c,
		       uint32_t sub, double rate)
{
	for (size_t i = 0; i < F.n; i++) {
		struct series *s = &F.s[i];
		if (!strcmp(s->dev, dev) && !strcmp(s->port, port) &&
		    s->c == c && s->sub == sub) {
			s->rate = rate;
			return;
		}
	}
	ck_assert_uint_lt(F.n, MAXS);
	struct series *s = &F.s[F.n++];
	snprintf(s->dev, sizeof s->dev, "%s", dev);
	snprintf(s->port, sizeof s->port, "%s", port);
	s->c = c;
	s->sub = sub;
	s->rate = rate;
	/* Pause time kept in µs, as SAI and mlx5 count it. */
	s->scale =
	    (c == FM_C_PFC_RX_PAUSE || c == FM_C_PFC_TX_PAUSE) ? 1e-6 : 1;
}

/* dev sends no more samples (a silent target). */
static inline void stop_device(const char *dev)
{
	for (size_t i = 0; i < F.n; i++)
		if (!strcmp(F.s[i].dev, dev))
			F.s[i].stopped = true;
}

static inline struct store_key key_of(const struct series *s)
{
	const struct fm_counter_info *info = fm_counter_info(s->c);
	uint32_t sub = s->sub;
	if (info->sub == FM_SUB_QUEUE) {
		char q[8];
		snprintf(q, sizeof q, "%u", s->sub);
		sub = store_intern(F.st, q);
	}
	struct store_key k = { .device = store_intern(F.st, s->dev),
			       .port = store_intern(F.st, s->port),
			       .sub = sub,
			       .counter = (uint16_t)s->c };
	return k;
}

/* Advances the clock by advance, samples the series of the devices in
 * devs (NULL-terminated; NULL: every device; "dev:port": that port
 * only, as a switch's ports sent as separate notifications) and ticks. Each
 * device is sampled once per second of its own: a group sampled half a second
 * after another is a target delivering on another phase. */
static inline void step_only(const char *const *devs, int64_t advance)
{
	F.now += advance;
	for (size_t i = 0; i < F.n; i++) {
		struct series *s = &F.s[i];
		if (s->stopped)
			continue;
		bool in = !devs;
		for (const char *const *d = devs; d && *d && !in; d++) {
			/* "dev" or "dev:port" */
			const char *c = strchr(*d, ':');
			size_t n = c ? (size_t)(c - *d) : strlen(*d);
			in = strlen(s->dev) == n && !strncmp(s->dev, *d, n) &&
			     (!c || !strcmp(s->port, c + 1));
		}
		if (!in)
			continue;
		struct store_key k = key_of(s);
		struct store_series_spec spec = { .owner = k.device,
						  .scale = s->scale,
						  .interval_ms = 1000 };
		store_handle h = store_series(F.st, &k, &spec);
		ck_assert_uint_ne(h, 0);
		if (fm_counter_info(s->c)->kind == FM_KIND_GAUGE) {
			ck_assert_int_eq(
			    store_set_gauge(F.st, h, s->rate, treal(NULL)), 0);
			continue;
		}
		s->raw += s->rate / s->scale;
		ck_assert_int_eq(store_update(F.st, h,
					      (uint64_t)llround(s->raw),
					      treal(NULL)),
				 0);
	}
	rules_tick(F.r, treal(NULL));
}

/* Advances the clock by 1 s, samples every series and ticks. */
static inline void step(void)
{
	step_only(NULL, SEC);
}

static inline void steps(int n)
{
	for (int i = 0; i < n; i++)
		step();
}

#endif
