/*
 * gnmi_client objects streams: the Subscribe of a name map's objects
 * (profile maps:, doc/profiles.md). A switch whose profile has maps
 * gets, per map, one more stream next to its main one: it lists one
 * path per object id the map names ("COUNTERS/oid:0x1a…", built
 * element by element), and is idle while the map names none.
 *
 * A Subscribe's list cannot be changed, so a new set of objects means
 * cancelling the stream and subscribing again, which costs the
 * target a new initial dump of every listed object. It is done only
 * when the set of ids changes (not when the map is sent again with
 * the same ids, nor when a field moves to an id already listed), once
 * the map has been quiet for OBJ_QUIET_NS, never sooner than
 * OBJ_MIN_GAP_NS after the previous Subscribe, and at most
 * OBJ_MAX_DELAY_NS after the first unserved change (so a map that
 * never stops changing is still served). The map's own stream is never
 * touched: it goes on streaming the map and the other counters.
 *
 * Threads: runs on the switch's thread, which carries all its streams
 * and their shared objmap (client_int.h).
 */
#include "config.h"

#include "client_int.h"

#include "mem.h"
#include "objmap.h"
#include "profile.h"

#include <grpc/grpc.h>

#include <stdlib.h>
#include <string.h>

void client_objects_take(struct gtarget *t)
{
	const struct cfg_gnmi_sub *os = NULL;
	size_t n = 0;
	gnmi_profile_map_info(t->profile, t->obj_map, NULL, &os);
	const char *const *ids = gnmi_objmap_objects(t->objmap, t->obj_map, &n);

	for (size_t i = 0; i < t->n_subs; i++)
		gnmi_path_clear(&t->subs[i].path);
	free(t->subs);
	t->subs = xcalloc(n ? n : 1, sizeof *t->subs);
	t->n_subs = 0;
	for (size_t i = 0; i < n; i++) {
		struct gnmi_path *p = gnmi_profile_map_object_path(
		    t->profile, t->obj_map, ids[i]);
		struct gsub *s = &t->subs[t->n_subs++];
		s->path = *p;
		free(p);
		s->mode = os->mode;
		s->sample_ns = os->sample_interval_ns;
		if (!s->sample_ns && s->mode == CFG_SUB_SAMPLE)
			s->sample_ns = (uint64_t)t->every_ns;
		s->heartbeat_ns = os->heartbeat_interval_ns;
		s->suppress_redundant = os->suppress_redundant;
	}
	t->obj_set_gen = gnmi_objmap_set_gen(t->objmap);
	t->obj_pending_ns = 0;
	t->obj_last_sub_ns = mono_ns();
}

/* When a pending change of the set is to be served. */
static int64_t objects_due(const struct gtarget *t)
{
	int64_t due = gnmi_objmap_set_changed_ns(t->objmap) + OBJ_QUIET_NS;
	if (t->obj_last_sub_ns && t->obj_last_sub_ns + OBJ_MIN_GAP_NS > due)
		due = t->obj_last_sub_ns + OBJ_MIN_GAP_NS;
	if (t->obj_pending_ns && t->obj_pending_ns + OBJ_MAX_DELAY_NS < due)
		due = t->obj_pending_ns + OBJ_MAX_DELAY_NS;
	return due;
}

static bool objects_changed(const struct gtarget *t)
{
	return gnmi_objmap_set_gen(t->objmap) != t->obj_set_gen;
}

void client_objects_timer(struct gtarget *t, int64_t now)
{
	size_t n = 0;
	if (t->state == GS_FAILED || t->stopping)
		return;
	gnmi_objmap_objects(t->objmap, t->obj_map, &n);
	if (t->state == GS_IDLE || t->state == GS_WAIT) {
		/* Nothing to list: wait for the map (notify sets a timer). */
		if (n == 0)
			return;
		if (t->state == GS_IDLE && objects_changed(t) &&
		    now < objects_due(t)) {
			set_timer(t, objects_due(t));
			return;
		}
		client_connect_target(t);
		return;
	}
	if (t->state == GS_STREAM && t->cfg->mode == CFG_GNMI_POLL &&
	    !objects_changed(t)) {
		client_send_poll(t);
		set_timer(t, now + t->every_ns);
		return;
	}
	if (t->state != GS_STREAM || !objects_changed(t) || !t->call ||
	    t->resubscribing)
		return;
	if (now < objects_due(t)) {
		set_timer(t, objects_due(t));
		return;
	}
	log_info("gnmi", "%s: %zu objects now: subscribing again", t->name, n);
	t->resubscribing = true;
	grpc_call_cancel(t->call, NULL);
}

/* The set changed under objects stream t: serve it in time. */
static void objects_kick(struct gtarget *t, int64_t now)
{
	if (t->stopping || t->state == GS_FAILED || t->state == GS_CAPS)
		return;
	/* A backoff in progress is kept: the connect takes the set. */
	if (t->state == GS_WAIT && t->t_action)
		return;
	if (!t->obj_pending_ns)
		t->obj_pending_ns = now;
	int64_t due = objects_due(t);
	set_timer(t, due > now ? due : now);
}

void client_objects_notify(struct gtarget *t)
{
	uint64_t g = gnmi_objmap_set_gen(t->objmap);
	if (g == t->seen_set_gen)
		return;
	t->seen_set_gen = g;
	int64_t now = mono_ns();
	for (struct gtarget *x = t->th->targets; x; x = x->next)
		if (x->is_objects && x->objmap == t->objmap &&
		    objects_changed(x))
			objects_kick(x, now);
}
