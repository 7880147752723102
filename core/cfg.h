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
 * The gnmi, snmp, nic and rules sections are described here so that a
 * config is validated whole, before any collector starts.
 */
#ifndef FABMON_CFG_H
#define FABMON_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFG_MAX_FILE_BYTES (16 * 1024 * 1024)
#define CFG_MAX_DEPTH	   32
#define CFG_DEFAULT_PORT   FABMON_DEFAULT_PORT

struct cfg_listen {
	char *host; /* "127.0.0.1", "::1", "" for any */
	char *port; /* decimal, "0" lets the kernel choose */
};

enum cfg_gnmi_mode { CFG_GNMI_STREAM, CFG_GNMI_ONCE, CFG_GNMI_POLL };
enum cfg_gnmi_encoding {
	CFG_GNMI_ENC_AUTO = -1,
	CFG_GNMI_ENC_JSON = 0,
	CFG_GNMI_ENC_PROTO = 2,
	CFG_GNMI_ENC_JSON_IETF = 4,
};
enum cfg_sub_mode {
	CFG_SUB_TARGET_DEFINED = 0,
	CFG_SUB_ON_CHANGE = 1,
	CFG_SUB_SAMPLE = 2,
};

struct cfg_gnmi_sub {
	char *path;   /* gNMI path syntax, e.g. /interfaces/interface[name=*] */
	char *origin; /* NULL if unset */
	/* The prefix target of the Subscribe that carries it (NULL: the
	 * target's). Another one than the target's own goes on a second
	 * Subscribe RPC: sonic-gnmi serves one database per request. */
	char *target;
	enum cfg_sub_mode mode;
	uint64_t sample_interval_ns;	/* 0: the target's choice; default:
					   the gnmi or global interval */
	uint64_t heartbeat_interval_ns; /* 0: none */
	bool suppress_redundant;
};

struct cfg_gnmi {
	char *address; /* host:port or unix:/path */
	bool insecure; /* plaintext */
	bool skip_verify;
	char *ca, *cert, *key; /* file paths, NULL if unset */
	char *server_name;
	char *username;
	char *password; /* from password or password_file; never logged */
	enum cfg_gnmi_mode mode;
	uint64_t interval_ns;	   /* default sample interval of this target's
				      subscriptions; 0: the global interval */
	uint64_t poll_interval_ns; /* mode poll only (else 0); default:
				      interval_ns, else the global one */
	enum cfg_gnmi_encoding encoding;
	char *target;  /* prefix target, e.g. COUNTERS_DB; NULL if unset */
	char *profile; /* mapping profile name; NULL: chosen by the collector */
	bool updates_only;
	struct cfg_gnmi_sub *subs;
	size_t n_subs;
};

enum cfg_snmp_auth {
	CFG_SNMP_AUTH_NONE,
	CFG_SNMP_AUTH_SHA,
	CFG_SNMP_AUTH_SHA256,
	CFG_SNMP_AUTH_SHA512
};
enum cfg_snmp_priv {
	CFG_SNMP_PRIV_NONE,
	CFG_SNMP_PRIV_AES,
	CFG_SNMP_PRIV_AES256
};

struct cfg_snmp {
	char *address;	 /* host[:port], udp:/udp6: prefixes allowed */
	int version;	 /* 2 (2c) or 3 */
	char *community; /* v2c; from community or community_file */
	char *user;	 /* v3 */
	enum cfg_snmp_auth auth;
	char *auth_key; /* from auth_key or auth_key_file */
	enum cfg_snmp_priv priv;
	char *priv_key;
	uint64_t interval_ns; /* 0: the global interval */
	uint64_t timeout_ns;
	unsigned retries;
	unsigned max_repetitions;
	char *profile;
};

struct cfg_target {
	char *name;	       /* unique; the device label of its series */
	struct cfg_gnmi *gnmi; /* NULL if absent */
	struct cfg_snmp *snmp; /* NULL if absent */
};

/* One host of the nic section's list form (simulation, tests): a
 * device label with its own sysfs tree and ethtool files. */
struct cfg_nic_host {
	char *device;	   /* device label; unique in the list */
	char *sysfs_root;  /* required */
	char *ethtool_dir; /* NULL: the SIOCETHTOOL ioctl */
};

/*
 * The NIC collector. Either the single-host form (device, sysfs_root,
 * ethtool_dir: this machine) or the list form (hosts: each a device
 * with its own trees, as fabsim writes them); a hosts list turns the
 * collector on unless enabled is false, and the single-host keys are
 * errors next to it.
 */
struct cfg_nic {
	bool enabled;
	char *device;	      /* device label (default: the host name) */
	char *sysfs_root;     /* default "/sys" */
	char *ethtool_dir;    /* plain-file ethtool stats (tests, fabsim); NULL:
				 ioctl */
	uint64_t interval_ns; /* 0: the global interval */
	struct cfg_nic_host *hosts; /* list form; NULL with n_hosts 0 */
	size_t n_hosts;
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
	uint64_t incast_for_ns;
	uint64_t drop_for_ns;
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

/* Alertmanager push (alertmanager: section; exporters/alert.h). */
struct cfg_alert {
	char *url;	     /* base URL (http or https); NULL: no push */
	uint64_t resend_ns;  /* re-send firing alerts this often (1m) */
	uint64_t timeout_ns; /* one POST (10s) */
	unsigned max_alerts; /* alerts tracked at once (10000) */
	char **label_names;  /* static labels added to every alert */
	char **label_values;
	size_t n_labels;
};

/* The validation report's history (report: section; rules/report.h). */
struct cfg_report {
	uint64_t window_ns;   /* kept (24h) */
	uint64_t step_ns;     /* bucket width (1m) */
	uint64_t max_records; /* per-(port, priority) records (1Mi) */
	unsigned max_incidents;
};

/* The gNMI collector as a whole (top-level "gnmi:" section). */
struct cfg_gnmi_collector {
	unsigned threads;	 /* completion-queue threads (2) */
	unsigned max_connecting; /* connection attempts at once (32) */
	uint64_t max_message;	 /* largest message accepted, bytes */
};

struct cfg {
	char *path; /* the file this came from; NULL from cfg_default() */
	struct cfg_listen *listen;
	size_t n_listen;
	unsigned http_threads;
	unsigned http_max_connections;
	uint64_t interval_ns;  /* default sample interval */
	uint8_t lossless_mask; /* bit p set: priority p is lossless */
	int log_level;	       /* enum log_level; -1 if unset */
	char **log_debug;      /* subsystem tokens */
	size_t n_log_debug;
	unsigned store_ring; /* rates kept per series */
	unsigned store_stale_intervals;
	struct cfg_target *targets;
	size_t n_targets;
	struct cfg_nic nic;
	struct cfg_rules rules;
	struct cfg_topology topology;
	struct cfg_gnmi_collector gnmi;
	struct cfg_alert alert;
	struct cfg_report report;
	char *profiles_dir; /* where profile files are looked up */
};

/*
 * Loads and validates path. On success returns the config (free with
 * cfg_free); on failure returns NULL and writes one line "file:line:col:
 * key: message" (or "file: message" when there is no position) into err.
 */
struct cfg *cfg_load(const char *path, char *err, size_t errlen);
/* The same from a buffer; name is used in messages and as cfg->path.
 * *_file keys are resolved relative to the current directory. */
struct cfg *cfg_load_buffer(const char *name, const char *buf, size_t len,
			    char *err, size_t errlen);
void cfg_free(struct cfg *c);

/* A config with every default and no targets (used without -c). */
struct cfg *cfg_default(void);

/* A deep copy of g (secrets included); free with cfg_gnmi_free(). */
struct cfg_gnmi *cfg_gnmi_dup(const struct cfg_gnmi *g);
void cfg_gnmi_free(struct cfg_gnmi *g);
/* True if a and b configure the same session (NULLs compare equal). */
bool cfg_gnmi_equal(const struct cfg_gnmi *a, const struct cfg_gnmi *b);

/* The target named name, or NULL. */
const struct cfg_target *cfg_find_target(const struct cfg *c, const char *name);

#endif
