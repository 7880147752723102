/*
 * snmp_keys: a poller's cache of SNMPv3 localisable keys (Ku), one per
 * (auth protocol, password). generate_Ku() hashes 1 MiB of the password
 * (about 4 ms), and a fabric shares a few passwords among many targets,
 * so each is derived once and reused by every session that needs it.
 *
 * Bounded: at most the capacity given to snmp_keys_new(); a miss when
 * full evicts the least recently used entry (a fabric with more
 * passwords than that only derives some twice). The entries (keys and
 * the password copies they are matched by) live inline in the cache,
 * and are wiped with explicit_bzero() when evicted, cleared or freed.
 *
 * Threads: none of its own and no lock. A cache belongs to one poller
 * and only that poller's loop thread may call it (the loop is the only
 * thread that opens sessions); snmp_keys_new() and snmp_keys_free() run
 * before the loop starts and after it is joined.
 */
#ifndef FABMON_SNMP_KEYS_H
#define FABMON_SNMP_KEYS_H

#include "cfg.h"
#include "snmp_cfg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The entries a poller's cache holds. */
#define SNMP_KEYS_DEFAULT_CAP 32
/* Longest password kept in the cache (bytes); a longer one is derived
 * on every use. */
#define SNMP_KEYS_PASS_MAX 255
/* Room for the longest Ku (SHA-512). */
#define SNMP_KEYS_KU_MAX 64

struct snmp_keys;

/* An empty cache of at most cap (>= 1) entries. Never NULL. */
struct snmp_keys *snmp_keys_new(size_t cap);
/* Wipes every entry and frees the cache; NULL is a no-op. */
void snmp_keys_free(struct snmp_keys *c);

/*
 * Copies the Ku of pass under auth (CFG_SNMP_AUTH_NONE: SHA-1, as for
 * a privacy password without auth) into ku (room for SNMP_KEYS_KU_MAX
 * bytes) and its length into *len, deriving and caching it on a miss.
 * 0, or -EINVAL with a message in err when the key cannot be derived
 * (a password shorter than 8 characters).
 */
int snmp_keys_get(struct snmp_keys *c, enum cfg_snmp_auth auth,
		  const char *pass, uint8_t *ku, size_t *len, char *err,
		  size_t errlen);

/* Entries held now. */
size_t snmp_keys_count(const struct snmp_keys *c);
/* True if (auth, pass) is cached (no use recorded): for tests. */
bool snmp_keys_has(const struct snmp_keys *c, enum cfg_snmp_auth auth,
		   const char *pass);
/* Wipes and drops every entry. */
void snmp_keys_clear(struct snmp_keys *c);
/* True if every byte of the entry storage is zero (after
 * snmp_keys_clear(), or of slots never used): for tests. */
bool snmp_keys_wiped(const struct snmp_keys *c);

#endif
