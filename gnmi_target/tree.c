/*
 * gnmi_target tree: the data tree a target serves, its leaves and their
 * values, and the matching of request paths against it.
 *
 * Tree. Leaves are found by their canonical path string in a chained
 * hash table and listed in creation order; they are never freed before
 * the target, so subscriptions cache the leaves they match as pointers
 * and only scan the leaves created since. A tick moves each staged
 * value to the published one; a leaf whose published value changes (or
 * appears, or goes) gets the tick's generation, so a subscription finds
 * what changed since it last sent by comparing generations, without
 * per-leaf state; the target keeps the generation of its last delete,
 * so that a SAMPLE subscription (which hears of deletes only) skips
 * that walk when there was none.
 *
 * Everything here runs with the target's mutex held, taken by the API
 * functions below or by the caller (see target_int.h).
 */
#include "config.h"

#define PROTOBUF_C__NO_DEPRECATED 1

#include "target_int.h"

#include "mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Values */

static void value_clear(struct gt_value *v)
{
	if (v->type == GT_STRING)
		free(v->s);
	else if (v->type == GT_JSON)
		grpc_slice_unref(v->sl);
	v->type = GT_NONE;
}

static bool value_equal(const struct gt_value *a, const struct gt_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case GT_NONE:
		return true;
	case GT_UINT:
		return a->u == b->u;
	case GT_INT:
		return a->i == b->i;
	case GT_DOUBLE:
		return memcmp(&a->d, &b->d, sizeof a->d) == 0;
	case GT_BOOL:
		return a->b == b->b;
	case GT_STRING:
	case GT_JSON:
		return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
	}
	return false;
}

/* Paths */

/* Glob with '*' only (SONiC's "Ethernet*" as well as gNMI's "*"). */
static bool glob_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = p++;
			resume = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

static const char *elem_key(const struct gnmi_path_elem *e, const char *name)
{
	for (size_t i = 0; i < e->n_keys; i++)
		if (strcmp(e->keys[i].name, name) == 0)
			return e->keys[i].value;
	return NULL;
}

/* A request element against a leaf element; keys the request omits
 * match any value. */
static bool elem_match(const struct gnmi_path_elem *q,
		       const struct gnmi_path_elem *l)
{
	if (!glob_match(q->name, l->name))
		return false;
	for (size_t i = 0; i < q->n_keys; i++) {
		const char *v = elem_key(l, q->keys[i].name);
		if (!v || !glob_match(q->keys[i].value, v))
			return false;
	}
	return true;
}

/* True if the leaf path l is at or below the request path q. */
bool gt_path_match(const struct gnmi_path_elem *q, size_t nq,
		   const struct gnmi_path_elem *l, size_t nl)
{
	while (nq > 0) {
		if (strcmp(q->name, "...") == 0) {
			for (size_t k = 0; k <= nl; k++)
				if (gt_path_match(q + 1, nq - 1, l + k, nl - k))
					return true;
			return false;
		}
		if (nl == 0 || !elem_match(q, l))
			return false;
		q++;
		nq--;
		l++;
		nl--;
	}
	return true;
}

static bool path_has_wildcard(const struct gnmi_path *p)
{
	for (size_t i = 0; i < p->n_elem; i++) {
		const struct gnmi_path_elem *e = &p->elem[i];
		if (strchr(e->name, '*') || strcmp(e->name, "...") == 0)
			return true;
		for (size_t k = 0; k < e->n_keys; k++)
			if (strchr(e->keys[k].value, '*'))
				return true;
	}
	return false;
}

static bool nonempty(const char *s)
{
	return s && *s;
}

int gt_prefix_init(struct gt_prefix *x, const Gnmi__Path *pb)
{
	memset(x, 0, sizeof *x);
	if (!pb)
		return 0;
	if (gnmi_path_from_pb(pb, &x->path) < 0) {
		memset(&x->path, 0, sizeof x->path);
		return -EINVAL;
	}
	x->full = gnmi_path_to_pb(&x->path);
	x->bare = *x->full;
	x->bare.n_elem = 0;
	x->bare.elem = NULL;
	x->has_bare = nonempty(x->path.target) || nonempty(x->path.origin);
	x->relative_ok = x->path.n_elem > 0 && !path_has_wildcard(&x->path);
	x->pk_full_len = gnmi__path__get_packed_size(x->full);
	x->pk_full = xmalloc(x->pk_full_len + 1);
	gnmi__path__pack(x->full, x->pk_full);
	x->pk_bare_len = gnmi__path__get_packed_size(&x->bare);
	x->pk_bare = xmalloc(x->pk_bare_len + 1);
	gnmi__path__pack(&x->bare, x->pk_bare);
	return 0;
}

void gt_prefix_clear(struct gt_prefix *x)
{
	if (x->full)
		gnmi_path_pb_free(x->full);
	free(x->pk_full);
	free(x->pk_bare);
	gnmi_path_clear(&x->path);
	memset(x, 0, sizeof *x);
}

/*
 * Converts a request path (NULL: the empty path, the whole tree) and
 * joins it to the prefix. 0 or -EINVAL.
 */
int gt_request_path(const struct gt_prefix *pfx, const Gnmi__Path *pb,
		    struct gnmi_path *out)
{
	struct gnmi_path p;
	memset(&p, 0, sizeof p);
	if (pb && gnmi_path_from_pb(pb, &p) < 0)
		return -EINVAL;
	gnmi_path_join(out, &pfx->path, &p);
	gnmi_path_clear(&p);
	return 0;
}

/* Tree */

static uint32_t hash_string(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static struct gnmi_target_leaf *tree_find(struct gnmi_target *t,
					  const char *key, uint32_t h)
{
	if (!t->n_buckets)
		return NULL;
	struct gnmi_target_leaf *l = t->buckets[h & (t->n_buckets - 1)];
	for (; l; l = l->hnext)
		if (l->hash == h && strcmp(l->key, key) == 0)
			return l;
	return NULL;
}

static void tree_insert(struct gnmi_target *t, struct gnmi_target_leaf *l)
{
	if (t->n_leaves + 1 > t->n_buckets) {
		size_t n = t->n_buckets ? t->n_buckets * 2 : 64;
		struct gnmi_target_leaf **b = xcalloc(n, sizeof *b);
		for (size_t i = 0; i < t->n_leaves; i++) {
			struct gnmi_target_leaf *x = t->leaves[i];
			x->hnext = b[x->hash & (n - 1)];
			b[x->hash & (n - 1)] = x;
		}
		free(t->buckets);
		t->buckets = b;
		t->n_buckets = n;
	}
	if (t->n_leaves == t->cap_leaves) {
		t->cap_leaves = t->cap_leaves ? t->cap_leaves * 2 : 64;
		t->leaves =
		    xreallocarray(t->leaves, t->cap_leaves, sizeof *t->leaves);
	}
	t->leaves[t->n_leaves++] = l;
	l->hnext = t->buckets[l->hash & (t->n_buckets - 1)];
	t->buckets[l->hash & (t->n_buckets - 1)] = l;
}

void gt_leaf_free(struct gnmi_target_leaf *l)
{
	value_clear(&l->live);
	value_clear(&l->pub);
	gnmi_path_pb_free(l->pb);
	free(l->pk);
	gnmi_path_clear(&l->path);
	free(l->key);
	free(l);
}

/* Called with the target locked. */
static void leaf_mark_dirty(struct gnmi_target_leaf *l)
{
	struct gnmi_target *t = l->t;
	if (l->staged != GT_STAGE_NONE)
		return;
	if (t->n_dirty == t->cap_dirty) {
		t->cap_dirty = t->cap_dirty ? t->cap_dirty * 2 : 64;
		t->dirty =
		    xreallocarray(t->dirty, t->cap_dirty, sizeof *t->dirty);
	}
	t->dirty[t->n_dirty++] = l;
}

/* Takes ownership of v's string. */
static void leaf_stage(struct gnmi_target_leaf *l, struct gt_value v)
{
	struct gnmi_target *t = l->t;
	pthread_mutex_lock(&t->lock);
	leaf_mark_dirty(l);
	value_clear(&l->live);
	l->live = v;
	l->staged = GT_STAGE_SET;
	pthread_mutex_unlock(&t->lock);
}

/* Publishes l's staged value at generation gen; target locked. */
static void leaf_publish(struct gnmi_target_leaf *l, uint64_t gen)
{
	if (l->staged == GT_STAGE_SET) {
		if (value_equal(&l->pub, &l->live)) {
			value_clear(&l->live);
		} else {
			value_clear(&l->pub);
			l->pub = l->live;
			l->live.type = GT_NONE;
			l->changed_gen = gen;
		}
	} else if (l->staged == GT_STAGE_DELETE && l->pub.type != GT_NONE) {
		value_clear(&l->pub);
		l->changed_gen = gen;
		l->t->del_gen = gen;
	}
	l->staged = GT_STAGE_NONE;
}

struct gnmi_target_leaf *gnmi_target_leaf(struct gnmi_target *t,
					  const char *path)
{
	struct gnmi_path p;
	char err[128];
	if (!path || gnmi_path_parse(path, &p, err, sizeof err) < 0)
		return NULL;
	if (path_has_wildcard(&p)) {
		gnmi_path_clear(&p);
		return NULL;
	}
	free(p.origin);
	free(p.target);
	p.origin = NULL;
	p.target = NULL;
	char *key = gnmi_path_string(&p);
	uint32_t h = hash_string(key);

	pthread_mutex_lock(&t->lock);
	struct gnmi_target_leaf *l = tree_find(t, key, h);
	if (l) {
		pthread_mutex_unlock(&t->lock);
		free(key);
		gnmi_path_clear(&p);
		return l;
	}
	l = xcalloc(1, sizeof *l);
	l->t = t;
	l->path = p;
	l->pb = gnmi_path_to_pb(&l->path);
	l->key = key;
	l->hash = h;
	tree_insert(t, l);
	pthread_mutex_unlock(&t->lock);
	return l;
}

void gnmi_target_leaf_set_uint(struct gnmi_target_leaf *l, uint64_t v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_UINT, .u = v });
}

void gnmi_target_leaf_set_int(struct gnmi_target_leaf *l, int64_t v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_INT, .i = v });
}

void gnmi_target_leaf_set_double(struct gnmi_target_leaf *l, double v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_DOUBLE, .d = v });
}

void gnmi_target_leaf_set_bool(struct gnmi_target_leaf *l, bool v)
{
	leaf_stage(l, (struct gt_value){ .type = GT_BOOL, .b = v });
}

/* A text value: a copy of the n bytes at s with its length (JSON in a
 * refcounted slice, never an inlined one: s points into it and the
 * value is moved around by copy). */
static struct gt_value value_text(enum gt_type type, const char *s, size_t n)
{
	struct gt_value v = { .type = type, .len = n };
	if (type == GT_JSON) {
		v.sl = grpc_slice_malloc_large(n + 1);
		v.s = (char *)GRPC_SLICE_START_PTR(v.sl);
	} else {
		v.s = xmalloc(n + 1);
	}
	memcpy(v.s, s, n);
	v.s[n] = '\0';
	return v;
}

void gnmi_target_leaf_set_string(struct gnmi_target_leaf *l, const char *v)
{
	if (!v)
		v = "";
	leaf_stage(l, value_text(GT_STRING, v, strlen(v)));
}

void gnmi_target_leaf_set_json(struct gnmi_target_leaf *l, const char *json)
{
	if (!json)
		json = "null";
	leaf_stage(l, value_text(GT_JSON, json, strlen(json)));
}

void gnmi_target_leaf_set_json_len(struct gnmi_target_leaf *l, const char *json,
				   size_t len)
{
	if (!json)
		gnmi_target_leaf_set_json(l, NULL);
	else
		leaf_stage(l, value_text(GT_JSON, json, len));
}

void gnmi_target_leaf_delete(struct gnmi_target_leaf *l)
{
	struct gnmi_target *t = l->t;
	pthread_mutex_lock(&t->lock);
	leaf_mark_dirty(l);
	value_clear(&l->live);
	l->staged = GT_STAGE_DELETE;
	pthread_mutex_unlock(&t->lock);
}

#define SET_BY_PATH(fn, type)                                             \
	int gnmi_target_set_##fn(struct gnmi_target *t, const char *path, \
				 type v)                                  \
	{                                                                 \
		struct gnmi_target_leaf *l = gnmi_target_leaf(t, path);   \
		if (!l)                                                   \
			return -EINVAL;                                   \
		gnmi_target_leaf_set_##fn(l, v);                          \
		return 0;                                                 \
	}

SET_BY_PATH(uint, uint64_t)
SET_BY_PATH(int, int64_t)
SET_BY_PATH(double, double)
SET_BY_PATH(bool, bool)
SET_BY_PATH(string, const char *)
SET_BY_PATH(json, const char *)

int gnmi_target_delete(struct gnmi_target *t, const char *path)
{
	struct gnmi_target_leaf *l = gnmi_target_leaf(t, path);
	if (!l)
		return -EINVAL;
	gnmi_target_leaf_delete(l);
	return 0;
}

void gnmi_target_tick(struct gnmi_target *t, int64_t timestamp_ns)
{
	if (!timestamp_ns)
		timestamp_ns = real_ns();
	pthread_mutex_lock(&t->lock);
	uint64_t gen = t->gen + 1;
	for (size_t i = 0; i < t->n_dirty; i++)
		leaf_publish(t->dirty[i], gen);
	t->n_dirty = 0;
	t->gen = gen;
	t->tick_ts = timestamp_ns;
	if (!t->silent)
		for (struct gt_call *c = t->calls; c; c = c->next)
			if (call_streaming(c) && !c->st->need_initial &&
			    c->st->mode ==
				GNMI__SUBSCRIPTION_LIST__MODE__STREAM)
				gt_stream_on_tick(c);
	pthread_mutex_unlock(&t->lock);
}
