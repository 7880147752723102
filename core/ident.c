/*
 * ident: the port identity table (see ident.h).
 *
 * A flat array of entries, each with its owner token and its own copies
 * of the strings; publish removes the owner's entries and appends the
 * new ones. The table holds a few entries per host (a fabsim fabric of
 * thousands of hosts is tens of thousands), and a publish happens once
 * per scan of a host (every few seconds), so linear work under the
 * mutex is fine. Readers copy the table and sort the copy.
 */
#include "config.h"

#include "ident.h"

#include "mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const void *owner;
	struct ident_port id; /* strings owned */
};

struct ident_table {
	pthread_mutex_t lock;
	struct entry *table; /* NULL when empty */
	size_t n_table, cap_table;
};

struct ident_table *ident_table_new(void)
{
	struct ident_table *t = xcalloc(1, sizeof *t);
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static void copy_ident(struct ident_port *dst, const struct ident_port *src)
{
	dst->device = xstrdup(src->device ? src->device : "");
	dst->port = xstrdup(src->port ? src->port : "");
	dst->rdma_device = xstrdup(src->rdma_device ? src->rdma_device : "");
	dst->rdma_port = src->rdma_port;
	dst->netdev = xstrdup(src->netdev ? src->netdev : "");
	dst->link_layer = xstrdup(src->link_layer ? src->link_layer : "");
}

static void free_ident(struct ident_port *id)
{
	free((char *)id->device);
	free((char *)id->port);
	free((char *)id->rdma_device);
	free((char *)id->netdev);
	free((char *)id->link_layer);
}

/* Removes owner's entries (NULL: every entry); the caller holds the
 * lock or is the last user. */
static void remove_owner(struct ident_table *t, const void *owner)
{
	size_t k = 0;
	for (size_t i = 0; i < t->n_table; i++) {
		if (!owner || t->table[i].owner == owner)
			free_ident(&t->table[i].id);
		else
			t->table[k++] = t->table[i];
	}
	t->n_table = k;
}

void ident_table_free(struct ident_table *t)
{
	if (!t)
		return;
	remove_owner(t, NULL);
	free(t->table);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void ident_publish(struct ident_table *t, const void *owner,
		   const struct ident_port *ports, size_t n)
{
	pthread_mutex_lock(&t->lock);
	remove_owner(t, owner);
	if (t->n_table + n > t->cap_table) {
		size_t cap = t->cap_table ? t->cap_table : 16;
		while (cap < t->n_table + n)
			cap *= 2;
		t->table = xreallocarray(t->table, cap, sizeof *t->table);
		t->cap_table = cap;
	}
	for (size_t i = 0; i < n; i++) {
		struct entry *e = &t->table[t->n_table++];
		e->owner = owner;
		copy_ident(&e->id, &ports[i]);
	}
	if (!t->n_table) {
		free(t->table);
		t->table = NULL;
		t->cap_table = 0;
	}
	pthread_mutex_unlock(&t->lock);
}

void ident_withdraw(struct ident_table *t, const void *owner)
{
	ident_publish(t, owner, NULL, 0);
}

static int cmp_key(const char *dev_a, const char *port_a, const char *dev_b,
		   const char *port_b)
{
	int r = strcmp(dev_a, dev_b);
	return r ? r : strcmp(port_a, port_b);
}

static int cmp_ident(const void *x, const void *y)
{
	const struct ident_port *a = x, *b = y;
	return cmp_key(a->device, a->port, b->device, b->port);
}

size_t ident_list(struct ident_table *t, struct ident_port **out)
{
	*out = NULL;
	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	size_t n = t->n_table;
	struct ident_port *l = n ? xcalloc(n, sizeof *l) : NULL;
	for (size_t i = 0; i < n; i++)
		copy_ident(&l[i], &t->table[i].id);
	pthread_mutex_unlock(&t->lock);
	if (!n)
		return 0;
	qsort(l, n, sizeof *l, cmp_ident);
	/* Two publishers of one (device, port) would give duplicate
	 * series: keep the first. */
	size_t k = 1;
	for (size_t i = 1; i < n; i++) {
		if (cmp_ident(&l[k - 1], &l[i]) == 0)
			free_ident(&l[i]);
		else
			l[k++] = l[i];
	}
	*out = l;
	return k;
}

void ident_list_free(struct ident_port *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_ident(&list[i]);
	free(list);
}

const struct ident_port *ident_find(const struct ident_port *list, size_t n,
				    const char *device, const char *port)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = cmp_key(device, port, list[mid].device, list[mid].port);
		if (r == 0)
			return &list[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
