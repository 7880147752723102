/*
 * model: fabtop's picture of fabmond, parsed from the JSON of its HTTP
 * API (doc/api.md) into plain structs the views read.
 *
 * Every parser takes the raw bytes of one answer and fills a struct the
 * caller owns (free it with the matching *_clear). Answers come from the
 * network: a member that is missing, null or of an unexpected type reads
 * as unknown (NaN for numbers, NULL for strings, -1 for priorities and
 * tri-state booleans); a body that is not JSON, or whose top level is not
 * the documented object, is an error with a message. Sizes are bounded
 * (rows, subjects, tree depth) so that a hostile answer costs bounded
 * memory. Nothing here does I/O or keeps global state; callers may use
 * separate models from separate threads.
 */
#ifndef FABMON_FABTOP_MODEL_H
#define FABMON_FABTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

/* Bounds on what one answer may put in the model. */
#define MODEL_MAX_ROWS	   200000
#define MODEL_MAX_SUBJECTS 4096
#define MODEL_MAX_LEVEL	   32
#define MODEL_PRIORITIES   8

/* The numeric fields of a /api/v1/ports row, in the API's names. */
enum model_pf {
	MODEL_PF_SPEED,
	MODEL_PF_RX_BPS,
	MODEL_PF_TX_BPS,
	MODEL_PF_UTIL,
	MODEL_PF_PAUSE_RX,
	MODEL_PF_PAUSE_TX,
	MODEL_PF_PFC_RX,
	MODEL_PF_PFC_TX,
	MODEL_PF_ECN,
	MODEL_PF_ROCE_CE,
	MODEL_PF_CNP_SENT,
	MODEL_PF_CNP_HANDLED,
	MODEL_PF_CNP_IGNORED,
	MODEL_PF_DROPS,
	MODEL_PF_ERRORS,
	MODEL_PF_RETRIES, /* not served yet: read if a fabmond adds it */
	MODEL_PF_COUNT
};

/* Per-priority fields of a port row. */
enum model_pp {
	MODEL_PP_PAUSE_RX,
	MODEL_PP_PAUSE_TX,
	MODEL_PP_PFC_RX,
	MODEL_PP_PFC_TX,
	MODEL_PP_DISCARDS,
	MODEL_PP_COUNT
};

/* The API's name of a field ("pause_ratio_rx"), NULL out of range. */
const char *model_pf_name(enum model_pf f);
/* The field of an API name, or -1. */
int model_pf_lookup(const char *name);

struct model_port {
	char *device;
	char *port;
	int link_up; /* 1, 0, or -1 unknown */
	bool stale;
	double v[MODEL_PF_COUNT]; /* NaN when unknown */
	unsigned prio_mask;	  /* bit p: priority p present */
	double prio[MODEL_PRIORITIES][MODEL_PP_COUNT]; /* NaN when unknown */
};

struct model_ports {
	long total; /* total_ports, -1 unknown */
	size_t n;
	struct model_port *v;
};

/* A NIC port as fabtop tells them apart: an mlx5 name or NIC-only
 * counters (CE received, CNP). */
bool model_port_is_nic(const struct model_port *p);

enum model_tc {
	MODEL_TC_UPDATES,
	MODEL_TC_RECONNECTS,
	MODEL_TC_ERRORS,
	MODEL_TC_DECODE_ERRORS,
	MODEL_TC_TIMEOUTS,
	MODEL_TC_COUNT
};

struct model_target {
	char *target;
	char *protocol;
	int up; /* 1, 0, or -1 unknown */
	double age_seconds;
	double duration_seconds;
	char *last_error;
	double counters[MODEL_TC_COUNT]; /* NaN when unknown */
};

struct model_targets {
	size_t n;
	struct model_target *v;
};

struct model_status {
	char *version;
	double uptime_seconds;
	double series;
	double stale_series;
	double targets;
	double targets_up;
	int reload_ok; /* 1, 0, or -1 unknown */
};

enum model_role {
	MODEL_ROLE_UNKNOWN,
	MODEL_ROLE_ORIGIN,
	MODEL_ROLE_VICTIM,
	MODEL_ROLE_SPREADER,
	MODEL_ROLE_MEMBER
};
const char *model_role_name(enum model_role r);

/*
 * One node of an incident's pause tree, flattened in pre-order. shape
 * has level + 1 characters: for each ancestor level '|' when that
 * ancestor has later siblings (the vertical line continues) or ' ', then
 * 'T' for a node with later siblings, 'L' for a last child; the root's
 * shape is "". Nodes deeper than MODEL_MAX_LEVEL are dropped (counted in
 * the incident's tree_dropped).
 */
struct model_node {
	char *device;
	char *port; /* NULL: the whole device */
	int priority;
	enum model_role role;
	int hops; /* the API's depth: hops from the origin */
	int level;
	char shape[MODEL_MAX_LEVEL + 2];
};

struct model_evidence {
	char *name;
	char *device;
	char *port;
	double value;
};

struct model_incident {
	long long id; /* -1 unknown */
	char *kind;
	char *state;
	int priority;
	char *origin_device;
	char *origin_port;
	/* A storm from outside fabmond's view (the API's origin.far_end and
	 * origin.sender): the origin is the far end of origin_device:port,
	 * and/or its sender is not monitored. */
	bool origin_far_end;
	bool sender_unmonitored;
	char *summary;
	double started, fired, resolved, peak_time; /* epoch s, NaN */
	double peak;
	size_t n_subjects;
	struct model_node *subjects; /* the subjects list, level 0 */
	size_t n_tree;
	struct model_node *tree;
	size_t tree_dropped;
	size_t n_evidence;
	struct model_evidence *evidence;
};

struct model_incidents {
	size_t n_active;
	struct model_incident *active;
	size_t n_recent;
	struct model_incident *recent;
	double ticks;
	double tick_seconds;
};

/*
 * Parsers: 0 on success, with *out filled (cleared first); -EINVAL when
 * the body is not JSON or not the documented object, with a sentence in
 * err (NUL-terminated, at most errlen bytes) and *out left empty.
 * Unknown members are ignored; rows without a device and port (ports),
 * target (targets) are skipped.
 */
int model_parse_ports(const char *body, size_t len, struct model_ports *out,
		      char *err, size_t errlen);
int model_parse_targets(const char *body, size_t len, struct model_targets *out,
			char *err, size_t errlen);
int model_parse_status(const char *body, size_t len, struct model_status *out,
		       char *err, size_t errlen);
int model_parse_incidents(const char *body, size_t len,
			  struct model_incidents *out, char *err,
			  size_t errlen);

/*
 * The "error" member of an API error body, in a new string the caller
 * frees; NULL when the body is not such an object.
 */
char *model_parse_error(const char *body, size_t len);

/*
 * Renders any JSON document as indented "key: value" text lines (for
 * --report, whose shape fabtop does not assume), appending to a newly
 * allocated string the caller frees; NULL when the body is not JSON.
 */
char *model_format_json(const char *body, size_t len);

enum model_verdict {
	MODEL_VERDICT_UNKNOWN,
	MODEL_VERDICT_PASS,
	MODEL_VERDICT_WARN,
	MODEL_VERDICT_FAIL
};

/*
 * Renders a /api/v1/report answer (doc/api.md) as a plain-text report:
 * verdict and reasons, drops, pause per priority, incidents, ECN before
 * PFC, CNP, stragglers, coverage, then any member fabtop does not know as
 * indented text. Missing members are left out or shown as "-". Sets
 * *verdict from the "verdict" member. NULL (and MODEL_VERDICT_UNKNOWN)
 * when the body is not a JSON object with a string "verdict": the caller
 * falls back to model_format_json.
 */
char *model_format_report(const char *body, size_t len,
			  enum model_verdict *verdict);

/* Frees what the struct holds and empties it; NULL-safe. */
void model_ports_clear(struct model_ports *p);
void model_targets_clear(struct model_targets *t);
void model_status_clear(struct model_status *s);
void model_incidents_clear(struct model_incidents *in);
/* Deep copy of one incident into *dst (which the caller clears). */
void model_incident_copy(struct model_incident *dst,
			 const struct model_incident *src);
void model_incident_clear(struct model_incident *in);

/* Moves src into dst (dst is cleared first, src left empty). */
void model_ports_move(struct model_ports *dst, struct model_ports *src);

#endif
