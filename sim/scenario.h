/*
 * sim_scenario: fabsim's scenarios. A scenario file (doc/fabsim-
 * scenarios.md) names a topology, a seed, a duration, background
 * traffic and a timeline of events: flow sets started and stopped
 * (routed, or on explicit paths of egress ports), NIC and switch knobs
 * (PFC watchdog included), links down and up, switch reboots, injected
 * pause and target-level faults (a silent or refusing gNMI/SNMP target) that
 * the serving layer acts on. Beside it, "<name>.truth.yaml" lists the
 * incidents the scenario contains, for the rule engine's scenario suite
 * to score against.
 *
 * Ownership and threads. A scenario owns its topology, events and
 * incidents; everything it hands out is borrowed until
 * sim_scenario_free(). Loading shares nothing between loads. A scenario
 * drives one model run at a time (sim_scenario_apply() keeps a cursor
 * into the timeline); sim_scenario_rewind() starts a new run. The
 * queries (target faults, incidents) only read and may be called at any
 * time from the thread that owns the scenario.
 */
#ifndef FABMON_SIM_SCENARIO_H
#define FABMON_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "topo.h"

#define SIM_SCENARIO_MAX_FILE_BYTES (1024 * 1024)
#define SIM_SCENARIO_MAX_DEPTH	    8
#define SIM_SCENARIO_MAX_EVENTS	    4096
#define SIM_SCENARIO_MAX_FLOWS	    4096 /* senders in one flow set */
#define SIM_SCENARIO_MAX_INCIDENTS  1024
#define SIM_SCENARIO_MAX_VICTIMS    1024 /* per incident */

/* What the truth file says happens. */
enum sim_scenario_kind {
	SIM_SCENARIO_PFC_STORM,
	SIM_SCENARIO_CONGESTION_SPREADING,
	SIM_SCENARIO_PFC_DEADLOCK,
	SIM_SCENARIO_INCAST,
	SIM_SCENARIO_LOSSLESS_DROP,
	SIM_SCENARIO_PAUSE_ON_LOSSY_PRIORITY,
	SIM_SCENARIO_ECN_AFTER_PFC,
	SIM_SCENARIO_ECN_WITHOUT_CNP,
	SIM_SCENARIO_LINK_FLAP,
	SIM_SCENARIO_SWITCH_REBOOT,
	SIM_SCENARIO_TARGET_SILENT,
	SIM_SCENARIO_TARGET_REFUSE,
	SIM_SCENARIO_RAIL_MISALIGNMENT,
};
#define SIM_SCENARIO_KINDS 13

/*
 * One incident of the ground truth. origin is a node, optionally one of
 * its ports (NULL: the whole device) and a priority (-1: none). A victim
 * is a node and optionally a port (NULL); where a pause spreads, also
 * its hop count from the origin (0: not given) and when it is first hit
 * (the incident's from_ns unless given). The span is [from_ns, to_ns).
 */
struct sim_scenario_victim {
	const struct sim_node *node;
	const struct sim_port *port;
	unsigned hop;
	uint64_t from_ns;
};

struct sim_scenario_incident {
	enum sim_scenario_kind kind;
	const struct sim_node *device;
	const struct sim_port *port;
	int priority;
	const struct sim_scenario_victim *victims;
	size_t n_victims;
	uint64_t from_ns, to_ns;
};

/*
 * The fault a target (switch) shows its collectors (man/fabsim.1,
 * CONTROL ENDPOINT, says what each does to gNMI and to SNMP). A stall
 * is IS_SILENT applied at run time.
 */
enum sim_scenario_target {
	SIM_SCENARIO_TARGET_OK,
	SIM_SCENARIO_TARGET_IS_SILENT,	     /* accepts, never answers */
	SIM_SCENARIO_TARGET_REFUSES,	     /* refuses connections */
	SIM_SCENARIO_TARGET_RESET,	     /* gNMI streams end soon after */
	SIM_SCENARIO_TARGET_GARBAGE,	     /* undecodable messages */
	SIM_SCENARIO_TARGET_DROP_AFTER_SYNC, /* gNMI ends at sync */
	SIM_SCENARIO_TARGET_WRONG_TYPES,     /* counters of wrong types */
	SIM_SCENARIO_TARGET_SLOW,	     /* SNMP answers late */
};
#define SIM_SCENARIO_TARGETS 8

/* A fault as the control endpoint and the events name it ("ok",
 * "silent", "refuse", "reset", "garbage", "drop_after_sync",
 * "wrong_types", "slow"); "?" if
 * invalid. sim_scenario_target_parse() is the reverse: -1 if unknown. */
const char *sim_scenario_target_name(enum sim_scenario_target fault);
int sim_scenario_target_parse(const char *name);

struct sim_scenario;

/*
 * Loads a scenario file, the topology it names (relative to the file's
 * directory unless absolute) and its truth file (path with ".yaml"
 * replaced by ".truth.yaml", which must exist). Returns the scenario
 * (free with sim_scenario_free) or NULL with one line
 * "file:line:col: key.path: message" (or "file: message") in err.
 */
struct sim_scenario *sim_scenario_load(const char *path, char *err,
				       size_t errlen);
/*
 * The same from memory (tests, fuzzing): the scenario text buf (named
 * name in messages) and the truth text (named truth_name). With topo
 * NULL the topology key is loaded as from a file named name; with topo
 * given, the key must still be a string but topo is used instead, and
 * borrowed: it must outlive the scenario.
 */
struct sim_scenario *
sim_scenario_load_buffers(const char *name, const char *buf, size_t len,
			  const char *truth_name, const char *truth,
			  size_t truth_len, const struct sim_topo *topo,
			  char *err, size_t errlen);
/* Frees s, its topology (unless borrowed) and its truth; NULL is a
 * no-op. */
void sim_scenario_free(struct sim_scenario *s);

/* The topology (borrowed: lives as long as s), seed and duration. */
const struct sim_topo *sim_scenario_topo(const struct sim_scenario *s);
uint64_t sim_scenario_seed(const struct sim_scenario *s);
uint64_t sim_scenario_duration_ns(const struct sim_scenario *s);

/*
 * Applies to m (a model of sim_scenario_topo(s)) every event due by
 * now_ns that is not applied yet, in time order (file order at equal
 * times); the first call also starts the background traffic. Call it
 * every tick before sim_model_step() with the model's time; the first
 * call also sets the model's background (sim_scenario_background). Returns 0,
 * or the model's negative error for a knob it refused (the rest of the
 * due events are still applied).
 */
int sim_scenario_apply(struct sim_scenario *s, struct sim_model *m,
		       uint64_t now_ns);
/*
 * The model's background (sim_model_set_background) of this scenario:
 * the file's background: key (default on, with the model's default
 * knobs), unless overridden: on 1 forces it on, 0 off (fabsim
 * --quiet-baseline, tests that want exact physics), -1 follows the file
 * again. sim_scenario_apply() sets it on the model at its first call of
 * a run and again after each override. sim_scenario_background() fills
 * b with what it sets.
 */
void sim_scenario_set_background_override(struct sim_scenario *s, int on);
void sim_scenario_background(const struct sim_scenario *s,
			     struct sim_model_background *b);
/* Forgets what was applied, for a new run with a new model. */
void sim_scenario_rewind(struct sim_scenario *s);

/* The fault of switch node (a node id) at now_ns: the last target event
 * for it at or before now_ns, else SIM_SCENARIO_TARGET_OK. */
enum sim_scenario_target sim_scenario_target(const struct sim_scenario *s,
					     size_t node, uint64_t now_ns);

/* The truth's incidents in file order; NULL past the end. */
size_t sim_scenario_n_incidents(const struct sim_scenario *s);
const struct sim_scenario_incident *
sim_scenario_incident(const struct sim_scenario *s, size_t i);

/* A kind as the truth file writes it ("pfc_storm"), "?" if invalid. */
const char *sim_scenario_kind_name(enum sim_scenario_kind kind);

/*
 * The scenario's visibility: block (what fabmond cannot see; fabsim's
 * --unmonitored, --no-lldp, --nic-hosts and --unmonitored-lldp win over
 * it): each list as the option's comma-separated node names ("all" or
 * "none" for nic_hosts), or NULL when the scenario does not say.
 */
enum sim_scenario_vis {
	SIM_SCENARIO_VIS_UNMONITORED,
	SIM_SCENARIO_VIS_NO_LLDP,
	SIM_SCENARIO_VIS_NIC_HOSTS,
	SIM_SCENARIO_VIS_NO_PAUSE_TIME,
	SIM_SCENARIO_VIS_NO_APPL_DB,
	SIM_SCENARIO_VIS_N
};
const char *sim_scenario_visibility(const struct sim_scenario *s,
				    enum sim_scenario_vis which);
bool sim_scenario_unmonitored_lldp(const struct sim_scenario *s);

/*
 * fabsim's run-time control (a self-contained block for sim/fabsim_run.c
 * and sim/fabsim_ctl.c).
 *
 * sim_scenario_new_empty: a scenario over t (taken over: freed with the
 * scenario) with the given seed, a 24 h duration and no traffic, events
 * or incidents, for fabsim run on a bare topology.
 *
 * sim_scenario_restart: replays the timeline from its start on the
 * same model (fabsim --loop): background traffic keeps running and
 * flow sets reuse the model flows they added, so counters go on.
 *
 * Live events. sim_scenario_live_apply() parses buf (one item of a
 * scenario's events:, `at` optional and ignored; name is used in
 * messages as the file name) and applies it to m at once. Returns its
 * id (>= 1) or a negative errno with one line "name:line:col: key:
 * message" in err. sim_scenario_live_stop() undoes what event id
 * started (flows to demand 0, knobs back to their settings before it,
 * a link down back up, injected pause off, a target fault back to the
 * timeline's): 0, -ENOENT (no such id), -EALREADY (stopped before) or
 * -EOPNOTSUPP (stop, link_up and reboot have no end), with a message.
 * Target faults of live events and of sim_scenario_live_set_target()
 * (a fault, or -1 to follow the timeline again) override the
 * timeline's in sim_scenario_live_target(). The live table borrows s,
 * which must outlive it; the thread that owns s and m calls all of it.
 */
struct sim_scenario *sim_scenario_new_empty(struct sim_topo *t, uint64_t seed);
void sim_scenario_restart(struct sim_scenario *s);

struct sim_scenario_live;
struct sim_scenario_live *sim_scenario_live_new(struct sim_scenario *s);
void sim_scenario_live_free(struct sim_scenario_live *l);
int sim_scenario_live_apply(struct sim_scenario_live *l, struct sim_model *m,
			    const char *name, const char *buf, size_t len,
			    char *err, size_t errlen);
int sim_scenario_live_stop(struct sim_scenario_live *l, struct sim_model *m,
			   int id, char *err, size_t errlen);
void sim_scenario_live_set_target(struct sim_scenario_live *l, size_t node,
				  int fault);
enum sim_scenario_target
sim_scenario_live_target(const struct sim_scenario_live *l, size_t node,
			 uint64_t now_ns);
/* Events applied so far, and event id's kind ("flows") and whether it
 * is still active; NULL for no such id. */
size_t sim_scenario_live_count(const struct sim_scenario_live *l);
const char *sim_scenario_live_kind(const struct sim_scenario_live *l, int id,
				   bool *active);

#endif
