/*
 * store_label: the counter store's interned label strings (see store.h
 * for the contract, store.c for the layout): ids from 1 in chunks that
 * never move, each string kept once in an arena with its Prometheus-
 * escaped copy, found through a linear-probing hash table. Everything
 * here runs under label_lock; readers of a published id take no lock.
 */
#include "config.h"

#include "store.h"
#include "store_int.h"

#include "mem.h"
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* Labels. */

static struct store_label_ent *store_label_ent(const struct store *st,
					       store_label id)
{
	uint32_t i = id - 1;
	return &st->label_chunks[i >> STORE_LABEL_SHIFT]
				[i & (STORE_LABEL_CHUNK - 1)];
}

/* Copies n bytes of s into the string arena (label_lock held). */
static char *store_arena_dup(struct store *st, const char *s, size_t n)
{
	char *p;
	if (n > STORE_ARENA_BLOCK / 4) {
		p = store_block_new(st, &st->arena, n, 1);
	} else {
		p = store_block_take(st, &st->arena, &st->arena_cur,
				     &st->arena_left, n, STORE_ARENA_BLOCK, 1);
	}
	memcpy(p, s, n);
	return p;
}

/* The Prometheus-escaped copy of s, or s itself (label_lock held). */
static const char *store_prom_escape(struct store *st, const char *s,
				     size_t len)
{
	size_t extra = 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\\' || s[i] == '"' || s[i] == '\n')
			extra++;
	if (!extra)
		return s;
	char *buf = xmalloc(len + extra + 1);
	char *o = buf;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '\\':
			*o++ = '\\';
			*o++ = '\\';
			break;
		case '"':
			*o++ = '\\';
			*o++ = '"';
			break;
		case '\n':
			*o++ = '\\';
			*o++ = 'n';
			break;
		default:
			*o++ = s[i];
		}
	}
	*o = '\0';
	char *p = store_arena_dup(st, buf, len + extra + 1);
	free(buf);
	return p;
}

store_label store_intern(struct store *st, const char *s)
{
	if (!s)
		return 0;
	uint32_t h = (uint32_t)strmap_hash(s);
	store_label id = 0;

	pthread_mutex_lock(&st->label_lock);
	size_t mask = st->lhash_cap - 1;
	for (size_t i = h & mask; st->lhash[i]; i = (i + 1) & mask) {
		uint64_t e = st->lhash[i];
		if ((uint32_t)(e >> 32) == h &&
		    strcmp(store_label_ent(st, (store_label)e)->str, s) == 0) {
			id = (store_label)e;
			goto out;
		}
	}
	uint32_t n = atomic_load_explicit(&st->nlabels, memory_order_relaxed);
	if (n >= STORE_MAX_LABELS)
		goto out;
	id = n + 1;
	uint32_t c = n >> STORE_LABEL_SHIFT;
	if (!st->label_chunks[c]) {
		st->label_chunks[c] =
		    xcalloc(STORE_LABEL_CHUNK, sizeof(struct store_label_ent));
		store_mem_add(st, STORE_LABEL_CHUNK *
				      sizeof(struct store_label_ent));
	}
	size_t len = strlen(s);
	struct store_label_ent *ent = store_label_ent(st, id);
	ent->str = store_arena_dup(st, s, len + 1);
	ent->prom = store_prom_escape(st, ent->str, len);
	if ((n + 1) * 4 > st->lhash_cap * 3)
		store_hash_grow(st, &st->lhash, &st->lhash_cap);
	store_hash_insert(st->lhash, st->lhash_cap, (uint64_t)h << 32 | id);
	/* Publishes the entry to lock-free store_label_str() callers. */
	atomic_store_explicit(&st->nlabels, id, memory_order_release);
out:
	pthread_mutex_unlock(&st->label_lock);
	return id;
}

const char *store_label_str(const struct store *st, store_label id)
{
	if (id == 0 ||
	    id > atomic_load_explicit(&st->nlabels, memory_order_acquire))
		return NULL;
	return store_label_ent(st, id)->str;
}

const char *store_label_prom(const struct store *st, store_label id)
{
	if (id == 0 ||
	    id > atomic_load_explicit(&st->nlabels, memory_order_acquire))
		return NULL;
	return store_label_ent(st, id)->prom;
}
