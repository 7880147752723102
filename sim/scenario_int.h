/*
 * Internal to sim/scenario*.c: not an API. A loaded scenario's layout
 * (flow sets, sorted events, incidents) and the parsing helpers its
 * pieces share: scenario.c parses the scenario file (scenario_vis.c
 * its visibility: block), scenario_truth.c the truth file, scenario_run.c
 * replays the timeline and takes live events. A scenario drives one run at a
 * time, from one thread.
 */
#ifndef FABMON_SCENARIO_INT_H
#define FABMON_SCENARIO_INT_H

#include "scenario.h"

#include "ytree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_DURATION_NS (24ull * 3600 * 1000000000ull)

enum ev_kind {
	EV_FLOWS,
	EV_STOP,
	EV_NIC,
	EV_SWITCH,
	EV_LINK_DOWN,
	EV_LINK_UP,
	EV_REBOOT,
	EV_PAUSE,
	EV_TARGET_SILENT,
	EV_TARGET_REFUSE,
	EV_TARGET_OK,
	EV_TARGET_RESET,
	EV_TARGET_GARBAGE,
	EV_TARGET_DROP_AFTER_SYNC,
	EV_TARGET_WRONG_TYPES,
	EV_TARGET_SLOW,
};

struct flowset {
	char *name;
	size_t *src;
	size_t n;
	size_t dst;
	unsigned prio;
	double gbps;
	size_t *path; /* switch egress ports, or NULL: routed */
	size_t path_len;
	int *ids; /* model flow ids once added, else NULL */
};

struct event {
	uint64_t at;
	size_t order; /* file order, for a stable sort */
	enum ev_kind kind;
	size_t set;    /* flows, stop */
	size_t node;   /* switch, reboot, target_* */
	size_t port;   /* nic, link_*, pause */
	unsigned mask; /* B(K_*) of the knobs given */
	struct sim_model_nic_cfg nic;
	struct sim_model_switch_cfg sw;
	unsigned prio;
	double ratio;
};

struct incident {
	struct sim_scenario_incident pub;
	struct sim_scenario_victim *victims;
};

struct sim_scenario {
	struct sim_topo *topo;
	bool topo_borrowed; /* from sim_scenario_load_buffers() */
	uint64_t seed, duration;
	unsigned bg_prio;
	double bg_load; /* 0: no background traffic */
	/* The model's background (key background:), applied at the first
	   sim_scenario_apply(); bg_force: -1 as the file says, 0 off, 1 on;
	   bg_set: applied to the model of this run. */
	struct sim_model_background bg;
	int bg_force;
	bool bg_set;
	struct event *ev;
	size_t n_ev;
	struct flowset *sets;
	size_t n_sets;
	struct incident *inc;
	size_t n_inc;
	size_t cursor;
	bool started;
	char *vis[SIM_SCENARIO_VIS_N]; /* visibility: (scenario_vis.c) */
	bool vis_lldp_hosts;
};

/* Event names (by enum ev_kind) and incident kind names (scenario.c). */
extern const char *const scenario_ev_names[];
extern const char *const scenario_kind_names[SIM_SCENARIO_KINDS];

/* A list (or null) of at most max items, what they are for the message. */
int scenario_want_list(struct ytree_ctx *x, const struct ytree_node *n,
		       size_t max, const char *what, size_t *count);

/* The fields of mapping n among keys (unknown keys are errors). */
int scenario_want_map(struct ytree_ctx *x, const struct ytree_node *n,
		      const char *const *keys, size_t nk,
		      struct ytree_fields *f);

/* A node of t by name (a switch if switch_only). */
int scenario_node_node(struct ytree_ctx *x, const struct sim_topo *t,
		       const struct ytree_node *n, bool switch_only,
		       const struct sim_node **out);

/* A "node:port" endpoint of t (or a bare node, if node_ok). */
int scenario_node_endpoint(struct ytree_ctx *x, const struct sim_topo *t,
			   const struct ytree_node *n, bool node_ok,
			   const struct sim_node **node,
			   const struct sim_port **port);

/* The priority flows use when the file names none: t's lowest lossless. */
unsigned scenario_default_prio(const struct sim_topo *t);

/* Reads one timeline event n into e (checked against s's topology). */
int scenario_parse_event(struct ytree_ctx *x, struct sim_scenario *s,
			 const struct ytree_node *n, struct event *e);

/* Sets the knobs event e gives on cfg (a NIC's or a switch's). */
void scenario_set_knobs(const struct event *e, void *cfg);

/* Reads the visibility: mapping n into s (scenario_vis.c). */
int scenario_parse_visibility(struct ytree_ctx *x, struct sim_scenario *s,
			      const struct ytree_node *n);

/* Reads the truth file's tree into s's incidents (scenario_truth.c). */
int scenario_parse_truth(struct ytree_ctx *x, struct sim_scenario *s,
			 const struct ytree_node *root);

#endif
