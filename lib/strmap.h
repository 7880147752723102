/*
 * strmap: a map from strings to size_t values (open addressing, linear
 * probing), for the loaders' uniqueness checks and name lookups that
 * must stay linear in the number of names (a topology of 100k links).
 *
 * Keys are borrowed: the caller keeps every key alive and unchanged for
 * as long as the map holds it. There is no deletion. Nothing is global;
 * a map belongs to one thread at a time (no locking).
 */
#ifndef FABMON_STRMAP_H
#define FABMON_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap;

/* A new empty map sized for about hint keys (0: grows from small).
 * Never NULL (allocations abort on OOM). */
/* The map's string hash: FNV-1a with a final mix, so that the low bits
 * index well (for other open-addressed tables keyed by strings too). */
uint64_t strmap_hash(const char *s);

struct strmap *strmap_new(size_t hint);
/* Frees the map (not its keys); NULL is a no-op. */
void strmap_free(struct strmap *m);

/*
 * Adds key with val if key is absent and returns true. If key is
 * present, leaves the map alone, stores the value it has in *old (if
 * old is not NULL) and returns false.
 */
bool strmap_add(struct strmap *m, const char *key, size_t val, size_t *old);

/* true and the value in *val (if val is not NULL) if key is present. */
bool strmap_get(const struct strmap *m, const char *key, size_t *val);

/* How many keys the map holds. */
size_t strmap_count(const struct strmap *m);

#endif
