/*
 * cfg_alert: the alertmanager: and report: sections of fabmon.yaml,
 * parsed for cfg.c (internal to the cfg module; callers use cfg.h).
 */
#ifndef FABMON_CFG_ALERT_H
#define FABMON_CFG_ALERT_H

#include "cfg.h"
#include "ytree.h"

/* Sets every alertmanager: and report: default in c. */
void cfg_alert_defaults(struct cfg *c);
/* The alertmanager: section. 0 or -EINVAL. */
int cfg_parse_alertmanager(struct ytree_ctx *x, struct cfg *c,
			   const struct ytree_node *n);
/* The report: section. 0 or -EINVAL. */
int cfg_parse_report(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *n);
/* Frees what the alertmanager settings hold and zeroes them. */
void cfg_alert_free(struct cfg_alert *a);

/* The alertmanager: and report: hooks for a struct cfg_schema; they
 * fill c->alert and c->report. */
extern const struct cfg_section_ops cfg_alert_section;
extern const struct cfg_section_ops cfg_report_section;

#endif
