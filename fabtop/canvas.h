/*
 * canvas: a grid of character cells with an attribute each, the one
 * surface fabtop's views draw on. The curses front end copies it to the
 * terminal, batch mode prints it as plain text, the tests read it back.
 *
 * Cells hold one wide character of display width 1: text is decoded from
 * UTF-8 as it is put, and anything that is not a printable character of
 * width 1 (control bytes, invalid UTF-8, wide or combining characters,
 * any non-ASCII in ASCII mode) becomes '?', so columns always line up.
 * Writes past the edges are clipped. A canvas belongs to one thread.
 */
#ifndef FABMON_FABTOP_CANVAS_H
#define FABMON_FABTOP_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/* Cell attributes: one colour class, plus flags. */
enum canvas_attr {
	CA_NORMAL = 0,
	CA_OK = 1,	  /* green: up, healthy */
	CA_WARN = 2,	  /* yellow: pending, some pause */
	CA_CRIT = 3,	  /* red: firing, down, drops */
	CA_DIM = 4,	  /* resolved, unknown */
	CA_TITLE = 5,	  /* header and column titles */
	CA_COLOUR = 7,	  /* mask of the colour class */
	CA_BOLD = 8,	  /* flag */
	CA_SELECTED = 16, /* flag: the cursor's row */
};

struct canvas {
	int rows, cols;
	int used; /* rows written: one past the last row touched */
	bool ascii;
	wchar_t *ch;
	unsigned char *attr;
};

/* A rows x cols canvas of spaces; ascii selects the ASCII glyph set and
 * replaces non-ASCII text. */
struct canvas *canvas_new(int rows, int cols, bool ascii);
void canvas_free(struct canvas *c);
/* Blanks every cell and resets used. */
void canvas_clear(struct canvas *c);

/* Puts UTF-8 text at (row, col) with attr; returns the column after it
 * (clipped text counts as put). */
int canvas_put(struct canvas *c, int row, int col, int attr, const char *s);
/* Same, at most width cells, padded with spaces to width. */
int canvas_putw(struct canvas *c, int row, int col, int width, int attr,
		const char *s);
int canvas_putf(struct canvas *c, int row, int col, int attr, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));
/* Puts one wide character (a glyph). */
void canvas_putwc(struct canvas *c, int row, int col, int attr, wchar_t w);
/* ORs flags into every cell of a row (CA_SELECTED for the cursor). */
void canvas_row_flags(struct canvas *c, int row, int flags);

/*
 * Row as UTF-8 (or ASCII) text without trailing spaces into buf (always
 * NUL-terminated, truncated to buflen); returns its length.
 */
size_t canvas_line(const struct canvas *c, int row, char *buf, size_t buflen);

/* Glyphs of the canvas's set. */
const char *canvas_glyph_tee(const struct canvas *c);	 /* "├─" */
const char *canvas_glyph_corner(const struct canvas *c); /* "└─" */
const char *canvas_glyph_pipe(const struct canvas *c);	 /* "│ " */
/* The sparkline glyph of level 0..7. */
wchar_t canvas_glyph_spark(const struct canvas *c, int level);

#endif
