/*
 * fuzz_sim_scenario: libFuzzer target for fabsim's scenario and truth
 * parsers (sim_scenario_load_buffers()) and, for every scenario they
 * accept, its replay onto a counter model.
 *
 * An input is a scenario, then a line "%truth", then its truth file;
 * both name nodes and ports of the demo fabric (sim/topologies/
 * demo.yaml, built in below so no file is read). Besides memory errors
 * and leaks (the build adds ASan and UBSan) it checks the loaders'
 * contract (a failed load leaves exactly one line of message, a
 * successful one none) and that an accepted scenario applies without
 * an error the loader should have caught: its events all applied over
 * a few model steps, its incidents well formed. Seeds:
 * fuzz/corpus/sim_scenario/ (the shipped demo scenarios, and regress_*
 * inputs that once broke it). Built without
 * --enable-fuzzers, the same code replays the corpus as a test
 * (fuzz/replay.c).
 */
#include "config.h"

#include "model.h"
#include "scenario.h"
#include "topo.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const char demo[] =
    "lossless_priorities: [3]\n"
    "speed: 800G\n"
    "flavour: sonic\n"
    "nics: 2\n"
    "spines: {count: 2, name: spine%d, flavour: arista}\n"
    "leaves: {count: 4, name: leaf%d}\n"
    "hosts: {count: 8, name: host%d, speed: 400G}\n";

static struct sim_topo *topo;

static const char sep[] = "\n%truth\n";

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[1024];
	if (!topo) {
		topo = sim_topo_load_buffer("demo.yaml", demo, sizeof demo - 1,
					    err, sizeof err);
		if (!topo)
			abort();
	}
	const char *text = (const char *)d;
	const char *cut = memmem(text, n, sep, sizeof sep - 1);
	size_t sl = cut ? (size_t)(cut - text) : n;
	const char *truth = cut ? cut + sizeof sep - 1 : "";
	size_t tl = cut ? n - sl - (sizeof sep - 1) : 0;
	struct sim_scenario *s =
	    sim_scenario_load_buffers("fuzz.yaml", text, sl, "fuzz.truth.yaml",
				      truth, tl, topo, err, sizeof err);
	if (s ? err[0] != '\0' : err[0] == '\0' || strchr(err, '\n'))
		abort();
	if (!s)
		return 0;
	if (sim_scenario_topo(s) != topo)
		abort();
	for (size_t i = 0; i < sim_scenario_n_incidents(s); i++) {
		const struct sim_scenario_incident *in =
		    sim_scenario_incident(s, i);
		if (!in->device || in->from_ns >= in->to_ns ||
		    in->to_ns > sim_scenario_duration_ns(s) ||
		    (in->port && in->port->node != in->device))
			abort();
		/* A victim is hit before its incident ends; it may be hit
		   before the incident counts (doc/fabsim-scenarios.md:
		   a port paused one hop from a congestion that spreads
		   further later). */
		for (size_t k = 0; k < in->n_victims; k++)
			if (!in->victims[k].node ||
			    in->victims[k].from_ns >= in->to_ns)
				abort();
	}
	/* Every event applies: the loader checked what the model checks,
	   but for knob combinations (xon >= xoff) it cannot see. */
	struct sim_model *m =
	    sim_model_new(topo, sim_scenario_seed(s), err, sizeof err);
	if (!m)
		abort();
	uint64_t end = sim_scenario_duration_ns(s);
	uint64_t at[] = { 0, end / 2, end };
	for (size_t i = 0; i < 3; i++) {
		int rc = sim_scenario_apply(s, m, at[i]);
		if (rc && rc != -EINVAL)
			abort();
		if (sim_model_step(m, 100000000ull) != 0)
			abort();
	}
	for (size_t i = 0; i < sim_topo_n_nodes(topo); i++)
		(void)sim_scenario_target(s, i, end);
	sim_model_free(m);
	sim_scenario_free(s);
	return 0;
}
