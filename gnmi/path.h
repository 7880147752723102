/*
 * gnmi_path: gNMI paths as fabmon handles them: parsed from and printed
 * to the path syntax of the config and profiles, and converted to and
 * from protobuf-c's gnmi.Path.
 *
 * Syntax (gNMI path conventions, as gnmic and the specification print
 * them): an optional origin and colon, then elements separated by '/',
 * each a name with optional [key=value] pairs:
 *
 *   /interfaces/interface[name=Ethernet1/1]/state/counters
 *   openconfig:/qos/interfaces/interface[interface-id=*]/output
 *   COUNTERS/Ethernet*               (relative, as SONiC's DB paths go)
 *
 * In names, '/', '[', ']' and '\' are escaped with '\'; in key values
 * only ']' and '\' need escaping ('/' is plain there). "*" as a name or
 * key value is a wildcard, "..." as a name matches any number of
 * elements. Keys are kept sorted by name, so two paths that differ only
 * in key order are equal and print the same.
 *
 * The origin is what precedes a ':' that comes before any '/', '[' or
 * '\' in a string not starting with '/': in the first element of a
 * relative path write such a colon "\:" ("Ethernet68\:3/x"). Relative
 * and absolute paths are the same path (printing always gives the
 * absolute form); a trailing '/' is ignored, and "" and "/" have no
 * element.
 *
 * Ownership: a struct gnmi_path owns its strings; gnmi_path_clear()
 * frees them. Conversions from protobuf copy, so the protobuf message
 * may be freed (or its arena reset) afterwards.
 */
#ifndef FABMON_GNMI_PATH_H
#define FABMON_GNMI_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* protobuf-c >= 1.4 names the generated struct Gnmi__Path (no leading
 * underscore); the forward declaration must use that tag so callers can
 * pass the generated Gnmi__Path * without a cast. */
struct Gnmi__Path;

struct gnmi_path_key {
	char *name;
	char *value;
};

struct gnmi_path_elem {
	char *name;
	struct gnmi_path_key *keys; /* sorted by name */
	size_t n_keys;
};

struct gnmi_path {
	char *origin; /* NULL if none */
	char *target; /* NULL if none (never in the string syntax) */
	struct gnmi_path_elem *elem;
	size_t n_elem;
};

/*
 * Parses s into *p (which it initialises). 0, or -EINVAL with a message
 * naming the column in err ("column 14: unterminated key").
 */
int gnmi_path_parse(const char *s, struct gnmi_path *p, char *err,
		    size_t errlen);
void gnmi_path_clear(struct gnmi_path *p);
/* Deep copy of src into *dst. */
void gnmi_path_copy(struct gnmi_path *dst, const struct gnmi_path *src);

/*
 * Prints p in the syntax above (with the origin, without the target)
 * into buf; returns the length the whole string needs, as snprintf.
 * A path with no element prints "/".
 */
size_t gnmi_path_format(const struct gnmi_path *p, char *buf, size_t len);
/* The same into a new string the caller frees. */
char *gnmi_path_string(const struct gnmi_path *p);

/* True if any element or key value is a wildcard. */
bool gnmi_path_has_wildcards(const struct gnmi_path *p);

/*
 * Appends the elements of b to a copy of a (the gNMI prefix + path
 * join): origin and target come from b when set, else from a. out is
 * initialised; it may also be a or b, which it then replaces.
 */
void gnmi_path_join(struct gnmi_path *out, const struct gnmi_path *a,
		    const struct gnmi_path *b);

/*
 * Converts a protobuf gnmi.Path (elem, or the deprecated element
 * strings, which are parsed as path elements) into *out. 0, or -EINVAL
 * if a deprecated element string does not parse.
 */
int gnmi_path_from_pb(const struct Gnmi__Path *pb, struct gnmi_path *out);
/* A heap-allocated protobuf gnmi.Path for p; free it with
 * gnmi_path_pb_free() (not protobuf_c_message_free_unpacked). */
struct Gnmi__Path *gnmi_path_to_pb(const struct gnmi_path *p);
void gnmi_path_pb_free(struct Gnmi__Path *pb);

#endif
