/*
 * bench_report: the cost of the validation report's history at 1,000
 * switches x 64 ports. Prints figures, never fails on time:
 *
 *  - feed: CPU per engine tick spent in report_begin + report_port for
 *    every port (the rule engine's hook), with every port pausing on
 *    priority 3 (the worst case: every port makes a record) and with
 *    none pausing (only the fabric-wide sums move);
 *  - memory held after 30 minutes of the worst case, against the bound;
 *  - query: CPU of one /api/v1/report over the whole window.
 *
 * Usage: bench_report [ticks]   (default 20 ticks per case)
 */
#include "config.h"

#include "buf.h"
#include "report.h"
#include "report_api.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SEC   INT64_C(1000000000)
#define BASE  INT64_C(1700000000000000000)
#define SW    1000
#define PORTS 64

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static store_label dl[SW], pl[PORTS];

/* One tick; every every-th port is active (pausing and marking): the
 * engine hands the report only ports with something to say. */
static void tick(struct report *rep, int64_t now, float pause, int every)
{
	report_begin(rep, now);
	for (int d = 0; d < SW; d++)
		for (int p = 0; p < PORTS; p++) {
			if ((d * PORTS + p) % every)
				continue;
			struct rules_port_rates rp = { .device = dl[d],
						       .port = pl[p] };
			rp.pause_tx_s[3] = pause;
			rp.pause_rx_s[3] = pause;
			rp.ecn[3] = 100;
			rp.drops[3] = 0;
			rp.has_ecn = 1u << 3;
			report_port(rep, &rp);
		}
	report_end(rep);
}

int main(int argc, char **argv)
{
	int ticks = argc > 1 ? atoi(argv[1]) : 20;
	if (ticks < 1)
		ticks = 1;
	struct store *st = store_new(NULL);
	for (int d = 0; d < SW; d++) {
		char n[16];
		snprintf(n, sizeof n, "leaf%d", d);
		dl[d] = store_intern(st, n);
	}
	for (int p = 0; p < PORTS; p++) {
		char n[16];
		snprintf(n, sizeof n, "Ethernet%d", p);
		pl[p] = store_intern(st, n);
	}
	struct report_opts o = { .window_ns = REPORT_DEFAULT_WINDOW_NS,
				 .step_ns = REPORT_DEFAULT_STEP_NS,
				 .max_records = REPORT_DEFAULT_RECORDS,
				 .max_incidents = REPORT_DEFAULT_INCIDENTS,
				 .lossless_mask = 1u << 3 };
	struct report *rep = report_new(st, &o);
	int64_t now = BASE;

	/* Warm up the open bucket's index. */
	tick(rep, now, 0.5f, 1);
	double t0 = cpu_s();
	for (int i = 0; i < ticks; i++)
		tick(rep, now += SEC, 0.5f, 1);
	double worst = (cpu_s() - t0) / ticks;
	t0 = cpu_s();
	for (int i = 0; i < ticks; i++)
		tick(rep, now += SEC, 0.5f, 20);
	double some = (cpu_s() - t0) / ticks;
	printf("feed, %d x %d ports, every port pausing: %.2f ms CPU/tick\n",
	       SW, PORTS, worst * 1e3);
	printf("feed, %d x %d ports, 5%% pausing:         %.2f ms CPU/tick\n",
	       SW, PORTS, some * 1e3);

	/* 30 minutes of the worst case, one tick per minute bucket. */
	for (int m = 0; m < 30; m++) {
		now += 60 * SEC;
		tick(rep, now, 0.5f, 1);
		tick(rep, now + SEC, 0.5f, 1);
	}
	size_t held, bound;
	report_memory(rep, &held, &bound);
	printf("memory after 30 min of the worst case: %.1f MiB "
	       "(bound %.1f MiB)\n",
	       (double)held / (1 << 20), (double)bound / (1 << 20));

	struct buf b;
	buf_init(&b);
	t0 = cpu_s();
	int rc = report_api_serve(rep, NULL, 0, &b, now + 2 * SEC);
	double q = cpu_s() - t0;
	printf("query over the whole window: %.1f ms CPU, %zu bytes, "
	       "status %d\n",
	       q * 1e3, b.len, rc);
	buf_fini(&b);
	report_free(rep);
	store_free(st);
	return 0;
}
