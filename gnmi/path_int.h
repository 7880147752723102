/*
 * gnmi_path internal: the path printer that gnmi_path_format (path.c)
 * and gnmi_view_format (value_text.c) share, so that both print a path
 * with the same escapes. Internal to gnmi/path.c and gnmi/value_text.c.
 * snprintf-style: counts every byte, stores what fits; no state, any
 * thread.
 */
#ifndef FABMON_GNMI_PATH_INT_H
#define FABMON_GNMI_PATH_INT_H

#include <stddef.h>

struct gnmi_path_out {
	char *buf;
	size_t len; /* size of buf; 0 to count only */
	size_t n;   /* bytes the path needs, without the NUL */
};

/* Starts the path: "origin:" when origin is set and not empty; "/" alone
 * when the path has no element (n_elem == 0). */
void gnmi_path_out_start(struct gnmi_path_out *o, const char *origin,
			 size_t n_elem);
/* One element's name, len bytes: "/name". */
void gnmi_path_out_elem(struct gnmi_path_out *o, const char *name, size_t len);
/* One key of the element printed last: "[name=value]". */
void gnmi_path_out_key(struct gnmi_path_out *o, const char *name,
		       size_t name_len, const char *value, size_t value_len);
/* Terminates buf (when len > 0, cutting if needed) and returns n. */
size_t gnmi_path_out_end(struct gnmi_path_out *o);

#endif
