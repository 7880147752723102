/*
 * check_rules: the rule engine on constructed store contents. A test
 * builds a small fabric (links in a link table), sets per-second rates
 * of counters, and advances a simulated clock one sample interval at a
 * time (tests/rules_fixture.h: each step adds rate x 1 s to every
 * series' raw counter, stores it with the step's timestamp in a real
 * struct store, and runs one engine tick). No sleeping, no wall clock.
 */
#include "config.h"

#include "buf.h"
#include "fabmond.h"
#include "gnmi_cfg.h"
#include "incidents.h"
#include "rules_fixture.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A reboot of dev: its counters restart from zero. */
static void reboot(const char *dev)
{
	for (size_t i = 0; i < F.n; i++)
		if (!strcmp(F.s[i].dev, dev))
			F.s[i].raw = 0;
}

/* The incident of kind at origin dev:port (port "" for a device) in
 * the current snapshot, copied into *out; false if none. */
static bool find(struct rules_snapshot *s, enum rules_kind kind,
		 const char *dev, const char *port, bool firing,
		 const struct rules_incident **out)
{
	for (size_t i = 0; i < s->n_active; i++) {
		const struct rules_incident *in = &s->active[i];
		if (in->kind != kind || (firing && in->state != RULES_FIRING))
			continue;
		if (strcmp(in->subjects[0].device, dev) ||
		    strcmp(in->subjects[0].port, port))
			continue;
		if (out)
			*out = in;
		return true;
	}
	return false;
}

static bool has_subject(const struct rules_incident *in, const char *dev,
			const char *port, enum rules_role role)
{
	for (size_t i = 0; i < in->n_subjects; i++)
		if (!strcmp(in->subjects[i].device, dev) &&
		    !strcmp(in->subjects[i].port, port) &&
		    in->subjects[i].role == role)
			return true;
	return false;
}

static const struct rules_subject *subject(const struct rules_incident *in,
					   const char *dev, const char *port)
{
	for (size_t i = 0; i < in->n_subjects; i++)
		if (!strcmp(in->subjects[i].device, dev) &&
		    !strcmp(in->subjects[i].port, port))
			return &in->subjects[i];
	return NULL;
}

static size_t n_firing(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	size_t n = 0;
	for (size_t i = 0; i < s.n_active; i++)
		if (s.active[i].state == RULES_FIRING)
			n++;
	rules_snapshot_free(&s);
	return n;
}

static uint64_t total_fired(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	uint64_t n = 0;
	for (int k = 0; k < RULES_KINDS; k++)
		n += s.fired_total[k];
	rules_snapshot_free(&s);
	return n;
}

/*
 * The chain used by the pause tests: hostA -- leaf0 -- spine0 -- leaf1
 * -- hostB, every device also carrying traffic counters.
 */
static void chain(void)
{
	link2("hostA", "mlx5_0", "leaf0", "Ethernet0");
	link2("leaf0", "Ethernet32", "spine0", "Ethernet1");
	link2("spine0", "Ethernet2", "leaf1", "Ethernet32");
	link2("leaf1", "Ethernet0", "hostB", "mlx5_0");
	const char *ports[][2] = {
		{ "hostA", "mlx5_0" },	   { "leaf0", "Ethernet0" },
		{ "leaf0", "Ethernet32" }, { "spine0", "Ethernet1" },
		{ "spine0", "Ethernet2" }, { "leaf1", "Ethernet32" },
		{ "leaf1", "Ethernet0" },  { "hostB", "mlx5_0" },
	};
	for (size_t i = 0; i < 8; i++) {
		set(ports[i][0], ports[i][1], FM_C_PFC_TX_PAUSE, 3, 0);
		set(ports[i][0], ports[i][1], FM_C_PFC_RX_PAUSE, 3, 0);
		set(ports[i][0], ports[i][1], FM_C_LINK_SPEED, 0, 5e10);
		set(ports[i][0], ports[i][1], FM_C_BYTES_TX, 0, 1e9);
	}
}

/* x pauses its peer y at ratio (both ends report it). */
static void pause_link(const char *xd, const char *xp, const char *yd,
		       const char *yp, double ratio)
{
	set(xd, xp, FM_C_PFC_TX_PAUSE, 3, ratio);
	set(yd, yp, FM_C_PFC_RX_PAUSE, 3, ratio);
}

static void storm_chain(double r1, double r2, double r3, double r4)
{
	pause_link("hostA", "mlx5_0", "leaf0", "Ethernet0", r1);
	pause_link("leaf0", "Ethernet32", "spine0", "Ethernet1", r2);
	pause_link("spine0", "Ethernet2", "leaf1", "Ethernet32", r3);
	pause_link("leaf1", "Ethernet0", "hostB", "mlx5_0", r4);
}

START_TEST(test_storm_origin_three_hops_upstream)
{
	chain();
	steps(2);
	storm_chain(1.0, 0.8, 0.6, 0.5);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert_msg(find(&s, RULES_PFC_STORM, "hostA", "mlx5_0", true, &in),
		      "no storm at hostA");
	ck_assert_int_eq(in->priority, 3);
	/* The tree, root to leaves, with hop depths. */
	const struct rules_subject *v;
	ck_assert_ptr_nonnull(v = subject(in, "leaf0", "Ethernet0"));
	ck_assert_int_eq(v->role, RULES_ROLE_VICTIM);
	ck_assert_uint_eq(v->depth, 1);
	ck_assert_ptr_nonnull(v = subject(in, "leaf0", "Ethernet32"));
	ck_assert_int_eq(v->role, RULES_ROLE_SPREADER);
	ck_assert_ptr_nonnull(v = subject(in, "spine0", "Ethernet1"));
	ck_assert_uint_eq(v->depth, 2);
	ck_assert_ptr_nonnull(v = subject(in, "leaf1", "Ethernet32"));
	ck_assert_uint_eq(v->depth, 3);
	ck_assert_ptr_nonnull(v = subject(in, "hostB", "mlx5_0"));
	ck_assert_uint_eq(v->depth, 4);
	ck_assert_int_eq(v->role, RULES_ROLE_VICTIM);
	/* Parents walk back to the origin. */
	int hops = 0;
	for (int k = (int)(v - in->subjects); k > 0; k = in->subjects[k].parent)
		hops++;
	ck_assert_int_ge(hops, 4);
	/* The storm is one incident, not also spreading. */
	ck_assert(!find(&s, RULES_CONGESTION_SPREADING, "hostA", "mlx5_0",
			false, NULL));
	ck_assert_uint_eq(n_firing(), 1);
	rules_snapshot_free(&s);
}
END_TEST

/* leaf1 and hostB deliver half a second before hostA, leaf0 and spine0.
 * When hostA's storm reaches leaf1, leaf1's newer window shows spine0
 * pausing it while spine0's own data (paused by leaf0) is still the
 * older, quiet window: spine0 looks like a root until its data arrives.
 * It must not be named; hostA must. */
START_TEST(test_storm_origin_with_skewed_arrivals)
{
	static const char *const early[] = { "leaf1", "hostB", NULL };
	static const char *const late[] = { "hostA", "leaf0", "spine0", NULL };
	chain();
	for (int i = 0; i < 3; i++) {
		step_only(early, SEC / 2);
		step_only(late, SEC / 2);
	}
	ck_assert_uint_eq(n_firing(), 0);
	storm_chain(1.0, 1.0, 1.0, 1.0);
	step_only(early, SEC / 2);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_msg(
	    !find(&s, RULES_PFC_STORM, "spine0", "Ethernet2", false, NULL),
	    "spine0 named on a neighbour's newer window");
	rules_snapshot_free(&s);
	for (int i = 0; i < 2; i++) {
		step_only(late, SEC / 2);
		step_only(early, SEC / 2);
	}
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "hostA", "mlx5_0", true, NULL));
	ck_assert(
	    !find(&s, RULES_PFC_STORM, "spine0", "Ethernet2", false, NULL));
	rules_snapshot_free(&s);
	ck_assert_uint_eq(total_fired(), 1);
}
END_TEST

/* host1's NIC is read half a second after its switch delivers (the NIC
 * collector's own phase). When the NIC storms, the switch's sample
 * shows it (leaf0 receives pause all the time and pauses the NIC not
 * at all): the storm fires on that sample, without waiting for the
 * NIC's own read. */
START_TEST(test_nic_storm_does_not_wait_for_the_nic_read)
{
	static const char *const sw[] = { "leaf0", NULL };
	static const char *const nic[] = { "host1", NULL };
	link2("leaf0", "Ethernet4", "host1", "mlx5_0");
	set("leaf0", "Ethernet4", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf0", "Ethernet4", FM_C_PFC_TX_PAUSE, 3, 0);
	set("host1", "mlx5_0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("host1", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
	for (int i = 0; i < 3; i++) {
		step_only(sw, SEC / 2);
		step_only(nic, SEC / 2);
	}
	ck_assert_uint_eq(n_firing(), 0);
	pause_link("host1", "mlx5_0", "leaf0", "Ethernet4", 1.0);
	step_only(sw, SEC / 2);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_msg(find(&s, RULES_PFC_STORM, "host1", "mlx5_0", true, NULL),
		      "the storm waited for the NIC's read");
	rules_snapshot_free(&s);
	step_only(nic, SEC / 2);
	step_only(sw, SEC / 2);
	ck_assert_uint_eq(total_fired(), 1);
}
END_TEST

/* hostA's storm, held up the chain, ends: hostA stops pausing leaf0
 * and leaf0 stops pausing spine0 in the same window. leaf0's ports come
 * as separate notifications, and its uplink's is late: for a tick its
 * port to hostA is new (not paused any more) while its uplink is still
 * the old window (pausing spine0 all the time). spine0's newer data
 * (not paused) does not outweigh that, so leaf0 is not named a storm's
 * origin on it; its uplink's new window shows it was not one. */
START_TEST(test_stale_pausing_port_is_waited_for)
{
	static const char *const early[] = { "hostA",  "leaf0:Ethernet0",
					     "spine0", "leaf1",
					     "hostB",  NULL };
	static const char *const late[] = { "leaf0:Ethernet32", NULL };
	chain();
	steps(2);
	storm_chain(1.0, 1.0, 0, 0);
	steps(2);
	ck_assert(n_firing() == 1);
	storm_chain(0, 0, 0, 0);
	step_only(early, SEC / 2);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_msg(
	    !find(&s, RULES_PFC_STORM, "leaf0", "Ethernet32", false, NULL),
	    "leaf0 named on its uplink's older window");
	rules_snapshot_free(&s);
	step_only(late, SEC / 2);
	steps(2);
	ck_assert_uint_eq(total_fired(), 1);
}
END_TEST

/* The NIC sends nothing (not monitored): the switch's own rx pause is
 * enough to name the NIC at the other end of the link. */
START_TEST(test_storm_origin_unmonitored_nic)
{
	link2("leaf0", "Ethernet0", "gpu9", "mlx5_1");
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf0", "Ethernet0", FM_C_PFC_TX_PAUSE, 3, 0);
	steps(2);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0.995);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "gpu9", "mlx5_1", true, &in));
	ck_assert(has_subject(in, "leaf0", "Ethernet0", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

/* Frame counters only: 100G holds a priority paused at 2,980 XOFF/s. */
START_TEST(test_storm_from_frames_at_link_speed)
{
	link2("leaf0", "Ethernet4", "host1", "mlx5_0");
	set("leaf0", "Ethernet4", FM_C_PFC_RX_FRAMES, 3, 0);
	set("leaf0", "Ethernet4", FM_C_LINK_SPEED, 0, 100e9 / 8);
	steps(2);
	set("leaf0", "Ethernet4", FM_C_PFC_RX_FRAMES, 3, 1500);
	step();
	ck_assert_uint_eq(n_firing(), 0); /* half the refresh rate */
	set("leaf0", "Ethernet4", FM_C_PFC_RX_FRAMES, 3, 3000);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, true, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "host1", "mlx5_0", true, NULL));
	/* The derived ratio the engine used is published. */
	bool seen = false;
	for (size_t i = 0; i < s.n_ratios; i++)
		if (!strcmp(s.ratios[i].device, "leaf0") &&
		    !strcmp(s.ratios[i].port, "Ethernet4")) {
			ck_assert_float_eq_tol(s.ratios[i].pause_rx, 1, 1e-6);
			seen = true;
		}
	ck_assert(seen);
	rules_snapshot_free(&s);
}
END_TEST

/* XOFF frames/s that hold a priority paused at 100G (domain.md 4.1). */
#define REFRESH_100G (100e9 / (512.0 * 65535.0))

/*
 * A storm that began 0.4 s before a sample: the window is only 40 %
 * paused, but the frames are those of one pause still on at the sample
 * (no XON: F = R T), so it fires on that first sample.
 */
static void tail_link(double ratio, double extra_frames)
{
	set("leaf0", "Ethernet4", FM_C_PFC_RX_PAUSE, 3, ratio);
	set("leaf0", "Ethernet4", FM_C_PFC_RX_FRAMES, 3,
	    ratio * REFRESH_100G + extra_frames);
}

/* host1's NIC (its counters say so) on leaf0, at 100G. */
static void tail_nic(void)
{
	link2("leaf0", "Ethernet4", "host1", "mlx5_0");
	set("leaf0", "Ethernet4", FM_C_LINK_SPEED, 0, 100e9 / 8);
	set("host1", "mlx5_0", FM_C_CNP_SENT, 0, 0);
}

START_TEST(test_storm_fires_on_its_onset_sample)
{
	tail_nic();
	tail_link(0, 0);
	steps(2);
	tail_link(0.4, 0);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "host1", "mlx5_0", true, &in));
	bool seen = false;
	for (size_t i = 0; i < in->n_evidence; i++)
		if (!strcmp(in->evidence[i].name, "paused_for_seconds")) {
			ck_assert_double_ge(in->evidence[i].value, 0.4 - 1e-3);
			seen = true;
		}
	ck_assert(seen);
	rules_snapshot_free(&s);
}
END_TEST

/* Shorter than storm_for (200 ms): not yet; the next, full window is. */
START_TEST(test_storm_tail_shorter_than_storm_for_waits)
{
	tail_nic();
	tail_link(0, 0);
	steps(2);
	tail_link(0.15, 0);
	set("leaf0", "Ethernet4", FM_C_PFC_RX_PAUSE, 3, 0.15);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	tail_link(1, 0);
	step();
	ck_assert_uint_eq(n_firing(), 1);
}
END_TEST

/*
 * Bursts that pause 40 % of every window in many short pauses: each
 * pause that ends sends an XON, so the frames are far above R T. Not a
 * storm, however long it goes on; nor is a window whose frames are far
 * below R T (a link slower than its speed says).
 */
START_TEST(test_pause_bursts_are_not_a_storm)
{
	tail_nic();
	tail_link(0, 0);
	steps(2);
	for (int i = 0; i < 6; i++) {
		tail_link(0.4, 300);
		step();
		ck_assert_uint_eq(n_firing(), 0);
		tail_link(0, 0);
		step();
	}
	for (int i = 0; i < 6; i++) {
		tail_link(0.4, i % 2 ? 2 : 40);
		step();
	}
	tail_link(0.4, -0.6 * REFRESH_100G * 0.4);
	steps(3);
	ck_assert_uint_eq(total_fired(), 0);
}
END_TEST

/* The ring of test_deadlock_cycle, locked 0.6 s before a sample: each
 * member still sent for the first 0.4 s, but its pause since is one
 * pause still on (F = R T). With deadlock_for 500 ms it fires on that
 * sample; with many XONs (a cycle that still moves) it does not. */
static void ring3_tail(double ratio, double extra_frames)
{
	const char *d[3] = { "s0", "s1", "s2" };
	for (int i = 0; i < 3; i++) {
		set(d[i], "e1", FM_C_LINK_SPEED, 0, 100e9 / 8);
		set(d[i], "e1", FM_C_PFC_RX_PAUSE, 3, ratio);
		set(d[i], "e1", FM_C_PFC_RX_FRAMES, 3,
		    ratio * REFRESH_100G + extra_frames);
		set(d[i], "e0", FM_C_PFC_TX_PAUSE, 3, ratio);
		set(d[i], "e1", FM_C_QUEUE_TX_PACKETS, 3, 1e6);
	}
}

START_TEST(test_deadlock_fires_on_its_onset_sample)
{
	fab_teardown();
	fab_up("rules:\n  deadlock_for: 500ms\n");
	link2("s0", "e1", "s1", "e0");
	link2("s1", "e1", "s2", "e0");
	link2("s2", "e1", "s0", "e0");
	ring3_tail(0, 0);
	steps(2);
	ring3_tail(0.6, 300);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	ring3_tail(0, 0);
	steps(2);
	ring3_tail(0.6, 0);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_DEADLOCK, "s0", "e1", true, NULL));
	ck_assert_uint_eq(n_firing(), 1);
	rules_snapshot_free(&s);
}
END_TEST

static bool drop_firing_at_gpu9(void)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	bool f = find(&s, RULES_LOSSLESS_DROP, "gpu9", "mlx5_1", true, NULL);
	rules_snapshot_free(&s);
	return f;
}

/* A target removed by a reload (its series withdrawn, as fabmond does)
 * leaves the engine's view, and its firing incident resolves instead of
 * being held as if it had only gone silent. */
START_TEST(test_removed_target_leaves_the_view)
{
	link2("leaf0", "Ethernet0", "gpu9", "mlx5_1");
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf5", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("gpu9", "mlx5_1", FM_C_NIC_OUT_OF_BUFFER, 0, 0);
	steps(2);
	set("gpu9", "mlx5_1", FM_C_NIC_OUT_OF_BUFFER, 0, 500);
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_LOSSLESS_DROP, "gpu9", "mlx5_1", true, NULL));
	size_t before = s.ports;
	rules_snapshot_free(&s);
	ck_assert_uint_eq(before, 3);

	/* Silence alone holds the incident (and is target_silent). */
	stop_device("gpu9");
	steps(12);
	ck_assert(drop_firing_at_gpu9());
	/* Removed: leaf5 goes with its series; gpu9 has gone from the
	 * store but is still cabled (the link table lists it) until the
	 * link goes too. */
	stop_device("leaf5");
	ck_assert_uint_eq(
	    store_withdraw_owner(F.st, store_intern(F.st, "gpu9")), 1);
	ck_assert_uint_eq(
	    store_withdraw_owner(F.st, store_intern(F.st, "leaf5")), 1);
	step();
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.ports, 2);
	rules_snapshot_free(&s);
	steps(12);
	ck_assert(drop_firing_at_gpu9()); /* cabled: held */
	links_forget_lldp(F.l, "leaf0", "Ethernet0");
	steps(12);
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_active, 0);
	ck_assert_uint_ge(s.n_recent, 1);
	ck_assert_str_eq(s.recent[0].subjects[0].device, "gpu9");
	ck_assert_uint_eq(s.ports, 1);
	rules_snapshot_free(&s);
}
END_TEST

/* A series created after a withdrawal takes the freed store slot: the
 * engine reads it as the new series (its device and counter), not as
 * the one withdrawn that the slot held before. */
START_TEST(test_reused_slot_reads_as_its_new_series)
{
	set("gpu9", "mlx5_1", FM_C_NIC_OUT_OF_BUFFER, 0, 0);
	set("gpu9", "mlx5_1", FM_C_PFC_RX_PAUSE, 3, 0);
	steps(3);
	stop_device("gpu9");
	ck_assert_uint_eq(
	    store_withdraw_owner(F.st, store_intern(F.st, "gpu9")), 2);
	/* Same kinds of series on another NIC, one of them dropping. */
	set("gpu7", "mlx5_0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("gpu7", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0, 0);
	steps(2);
	set("gpu7", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0, 500);
	steps(3);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_LOSSLESS_DROP, "gpu7", "mlx5_0", true, NULL));
	ck_assert(!find(&s, RULES_LOSSLESS_DROP, "gpu9", "mlx5_1", true, NULL));
	ck_assert_uint_eq(s.n_active, 1);
	rules_snapshot_free(&s);
}
END_TEST

/* The chain, quiet for two samples; then leaf0's egress to hostA is
 * congested (not paused): leaf0 pauses the spine, which pauses leaf1,
 * which pauses hostB (set, not yet sampled). */
static void spreading_tree(void)
{
	chain();
	set("leaf0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 4e6);
	set("leaf0", "Ethernet32", FM_C_QUEUE_OCCUPANCY, 3, 0);
	steps(2);
	pause_link("leaf0", "Ethernet32", "spine0", "Ethernet1", 0.5);
	pause_link("spine0", "Ethernet2", "leaf1", "Ethernet32", 0.4);
	pause_link("leaf1", "Ethernet0", "hostB", "mlx5_0", 0.3);
}

START_TEST(test_spreading_tree_from_congested_egress)
{
	spreading_tree();
	step();
	/* Spreading must last two samples (a one-sample burst is not). */
	ck_assert_uint_eq(n_firing(), 0);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_CONGESTION_SPREADING, "leaf0", "Ethernet0",
		       true, &in));
	ck_assert(has_subject(in, "leaf0", "Ethernet32", RULES_ROLE_SPREADER));
	ck_assert(has_subject(in, "hostB", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(
	    !find(&s, RULES_PFC_STORM, "leaf0", "Ethernet0", false, NULL));
	rules_snapshot_free(&s);
	/* One hop is not spreading. */
	pause_link("spine0", "Ethernet2", "leaf1", "Ethernet32", 0);
	pause_link("leaf1", "Ethernet0", "hostB", "mlx5_0", 0);
	steps(6);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

/* The spreading tree, shown by one sample only: then no device delivers by the
 * next tick (the collector is late), so the engine still reads that one window.
 * It is one window, not two: spreading_for (2 s) must not be met by
 * the tick's clock. The next sample shows no pause. */
START_TEST(test_late_sample_is_not_counted_twice)
{
	static const char *const none[] = { NULL };
	spreading_tree();
	step();
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_CONGESTION_SPREADING, "leaf0", "Ethernet0",
		       false, NULL));
	rules_snapshot_free(&s);
	/* A tick a second later with nothing new, and one more. */
	step_only(none, SEC);
	ck_assert_uint_eq(n_firing(), 0);
	step_only(none, SEC / 4);
	ck_assert_uint_eq(n_firing(), 0);
	/* Only the root's next sample is late: the others' show the
	 * spine and leaf1 no longer pausing. */
	static const char *const others[] = { "spine0", "leaf1", "hostA",
					      "hostB", NULL };
	pause_link("spine0", "Ethernet2", "leaf1", "Ethernet32", 0);
	pause_link("leaf1", "Ethernet0", "hostB", "mlx5_0", 0);
	step_only(others, SEC / 2);
	ck_assert_uint_eq(n_firing(), 0);
	pause_link("leaf0", "Ethernet32", "spine0", "Ethernet1", 0);
	steps(3);
	ck_assert_uint_eq(total_fired(), 0);
}
END_TEST

/* The same tree held for two samples fires on the second, though that
 * one arrives early (0.85 s after the first) or late (1.2 s). */
START_TEST(test_spreading_fires_on_two_jittered_samples)
{
	static const int64_t gap[] = { SEC * 85 / 100, SEC * 12 / 10 };
	for (int k = 0; k < 2; k++) {
		if (k) {
			fab_teardown();
			fab_setup();
		}
		spreading_tree();
		step();
		ck_assert_uint_eq(n_firing(), 0);
		step_only(NULL, gap[k]);
		struct rules_snapshot s;
		rules_snapshot(F.r, false, &s);
		ck_assert_msg(find(&s, RULES_CONGESTION_SPREADING, "leaf0",
				   "Ethernet0", true, NULL),
			      "not firing after a gap of %lld ms",
			      (long long)(gap[k] / 1000000));
		rules_snapshot_free(&s);
	}
}
END_TEST

static void ring3(bool progress)
{
	link2("s0", "e1", "s1", "e0");
	link2("s1", "e1", "s2", "e0");
	link2("s2", "e1", "s0", "e0");
	/* si:e1 is held paused by s(i+1), which pauses through e0. */
	const char *d[3] = { "s0", "s1", "s2" };
	for (int i = 0; i < 3; i++) {
		set(d[i], "e1", FM_C_PFC_RX_PAUSE, 3, 1.0);
		set(d[i], "e0", FM_C_PFC_TX_PAUSE, 3, 1.0);
		set(d[i], "e1", FM_C_QUEUE_TX_PACKETS, 3, progress ? 1e6 : 0);
	}
}

START_TEST(test_deadlock_cycle)
{
	ring3(false);
	link2("s0", "e5", "h0", "mlx5_0");
	steps(3);
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_DEADLOCK, "s0", "e1", true, &in));
	ck_assert_uint_eq(in->n_subjects, 3);
	ck_assert(has_subject(in, "s1", "e1", RULES_ROLE_MEMBER));
	ck_assert(has_subject(in, "s2", "e1", RULES_ROLE_MEMBER));
	/* A cycle has no root: no storm, no spreading. */
	ck_assert_uint_eq(n_firing(), 1);
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_cycle_with_progress_is_not_deadlock)
{
	ring3(true);
	steps(4);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

/* A busy healthy fabric: high load, light pauses, ECN and CNPs at a
 * trickle. Nothing fires in a minute. */
START_TEST(test_healthy_high_load)
{
	chain();
	storm_chain(0.02, 0.01, 0.01, 0.005);
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, 50);
	set("leaf0", "Ethernet0", FM_C_BYTES_TX, 0, 4.5e10);
	set("hostA", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 50);
	set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 50);
	set("hostB", "mlx5_0", FM_C_CNP_HANDLED, 0, 50);
	set("hostA", "mlx5_0", FM_C_RDMA_ACK_TIMEOUTS, 0, 0);
	set("leaf0", "Ethernet0", FM_C_QUEUE_DROPS, 3, 0);
	set("leaf0", "Ethernet0", FM_C_LINK_UP, 0, 1);
	set("leaf0", "Ethernet0", FM_C_LINK_DOWN_EVENTS, 0, 0);
	for (int i = 0; i < 60; i++) {
		step();
		ck_assert_uint_eq(n_firing(), 0);
	}
	ck_assert_uint_eq(total_fired(), 0);
}
END_TEST

/* Bursts: a pause, a CE/CNP spike, each for one sample. */
START_TEST(test_benign_bursts)
{
	chain();
	steps(2);
	for (int i = 0; i < 5; i++) {
		storm_chain(0.6, 0.3, 0, 0);
		set("hostA", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 1e5);
		set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 1e4);
		set("hostB", "mlx5_0", FM_C_CNP_HANDLED, 0, 1e4);
		step();
		storm_chain(0, 0, 0, 0);
		set("hostA", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 0);
		set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 0);
		set("hostB", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
		steps(4);
	}
	ck_assert_uint_eq(total_fired(), 0);
}
END_TEST

/* A firing storm survives a one-sample link flap on its victim link and
 * a reboot of a switch in its tree: same incident, fired once. */
START_TEST(test_hysteresis_flap_and_reboot)
{
	chain();
	steps(2);
	storm_chain(1.0, 0.8, 0.6, 0.5);
	steps(3);
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "hostA", "mlx5_0", true, &in));
	uint64_t id = in->id;
	rules_snapshot_free(&s);

	/* The link drops for a sample: no pause seen on it. */
	storm_chain(0, 0, 0, 0);
	step();
	storm_chain(1.0, 0.8, 0.6, 0.5);
	steps(2);
	/* leaf0 reboots: its counters restart (no rate for a sample). */
	reboot("leaf0");
	step();
	/* hostA's counters are reset by its driver too. */
	reboot("hostA");
	steps(3);
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "hostA", "mlx5_0", true, &in));
	ck_assert_uint_eq(in->id, id);
	ck_assert_uint_eq(s.fired_total[RULES_PFC_STORM], 1);
	ck_assert_uint_eq(s.n_recent, 0);
	rules_snapshot_free(&s);

	/* The storm ends: resolved after the clear time (5 s), not before. */
	storm_chain(0, 0, 0, 0);
	steps(4);
	ck_assert_uint_eq(n_firing(), 1);
	steps(2);
	ck_assert_uint_eq(n_firing(), 0);
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_recent, 1);
	ck_assert_uint_eq(s.recent[0].id, id);
	ck_assert_int_eq(s.recent[0].state, RULES_RESOLVED);
	ck_assert_int_gt(s.recent[0].resolved_ns, s.recent[0].fired_ns);
	rules_snapshot_free(&s);
}
END_TEST

/* A reboot alone raises nothing: the counter restart is no spike. */
START_TEST(test_reboot_no_false_incident)
{
	chain();
	storm_chain(0.01, 0, 0, 0);
	set("leaf0", "Ethernet0", FM_C_QUEUE_DROPS, 3, 0);
	set("leaf0", "Ethernet0", FM_C_PG_DROPS, 3, 0);
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, 10);
	for (size_t i = 0; i < F.n; i++)
		F.s[i].raw = 1e12; /* a long uptime */
	steps(3);
	reboot("leaf0");
	steps(5);
	ck_assert_uint_eq(total_fired(), 0);
}
END_TEST

START_TEST(test_lossless_drop_switch_and_nic)
{
	link2("leaf0", "Ethernet8", "host1", "mlx5_0");
	link2("leaf0", "Ethernet0", "host0", "mlx5_0");
	set("leaf0", "Ethernet8", FM_C_PG_DROPS, 3, 0);
	set("leaf0", "Ethernet8", FM_C_PG_DROPS, 1, 0);
	set("host0", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0, 0);
	set("host0", "mlx5_0", FM_C_CNP_SENT, 0, 0);
	set("host0", "mlx5_0", FM_C_RDMA_ACK_TIMEOUTS, 0, 0);
	steps(2);
	/* Drops on a lossy priority are not this rule's business. */
	set("leaf0", "Ethernet8", FM_C_PG_DROPS, 1, 500);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	set("leaf0", "Ethernet8", FM_C_PG_DROPS, 3, 20);
	set("host0", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0, 7);
	set("host0", "mlx5_0", FM_C_RDMA_ACK_TIMEOUTS, 0, 3);
	steps(2); /* a switch's drops wait a sample (a NIC's do not) */
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_LOSSLESS_DROP, "leaf0", "", true, &in));
	ck_assert_int_eq(in->priority, 3);
	ck_assert(has_subject(in, "host1", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(find(&s, RULES_LOSSLESS_DROP, "host0", "mlx5_0", true, &in));
	bool retries = false;
	for (size_t i = 0; i < in->n_evidence; i++)
		if (!strcmp(in->evidence[i].name, "transport_retries_per_s"))
			retries = in->evidence[i].value == 3;
	ck_assert(retries);
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_pause_on_lossy_priority)
{
	link2("leaf0", "Ethernet8", "host1", "mlx5_0");
	set("leaf0", "Ethernet8", FM_C_PFC_RX_FRAMES, 1, 0);
	set("leaf0", "Ethernet8", FM_C_PFC_RX_FRAMES, 3, 0);
	steps(2);
	/* Pauses on the lossless priority are fine here. */
	set("leaf0", "Ethernet8", FM_C_PFC_RX_FRAMES, 3, 100);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	set("leaf0", "Ethernet8", FM_C_PFC_RX_FRAMES, 1, 100);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PAUSE_ON_LOSSY, "host1", "mlx5_0", true, &in));
	ck_assert_int_eq(in->priority, 1);
	ck_assert(has_subject(in, "leaf0", "Ethernet8", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

static void two_senders_into_leaf0(bool marks)
{
	link2("leaf0", "Ethernet0", "host0", "mlx5_0");
	link2("leaf0", "Ethernet8", "host1", "mlx5_0");
	link2("leaf0", "Ethernet16", "host2", "mlx5_0");
	set("leaf0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 3e6);
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, marks ? 1e5 : 0);
	set("leaf0", "Ethernet8", FM_C_ECN_MARKED, 3, 0);
	set("leaf0", "Ethernet8", FM_C_QUEUE_OCCUPANCY, 3, 0);
	pause_link("leaf0", "Ethernet8", "host1", "mlx5_0", 0.5);
	pause_link("leaf0", "Ethernet16", "host2", "mlx5_0", 0.5);
}

START_TEST(test_ecn_after_pfc)
{
	two_senders_into_leaf0(false);
	step();
	ck_assert_uint_eq(n_firing(), 0); /* first sample: no rates */
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(
	    find(&s, RULES_ECN_AFTER_PFC, "leaf0", "Ethernet0", true, &in));
	ck_assert(has_subject(in, "host1", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(has_subject(in, "host2", "mlx5_0", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

/*
 * leaf0 (not paused, not marking) pauses its senders and spine0, which
 * relays the pause to leaf1 without marking either: one ecn_after_pfc,
 * at leaf0. spine0 paused at 0.075 and pausing at 0.094 (frames that
 * count a partial pause's XONs overstate) relays; paused at 0.01 while
 * pausing as much, the pause is its own.
 */
static void relay_through_spine0(double paused)
{
	two_senders_into_leaf0(false);
	link2("leaf0", "Ethernet32", "spine0", "Ethernet0");
	link2("spine0", "Ethernet8", "leaf1", "Ethernet32");
	set("leaf0", "Ethernet32", FM_C_ECN_MARKED, 3, 0);
	pause_link("leaf0", "Ethernet32", "spine0", "Ethernet0", paused);
	set("spine0", "Ethernet0", FM_C_ECN_MARKED, 3, 0);
	set("spine0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 1e6);
	set("spine0", "Ethernet8", FM_C_ECN_MARKED, 3, 0);
	pause_link("spine0", "Ethernet8", "leaf1", "Ethernet32", 0.094);
	steps(2);
}

START_TEST(test_ecn_after_pfc_not_at_a_relay)
{
	relay_through_spine0(0.075);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(
	    find(&s, RULES_ECN_AFTER_PFC, "leaf0", "Ethernet0", true, NULL));
	ck_assert(
	    !find(&s, RULES_ECN_AFTER_PFC, "spine0", "Ethernet0", false, NULL));
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_ecn_after_pfc_at_a_lightly_paused_switch)
{
	relay_through_spine0(0.01);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(
	    find(&s, RULES_ECN_AFTER_PFC, "spine0", "Ethernet0", true, NULL));
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_ecn_before_pfc_is_fine)
{
	two_senders_into_leaf0(true);
	steps(5);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

START_TEST(test_ecn_without_cnp)
{
	two_senders_into_leaf0(true);
	set("host0", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 1e5);
	set("host0", "mlx5_0", FM_C_CNP_SENT, 0, 0);
	set("host3", "mlx5_0", FM_C_CNP_IGNORED, 0, 0);
	steps(3);
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(
	    find(&s, RULES_ECN_WITHOUT_CNP, "host0", "mlx5_0", true, &in));
	ck_assert(has_subject(in, "host1", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(has_subject(in, "host2", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(
	    !find(&s, RULES_ECN_WITHOUT_CNP, "host3", "mlx5_0", false, NULL));
	rules_snapshot_free(&s);
	/* A reaction point that ignores CNPs. */
	set("host3", "mlx5_0", FM_C_CNP_IGNORED, 0, 40);
	steps(2);
	rules_snapshot(F.r, false, &s);
	ck_assert(
	    find(&s, RULES_ECN_WITHOUT_CNP, "host3", "mlx5_0", true, NULL));
	rules_snapshot_free(&s);
}
END_TEST

static void incast(unsigned senders)
{
	link2("leaf0", "Ethernet0", "r0", "mlx5_0");
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, 1e5);
	set("r0", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 1e5);
	set("r0", "mlx5_0", FM_C_CNP_SENT, 0, 5e3);
	for (unsigned i = 0; i < senders; i++) {
		char d[16];
		snprintf(d, sizeof d, "s%u", i);
		set(d, "mlx5_0", FM_C_CNP_HANDLED, 0, 1e3);
	}
	set("idle", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
}

START_TEST(test_incast_receiver_and_senders)
{
	incast(4);
	steps(2); /* no rates yet, then one sample (incast_for 1 s) */
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_INCAST, "r0", "mlx5_0", true, &in));
	ck_assert_int_eq(in->priority, 3);
	ck_assert_uint_eq(in->n_subjects, 5);
	ck_assert(has_subject(in, "s3", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(!has_subject(in, "idle", "mlx5_0", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_incast_needs_k_senders)
{
	incast(1); /* default k is 2 */
	steps(4);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

/* Two senders at one receiver are an incast (a parameter server's
 * step): with the defaults (k = 2, incast_for 1 s) it fires on the
 * first sample that shows it. */
START_TEST(test_incast_two_senders_fire_on_one_sample)
{
	incast(2);
	step(); /* first sample: no rates */
	ck_assert_uint_eq(n_firing(), 0);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_INCAST, "r0", "mlx5_0", true, &in));
	ck_assert(has_subject(in, "s0", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(has_subject(in, "s1", "mlx5_0", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

/* An operator who wants only sustained incasts raises incast_for: at
 * 3 s, steps as long as one sample (or straddling two) never fire; the
 * same two senders held for three samples do. */
START_TEST(test_incast_for_configurable)
{
	fab_teardown();
	fab_up("rules:\n  incast_for: 3s\n");
	incast(2);
	step(); /* first sample: no rates */
	for (int burst = 0; burst < 6; burst++) {
		/* Alternately one sample long and straddling two. */
		for (int k = 0; k < 1 + burst % 2; k++) {
			set("r0", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 1e5);
			set("r0", "mlx5_0", FM_C_CNP_SENT, 0, 5e3);
			set("s0", "mlx5_0", FM_C_CNP_HANDLED, 0, 1e3);
			set("s1", "mlx5_0", FM_C_CNP_HANDLED, 0, 1e3);
			step();
			ck_assert_uint_eq(n_firing(), 0);
		}
		set("r0", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, 0);
		set("r0", "mlx5_0", FM_C_CNP_SENT, 0, 0);
		set("s0", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
		set("s1", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
		step();
		ck_assert_uint_eq(n_firing(), 0);
	}
	incast(2);
	steps(2);
	ck_assert_uint_eq(n_firing(), 0);
	step();
	ck_assert_uint_eq(n_firing(), 1);
}
END_TEST

START_TEST(test_incast_k_configurable)
{
	fab_teardown();
	fab_up("rules:\n  incast_senders: 3\n");
	incast(2);
	steps(4);
	ck_assert_uint_eq(n_firing(), 0);
	incast(3); /* s2's first sample gives no rate yet */
	steps(4);
	ck_assert_uint_eq(n_firing(), 1);
}
END_TEST

START_TEST(test_link_flap)
{
	link2("leaf0", "Ethernet32", "spine0", "Ethernet1/1");
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0);
	set("leaf0", "Ethernet32", FM_C_LINK_UP, 0, 1);
	steps(2);
	/* One down event is a link going down, not flapping. */
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 1);
	set("leaf0", "Ethernet32", FM_C_LINK_UP, 0, 0);
	step();
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0);
	set("leaf0", "Ethernet32", FM_C_LINK_UP, 0, 1);
	steps(2);
	ck_assert_uint_eq(n_firing(), 0);
	set("leaf0", "Ethernet32", FM_C_LINK_UP, 0, 0);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_LINK_FLAP, "leaf0", "Ethernet32", true, &in));
	ck_assert(has_subject(in, "spine0", "Ethernet1/1", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
	/* Quiet for the window (10 s) and the clear time (5 s). */
	set("leaf0", "Ethernet32", FM_C_LINK_UP, 0, 1);
	steps(16);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

START_TEST(test_target_silent)
{
	set("leaf2", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf2", "Ethernet0", FM_C_LINK_UP, 0, 1);
	set("leaf3", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	steps(3);
	stop_device("leaf2");
	steps(3);
	ck_assert_uint_eq(n_firing(), 0); /* not stale yet */
	steps(3);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_TARGET_SILENT, "leaf2", "", true, NULL));
	ck_assert_uint_eq(s.n_active, 1);
	rules_snapshot_free(&s);
	for (size_t i = 0; i < F.n; i++)
		F.s[i].stopped = false;
	steps(7);
	ck_assert_uint_eq(n_firing(), 0);
}
END_TEST

/* A series sampled every 10 s (SONiC's priority-group drops) stays
 * fresh for 50 s: it must not keep a target that stopped answering
 * from being silent once its 1 s series are stale. */
START_TEST(test_target_silent_with_a_slow_series)
{
	set("leaf2", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf3", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	struct store_key k = { .device = store_intern(F.st, "leaf2"),
			       .port = store_intern(F.st, "Ethernet0"),
			       .sub = 3,
			       .counter = (uint16_t)FM_C_PG_DROPS };
	struct store_series_spec spec = { .owner = k.device,
					  .scale = 1,
					  .interval_ms = 10000 };
	store_handle h = store_series(F.st, &k, &spec);
	ck_assert_uint_ne(h, 0);
	ck_assert_int_eq(store_update(F.st, h, 0, treal(NULL)), 0);
	steps(3);
	ck_assert_int_eq(store_update(F.st, h, 0, treal(NULL)), 0);
	stop_device("leaf2");
	steps(3);
	ck_assert_uint_eq(n_firing(), 0); /* not stale yet */
	steps(4);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_TARGET_SILENT, "leaf2", "", true, NULL));
	ck_assert_uint_eq(s.n_active, 1);
	rules_snapshot_free(&s);
}
END_TEST

/* The cycle formed after a link failed on one of its switches: that
 * link is the origin, every cycle port a member. */
START_TEST(test_deadlock_origin_is_the_failed_link)
{
	link2("s1", "e7", "x0", "e0");
	set("s1", "e7", FM_C_LINK_UP, 0, 1);
	steps(2);
	set("s1", "e7", FM_C_LINK_UP, 0, 0);
	step();
	ring3(false);
	steps(3);
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_DEADLOCK, "s1", "e7", true, &in));
	ck_assert(has_subject(in, "s0", "e1", RULES_ROLE_MEMBER));
	ck_assert(has_subject(in, "s1", "e1", RULES_ROLE_MEMBER));
	ck_assert(has_subject(in, "s2", "e1", RULES_ROLE_MEMBER));
	bool ev = false;
	for (size_t i = 0; i < in->n_evidence; i++)
		ev |= !strcmp(in->evidence[i].name, "link_down_seconds_ago") &&
		      in->evidence[i].value > 0 && in->evidence[i].value < 10;
	ck_assert(ev);
	rules_snapshot_free(&s);
}
END_TEST

/* Drops on the ports of a pause cycle are one incident for the cycle,
 * not one per switch. */
START_TEST(test_drops_on_a_cycle_are_one_incident)
{
	ring3(false);
	steps(3);
	set("s1", "e1", FM_C_QUEUE_DROPS, 3, 100);
	set("s2", "e1", FM_C_QUEUE_DROPS, 3, 100);
	steps(2); /* a new series has a rate from its second sample */
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_LOSSLESS_DROP, "s0", "e1", true, &in));
	ck_assert(has_subject(in, "s1", "e1", RULES_ROLE_VICTIM));
	ck_assert(has_subject(in, "s2", "e1", RULES_ROLE_VICTIM));
	ck_assert(!find(&s, RULES_LOSSLESS_DROP, "s1", "", false, NULL));
	ck_assert(!find(&s, RULES_LOSSLESS_DROP, "s2", "", false, NULL));
	rules_snapshot_free(&s);
}
END_TEST

/* CE and CNPs at a receiver whose last hop neither marks nor queues:
 * the marks came from a congested link upstream, not an incast. */
START_TEST(test_incast_needs_a_congested_last_hop)
{
	incast(4);
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, 0);
	set("leaf0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 0);
	steps(4);
	ck_assert_uint_eq(n_firing(), 0);
	set("leaf0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 1e6);
	steps(3);
	ck_assert_uint_eq(n_firing(), 1);
}
END_TEST

/* Senders held by pause (no marks on their path) count with those
 * handling CNPs. */
START_TEST(test_incast_counts_paused_senders)
{
	incast(1); /* with k = 2, the paused one makes the second */
	link2("leaf0", "Ethernet8", "p0", "mlx5_0");
	set("p0", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
	set("leaf0", "Ethernet8", FM_C_PFC_TX_PAUSE, 3, 0.5);
	steps(4);
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_INCAST, "r0", "mlx5_0", true, &in));
	ck_assert(has_subject(in, "p0", "mlx5_0", RULES_ROLE_VICTIM));
	ck_assert(has_subject(in, "s0", "mlx5_0", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

/* OpenConfig's carrier-transitions, stored at scale 0.5: a flap (down
 * and up) counts once. */
START_TEST(test_link_flap_in_halves)
{
	link2("leaf0", "Ethernet32", "spine0", "Ethernet1/1");
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0);
	F.s[F.n - 1].scale = 0.5;
	steps(2);
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0.5);
	steps(2); /* down, then up: one flap */
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	set("spine0", "Ethernet1/1", FM_C_LINK_DOWN_EVENTS, 0, 0.5);
	steps(2);
	ck_assert(n_firing() == 1);
}
END_TEST

/* With the thread running and an hourly tick, nothing is evaluated
 * until rules_kick() says samples arrived; then a tick follows. */
START_TEST(test_kick_ticks_on_arrival)
{
	fab_teardown();
	fab_up("rules:\n  tick: 1h\n"
	       "topology:\n"
	       "  rails:\n"
	       "    - {leaves: [leaf-a0]}\n"
	       "    - {leaves: [leaf-a1]}\n"
	       "  links:\n"
	       "    - [\"gpu02:mlx5_1\", \"leaf-a0:eth5\"]\n");
	ck_assert_int_eq(rules_start(F.r), 0);
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };
	nanosleep(&ms10, NULL);
	ck_assert_uint_eq(n_firing(), 0);
	rules_kick(F.r);
	rules_kick(F.r); /* coalesced */
	/* A bound on a hang, not a timing check. */
	for (int i = 0; i < 3000 && n_firing() == 0; i++)
		nanosleep(&ms10, NULL);
	ck_assert_uint_eq(n_firing(), 1);
	rules_stop(F.r);
}
END_TEST

START_TEST(test_rail_misalignment)
{
	fab_teardown();
	fab_up("topology:\n"
	       "  rails:\n"
	       "    - {leaves: [leaf-a0, leaf-b0]}\n"
	       "    - {leaves: [leaf-a1, leaf-b1]}\n"
	       "  links:\n"
	       "    - {a: \"gpu01:mlx5_0\", b: \"leaf-a0:Ethernet0\"}\n"
	       "    - {a: \"gpu01:mlx5_1\", b: \"leaf-a1:Ethernet0\"}\n"
	       "    - [\"gpu02:mlx5_0\", \"leaf-a0:Ethernet4\"]\n"
	       "    - [\"leaf-b0:eth5\", \"gpu02:mlx5_1\"]\n");
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_active, 1);
	ck_assert(
	    find(&s, RULES_RAIL_MISALIGNMENT, "gpu02", "mlx5_1", true, &in));
	ck_assert(has_subject(in, "leaf-b0", "eth5", RULES_ROLE_VICTIM));
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_pending_then_firing_and_recent_ring)
{
	fab_teardown();
	fab_up("rules:\n  storm_for: 3s\n  clear: 2s\n  keep_resolved: 2\n");
	const char *hosts[3] = { "h0", "h1", "h2" };
	for (int i = 0; i < 3; i++) {
		link2(hosts[i], "mlx5_0", "leaf0", hosts[i]);
		set(hosts[i], "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
	}
	steps(2);
	set("h0", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1);
	step();
	struct rules_snapshot s;
	const struct rules_incident *in;
	rules_snapshot(F.r, false, &s);
	ck_assert(find(&s, RULES_PFC_STORM, "h0", "mlx5_0", false, &in));
	ck_assert_int_eq(in->state, RULES_PENDING);
	rules_snapshot_free(&s);
	step();
	ck_assert_uint_eq(n_firing(), 0);
	step();
	ck_assert_uint_eq(n_firing(), 1);
	/* A pending incident that stops before its time is forgotten. */
	set("h1", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1);
	step();
	set("h1", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
	step();
	rules_snapshot(F.r, false, &s);
	ck_assert(!find(&s, RULES_PFC_STORM, "h1", "mlx5_0", false, NULL));
	rules_snapshot_free(&s);
	/* Three resolve; the newest two are kept, newest first. */
	for (int i = 0; i < 3; i++) {
		set(hosts[i], "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1);
		steps(4);
		set(hosts[i], "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
		steps(3);
	}
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_eq(s.n_active, 0);
	ck_assert_uint_eq(s.n_recent, 2);
	ck_assert_str_eq(s.recent[0].subjects[0].device, "h2");
	ck_assert_str_eq(s.recent[1].subjects[0].device, "h1");
	ck_assert_uint_eq(s.fired_total[RULES_PFC_STORM], 3);
	rules_snapshot_free(&s);
}
END_TEST

START_TEST(test_tick_defaults)
{
	char err[256];
	const char *y = "interval: 5s\n"
			"targets:\n"
			"  - name: a\n"
			"    gnmi: {address: \"127.0.0.1:1\", insecure: true,"
			" interval: 2s}\n";
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", y,
					strlen(y), err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(rules_tick_for(c), 2 * (uint64_t)SEC);
	c->rules.tick_ns = 0;
	gnmi_cfg_of(&c->targets[0])->interval_ns =
	    10000000; /* below the floor */
	ck_assert_uint_eq(rules_tick_for(c), 100000000);
	cfg_free(c);
	ck_assert_str_eq(rules_kind_name(RULES_PAUSE_ON_LOSSY),
			 "pause_on_lossy_priority");
	ck_assert_str_eq(rules_kind_name(RULES_KINDS), "?");
}
END_TEST

/* The JSON and Prometheus views of a storm. */
START_TEST(test_outputs)
{
	chain();
	steps(2);
	storm_chain(1.0, 0.8, 0.6, 0.5);
	step();
	struct buf b;
	buf_init(&b);
	struct api_param kind = { "kind", "pfc_storm" };
	ck_assert_int_eq(incidents_api_incidents(F.r, &kind, 1, &b), 200);
	json_error_t je;
	json_t *doc = json_loadb(b.data, b.len, 0, &je);
	ck_assert_msg(doc, "%s", je.text);
	json_t *in = json_array_get(json_object_get(doc, "active"), 0);
	ck_assert_ptr_nonnull(in);
	ck_assert_str_eq(json_string_value(json_object_get(in, "kind")),
			 "pfc_storm");
	ck_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(in, "origin"), "device")),
			 "hostA");
	/* origin -> leaf0:Ethernet0 -> leaf0:Ethernet32 -> spine0 ... */
	json_t *t = json_object_get(in, "tree");
	int depth = 0;
	while (json_array_size(json_object_get(t, "children"))) {
		t = json_array_get(json_object_get(t, "children"), 0);
		depth++;
	}
	ck_assert_int_ge(depth, 5);
	ck_assert_str_eq(json_string_value(json_object_get(t, "device")),
			 "hostB");
	ck_assert_uint_gt(json_array_size(json_object_get(in, "evidence")), 2);
	json_decref(doc);

	buf_reset(&b);
	struct api_param bad = { "state", "now" };
	ck_assert_int_eq(incidents_api_incidents(F.r, &bad, 1, &b), 400);
	buf_reset(&b);
	ck_assert_int_eq(incidents_api_incidents(NULL, NULL, 0, &b), 200);
	buf_reset(&b);
	ck_assert_int_eq(incidents_api_topology(F.l, NULL, 0, &b), 200);
	ck_assert_ptr_nonnull(strstr(b.data, "\"spine0\""));

	buf_reset(&b);
	ck_assert_int_eq(incidents_prom_render(F.r, EXPFMT_TEXT, -1, &b), 0);
	ck_assert_ptr_nonnull(strstr(
	    b.data,
	    "fabmon_incident_active{kind=\"pfc_storm\",device=\"hostA\","
	    "port=\"mlx5_0\",priority=\"3\",role=\"origin\",sender=\"\"} 1\n"));
	ck_assert_ptr_nonnull(
	    strstr(b.data, "fabmon_incidents_total{kind=\"pfc_storm\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(
	    b.data, "fabmon_pause_ratio{device=\"leaf0\",port=\"Ethernet0\","
		    "priority=\"3\",direction=\"rx\"} 1\n"));
	buf_fini(&b);
}
END_TEST

/* Issue #16 (reload_big): a reload adding 20k links (40k unknown ports)
 * grows the engine's port tables and view once, not a doubling at a
 * time under the engine lock (the old code grew them 8 times here). */
START_TEST(test_many_links_grow_the_ports_once)
{
	fab_close();
	char *yaml = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&yaml, &len);
	ck_assert_ptr_nonnull(f);
	fputs("interval: 1s\nlossless_priorities: [3]\ntopology:\n"
	      "  links:\n",
	      f);
	for (unsigned i = 0; i < 20000; i++)
		fprintf(f, "    - [sw%04u:Ethernet%u, host%06u:mlx5_1]\n",
			i / 64, i % 64 * 4, i);
	fclose(f);
	fab_open(yaml);
	free(yaml);
	rules_tick(F.r, F.now);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	ck_assert_uint_le(s.port_growths, 2);
	rules_snapshot_free(&s);
}
END_TEST

static Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("detections");
	tcase_add_checked_fixture(tc, fab_setup, fab_teardown);
	tcase_add_test(tc, test_storm_origin_three_hops_upstream);
	tcase_add_test(tc, test_many_links_grow_the_ports_once);
	tcase_add_test(tc, test_storm_origin_with_skewed_arrivals);
	tcase_add_test(tc, test_nic_storm_does_not_wait_for_the_nic_read);
	tcase_add_test(tc, test_stale_pausing_port_is_waited_for);
	tcase_add_test(tc, test_storm_origin_unmonitored_nic);
	tcase_add_test(tc, test_storm_from_frames_at_link_speed);
	tcase_add_test(tc, test_storm_fires_on_its_onset_sample);
	tcase_add_test(tc, test_storm_tail_shorter_than_storm_for_waits);
	tcase_add_test(tc, test_pause_bursts_are_not_a_storm);
	tcase_add_test(tc, test_deadlock_fires_on_its_onset_sample);
	tcase_add_test(tc, test_removed_target_leaves_the_view);
	tcase_add_test(tc, test_reused_slot_reads_as_its_new_series);
	tcase_add_test(tc, test_spreading_tree_from_congested_egress);
	tcase_add_test(tc, test_late_sample_is_not_counted_twice);
	tcase_add_test(tc, test_spreading_fires_on_two_jittered_samples);
	tcase_add_test(tc, test_deadlock_cycle);
	tcase_add_test(tc, test_cycle_with_progress_is_not_deadlock);
	tcase_add_test(tc, test_healthy_high_load);
	tcase_add_test(tc, test_benign_bursts);
	tcase_add_test(tc, test_hysteresis_flap_and_reboot);
	tcase_add_test(tc, test_reboot_no_false_incident);
	tcase_add_test(tc, test_lossless_drop_switch_and_nic);
	tcase_add_test(tc, test_pause_on_lossy_priority);
	tcase_add_test(tc, test_ecn_after_pfc);
	tcase_add_test(tc, test_ecn_after_pfc_not_at_a_relay);
	tcase_add_test(tc, test_ecn_after_pfc_at_a_lightly_paused_switch);
	tcase_add_test(tc, test_ecn_before_pfc_is_fine);
	tcase_add_test(tc, test_ecn_without_cnp);
	tcase_add_test(tc, test_incast_receiver_and_senders);
	tcase_add_test(tc, test_incast_needs_k_senders);
	tcase_add_test(tc, test_incast_k_configurable);
	tcase_add_test(tc, test_incast_two_senders_fire_on_one_sample);
	tcase_add_test(tc, test_incast_for_configurable);
	tcase_add_test(tc, test_link_flap);
	tcase_add_test(tc, test_target_silent);
	tcase_add_test(tc, test_target_silent_with_a_slow_series);
	tcase_add_test(tc, test_rail_misalignment);
	tcase_add_test(tc, test_deadlock_origin_is_the_failed_link);
	tcase_add_test(tc, test_drops_on_a_cycle_are_one_incident);
	tcase_add_test(tc, test_incast_needs_a_congested_last_hop);
	tcase_add_test(tc, test_incast_counts_paused_senders);
	tcase_add_test(tc, test_link_flap_in_halves);
	tcase_add_test(tc, test_kick_ticks_on_arrival);
	tcase_add_test(tc, test_pending_then_firing_and_recent_ring);
	tcase_add_test(tc, test_tick_defaults);
	tcase_add_test(tc, test_outputs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rules_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
