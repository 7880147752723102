/*
 * check_fabtop: fabtop's JSON model on answers a real fabmond gave
 * (tests/data/fabtop: fabsim's demo scenario during its NIC PFC storm)
 * and on broken ones, the canvas, and the views drawn from the model:
 * what an operator reads at 80x24 (incidents, origin, pause tree), view
 * switching, sorting, filtering, the batch frame and the disconnected
 * header.
 */
#include "config.h"

#include "canvas.h"
#include "fabtop_model.h"
#include "view.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *name, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/fabtop/%s", top ? top : ".",
		 name);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char *buf = malloc(1 << 20);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

#define PARSE(fn, file, out)                                           \
	do {                                                           \
		size_t len_;                                           \
		char *b_ = slurp(file, &len_);                         \
		char e_[256] = "";                                     \
		ck_assert_int_eq(fn(b_, len_, out, e_, sizeof e_), 0); \
		free(b_);                                              \
	} while (0)

START_TEST(ports_from_a_real_fabmond)
{
	struct model_ports p;
	PARSE(model_parse_ports, "ports.json", &p);
	ck_assert_int_eq(p.total, 48);
	ck_assert_uint_eq(p.n, 12);
	/* The answer is sorted by pause_ratio_rx: the storm's spread
	 * (ties by name). */
	ck_assert_str_eq(p.v[0].device, "leaf0");
	ck_assert_str_eq(p.v[0].port, "Ethernet32");
	ck_assert(p.v[0].v[MODEL_PF_PAUSE_RX] > 0.9);
	ck_assert(p.v[0].prio_mask & (1u << 3));
	ck_assert(p.v[0].prio[3][MODEL_PP_PAUSE_RX] > 0.9);
	/* null is unknown, not 0. */
	ck_assert(isnan(p.v[0].v[MODEL_PF_SPEED]));
	ck_assert_int_eq(p.v[0].link_up, -1);
	ck_assert(!model_port_is_nic(&p.v[0]));
	model_ports_clear(&p);
	ck_assert_uint_eq(p.n, 0);
}
END_TEST

START_TEST(targets_and_status_from_a_real_fabmond)
{
	struct model_targets t;
	PARSE(model_parse_targets, "targets.json", &t);
	ck_assert_uint_eq(t.n, 14);
	ck_assert_str_eq(t.v[0].target, "host0");
	ck_assert_str_eq(t.v[0].protocol, "nic");
	ck_assert_int_eq(t.v[0].up, 1);
	ck_assert_ptr_null(t.v[0].last_error);
	ck_assert(t.v[0].counters[MODEL_TC_UPDATES] > 0);
	ck_assert(t.v[0].counters[MODEL_TC_RECONNECTS] == 0);
	model_targets_clear(&t);

	struct model_status s;
	PARSE(model_parse_status, "status.json", &s);
	ck_assert_str_eq(s.version, "0.1.0");
	ck_assert(s.targets == 14 && s.targets_up == 14);
	ck_assert_int_eq(s.reload_ok, 1);
	model_status_clear(&s);
}
END_TEST

START_TEST(incidents_from_a_real_fabmond)
{
	struct model_incidents in;
	PARSE(model_parse_incidents, "incidents-storm.json", &in);
	ck_assert_uint_eq(in.n_active, 1);
	struct model_incident *a = &in.active[0];
	ck_assert_str_eq(a->kind, "pfc_storm");
	ck_assert_str_eq(a->state, "firing");
	ck_assert_str_eq(a->origin_device, "host4");
	ck_assert_str_eq(a->origin_port, "mlx5_0");
	ck_assert_int_eq(a->priority, 3);
	ck_assert(isnan(a->resolved));
	ck_assert_uint_ge(a->n_tree, 1);
	ck_assert_int_eq(a->tree[0].role, MODEL_ROLE_ORIGIN);
	ck_assert_uint_ge(a->n_evidence, 1);
	ck_assert_uint_eq(in.n_recent, 4);
	ck_assert_str_eq(in.recent[0].kind, "incast");
	ck_assert_str_eq(in.recent[0].origin_device, "host0");
	ck_assert_uint_eq(in.recent[0].n_subjects, 8);
	ck_assert(in.tick_seconds == 1);
	model_incidents_clear(&in);
}
END_TEST

START_TEST(pause_tree_is_flattened_with_its_shape)
{
	struct model_incidents in;
	PARSE(model_parse_incidents, "incidents-tree.json", &in);
	ck_assert_uint_eq(in.n_active, 2);
	const struct model_incident *a = &in.active[0];
	ck_assert_uint_eq(a->n_tree, 5);
	static const struct {
		const char *dev, *shape;
		int level;
		enum model_role role;
	} want[] = {
		{ "host0", "", 0, MODEL_ROLE_ORIGIN },
		{ "leaf0", "T", 1, MODEL_ROLE_VICTIM },
		{ "leaf0", "|L", 2, MODEL_ROLE_SPREADER },
		{ "spine1", "| L", 3, MODEL_ROLE_VICTIM },
		{ "leaf1", "L", 1, MODEL_ROLE_VICTIM },
	};
	for (size_t i = 0; i < 5; i++) {
		ck_assert_str_eq(a->tree[i].device, want[i].dev);
		ck_assert_str_eq(a->tree[i].shape, want[i].shape);
		ck_assert_int_eq(a->tree[i].level, want[i].level);
		ck_assert_int_eq(a->tree[i].role, want[i].role);
	}
	ck_assert_int_eq(a->tree[3].hops, 2);
	/* A whole-device origin: port and priority unknown. */
	ck_assert_ptr_null(in.active[1].origin_port);
	ck_assert_int_eq(in.active[1].priority, -1);
	ck_assert(isnan(in.active[1].fired));
	model_incidents_clear(&in);
}
END_TEST

START_TEST(malformed_answers_are_errors_not_crashes)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[1,2,3]",
		"\"a string\"",
		"{",
		"{\"ports\":{}}",
		"{\"ports\":null}",
		"null",
		"{\"a\":1}x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[256] = "";
		struct model_ports p;
		ck_assert_int_eq(model_parse_ports(bad[i], strlen(bad[i]), &p,
						   err, sizeof err),
				 -EINVAL);
		ck_assert_msg(strstr(err, "/api/v1/ports: ") == err, "%s", err);
		ck_assert_uint_eq(p.n, 0);
		model_ports_clear(&p);
		struct model_incidents in;
		ck_assert_int_eq(model_parse_incidents(bad[i], strlen(bad[i]),
						       &in, err, sizeof err),
				 -EINVAL);
		model_incidents_clear(&in);
	}
	char err[256];
	struct model_targets t;
	ck_assert_int_eq(model_parse_targets("<html>", 6, &t, err, sizeof err),
			 -EINVAL);
	ck_assert_msg(strstr(err, "not JSON"), "%s", err);
	struct model_status s;
	ck_assert_int_eq(model_parse_status("[]", 2, &s, err, sizeof err),
			 -EINVAL);
	ck_assert_msg(strstr(err, "not a JSON object"), "%s", err);
	model_status_clear(&s);
}
END_TEST

START_TEST(unexpected_types_read_as_unknown)
{
	const char *j =
	    "{\"total_ports\":\"many\",\"ports\":[7,null,"
	    "{\"device\":1,\"port\":\"x\"},"
	    "{\"device\":\"d\",\"port\":\"p\",\"pause_ratio_rx\":\"0.5\","
	    "\"drops_pps\":true,\"link_up\":1,\"stale\":\"yes\","
	    "\"priorities\":{\"9\":{},\"3\":7,\"33\":{},\"1\":"
	    "{\"pfc_rx_fps\":12}},\"retries_pps\":4}]}";
	struct model_ports p;
	ck_assert_int_eq(model_parse_ports(j, strlen(j), &p, NULL, 0), 0);
	ck_assert_int_eq(p.total, -1);
	ck_assert_uint_eq(p.n, 1);
	ck_assert(isnan(p.v[0].v[MODEL_PF_PAUSE_RX]));
	ck_assert(isnan(p.v[0].v[MODEL_PF_DROPS]));
	ck_assert_int_eq(p.v[0].link_up, -1);
	ck_assert(!p.v[0].stale);
	ck_assert_uint_eq(p.v[0].prio_mask, 1u << 1);
	ck_assert(p.v[0].prio[1][MODEL_PP_PFC_RX] == 12);
	ck_assert(p.v[0].v[MODEL_PF_RETRIES] == 4);
	model_ports_clear(&p);

	const char *inc =
	    "{\"active\":[1,{\"id\":\"x\",\"kind\":5,\"origin\":[],"
	    "\"subjects\":{},\"tree\":[],\"evidence\":[{\"value\":1},"
	    "{\"name\":\"n\",\"value\":null}],\"priority\":99}],"
	    "\"recent\":\"none\"}";
	struct model_incidents in;
	ck_assert_int_eq(model_parse_incidents(inc, strlen(inc), &in, NULL, 0),
			 0);
	ck_assert_uint_eq(in.n_active, 1);
	ck_assert_int_eq(in.active[0].id, -1);
	ck_assert_ptr_null(in.active[0].kind);
	ck_assert_ptr_null(in.active[0].origin_device);
	ck_assert_int_eq(in.active[0].priority, -1);
	ck_assert_uint_eq(in.active[0].n_tree, 0);
	ck_assert_uint_eq(in.active[0].n_evidence, 1);
	ck_assert(isnan(in.active[0].evidence[0].value));
	ck_assert_uint_eq(in.n_recent, 0);
	model_incidents_clear(&in);
}
END_TEST

START_TEST(deep_trees_are_bounded)
{
	/* 200 nested children: kept to MODEL_MAX_LEVEL, the rest counted. */
	size_t cap = 200 * 40 + 64, len = 0;
	char *j = malloc(cap);
	len += (size_t)sprintf(j + len, "{\"active\":[{\"tree\":");
	for (int i = 0; i < 200; i++)
		len += (size_t)sprintf(j + len,
				       "{\"device\":\"d%d\",\"children\":[", i);
	for (int i = 0; i < 200; i++)
		len += (size_t)sprintf(j + len, "]}");
	len += (size_t)sprintf(j + len, "}]}");
	struct model_incidents in;
	ck_assert_int_eq(model_parse_incidents(j, len, &in, NULL, 0), 0);
	ck_assert_uint_eq(in.active[0].n_tree, MODEL_MAX_LEVEL + 1);
	ck_assert_uint_eq(in.active[0].tree_dropped, 1);
	const struct model_node *last = &in.active[0].tree[MODEL_MAX_LEVEL];
	ck_assert_int_eq(last->level, MODEL_MAX_LEVEL);
	ck_assert_uint_eq(strlen(last->shape), MODEL_MAX_LEVEL);
	model_incidents_clear(&in);
	free(j);
}
END_TEST

START_TEST(error_bodies_and_report_text)
{
	size_t len;
	char *b = slurp("error-400.json", &len);
	char *e = model_parse_error(b, len);
	ck_assert_str_eq(e, "limit: '0' is not an integer from 1 to 100000");
	free(e);
	free(b);
	ck_assert_ptr_null(model_parse_error("<html>", 6));
	ck_assert_ptr_null(model_parse_error("{\"error\":3}", 11));

	const char *r = "{\"window\":{\"from\":1,\"to\":2},\"drops\":[{\"p\":3,"
			"\"lossless\":true}],\"ok\":false,\"n\":null}";
	char *t = model_format_json(r, strlen(r));
	ck_assert_str_eq(t, "window:\n  from: 1\n  to: 2\ndrops:\n  -\n"
			    "    p: 3\n    lossless: yes\nok: no\nn: -\n");
	free(t);
	ck_assert_ptr_null(model_format_json("{x", 2));
}
END_TEST

/* s holds each of parts, in that order. */
static void ck_in_order(const char *s, const char *const *parts, size_t n)
{
	const char *at = s;
	for (size_t i = 0; i < n; i++) {
		const char *p = strstr(at, parts[i]);
		ck_assert_msg(p, "\"%s\" missing or out of order in:\n%s",
			      parts[i], s);
		at = p + strlen(parts[i]);
	}
}

/* A real answer (see tests/data/fabtop/report-nic_pfc_storm.txt). */
START_TEST(report_layout_from_a_real_answer)
{
	size_t len;
	char *b = slurp("report-nic_pfc_storm.json", &len);
	enum model_verdict v = MODEL_VERDICT_UNKNOWN;
	char *t = model_format_report(b, len, &v);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(v, MODEL_VERDICT_FAIL);
	static const char *const parts[] = {
		"Fabric validation report 2026-11-29T22:02:55Z .. "
		"2026-11-29T22:03:20Z\n",
		"Verdict: fail\n",
		"  - 39154067 drops on lossless priority 3\n",
		"  - 1 lossless_drop incident(s)\n",
		"Drops: fail: lossless 39154067, NIC out_of_buffer 39154067\n",
		"Pause on lossy priorities: pass: 0 frames, 0 s\n",
		"PRIO LOSSLESS     PFC-RX     PFC-TX  PAUSE-RX s  PAUSE-TX s"
		"    DROPS        ECN\n",
		"  3    yes               0     192948     32.3701     24.2785"
		" 39154067        567\n",
		/* Only the kinds that happened. */
		"Incidents: pfc_storm 1, lossless_drop 1\n",
		"  #2 pfc_storm resolved p3 at host0:mlx5_0: pfc_storm at "
		"host0:mlx5_0 priority 3, 7 other ports involved, peak 1\n",
		"  #3 lossless_drop firing p3 at host0:mlx5_0: ",
		"ECN before PFC: pass (2 pausing ports checked)\n",
		"CNP: 63 CE received, 63 sent, 63 handled, 0 ignored\n",
		"Stragglers (hosts by pause time)\n",
		"  host0                   8.09328 s (tx 8.09328 s, rx 0 s)\n",
		"  host7 ",
		"Coverage: 2026-11-29T22:02:00Z .. 2026-11-29T22:03:20Z, "
		"complete, step 60 s; per-port detail from "
		"2026-11-29T22:02:00Z\n",
	};
	ck_in_order(t, parts, sizeof parts / sizeof *parts);
	ck_assert_ptr_null(strstr(t, "Other:"));
	ck_assert_ptr_null(strstr(t, "congestion_spreading"));
	free(t);
	free(b);
}
END_TEST

START_TEST(report_missing_extra_and_foreign_shapes)
{
	enum model_verdict v;
	/* Only a verdict: nothing else is invented. */
	const char *r = "{\"verdict\":\"pass\"}";
	char *t = model_format_report(r, strlen(r), &v);
	ck_assert_str_eq(t, "Fabric validation report - .. -\n"
			    "Verdict: pass\n");
	ck_assert_int_eq(v, MODEL_VERDICT_PASS);
	free(t);

	/* Missing members are "-", wrong types are skipped, unknown ones
	 * follow under Other:, an unknown verdict is not a failure. */
	r = "{\"verdict\":\"maybe\",\"reasons\":[\"x\",3],\"cnp\":{\"sent\":"
	    "2.5},\"priorities\":{\"3\":1},\"incidents\":{\"counts\":[1],"
	    "\"list\":[{}]},\"stragglers\":[],\"coverage\":{\"complete\":"
	    "false,\"from_seconds\":1e300,\"detail_from_seconds\":null},"
	    "\"new\":{\"a\":1},\"n\":7}";
	t = model_format_report(r, strlen(r), &v);
	ck_assert_int_eq(v, MODEL_VERDICT_UNKNOWN);
	static const char *const parts[] = {
		"Verdict: maybe\n  - x\n  - ?\n",
		"\nIncidents: none\n  #- - - p- at -:-: -\n",
		"\nCNP: - CE received, 2.5 sent, - handled, - ignored\n",
		"\nStragglers (hosts by pause time)\n  (none)\n",
		"\nCoverage: - .. -, incomplete, step - s; no per-port "
		"detail\n",
		"\nOther:\n  new:\n    a: 1\n  n: 7\n",
	};
	ck_in_order(t, parts, sizeof parts / sizeof *parts);
	ck_assert_ptr_null(strstr(t, "per priority"));
	free(t);

	/* Not a report: the caller prints it as indented text. */
	v = MODEL_VERDICT_FAIL;
	ck_assert_ptr_null(model_format_report("{\"x\":1}", 7, &v));
	ck_assert_int_eq(v, MODEL_VERDICT_UNKNOWN);
	ck_assert_ptr_null(model_format_report("{\"verdict\":1}", 13, &v));
	ck_assert_ptr_null(model_format_report("[\"verdict\"]", 11, &v));
	ck_assert_ptr_null(model_format_report("{x", 2, &v));
	ck_assert_ptr_null(model_format_report(NULL, 0, &v));
}
END_TEST

START_TEST(canvas_keeps_columns_aligned)
{
	setlocale(LC_ALL, "C.UTF-8");
	struct canvas *c = canvas_new(3, 10, false);
	/* Invalid UTF-8, a control byte, a wide character: one '?' each. */
	canvas_put(c, 0, 0, CA_NORMAL,
		   "a\xff"
		   "b\x01"
		   "\xe6\xbc\xa2"
		   "c");
	char line[64];
	canvas_line(c, 0, line, sizeof line);
	ck_assert_str_eq(line, "a?b??c");
	/* Clipped at the right edge; width pads. */
	canvas_put(c, 1, 7, CA_NORMAL, "overflow");
	canvas_line(c, 1, line, sizeof line);
	ck_assert_str_eq(line, "       ove");
	ck_assert_int_eq(canvas_putw(c, 2, 0, 4, CA_NORMAL, "ab"), 4);
	canvas_put(c, 2, 4, CA_NORMAL, "\u2502");
	canvas_line(c, 2, line, sizeof line);
	ck_assert_str_eq(line, "ab  \u2502");
	canvas_free(c);
	struct canvas *a = canvas_new(1, 10, true);
	canvas_put(a, 0, 0, CA_NORMAL, "\u2502x");
	canvas_line(a, 0, line, sizeof line);
	ck_assert_str_eq(line, "?x");
	canvas_free(a);
}
END_TEST

START_TEST(rates_and_ratios_are_formatted_short)
{
	char b[32];
	view_fmt_rate(NAN, b, sizeof b);
	ck_assert_str_eq(b, "-");
	view_fmt_rate(0, b, sizeof b);
	ck_assert_str_eq(b, "0");
	view_fmt_rate(999, b, sizeof b);
	ck_assert_str_eq(b, "999");
	view_fmt_rate(1544925.7, b, sizeof b);
	ck_assert_str_eq(b, "1.5M");
	view_fmt_rate(350368, b, sizeof b);
	ck_assert_str_eq(b, "350k");
	view_fmt_rate(2e11, b, sizeof b);
	ck_assert_str_eq(b, "200G");
	view_fmt_pct(0.4321, b, sizeof b);
	ck_assert_str_eq(b, "43.2%");
	view_fmt_pct(1, b, sizeof b);
	ck_assert_str_eq(b, "100%");
}
END_TEST

/* ---- views on the canned answers */

static struct view_state st;
static struct canvas *cv;

static void load_state(const char *incidents)
{
	setlocale(LC_ALL, "C.UTF-8");
	view_init(&st, "http://127.0.0.1:9465");
	PARSE(model_parse_ports, "ports.json", &st.ports);
	PARSE(model_parse_targets, "targets.json", &st.targets);
	PARSE(model_parse_status, "status.json", &st.status);
	PARSE(model_parse_incidents, incidents, &st.incidents);
	st.have_ports = st.have_targets = st.have_status = true;
	st.incidents_http = 200;
	st.connected = st.ever_connected = true;
	st.now = st.last_ok = 1795985100;
	view_record_history(&st);
	cv = canvas_new(24, 80, false);
}

static void setup_storm(void)
{
	load_state("incidents-storm.json");
}

static void setup_tree(void)
{
	load_state("incidents-tree.json");
}

static void teardown_views(void)
{
	canvas_free(cv);
	view_fini(&st);
}

/* The row of the canvas containing needle, or -1. */
static int find_row(const struct canvas *c, const char *needle)
{
	char line[4096];
	for (int r = 0; r < c->rows; r++) {
		canvas_line(c, r, line, sizeof line);
		if (strstr(line, needle))
			return r;
	}
	return -1;
}

static void dump(const struct canvas *c)
{
	char line[4096];
	for (int r = 0; r < c->used; r++) {
		canvas_line(c, r, line, sizeof line);
		fprintf(stderr, "|%s\n", line);
	}
}

#define SEES(c, s)                                            \
	do {                                                  \
		if (find_row(c, s) < 0) {                     \
			dump(c);                              \
			ck_abort_msg("not on screen: %s", s); \
		}                                             \
	} while (0)

START_TEST(overview_shows_the_storm_and_its_origin)
{
	view_draw(&st, cv);
	SEES(cv, "Targets 14/14 up");
	SEES(cv, "INCIDENTS: 1 active, 4 recent");
	int r = find_row(cv, "pfc_storm");
	ck_assert_int_ge(r, 0);
	char line[512];
	canvas_line(cv, r, line, sizeof line);
	ck_assert_msg(strstr(line, "firing") && strstr(line, "host4:mlx5_0"),
		      "%s", line);
	SEES(cv, "MOST PAUSED PORTS");
	SEES(cv, "leaf2      Ethernet0");
	SEES(cv, " 1 Overview ");
	ck_assert_int_eq(find_row(cv, "1 firing"), 2);
	/* The cursor is on the first incident. */
	ck_assert(cv->attr[(size_t)r * (size_t)cv->cols] & CA_SELECTED);
	/* Nothing runs past 80 columns: the canvas is the screen. */
	ck_assert_int_eq(cv->cols, 80);
}
END_TEST

START_TEST(enter_opens_the_incident_and_esc_goes_back)
{
	view_action(&st, VA_ENTER);
	ck_assert_int_eq(st.view, VIEW_INCIDENT);
	view_draw(&st, cv);
	SEES(cv, "Incident #7 pfc_storm firing");
	SEES(cv, "Started at: host0:mlx5_0");
	SEES(cv, "PAUSE TREE from the origin to its victims (5 ports)");
	SEES(cv, "  host0:mlx5_0 origin p3");
	SEES(cv, "  \u251c\u2500 leaf0:Ethernet0 victim p3 (1 hop)");
	SEES(cv, "  \u2502  \u2514\u2500 leaf0:Ethernet40 spreader");
	SEES(cv,
	     "  \u2502     \u2514\u2500 spine1:Ethernet1/1 victim p3 (2 hops)");
	SEES(cv, "  \u2514\u2500 leaf1:Ethernet44 victim");
	SEES(cv, "peer_pause_ratio_rx");
	SEES(cv, "Pause ratio at origin:");
	view_action(&st, VA_BACK);
	ck_assert_int_eq(st.view, VIEW_OVERVIEW);
	/* Down then Enter: the second incident. */
	view_action(&st, VA_DOWN);
	view_draw(&st, cv);
	view_action(&st, VA_ENTER);
	view_draw(&st, cv);
	SEES(cv, "Incident #8 target_silent pending");
	SEES(cv, "Started at: spine0");
}
END_TEST

START_TEST(incident_survives_its_removal_from_the_api)
{
	view_action(&st, VA_ENTER);
	model_incidents_clear(&st.incidents);
	view_draw(&st, cv);
	SEES(cv, "Incident #7 pfc_storm");
	SEES(cv, "(no longer listed by fabmond)");
	SEES(cv, "spine1:Ethernet1/1");
}
END_TEST

START_TEST(the_ascii_tree_reads_without_utf8)
{
	canvas_free(cv);
	cv = canvas_new(24, 80, true);
	view_action(&st, VA_ENTER);
	view_draw(&st, cv);
	SEES(cv, "  |- leaf0:Ethernet0 victim");
	SEES(cv, "  |  `- leaf0:Ethernet40 spreader");
	SEES(cv, "  `- leaf1:Ethernet44 victim");
}
END_TEST

START_TEST(sparkline_grows_with_refreshes)
{
	/* The origin's row comes from the ports answer of each refresh. */
	struct model_port *p = &st.ports.v[0];
	free(p->device);
	free(p->port);
	p->device = strdup("host0");
	p->port = strdup("mlx5_0");
	p->v[MODEL_PF_PAUSE_RX] = NAN;
	for (int i = 0; i <= 7; i++) {
		p->v[MODEL_PF_PAUSE_TX] = i / 7.0;
		view_record_history(&st);
	}
	const struct view_hist *h = view_history(&st, "host0", "mlx5_0");
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->n, 9); /* the setup's refresh, then 8 */
	view_action(&st, VA_ENTER);
	view_draw(&st, cv);
	SEES(cv, "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588 now 100%");
	ck_assert(!view_wants_port(&st, "host0", "mlx5_0"));
	ck_assert(view_wants_port(&st, "host9", "mlx5_0"));
}
END_TEST

START_TEST(views_switch_with_number_keys)
{
	static const struct {
		enum view_act a;
		const char *title;
	} v[] = {
		{ VA_VIEW2, "PORTS by pause rx" },
		{ VA_VIEW4, "HOSTS: NIC ports by pause time" },
		{ VA_VIEW5, "TARGETS: 14 of 14 up" },
		{ VA_VIEW3, "Incident #5 pfc_storm" },
		{ VA_VIEW1, "INCIDENTS:" },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		view_action(&st, v[i].a);
		view_draw(&st, cv);
		SEES(cv, v[i].title);
	}
	view_action(&st, VA_VIEW4);
	view_draw(&st, cv);
	/* The NIC that sends the pause ranks first. */
	ck_assert_int_eq(find_row(cv, "host4      mlx5_0"), 5);
	view_action(&st, VA_HELP);
	view_draw(&st, cv);
	SEES(cv, "fabtop keys");
	view_action(&st, VA_BACK);
	view_draw(&st, cv);
	ck_assert_int_lt(find_row(cv, "fabtop keys"), 0);
	ck_assert(!view_action(&st, VA_QUIT));
}
END_TEST

/* The hosts view shows retries_pps and, sorted by it, ranks on it. */
START_TEST(hosts_show_and_rank_by_retries)
{
	struct model_port *h1 = NULL;
	for (size_t i = 0; i < st.ports.n; i++)
		if (!strcmp(st.ports.v[i].device, "host1") &&
		    !strcmp(st.ports.v[i].port, "mlx5_0"))
			h1 = &st.ports.v[i];
	ck_assert_ptr_nonnull(h1);
	h1->v[MODEL_PF_RETRIES] = 1234;
	view_action(&st, VA_VIEW4);
	view_action(&st, VA_SORT); /* CNP activity */
	view_action(&st, VA_SORT); /* transport retries */
	view_draw(&st, cv);
	SEES(cv, "HOSTS: NIC ports by transport retries");
	SEES(cv, "RETRY/s*");
	int row = find_row(cv, "host1      mlx5_0");
	ck_assert_int_eq(row, 5);
	char want[32], line[4096];
	view_fmt_rate(1234, want, sizeof want);
	canvas_line(cv, row, line, sizeof line);
	ck_assert_msg(strstr(line, want), "no %s in: %s", want, line);
}
END_TEST

START_TEST(ports_sort_and_filter)
{
	view_action(&st, VA_VIEW2);
	view_draw(&st, cv);
	SEES(cv, "PAUSErx*");
	int first = find_row(cv, "leaf0      Ethernet32");
	ck_assert_int_eq(first, 5); /* header 3 rows, title, columns */
	ck_assert_int_eq(find_row(cv, "leaf2      Ethernet0"), 6);
	view_action(&st, VA_SORT);
	view_draw(&st, cv);
	SEES(cv, "PORTS by pause tx");
	ck_assert_str_eq(view_sort_field(&st), "pause_ratio_tx");
	for (int i = 0; i < 6; i++)
		view_action(&st, VA_SORT);
	ck_assert_str_eq(view_sort_field(&st), "device");
	view_draw(&st, cv);
	/* By name in natural order: leaf0 before leaf2 before spine0. */
	int l0 = find_row(cv, "leaf0 "), l2 = find_row(cv, "leaf2 "),
	    s0 = find_row(cv, "spine0 ");
	ck_assert_msg(l0 > 0 && l0 < l2 && l2 < s0, "%d %d %d", l0, l2, s0);

	view_action(&st, VA_FILTER);
	ck_assert(st.editing);
	for (const char *k = "SPINE0:eth"; *k; k++)
		view_filter_key(&st, *k);
	view_filter_key(&st, '\r');
	ck_assert(!st.editing);
	view_draw(&st, cv);
	char line[512];
	for (int r = 5; r < 22; r++) {
		canvas_line(cv, r, line, sizeof line);
		ck_assert_msg(r == 21 || !line[0] ||
				  !strncmp(line, "spine0", 6),
			      "%s", line);
	}
	SEES(cv, "spine0     Ethernet3/1");
	SEES(cv, "filter: SPINE0:eth");
	/* A priority token: every row has priority 3; none has 9. */
	view_filter_key(&st, 27);
	view_action(&st, VA_FILTER);
	for (const char *k = "p3 leaf"; *k; k++)
		view_filter_key(&st, *k);
	view_draw(&st, cv);
	SEES(cv, "leaf2      Ethernet0");
	ck_assert_int_lt(find_row(cv, "spine0 "), 0);
	view_filter_key(&st, '\b');
	view_filter_key(&st, '\b');
	view_filter_key(&st, '\b');
	view_filter_key(&st, '\b');
	view_filter_key(&st, 'x');
	view_filter_key(&st, 'x');
	view_draw(&st, cv);
	SEES(cv, "No port matches the filter.");
}
END_TEST

START_TEST(disconnected_keeps_the_last_data)
{
	st.connected = false;
	st.conn_error = strdup("Failed to connect to 127.0.0.1 port 9465");
	st.now += 12;
	view_draw(&st, cv);
	SEES(cv, "disconnected, retrying (data 12s old)");
	SEES(cv, "pfc_storm");
}
END_TEST

START_TEST(missing_incidents_api_is_explained)
{
	model_incidents_clear(&st.incidents);
	st.incidents_http = 404;
	view_draw(&st, cv);
	SEES(cv, "This fabmond has no incidents API");
	SEES(cv, "MOST PAUSED PORTS");
}
END_TEST

START_TEST(batch_frame_is_plain_text_with_the_tree)
{
	struct canvas *b = canvas_new(400, 100, false);
	view_draw_batch(&st, b, 5);
	SEES(b, "fabtop 20"); /* the date and time */
	SEES(b, "http://127.0.0.1:9465");
	SEES(b, "pfc_storm          firing   host0:mlx5_0");
	SEES(b, "pause tree (origin to victims):");
	SEES(b, "\u2514\u2500 leaf1:Ethernet44 victim");
	SEES(b, "TARGETS: 14 of 14 up");
	/* 5 ports at most after the ports header. */
	int h = find_row(b, "DEVICE");
	ck_assert_int_gt(h, 0);
	char line[512];
	canvas_line(b, h + 6, line, sizeof line);
	ck_assert_str_eq(line, "");
	canvas_free(b);
}
END_TEST

/* ---- storms from outside fabmond's view (the rule engine's JSON for
 * leaf0:Ethernet0 held paused by an unlinked neighbour, and leaf1 by an
 * LLDP-named unmonitored host7) */

static void setup_far_end(void)
{
	load_state("incidents-far-end.json");
}

START_TEST(far_end_origin_is_parsed)
{
	ck_assert_uint_eq(st.incidents.n_active, 2);
	const struct model_incident *a = &st.incidents.active[0];
	const struct model_incident *b = &st.incidents.active[1];
	ck_assert_str_eq(a->origin_device, "host7");
	ck_assert(!a->origin_far_end && a->sender_unmonitored);
	ck_assert_str_eq(b->origin_device, "leaf0");
	ck_assert_str_eq(b->origin_port, "Ethernet0");
	ck_assert(b->origin_far_end && b->sender_unmonitored);
	/* An ordinary origin has neither. */
	struct model_incidents in;
	PARSE(model_parse_incidents, "incidents-tree.json", &in);
	ck_assert(!in.active[0].origin_far_end);
	ck_assert(!in.active[0].sender_unmonitored);
	model_incidents_clear(&in);
}
END_TEST

/* The report's incident list says so too: the real report's storm,
 * its origin marked as /api/v1/report marks a storm from outside the
 * view. */
START_TEST(far_end_in_the_report_text)
{
	size_t len;
	char *b = slurp("report-nic_pfc_storm.json", &len);
	json_t *doc = json_loadb(b, len, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	free(b);
	json_t *list =
	    json_object_get(json_object_get(doc, "incidents"), "list");
	json_t *org = json_object_get(json_array_get(list, 0), "origin");
	json_object_set_new(org, "far_end", json_true());
	json_object_set_new(org, "sender", json_string("unmonitored"));
	b = json_dumps(doc, 0);
	json_decref(doc);
	enum model_verdict v = MODEL_VERDICT_UNKNOWN;
	char *t = model_format_report(b, strlen(b), &v);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strstr(t, "  #2 pfc_storm resolved p3 at far end of "
				"host0:mlx5_0 (unmonitored): "),
		      "%s", t);
	ck_assert_ptr_nonnull(
	    strstr(t, "  #3 lossless_drop firing p3 at host0:mlx5_0: "));
	free(t);
	free(b);
}
END_TEST

START_TEST(far_end_rows_say_so)
{
	view_draw(&st, cv);
	int r = find_row(cv, "far end of leaf0:Ethernet0 (unmonitored)");
	if (r < 0)
		dump(cv);
	ck_assert_int_ge(r, 0);
	char line[512];
	canvas_line(cv, r, line, sizeof line);
	ck_assert_msg(strstr(line, "pfc_storm") && strstr(line, "firing"), "%s",
		      line);
	SEES(cv, "host7:mlx5_0 (unmonitored)");
	/* The detail: the origin, then the port as its victim. */
	view_action(&st, VA_DOWN);
	view_action(&st, VA_ENTER);
	view_draw(&st, cv);
	SEES(cv, "Started at: far end of leaf0:Ethernet0 (unmonitored)");
	SEES(cv, "held paused by its far end");
	SEES(cv, "leaf0:Ethernet0 victim p3 (1 hop)");
	SEES(cv, "leaf0:Ethernet8 spreader");
}
END_TEST

static Suite *fabtop_suite(void)
{
	Suite *s = suite_create("fabtop");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, ports_from_a_real_fabmond);
	tcase_add_test(tc, targets_and_status_from_a_real_fabmond);
	tcase_add_test(tc, incidents_from_a_real_fabmond);
	tcase_add_test(tc, pause_tree_is_flattened_with_its_shape);
	tcase_add_test(tc, malformed_answers_are_errors_not_crashes);
	tcase_add_test(tc, unexpected_types_read_as_unknown);
	tcase_add_test(tc, deep_trees_are_bounded);
	tcase_add_test(tc, error_bodies_and_report_text);
	tcase_add_test(tc, report_layout_from_a_real_answer);
	tcase_add_test(tc, report_missing_extra_and_foreign_shapes);
	tcase_add_test(tc, canvas_keeps_columns_aligned);
	tcase_add_test(tc, rates_and_ratios_are_formatted_short);
	suite_add_tcase(s, tc);

	tc = tcase_create("views");
	tcase_add_checked_fixture(tc, setup_tree, teardown_views);
	tcase_add_test(tc, enter_opens_the_incident_and_esc_goes_back);
	tcase_add_test(tc, incident_survives_its_removal_from_the_api);
	tcase_add_test(tc, the_ascii_tree_reads_without_utf8);
	tcase_add_test(tc, sparkline_grows_with_refreshes);
	tcase_add_test(tc, batch_frame_is_plain_text_with_the_tree);
	suite_add_tcase(s, tc);

	tc = tcase_create("views_storm");
	tcase_add_checked_fixture(tc, setup_storm, teardown_views);
	tcase_add_test(tc, overview_shows_the_storm_and_its_origin);
	tcase_add_test(tc, views_switch_with_number_keys);
	tcase_add_test(tc, hosts_show_and_rank_by_retries);
	tcase_add_test(tc, ports_sort_and_filter);
	tcase_add_test(tc, disconnected_keeps_the_last_data);
	tcase_add_test(tc, missing_incidents_api_is_explained);
	suite_add_tcase(s, tc);

	tc = tcase_create("views_far_end");
	tcase_add_checked_fixture(tc, setup_far_end, teardown_views);
	tcase_add_test(tc, far_end_origin_is_parsed);
	tcase_add_test(tc, far_end_in_the_report_text);
	tcase_add_test(tc, far_end_rows_say_so);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fabtop_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
