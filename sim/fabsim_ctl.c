/*
 * fabsim's control requests (see sim/control.h and man/fabsim.1): the
 * status as JSON, live events, target faults, stop and restart. The
 * control endpoint's HTTP thread only queues them; they are answered
 * here on the run loop's thread, which owns the model.
 */
#include "config.h"

#include "fabsim_int.h"

#include "units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Control requests ---- */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static char *json_error(const char *msg)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	fprintf(out, "{\"error\":");
	json_str(out, msg);
	fprintf(out, "}\n");
	fclose(out);
	return buf;
}

/* The bodies of POST /targets/<switch>/fault, for messages. */
#define FAULT_WORDS                                                          \
	"ok, silent, refuse, reset, garbage, drop_after_sync, wrong_types, " \
	"slow or renumber"

/* The model's background events (flaps' downs and ups, reboots), the
 * last STATUS_BG_EVENTS of them, oldest first: what a healthy fabric
 * did that fabmond may rightly report (a link flapping). */
#define STATUS_BG_EVENTS 64

static void status_background(FILE *out, const struct fabsim *f)
{
	static const char *const names[] = {
		[SIM_MODEL_BG_LINK_DOWN] = "link_down",
		[SIM_MODEL_BG_LINK_UP] = "link_up",
		[SIM_MODEL_BG_REBOOT] = "reboot",
		[SIM_MODEL_BG_MICROBURST] = "microburst",
	};
	size_t n = sim_model_bg_n_events(f->m);
	size_t i0 = n > STATUS_BG_EVENTS ? n - STATUS_BG_EVENTS : 0;
	for (size_t i = i0; i < n; i++) {
		const struct sim_model_bg_event *e =
		    sim_model_bg_event(f->m, i);
		if (!e || (unsigned)e->kind >= SIM_MODEL_BG_KINDS)
			continue;
		fprintf(out, "%s{\"t\":%.3f,\"do\":\"%s\",\"node\":",
			i > i0 ? "," : "", (double)e->at_ns / NS_PER_S,
			names[e->kind]);
		json_str(out, sim_topo_node(f->topo, e->node)->name);
		if (e->port != (size_t)-1) {
			const struct sim_port *p =
			    sim_topo_port(f->topo, e->port);
			char buf[256];
			snprintf(buf, sizeof buf, "%s:%s", p->node->name,
				 p->name);
			fprintf(out, ",\"port\":");
			json_str(out, buf);
			if (p->peer) {
				snprintf(buf, sizeof buf, "%s:%s",
					 p->peer->node->name, p->peer->name);
				fprintf(out, ",\"peer\":");
				json_str(out, buf);
			}
		}
		fprintf(out, "}");
	}
}

static char *status_json(const struct fabsim *f)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	const struct sim_topo *t = f->topo;
	uint64_t now = sim_model_now_ns(f->m);
	fprintf(out,
		"{\"model_time_s\":%.3f,\"scenario\":", (double)now / NS_PER_S);
	if (f->o.scenario) {
		fprintf(out, "{\"file\":");
		json_str(out, f->o.scenario);
		fprintf(out,
			",\"position_s\":%.3f,\"duration_s\":%.3f,"
			"\"loop\":%s,\"loops\":%u}",
			(double)(now - f->loop_base_ns) / NS_PER_S,
			(double)sim_scenario_duration_ns(f->scn) / NS_PER_S,
			f->o.loop ? "true" : "false", f->loops);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\"topology\":");
	json_str(out, sim_topo_source(t));
	fprintf(out,
		",\"counts\":{\"spines\":%zu,\"leaves\":%zu,\"hosts\":%zu,"
		"\"ports\":%zu,\"flows\":%zu,\"live_events\":%zu},"
		"\"events\":[",
		sim_topo_n_tier(t, SIM_NODE_SPINE),
		sim_topo_n_tier(t, SIM_NODE_LEAF),
		sim_topo_n_tier(t, SIM_NODE_HOST), sim_topo_n_ports(t),
		sim_model_n_flows(f->m), sim_scenario_live_count(f->live));
	for (size_t i = 1; i <= sim_scenario_live_count(f->live); i++) {
		bool active;
		const char *k =
		    sim_scenario_live_kind(f->live, (int)i, &active);
		fprintf(out, "%s{\"id\":%zu,\"do\":\"%s\",\"active\":%s}",
			i > 1 ? "," : "", i, k, active ? "true" : "false");
	}
	fprintf(out, "],\"background\":[");
	status_background(out, f);
	fprintf(out, "],\"switches\":[");
	bool first = true;
	for (size_t id = 0; id < sim_topo_n_nodes(t); id++) {
		const struct sim_node *n = sim_topo_node(t, id);
		if (n->kind == SIM_NODE_HOST)
			continue;
		fprintf(out, "%s{\"name\":", first ? "" : ",");
		first = false;
		json_str(out, n->name);
		fprintf(out,
			",\"kind\":\"%s\",\"flavour\":\"%s\",\"gnmi_port\":%d,"
			"\"snmp_port\":%d,\"fault\":\"%s\",\"streams\":%zu}",
			sim_topo_kind_name(n->kind),
			sim_topo_flavour_name(n->flavour),
			sim_serve_gnmi_port(f->gnmi, id),
			fabsim_snmp_port(f, id),
			sim_scenario_target_name(f->fault[id]),
			sim_serve_gnmi_streams(f->gnmi, id));
	}
	fprintf(out, "]}\n");
	fclose(out);
	return buf;
}

/* "/events/12" or "/events/12/stop" -> 12; 0 if not a number. */
static int event_id(const char *s, const char **rest)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || errno || v < 1 || v > 1000000000)
		return 0;
	*rest = end;
	return (int)v;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && strchr(" \t\r\n\"", s[n - 1]))
		s[--n] = '\0';
	size_t i = strspn(s, " \t\r\n\"");
	memmove(s, s + i, n - i + 1);
}

/*
 * POST /targets/<switch>/fault: a fault word (the switch's state until
 * changed), or renumber, a one-shot action on the SNMP agent that
 * leaves the state as it was. The reply; *status set unless 200.
 */
static char *target_fault(struct fabsim *f, const struct sim_control_cmd *c,
			  bool post, unsigned *status)
{
	const char *u = c->url;
	char name[SIM_TOPO_NAME_MAX + 1], err[256], *reply = NULL;
	size_t nl = strlen(u) - 15;
	const struct sim_node *n = NULL;
	if (nl <= SIM_TOPO_NAME_MAX) {
		memcpy(name, u + 9, nl);
		name[nl] = '\0';
		n = sim_topo_find_node(f->topo, name);
	}
	char word[32];
	snprintf(word, sizeof word, "%s", c->body);
	trim(word);
	int fault = sim_scenario_target_parse(word);
	bool renumber = strcmp(word, "renumber") == 0;
	if (!post) {
		*status = 405;
		return json_error(
		    "POST /targets/<switch>/fault with " FAULT_WORDS);
	}
	if (!n || n->kind == SIM_NODE_HOST) {
		*status = 404;
		snprintf(err, sizeof err, "no switch \"%.*s\"",
			 (int)(nl > 64 ? 64 : nl), u + 9);
		return json_error(err);
	}
	if ((fault < 0 && !renumber) || c->body_len > 30) {
		*status = 400;
		return json_error("the body must be " FAULT_WORDS);
	}
	if (renumber) {
		uint32_t a, b;
		int rc = f->snmp ? sim_snmp_renumber(f->snmp, n->id, &a, &b)
				 : -ENOENT;
		if (rc) {
			*status = 409;
			return json_error(rc == -ENOENT
					      ? "no SNMP agent for the switch"
					      : "the switch has fewer than "
						"three interfaces");
		}
		if (f->o.verbose)
			fprintf(stderr,
				"fabsim: %s: ifIndex %u and %u swapped\n",
				n->name, a, b);
		if (asprintf(&reply,
			     "{\"target\":\"%s\",\"renumbered\":[%u,%u]}\n",
			     n->name, a, b) < 0)
			abort();
		return reply;
	}
	sim_scenario_live_set_target(f->live, n->id, fault);
	fabsim_apply_faults(f, sim_model_now_ns(f->m) - f->loop_base_ns);
	if (asprintf(
		&reply, "{\"target\":\"%s\",\"fault\":\"%s\"}\n", n->name,
		sim_scenario_target_name((enum sim_scenario_target)fault)) < 0)
		abort();
	return reply;
}

void fabsim_handle(struct fabsim *f, struct sim_control_cmd *c)
{
	char err[1024], *reply;
	unsigned status = 200;
	const char *m = c->method, *u = c->url, *rest;
	bool get = strcmp(m, "GET") == 0, post = strcmp(m, "POST") == 0,
	     del = strcmp(m, "DELETE") == 0;
	if (strcmp(u, "/status") == 0) {
		if (!get) {
			status = 405;
			reply = json_error("GET /status only");
		} else {
			reply = status_json(f);
		}
	} else if (strcmp(u, "/events") == 0) {
		if (!post) {
			status = 405;
			reply = json_error("POST /events with one event "
					   "in the scenario file syntax");
		} else {
			int id = sim_scenario_live_apply(f->live, f->m, "event",
							 c->body, c->body_len,
							 err, sizeof err);
			if (id < 0) {
				status = 400;
				reply = json_error(err);
			} else {
				bool active;
				status = 201;
				reply = NULL;
				if (asprintf(&reply,
					     "{\"id\":%d,\"do\":\"%s\"}\n", id,
					     sim_scenario_live_kind(
						 f->live, id, &active)) < 0)
					abort();
				if (f->o.verbose)
					fprintf(stderr,
						"fabsim: live event %d: %s\n",
						id, reply);
			}
		}
	} else if (strncmp(u, "/events/", 8) == 0) {
		int id = event_id(u + 8, &rest);
		bool stop_url = strcmp(rest, "/stop") == 0;
		if (!id || (*rest && !stop_url)) {
			status = 404;
			reply = json_error("no such path: /events/<id> or "
					   "/events/<id>/stop");
		} else if (!(stop_url ? post : del)) {
			status = 405;
			reply = json_error("DELETE /events/<id> or POST "
					   "/events/<id>/stop");
		} else {
			int rc = sim_scenario_live_stop(f->live, f->m, id, err,
							sizeof err);
			if (rc) {
				status = rc == -ENOENT ? 404 : 409;
				reply = json_error(err);
			} else {
				reply = NULL;
				if (asprintf(&reply,
					     "{\"id\":%d,\"stopped\":true}\n",
					     id) < 0)
					abort();
			}
		}
	} else if (strncmp(u, "/targets/", 9) == 0 && strlen(u) > 15 &&
		   strcmp(u + strlen(u) - 6, "/fault") == 0) {
		reply = target_fault(f, c, post, &status);
	} else {
		status = 404;
		reply = json_error("no such path (GET /status, POST /events, "
				   "DELETE /events/<id>, POST "
				   "/targets/<switch>/fault)");
	}
	sim_control_done(f->ctl, c, status, reply);
}
