/*
 * check_rules_outside: PFC storms from outside fabmond's view (doc/rules.md,
 * "A storm from outside the view"). A switch port held paused by a
 * neighbour that fabmond does not monitor and has no link for is a
 * pfc_storm at the far end of that port; one whose link names an
 * unmonitored neighbour is a storm at the neighbour, marked as such.
 * Trickles, heavy pausing below storm_ratio and congestion spreading from
 * a monitored switch are not. The store and the engine run on an
 * injected clock (tests/rules_fixture.h); the API's JSON and the metrics
 * are rendered from the same engine.
 */
#include "config.h"

#include "buf.h"
#include "incidents.h"
#include "report_api.h"
#include "rules_fixture.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 100G in bytes/s, and the XOFF refresh rate that holds it paused. */
#define SPEED_100G   12.5e9
#define REFRESH_100G (SPEED_100G * 8 / (512.0 * 65535.0))

/* A port with pause counters on priority 3, all 0, and a speed. */
static void port(const char *dev, const char *p)
{
	set(dev, p, FM_C_PFC_TX_PAUSE, 3, 0);
	set(dev, p, FM_C_PFC_RX_PAUSE, 3, 0);
	set(dev, p, FM_C_LINK_SPEED, 0, SPEED_100G);
}

/*
 * leaf0:Ethernet0 has no link (its neighbour is not monitored, LLDP off);
 * leaf0:Ethernet8 is cabled to spine0:Ethernet0, spine0:Ethernet8 to
 * leaf1:Ethernet8.
 */
static void fabric(void)
{
	link2("leaf0", "Ethernet8", "spine0", "Ethernet0");
	link2("spine0", "Ethernet8", "leaf1", "Ethernet8");
	port("leaf0", "Ethernet0");
	port("leaf0", "Ethernet8");
	port("spine0", "Ethernet0");
	port("spine0", "Ethernet8");
	port("leaf1", "Ethernet8");
}

static size_t n_active(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	size_t n = s.n_active;
	rules_snapshot_free(&s);
	return n;
}

/* The active incident of kind at origin dev:port, or NULL. */
static const struct rules_incident *find(const struct rules_snapshot *s,
					 enum rules_kind kind, const char *dev,
					 const char *port)
{
	for (size_t i = 0; i < s->n_active; i++) {
		const struct rules_incident *in = &s->active[i];
		if (in->kind == kind && !strcmp(in->subjects[0].device, dev) &&
		    !strcmp(in->subjects[0].port, port))
			return in;
	}
	return NULL;
}

/* The index of subject dev:port in role, or -1. */
static int sub_ix(const struct rules_incident *in, const char *dev,
		  const char *port, enum rules_role role)
{
	for (size_t i = 0; i < in->n_subjects; i++)
		if (!strcmp(in->subjects[i].device, dev) &&
		    !strcmp(in->subjects[i].port, port) &&
		    in->subjects[i].role == role)
			return (int)i;
	return -1;
}

/* Checks the one firing far-end storm at leaf0:Ethernet0 priority 3. */
static void assert_far_end_storm(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_active, 1);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "leaf0", "Ethernet0");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->state, RULES_FIRING);
	ck_assert_int_eq(in->priority, 3);
	ck_assert(in->far_end);
	ck_assert_int_eq(in->sender, RULES_SENDER_UNMONITORED);
	ck_assert_ptr_nonnull(strstr(in->summary, "leaf0:Ethernet0 held paused "
						  "by its far end (sender not "
						  "monitored)"));
	/* The port is the victim at depth 1 of its far end. */
	int v = sub_ix(in, "leaf0", "Ethernet0", RULES_ROLE_VICTIM);
	ck_assert_int_ge(v, 1);
	ck_assert_int_eq(in->subjects[v].parent, 0);
	ck_assert_uint_eq(in->subjects[v].depth, 1);
	rules_snapshot_free(&s);
}

/* No link, held paused at ratio 1: a storm on the first sample that
 * shows it (storm_for 200 ms < one sample). */
START_TEST(test_no_peer_held_paused_is_a_far_end_storm)
{
	fabric();
	steps(3);
	ck_assert_uint_eq(n_active(), 0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	assert_far_end_storm();
}
END_TEST

/* The tree grows from the paused port's device: leaf0 relays the pause
 * to spine0 (spreader leaf0:Ethernet8, victim spine0:Ethernet0), and
 * spine0 to leaf1. One incident: leaf0 and spine0 are paused, not roots. */
START_TEST(test_far_end_storm_tree_spreads)
{
	fabric();
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	set("leaf0", "Ethernet8", FM_C_PFC_TX_PAUSE, 3, 0.7);
	set("spine0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0.7);
	set("spine0", "Ethernet8", FM_C_PFC_TX_PAUSE, 3, 0.5);
	set("leaf1", "Ethernet8", FM_C_PFC_RX_PAUSE, 3, 0.5);
	step();
	assert_far_end_storm();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "leaf0", "Ethernet0");
	int v = sub_ix(in, "leaf0", "Ethernet0", RULES_ROLE_VICTIM);
	int sp = sub_ix(in, "leaf0", "Ethernet8", RULES_ROLE_SPREADER);
	int v2 = sub_ix(in, "spine0", "Ethernet0", RULES_ROLE_VICTIM);
	int v3 = sub_ix(in, "leaf1", "Ethernet8", RULES_ROLE_VICTIM);
	ck_assert_int_ge(sp, 0);
	ck_assert_int_ge(v2, 0);
	ck_assert_int_ge(v3, 0);
	ck_assert_int_eq(in->subjects[sp].parent, v);
	ck_assert_int_eq(in->subjects[v2].parent, sp);
	ck_assert_uint_eq(in->subjects[v2].depth, 2);
	ck_assert_uint_eq(in->subjects[v3].depth, 3);
	ck_assert_ptr_nonnull(strstr(in->summary, "4 other ports involved"));
	rules_snapshot_free(&s);
}
END_TEST

/* storm_for 2 s: pending on the first sample, firing on the second
 * (storm_for plus one sample at most). */
START_TEST(test_far_end_storm_waits_storm_for)
{
	fab_close();
	fab_up("rules:\n  storm_for: 2s\n");
	fabric();
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "leaf0", "Ethernet0");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->state, RULES_PENDING);
	rules_snapshot_free(&s);
	step();
	assert_far_end_storm();
}
END_TEST

/* SONiC's counters at 100G: PFC frames at the refresh rate and pause
 * time 1 s/s; and frames alone, without a duration counter. */
START_TEST(test_far_end_storm_from_sonic_counters)
{
	fabric();
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 0);
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, REFRESH_100G);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	assert_far_end_storm();
}
END_TEST

START_TEST(test_far_end_storm_from_frames_only)
{
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 0);
	set("leaf0", "Ethernet0", FM_C_LINK_SPEED, 0, SPEED_100G);
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, REFRESH_100G);
	step();
	assert_far_end_storm();
}
END_TEST

/* Whether the far-end storm at leaf0:Ethernet0 fires. */
static bool far_end_firing(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "leaf0", "Ethernet0");
	bool firing = in && in->state == RULES_FIRING;
	rules_snapshot_free(&s);
	return firing;
}

/* leaf0:Ethernet0 with SONiC's PFC counters on priority 3 (frames, and
 * pause time unless frames_only), all 0, and no link; its speed only if
 * speed (on SONiC, from APPL_DB's PORT_TABLE). */
static void sonic_port(bool speed, bool frames_only)
{
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 0);
	if (!frames_only)
		set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	if (speed)
		set("leaf0", "Ethernet0", FM_C_LINK_SPEED, 0, SPEED_100G);
}

/* Held paused from ratio of the window before the sample on: pause time
 * and the frames of one pause still on (R T, no XON). */
static void sonic_pause(double ratio, bool frames_only)
{
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, ratio * REFRESH_100G);
	if (!frames_only)
		set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, ratio);
}

/*
 * A storm that began 0.6 s before a sample. With the port's speed the
 * frames tell one pause still on: it fires on that sample, the onset's
 * (storm_for 200 ms). Without a speed (a SONiC port whose neighbour is
 * not monitored, and no PORT_TABLE) nothing tells it from bursts: it
 * waits for the next sample, whose whole window is paused.
 */
START_TEST(test_far_end_storm_on_its_onset_sample_needs_the_speed)
{
	sonic_port(true, false);
	steps(2);
	sonic_pause(0.6, false);
	step();
	assert_far_end_storm();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	bool tail = false;
	for (size_t i = 0; i < s.active[0].n_evidence; i++)
		tail |=
		    !strcmp(s.active[0].evidence[i].name, "paused_for_seconds");
	ck_assert(tail);
	rules_snapshot_free(&s);

	fab_close();
	fab_up(NULL);
	sonic_port(false, false);
	steps(2);
	sonic_pause(0.6, false);
	step();
	ck_assert_uint_eq(n_active(), 0);
	sonic_pause(1, false);
	step();
	assert_far_end_storm();
}
END_TEST

/*
 * Frames alone (a platform that collects no pause durations): with the
 * speed they are a ratio, and the storm fires within storm_for (2 s)
 * and one sample of its onset; without it they say nothing, however
 * long the storm lasts.
 */
START_TEST(test_far_end_frames_only_storm_needs_the_speed)
{
	fab_close();
	fab_up("rules:\n  storm_for: 2s\n");
	sonic_port(true, true);
	steps(2);
	sonic_pause(1, true);
	step(); /* the onset's sample: 1 s of it seen */
	ck_assert(!far_end_firing());
	int n = 1;
	while (!far_end_firing()) {
		ck_assert_int_lt(n, 3); /* storm_for + one sample */
		step();
		n++;
	}
	assert_far_end_storm();

	fab_close();
	fab_up("rules:\n  storm_for: 2s\n");
	sonic_port(false, true);
	steps(2);
	sonic_pause(1, true);
	steps(6);
	ck_assert_uint_eq(n_active(), 0);
}
END_TEST

/* The switch's watchdog alone (no pause counter at all): its stormed
 * gauge, then the incident clears once the gauge falls. */
START_TEST(test_watchdog_stormed_alone)
{
	set("leaf0", "Ethernet0", FM_C_PFC_WD_STORMED, 3, 0);
	steps(3);
	ck_assert_uint_eq(n_active(), 0);
	set("leaf0", "Ethernet0", FM_C_PFC_WD_STORMED, 3, 1);
	step();
	assert_far_end_storm();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	const struct rules_incident *in = &s.active[0];
	bool wd = false;
	for (size_t i = 0; i < in->n_evidence; i++)
		wd |= !strcmp(in->evidence[i].name, "pfc_watchdog") &&
		      in->evidence[i].value == 1;
	ck_assert(wd);
	rules_snapshot_free(&s);
	set("leaf0", "Ethernet0", FM_C_PFC_WD_STORMED, 3, 0);
	steps(8); /* rules.clear is 5 s */
	ck_assert_uint_eq(n_active(), 0);
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_recent, 1);
	ck_assert(s.recent[0].far_end);
	rules_snapshot_free(&s);
}
END_TEST

/* The watchdog's storms counted in the window (a counter, no gauge). */
START_TEST(test_watchdog_storms_counted)
{
	set("leaf0", "Ethernet0", FM_C_PFC_WD_STORMS, 3, 0);
	steps(3);
	set("leaf0", "Ethernet0", FM_C_PFC_WD_STORMS, 3, 1);
	step();
	assert_far_end_storm();
}
END_TEST

/* LLDP names the neighbour, host7:mlx5_0, which is not monitored: the
 * graph's storm at host7, marked as from an unmonitored sender. */
START_TEST(test_named_unmonitored_peer)
{
	link2("leaf0", "Ethernet0", "host7", "mlx5_0");
	port("leaf0", "Ethernet0");
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_active, 1);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "host7", "mlx5_0");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->state, RULES_FIRING);
	ck_assert(!in->far_end);
	ck_assert_int_eq(in->sender, RULES_SENDER_UNMONITORED);
	ck_assert_int_ge(sub_ix(in, "leaf0", "Ethernet0", RULES_ROLE_VICTIM),
			 1);
	ck_assert_ptr_nonnull(strstr(in->summary, "pfc_storm at host7:mlx5_0 "
						  "priority 3 (sender not "
						  "monitored)"));
	rules_snapshot_free(&s);
}
END_TEST

/* The same neighbour monitored (it reports its own pausing): an
 * ordinary storm. */
START_TEST(test_named_monitored_peer_is_ordinary)
{
	link2("leaf0", "Ethernet0", "host7", "mlx5_0");
	port("leaf0", "Ethernet0");
	port("host7", "mlx5_0");
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	set("host7", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1.0);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	const struct rules_incident *in =
	    find(&s, RULES_PFC_STORM, "host7", "mlx5_0");
	ck_assert_ptr_nonnull(in);
	ck_assert(!in->far_end);
	ck_assert_int_eq(in->sender, RULES_SENDER_MONITORED);
	ck_assert_ptr_null(strstr(in->summary, "not monitored"));
	rules_snapshot_free(&s);
}
END_TEST

/* A trickle (1e-4, then 1e-2) and heavy pausing below storm_ratio (0.5,
 * in bursts: many XONs) on a port with no link: nothing, ever. */
START_TEST(test_trickle_and_half_are_not_storms)
{
	fabric();
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 0);
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1e-4);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 1);
	steps(5);
	ck_assert_uint_eq(n_active(), 0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1e-2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3,
	    REFRESH_100G * 1e-2 + 40);
	steps(5);
	ck_assert_uint_eq(n_active(), 0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0.5);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3,
	    REFRESH_100G * 0.5 + 200);
	steps(10);
	ck_assert_uint_eq(n_active(), 0);
	/* Pause time alone (no frames to tell a tail), 0.85. */
	set("leaf0", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0.85);
	steps(10);
	ck_assert_uint_eq(n_active(), 0);
}
END_TEST

/* leaf0:Ethernet0's peer is spine0, monitored, and paused itself by
 * leaf1 (congestion spreading from leaf1): not a storm from outside,
 * and no storm at all. */
START_TEST(test_monitored_paused_peer_is_not_outside)
{
	link2("leaf0", "Ethernet0", "spine0", "Ethernet4");
	port("leaf0", "Ethernet0");
	port("spine0", "Ethernet4");
	fabric();
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	set("spine0", "Ethernet4", FM_C_PFC_TX_PAUSE, 3, 1.0);
	set("spine0", "Ethernet8", FM_C_PFC_RX_PAUSE, 3, 0.6);
	set("leaf1", "Ethernet8", FM_C_PFC_TX_PAUSE, 3, 0.6);
	for (int i = 0; i < 5; i++) {
		step();
		struct rules_snapshot s;
		rules_snapshot(F.r, false, &s);
		for (size_t k = 0; k < s.n_active; k++) {
			const struct rules_incident *in = &s.active[k];
			ck_assert_msg(in->kind != RULES_PFC_STORM, "%s",
				      in->summary);
			ck_assert(!in->far_end);
			ck_assert_int_eq(in->sender, RULES_SENDER_MONITORED);
		}
		ck_assert(
		    find(&s, RULES_CONGESTION_SPREADING, "leaf1", "Ethernet8"));
		rules_snapshot_free(&s);
	}
}
END_TEST

/* The API's JSON and the metrics of a storm from a far end. */
START_TEST(test_far_end_json_and_metrics)
{
	fabric();
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(incidents_api_incidents(F.r, NULL, 0, &b), 200);
	json_error_t je;
	json_t *doc = json_loadb(b.data, b.len, 0, &je);
	ck_assert_msg(doc, "%s", je.text);
	json_t *in = json_array_get(json_object_get(doc, "active"), 0);
	json_t *org = json_object_get(in, "origin");
	ck_assert_str_eq(json_string_value(json_object_get(org, "device")),
			 "leaf0");
	ck_assert_str_eq(json_string_value(json_object_get(org, "port")),
			 "Ethernet0");
	ck_assert_int_eq(json_integer_value(json_object_get(org, "priority")),
			 3);
	ck_assert(json_is_true(json_object_get(org, "far_end")));
	ck_assert_str_eq(json_string_value(json_object_get(org, "sender")),
			 "unmonitored");
	/* tree: origin (the far end) -> victim leaf0:Ethernet0 */
	json_t *t = json_object_get(in, "tree");
	ck_assert_str_eq(json_string_value(json_object_get(t, "role")),
			 "origin");
	json_t *v = json_array_get(json_object_get(t, "children"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(v, "role")),
			 "victim");
	ck_assert_str_eq(json_string_value(json_object_get(v, "port")),
			 "Ethernet0");
	ck_assert_int_eq(json_integer_value(json_object_get(v, "depth")), 1);
	json_decref(doc);

	buf_reset(&b);
	ck_assert_int_eq(incidents_prom_render(F.r, EXPFMT_TEXT, -1, &b), 0);
	ck_assert_ptr_nonnull(
	    strstr(b.data, "fabmon_incident_active{kind=\"pfc_storm\","
			   "device=\"leaf0\",port=\"Ethernet0\",priority=\"3\","
			   "role=\"origin\",sender=\"unmonitored\"} 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(b.data, "fabmon_incident_active{kind=\"pfc_storm\","
			   "device=\"leaf0\",port=\"Ethernet0\",priority=\"3\","
			   "role=\"victim\",sender=\"unmonitored\"} 1\n"));
	buf_fini(&b);
}
END_TEST

/* The validation report remembers a storm from outside the view as
 * such: its incidents list (GET /api/v1/report) says far_end and
 * sender as /api/v1/incidents does. */
START_TEST(test_far_end_in_the_report)
{
	struct report_opts o = {
		.window_ns = F.cfg->report.window_ns,
		.step_ns = F.cfg->report.step_ns,
		.max_records = F.cfg->report.max_records,
		.max_incidents = F.cfg->report.max_incidents,
		.lossless_mask = F.cfg->lossless_mask,
	};
	F.rep = report_new(F.st, &o);
	struct rules_output out = { &report_output_ops, F.rep };
	rules_set_outputs(F.r, &out, 1);
	fabric();
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	step();
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(report_api_serve(F.rep, NULL, 0, &b, treal(NULL)),
			 200);
	json_error_t je;
	json_t *doc = json_loadb(b.data, b.len, 0, &je);
	ck_assert_msg(doc, "%s", je.text);
	json_t *list =
	    json_object_get(json_object_get(doc, "incidents"), "list");
	ck_assert_uint_eq(json_array_size(list), 1);
	json_t *org = json_object_get(json_array_get(list, 0), "origin");
	ck_assert_str_eq(json_string_value(json_object_get(org, "port")),
			 "Ethernet0");
	ck_assert(json_is_true(json_object_get(org, "far_end")));
	ck_assert_str_eq(json_string_value(json_object_get(org, "sender")),
			 "unmonitored");
	json_decref(doc);
	buf_fini(&b);
}
END_TEST

/* An ordinary storm: no far_end, no sender in the JSON; sender="" in
 * the metric. */
START_TEST(test_ordinary_json_and_metrics_unchanged)
{
	link2("leaf0", "Ethernet0", "host7", "mlx5_0");
	port("leaf0", "Ethernet0");
	port("host7", "mlx5_0");
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	set("host7", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1.0);
	step();
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(incidents_api_incidents(F.r, NULL, 0, &b), 200);
	json_error_t je;
	json_t *doc = json_loadb(b.data, b.len, 0, &je);
	ck_assert_msg(doc, "%s", je.text);
	json_t *org = json_object_get(
	    json_array_get(json_object_get(doc, "active"), 0), "origin");
	ck_assert_str_eq(json_string_value(json_object_get(org, "device")),
			 "host7");
	ck_assert_ptr_null(json_object_get(org, "far_end"));
	ck_assert_ptr_null(json_object_get(org, "sender"));
	json_decref(doc);
	buf_reset(&b);
	ck_assert_int_eq(incidents_prom_render(F.r, EXPFMT_TEXT, -1, &b), 0);
	ck_assert_ptr_nonnull(
	    strstr(b.data, "fabmon_incident_active{kind=\"pfc_storm\","
			   "device=\"host7\",port=\"mlx5_0\",priority=\"3\","
			   "role=\"origin\",sender=\"\"} 1\n"));
	buf_fini(&b);
}
END_TEST

static Suite *outside_suite(void)
{
	Suite *s = suite_create("rules_outside");
	TCase *tc = tcase_create("outside");
	tcase_add_checked_fixture(tc, fab_setup, fab_teardown);
	tcase_add_test(tc, test_no_peer_held_paused_is_a_far_end_storm);
	tcase_add_test(tc, test_far_end_storm_tree_spreads);
	tcase_add_test(tc, test_far_end_storm_waits_storm_for);
	tcase_add_test(tc, test_far_end_storm_from_sonic_counters);
	tcase_add_test(tc, test_far_end_storm_from_frames_only);
	tcase_add_test(tc,
		       test_far_end_storm_on_its_onset_sample_needs_the_speed);
	tcase_add_test(tc, test_far_end_frames_only_storm_needs_the_speed);
	tcase_add_test(tc, test_watchdog_stormed_alone);
	tcase_add_test(tc, test_watchdog_storms_counted);
	tcase_add_test(tc, test_named_unmonitored_peer);
	tcase_add_test(tc, test_named_monitored_peer_is_ordinary);
	tcase_add_test(tc, test_trickle_and_half_are_not_storms);
	tcase_add_test(tc, test_monitored_paused_peer_is_not_outside);
	tcase_add_test(tc, test_far_end_json_and_metrics);
	tcase_add_test(tc, test_ordinary_json_and_metrics_unchanged);
	tcase_add_test(tc, test_far_end_in_the_report);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(outside_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
