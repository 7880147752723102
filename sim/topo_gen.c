/*
 * sim_topo's generator and writer: sim_topo_generate() fills a spec from
 * counts (every node named after its kind, flavours in turn) and hands it
 * to the build shared with loading; sim_topo_write_yaml() writes the
 * topology's spec back in the file format of doc/fabsim-topology.md.
 *
 * Like loading, generation allocates only for its own result and runs on
 * any thread; writing only reads the topology.
 */
#include "config.h"

#include "topo_int.h"

#include "mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool valid_speed(unsigned gbps)
{
	for (size_t i = 0; i < sizeof topo_speeds / sizeof *topo_speeds; i++)
		if (topo_speeds[i] == gbps)
			return true;
	return false;
}

static int gen_check(struct ytree_ctx *x, const struct sim_topo_gen *g)
{
	const struct {
		const char *what;
		unsigned v;
	} counts[] = { { "spines", g->spines },
		       { "leaves", g->leaves },
		       { "hosts", g->hosts } };
	for (size_t i = 0; i < 3; i++)
		if (counts[i].v < 1 || counts[i].v > SIM_TOPO_MAX_NODES)
			return ytree_fail_file(
			    x, "%s must be between 1 and %d, not %u",
			    counts[i].what, SIM_TOPO_MAX_NODES, counts[i].v);
	if ((size_t)g->spines + g->leaves + g->hosts > SIM_TOPO_MAX_NODES)
		return ytree_fail_file(
		    x, "the fabric would have more than %d nodes",
		    SIM_TOPO_MAX_NODES);
	if (g->nics < 1 || g->nics > SIM_TOPO_MAX_NICS)
		return ytree_fail_file(x,
				       "nics must be between 1 and %d, not %u",
				       SIM_TOPO_MAX_NICS, g->nics);
	if (g->nics > g->leaves)
		return ytree_fail_file(
		    x,
		    "nics (%u) must not exceed leaves (%u): NIC k "
		    "of every host goes to the leaf of rail k",
		    g->nics, g->leaves);
	if (g->leaves % g->nics)
		return ytree_fail_file(
		    x,
		    "leaves (%u) must be a multiple of nics (%u): "
		    "leaves make pods of one leaf per rail",
		    g->leaves, g->nics);
	if (g->speed && !valid_speed(g->speed))
		return ytree_fail_file(
		    x,
		    "speed %u is not supported (100, 200, 400 or "
		    "800 Gb/s)",
		    g->speed);
	if (g->host_speed && !valid_speed(g->host_speed))
		return ytree_fail_file(
		    x,
		    "host speed %u is not supported (100, 200, "
		    "400 or 800 Gb/s)",
		    g->host_speed);
	if (g->n_flavours > SIM_TOPO_MAX_FLAVOURS ||
	    (g->n_flavours && !g->flavours))
		return ytree_fail_file(x, "at most %d flavours, not %zu",
				       SIM_TOPO_MAX_FLAVOURS, g->n_flavours);
	for (size_t i = 0; i < g->n_flavours; i++)
		if (g->flavours[i] != SIM_FLAVOUR_SONIC &&
		    g->flavours[i] != SIM_FLAVOUR_ARISTA &&
		    g->flavours[i] != SIM_FLAVOUR_OPENCONFIG)
			return ytree_fail_file(
			    x,
			    "flavour %d is not a switch flavour "
			    "(sonic, arista or openconfig)",
			    (int)g->flavours[i]);
	return 0;
}

static void gen_tier(struct spec *s, enum sim_node_kind kind, unsigned count,
		     const struct sim_topo_gen *g)
{
	struct spec_tier *t = &s->tier[kind];
	char buf[32];
	t->counted = true;
	t->count = count;
	t->pattern = xasprintf("%s%%d", topo_kind_names[kind]);
	t->first_node = s->n_nodes;
	t->n_nodes = count;
	if (kind == SIM_NODE_HOST) {
		t->speed = g->host_speed && g->host_speed != s->speed
			       ? g->host_speed
			       : 0;
	} else {
		t->n_flavours = g->n_flavours;
		for (size_t i = 0; i < g->n_flavours; i++)
			t->flavours[i] = g->flavours[i];
	}
	for (unsigned i = 0; i < count; i++) {
		struct spec_node *sn = topo_spec_add_node(s);
		snprintf(buf, sizeof buf, "%s%u", topo_kind_names[kind], i);
		sn->name = xstrdup(buf);
		sn->kind = kind;
		sn->speed = t->speed ? t->speed : s->speed;
		if (kind == SIM_NODE_HOST)
			sn->flavour = SIM_FLAVOUR_MLX5;
		else if (t->n_flavours)
			sn->flavour = t->flavours[i % t->n_flavours];
		else
			sn->flavour = s->flavour;
	}
}

struct sim_topo *sim_topo_generate(const struct sim_topo_gen *g, char *err,
				   size_t errlen)
{
	struct ytree_ctx x = { .name = NULL,
			       .err = err,
			       .errlen = errlen,
			       .path_size = TOPO_PATH_SIZE };
	struct sim_topo *t;
	struct spec s;

	if (err && errlen)
		err[0] = '\0';
	if (!g) {
		ytree_fail_file(&x, "no generator settings");
		return NULL;
	}
	if (gen_check(&x, g))
		return NULL;
	topo_spec_defaults(&s);
	if (g->speed)
		s.speed = g->speed;
	if (g->lossless_mask)
		s.lossless = g->lossless_mask;
	s.nics = g->nics;
	gen_tier(&s, SIM_NODE_SPINE, g->spines, g);
	gen_tier(&s, SIM_NODE_LEAF, g->leaves, g);
	gen_tier(&s, SIM_NODE_HOST, g->hosts, g);
	t = topo_build(&x, &s, "generated");
	topo_spec_fini(&s);
	return t;
}

/*
 * Writing.
 */

/* Scalars that would not read back as the same string go in quotes. */
static void put_scalar(FILE *f, const char *s)
{
	bool q = !isalnum((unsigned char)s[0]) || strcmp(s, "null") == 0 ||
		 strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
	fprintf(f, q ? "\"%s\"" : "%s", s);
}

static void put_flavours(FILE *f, const struct spec_tier *t)
{
	if (t->n_flavours == 1) {
		fprintf(f, "  flavour: %s\n",
			topo_flavour_names[t->flavours[0]]);
		return;
	}
	fputs("  flavour: [", f);
	for (size_t i = 0; i < t->n_flavours; i++)
		fprintf(f, "%s%s", i ? ", " : "",
			topo_flavour_names[t->flavours[i]]);
	fputs("]\n", f);
}

static void put_tier(FILE *f, const struct spec *s, enum sim_node_kind kind)
{
	const struct spec_tier *t = &s->tier[kind];
	fprintf(f, "%s:\n", topo_tier_keys[kind]);
	if (t->counted) {
		fprintf(f, "  count: %u\n  name: ", t->count);
		put_scalar(f, t->pattern);
		fputc('\n', f);
		if (t->first)
			fprintf(f, "  first: %u\n", t->first);
		if (t->n_flavours)
			put_flavours(f, t);
		if (t->speed)
			fprintf(f, "  speed: %uG\n", t->speed);
		if (t->ports)
			fprintf(f, "  ports: %u\n", t->ports);
		return;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct spec_node *sn = &s->nodes[t->first_node + i];
		bool fl = kind != SIM_NODE_HOST && sn->flavour != s->flavour;
		bool sp = sn->speed != s->speed;
		if (!fl && !sp && !sn->ports) {
			fputs("  - ", f);
			put_scalar(f, sn->name);
			fputc('\n', f);
			continue;
		}
		fputs("  - name: ", f);
		put_scalar(f, sn->name);
		fputc('\n', f);
		if (fl)
			fprintf(f, "    flavour: %s\n",
				topo_flavour_names[sn->flavour]);
		if (sp)
			fprintf(f, "    speed: %uG\n", sn->speed);
		if (sn->ports)
			fprintf(f, "    ports: %u\n", sn->ports);
	}
}

static void put_end(FILE *f, const struct sim_topo *t, const struct spec_end *e)
{
	const struct sim_node *n = &t->nodes[e->node];
	if (!e->port) {
		put_scalar(f, n->name);
		return;
	}
	char buf[SIM_TOPO_NAME_MAX + 32];
	snprintf(buf, sizeof buf, "%s:%s", n->name, n->ports[e->index].name);
	put_scalar(f, buf);
}

int sim_topo_write_yaml(const struct sim_topo *t, FILE *f)
{
	const struct spec *s = &t->spec;

	fputs("# fabsim topology (see doc/fabsim-topology.md)\n", f);
	fputs("lossless_priorities: [", f);
	for (unsigned p = 0, first = 1; p < 8; p++) {
		if (!(s->lossless & (1u << p)))
			continue;
		fprintf(f, "%s%u", first ? "" : ", ", p);
		first = 0;
	}
	fprintf(f, "]\nspeed: %uG\nflavour: %s\nnics: %u\nwiring: %s\n",
		s->speed, topo_flavour_names[s->flavour], s->nics,
		s->rail ? "rail" : "none");
	for (int k = 0; k < SIM_NODE_KINDS; k++)
		put_tier(f, s, (enum sim_node_kind)k);
	if (s->n_links)
		fputs("links:\n", f);
	for (size_t i = 0; i < s->n_links; i++) {
		const struct spec_link *l = &s->links[i];
		fputs(l->speed ? "  - { a: " : "  - [", f);
		put_end(f, t, &l->end[0]);
		fputs(l->speed ? ", b: " : ", ", f);
		put_end(f, t, &l->end[1]);
		if (l->speed)
			fprintf(f, ", speed: %uG }\n", l->speed);
		else
			fputs("]\n", f);
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
