/*
 * buf: a growable byte buffer for rendering responses, with the number
 * formatting the exporters need (fast integers, round-tripping doubles,
 * Prometheus spellings of NaN and infinities) and gzip compression.
 *
 * A response can be hundreds of megabytes (a million series), so growth
 * is amortised (doubling) and uses plain realloc: a failed allocation
 * does not abort the daemon, it makes the buffer "failed" (sticky), later
 * appends are ignored and the caller sees -ENOMEM from buf_error().
 * Appends are inline on the fast path (the bytes fit) so the renderers
 * pay a compare and a memcpy per piece.
 *
 * Threading: a buffer belongs to one thread at a time; there is no
 * shared or static state. Ownership: the buffer owns data until
 * buf_steal() hands it (malloc'ed, free() it) to the caller.
 */
#ifndef FABMON_BUF_H
#define FABMON_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct buf {
	char *data; /* NULL until the first append */
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed; contents are incomplete */
};

/* Longest text buf_put_double() writes ("-1.2345678901234567e-308"). */
#define BUF_DOUBLE_MAX 32

/* An empty buffer; no allocation until the first append. */
void buf_init(struct buf *b);
/* Frees the data; the buffer is empty and usable again. */
void buf_fini(struct buf *b);
/* Keeps the allocation, forgets the contents and the failed flag. */
void buf_reset(struct buf *b);
/* Makes room for n more bytes. 0, or -ENOMEM (and the buffer fails). */
int buf_reserve(struct buf *b, size_t n);
/* 0, or -ENOMEM if any allocation failed since init/reset. */
int buf_error(const struct buf *b);
/*
 * Hands the contents to the caller (malloc'ed, NUL-terminated, length in
 * *len; free() it) and leaves the buffer empty. NULL if the buffer
 * failed or a terminator cannot be added.
 */
char *buf_steal(struct buf *b, size_t *len);

/* Slow path of the appends below: grows, then copies. */
void buf_append_slow(struct buf *b, const void *p, size_t n);

static inline void buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->cap - b->len >= n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	} else {
		buf_append_slow(b, p, n);
	}
}

static inline void buf_putc(struct buf *b, char c)
{
	if (b->len < b->cap)
		b->data[b->len++] = c;
	else
		buf_append_slow(b, &c, 1);
}

static inline void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

/* printf into the buffer (any length). */
void buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Decimal digits of v, without printf. */
void buf_put_u64(struct buf *b, uint64_t v);
void buf_put_i64(struct buf *b, int64_t v);
/*
 * v as Prometheus and JSON readers parse it back to the same double:
 * integral values in the int64/uint64 range as plain integers, others
 * as the fixed-point decimal with the fewest fraction digits that reads
 * back as v ("3.5", "0.000001"), both without printf; what that cannot
 * spell with at most 16 digits in %.17g, or for magnitudes past 2^53 or
 * below 1e-5 in the shortest of %.15g/%.16g/%.17g that round-trips. NaN as
 * "NaN", infinities as
 * "+Inf"/"-Inf" (the caller avoids those in JSON).
 */
void buf_put_double(struct buf *b, double v);
/*
 * Writes the formatted text of v into out (at least BUF_DOUBLE_MAX
 * bytes), NUL-terminated; returns its length. Same rules as above.
 */
size_t buf_format_double(double v, char *out);

/*
 * Appends s with the escapes of a Prometheus label value (\\, \", \n);
 * buf_put_help_escaped() those of a HELP text (\\, \n).
 */
void buf_put_label_escaped(struct buf *b, const char *s);
void buf_put_help_escaped(struct buf *b, const char *s);

/*
 * Compresses n bytes at data into out (appended) as a gzip stream
 * (RFC 1952) at zlib level (1 fast .. 9 small; -1 zlib's default).
 * 0, -ENOMEM, or -EIO on a zlib failure.
 */
int buf_gzip(const void *data, size_t n, int level, struct buf *out);

#endif
