/*
 * cfg: loads fabmon.yaml into a struct cfg (see cfg.h).
 *
 * Two passes. The first is ytree_load() (core/ytree.c): libyaml over a
 * bounded buffer (CFG_MAX_FILE_BYTES, CFG_MAX_DEPTH) into a tree of nodes
 * with their line:column. The second walks the tree section by section
 * with ytree's getters and fills a freshly allocated struct cfg: the
 * skeleton's keys here, every other top-level section and every target
 * block through its protocol's hooks (struct cfg_section_ops of the
 * caller's struct cfg_schema), which keep what they parse in c->sections
 * and t->blocks. The first error stops it, is written as one line
 * "file:line:col: key.path: message", and everything allocated so far is
 * freed (a section's fini or a block's free_target included).
 *
 * Nothing here is global or cached: every call owns its parser, tree and
 * result, so loads may run on any thread. Secrets (inline or read from
 * *_file keys) are never put in a message, and their buffers are zeroed
 * before they are freed.
 */
#include "config.h"

#include "cfg.h"

#include "log.h"
#include "mem.h"
#include "rfile.h"
#include "units.h"
#include "ytree.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bounds shared by several keys. */
#define INTERVAL_MIN CFG_INTERVAL_MIN
#define INTERVAL_MAX CFG_INTERVAL_MAX
#define NAME_MAX_LEN 64
#define SECRET_MAX   65536 /* bytes read from a *_file key */

/* The later of keys i and j of f in the file (both present). */
size_t cfg_later(const struct ytree_fields *f, size_t i, size_t j)
{
	const struct ytree_node *a = f->key[i], *b = f->key[j];
	if (a->line != b->line)
		return a->line > b->line ? i : j;
	return a->col > b->col ? i : j;
}

/*
 * Secrets read from files.
 */

/*
 * Reads the secret named by key i of f (a path) into *out, without its
 * trailing newline. Errors name the key and the path, never the content.
 */
static int opt_secret_file(struct ytree_ctx *x, const struct ytree_fields *f,
			   size_t i, char **out)
{
	char *path = NULL, *buf = NULL, why[160];
	size_t len = 0;
	int rc;

	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	rc = ytree_str(x, f->val[i], &path);
	if (rc)
		return rc;
	/* rfile: a FIFO or a device must not hang or flood the load. */
	buf = rfile_load(path, SECRET_MAX, &len, why, sizeof why, NULL);
	if (!buf) {
		rc = ytree_fail(x, f->val[i], "\"%s\": %s", path, why);
		goto out;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (len == 0)
		rc = ytree_fail(x, f->val[i], "\"%s\" is empty", path);
	else if (strlen(buf) != len)
		rc = ytree_fail(x, f->val[i], "\"%s\" contains a NUL byte",
				path);
	if (rc == 0) {
		free(*out);
		*out = xstrdup(buf);
		ytree_path_cut(x, saved);
	}
out:
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	free(path);
	return rc;
}

/*
 * A secret given inline (key i) or in a file (key j), not both. Returns 0
 * with *out untouched if neither is present.
 */
int cfg_opt_secret(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   size_t j, char **out)
{
	if (f->val[i] && f->val[j]) {
		size_t k = cfg_later(f, i, j);
		return ytree_fail_key(x, f, k, "use %s or %s, not both",
				      f->keys[i], f->keys[j]);
	}
	if (f->val[i])
		return ytree_opt_str(x, f, i, out);
	return opt_secret_file(x, f, j, out);
}

/*
 * Addresses and names.
 */

bool cfg_has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return true;
	return false;
}

/* 0 if s is 1..5 digits of a port in [min, 65535]. */
int cfg_parse_port(const char *s, unsigned min, unsigned *port)
{
	bool neg;
	uint64_t v;
	if (!*s || strlen(s) > 5 || ytree_parse_uint(s, &neg, &v) || neg)
		return -EINVAL;
	if (v < min || v > 65535)
		return -ERANGE;
	*port = (unsigned)v;
	return 0;
}

/*
 * Splits "host:port", "[v6]:port" or (any_host) ":port". Returns 0,
 * -EINVAL (shape) or -ERANGE (port out of range).
 */
int cfg_split_hostport(const char *s, bool any_host, unsigned min_port,
		       char **host, char **port)
{
	const char *colon, *h = s;
	size_t hlen;
	unsigned p;

	if (cfg_has_space(s))
		return -EINVAL;
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end || end == s + 1 || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		hlen = (size_t)(end - h);
		colon = end + 1;
		if (memchr(h, '[', hlen))
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (!colon || strchr(colon + 1, ':') || strchr(s, ']'))
			return -EINVAL;
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 && !any_host)
		return -EINVAL;
	int rc = cfg_parse_port(colon + 1, min_port, &p);
	if (rc)
		return rc;
	if (host)
		*host = xstrndup(h, hlen);
	if (port)
		*port = xstrdup(colon + 1);
	return 0;
}

static bool valid_name(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
			return false;
	return true;
}

int cfg_want_name(struct ytree_ctx *x, const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF];
	if (valid_name(n->str))
		return 0;
	return ytree_fail(
	    x, n,
	    "%s is not a valid name (1 to %d characters of A-Z a-z "
	    "0-9 . _ : -)",
	    ytree_quote(n, q, sizeof q), NAME_MAX_LEN);
}

/*
 * Sections. Each takes its node with the path already pointing at it.
 */

static int parse_listen(struct ytree_ctx *x, struct cfg *c,
			const struct ytree_node *n)
{
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0)
		return ytree_fail(x, n, "needs at least one address");
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	c->listen = xcalloc(count, sizeof *c->listen);
	c->n_listen = 0;
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *item = n->kids[i];
		struct cfg_listen *l = &c->listen[i];
		char q[YTREE_QUOTE_BUF];
		size_t saved = ytree_path_index(x, i);
		rc = ytree_want_scalar(x, item, "a string");
		if (rc)
			return rc;
		rc = cfg_split_hostport(item->str, true, 0, &l->host, &l->port);
		if (rc == -ERANGE)
			return ytree_fail(
			    x, item, "port must be between 0 and 65535 in %s",
			    ytree_quote(item, q, sizeof q));
		if (rc)
			return ytree_fail(
			    x, item,
			    "%s is not host:port (e.g. 127.0.0.1:%s, "
			    "[::1]:%s, :%s)",
			    ytree_quote(item, q, sizeof q), CFG_DEFAULT_PORT,
			    CFG_DEFAULT_PORT, CFG_DEFAULT_PORT);
		c->n_listen++;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static int parse_priorities(struct ytree_ctx *x, struct cfg *c,
			    const struct ytree_node *n)
{
	size_t count;
	uint8_t mask = 0;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		uint64_t p;
		size_t saved = ytree_path_index(x, i);
		rc = ytree_uint(x, n->kids[i], 0, 7, &p);
		if (rc)
			return rc;
		if (mask & (1u << p))
			return ytree_fail(x, n->kids[i],
					  "priority %u is listed twice",
					  (unsigned)p);
		mask |= (uint8_t)(1u << p);
		ytree_path_cut(x, saved);
	}
	c->lossless_mask = mask;
	return 0;
}

static bool known_subsystem(const char *s)
{
	if (strcmp(s, "all") == 0)
		return true;
	for (size_t i = 0; log_subsystems[i]; i++)
		if (strcmp(s, log_subsystems[i]) == 0)
			return true;
	return false;
}

enum { LOG_K_LEVEL, LOG_K_DEBUG, LOG_K_N };
static const char *const log_keys[LOG_K_N] = {
	[LOG_K_LEVEL] = "level",
	[LOG_K_DEBUG] = "debug",
};

static int parse_log(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *n)
{
	static const char *const names[] = { "error", "warn", "notice", "info",
					     "debug" };
	static const int values[] = { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_NOTICE,
				      LOG_LVL_INFO, LOG_LVL_DEBUG };
	struct ytree_fields f;
	size_t count;
	int rc = ytree_fields_get(x, n, log_keys, LOG_K_N, &f);
	if (rc)
		return rc;
	rc =
	    ytree_opt_enum(x, &f, LOG_K_LEVEL, names, values, 5, &c->log_level);
	if (rc || !f.val[LOG_K_DEBUG])
		return rc;
	size_t saved_debug = ytree_path_key(x, "debug");
	rc = ytree_want_seq(x, f.val[LOG_K_DEBUG], &count);
	if (rc)
		return rc;
	c->log_debug = xcalloc(count ? count : 1, sizeof *c->log_debug);
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *t = f.val[LOG_K_DEBUG]->kids[i];
		char q[YTREE_QUOTE_BUF];
		size_t saved = ytree_path_index(x, i);
		rc = ytree_want_scalar(x, t, "a subsystem name");
		if (rc)
			return rc;
		if (!known_subsystem(t->str))
			return ytree_fail(
			    x, t,
			    "%s is not a subsystem (all, core, config, "
			    "store, http, gnmi, snmp, nic, rules, "
			    "topology, sim)",
			    ytree_quote(t, q, sizeof q));
		c->log_debug[c->n_log_debug++] = xstrdup(t->str);
		ytree_path_cut(x, saved);
	}
	ytree_path_cut(x, saved_debug);
	return 0;
}

enum { STORE_K_RING, STORE_K_STALE, STORE_K_N };
static const char *const store_keys[STORE_K_N] = {
	[STORE_K_RING] = "ring",
	[STORE_K_STALE] = "stale_after",
};

static int parse_store(struct ytree_ctx *x, struct cfg *c,
		       const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, store_keys, STORE_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, STORE_K_RING, 8, 4096,
				    &c->store_ring);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, STORE_K_STALE, 2, 1000,
				    &c->store_stale_intervals);
	return rc;
}

enum {
	HTTP_K_THREADS,
	HTTP_K_MAXCONN,
	HTTP_K_PER_CLIENT,
	HTTP_K_HEADER_TIMEOUT,
	HTTP_K_WEB_CONFIG,
	HTTP_K_N
};
/* The web config's own size limit (exporters/webcfg.h). */
#define CFG_WEB_CONFIG_MAX_BYTES 65536
static const char *const http_keys[HTTP_K_N] = {
	[HTTP_K_THREADS] = "threads",
	[HTTP_K_MAXCONN] = "max_connections",
	[HTTP_K_PER_CLIENT] = "max_connections_per_client",
	[HTTP_K_HEADER_TIMEOUT] = "header_timeout",
	[HTTP_K_WEB_CONFIG] = "web_config",
};

static int parse_http(struct ytree_ctx *x, struct cfg *c,
		      const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, http_keys, HTTP_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, HTTP_K_THREADS, 1, 64,
				    &c->http_threads);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, HTTP_K_MAXCONN, 1, 65536,
				    &c->http_max_connections);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, HTTP_K_PER_CLIENT, 1, 65536,
				    &c->http_max_per_client);
	if (rc == 0)
		rc = ytree_opt_duration(x, &f, HTTP_K_HEADER_TIMEOUT,
					NS_PER_S / 10, 3600 * NS_PER_S, false,
					&c->http_header_timeout_ns);
	/* Its contents are the HTTP server's to read and check
	 * (webcfg_load), here only that it is a regular file. */
	if (rc == 0)
		rc = ytree_opt_file(x, &f, HTTP_K_WEB_CONFIG,
				    CFG_WEB_CONFIG_MAX_BYTES,
				    &c->http_web_config);
	return rc;
}

static int parse_profiles_dir(struct ytree_ctx *x, struct cfg *c,
			      const struct ytree_node *n)
{
	free(c->profiles_dir);
	c->profiles_dir = NULL;
	return ytree_str(x, n, &c->profiles_dir);
}

/* Target keys: "name", then the schema's blocks; ops[k] is the hook of
 * key k (NULL for the name). */
struct target_keys {
	const char *keys[CFG_MAX_SECTIONS + 1];
	const struct cfg_section_ops *ops[CFG_MAX_SECTIONS + 1];
	size_t n;
	char need[256]; /* "needs gnmi, snmp or both" */
};

static void target_keys_init(struct target_keys *k, const struct cfg_schema *s)
{
	size_t used = 0, blocks = 0;
	k->keys[0] = "name";
	k->ops[0] = NULL;
	k->n = 1;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->ops[i]->parse_target)
			continue;
		k->keys[k->n] = s->ops[i]->key;
		k->ops[k->n++] = s->ops[i];
	}
	blocks = k->n - 1;
	used = (size_t)snprintf(k->need, sizeof k->need, "needs");
	for (size_t i = 1; i < k->n && used < sizeof k->need; i++)
		used +=
		    (size_t)snprintf(k->need + used, sizeof k->need - used,
				     "%s%s", i == 1 ? " " : ", ", k->keys[i]);
	if (blocks > 1 && used < sizeof k->need)
		snprintf(k->need + used, sizeof k->need - used, " or %s",
			 blocks == 2 ? "both" : "several");
}

/* Parses one block of a target with its protocol's hook. */
static int parse_block(struct ytree_ctx *x, const struct cfg *c,
		       struct cfg_target *t, const struct cfg_section_ops *ops,
		       const struct ytree_node *n)
{
	struct cfg_section *b = &t->blocks[t->n_blocks++];
	size_t saved = ytree_path_key(x, ops->key);
	b->ops = ops;
	b->data = NULL;
	int rc = ops->parse_target(x, c, n, &b->data);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

/*
 * Parses one target; *name_node gets the node of its name. The blocks
 * are parsed in schema order; c holds the skeleton parsed so far (the
 * global interval is the default of the target's).
 */
static int parse_target(struct ytree_ctx *x, const struct cfg *c,
			const struct target_keys *k, struct cfg_target *t,
			const struct ytree_node *n,
			const struct ytree_node **name_node)
{
	struct ytree_fields f;
	bool any = false;
	int rc = ytree_fields_get(x, n, k->keys, k->n, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, 0)))
		return rc;
	size_t saved = ytree_path_key(x, "name");
	if ((rc = ytree_str(x, f.val[0], &t->name)) ||
	    (rc = cfg_want_name(x, f.val[0])))
		return rc;
	ytree_path_cut(x, saved);
	*name_node = f.val[0];
	for (size_t i = 1; i < k->n; i++)
		any = any || f.val[i];
	if (!any)
		return ytree_fail(x, n, "%s", k->need);
	t->blocks = xcalloc(k->n, sizeof *t->blocks);
	for (size_t i = 1; i < k->n; i++)
		if (f.val[i] &&
		    (rc = parse_block(x, c, t, k->ops[i], f.val[i])))
			return rc;
	return 0;
}

/* A target's name and place, sorted by name to find duplicates. */
struct name_ref {
	const struct ytree_node *node;
	size_t index;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *p = a, *q = b;
	int d = strcmp(p->node->str, q->node->str);
	if (d)
		return d;
	return p->index < q->index ? -1 : p->index > q->index;
}

/*
 * Names must be unique. Sorting keeps this n log n for large fabrics;
 * the reported duplicate is the one that comes first in the file, with
 * the place where its name was first used.
 */
static int unique_names(struct ytree_ctx *x, struct name_ref *refs, size_t n)
{
	const struct name_ref *dup = NULL, *first = NULL;

	qsort(refs, n, sizeof *refs, cmp_name_ref);
	for (size_t i = 1, run = 0; i < n; i++) {
		if (strcmp(refs[i].node->str, refs[run].node->str) != 0) {
			run = i;
			continue;
		}
		if (i == run + 1 && (!dup || refs[i].index < dup->index)) {
			dup = &refs[i];
			first = &refs[run];
		}
	}
	if (!dup)
		return 0;
	ytree_path_index(x, dup->index);
	ytree_path_key(x, "name");
	return ytree_fail(x, dup->node,
			  "duplicate target name \"%s\" (first at %u:%u)",
			  dup->node->str, first->node->line, first->node->col);
}

static int parse_targets(struct ytree_ctx *x, struct cfg *c,
			 const struct ytree_node *n)
{
	struct name_ref *refs;
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc || count == 0)
		return rc;
	struct target_keys k;
	target_keys_init(&k, c->schema);
	c->targets = xcalloc(count, sizeof *c->targets);
	refs = xcalloc(count, sizeof *refs);
	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t saved = ytree_path_index(x, i);
		c->n_targets++;
		refs[i].index = i;
		rc = parse_target(x, c, &k, &c->targets[i], n->kids[i],
				  &refs[i].node);
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	if (rc == 0)
		rc = unique_names(x, refs, count);
	free(refs);
	return rc;
}

enum {
	TOP_K_LISTEN,
	TOP_K_INTERVAL,
	TOP_K_LOSSLESS,
	TOP_K_LOG,
	TOP_K_STORE,
	TOP_K_HTTP,
	TOP_K_TARGETS,
	TOP_K_PROFILES_DIR,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_LISTEN] = "listen",
	[TOP_K_INTERVAL] = "interval",
	[TOP_K_LOSSLESS] = "lossless_priorities",
	[TOP_K_LOG] = "log",
	[TOP_K_STORE] = "store",
	[TOP_K_HTTP] = "http",
	[TOP_K_TARGETS] = "targets",
	[TOP_K_PROFILES_DIR] = "profiles_dir",
};

typedef int (*section_fn)(struct ytree_ctx *, struct cfg *,
			  const struct ytree_node *);

/* Runs section parser fn on key i of f, if present. */
static int section(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   struct cfg *c, section_fn fn)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = fn(x, c, f->val[i]);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

_Static_assert(TOP_K_N + CFG_MAX_SECTIONS <= YTREE_MAX_FIELDS,
	       "ytree_fields_get takes every top-level key");

/* The top-level keys: the skeleton's, then the schema's sections with a
 * parse hook; sec[k] is the index in c->sections of key k. */
struct top_keys {
	const char *keys[TOP_K_N + CFG_MAX_SECTIONS];
	size_t sec[TOP_K_N + CFG_MAX_SECTIONS];
	size_t n;
};

static void top_keys_init(struct top_keys *k, const struct cfg *c)
{
	for (size_t i = 0; i < TOP_K_N; i++)
		k->keys[i] = top_keys[i];
	k->n = TOP_K_N;
	for (size_t i = 0; i < c->n_sections; i++) {
		if (!c->sections[i].ops->parse)
			continue;
		k->keys[k->n] = c->sections[i].ops->key;
		k->sec[k->n++] = i;
	}
}

/* The protocols' top-level sections, in schema order. */
static int parse_sections(struct ytree_ctx *x, struct cfg *c,
			  const struct top_keys *k,
			  const struct ytree_fields *f)
{
	for (size_t i = TOP_K_N; i < k->n; i++) {
		struct cfg_section *s = &c->sections[k->sec[i]];
		if (!f->val[i])
			continue;
		size_t saved = ytree_path_key(x, f->keys[i]);
		int rc = s->ops->parse(x, c, s->data, f->val[i]);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static int parse_top(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *root)
{
	struct ytree_fields f;
	struct top_keys k;
	int rc;

	if (root->kind != YTREE_MAP)
		return ytree_fail_at(
		    x, root->line, root->col,
		    "expected a mapping of settings at the top "
		    "level");
	top_keys_init(&k, c);
	if ((rc = ytree_fields_get(x, root, k.keys, k.n, &f)))
		return rc;
	/* The interval first: other keys default to it. */
	if ((rc = ytree_opt_duration(x, &f, TOP_K_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false, &c->interval_ns)))
		return rc;
	if ((rc = section(x, &f, TOP_K_LISTEN, c, parse_listen)) ||
	    (rc = section(x, &f, TOP_K_LOSSLESS, c, parse_priorities)) ||
	    (rc = section(x, &f, TOP_K_LOG, c, parse_log)) ||
	    (rc = section(x, &f, TOP_K_STORE, c, parse_store)) ||
	    (rc = section(x, &f, TOP_K_HTTP, c, parse_http)) ||
	    (rc = section(x, &f, TOP_K_TARGETS, c, parse_targets)) ||
	    (rc = section(x, &f, TOP_K_PROFILES_DIR, c, parse_profiles_dir)) ||
	    (rc = parse_sections(x, c, &k, &f)))
		return rc;
	return 0;
}

/*
 * The public API.
 */

static struct cfg *cfg_new_defaults(const struct cfg_schema *s)
{
	struct cfg *c = xcalloc(1, sizeof *c);
	/* The key tables are sized for at most that many. */
	assert(s->n <= CFG_MAX_SECTIONS);
	c->schema = s;
	c->listen = xcalloc(1, sizeof *c->listen);
	c->listen[0].host = xstrdup("127.0.0.1");
	c->listen[0].port = xstrdup(CFG_DEFAULT_PORT);
	c->n_listen = 1;
	c->http_threads = 2;
	c->http_max_connections = 256;
	c->http_max_per_client = 64;
	c->http_header_timeout_ns = 10 * NS_PER_S;
	c->profiles_dir = xstrdup(FABMON_PROFILEDIR);
	c->interval_ns = NS_PER_S;
	c->lossless_mask = 1u << 3;
	c->log_level = -1;
	c->store_ring = 64;
	c->store_stale_intervals = 5;
	c->sections = xcalloc(s->n ? s->n : 1, sizeof *c->sections);
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_section_ops *ops = s->ops[i];
		if (!ops->init && !ops->parse)
			continue;
		struct cfg_section *sec = &c->sections[c->n_sections++];
		sec->ops = ops;
		sec->data = ops->init ? ops->init(c) : NULL;
	}
	return c;
}

struct cfg *cfg_default(const struct cfg_schema *s)
{
	return cfg_new_defaults(s);
}

struct cfg *cfg_load_buffer(const struct cfg_schema *s, const char *name,
			    const char *buf, size_t len, char *err,
			    size_t errlen)
{
	struct ytree_ctx x = { .name = name, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	struct cfg *c = NULL;

	if (err && errlen)
		err[0] = '\0';
	if (ytree_load(&x, buf, len, CFG_MAX_FILE_BYTES, CFG_MAX_DEPTH, &root))
		return NULL;
	if (!root || ytree_is_null(root)) {
		ytree_fail_file(&x, "empty configuration file");
		ytree_free(root);
		return NULL;
	}
	c = cfg_new_defaults(s);
	c->path = xstrdup(name);
	if (parse_top(&x, c, root)) {
		cfg_free(c);
		c = NULL;
	}
	ytree_free(root);
	return c;
}

struct cfg *cfg_load(const struct cfg_schema *s, const char *path, char *err,
		     size_t errlen)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	char *buf;
	size_t len = 0;
	struct cfg *c = NULL;

	if (err && errlen)
		err[0] = '\0';
	/* The config may come through a pipe (-c <(generate)) or a FIFO:
	 * read within CFG_PIPE_MS, never blocking past it (a FIFO nobody
	 * writes must not hang start-up, nor a reload's loader). */
	buf =
	    ytree_read_stream(&x, path, CFG_MAX_FILE_BYTES, CFG_PIPE_MS, &len);
	if (!buf)
		return NULL;
	c = cfg_load_buffer(s, path, buf, len, err, errlen);
	/* The file may hold secrets. */
	explicit_bzero(buf, len);
	free(buf);
	return c;
}

void cfg_free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void cfg_free(struct cfg *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->http_web_config);
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	for (size_t i = 0; i < c->n_log_debug; i++)
		free(c->log_debug[i]);
	free(c->log_debug);
	for (size_t i = 0; i < c->n_targets; i++) {
		struct cfg_target *t = &c->targets[i];
		free(t->name);
		for (size_t k = 0; k < t->n_blocks; k++)
			t->blocks[k].ops->free_target(t->blocks[k].data);
		free(t->blocks);
	}
	free(c->targets);
	free(c->profiles_dir);
	/* In reverse: a later section's init may lean on an earlier one. */
	for (size_t i = c->n_sections; i-- > 0;)
		if (c->sections[i].ops->fini)
			c->sections[i].ops->fini(c, c->sections[i].data);
	free(c->sections);
	free(c);
}

const struct cfg_target *cfg_find_target(const struct cfg *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (size_t i = 0; i < c->n_targets; i++)
		if (strcmp(c->targets[i].name, name) == 0)
			return &c->targets[i];
	return NULL;
}

void *cfg_section(const struct cfg *c, const char *key)
{
	for (size_t i = 0; c && i < c->n_sections; i++)
		if (strcmp(c->sections[i].ops->key, key) == 0)
			return c->sections[i].data;
	return NULL;
}

void *cfg_target_block(const struct cfg_target *t, const char *key)
{
	for (size_t i = 0; t && i < t->n_blocks; i++)
		if (strcmp(t->blocks[i].ops->key, key) == 0)
			return t->blocks[i].data;
	return NULL;
}

static uint64_t min_nz(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

uint64_t cfg_min_interval(const struct cfg *c)
{
	uint64_t t = c->interval_ns;
	for (size_t i = 0; i < c->n_targets; i++) {
		const struct cfg_target *tg = &c->targets[i];
		for (size_t k = 0; k < tg->n_blocks; k++)
			if (tg->blocks[k].ops->target_interval)
				t = min_nz(t,
					   tg->blocks[k].ops->target_interval(
					       tg->blocks[k].data));
	}
	for (size_t i = 0; i < c->n_sections; i++)
		if (c->sections[i].ops->interval)
			t = min_nz(t, c->sections[i].ops->interval(
					  c, c->sections[i].data));
	return t;
}
