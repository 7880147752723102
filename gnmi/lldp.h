/*
 * gnmi_lldp: the LLDP neighbours a gNMI target publishes, fed to the
 * link table (core/links.h) the way SNMP's LLDP-MIB poller feeds it.
 *
 * It reads OpenConfig's lldp tree, whatever the encoding (the walk
 * flattens JSON containers into the same views):
 *
 *   /lldp/interfaces/interface[name=P]/neighbors/neighbor[id=I]/state/
 *       system-name, port-id, port-id-type, port-description
 *
 * and SONiC's APPL_DB table, whatever its shape (the table, or one
 * entry per port):
 *
 *   LLDP_ENTRY_TABLE/P/lldp_rem_sys_name, lldp_rem_port_id,
 *       lldp_rem_port_id_subtype (the LldpPortIdSubtype number),
 *       lldp_rem_port_desc
 *
 * (one neighbour per local port P; sonic-gnmi serves it on a Subscribe
 * with prefix target APPL_DB, a second stream beside COUNTERS_DB's).
 * Every leaf under /lldp or LLDP_ENTRY_TABLE is its own (the rest of
 * the tree, config, counters, chassis and capabilities, is taken and
 * ignored, so it is never "unmapped"). A local
 * port may list several neighbours; like the SNMP poller, it gives the
 * link table the first complete one (system name and port id) in the
 * order they arrived, and forgets the port when none is left.
 * port-id-type (an identityref, module prefix optional) gives the port
 * id's LldpPortIdSubtype: MAC_ADDRESS ids resolve through the NIC MACs
 * the link table knows; none given counts as LOCAL (a port name).
 *
 * A neighbour leaves when the target deletes it (the neighbour, its
 * state, its interface or the whole tree; a deleted system-name or
 * port-id leaves it incomplete, so gone too), and when a subscription's
 * initial contents, up to its sync_response, no longer list it
 * (gnmi_lldp_begin_sync / gnmi_lldp_sync: a neighbour that left while
 * the stream was down, or between two polls). Reports carry source
 * "gnmi" (the topology's reporter). Since on-change subscriptions send a
 * neighbour once, the link table's LLDP ageing would drop it: every
 * GNMI_LLDP_REFRESH_NS of flushes the whole list is reported again,
 * which changes nothing in the table but its age. When the target stops
 * being collected (gnmi_lldp_free) its ports are forgotten.
 *
 * Strings that come from JSON are raw (escapes included, gnmi_value.h);
 * a name or id with a backslash is unescaped as JSON.
 *
 * Threading: one per target, used by that target's thread only; the
 * link table it reports to is safe from any thread.
 */
#ifndef FABMON_GNMI_LLDP_H
#define FABMON_GNMI_LLDP_H

#include "units.h"
#include "value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gnmi_lldp;
struct links;

/* Well inside the link table's 120 s LLDP TTL (LINKS_DEFAULT_LLDP_TTL_NS). */
#define GNMI_LLDP_REFRESH_NS (30 * NS_PER_S)

/* A reader for device (the target's name, the local device of every
 * link it reports) reporting into l as source. Never NULL. */
struct gnmi_lldp *gnmi_lldp_new(struct links *l, const char *device,
				const char *source);
/* Forgets every port it reported, then frees. NULL does nothing. */
void gnmi_lldp_free(struct gnmi_lldp *g);

/* A leaf of a notification: true if it is under /lldp (then it is
 * taken; only neighbour state leaves change anything). */
bool gnmi_lldp_leaf(struct gnmi_lldp *g, const struct gnmi_view *v,
		    const struct gnmi_scalar *val);
/* A deleted path: true if it is under /lldp. */
bool gnmi_lldp_delete(struct gnmi_lldp *g, const struct gnmi_view *v);

/* Hands what changed since the last flush to the link table (after each
 * notification), and the whole list when GNMI_LLDP_REFRESH_NS have
 * passed since it last did (now_ns: CLOCK_MONOTONIC). */
void gnmi_lldp_flush(struct gnmi_lldp *g, int64_t now_ns);

/* A subscription starts: what it sends up to its sync_response is the
 * target's whole list. */
void gnmi_lldp_begin_sync(struct gnmi_lldp *g);
/* sync_response: neighbours not sent since gnmi_lldp_begin_sync (or the
 * previous sync, for polls) are gone (the next flush tells the table). */
void gnmi_lldp_sync(struct gnmi_lldp *g);

/* Neighbours held (complete or not), for tests. */
size_t gnmi_lldp_count(const struct gnmi_lldp *g);

#endif
