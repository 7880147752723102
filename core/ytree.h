/*
 * ytree: the YAML tree and its checked walk, shared by every file fabmon
 * loads (fabmon.yaml in core/cfg.c, mapping profiles in gnmi/profile.c,
 * fabsim topologies in sim/topo.c).
 *
 * ytree_load() runs libyaml's event parser over a bounded buffer and
 * builds a tree of mapping, sequence and scalar nodes with their 1-based
 * line:column. The caller passes the limits (bytes, nesting); anchors,
 * aliases, a second document and nesting past the limit are errors,
 * because libyaml 0.2.5 has no limits of its own and deep nesting costs
 * it quadratic time. The caller then walks the tree with a struct
 * ytree_ctx, which carries the key path of the node at hand (grown and
 * cut as the walk goes down and up) and where the first error goes, as
 * one line "file:line:col: key.path: message" with control bytes
 * replaced. The typed getters check a node and write that error.
 *
 * Every loader speaks the same error dialect: null is "", ~, null, Null
 * or NULL; syntax errors carry libyaml's "(context at line:col)"; keys
 * compare by their full length; long values and keys are cut with
 * "..."; range errors show the value as written; "-3" for a count is out
 * of range, "-0" is 0. Nothing is global: a ctx
 * and a tree belong to one load on one thread. Nodes are owned by their
 * parent and freed with the root by ytree_free().
 */
#ifndef FABMON_YTREE_H
#define FABMON_YTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ytree_kind { YTREE_SCALAR, YTREE_MAP, YTREE_SEQ };

struct ytree_node {
	enum ytree_kind kind;
	unsigned line, col; /* 1-based */
	char *str;	    /* scalar: NUL-terminated, may hold a NUL */
	size_t len;
	bool plain; /* scalar written without quotes */
	bool null;  /* plain scalar that YAML reads as null */
	/* mapping: key, value, key, value...; sequence: the items */
	struct ytree_node **kids;
	size_t n, cap;
};

#define YTREE_PATH_MAX	512 /* bytes of a key path, with its NUL */
#define YTREE_QUOTE_MAX 64  /* characters of a value shown in a message */
#define YTREE_QUOTE_BUF (YTREE_QUOTE_MAX + 8)
#define YTREE_MAX_FIELDS \
	24 /* keys of the largest table ytree_fields_get takes */

/*
 * One load: where the message goes and the key path of the node at hand.
 * Fill name (NULL: messages carry no file and no position), err/errlen
 * (may be NULL/0), and path_size (0: YTREE_PATH_MAX; a smaller
 * value cuts long paths sooner); zero the rest.
 */
struct ytree_ctx {
	const char *name;
	char *err;
	size_t errlen;
	size_t path_size;
	char path[YTREE_PATH_MAX];
	size_t plen;
};

/* The values of one mapping, indexed like its table of known keys. */
struct ytree_fields {
	const struct ytree_node *map;
	const char *const *keys;
	size_t n;
	const struct ytree_node *key[YTREE_MAX_FIELDS];
	const struct ytree_node *val[YTREE_MAX_FIELDS];
};

/*
 * Parses buf[0..len) into *root (NULL for a stream with no document).
 * More than max_bytes, nesting deeper than max_depth, anchors, aliases,
 * a second document and YAML syntax errors fail with the message in x
 * and -EINVAL. The tree belongs to the caller (ytree_free()).
 */
int ytree_load(struct ytree_ctx *x, const char *buf, size_t len,
	       size_t max_bytes, int max_depth, struct ytree_node **root);

/* Frees a tree (scalars are zeroed first: they may hold secrets). */
void ytree_free(struct ytree_node *n);

/* True if n is a plain scalar YAML reads as null ("", ~, null). */
bool ytree_is_null(const struct ytree_node *n);

/* "a mapping", "a list" or "an empty value", for messages. */
const char *ytree_kind_name(const struct ytree_node *n);

/*
 * Errors. Each writes the message (if x has a buffer) and returns
 * -EINVAL. ytree_fail: at node n, with the key path; ytree_fail_pos: at
 * line:col, with the key path; ytree_fail_at: at line:col, without it
 * (syntax, structure); ytree_fail_file: about the whole file.
 */
__attribute__((format(printf, 3, 4))) int ytree_fail(struct ytree_ctx *x,
						     const struct ytree_node *n,
						     const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int ytree_fail_pos(struct ytree_ctx *x,
							 unsigned line,
							 unsigned col,
							 const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int ytree_fail_at(struct ytree_ctx *x,
							unsigned line,
							unsigned col,
							const char *fmt, ...);
__attribute__((format(printf, 2, 3))) int ytree_fail_file(struct ytree_ctx *x,
							  const char *fmt, ...);

/*
 * Reads the whole regular file path, of at most max bytes, without
 * blocking on a FIFO or a device (rfile_load). Returns the buffer (the
 * caller frees it) and its length in *len, or NULL with "file: cannot
 * open: reason", "file: not a regular file (fifo)", "file: larger than
 * N bytes" or "file: cannot read: reason" written through x.
 */
char *ytree_read_file(struct ytree_ctx *x, const char *path, size_t max,
		      size_t *len);

/* ytree_read_file for the daemon's own config, which may also come
 * through a pipe or FIFO: read whole within fifo_ms at most
 * (rfile_load_stream). */
char *ytree_read_stream(struct ytree_ctx *x, const char *path, size_t max,
			int fifo_ms, size_t *len);

/*
 * A scalar as shown in messages, cut to YTREE_QUOTE_MAX bytes (with
 * "..."): quoted, or as is for values known to be well-formed. buf
 * should hold YTREE_QUOTE_BUF bytes; returns buf.
 */
const char *ytree_quote(const struct ytree_node *n, char *buf, size_t len);
const char *ytree_shown(const struct ytree_node *n, char *buf, size_t len);

/*
 * The key path: ytree_path_key appends ".key" (or "key" at the top),
 * ytree_path_index "[i]"; both return the length to give ytree_path_cut
 * on the way back up.
 */
size_t ytree_path_key(struct ytree_ctx *x, const char *key);
size_t ytree_path_index(struct ytree_ctx *x, size_t i);
void ytree_path_cut(struct ytree_ctx *x, size_t saved);

/*
 * Collects the values of mapping map (at the current path) by their index
 * in keys (at most YTREE_MAX_FIELDS). Unknown keys (with a suggestion
 * when one is close), duplicate and non-scalar keys are errors. A null
 * node stands for an empty mapping.
 */
int ytree_fields_get(struct ytree_ctx *x, const struct ytree_node *map,
		     const char *const *keys, size_t n, struct ytree_fields *f);

/*
 * The closest of names[] to s, within 2 edits and fewer than the name's
 * length, for "did you mean" hints; NULL if none is that close.
 */
const char *ytree_closest(const char *s, const char *const *names, size_t n);

/* The error for key i of f if it is required but absent, else 0. */
int ytree_need(struct ytree_ctx *x, const struct ytree_fields *f, size_t i);

/* An error about key i of f (which is present), at its value. */
__attribute__((format(printf, 4, 5))) int
ytree_fail_key(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
	       const char *fmt, ...);

/*
 * Node getters: each checks n, stores the value in *out and returns 0,
 * or writes the error and returns -EINVAL leaving *out alone. what names
 * the expected kind of value in ytree_want_scalar's messages.
 */
int ytree_want_scalar(struct ytree_ctx *x, const struct ytree_node *n,
		      const char *what);
/* A newly allocated copy; the old *out is freed. */
int ytree_str(struct ytree_ctx *x, const struct ytree_node *n, char **out);
/* true/false, yes/no, on/off in any case. */
int ytree_bool(struct ytree_ctx *x, const struct ytree_node *n, bool *out);
/* Decimal digits in [min, max]. */
int ytree_uint(struct ytree_ctx *x, const struct ytree_node *n, uint64_t min,
	       uint64_t max, uint64_t *out);
/*
 * A finite decimal or exponent number ("1e-6", "0.5", "-3"): hex, inf,
 * nan and trailing text are "not a number"; a value past a double's
 * range (overflow, or underflow to 0 or a subnormal) is "out of range".
 */
int ytree_node_double(struct ytree_ctx *x, const struct ytree_node *n,
		      double *out);
/* A duration (units_parse_duration) in [min, max]; zero_ok also lets 0 in. */
int ytree_duration(struct ytree_ctx *x, const struct ytree_node *n,
		   uint64_t min, uint64_t max, bool zero_ok, uint64_t *out);
/* A size in bytes (units_parse_size) in [min, max]. */
int ytree_size(struct ytree_ctx *x, const struct ytree_node *n, uint64_t min,
	       uint64_t max, uint64_t *out);
/* One of names[] (case-sensitive); *out gets the matching values[]. */
int ytree_enum(struct ytree_ctx *x, const struct ytree_node *n,
	       const char *const *names, const int *values, size_t count,
	       int *out);
/* A list, or null for an empty one; *count gets its item count. */
int ytree_want_seq(struct ytree_ctx *x, const struct ytree_node *n,
		   size_t *count);

/*
 * The same for key i of f, with the key on the path while its value is
 * checked: an absent key returns 0 and leaves *out alone.
 */
int ytree_opt_str(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		  char **out);
/* A path (as ytree_opt_str) that, if it exists, must be a regular file
 * of at most max bytes (rfile_check): a FIFO, a device or a directory
 * is refused here, before anything opens it. A path that does not exist
 * or cannot be looked at passes: whoever reads it reports that. */
int ytree_opt_file(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   size_t max, char **out);
int ytree_opt_bool(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   bool *out);
int ytree_opt_uint(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   unsigned min, unsigned max, unsigned *out);
int ytree_opt_duration(struct ytree_ctx *x, const struct ytree_fields *f,
		       size_t i, uint64_t min, uint64_t max, bool zero_ok,
		       uint64_t *out);
int ytree_opt_size(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   uint64_t min, uint64_t max, uint64_t *out);
int ytree_opt_enum(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   const char *const *names, const int *values, size_t count,
		   int *out);

/*
 * Parses an optional '-' and decimal digits (nothing else): 0, -EINVAL
 * (not that shape) or -ERANGE (past 64 bits).
 */
int ytree_parse_uint(const char *s, bool *neg, uint64_t *v);

#endif
