/*
 * nic_ident: the process's NIC port identity table (see nic_ident.h).
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
	struct nic_ident id; /* strings owned */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table;
static size_t n_table, cap_table;

static void copy_ident(struct nic_ident *dst, const struct nic_ident *src)
{
	dst->device = xstrdup(src->device ? src->device : "");
	dst->port = xstrdup(src->port ? src->port : "");
	dst->rdma_device = xstrdup(src->rdma_device ? src->rdma_device : "");
	dst->rdma_port = src->rdma_port;
	dst->netdev = xstrdup(src->netdev ? src->netdev : "");
	dst->link_layer = xstrdup(src->link_layer ? src->link_layer : "");
}

static void free_ident(struct nic_ident *id)
{
	free((char *)id->device);
	free((char *)id->port);
	free((char *)id->rdma_device);
	free((char *)id->netdev);
	free((char *)id->link_layer);
}

/* Removes owner's entries; the caller holds the lock. */
static void remove_owner(const void *owner)
{
	size_t k = 0;
	for (size_t i = 0; i < n_table; i++) {
		if (table[i].owner == owner)
			free_ident(&table[i].id);
		else
			table[k++] = table[i];
	}
	n_table = k;
}

void nic_ident_publish(const void *owner, const struct nic_ident *ports,
		       size_t n)
{
	pthread_mutex_lock(&lock);
	remove_owner(owner);
	if (n_table + n > cap_table) {
		size_t cap = cap_table ? cap_table : 16;
		while (cap < n_table + n)
			cap *= 2;
		table = xreallocarray(table, cap, sizeof *table);
		cap_table = cap;
	}
	for (size_t i = 0; i < n; i++) {
		struct entry *e = &table[n_table++];
		e->owner = owner;
		copy_ident(&e->id, &ports[i]);
	}
	if (!n_table) {
		free(table);
		table = NULL;
		cap_table = 0;
	}
	pthread_mutex_unlock(&lock);
}

void nic_ident_withdraw(const void *owner)
{
	nic_ident_publish(owner, NULL, 0);
}

static int cmp_key(const char *dev_a, const char *port_a, const char *dev_b,
		   const char *port_b)
{
	int r = strcmp(dev_a, dev_b);
	return r ? r : strcmp(port_a, port_b);
}

static int cmp_ident(const void *x, const void *y)
{
	const struct nic_ident *a = x, *b = y;
	return cmp_key(a->device, a->port, b->device, b->port);
}

size_t nic_ident_list(struct nic_ident **out)
{
	*out = NULL;
	pthread_mutex_lock(&lock);
	size_t n = n_table;
	struct nic_ident *l = n ? xcalloc(n, sizeof *l) : NULL;
	for (size_t i = 0; i < n; i++)
		copy_ident(&l[i], &table[i].id);
	pthread_mutex_unlock(&lock);
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

void nic_ident_list_free(struct nic_ident *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free_ident(&list[i]);
	free(list);
}

const struct nic_ident *nic_ident_find(const struct nic_ident *list, size_t n,
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
