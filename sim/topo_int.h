/*
 * Internal to sim/topo*.c: not an API. The pieces of sim_topo share the
 * spec (the fabric as written), the topology's layout and a few helpers
 * here; everything else includes topo.h only.
 *
 * topo.c builds a spec into a topology and answers the public queries,
 * topo_parse.c reads a topology file's tree into a spec, topo_gen.c
 * fills a spec from counts and writes a topology back as YAML, and
 * topo_names.c holds the port names, name patterns and the name index.
 * Like the rest of sim_topo, nothing here keeps state between calls.
 */
#ifndef FABMON_TOPO_INT_H
#define FABMON_TOPO_INT_H

#include "topo.h"

#include "ytree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIRST_MAX   1000000 /* largest "first" of a counted tier */
#define NO_ITEM	    SIZE_MAX
#define NONE	    SIZE_MAX
#define ARENA_CHUNK 65536

#define TOPO_PATH_SIZE 256

#define TOPO_N_SPEEDS 4

/* Tier keys of the file, node kind and flavour names, the valid speeds. */
extern const char *const topo_tier_keys[SIM_NODE_KINDS];
extern const char *const topo_kind_names[SIM_NODE_KINDS];
extern const char *const topo_flavour_names[SIM_FLAVOUR_MLX5 + 1];
extern const unsigned topo_speeds[TOPO_N_SPEEDS];

/*
 * The spec: the fabric as written, before it is built.
 */

struct spec_node {
	char *name;
	enum sim_node_kind kind;
	enum sim_flavour flavour;
	unsigned speed;
	unsigned ports;	    /* switches: 0, or the front-panel port count */
	unsigned line, col; /* where it is named; 0 if generated */
	size_t item;	    /* its item in a listed tier, or NO_ITEM */
	bool item_map;	    /* that item is a mapping (with a name key) */
	unsigned ports_line, ports_col;
};

struct spec_tier {
	bool counted;
	char *pattern; /* counted: a name with one %d or %0<w>d */
	unsigned first, count;
	enum sim_flavour flavours[SIM_TOPO_MAX_FLAVOURS];
	size_t n_flavours;  /* 0: the default flavour */
	unsigned speed;	    /* 0: the default speed */
	unsigned ports;	    /* 0: as the cabling needs */
	unsigned line, col; /* count value or list, for errors on the tier */
	bool named;	    /* counted with a name key */
	size_t first_node, n_nodes;
};

struct spec_end {
	size_t node;
	char *port;	/* as written; NULL: the node's first free port */
	unsigned index; /* the port, once the build resolved it */
	unsigned line, col;
};

struct spec_link {
	struct spec_end end[2];
	unsigned speed; /* 0: the slower end's */
	bool map_form;	/* {a:, b:} in the file, not [a, b] (error paths) */
};

struct spec {
	uint8_t lossless;
	unsigned speed, nics;
	enum sim_flavour flavour;
	bool rail; /* generate the rail wiring */
	unsigned nics_line, nics_col;
	struct spec_tier tier[SIM_NODE_KINDS];
	struct spec_node *nodes;
	size_t n_nodes, cap_nodes;
	struct spec_link *links;
	size_t n_links;
};

struct chunk {
	struct chunk *next;
	size_t used;
	char data[ARENA_CHUNK];
};

struct sim_topo {
	char *source;
	struct spec spec;
	struct sim_node *nodes;
	size_t n_nodes;
	struct sim_port *ports;
	size_t n_ports;
	size_t tier_first[SIM_NODE_KINDS], tier_n[SIM_NODE_KINDS];
	unsigned pods;
	size_t *slots; /* name index: node id + 1, 0 for empty */
	size_t mask;
	struct chunk *arena;
};

/* The spec's lifetime: defaults, a new node (zeroed, no item), freeing. */
void topo_spec_defaults(struct spec *s);
struct spec_node *topo_spec_add_node(struct spec *s);
void topo_spec_fini(struct spec *s);

/*
 * Reads the top level of a topology file's tree into s (topo_parse.c);
 * 0, or an error in x.
 */
int topo_parse_top(struct ytree_ctx *x, struct spec *s,
		   const struct ytree_node *root);

/* Sets the path to node sn's place in the file (and key, if any). */
void topo_path_node(struct ytree_ctx *x, const struct spec *s,
		    const struct spec_node *sn, const char *key);

/* Sets the path to the count of tier t, named key ("leaves", "hosts"):
 * "key.count" for a counted tier, "key" for a listed one. */
void topo_path_tier(struct ytree_ctx *x, const struct spec_tier *t,
		    const char *key);

/* Builds the spec (moved into the topology) or returns NULL. */
struct sim_topo *topo_build(struct ytree_ctx *x, struct spec *s,
			    const char *source);

/* FNV-1a with a final mix, for the name index and the MACs. */
uint64_t topo_hash_bytes(const char *s, size_t n, uint64_t salt);

/* The power of two (at least 16) that holds n entries half full. */
size_t topo_table_size(size_t n);

/* An index of names[0..n) by name: slots hold position + 1. */
size_t *topo_index_new(size_t n, size_t *mask);

/*
 * Finds name in the index; returns its position, or NONE with *slot set
 * to the free slot where it would go.
 */
size_t topo_index_find(const size_t *slots, size_t mask,
		       const struct spec_node *nodes, const char *name,
		       size_t len, size_t *slot);

/* Port i's name on a node of flavour f and speed node_speed. */
void topo_port_name(enum sim_flavour f, unsigned node_speed, unsigned i,
		    char *buf, size_t len);

/* The front-panel position of port name s, or false. */
bool topo_parse_port_name(enum sim_flavour f, unsigned node_speed,
			  const char *s, unsigned *index);

/* Whether s[0..len) is a node name (name characters, not too long). */
bool topo_valid_name(const char *s, size_t len);

/*
 * A name pattern: name characters around one "%d" or "%0<w>d" (w 1..9).
 * Returns the length of the part before it, the width and the suffix.
 */
bool topo_pattern_split(const char *pat, size_t *pre, unsigned *width,
			const char **suffix);

/* Pattern pat with num in it (pat itself if it has no number). */
void topo_pattern_expand(const char *pat, unsigned num, char *buf, size_t len);

#endif
