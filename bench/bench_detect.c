/*
 * bench_detect: the rule engine's tick cost on a 1,000-switch fabric.
 *
 * 1,000 switches x 64 ports, every port linked to a port of another
 * switch, each port with the series a SONiC switch streams for the rules
 * (PFC frames on all 8 priorities, pause time and queue counters on the
 * lossless one, port traffic, link state: 31 series, about 2 M in all).
 * Each round stores one sample of every series (not timed) and runs one
 * engine tick (timed: the engine thread's CPU time and the wall clock).
 * The engine feeds a validation report every tick, as fabmond's does.
 * Phases: the first tick (slot map and graph built), a quiet fabric, and
 * a fabric with a pause storm spreading from one port over several hops.
 * Two references show the machine's speed right now: every series read
 * once with store_read (locks, a copy) and once from the lock-free
 * figures, which is what the engine's read phase streams. Prints
 * figures; never fails on time.
 *
 *   bench/bench_detect [switches] [rounds]
 */
#include "config.h"

#include "cfg.h"
#include "counters.h"
#include "fabmond.h"
#include "links.h"
#include "report.h"
#include "rules.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PORTS 64
#define SEC   INT64_C(1000000000)
#define T0    (INT64_C(1704067200) * SEC)

struct ser {
	store_handle h;
	uint32_t port; /* global port index */
	uint8_t what;  /* enum below */
};

enum { W_ZERO, W_BYTES, W_TX_PAUSE, W_RX_PAUSE, W_SPEED, W_UP };

static int64_t now_ns = T0;

static int64_t clk(void *ctx)
{
	(void)ctx;
	return now_ns;
}

static double mono_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static unsigned nsw;
static double *pause_tx, *pause_rx; /* per global port: ratio now */
static uint64_t *raw;

static void sample(struct store *st, struct ser *s, size_t n)
{
	now_ns += SEC;
	for (size_t i = 0; i < n; i++) {
		double rate = 0;
		switch (s[i].what) {
		case W_BYTES:
			rate = 2e10;
			break;
		case W_TX_PAUSE:
			rate = pause_tx[s[i].port] * 1e6; /* µs/s */
			break;
		case W_RX_PAUSE:
			rate = pause_rx[s[i].port] * 1e6;
			break;
		case W_SPEED:
			store_set_gauge(st, s[i].h, 5e10, now_ns);
			continue;
		case W_UP:
			store_set_gauge(st, s[i].h, 1, now_ns);
			continue;
		}
		raw[i] += (uint64_t)rate;
		store_update(st, s[i].h, raw[i], now_ns);
	}
}

static uint64_t reads_total;

static void tick(struct rules *r, double *cpu, double *wall)
{
	double t0 = mono_s();
	rules_tick(r, now_ns);
	*wall = mono_s() - t0;
	struct rules_snapshot s;
	rules_snapshot(r, false, &s);
	*cpu = s.last_tick_cpu_s;
	reads_total += s.last_tick_reads;
	rules_snapshot_free(&s);
}

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The floor: store_read of every slot once, as a reference for the
 * machine's speed right now. */
static double scan_all(struct store *st)
{
	struct store_sample smp;
	double t0 = thread_cpu();
	uint32_t n = store_slots(st);
	for (uint32_t i = 0; i < n; i++)
		store_read(st, i, &smp);
	return thread_cpu() - t0;
}

/* The same over the store's lock-free figures (what the engine reads). */
static double scan_figs(struct store *st, double *sum)
{
	const struct store_fig *f = NULL;
	double t0 = thread_cpu();
	uint32_t n = store_slots(st);
	for (uint32_t i = 0, left = 0; i < n; i++, f++) {
		if (!left)
			left = store_figs(st, i, &f);
		left--;
		uint64_t stamp = store_fig_stamp(f);
		*sum += store_fig_float(store_fig_head(f)) +
			(double)store_fig_arrival_ms(stamp) +
			store_fig_interval_ms(stamp);
	}
	return thread_cpu() - t0;
}

static void report(const char *what, double *cpu, double *wall, unsigned n)
{
	qsort(cpu, n, sizeof *cpu, cmp_d);
	qsort(wall, n, sizeof *wall, cmp_d);
	printf("%-34s cpu min %7.2f median %7.2f max %7.2f ms   wall median "
	       "%7.2f ms\n",
	       what, cpu[0] * 1e3, cpu[n / 2] * 1e3, cpu[n - 1] * 1e3,
	       wall[n / 2] * 1e3);
}

int main(int argc, char **argv)
{
	nsw = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
	if (nsw < 4 || rounds < 1) {
		fprintf(stderr, "usage: bench_detect [switches>=4] [rounds]\n");
		return 2;
	}
	struct store_opts so = { .ring_len = 8,
				 .mono_ns = clk,
				 .real_ns = clk };
	struct store *st = store_new(&so);
	struct links *l = links_new(clk, NULL);
	char err[256];
	const char *y = "interval: 1s\nlossless_priorities: [3]\n";
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "bench.yaml", y,
					strlen(y), err, sizeof err);
	if (!c) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}

	size_t nports = (size_t)nsw * PORTS;
	char **devn = calloc(nsw, sizeof *devn);
	char *portn[PORTS];
	for (unsigned i = 0; i < nsw; i++) {
		devn[i] = malloc(16);
		snprintf(devn[i], 16, "sw%04u", i);
	}
	for (unsigned k = 0; k < PORTS; k++) {
		portn[k] = malloc(16);
		snprintf(portn[k], 16, "Ethernet%u", k * 4);
	}
	/* Port k < 32 of switch i to port 32 + k of switch i + k + 1. */
	struct cfg_topology tp = { 0 };
	tp.links = calloc(nports / 2, sizeof *tp.links);
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned k = 0; k < PORTS / 2; k++) {
			struct cfg_link *lk = &tp.links[tp.n_links++];
			lk->a_device = devn[i];
			lk->a_port = portn[k];
			lk->b_device = devn[(i + k + 1) % nsw];
			lk->b_port = portn[PORTS / 2 + k];
		}
	links_set_static(l, &tp);
	free(tp.links);

	/* The series. */
	size_t cap = nports * 32, n = 0;
	struct ser *s = calloc(cap, sizeof *s);
	raw = calloc(cap, sizeof *raw);
	pause_tx = calloc(nports, sizeof *pause_tx);
	pause_rx = calloc(nports, sizeof *pause_rx);
	store_label q3 = store_intern(st, "3");
	double t0 = mono_s();
	for (unsigned i = 0; i < nsw; i++) {
		store_label dev = store_intern(st, devn[i]);
		struct store_series_spec spec = { .owner = dev,
						  .interval_ms = 1000 };
		for (unsigned k = 0; k < PORTS; k++) {
			store_label port = store_intern(st, portn[k]);
			uint32_t gp = i * PORTS + k;
#define ADD(cnt, sub_, what_, scale_)                                          \
	do {                                                                   \
		struct store_key key = { dev, port, (sub_), (uint16_t)(cnt) }; \
		spec.scale = (scale_);                                         \
		s[n].h = store_series(st, &key, &spec);                        \
		s[n].port = gp;                                                \
		s[n].what = (what_);                                           \
		n++;                                                           \
	} while (0)
			for (unsigned p = 0; p < 8; p++) {
				ADD(FM_C_PFC_RX_FRAMES, p, W_ZERO, 1);
				ADD(FM_C_PFC_TX_FRAMES, p, W_ZERO, 1);
			}
			ADD(FM_C_PFC_RX_PAUSE, 3, W_RX_PAUSE, 1e-6);
			ADD(FM_C_PFC_TX_PAUSE, 3, W_TX_PAUSE, 1e-6);
			ADD(FM_C_PG_DROPS, 3, W_ZERO, 1);
			ADD(FM_C_QUEUE_TX_PACKETS, q3, W_BYTES, 1);
			ADD(FM_C_QUEUE_DROPS, q3, W_ZERO, 1);
			ADD(FM_C_ECN_MARKED, q3, W_ZERO, 1);
			ADD(FM_C_QUEUE_OCCUPANCY, q3, W_UP, 1);
			ADD(FM_C_BYTES_RX, 0, W_BYTES, 1);
			ADD(FM_C_BYTES_TX, 0, W_BYTES, 1);
			ADD(FM_C_PACKETS_RX, 0, W_BYTES, 1);
			ADD(FM_C_PACKETS_TX, 0, W_BYTES, 1);
			ADD(FM_C_DISCARDS_RX, 0, W_ZERO, 1);
			ADD(FM_C_LINK_DOWN_EVENTS, 0, W_ZERO, 1);
			ADD(FM_C_LINK_UP, 0, W_UP, 1);
			ADD(FM_C_LINK_SPEED, 0, W_SPEED, 1);
#undef ADD
		}
	}
	printf("fabric: %u switches x %u ports, %zu links, %zu series "
	       "(built in %.1f s)\n",
	       nsw, PORTS, nports / 2, n, mono_s() - t0);

	struct rules_opts ro = { .real_ns = clk };
	struct rules *r = rules_new(st, l, NULL, c, &ro);
	/* Fed every tick, as fabmond does (its config's defaults). */
	struct report_opts rpo = { .window_ns = c->report.window_ns,
				   .step_ns = c->report.step_ns,
				   .max_records = c->report.max_records,
				   .max_incidents = c->report.max_incidents,
				   .lossless_mask = c->lossless_mask };
	struct report *rep = report_new(st, &rpo);
	struct rules_output out = { &report_output_ops, rep };
	rules_set_outputs(r, &out, 1);
	double *cpu = calloc(rounds, sizeof *cpu);
	double *wall = calloc(rounds, sizeof *wall);

	/* Two samples make the first rates. */
	sample(st, s, n);
	sample(st, s, n);
	tick(r, &cpu[0], &wall[0]);
	printf("%-34s cpu %7.2f ms (slot map and graph built)\n", "first tick",
	       cpu[0] * 1e3);

	reads_total = 0;
	for (unsigned i = 0; i < rounds; i++) {
		sample(st, s, n);
		tick(r, &cpu[i], &wall[i]);
	}
	report("tick, quiet fabric", cpu, wall, rounds);
	printf("%-34s %.0f per tick (of %zu)\n", "series read from the store",
	       (double)reads_total / rounds, n);
	double scan = scan_all(st);
	printf("%-34s cpu %7.2f ms (%.1f ns per series)\n",
	       "reference: store_read of all", scan * 1e3,
	       scan * 1e9 / (double)n);
	double sum = 0;
	scan = scan_figs(st, &sum);
	printf("%-34s cpu %7.2f ms (%.1f ns per series; %g)\n",
	       "reference: figures of all", scan * 1e3, scan * 1e9 / (double)n,
	       sum);

	/* A storm: sw0000's port 0 holds its peer paused; the pause then
	 * relays through three more switches. */
	uint32_t at = 0;
	for (int hop = 0; hop < 4; hop++) {
		unsigned sw = at / PORTS, k = at % PORTS;
		/* The peer of (sw, k < 32) is (sw + k + 1, 32 + k). */
		unsigned psw = (sw + k + 1) % nsw, pk = PORTS / 2 + k;
		pause_tx[at] = hop == 0 ? 1.0 : 0.6;
		pause_rx[psw * PORTS + pk] = pause_tx[at];
		at = psw * PORTS + (unsigned)(hop + 1); /* a pausing port */
	}
	for (unsigned i = 0; i < rounds; i++) {
		sample(st, s, n);
		tick(r, &cpu[i], &wall[i]);
	}
	report("tick, storm over 4 hops", cpu, wall, rounds);
	struct rules_snapshot snap;
	rules_snapshot(r, false, &snap);
	printf("incidents active: %zu", snap.n_active);
	for (size_t i = 0; i < snap.n_active; i++)
		printf("  [%s %s:%s, %zu ports]",
		       rules_kind_name(snap.active[i].kind),
		       snap.active[i].subjects[0].device,
		       snap.active[i].subjects[0].port,
		       snap.active[i].n_subjects);
	printf("\n");
	rules_snapshot_free(&snap);
	struct store_stats ss;
	store_get_stats(st, &ss);
	printf("store: %.0f MB for %llu series\n", ss.memory_bytes / 1e6,
	       (unsigned long long)ss.series);

	rules_free(r);
	report_free(rep);
	links_free(l);
	store_free(st);
	cfg_free(c);
	for (unsigned i = 0; i < nsw; i++)
		free(devn[i]);
	free(devn);
	for (unsigned k = 0; k < PORTS; k++)
		free(portn[k]);
	free(s);
	free(raw);
	free(pause_tx);
	free(pause_rx);
	free(cpu);
	free(wall);
	return 0;
}
