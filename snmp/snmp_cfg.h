/*
 * snmp_cfg: each target's snmp: block of fabmon.yaml (struct cfg_snmp),
 * parsed by the hooks of snmp_cfg_section in the same load as the rest
 * of the file (core/cfg.h). The struct belongs to the struct cfg it
 * came from; read it with snmp_cfg_of(). Secrets (community, keys) are
 * never logged.
 */
#ifndef FABMON_SNMP_CFG_H
#define FABMON_SNMP_CFG_H

#include "cfg.h"

#include <stdint.h>

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

/* The snmp: hooks (a target block only). */
extern const struct cfg_section_ops snmp_cfg_section;

/* t's snmp: block, or NULL. Borrowed from t. */
struct cfg_snmp *snmp_cfg_of(const struct cfg_target *t);

#endif
