/*
 * fabmond: the daemon's lifecycle. Loads the config, brings the modules
 * up in dependency order (store, health, collectors, HTTP), serves until
 * SIGTERM/SIGINT, reloads on SIGHUP (load and validate on cfgload's
 * thread, swap on the main one; a bad file keeps the old config running)
 * and tears down in exact reverse order.
 *
 * The main thread owns signals: they are blocked before any other thread
 * starts and taken synchronously with sigtimedwait(), so no handler runs
 * in an arbitrary thread and no module needs to be async-signal-safe.
 */
#ifndef FABMON_FABMOND_H
#define FABMON_FABMOND_H

#include <stdbool.h>
#include <stddef.h>

struct fabmond_opts {
	const char *config_path;  /* NULL: the default file if it exists */
	const char *const *debug; /* -D subsystem tokens */
	size_t n_debug;
	int ready_fd; /* >= 0: write one byte there once serving */
};

struct cfg_schema;

/* The sections fabmon.yaml may hold: every collector's config hooks of
 * this build, then the rules', alert's and report's. Static; the first
 * call builds it (any thread). Pass it to cfg_load(). */
const struct cfg_schema *fabmond_cfg_schema(void);

/* The config file used when -c is not given. */
const char *fabmond_default_config(void);

/* Runs the daemon until asked to stop; returns the exit status. */
int fabmond_run(const struct fabmond_opts *o);

/* Loads path (NULL: the default) and reports on stdout/stderr: 0 if the
 * config is valid, 1 if not, with the loader's message. */
int fabmond_check_config(const char *path);

#endif
