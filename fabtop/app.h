/*
 * app: one refresh of fabtop's data: asks fabmond for its status,
 * targets, ports and incidents (doc/api.md), parses each answer into the
 * view state and records the sparkline history. The layer between the
 * HTTP client (fetch) and the views; both front ends call it. One
 * thread.
 */
#ifndef FABMON_FABTOP_APP_H
#define FABMON_FABTOP_APP_H

#include "fetch.h"
#include "view.h"

/*
 * Refreshes st from fabmond through f, asking for at most port_limit
 * ports (sorted by the ports view's column). now is the wall clock in
 * seconds since the epoch. Returns 0 when fabmond answered (HTTP errors
 * and malformed answers are reported in st->error and keep the previous
 * data of that part), -1 when it could not be reached: st->connected is
 * then false, st->conn_error says why, and every part keeps its data.
 */
int app_refresh(struct view_state *st, struct fetch *f, int port_limit,
		double now);

#endif
