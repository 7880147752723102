/*
 * links: the link table (the contract is in links.h).
 *
 * State under one mutex: the static links and rails (copied from the
 * config), the LLDP entries keyed by their local endpoint, the NIC MACs,
 * and the effective map endpoint -> peer endpoint that answers lookups.
 * Endpoints are kept as one string "device\x1fport" (0x1f cannot appear
 * in a name the config or a collector accepts as a label), hashed in
 * small open-addressing maps with backward-shift deletion.
 *
 * The effective map is rebuilt whenever an input changed in a way that
 * may change it (a new or different LLDP entry, an expiry, a new MAC, a
 * new static set): static links first, then every LLDP entry whose ends
 * are both free. Its fingerprint (a sum of per-link hashes, so order
 * does not matter) decides whether the generation moves. An LLDP
 * refresh that repeats the last report only updates its time.
 */
#include "config.h"

#include "links.h"

#include "cfg.h"
#include "mem.h"
#include "strmap.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINKS_SEP '\x1f'

/* A string -> index map; keys are borrowed from the owner's entries. */
struct smap {
	const char **keys;
	size_t *vals;
	size_t cap, used; /* cap: power of two or 0 */
};

static void smap_free(struct smap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static void smap_clear(struct smap *m)
{
	if (m->cap)
		memset(m->keys, 0, m->cap * sizeof *m->keys);
	m->used = 0;
}

static bool smap_find(const struct smap *m, const char *key, size_t *val)
{
	if (!m->cap)
		return false;
	size_t mask = m->cap - 1;
	for (size_t i = strmap_hash(key) & mask; m->keys[i]; i = (i + 1) & mask)
		if (strcmp(m->keys[i], key) == 0) {
			if (val)
				*val = m->vals[i];
			return true;
		}
	return false;
}

static void smap_put(struct smap *m, const char *key, size_t val);

static void smap_grow(struct smap *m)
{
	struct smap n = { 0 };
	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = xcalloc(n.cap, sizeof *n.keys);
	n.vals = xcalloc(n.cap, sizeof *n.vals);
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			smap_put(&n, m->keys[i], m->vals[i]);
	smap_free(m);
	*m = n;
}

/* Inserts or replaces key (borrowed: it must outlive its entry). */
static void smap_put(struct smap *m, const char *key, size_t val)
{
	if ((m->used + 1) * 4 > m->cap * 3)
		smap_grow(m);
	size_t mask = m->cap - 1;
	size_t i = strmap_hash(key) & mask;
	for (; m->keys[i]; i = (i + 1) & mask)
		if (strcmp(m->keys[i], key) == 0)
			break;
	if (!m->keys[i])
		m->used++;
	m->keys[i] = key;
	m->vals[i] = val;
}

/*
 * Room for one more entry in an array of n (of *cap) entries of size
 * bytes, indexed by idx on the string at key_off in each: when full,
 * the array doubles (64 at first) and idx is rebuilt, its keys being
 * borrowed from the entries. Returns the array, moved or not.
 */
static void *entries_room(void *arr, size_t n, size_t *cap, size_t size,
			  size_t key_off, struct smap *idx)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 64;
	arr = xreallocarray(arr, *cap, size);
	smap_clear(idx);
	for (size_t k = 0; k < n; k++) {
		const char *key;
		memcpy(&key, (char *)arr + k * size + key_off, sizeof key);
		smap_put(idx, key, k);
	}
	return arr;
}

static void smap_del(struct smap *m, const char *key)
{
	if (!m->cap)
		return;
	size_t mask = m->cap - 1;
	size_t i = strmap_hash(key) & mask;
	for (; m->keys[i]; i = (i + 1) & mask)
		if (strcmp(m->keys[i], key) == 0)
			break;
	if (!m->keys[i])
		return;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->keys[j])
			break;
		size_t home = strmap_hash(m->keys[j]) & mask;
		bool movable =
		    j > i ? (home <= i || home > j) : (home <= i && home > j);
		if (movable) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = NULL;
	m->used--;
}

struct lldp_ent {
	char *local;   /* endpoint key */
	char *sysname; /* neighbour's system name */
	char *port_id;
	char *desc;
	char *source;
	int subtype;
	int64_t seen_ns;
};

struct static_link {
	char *a, *b; /* endpoint keys */
};

struct mac_ent {
	char *mac; /* 12 lowercase hex digits */
	char *endpoint;
};

/* One effective link, for the map and snapshots. */
struct eff_link {
	char *a, *b; /* owned copies */
	enum links_source source;
	size_t lldp; /* index into lldp for LLDP links */
};

struct links {
	pthread_mutex_t lock;
	int64_t (*mono_ns)(void *ctx);
	void *clock_ctx;

	struct static_link *statics;
	size_t n_statics;
	struct links_rail *rails;
	size_t n_rails;

	struct lldp_ent *lldp;
	size_t n_lldp, cap_lldp;
	struct smap lldp_idx; /* local endpoint -> lldp index */

	struct mac_ent *macs;
	size_t n_macs, cap_macs;
	struct smap mac_idx; /* mac -> macs index */

	struct eff_link *eff;
	size_t n_eff, cap_eff;
	struct smap peer; /* endpoint -> eff index (both ends) */

	uint64_t fingerprint;
	uint64_t generation;
	bool dirty; /* an input changed since the last rebuild */
};

static int64_t default_mono(void *ctx)
{
	(void)ctx;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static char *make_key(const char *dev, const char *port)
{
	return xasprintf("%s%c%s", dev, LINKS_SEP, port);
}

/* Splits key into its device and port into the buffers. */
static void split_key(const char *key, char *dev, size_t dlen, char *port,
		      size_t plen)
{
	const char *sep = strchr(key, LINKS_SEP);
	size_t n = sep ? (size_t)(sep - key) : strlen(key);
	if (dlen) {
		size_t k = n < dlen - 1 ? n : dlen - 1;
		memcpy(dev, key, k);
		dev[k] = '\0';
	}
	if (plen)
		snprintf(port, plen, "%s", sep ? sep + 1 : "");
}

static char *key_dup_part(const char *key, bool port)
{
	const char *sep = strchr(key, LINKS_SEP);
	if (!sep)
		return xstrdup(port ? "" : key);
	return port ? xstrdup(sep + 1) : xstrndup(key, (size_t)(sep - key));
}

/* "02:1A-2b..." -> 12 lowercase hex digits; false if malformed. */
static bool norm_mac(const char *s, char out[13])
{
	size_t k = 0;
	for (; *s; s++) {
		if (*s == ':' || *s == '-' || *s == '.')
			continue;
		if (!isxdigit((unsigned char)*s) || k == 12)
			return false;
		out[k++] = (char)tolower((unsigned char)*s);
	}
	out[k] = '\0';
	return k == 12;
}

struct links *links_new(int64_t (*mono_ns)(void *ctx), void *ctx)
{
	struct links *l = xcalloc(1, sizeof *l);
	pthread_mutex_init(&l->lock, NULL);
	l->mono_ns = mono_ns ? mono_ns : default_mono;
	l->clock_ctx = ctx;
	l->generation = 1;
	return l;
}

static void free_rails(struct links_rail *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < r[i].n_leaves; k++)
			free(r[i].leaves[k]);
		for (size_t k = 0; k < r[i].n_nics; k++)
			free(r[i].nics[k]);
		free(r[i].leaves);
		free(r[i].nics);
	}
	free(r);
}

static void free_statics(struct links *l)
{
	for (size_t i = 0; i < l->n_statics; i++) {
		free(l->statics[i].a);
		free(l->statics[i].b);
	}
	free(l->statics);
	l->statics = NULL;
	l->n_statics = 0;
	free_rails(l->rails, l->n_rails);
	l->rails = NULL;
	l->n_rails = 0;
}

static void lldp_ent_free(struct lldp_ent *e)
{
	free(e->local);
	free(e->sysname);
	free(e->port_id);
	free(e->desc);
	free(e->source);
}

static void clear_eff(struct links *l)
{
	for (size_t i = 0; i < l->n_eff; i++) {
		free(l->eff[i].a);
		free(l->eff[i].b);
	}
	l->n_eff = 0;
	smap_clear(&l->peer);
}

void links_free(struct links *l)
{
	if (!l)
		return;
	free_statics(l);
	for (size_t i = 0; i < l->n_lldp; i++)
		lldp_ent_free(&l->lldp[i]);
	free(l->lldp);
	for (size_t i = 0; i < l->n_macs; i++) {
		free(l->macs[i].mac);
		free(l->macs[i].endpoint);
	}
	free(l->macs);
	clear_eff(l);
	free(l->eff);
	smap_free(&l->lldp_idx);
	smap_free(&l->mac_idx);
	smap_free(&l->peer);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* The endpoint key an LLDP entry's neighbour resolves to (new string),
 * or NULL while it cannot be resolved. */
static char *lldp_remote(const struct links *l, const struct lldp_ent *e)
{
	if (e->subtype == LINKS_LLDP_PORT_MAC) {
		char mac[13];
		size_t i;
		if (norm_mac(e->port_id, mac) &&
		    smap_find(&l->mac_idx, mac, &i))
			return xstrdup(l->macs[i].endpoint);
		return NULL;
	}
	return make_key(e->sysname, e->port_id);
}

static uint64_t link_hash(const char *a, const char *b)
{
	/* Symmetric in a and b: a link is the same from either end. */
	return strmap_hash(a) * 0x9e3779b97f4a7c15ull ^
	       strmap_hash(b) * 0x9e3779b97f4a7c15ull;
}

static void add_eff(struct links *l, char *a, char *b, enum links_source src,
		    size_t lldp)
{
	if (l->n_eff == l->cap_eff) {
		l->cap_eff = l->cap_eff ? l->cap_eff * 2 : 64;
		l->eff = xreallocarray(l->eff, l->cap_eff, sizeof *l->eff);
	}
	struct eff_link *e = &l->eff[l->n_eff];
	e->a = a;
	e->b = b;
	e->source = src;
	e->lldp = lldp;
	smap_put(&l->peer, e->a, l->n_eff);
	smap_put(&l->peer, e->b, l->n_eff);
	l->n_eff++;
}

/* Rebuilds the effective map; bumps the generation if it changed. */
static void rebuild(struct links *l)
{
	uint64_t fp = 0;
	l->dirty = false;
	clear_eff(l);
	for (size_t i = 0; i < l->n_statics; i++) {
		add_eff(l, xstrdup(l->statics[i].a), xstrdup(l->statics[i].b),
			LINKS_SRC_STATIC, 0);
		fp += link_hash(l->statics[i].a, l->statics[i].b);
	}
	for (size_t i = 0; i < l->n_lldp; i++) {
		const struct lldp_ent *e = &l->lldp[i];
		char *b = lldp_remote(l, e);
		if (!b)
			continue;
		if (smap_find(&l->peer, e->local, NULL) ||
		    smap_find(&l->peer, b, NULL) || strcmp(e->local, b) == 0) {
			free(b);
			continue;
		}
		fp += link_hash(e->local, b) ^ 0x5bd1e995;
		add_eff(l, xstrdup(e->local), b, LINKS_SRC_LLDP, i);
	}
	for (size_t i = 0; i < l->n_rails; i++)
		for (size_t k = 0; k < l->rails[i].n_leaves; k++)
			fp += strmap_hash(l->rails[i].leaves[k]) * (i + 7);
	if (fp != l->fingerprint) {
		l->fingerprint = fp;
		l->generation++;
	}
}

/* Brings the effective map up to date (lock held). Rebuilding lazily,
 * at the next read, keeps a burst of N reports O(N) instead of O(N^2). */
static void refresh(struct links *l)
{
	if (l->dirty)
		rebuild(l);
}

static char **dup_names(char *const *v, size_t n)
{
	char **out = xcalloc(n ? n : 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

void links_set_static(struct links *l, const struct cfg_topology *t)
{
	pthread_mutex_lock(&l->lock);
	free_statics(l);
	if (t && t->n_links) {
		l->statics = xcalloc(t->n_links, sizeof *l->statics);
		for (size_t i = 0; i < t->n_links; i++) {
			const struct cfg_link *c = &t->links[i];
			l->statics[i].a = make_key(c->a_device, c->a_port);
			l->statics[i].b = make_key(c->b_device, c->b_port);
		}
		l->n_statics = t->n_links;
	}
	if (t && t->n_rails) {
		l->rails = xcalloc(t->n_rails, sizeof *l->rails);
		for (size_t i = 0; i < t->n_rails; i++) {
			const struct cfg_rail *c = &t->rails[i];
			l->rails[i].leaves = dup_names(c->leaves, c->n_leaves);
			l->rails[i].n_leaves = c->n_leaves;
			l->rails[i].nics = dup_names(c->nics, c->n_nics);
			l->rails[i].n_nics = c->n_nics;
		}
		l->n_rails = t->n_rails;
	}
	l->dirty = true;
	pthread_mutex_unlock(&l->lock);
}

static bool str_same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool has_sep(const char *s)
{
	return strchr(s, LINKS_SEP) != NULL;
}

int links_report_lldp(struct links *l, const char *local_device,
		      const char *local_port, const char *remote_sysname,
		      const char *remote_port_id, int port_id_subtype,
		      const char *remote_port_desc, const char *source,
		      int64_t now_ns)
{
	if (!local_device || !local_port || !remote_sysname ||
	    !remote_port_id || !*local_device || !*local_port ||
	    !*remote_sysname || !*remote_port_id || has_sep(local_device) ||
	    has_sep(local_port) || has_sep(remote_sysname) ||
	    has_sep(remote_port_id))
		return -EINVAL;
	if (now_ns == 0)
		now_ns = l->mono_ns(l->clock_ctx);
	char *key = make_key(local_device, local_port);
	const char *desc = remote_port_desc ? remote_port_desc : "";
	const char *src = source ? source : "";
	size_t i;

	pthread_mutex_lock(&l->lock);
	if (smap_find(&l->lldp_idx, key, &i)) {
		struct lldp_ent *e = &l->lldp[i];
		e->seen_ns = now_ns;
		bool same = e->subtype == port_id_subtype &&
			    str_same(e->sysname, remote_sysname) &&
			    str_same(e->port_id, remote_port_id);
		if (!str_same(e->desc, desc)) {
			free(e->desc);
			e->desc = xstrdup(desc);
		}
		if (!str_same(e->source, src)) {
			free(e->source);
			e->source = xstrdup(src);
		}
		if (!same) {
			free(e->sysname);
			free(e->port_id);
			e->sysname = xstrdup(remote_sysname);
			e->port_id = xstrdup(remote_port_id);
			e->subtype = port_id_subtype;
			l->dirty = true;
		}
		free(key);
	} else {
		l->lldp = entries_room(
		    l->lldp, l->n_lldp, &l->cap_lldp, sizeof *l->lldp,
		    offsetof(struct lldp_ent, local), &l->lldp_idx);
		struct lldp_ent *e = &l->lldp[l->n_lldp];
		e->local = key;
		e->sysname = xstrdup(remote_sysname);
		e->port_id = xstrdup(remote_port_id);
		e->desc = xstrdup(desc);
		e->source = xstrdup(src);
		e->subtype = port_id_subtype;
		e->seen_ns = now_ns;
		smap_put(&l->lldp_idx, e->local, l->n_lldp);
		l->n_lldp++;
		l->dirty = true;
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

/* Removes LLDP entry i (lock held); the caller rebuilds. */
static void lldp_remove(struct links *l, size_t i)
{
	smap_del(&l->lldp_idx, l->lldp[i].local);
	lldp_ent_free(&l->lldp[i]);
	size_t last = l->n_lldp - 1;
	if (i != last) {
		l->lldp[i] = l->lldp[last];
		smap_put(&l->lldp_idx, l->lldp[i].local, i);
	}
	l->n_lldp--;
}

void links_forget_lldp(struct links *l, const char *local_device,
		       const char *local_port)
{
	char *key = make_key(local_device, local_port);
	size_t i;
	pthread_mutex_lock(&l->lock);
	if (smap_find(&l->lldp_idx, key, &i)) {
		lldp_remove(l, i);
		l->dirty = true;
	}
	pthread_mutex_unlock(&l->lock);
	free(key);
}

int links_set_nic_mac(struct links *l, const char *device, const char *port,
		      const char *mac)
{
	char m[13];
	if (!device || !port || !mac || !*device || !*port || has_sep(device) ||
	    has_sep(port) || !norm_mac(mac, m))
		return -EINVAL;
	char *ep = make_key(device, port);
	size_t i;
	pthread_mutex_lock(&l->lock);
	if (smap_find(&l->mac_idx, m, &i)) {
		if (strcmp(l->macs[i].endpoint, ep) == 0) {
			free(ep);
		} else {
			free(l->macs[i].endpoint);
			l->macs[i].endpoint = ep;
			l->dirty = true;
		}
	} else {
		l->macs = entries_room(
		    l->macs, l->n_macs, &l->cap_macs, sizeof *l->macs,
		    offsetof(struct mac_ent, mac), &l->mac_idx);
		l->macs[l->n_macs].mac = xstrdup(m);
		l->macs[l->n_macs].endpoint = ep;
		smap_put(&l->mac_idx, l->macs[l->n_macs].mac, l->n_macs);
		l->n_macs++;
		l->dirty = true;
	}
	pthread_mutex_unlock(&l->lock);
	return 0;
}

size_t links_expire(struct links *l, int64_t now_ns, int64_t ttl_ns)
{
	size_t dropped = 0;
	if (now_ns == 0)
		now_ns = l->mono_ns(l->clock_ctx);
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->n_lldp;) {
		if (now_ns - l->lldp[i].seen_ns >= ttl_ns) {
			lldp_remove(l, i);
			dropped++;
		} else {
			i++;
		}
	}
	if (dropped)
		l->dirty = true;
	pthread_mutex_unlock(&l->lock);
	return dropped;
}

bool links_peer(struct links *l, const char *device, const char *port,
		char *peer_device, size_t dlen, char *peer_port, size_t plen)
{
	char *key = make_key(device, port);
	size_t i;
	bool found = false;
	pthread_mutex_lock(&l->lock);
	refresh(l);
	if (smap_find(&l->peer, key, &i)) {
		const struct eff_link *e = &l->eff[i];
		const char *other = strcmp(e->a, key) == 0 ? e->b : e->a;
		split_key(other, peer_device, dlen, peer_port, plen);
		found = true;
	}
	pthread_mutex_unlock(&l->lock);
	free(key);
	return found;
}

uint64_t links_generation(struct links *l)
{
	pthread_mutex_lock(&l->lock);
	refresh(l);
	uint64_t g = l->generation;
	pthread_mutex_unlock(&l->lock);
	return g;
}

static void fill_entry(struct links_entry *o, const char *a, const char *b,
		       bool b_is_key)
{
	o->a_device = key_dup_part(a, false);
	o->a_port = key_dup_part(a, true);
	if (b_is_key) {
		o->b_device = key_dup_part(b, false);
		o->b_port = key_dup_part(b, true);
	}
}

void links_snapshot(struct links *l, struct links_snapshot *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&l->lock);
	refresh(l);
	int64_t now = l->mono_ns(l->clock_ctx);
	size_t cap = l->n_statics + l->n_lldp;
	out->links = xcalloc(cap ? cap : 1, sizeof *out->links);
	for (size_t i = 0; i < l->n_statics; i++) {
		struct links_entry *o = &out->links[out->n_links++];
		fill_entry(o, l->statics[i].a, l->statics[i].b, true);
		o->source = LINKS_SRC_STATIC;
		o->resolved = true;
	}
	/* LLDP: those in the effective map once, then the rest. */
	for (size_t i = 0; i < l->n_lldp; i++) {
		const struct lldp_ent *e = &l->lldp[i];
		char *b = lldp_remote(l, e);
		size_t k;
		bool effective = smap_find(&l->peer, e->local, &k) &&
				 l->eff[k].source == LINKS_SRC_LLDP &&
				 l->eff[k].lldp == i;
		bool mirrored = false;
		if (!effective && b && smap_find(&l->peer, e->local, &k) &&
		    l->eff[k].source == LINKS_SRC_LLDP) {
			/* The other end's report of the same link. */
			const struct eff_link *f = &l->eff[k];
			mirrored = (strcmp(f->a, b) == 0 &&
				    strcmp(f->b, e->local) == 0);
		}
		if (mirrored) {
			free(b);
			continue;
		}
		struct links_entry *o = &out->links[out->n_links++];
		fill_entry(o, e->local, b, b != NULL);
		if (!b) {
			o->b_device = xstrdup(e->sysname);
			o->b_port = xstrdup(e->port_id);
		}
		o->source = LINKS_SRC_LLDP;
		o->resolved = b != NULL;
		o->overridden = b != NULL && !effective;
		o->reporter = xstrdup(e->source);
		o->age_ns = now > e->seen_ns ? now - e->seen_ns : 0;
		free(b);
	}
	if (l->n_rails) {
		out->rails = xcalloc(l->n_rails, sizeof *out->rails);
		for (size_t i = 0; i < l->n_rails; i++) {
			const struct links_rail *r = &l->rails[i];
			out->rails[i].leaves =
			    dup_names(r->leaves, r->n_leaves);
			out->rails[i].n_leaves = r->n_leaves;
			out->rails[i].nics = dup_names(r->nics, r->n_nics);
			out->rails[i].n_nics = r->n_nics;
		}
		out->n_rails = l->n_rails;
	}
	out->generation = l->generation;
	pthread_mutex_unlock(&l->lock);
}

void links_snapshot_free(struct links_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_links; i++) {
		struct links_entry *e = &s->links[i];
		free(e->a_device);
		free(e->a_port);
		free(e->b_device);
		free(e->b_port);
		free(e->reporter);
	}
	free(s->links);
	free_rails(s->rails, s->n_rails);
	memset(s, 0, sizeof *s);
}
