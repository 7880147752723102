/*
 * bench_cfg_links: how long fabmond takes to load a topology of many
 * static links (issue #16: 40k, 1,000 switches x 64 ports, 100k).
 *
 * For each size, a fabmon.yaml of N links "swD:EthernetP <->
 * hostI:mlx5_0" (64 ports a switch) is built in memory, then timed:
 * cfg_load_buffer() with fabmond's schema (YAML tree, sections, the
 * link checks), links_set_static() with the table's first lookup (its
 * effective map), the rules engine's first tick over that table (its
 * graph rebuild: a port per link end, issue #16's reload_big stall,
 * run while the engine lock is held), and cfg_free(). Wall clock and this
 * thread's CPU time (the machine may be shared). With "--write N FILE" it
 * writes that file instead, for timing `fabmond --check-config -c FILE`. Prints
 * figures; never fails on time.
 */
#include "config.h"

#include "cfg.h"
#include "fabmond.h"
#include "links.h"
#include "rules.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(clockid_t clk)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Writes the config of n links to f. */
static void write_links(FILE *f, unsigned n)
{
	fputs("listen: [\"127.0.0.1:0\"]\ntopology:\n  links:\n", f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "    - [sw%04u:Ethernet%u, host%06u:mlx5_0]\n",
			i / 64, i % 64 * 4, i);
}

struct lap {
	double wall, cpu;
};

static struct lap lap_start(void)
{
	return (struct lap){ now_s(CLOCK_MONOTONIC),
			     now_s(CLOCK_THREAD_CPUTIME_ID) };
}

static void lap_print(const char *what, struct lap *l)
{
	struct lap n = lap_start();
	printf("  %-22s %8.3f s wall %8.3f s cpu\n", what, n.wall - l->wall,
	       n.cpu - l->cpu);
	*l = n;
}

static int bench(unsigned n)
{
	char *buf = NULL, err[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 1;
	write_links(f, n);
	fclose(f);
	printf("%u links (%zu bytes of YAML)\n", n, len);

	struct lap l = lap_start(), total = l;
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "bench.yaml", buf,
					len, err, sizeof err);
	free(buf);
	if (!c) {
		fprintf(stderr, "bench_cfg_links: %s\n", err);
		return 1;
	}
	lap_print("cfg_load_buffer", &l);
	struct links *t = links_new(NULL, NULL);
	links_set_static(t, &c->topology);
	char d[64], p[64];
	if (!links_peer(t, "sw0000", "Ethernet0", d, sizeof d, p, sizeof p)) {
		fprintf(stderr, "bench_cfg_links: no peer of sw0000\n");
		return 1;
	}
	lap_print("links_set_static+peer", &l);
	struct store *st = store_new(NULL);
	struct rules *r = rules_new(st, t, NULL, c, NULL);
	lap_print("rules_new", &l);
	rules_tick(r, 0);
	lap_print("rules_tick (rebuild)", &l);
	rules_tick(r, 1);
	lap_print("rules_tick (steady)", &l);
	rules_free(r);
	store_free(st);
	links_free(t);
	cfg_free(c);
	lap_print("free", &l);
	lap_print("total", &total);
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned sizes[] = { 40000, 64000, 100000 };
	if (argc == 4 && strcmp(argv[1], "--write") == 0) {
		FILE *f = fopen(argv[3], "w");
		if (!f) {
			perror(argv[3]);
			return 1;
		}
		write_links(f, (unsigned)strtoul(argv[2], NULL, 10));
		return fclose(f) == 0 ? 0 : 1;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: bench_cfg_links [--write N FILE]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (bench(sizes[i]))
			return 1;
	return 0;
}
