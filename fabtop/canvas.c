/*
 * canvas: the cell grid fabtop draws on (see canvas.h).
 *
 * The UTF-8 decoder is local so that a canvas does not depend on the
 * process's locale; only wcwidth (used to keep columns aligned) does,
 * and in a non-UTF-8 locale fabtop runs with an ASCII canvas anyway.
 */
#include "config.h"

#include "canvas.h"

#include "mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct canvas *canvas_new(int rows, int cols, bool ascii)
{
	struct canvas *c = xcalloc(1, sizeof *c);
	c->rows = rows > 0 ? rows : 1;
	c->cols = cols > 0 ? cols : 1;
	c->ascii = ascii;
	size_t n = (size_t)c->rows * (size_t)c->cols;
	c->ch = xreallocarray(NULL, n, sizeof *c->ch);
	c->attr = xmalloc(n);
	canvas_clear(c);
	return c;
}

void canvas_free(struct canvas *c)
{
	if (!c)
		return;
	free(c->ch);
	free(c->attr);
	free(c);
}

void canvas_clear(struct canvas *c)
{
	size_t n = (size_t)c->rows * (size_t)c->cols;
	for (size_t i = 0; i < n; i++)
		c->ch[i] = L' ';
	memset(c->attr, 0, n);
	c->used = 0;
}

static bool inside(const struct canvas *c, int row, int col)
{
	return row >= 0 && row < c->rows && col >= 0 && col < c->cols;
}

static void set_cell(struct canvas *c, int row, int col, int attr, wchar_t w)
{
	if (!inside(c, row, col))
		return;
	size_t i = (size_t)row * (size_t)c->cols + (size_t)col;
	c->ch[i] = w;
	c->attr[i] = (unsigned char)attr;
	if (row + 1 > c->used)
		c->used = row + 1;
}

/* Decodes one UTF-8 sequence at *s; returns the code point or -1 for an
 * invalid sequence (advancing by one byte). */
static long decode(const unsigned char **s)
{
	const unsigned char *p = *s;
	unsigned char b = p[0];
	long cp;
	int more;
	if (b < 0x80) {
		*s = p + 1;
		return b;
	} else if (b >= 0xc2 && b < 0xe0) {
		cp = b & 0x1f;
		more = 1;
	} else if (b >= 0xe0 && b < 0xf0) {
		cp = b & 0x0f;
		more = 2;
	} else if (b >= 0xf0 && b < 0xf5) {
		cp = b & 0x07;
		more = 3;
	} else {
		*s = p + 1;
		return -1;
	}
	for (int i = 1; i <= more; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*s = p + 1;
			return -1;
		}
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	*s = p + more + 1;
	if ((more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return -1;
	return cp;
}

static wchar_t printable(const struct canvas *c, long cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
		return L'?';
	if (cp < 0x80)
		return (wchar_t)cp;
	if (c->ascii || wcwidth((wchar_t)cp) != 1)
		return L'?';
	return (wchar_t)cp;
}

static int put_n(struct canvas *c, int row, int col, int width, int attr,
		 const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int n = 0;
	while (*p && (width < 0 || n < width)) {
		long cp = decode(&p);
		set_cell(c, row, col + n, attr, printable(c, cp));
		n++;
	}
	while (width >= 0 && n < width)
		set_cell(c, row, col + n++, attr, L' ');
	return col + n;
}

int canvas_put(struct canvas *c, int row, int col, int attr, const char *s)
{
	return put_n(c, row, col, -1, attr, s);
}

int canvas_putw(struct canvas *c, int row, int col, int width, int attr,
		const char *s)
{
	return put_n(c, row, col, width < 0 ? 0 : width, attr, s);
}

int canvas_putf(struct canvas *c, int row, int col, int attr, const char *fmt,
		...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	int r = canvas_put(c, row, col, attr, s);
	free(s);
	return r;
}

void canvas_putwc(struct canvas *c, int row, int col, int attr, wchar_t w)
{
	set_cell(c, row, col, attr, w);
}

void canvas_row_flags(struct canvas *c, int row, int flags)
{
	if (row < 0 || row >= c->rows)
		return;
	unsigned char *a = c->attr + (size_t)row * (size_t)c->cols;
	for (int i = 0; i < c->cols; i++)
		a[i] |= (unsigned char)flags;
	if (row + 1 > c->used)
		c->used = row + 1;
}

static size_t encode(wchar_t w, char *o)
{
	unsigned long cp = (unsigned long)w;
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

size_t canvas_line(const struct canvas *c, int row, char *buf, size_t buflen)
{
	if (!buflen)
		return 0;
	buf[0] = '\0';
	if (row < 0 || row >= c->rows)
		return 0;
	const wchar_t *r = c->ch + (size_t)row * (size_t)c->cols;
	int end = c->cols;
	while (end > 0 && r[end - 1] == L' ')
		end--;
	size_t len = 0;
	for (int i = 0; i < end; i++) {
		char tmp[4];
		size_t n = encode(r[i], tmp);
		if (len + n + 1 > buflen)
			break;
		memcpy(buf + len, tmp, n);
		len += n;
	}
	buf[len] = '\0';
	return len;
}

const char *canvas_glyph_tee(const struct canvas *c)
{
	return c->ascii ? "|-" : "\u251c\u2500";
}

const char *canvas_glyph_corner(const struct canvas *c)
{
	return c->ascii ? "`-" : "\u2514\u2500";
}

const char *canvas_glyph_pipe(const struct canvas *c)
{
	return c->ascii ? "| " : "\u2502 ";
}

wchar_t canvas_glyph_spark(const struct canvas *c, int level)
{
	static const char ascii[] = "_.-:=+*#";
	if (level < 0)
		level = 0;
	if (level > 7)
		level = 7;
	return c->ascii ? (wchar_t)ascii[level] : (wchar_t)(0x2581 + level);
}
