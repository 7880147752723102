/*
 * gnmi_cfg: the gNMI collector's configuration: the top-level gnmi:
 * section (struct cfg_gnmi_collector) and each target's gnmi: block
 * (struct cfg_gnmi), parsed by the hooks of gnmi_cfg_section in the
 * same load as the rest of fabmon.yaml (core/cfg.h), and the one
 * subscription parser that the config and the mapping profiles share.
 *
 * The structs belong to the struct cfg they came from (read them with
 * gnmi_cfg_of() and gnmi_cfg_collector()); a collector that keeps a
 * target's settings past a reload takes a copy (cfg_gnmi_dup()).
 */
#ifndef FABMON_GNMI_CFG_H
#define FABMON_GNMI_CFG_H

#include "cfg.h"
#include "ytree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest TLS file (ca, cert, key) and profile file read. */
#define GNMI_PEM_MAX_BYTES     (1024 * 1024)
#define GNMI_PROFILE_MAX_BYTES (256 * 1024)

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

/* The gNMI collector as a whole (top-level "gnmi:" section). */
struct cfg_gnmi_collector {
	unsigned threads;	 /* completion-queue threads (2) */
	unsigned max_connecting; /* connection attempts at once (32) */
	uint64_t max_message;	 /* largest message accepted, bytes */
};

/* The gnmi: hooks (top-level section and target block). */
extern const struct cfg_section_ops gnmi_cfg_section;

/* t's gnmi: block, or NULL. Borrowed from t. */
struct cfg_gnmi *gnmi_cfg_of(const struct cfg_target *t);
/* c's gnmi: section (every default if absent). Borrowed from c. */
struct cfg_gnmi_collector *gnmi_cfg_collector(const struct cfg *c);

/*
 * Parses one subscription (path, origin, target, mode, sample_interval,
 * heartbeat_interval, suppress_redundant) from mapping n into *s, with
 * x's path at n; every is the default sample interval (0: the
 * target's choice). The path must be a valid gNMI path (gnmi_path_parse),
 * else the error names its file:line:col. On error *s may hold strings:
 * free them with gnmi_cfg_sub_clear(). 0 or -EINVAL.
 */
int gnmi_cfg_parse_sub(struct ytree_ctx *x, const struct ytree_node *n,
		       uint64_t every, struct cfg_gnmi_sub *s);
/* Frees the strings of s and zeroes it. */
void gnmi_cfg_sub_clear(struct cfg_gnmi_sub *s);

/* A deep copy of g (secrets included); free with cfg_gnmi_free(). */
struct cfg_gnmi *cfg_gnmi_dup(const struct cfg_gnmi *g);
/* Frees g (NULL is a no-op); its secrets are zeroed first. */
void cfg_gnmi_free(struct cfg_gnmi *g);
/* True if a and b configure the same session (NULLs compare equal). */
bool cfg_gnmi_equal(const struct cfg_gnmi *a, const struct cfg_gnmi *b);

#endif
