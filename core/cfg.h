/*
 * cfg: fabmond's configuration, loaded from one YAML file.
 *
 * cfg_load() reads the file (bounded in size and nesting depth, since
 * libyaml has no limits of its own), validates every key and returns a
 * struct cfg that the caller owns; nothing is global, so a reload is
 * "load, validate, swap". Errors name the file, line:column and key path:
 *
 *   fabmon.yaml:14:7: targets[2].gnmi.interval: "5x" is not a duration
 *
 * Unknown keys are errors, numbers are range-checked, and secrets come
 * either inline or from *_file keys (read at load time, never logged).
 *
 * The protocols' sections (gnmi, snmp, nic, rules ...) are parsed by
 * their own hooks (struct cfg_section_ops) in the same load, so that a
 * config is validated whole, before any collector starts.
 */
#ifndef FABMON_CFG_H
#define FABMON_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ytree.h"

#define CFG_MAX_FILE_BYTES (16 * 1024 * 1024)
/* How long the config may take to arrive through a pipe or FIFO. */
#define CFG_PIPE_MS	 (60 * 1000)
#define CFG_MAX_DEPTH	 32
#define CFG_DEFAULT_PORT FABMON_DEFAULT_PORT

struct cfg_listen {
	char *host; /* "127.0.0.1", "::1", "" for any */
	char *port; /* decimal, "0" lets the kernel choose */
};

struct cfg;
struct cfg_section_ops;

/* One protocol's parsed block or section; data belongs to ops. */
struct cfg_section {
	const struct cfg_section_ops *ops;
	void *data;
};

struct cfg_target {
	char *name; /* unique; the device label of its series */
	/* Its protocol blocks (gnmi:, snmp: ...) in schema order, present
	 * ones only; read them with the protocol's accessor. */
	struct cfg_section *blocks;
	size_t n_blocks;
};

/*
 * The rule engine (rules: section; defaults and rationale in
 * fabmon.yaml(5) and doc/rules.md). Ratios are fractions of time in
 * [0, 1]; durations in ns.
 */
struct cfg_rules {
	uint64_t tick_ns;  /* 0: the shortest sample interval (>= 100 ms) */
	uint64_t clear_ns; /* quiet time before an incident resolves */
	unsigned keep_resolved;	 /* resolved incidents kept for the API */
	double pause_ratio;	 /* an edge of the pause graph */
	double storm_ratio;	 /* a storm's origin keeps its peer paused */
	uint64_t storm_for_ns;	 /* detection time of a storm */
	unsigned spreading_hops; /* pause tree depth that is spreading */
	uint64_t spreading_for_ns;
	uint64_t deadlock_for_ns;
	double deadlock_progress; /* tx packets/s below which a member of a
				     cycle makes no progress */
	unsigned incast_senders;  /* senders handling CNPs at once */
	double incast_min_cnp;	  /* CNPs/s the receiver must send */
	double incast_ce_ratio;	  /* CE over the last hop's packets */
	uint64_t incast_for_ns;
	uint64_t drop_for_ns;
	double discard_pause_ratio; /* tx pause that makes a port's receive
				       discards its headroom's */
	uint64_t lossy_pause_for_ns;
	double ecn_pause_ratio; /* pausing at which ECN must have marked */
	uint64_t ecn_after_pfc_for_ns;
	double ecn_min_ce; /* CE packets/s that need CNPs */
	uint64_t ecn_without_cnp_for_ns;
	unsigned flap_count; /* link-down events in flap_window */
	uint64_t flap_window_ns;
	uint64_t silent_for_ns; /* no data from a target for this long */
};

/* A static link of the topology: section. */
struct cfg_link {
	char *a_device, *a_port;
	char *b_device, *b_port;
};

/* A declared rail: its leaves and the NIC port names on it. */
struct cfg_rail {
	char **leaves;
	size_t n_leaves;
	char **nics; /* default: "mlx5_<k>" for rail k */
	size_t n_nics;
};

struct cfg_topology {
	struct cfg_link *links;
	size_t n_links;
	struct cfg_rail *rails;
	size_t n_rails;
	uint64_t lldp_ttl_ns; /* LLDP neighbours age out after this */
};

/* TLS versions for alertmanager.tls_config.min_version. */
enum cfg_alert_tls {
	CFG_ALERT_TLS_DEFAULT, /* libcurl's (TLS 1.2 on Debian 12) */
	CFG_ALERT_TLS10,
	CFG_ALERT_TLS11,
	CFG_ALERT_TLS12,
	CFG_ALERT_TLS13,
};

#define CFG_ALERT_MAX_URLS 16

/* Alertmanager push (alertmanager: section; exporters/alert.h). The
 * auth and TLS settings apply to every URL, as one alertmanager_config
 * of Prometheus does. Secrets are read from their files when the
 * config loads; free with cfg_free_secret semantics (zeroed). */
struct cfg_alert {
	char **urls;	     /* base URLs (http or https), all posted */
	size_t n_urls;	     /* 0: no push */
	uint64_t resend_ns;  /* re-send firing alerts this often (1m) */
	uint64_t timeout_ns; /* one POST (10s) */
	unsigned max_alerts; /* alerts tracked at once (10000) */
	char **label_names;  /* static labels added to every alert */
	char **label_values;
	size_t n_labels;
	char *username, *password; /* basic_auth; NULL: none */
	char *auth_type;   /* authorization (e.g. "Bearer"); NULL: none */
	char *credentials; /* its credentials (secret) */
	char *ca_file, *cert_file, *key_file; /* tls_config; NULL: none */
	char *server_name; /* TLS name checked instead of the URL's host */
	bool insecure_skip_verify;
	enum cfg_alert_tls tls_min;
};

/* The validation report's history (report: section; rules/report.h). */
struct cfg_report {
	uint64_t window_ns;   /* kept (24h) */
	uint64_t step_ns;     /* bucket width (1m) */
	uint64_t max_records; /* per-(port, priority) records (1Mi) */
	unsigned max_incidents;
};

struct cfg {
	char *path; /* the file this came from; NULL from cfg_default() */
	const struct cfg_schema *schema; /* the sections it was loaded with */
	struct cfg_listen *listen;
	size_t n_listen;
	unsigned http_threads;
	unsigned http_max_connections;
	unsigned http_max_per_client;	 /* connections per client address */
	uint64_t http_header_timeout_ns; /* a request's headers due within */
	char *http_web_config; /* exporter-toolkit web config; NULL: none */
	uint64_t interval_ns;  /* default sample interval */
	uint8_t lossless_mask; /* bit p set: priority p is lossless */
	int log_level;	       /* enum log_level; -1 if unset */
	char **log_debug;      /* subsystem tokens */
	size_t n_log_debug;
	unsigned store_ring; /* rates kept per series */
	unsigned store_stale_intervals;
	struct cfg_target *targets;
	size_t n_targets;
	struct cfg_rules rules;
	struct cfg_topology topology;
	struct cfg_alert alert;
	struct cfg_report report;
	char *profiles_dir; /* where profile files are looked up */
	/* The top-level sections of the schema's protocols, one per
	 * section with an init or parse hook, in schema order. */
	struct cfg_section *sections;
	size_t n_sections;
};

/*
 * A protocol's config hooks (a collector's, the rules'). The skeleton
 * (listen, log, http, store, interval, targets' names ...) is parsed
 * here; every other top-level key and every key of a target besides
 * its name belongs to one of these, registered by the caller in a
 * struct cfg_schema. Core never names a protocol: what a section holds
 * is the protocol's own type, reached through its accessor.
 *
 * key is the section's name at the top level and in a target. Top
 * level (a section with neither init nor parse has none): init sets
 * the defaults, either in the skeleton's typed fields of c or in data
 * it returns (NULL: none); parse reads the section when present, with
 * x's path at it (n may be a null node); fini frees what init and parse
 * made. A target's block (absent if parse_target is NULL): parse_target
 * allocates *out, fills it and returns 0, or returns the error with
 * what it made in *out (freed with free_target). The interval hooks
 * give the shortest sample interval a section or block asks for (0:
 * none of its own), for cfg_min_interval(). Hooks run on the loading
 * thread, one load at a time per struct cfg.
 */
struct cfg_section_ops {
	const char *key;
	void *(*init)(struct cfg *c);
	int (*parse)(struct ytree_ctx *x, struct cfg *c, void *data,
		     const struct ytree_node *n);
	void (*fini)(struct cfg *c, void *data);
	uint64_t (*interval)(const struct cfg *c, const void *data);
	int (*parse_target)(struct ytree_ctx *x, const struct cfg *c,
			    const struct ytree_node *n, void **out);
	void (*free_target)(void *data);
	uint64_t (*target_interval)(const void *data);
};

/* The sections a config may hold, in parse order (the daemon's table:
 * fabmond_cfg_schema()). At most CFG_MAX_SECTIONS. */
#define CFG_MAX_SECTIONS 16
struct cfg_schema {
	const struct cfg_section_ops *const *ops;
	size_t n;
};

/*
 * Loads and validates path with the sections of s. On success returns
 * the config (free with cfg_free); on failure returns NULL and writes
 * one line "file:line:col: key: message" (or "file: message" when there
 * is no position) into err.
 */
struct cfg *cfg_load(const struct cfg_schema *s, const char *path, char *err,
		     size_t errlen);
/* The same from a buffer; name is used in messages and as cfg->path.
 * *_file keys are resolved relative to the current directory. */
struct cfg *cfg_load_buffer(const struct cfg_schema *s, const char *name,
			    const char *buf, size_t len, char *err,
			    size_t errlen);
void cfg_free(struct cfg *c);

/* A config with every default of s and no targets (used without -c). */
struct cfg *cfg_default(const struct cfg_schema *s);

/* The target named name, or NULL. */
const struct cfg_target *cfg_find_target(const struct cfg *c, const char *name);

/* The data of c's top-level section key (NULL if it has none). Borrowed:
 * it lives as long as c. */
void *cfg_section(const struct cfg *c, const char *key);
/* The data of t's block key, or NULL if t has none. Borrowed from t. */
void *cfg_target_block(const struct cfg_target *t, const char *key);

/* The shortest sample interval c asks for anywhere (the global one, the
 * sections' and the targets' blocks', zeros left out). */
uint64_t cfg_min_interval(const struct cfg *c);

/*
 * Helpers for the sections' parsers. CFG_INTERVAL_MIN/MAX bound every
 * sample interval. cfg_opt_secret reads key i of f (inline) or key j (a
 * file holding it), not both; *out untouched if neither. cfg_want_name
 * checks a target or device name. cfg_split_hostport splits "host:port",
 * "[v6]:port" or (any_host) ":port": 0, -EINVAL (shape) or -ERANGE (port
 * out of [min_port, 65535]); host and port may be NULL. cfg_parse_port:
 * 1..5 digits in [min, 65535]. cfg_has_space: a space or control byte.
 * cfg_later: the later of present keys i and j in the file.
 * cfg_free_secret zeroes and frees s (NULL is a no-op).
 */
#define CFG_INTERVAL_MIN (100 * UINT64_C(1000000))
#define CFG_INTERVAL_MAX (3600 * UINT64_C(1000000000))
int cfg_opt_secret(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   size_t j, char **out);
int cfg_want_name(struct ytree_ctx *x, const struct ytree_node *n);
int cfg_split_hostport(const char *s, bool any_host, unsigned min_port,
		       char **host, char **port);
int cfg_parse_port(const char *s, unsigned min, unsigned *port);
bool cfg_has_space(const char *s);
size_t cfg_later(const struct ytree_fields *f, size_t i, size_t j);
void cfg_free_secret(char *s);

#endif
