/*
 * bench_store: throughput of store_update and memory per series.
 *
 * Each writer thread owns SERIES_PER_THREAD series and updates them all,
 * round after round, with increasing raw values and source timestamps,
 * as a collector does on each poll; the first rounds (first sample, ring
 * allocation) are warm-up and not timed. Memory per series comes from
 * store_get_stats for 1 M series, before any rate (no rings) and after
 * (every ring allocated); memory includes each slot's lock-free figures
 * (16 bytes, and a 4-byte value apart). Then a full read with store_read
 * (locks, a copy) against one over the lock-free figures (store_figs), as the
 * rule engine reads. Times are each thread's CPU time as well as the wall
 * clock: the machine may be shared. Prints figures; never fails on time.
 */
#include "config.h"

#include "store.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SERIES_PER_THREAD 100000u
#define WARMUP_ROUNDS	  2u
#define TIMED_ROUNDS	  50u
#define MEMORY_SERIES	  1000000u
#define SEC		  INT64_C(1000000000)
#define T0		  (INT64_C(1704067200) * SEC)

struct worker {
	struct store *st;
	unsigned id;
	pthread_barrier_t *start;
	store_handle *h;
	double seconds;
	double cpu_seconds;
	int errors;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run_rounds(struct worker *w, unsigned first, unsigned n)
{
	for (unsigned r = first; r < first + n; r++) {
		int64_t ts = T0 + (int64_t)r * SEC;
		for (unsigned i = 0; i < SERIES_PER_THREAD; i++) {
			uint64_t raw = (uint64_t)r * (1000 + i % 977);
			if (store_update(w->st, w->h[i], raw, ts) != 0)
				w->errors++;
		}
	}
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	char name[32];
	struct store_series_spec spec = { .width = 64, .scale = 1 };

	snprintf(name, sizeof name, "bench-%u", w->id);
	spec.owner = store_intern(w->st, name);
	store_label dev = spec.owner;
	w->h = malloc(SERIES_PER_THREAD * sizeof *w->h);
	if (!w->h)
		abort();
	for (unsigned i = 0; i < SERIES_PER_THREAD; i++) {
		struct store_key k = { .device = dev,
				       .port = i / 8 + 1,
				       .sub = i % 8,
				       .counter = FM_C_PFC_RX_FRAMES };
		w->h[i] = store_series(w->st, &k, &spec);
		if (!w->h[i])
			w->errors++;
	}
	run_rounds(w, 0, WARMUP_ROUNDS);
	pthread_barrier_wait(w->start);
	double t = now_s(), c = cpu_s();
	run_rounds(w, WARMUP_ROUNDS, TIMED_ROUNDS);
	w->seconds = now_s() - t;
	w->cpu_seconds = cpu_s() - c;
	free(w->h);
	return NULL;
}

static void bench_threads(unsigned n)
{
	struct store *st = store_new(NULL);
	struct worker w[8];
	pthread_t t[8];
	pthread_barrier_t start;
	double slowest = 0, cpu = 0;
	int errors = 0;

	pthread_barrier_init(&start, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct worker){ .st = st, .id = i, .start = &start };
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (w[i].seconds > slowest)
			slowest = w[i].seconds;
		cpu += w[i].cpu_seconds;
		errors += w[i].errors;
	}
	pthread_barrier_destroy(&start);

	double updates = (double)n * SERIES_PER_THREAD * TIMED_ROUNDS;
	double rate = updates / slowest;
	printf("%u thread%s: %u series/thread x %u rounds: %.2f M updates/s"
	       " (%.2f M/s per thread), %.1f ns/update per thread%s\n",
	       n, n > 1 ? "s" : " ", SERIES_PER_THREAD, TIMED_ROUNDS,
	       rate / 1e6, rate / n / 1e6, slowest * 1e9 / (updates / n),
	       errors ? " (ERRORS)" : "");
	printf("%u thread%s: thread CPU %.1f ns/update (%.2f M updates/s per "
	       "CPU second)\n",
	       n, n > 1 ? "s" : " ", cpu * 1e9 / updates, updates / cpu / 1e6);
	store_free(st);
}

static void bench_memory(void)
{
	struct store *st = store_new(NULL);
	struct store_stats s;
	store_handle *h = malloc(MEMORY_SERIES * sizeof *h);
	char name[32];

	if (!h)
		abort();
	store_get_stats(st, &s);
	uint64_t empty = s.memory_bytes;
	for (unsigned i = 0; i < MEMORY_SERIES; i++) {
		if (i % 8 == 0) {
			snprintf(name, sizeof name, "Ethernet%u", i / 8);
			store_intern(st, name);
		}
		struct store_key k = { .device = 1,
				       .port = i / 8 + 1,
				       .sub = i % 8,
				       .counter = FM_C_PFC_TX_FRAMES };
		h[i] = store_series(st, &k, NULL);
		store_update(st, h[i], i, T0);
	}
	store_get_stats(st, &s);
	printf("memory: empty store %.1f KiB\n", (double)empty / 1024);
	printf("memory: %u series, %lu labels, no rings: %.1f MiB, "
	       "%.1f bytes/series\n",
	       MEMORY_SERIES, (unsigned long)s.labels,
	       (double)s.memory_bytes / (1 << 20),
	       (double)s.memory_bytes / MEMORY_SERIES);
	for (unsigned i = 0; i < MEMORY_SERIES; i++)
		store_update(st, h[i], (uint64_t)i + 100, T0 + SEC);
	store_get_stats(st, &s);
	printf("memory: %u series, full rings (64 rates): %.1f MiB, "
	       "%.1f bytes/series\n",
	       MEMORY_SERIES, (double)s.memory_bytes / (1 << 20),
	       (double)s.memory_bytes / MEMORY_SERIES);

	/* What an exporter scrape and a self-metrics scrape cost. */
	struct store_sample x;
	double t = cpu_s();
	unsigned live = 0;
	for (uint32_t i = 0; i < store_slots(st); i++)
		live += store_read(st, i, &x) == 0;
	t = cpu_s() - t;
	printf("read scan: %u series in %.1f ms CPU, %.1f ns/series\n", live,
	       t * 1e3, t * 1e9 / live);
	/* The same figures without locks: rate or value, flags, age,
	 * interval. */
	t = cpu_s();
	live = 0;
	double sum = 0;
	int64_t newest = 0;
	const struct store_fig *f = NULL;
	for (uint32_t i = 0, left = 0; i < store_slots(st); i++, f++) {
		if (!left)
			left = store_figs(st, i, &f);
		left--;
		uint64_t head = store_fig_head(f);
		if (!(store_fig_meta(head) & STORE_FIG_LIVE))
			continue;
		live++;
		uint64_t stamp = store_fig_stamp(f);
		sum += store_fig_float(head) + store_fig_interval_ms(stamp);
		int64_t m = store_fig_arrival_ms(stamp);
		newest = m > newest ? m : newest;
	}
	t = cpu_s() - t;
	printf("figures scan: %u series in %.1f ms CPU, %.1f ns/series "
	       "(checksum %g, %lld)\n",
	       live, t * 1e3, t * 1e9 / live, sum, (long long)newest);
	t = now_s();
	store_get_stats(st, &s);
	t = now_s() - t;
	printf("store_get_stats: %.1f ms for %lu series\n", t * 1e3,
	       (unsigned long)s.series);
	free(h);
	store_free(st);
}

int main(void)
{
	bench_threads(1);
	bench_threads(2);
	bench_memory();
	return 0;
}
