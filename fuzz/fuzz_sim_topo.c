/*
 * fuzz_sim_topo: libFuzzer target for fabsim's topology loader
 * (sim_topo_load_buffer()) and writer.
 *
 * Besides memory errors and leaks (the build adds ASan and UBSan), it
 * checks the loader's contract: a failed load leaves exactly one line
 * of message, a successful one none; and the writer's: what it writes
 * for an accepted fabric loads into the same fabric, and writing that
 * again gives the same bytes. Seeds: fuzz/corpus/sim_topo/ (the shipped
 * topologies and a few edge cases). Built without --enable-fuzzers, the
 * same code replays the corpus as a test (fuzz/replay.c).
 */
#include "config.h"

#include "topo.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

/* Fabrics past this many ports are checked without the round trip, to
 * keep executions fast. */
#define ROUND_TRIP_MAX_PORTS 20000

static char *write_out(const struct sim_topo *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f || sim_topo_write_yaml(t, f) != 0)
		abort();
	if (fclose(f) != 0)
		abort();
	return buf;
}

static void same_fabric(const struct sim_topo *a, const struct sim_topo *b)
{
	if (sim_topo_n_nodes(a) != sim_topo_n_nodes(b) ||
	    sim_topo_n_ports(a) != sim_topo_n_ports(b) ||
	    sim_topo_lossless_mask(a) != sim_topo_lossless_mask(b))
		abort();
	for (size_t i = 0; i < sim_topo_n_ports(a); i++) {
		const struct sim_port *p = sim_topo_port(a, i);
		const struct sim_port *q = sim_topo_port(b, i);
		if (strcmp(p->node->name, q->node->name) ||
		    strcmp(p->name, q->name) || p->speed != q->speed ||
		    !p->peer != !q->peer ||
		    (p->peer && p->peer->id != q->peer->id))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[512];
	struct sim_topo *t = sim_topo_load_buffer("fuzz.yaml", (const char *)d,
						  n, err, sizeof err);
	if (t ? err[0] != '\0' : err[0] == '\0' || strchr(err, '\n'))
		abort();
	if (!t || sim_topo_n_ports(t) > ROUND_TRIP_MAX_PORTS) {
		sim_topo_free(t);
		return 0;
	}
	size_t l1, l2;
	char *b1 = write_out(t, &l1);
	struct sim_topo *u =
	    sim_topo_load_buffer("written.yaml", b1, l1, err, sizeof err);
	if (!u) {
		fprintf(stderr, "the written fabric does not load: %s\n%s\n",
			err, b1);
		abort();
	}
	same_fabric(t, u);
	char *b2 = write_out(u, &l2);
	if (l1 != l2 || memcmp(b1, b2, l1) != 0)
		abort();
	free(b1);
	free(b2);
	sim_topo_free(u);
	sim_topo_free(t);
	return 0;
}
