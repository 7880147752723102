/*
 * ui: the curses loop (see ui.h).
 *
 * Each frame is drawn on a canvas, then copied onto stdscr after werase
 * (never clear, which would repaint the whole terminal) and sent with
 * wnoutrefresh + doupdate, so curses writes only the cells that changed:
 * no flicker, little traffic over ssh. Keys are read with a timeout that
 * ends at the next refresh; KEY_RESIZE (ncurses turns SIGWINCH into it)
 * resizes the canvas. Without colours, severity is bold, underline and
 * dim, and the cursor's row is reverse video.
 */
#include "config.h"

#include "ui.h"

#include "app.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool use_colour;

static attr_t to_curses(int a, short *pair)
{
	attr_t r = A_NORMAL;
	int cls = a & CA_COLOUR;
	*pair = 0;
	if (use_colour) {
		if (cls >= CA_OK && cls <= CA_CRIT)
			*pair = (short)cls;
		else if (cls == CA_DIM)
			r |= A_DIM;
		else if (cls == CA_TITLE)
			r |= A_REVERSE;
	} else {
		if (cls == CA_CRIT)
			r |= A_BOLD | A_UNDERLINE;
		else if (cls == CA_WARN)
			r |= A_BOLD;
		else if (cls == CA_DIM)
			r |= A_DIM;
		else if (cls == CA_TITLE)
			r |= A_REVERSE;
	}
	if (a & CA_BOLD)
		r |= A_BOLD;
	if (a & CA_SELECTED)
		r ^= A_REVERSE;
	return r;
}

static void blit(const struct canvas *c)
{
	werase(stdscr);
	int rows = c->rows < LINES ? c->rows : LINES;
	int cols = c->cols < COLS ? c->cols : COLS;
	for (int r = 0; r < rows; r++) {
		const wchar_t *ch = c->ch + (size_t)r * (size_t)c->cols;
		const unsigned char *at = c->attr + (size_t)r * (size_t)c->cols;
		int x = 0;
		while (x < cols) {
			int e = x + 1;
			while (e < cols && at[e] == at[x])
				e++;
			/* The bottom-right cell would scroll: stop short. */
			int n = e - x;
			if (r == LINES - 1 && e == COLS)
				n--;
			short pair;
			attr_t a = to_curses(at[x], &pair);
			wattr_set(stdscr, a, pair, NULL);
			if (n > 0)
				mvwaddnwstr(stdscr, r, x, ch + x, n);
			x = e;
		}
	}
	wattr_set(stdscr, A_NORMAL, 0, NULL);
	wnoutrefresh(stdscr);
	doupdate();
}

static enum view_act key_action(int key, bool fkey)
{
	if (fkey) {
		switch (key) {
		case KEY_UP:
			return VA_UP;
		case KEY_DOWN:
			return VA_DOWN;
		case KEY_PPAGE:
			return VA_PGUP;
		case KEY_NPAGE:
			return VA_PGDN;
		case KEY_HOME:
			return VA_HOME;
		case KEY_END:
			return VA_END;
		case KEY_ENTER:
			return VA_ENTER;
		case KEY_LEFT:
		case KEY_BACKSPACE:
			return VA_BACK;
		case KEY_F(1):
			return VA_HELP;
		case KEY_F(6):
			return VA_SORT;
		case KEY_F(10):
			return VA_QUIT;
		default:
			return VA_NONE;
		}
	}
	switch (key) {
	case 'q':
	case 'Q':
		return VA_QUIT;
	case 'h':
	case '?':
		return VA_HELP;
	case 'k':
		return VA_UP;
	case 'j':
		return VA_DOWN;
	case 'g':
		return VA_HOME;
	case 'G':
		return VA_END;
	case '\n':
	case '\r':
		return VA_ENTER;
	case 27:
		return VA_BACK;
	case 's':
	case 'S':
		return VA_SORT;
	case 'r':
	case 'R':
		return VA_REVERSE;
	case '/':
		return VA_FILTER;
	case 'p':
	case 'P':
	case ' ':
		return VA_PAUSE;
	case '1':
		return VA_VIEW1;
	case '2':
		return VA_VIEW2;
	case '3':
		return VA_VIEW3;
	case '4':
		return VA_VIEW4;
	case '5':
		return VA_VIEW5;
	default:
		return VA_NONE;
	}
}

/* Feeds a typed wide character to the filter as UTF-8 bytes. */
static void filter_wchar(struct view_state *st, wint_t w)
{
	char mb[8];
	unsigned long cp = (unsigned long)w;
	int n = 0;
	if (cp < 0x80) {
		mb[n++] = (char)cp;
	} else if (cp < 0x800) {
		mb[n++] = (char)(0xc0 | (cp >> 6));
		mb[n++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		mb[n++] = (char)(0xe0 | (cp >> 12));
		mb[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		mb[n++] = (char)(0x80 | (cp & 0x3f));
	} else {
		return;
	}
	for (int i = 0; i < n; i++)
		view_filter_key(st, (unsigned char)mb[i]);
}

int ui_run(struct view_state *st, struct fetch *f, const struct ui_opts *o)
{
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr,
			"fabtop: cannot use the terminal (TERM=%s); "
			"try -b for batch mode\n",
			getenv("TERM") ? getenv("TERM") : "");
		return 1;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	use_colour = o->colour && has_colors();
	if (use_colour) {
		start_color();
		use_default_colors();
		init_pair(CA_OK, COLOR_GREEN, -1);
		init_pair(CA_WARN, COLOR_YELLOW, -1);
		init_pair(CA_CRIT, COLOR_RED, -1);
	}
	struct canvas *c = canvas_new(LINES, COLS, o->ascii);
	double next = 0;
	bool dirty = true;
	for (;;) {
		double t = now_mono();
		if (!st->paused && t >= next) {
			app_refresh(st, f, o->port_limit, now_real());
			next = now_mono() + o->delay;
			dirty = true;
		}
		if (dirty) {
			st->now = now_real();
			view_draw(st, c);
			blit(c);
			dirty = false;
		}
		double wait = st->paused ? 1.0 : next - now_mono();
		int ms = wait <= 0 ? 0 : (int)ceil(wait * 1000);
		wtimeout(stdscr, ms > 1000 ? 1000 : ms);
		wint_t w;
		int rc = wget_wch(stdscr, &w);
		if (rc == ERR) {
			dirty = true; /* ages move on */
			continue;
		}
		dirty = true;
		if (rc == KEY_CODE_YES && w == KEY_RESIZE) {
			canvas_free(c);
			c = canvas_new(LINES, COLS, o->ascii);
			continue;
		}
		if (st->editing) {
			if (rc == KEY_CODE_YES) {
				if (w == KEY_BACKSPACE)
					view_filter_key(st, '\b');
				else if (w == KEY_ENTER)
					view_filter_key(st, '\n');
			} else if (w == '\n' || w == '\r' || w == 27 ||
				   w == 127 || w == '\b') {
				view_filter_key(st, (int)w);
			} else {
				filter_wchar(st, w);
			}
			continue;
		}
		enum view_act a = key_action((int)w, rc == KEY_CODE_YES);
		if (a == VA_PAUSE && st->paused)
			next = 0; /* resuming refreshes at once */
		if (!view_action(st, a))
			break;
		if (a == VA_SORT || a == VA_REVERSE)
			next = 0; /* ask fabmond for the new order */
	}
	canvas_free(c);
	endwin();
	return 0;
}
