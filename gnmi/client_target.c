/*
 * gnmi_client target: a target built from its config (main thread):
 * its profile and mapper, its subscriptions, its TLS material; and the
 * channel and request messages its calls use (its thread). Freed by
 * its thread once stopped and its call is over (client_thread.c).
 */
#include "config.h"

#include "client_int.h"

#include "decode.h"
#include "health.h"
#include "links.h"
#include "lldp.h"
#include "log.h"
#include "mem.h"
#include "objmap.h"
#include "pack.h"
#include "profile.h"
#include "store.h"

#include "gnmi.pb-c.h"
#include "rfile.h"

#include <grpc/grpc_security.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Channel and request construction.
 */

static char *read_pem(const char *path, char *err, size_t errlen)
{
	char why[160];
	size_t len;
	/* rfile: a FIFO or a device named here must not hang the start. */
	char *buf =
	    rfile_load(path, PEM_MAX_BYTES, &len, why, sizeof why, NULL);
	if (buf && len == 0) {
		free(buf);
		buf = NULL;
		snprintf(why, sizeof why, "empty");
	}
	if (!buf)
		snprintf(err, errlen, "%s: %s", path, why);
	return buf;
}

static grpc_channel_credentials *make_creds(struct gtarget *t)
{
	const struct cfg_gnmi *g = t->cfg;
	if (g->insecure)
		return grpc_insecure_credentials_create();
	if (g->skip_verify) {
		/* gnmic's --skip-verify: encrypt, trust anything. */
		grpc_tls_credentials_options *o =
		    grpc_tls_credentials_options_create();
		if (t->cert_pem && t->key_pem) {
			grpc_tls_identity_pairs *pairs =
			    grpc_tls_identity_pairs_create();
			grpc_tls_identity_pairs_add_pair(pairs, t->key_pem,
							 t->cert_pem);
			grpc_tls_certificate_provider *p =
			    grpc_tls_certificate_provider_static_data_create(
				NULL, pairs);
			grpc_tls_credentials_options_set_certificate_provider(
			    o, p);
			grpc_tls_credentials_options_watch_identity_key_cert_pairs(
			    o);
			grpc_tls_certificate_provider_release(p);
		}
		grpc_tls_credentials_options_set_verify_server_cert(o, 0);
		grpc_tls_certificate_verifier *v =
		    grpc_tls_certificate_verifier_no_op_create();
		grpc_tls_credentials_options_set_certificate_verifier(o, v);
		grpc_tls_credentials_options_set_check_call_host(o, 0);
		grpc_channel_credentials *c = grpc_tls_credentials_create(o);
		grpc_tls_certificate_verifier_release(v);
		return c;
	}
	grpc_ssl_pem_key_cert_pair pair = { .private_key = t->key_pem,
					    .cert_chain = t->cert_pem };
	return grpc_ssl_credentials_create(
	    t->ca_pem, t->cert_pem ? &pair : NULL, NULL, NULL);
}

grpc_channel *client_make_channel(struct gtarget *t)
{
	grpc_arg args[8];
	size_t n = 0;
	static char k_maxrecv[] = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
	static char k_keepalive[] = GRPC_ARG_KEEPALIVE_TIME_MS;
	static char k_ka_timeout[] = GRPC_ARG_KEEPALIVE_TIMEOUT_MS;
	static char k_bdp[] = GRPC_ARG_HTTP2_BDP_PROBE;
	static char k_maxback[] = GRPC_ARG_MAX_RECONNECT_BACKOFF_MS;
	static char k_agent[] = GRPC_ARG_PRIMARY_USER_AGENT_STRING;
	static char k_override[] = GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
	static char agent[] = "fabmon/" PACKAGE_VERSION;

	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_maxrecv;
	args[n++].value.integer = (int)t->col->max_message;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_keepalive;
	args[n++].value.integer = KEEPALIVE_MS;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_ka_timeout;
	args[n++].value.integer = 20000;
	/* BDP probing lets a fast target outrun the decoder's memory. */
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_bdp;
	args[n++].value.integer = 0;
	args[n].type = GRPC_ARG_INTEGER;
	args[n].key = k_maxback;
	args[n++].value.integer = (int)(BACKOFF_MAX_NS / NS_PER_MS);
	args[n].type = GRPC_ARG_STRING;
	args[n].key = k_agent;
	args[n++].value.string = agent;
	if (t->cfg->server_name && !t->cfg->insecure) {
		args[n].type = GRPC_ARG_STRING;
		args[n].key = k_override;
		args[n++].value.string = t->cfg->server_name;
	}
	grpc_channel_args ca = { .num_args = n, .args = args };
	grpc_channel_credentials *creds = make_creds(t);
	grpc_channel *ch = grpc_channel_create(t->cfg->address, creds, &ca);
	grpc_channel_credentials_release(creds);
	return ch;
}

void client_fill_metadata(struct gtarget *t)
{
	t->n_md_send = 0;
	if (!t->cfg->username)
		return;
	t->md_send[0].key = grpc_slice_from_static_string("username");
	t->md_send[0].value = grpc_slice_from_copied_string(t->cfg->username);
	t->n_md_send = 1;
	if (t->cfg->password) {
		t->md_send[1].key = grpc_slice_from_static_string("password");
		t->md_send[1].value =
		    grpc_slice_from_copied_string(t->cfg->password);
		t->n_md_send = 2;
	}
}

void client_clear_metadata(struct gtarget *t)
{
	for (size_t i = 0; i < t->n_md_send; i++) {
		grpc_slice_unref(t->md_send[i].key);
		grpc_slice_unref(t->md_send[i].value);
	}
	t->n_md_send = 0;
}

static Gnmi__SubscriptionList__Mode list_mode(enum cfg_gnmi_mode m)
{
	switch (m) {
	case CFG_GNMI_ONCE:
		return GNMI__SUBSCRIPTION_LIST__MODE__ONCE;
	case CFG_GNMI_POLL:
		return GNMI__SUBSCRIPTION_LIST__MODE__POLL;
	case CFG_GNMI_STREAM:
		break;
	}
	return GNMI__SUBSCRIPTION_LIST__MODE__STREAM;
}

grpc_byte_buffer *client_subscribe_request(struct gtarget *t)
{
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	Gnmi__SubscriptionList list = GNMI__SUBSCRIPTION_LIST__INIT;
	Gnmi__Path prefix = GNMI__PATH__INIT;
	Gnmi__Subscription *subs =
	    xcalloc(t->n_subs ? t->n_subs : 1, sizeof *subs);
	Gnmi__Subscription **sp =
	    xcalloc(t->n_subs ? t->n_subs : 1, sizeof *sp);
	Gnmi__Path **paths = xcalloc(t->n_subs ? t->n_subs : 1, sizeof *paths);

	for (size_t i = 0; i < t->n_subs; i++) {
		const struct gsub *s = &t->subs[i];
		gnmi__subscription__init(&subs[i]);
		paths[i] = gnmi_path_to_pb(&s->path);
		subs[i].path = paths[i];
		switch (s->mode) {
		case CFG_SUB_ON_CHANGE:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__ON_CHANGE;
			break;
		case CFG_SUB_TARGET_DEFINED:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__TARGET_DEFINED;
			break;
		case CFG_SUB_SAMPLE:
			subs[i].mode = GNMI__SUBSCRIPTION_MODE__SAMPLE;
			break;
		}
		subs[i].sample_interval = s->sample_ns;
		subs[i].heartbeat_interval = s->heartbeat_ns;
		subs[i].suppress_redundant = s->suppress_redundant;
		sp[i] = &subs[i];
	}
	if (*t->prefix_target) {
		prefix.target = t->prefix_target;
		list.prefix = &prefix;
	}
	list.subscription = sp;
	list.n_subscription = t->n_subs;
	list.mode = list_mode(t->cfg->mode);
	list.encoding = (Gnmi__Encoding)t->encoding;
	list.updates_only = t->cfg->updates_only;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_SUBSCRIBE;
	req.subscribe = &list;

	grpc_byte_buffer *bb = gnmi_pack_message(&req.base);
	for (size_t i = 0; i < t->n_subs; i++)
		gnmi_path_pb_free(paths[i]);
	free(paths);
	free(sp);
	free(subs);
	return bb;
}

grpc_byte_buffer *client_poll_request(void)
{
	Gnmi__SubscribeRequest req = GNMI__SUBSCRIBE_REQUEST__INIT;
	Gnmi__Poll poll = GNMI__POLL__INIT;
	req.request_case = GNMI__SUBSCRIBE_REQUEST__REQUEST_POLL;
	req.poll = &poll;
	return gnmi_pack_message(&req.base);
}

/*
 * Target life.
 */

void client_target_free(struct gtarget *t)
{
	if (!t)
		return;
	connecting_done(t);
	if (t->ch)
		grpc_channel_destroy(t->ch);
	gnmi_mapper_free(t->mapper);
	gnmi_objmap_unref(t->objmap);
	gnmi_lldp_free(t->lldp);
	gnmi_profile_free(t->profile);
	gnmi_arena_free(t->arena);
	for (size_t i = 0; i < t->n_subs; i++)
		gnmi_path_clear(&t->subs[i].path);
	free(t->subs);
	cfg_gnmi_free(t->cfg);
	free(t->prefix_target);
	if (t->key_pem) {
		explicit_bzero(t->key_pem, strlen(t->key_pem));
		free(t->key_pem);
	}
	free(t->ca_pem);
	free(t->cert_pem);
	free(t->failed_reason);
	free(t->name);
	free(t);
}

/* Each unmapped path is reported once by the mapper; a SONiC port alone
 * has dozens, so only a target's first one is worth an info line. */
static void unmapped_cb(void *ctx, const char *path)
{
	struct gtarget *t = ctx;
	if (!t->unmapped_seen++)
		log_info("gnmi",
			 "%s: no profile mapping for %s (counted in "
			 "fabmon_target_unmapped_updates_total, not exported; "
			 "-D gnmi lists every such path)",
			 t->name, path);
	else
		log_debug("gnmi", "%s: no profile mapping for %s", t->name,
			  path);
}

/* LLDP neighbours (gnmi/lldp.h) go to the link table, not the store. */
static bool lldp_leaf_cb(void *ctx, const struct gnmi_view *v,
			 const struct gnmi_scalar *val)
{
	struct gtarget *t = ctx;
	return gnmi_lldp_leaf(t->lldp, v, val);
}

static bool lldp_delete_cb(void *ctx, const struct gnmi_view *v)
{
	struct gtarget *t = ctx;
	return gnmi_lldp_delete(t->lldp, v);
}

/* Picks the profile when the config names none. */
static const char *default_profile(const struct cfg_gnmi *g)
{
	if (g->target && strcmp(g->target, "COUNTERS_DB") == 0)
		return "sonic";
	return "openconfig";
}

/* The subscriptions a target takes (profile's or config's), and its
 * own prefix target. */
static const struct cfg_gnmi_sub *target_subs(const struct cfg_gnmi *g,
					      const struct gnmi_profile *p,
					      size_t *n, const char **own)
{
	const char *ptarget = NULL;
	size_t n_psubs = 0;
	const struct cfg_gnmi_sub *psubs =
	    gnmi_profile_subscriptions(p, &n_psubs, &ptarget);
	*own = g->target ? g->target : ptarget ? ptarget : "";
	*n = g->n_subs ? g->n_subs : n_psubs;
	return g->n_subs ? g->subs : psubs;
}

/* Whether subscription s goes on the stream for prefix target want
 * (own: the target's own one). */
static bool sub_on(const struct cfg_gnmi_sub *s, const char *own,
		   const char *want)
{
	const char *st = s->target ? s->target : own;
	return strcmp(st, want) == 0;
}

/* Loads the profile g names (or the default one); returns its name, or
 * NULL with t->failed_reason set. */
static const char *target_load_profile(struct gtarget *t,
				       const struct cfg_gnmi *g)
{
	char err[512];
	const char *pname = g->profile ? g->profile : default_profile(g);
	if (strchr(pname, '/'))
		t->profile = gnmi_profile_load(pname, err, sizeof err);
	else
		t->profile = gnmi_profile_load_named(t->col->profiles_dir,
						     pname, err, sizeof err);
	if (!t->profile) {
		t->failed_reason = xasprintf("profile: %s", err);
		return NULL;
	}
	return pname;
}

/* Sampled paths arrive every interval and heartbeats every heartbeat:
 * silence past three of the one or two of the other is a dead stream.
 * On-change paths alone may be quiet for good and set no watchdog. */
static int64_t sub_watchdog(const struct gsub *s)
{
	int64_t w = 0;
	if (s->mode == CFG_SUB_SAMPLE && s->sample_ns)
		w = 3 * (int64_t)s->sample_ns;
	if (s->heartbeat_ns && 2 * (int64_t)s->heartbeat_ns > w)
		w = 2 * (int64_t)s->heartbeat_ns;
	return w;
}

/* Adds subscription cs to t: 0, or -1 with t->failed_reason set. */
static int take_sub(struct gtarget *t, const struct cfg_gnmi_sub *cs,
		    uint64_t every)
{
	char err[512];
	struct gsub *s = &t->subs[t->n_subs];
	if (gnmi_path_parse(cs->path, &s->path, err, sizeof err) < 0) {
		t->failed_reason =
		    xasprintf("subscription %s: %s", cs->path, err);
		return -1;
	}
	t->n_subs++;
	if (cs->origin) {
		free(s->path.origin);
		s->path.origin = xstrdup(cs->origin);
	}
	s->mode = cs->mode;
	/* Profile subscriptions without an interval take the target's;
	 * target-defined ones leave it to the target. */
	s->sample_ns = cs->sample_interval_ns;
	if (!s->sample_ns && s->mode == CFG_SUB_SAMPLE)
		s->sample_ns = every;
	s->heartbeat_ns = cs->heartbeat_interval_ns;
	s->suppress_redundant = cs->suppress_redundant;
	int64_t w = sub_watchdog(s);
	if (w > t->watchdog_ns)
		t->watchdog_ns = w;
	return 0;
}

/* Takes the subscriptions of t's stream (prefix target helper, or
 * NULL for the main one) and their watchdog: 0, or -1 with
 * t->failed_reason set. */
static int target_take_subs(struct gtarget *t, const struct cfg_gnmi *g,
			    const char *helper, const char *pname,
			    uint64_t every)
{
	const char *own;
	size_t n_subs;
	const struct cfg_gnmi_sub *subs =
	    target_subs(g, t->profile, &n_subs, &own);
	t->prefix_target = xstrdup(helper ? helper : own);
	if (n_subs == 0) {
		t->failed_reason = xasprintf(
		    "no subscriptions: none configured and profile %s "
		    "has none",
		    pname);
		return -1;
	}
	/* The profile's name maps are read whatever the config lists. */
	size_t n_maps = gnmi_profile_maps(t->profile);
	t->subs = xcalloc(n_subs + n_maps, sizeof *t->subs);
	for (size_t i = 0; i < n_subs + n_maps; i++) {
		const struct cfg_gnmi_sub *cs = i < n_subs ? &subs[i] : NULL;
		if (!cs)
			gnmi_profile_map_info(t->profile, i - n_subs, &cs,
					      NULL);
		if (!sub_on(cs, own, t->prefix_target))
			continue;
		if (take_sub(t, cs, every) < 0)
			return -1;
	}
	if (t->n_subs == 0) {
		t->failed_reason =
		    xasprintf("no subscriptions with prefix target \"%s\"",
			      t->prefix_target);
		return -1;
	}
	return 0;
}

/* Reads the TLS files g names: 0, or -1 with t->failed_reason set. */
static int target_read_tls(struct gtarget *t, const struct cfg_gnmi *g,
			   const char *name, const char *helper)
{
	char err[512];
	if (g->ca && !(t->ca_pem = read_pem(g->ca, err, sizeof err))) {
		t->failed_reason = xasprintf("ca: %s", err);
		return -1;
	}
	if (g->cert && !(t->cert_pem = read_pem(g->cert, err, sizeof err))) {
		t->failed_reason = xasprintf("cert: %s", err);
		return -1;
	}
	if (g->key && !(t->key_pem = read_pem(g->key, err, sizeof err))) {
		t->failed_reason = xasprintf("key: %s", err);
		return -1;
	}
	if (g->skip_verify && !helper)
		log_warn("gnmi",
			 "%s: skip_verify is set: the target's "
			 "certificate is NOT checked; anyone on the "
			 "path can impersonate it",
			 name);
	return 0;
}

/* The mapper that writes t's samples to the store (and its LLDP
 * neighbours to the link table). */
static void target_make_mapper(struct gtarget *t, const char *name,
			       uint64_t every)
{
	struct gnmi_col *col = t->col;
	struct gnmi_mapper_opts mo = {
		.store = col->store,
		.owner = store_intern(col->store, name),
		.device = store_intern(col->store, name),
		.interval_ms = (uint32_t)(every / (uint64_t)NS_PER_MS),
		.unmapped = unmapped_cb,
		.ctx = t,
		.objmap = t->objmap,
		.target = t->prefix_target,
	};
	if (col->links) {
		t->lldp = gnmi_lldp_new(col->links, name, "gnmi");
		mo.leaf_hook = lldp_leaf_cb;
		mo.delete_hook = lldp_delete_cb;
	}
	t->mapper = gnmi_mapper_new(t->profile, &mo);
}

/* The interval of a helper stream's series: its sampled subscriptions'
 * (the longest, if they differ), else the target's. Its tables change
 * seldom (APPL_DB's PORT_TABLE is sampled every 10 s): at the target's
 * interval they would go stale between two samples. */
static uint64_t helper_interval(const struct gtarget *t, uint64_t every)
{
	uint64_t iv = 0;
	for (size_t i = 0; i < t->n_subs; i++)
		if (t->subs[i].mode == CFG_SUB_SAMPLE &&
		    t->subs[i].sample_ns > iv)
			iv = t->subs[i].sample_ns;
	return iv ? iv : every;
}

/* A target's common parts: name (as shown), config copy, arena, tags. */
static struct gtarget *target_alloc(struct gnmi_col *col, char *shown,
				    const struct cfg_gnmi *g)
{
	struct gtarget *t = xcalloc(1, sizeof *t);
	t->col = col;
	t->name = shown;
	t->cfg = cfg_gnmi_dup(g);
	t->arena = gnmi_arena_new(64 * 1024 * 1024 + 4 * col->max_message);
	for (int i = 0; i < OP__COUNT; i++)
		t->tags[i] = (struct tag){ t, (enum op)i };
	t->state = GS_IDLE;
	return t;
}

static struct gtarget *target_failed(struct gtarget *t)
{
	t->state = GS_FAILED;
	log_err("gnmi", "%s: cannot collect: %s", t->name, t->failed_reason);
	health_target_set_down(t->health, "%s", t->failed_reason);
	return t;
}

/*
 * Builds a target (main thread): device name's main stream (helper
 * NULL), or its helper stream for the subscriptions whose prefix
 * target is helper. The main stream makes the switch's objmap if its
 * profile has name maps; helpers share it (share). On a problem that
 * retrying cannot fix (profile, paths, TLS files) the target is still
 * returned, in GS_FAILED, so that its health (or, for a helper, the
 * log) says why.
 */
static struct gtarget *target_build(struct gnmi_col *col, const char *name,
				    const struct cfg_gnmi *g,
				    const char *helper,
				    struct gnmi_objmap *share)
{
	struct gtarget *t = target_alloc(
	    col, helper ? xasprintf("%s [%s]", name, helper) : xstrdup(name),
	    g);
	t->health = helper ? NULL : health_target(col->health, name, "gnmi");

	uint64_t every =
	    g->interval_ns ? g->interval_ns : col->global_interval_ns;
	const char *pname = target_load_profile(t, g);
	if (!pname)
		return target_failed(t);
	if (share) {
		t->objmap = share;
		gnmi_objmap_ref(share);
	} else if (gnmi_profile_maps(t->profile)) {
		t->objmap = gnmi_objmap_new(gnmi_profile_maps(t->profile));
	}
	if (target_take_subs(t, g, helper, pname, every) < 0)
		return target_failed(t);
	if (g->mode != CFG_GNMI_STREAM)
		t->watchdog_ns = 0;
	t->every_ns = (int64_t)(g->mode == CFG_GNMI_POLL && g->poll_interval_ns
				    ? g->poll_interval_ns
				    : every);
	if (!g->insecure && target_read_tls(t, g, name, helper) < 0)
		return target_failed(t);
	target_make_mapper(t, name, helper ? helper_interval(t, every) : every);
	health_target_set_down(t->health, "connecting");
	return t;
}

struct gtarget *client_objects_target(struct gnmi_col *col, const char *name,
				      const struct cfg_gnmi *g,
				      struct gtarget *main, size_t i)
{
	const struct cfg_gnmi_sub *os = NULL;
	const char *mname = gnmi_profile_map_info(main->profile, i, NULL, &os);
	struct gtarget *t =
	    target_alloc(col, xasprintf("%s [%s objects]", name, mname), g);
	t->is_objects = true;
	t->obj_map = i;
	uint64_t every =
	    g->interval_ns ? g->interval_ns : col->global_interval_ns;
	const char *pname = target_load_profile(t, g), *own;
	if (!pname)
		return target_failed(t);
	t->objmap = main->objmap;
	gnmi_objmap_ref(t->objmap);
	size_t n;
	target_subs(g, t->profile, &n, &own);
	t->prefix_target = xstrdup(os->target ? os->target : own);
	/* The watchdog of the subscription every object gets. */
	struct gsub probe = {
		.mode = os->mode,
		.sample_ns = os->sample_interval_ns,
		.heartbeat_ns = os->heartbeat_interval_ns,
	};
	if (!probe.sample_ns && probe.mode == CFG_SUB_SAMPLE)
		probe.sample_ns = every;
	t->watchdog_ns = g->mode == CFG_GNMI_STREAM ? sub_watchdog(&probe) : 0;
	t->every_ns = (int64_t)(g->mode == CFG_GNMI_POLL && g->poll_interval_ns
				    ? g->poll_interval_ns
				    : every);
	if (!g->insecure && target_read_tls(t, g, name, mname) < 0)
		return target_failed(t);
	/* Its series are updated at the objects' interval. */
	target_make_mapper(
	    t, name, probe.mode == CFG_SUB_SAMPLE ? probe.sample_ns : every);
	return t;
}

/* Whether a stream for prefix target st is already in t's chain. */
static bool has_stream(const struct gtarget *t, const char *st)
{
	for (; t; t = t->companion)
		if (!t->is_objects && t->prefix_target &&
		    strcmp(t->prefix_target, st) == 0)
			return true;
	return false;
}

/* A switch's main stream and, chained on it, a helper stream for each
 * other prefix target its subscriptions (and its name maps) name, and
 * an objects stream per name map. */
struct gtarget *client_target_new(struct gnmi_col *col, const char *name,
				  const struct cfg_gnmi *g)
{
	struct gtarget *t = target_build(col, name, g, NULL, NULL);
	if (!t->profile)
		return t;
	const char *own;
	size_t n;
	const struct cfg_gnmi_sub *subs = target_subs(g, t->profile, &n, &own);
	size_t n_maps = gnmi_profile_maps(t->profile);
	struct gtarget **tail = &t->companion;
	for (size_t i = 0; i < n + n_maps; i++) {
		const struct cfg_gnmi_sub *cs = i < n ? &subs[i] : NULL;
		if (!cs)
			gnmi_profile_map_info(t->profile, i - n, &cs, NULL);
		const char *st = cs->target;
		if (!st || strcmp(st, own) == 0 || has_stream(t, st))
			continue;
		*tail = target_build(col, name, g, st, t->objmap);
		tail = &(*tail)->companion;
	}
	for (size_t i = 0; i < n_maps; i++) {
		*tail = client_objects_target(col, name, g, t, i);
		tail = &(*tail)->companion;
	}
	return t;
}
