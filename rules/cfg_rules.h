/*
 * cfg_rules: the rules: and topology: sections of fabmon.yaml, parsed
 * for cfg.c (internal to the cfg module; callers use cfg.h).
 */
#ifndef FABMON_CFG_RULES_H
#define FABMON_CFG_RULES_H

#include "cfg.h"
#include "ytree.h"

/* Sets every rules: and topology: default in c. */
void cfg_rules_defaults(struct cfg *c);
/* The rules: section (n may be null: every default). 0 or -EINVAL. */
int cfg_parse_rules(struct ytree_ctx *x, struct cfg *c,
		    const struct ytree_node *n);
/* The topology: section. 0 or -EINVAL. */
int cfg_parse_topology(struct ytree_ctx *x, struct cfg *c,
		       const struct ytree_node *n);
/* Frees what the topology holds and zeroes it. */
void cfg_topology_free(struct cfg_topology *t);

/* The rules: and topology: hooks for a struct cfg_schema; they fill
 * c->rules and c->topology. */
extern const struct cfg_section_ops cfg_rules_section;
extern const struct cfg_section_ops cfg_topology_section;

#endif
