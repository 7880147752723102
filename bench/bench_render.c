/*
 * bench_render: time to render /metrics (plain and gzip) and
 * /api/v1/ports from a store of realistic switch series.
 *
 * The store is filled like a fabric of leaf switches: DEVICES x 64
 * ports, each port with per-priority PFC frames and pause time (rx/tx),
 * per-priority discards, per-queue ECN marks, drops and transmitted
 * packets, and port-wide traffic, drops, errors, link state and speed.
 * Counters get two samples one second apart so totals and rates exist;
 * pause time is in microseconds scaled to seconds, so a quarter of the
 * values take the non-integer formatting path. Sizes are 100k and 1M
 * series; each figure is the median of RUNS renders. Single-threaded,
 * like one scrape. The store's monotonic clock is frozen so that no
 * series turns stale during the runs. Prints figures only; never fails on time.
 */
#include "config.h"

#include "api.h"
#include "buf.h"
#include "counters.h"
#include "health.h"
#include "prom.h"
#include "store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS		5
#define PORTS		64
#define PRIOS		8
#define QUEUES		8
#define SEC		INT64_C(1000000000)
#define T0		(INT64_C(1704067200) * SEC)
#define GZIP_LEVEL	1
#define SERIES_PER_PORT (PRIOS * 5 + QUEUES * 3 + 10)

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static size_t add(struct store *st, store_label owner, store_label dev,
		  store_label port, enum fm_counter c, uint32_t sub,
		  double scale, uint64_t seed)
{
	struct store_key k = {
		.device = dev, .port = port, .sub = sub, .counter = (uint16_t)c
	};
	struct store_series_spec spec = { .owner = owner, .scale = scale };
	store_handle h = store_series(st, &k, &spec);
	if (!h) {
		fprintf(stderr, "bench_render: store_series failed\n");
		exit(1);
	}
	if (fm_counter_info(c)->kind == FM_KIND_GAUGE) {
		store_set_gauge(st, h, c == FM_C_LINK_SPEED ? 12.5e9 : 1, T0);
	} else {
		uint64_t base = seed * 2654435761u % 1000000007u;
		store_update(st, h, base, T0);
		store_update(st, h, base + seed % 100003, T0 + SEC);
	}
	return 1;
}

/* Fills st with about target series; returns the number created. */
static size_t fill(struct store *st, size_t target)
{
	static const enum fm_counter prio_c[] = {
		FM_C_PFC_RX_FRAMES, FM_C_PFC_TX_FRAMES,	   FM_C_PFC_RX_PAUSE,
		FM_C_PFC_TX_PAUSE,  FM_C_PRIO_DISCARDS_RX,
	};
	static const enum fm_counter queue_c[] = { FM_C_ECN_MARKED,
						   FM_C_QUEUE_DROPS,
						   FM_C_QUEUE_TX_PACKETS };
	static const enum fm_counter port_c[] = {
		FM_C_BYTES_RX,	 FM_C_BYTES_TX,	   FM_C_PACKETS_RX,
		FM_C_PACKETS_TX, FM_C_DISCARDS_RX, FM_C_DISCARDS_TX,
		FM_C_ERRORS_RX,	 FM_C_ERRORS_TX,   FM_C_LINK_UP,
		FM_C_LINK_SPEED,
	};
	size_t devices =
	    (target + PORTS * SERIES_PER_PORT - 1) / (PORTS * SERIES_PER_PORT);
	store_label queues[QUEUES];
	char name[64];
	for (int q = 0; q < QUEUES; q++) {
		snprintf(name, sizeof name, "UC%d", q);
		queues[q] = store_intern(st, name);
	}
	size_t n = 0;
	uint64_t seed = 1;
	for (size_t d = 0; d < devices; d++) {
		snprintf(name, sizeof name, "leaf-%04zu.pod%zu.example.net", d,
			 d / 32);
		store_label dev = store_intern(st, name);
		store_label owner = dev;
		for (int p = 0; p < PORTS; p++) {
			snprintf(name, sizeof name, "Ethernet%d", p * 4);
			store_label port = store_intern(st, name);
			for (size_t i = 0; i < sizeof prio_c / sizeof *prio_c;
			     i++) {
				bool pause = prio_c[i] == FM_C_PFC_RX_PAUSE ||
					     prio_c[i] == FM_C_PFC_TX_PAUSE;
				for (uint32_t pr = 0; pr < PRIOS; pr++)
					n +=
					    add(st, owner, dev, port, prio_c[i],
						pr, pause ? 1e-6 : 1, seed++);
			}
			for (size_t i = 0; i < sizeof queue_c / sizeof *queue_c;
			     i++)
				for (int q = 0; q < QUEUES; q++)
					n += add(st, owner, dev, port,
						 queue_c[i], queues[q], 1,
						 seed++);
			for (size_t i = 0; i < sizeof port_c / sizeof *port_c;
			     i++)
				n += add(st, owner, dev, port, port_c[i], 0, 1,
					 seed++);
		}
	}
	return n;
}

/* A frozen monotonic clock: series stay fresh however long runs take. */
static int64_t frozen_mono(void *ctx)
{
	(void)ctx;
	return SEC;
}

static void run(size_t target)
{
	struct store_opts o = { .mono_ns = frozen_mono };
	struct store *st = store_new(&o);
	struct health *h = health_new();
	double t = now_s();
	size_t n = fill(st, target);
	double fill_s = now_s() - t;

	double plain[RUNS], gz[RUNS], ports[RUNS];
	size_t bytes = 0, gz_bytes = 0, ports_bytes = 0;
	struct prom_self self = { .scrape_duration_s = -1 };
	for (int r = 0; r < RUNS; r++) {
		struct buf b;
		buf_init(&b);
		t = now_s();
		if (prom_render(st, h, &self, &b) < 0) {
			fprintf(stderr, "bench_render: render failed\n");
			exit(1);
		}
		plain[r] = now_s() - t;
		bytes = b.len;

		struct buf z;
		buf_init(&z);
		buf_reset(&b);
		t = now_s();
		prom_render(st, h, &self, &b);
		buf_gzip(b.data, b.len, GZIP_LEVEL, &z);
		gz[r] = now_s() - t;
		gz_bytes = z.len;
		self.scrape_duration_s = gz[r];
		buf_fini(&z);
		buf_fini(&b);

		struct api_ctx ctx = { .st = st, .h = h };
		buf_init(&b);
		t = now_s();
		api_serve(&ctx, "/api/v1/ports", NULL, 0, &b);
		ports[r] = now_s() - t;
		ports_bytes = b.len;
		buf_fini(&b);
	}
	printf("series %zu (filled in %.2f s)\n", n, fill_s);
	printf("  render      median %.3f s  %zu bytes  %.0f ns/series\n",
	       median(plain, RUNS), bytes, median(plain, RUNS) * 1e9 / n);
	printf("  render+gzip median %.3f s  %zu bytes (level %d)\n",
	       median(gz, RUNS), gz_bytes, GZIP_LEVEL);
	printf("  api ports   median %.3f s  %zu bytes (%zu ports, top 100)\n",
	       median(ports, RUNS), ports_bytes, n / SERIES_PER_PORT);
	fflush(stdout);
	health_free(h);
	store_free(st);
}

int main(void)
{
	printf("bench_render: %d runs each, medians\n", RUNS);
	run(100000);
	run(1000000);
	return 0;
}
