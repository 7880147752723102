/*
 * strmap: string -> size_t map (see strmap.h).
 *
 * Open addressing with linear probing over a power-of-two table kept at
 * most 3/4 full; each slot keeps its key's hash, so probing compares
 * strings only on a full hash match and growing does not rehash them.
 */
#include "config.h"

#include "strmap.h"

#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	const char *key; /* NULL: empty */
	uint64_t hash;
	size_t val;
};

struct strmap {
	struct slot *slots;
	size_t cap, used; /* cap: a power of two */
};

uint64_t strmap_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

struct strmap *strmap_new(size_t hint)
{
	struct strmap *m = xcalloc(1, sizeof *m);
	size_t cap = 16;
	while (cap / 4 * 3 < hint && cap < SIZE_MAX / 4)
		cap *= 2;
	m->slots = xcalloc(cap, sizeof *m->slots);
	m->cap = cap;
	return m;
}

void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

/* The slot of key, or the empty slot where it would go. */
static struct slot *find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct slot *s = &m->slots[i];
		if (!s->key || (s->hash == h && strcmp(s->key, key) == 0))
			return s;
	}
}

static void grow(struct strmap *m)
{
	struct strmap n = { .cap = m->cap * 2 };
	n.slots = xcalloc(n.cap, sizeof *n.slots);
	for (size_t i = 0; i < m->cap; i++) {
		const struct slot *s = &m->slots[i];
		if (!s->key)
			continue;
		size_t mask = n.cap - 1, k = s->hash & mask;
		while (n.slots[k].key)
			k = (k + 1) & mask;
		n.slots[k] = *s;
	}
	free(m->slots);
	m->slots = n.slots;
	m->cap = n.cap;
}

bool strmap_add(struct strmap *m, const char *key, size_t val, size_t *old)
{
	uint64_t h = strmap_hash(key);
	struct slot *s = find(m, key, h);
	if (s->key) {
		if (old)
			*old = s->val;
		return false;
	}
	if ((m->used + 1) > m->cap / 4 * 3) {
		grow(m);
		s = find(m, key, h);
	}
	s->key = key;
	s->hash = h;
	s->val = val;
	m->used++;
	return true;
}

bool strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	const struct slot *s = find(m, key, strmap_hash(key));
	if (!s->key)
		return false;
	if (val)
		*val = s->val;
	return true;
}

size_t strmap_count(const struct strmap *m)
{
	return m->used;
}
