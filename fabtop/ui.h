/*
 * ui: fabtop's interactive front end on ncursesw. Owns the terminal
 * from ui_run's start to its return; refreshes the data every delay
 * seconds (unless paused), redraws on data, keys and resizes.
 */
#ifndef FABMON_FABTOP_UI_H
#define FABMON_FABTOP_UI_H

#include "fetch.h"
#include "view.h"

#include <stdbool.h>

struct ui_opts {
	double delay;	/* seconds between refreshes */
	int port_limit; /* ports asked for per refresh */
	bool ascii;	/* ASCII glyphs only */
	bool colour;	/* use colours when the terminal has them */
};

/* Runs until q; returns the process exit status (0), or 1 when the
 * terminal could not be set up (with a message on stderr). */
int ui_run(struct view_state *st, struct fetch *f, const struct ui_opts *o);

#endif
