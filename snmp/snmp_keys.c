/*
 * snmp_keys: the SNMPv3 Ku cache (see snmp_keys.h).
 *
 * A fixed array of cap entries allocated with the cache; each entry
 * holds its password inline, so wiping an entry is one explicit_bzero()
 * and nothing secret is left in freed heap blocks. Lookups are linear:
 * the cache holds a few dozen entries and is read when a session opens
 * (once per target, again after an engine rediscovery), never per PDU.
 * Recency is a counter stamped on each hit.
 */
#include "config.h"

#include "snmp_keys.h"

#include "mem.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SNMP_KEYS_KU_MAX >= USM_AUTH_KU_LEN &&
		   SNMP_KEYS_KU_MAX >= USM_PRIV_KU_LEN,
	       "SNMP_KEYS_KU_MAX holds any Ku");

struct snmp_key {
	uint64_t used; /* 0: a free slot */
	enum cfg_snmp_auth auth;
	size_t len;
	uint8_t ku[SNMP_KEYS_KU_MAX];
	char pass[SNMP_KEYS_PASS_MAX + 1];
};

struct snmp_keys {
	size_t cap, n;
	uint64_t clock;
	struct snmp_key v[];
};

#define OLEN(a) (sizeof(a) / sizeof((a)[0]))

struct snmp_keys *snmp_keys_new(size_t cap)
{
	if (cap < 1)
		cap = 1;
	struct snmp_keys *c =
	    xcalloc(1, sizeof *c + cap * sizeof(struct snmp_key));
	c->cap = cap;
	return c;
}

void snmp_keys_clear(struct snmp_keys *c)
{
	explicit_bzero(c->v, c->cap * sizeof *c->v);
	c->n = 0;
}

void snmp_keys_free(struct snmp_keys *c)
{
	if (!c)
		return;
	snmp_keys_clear(c);
	free(c);
}

static struct snmp_key *find(const struct snmp_keys *c, enum cfg_snmp_auth auth,
			     const char *pass)
{
	for (size_t i = 0; i < c->cap; i++) {
		const struct snmp_key *k = &c->v[i];
		if (k->used && k->auth == auth && strcmp(k->pass, pass) == 0)
			return (struct snmp_key *)k;
	}
	return NULL;
}

/* A free slot, or the least recently used one wiped. */
static struct snmp_key *take_slot(struct snmp_keys *c)
{
	struct snmp_key *old = &c->v[0];
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->v[i].used) {
			c->n++;
			return &c->v[i];
		}
		if (c->v[i].used < old->used)
			old = &c->v[i];
	}
	explicit_bzero(old, sizeof *old);
	return old;
}

static int derive(enum cfg_snmp_auth auth, const char *pass, uint8_t *ku,
		  size_t *len)
{
	const oid *proto;
	size_t plen;
	switch (auth) {
	case CFG_SNMP_AUTH_SHA256:
		proto = usmHMAC192SHA256AuthProtocol;
		plen = OLEN(usmHMAC192SHA256AuthProtocol);
		break;
	case CFG_SNMP_AUTH_SHA512:
		proto = usmHMAC384SHA512AuthProtocol;
		plen = OLEN(usmHMAC384SHA512AuthProtocol);
		break;
	default:
		proto = usmHMACSHA1AuthProtocol;
		plen = OLEN(usmHMACSHA1AuthProtocol);
		break;
	}
	*len = SNMP_KEYS_KU_MAX;
	return generate_Ku(proto, (u_int)plen, (const u_char *)pass,
			   strlen(pass), ku, len) == SNMPERR_SUCCESS
		   ? 0
		   : -EINVAL;
}

int snmp_keys_get(struct snmp_keys *c, enum cfg_snmp_auth auth,
		  const char *pass, uint8_t *ku, size_t *len, char *err,
		  size_t errlen)
{
	struct snmp_key *k = find(c, auth, pass);
	if (!k) {
		uint8_t fresh[SNMP_KEYS_KU_MAX];
		size_t n;
		if (derive(auth, pass, fresh, &n) < 0) {
			explicit_bzero(fresh, sizeof fresh);
			snprintf(err, errlen,
				 "cannot derive a key from the password (at "
				 "least 8 characters)");
			return -EINVAL;
		}
		if (strlen(pass) > SNMP_KEYS_PASS_MAX) {
			memcpy(ku, fresh, n);
			*len = n;
			explicit_bzero(fresh, sizeof fresh);
			return 0;
		}
		k = take_slot(c);
		k->auth = auth;
		k->len = n;
		memcpy(k->ku, fresh, n);
		explicit_bzero(fresh, sizeof fresh);
		strcpy(k->pass, pass);
	}
	k->used = ++c->clock;
	memcpy(ku, k->ku, k->len);
	*len = k->len;
	return 0;
}

size_t snmp_keys_count(const struct snmp_keys *c)
{
	return c->n;
}

bool snmp_keys_has(const struct snmp_keys *c, enum cfg_snmp_auth auth,
		   const char *pass)
{
	return find(c, auth, pass) != NULL;
}

bool snmp_keys_wiped(const struct snmp_keys *c)
{
	const unsigned char *b = (const unsigned char *)c->v;
	for (size_t i = 0; i < c->cap * sizeof *c->v; i++)
		if (b[i])
			return false;
	return true;
}
