/*
 * check_rules_noise: the rule engine on a healthy fabric's background
 * (tests/rules_fixture.h: a real store and engine on an injected clock,
 * one sample per simulated second). A SONiC-like switch whose lossless
 * ports carry the usual PFC trickle and a fraction of a packet per
 * second of receive discards for unrelated reasons raises nothing; a
 * lossless drop is per-priority evidence, or receive discards at a port
 * really in XOFF that rise clearly above that port's own baseline; a
 * link's flush is the link's. A NIC's CE marks and CNPs from
 * microbursts are no incast; a receiver whose last hop marks a large
 * share of its packets is. The background is drawn from a seeded
 * generator, so every run sees the same samples.
 */
#include "config.h"

#include "fabmond.h"
#include "rules_fixture.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NPORTS 8
/* 100G: XOFF frames that hold a priority paused, per second. */
#define SPEED_BPS 1.25e10
#define REFRESH	  (SPEED_BPS * 8 / (512.0 * 65535.0))

static uint64_t rng = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A Poisson count of mean m: Knuth's method for small means, the
 * normal approximation for large ones (exp(-m) underflows). */
static double poisson(double m)
{
	if (m > 30) {
		double g = sqrt(-2 * log(1 - uniform())) *
			   cos(6.283185307179586 * uniform());
		double k = floor(m + sqrt(m) * g + 0.5);
		return k > 0 ? k : 0;
	}
	double l = exp(-m), p = 1;
	int k = 0;
	do {
		k++;
		p *= uniform();
	} while (p > l);
	return k - 1;
}

static void setup(void)
{
	rng = 0x9e3779b97f4a7c15u;
	fab_open("interval: 1s\nlossless_priorities: [3]\n");
}

static void teardown(void)
{
	fab_close();
}

static const char *sw_port(int i)
{
	static const char *const names[NPORTS] = {
		"Ethernet0",  "Ethernet8",  "Ethernet16", "Ethernet24",
		"Ethernet32", "Ethernet40", "Ethernet48", "Ethernet56",
	};
	return names[i];
}

static const char *host_of(int i)
{
	static const char *const hosts[NPORTS] = {
		"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7",
	};
	return hosts[i];
}

/* Per port: the mean of its receive discards (packets/s) and its
 * transmit pause ratio on priority 3. */
static double disc_mean[NPORTS], pause_tx[NPORTS];
/* A port's discards held at a constant instead (NAN: drawn). */
static double disc_const[NPORTS];

/* leaf0's ports cabled to their hosts, as LLDP reports them (again
 * within its time to live). */
static void lldp(void)
{
	for (int i = 0; i < NPORTS; i++)
		link2("leaf0", sw_port(i), host_of(i), "mlx5_0");
}

/* leaf0's NPORTS ports, each cabled to a host NIC, counted as SONiC
 * counts them: PFC frames (no pause time), queue drops, receive
 * discards, link state; the speed is the NIC's. */
static void sonic_leaf(void)
{
	lldp();
	for (int i = 0; i < NPORTS; i++) {
		set(host_of(i), "mlx5_0", FM_C_LINK_SPEED, 0, SPEED_BPS);
		set("leaf0", sw_port(i), FM_C_PFC_TX_FRAMES, 3, 0);
		set("leaf0", sw_port(i), FM_C_PFC_RX_FRAMES, 3, 0);
		set("leaf0", sw_port(i), FM_C_QUEUE_DROPS, 3, 0);
		set("leaf0", sw_port(i), FM_C_ECN_MARKED, 3, 0);
		set("leaf0", sw_port(i), FM_C_DISCARDS_RX, 0, 0);
		set("leaf0", sw_port(i), FM_C_LINK_UP, 0, 1);
		disc_mean[i] = 0;
		disc_const[i] = NAN;
		pause_tx[i] = 1e-4; /* the usual trickle */
	}
}

/* n samples with each port's background drawn anew: PFC frames at its
 * pause ratio (whole frames: a trickle of 1e-4 is a frame every few
 * seconds), both ways, and Poisson receive discards. */
static void run(int n)
{
	for (int k = 0; k < n; k++) {
		if (F.now / SEC % 30 == 0)
			lldp();
		for (int i = 0; i < NPORTS; i++) {
			const char *p = sw_port(i);
			set("leaf0", p, FM_C_PFC_TX_FRAMES, 3,
			    poisson(pause_tx[i] * REFRESH));
			set("leaf0", p, FM_C_PFC_RX_FRAMES, 3,
			    poisson(1e-4 * REFRESH));
			set("leaf0", p, FM_C_DISCARDS_RX, 0,
			    isnan(disc_const[i]) ? poisson(disc_mean[i])
						 : disc_const[i]);
			/* A well-tuned switch marks ECN before it
			 * pauses (no ecn_after_pfc). */
			set("leaf0", p, FM_C_ECN_MARKED, 3,
			    pause_tx[i] >= 0.05 ? 1000 : 0);
		}
		step();
	}
}

static double evidence(const struct rules_incident *in, const char *name)
{
	for (size_t i = 0; i < in->n_evidence; i++)
		if (!strcmp(in->evidence[i].name, name))
			return in->evidence[i].value;
	return NAN;
}

/* What a firing lossless_drop at dev (the whole switch) on prio says. */
struct drop {
	double peak, base, ratio;
};

static bool drop_at(const char *dev, int prio, struct drop *out)
{
	struct rules_snapshot s;
	bool found = false;
	rules_snapshot(F.r, false, &s);
	for (size_t i = 0; i < s.n_active && !found; i++) {
		const struct rules_incident *in = &s.active[i];
		if (in->kind != RULES_LOSSLESS_DROP ||
		    in->state != RULES_FIRING || in->priority != prio ||
		    strcmp(in->subjects[0].device, dev) ||
		    strcmp(in->subjects[0].port, ""))
			continue;
		found = true;
		if (out) {
			out->peak = in->peak;
			out->base = evidence(in, "rx_discards_baseline_pps");
			out->ratio = evidence(in, "pause_ratio_tx");
		}
	}
	rules_snapshot_free(&s);
	return found;
}

static uint64_t fired(enum rules_kind k)
{
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	uint64_t n = s.fired_total[k];
	rules_snapshot_free(&s);
	return n;
}

static uint64_t fired_all(void)
{
	uint64_t n = 0;
	for (int k = 0; k < RULES_KINDS; k++)
		n += fired(k);
	return n;
}

/* A healthy switch for 20 minutes: PFC trickle on every lossless port,
 * 0.3 or 3 pps of discards on some, with some ports' pause trickle up
 * to 1e-2: no incident at all. */
START_TEST(test_healthy_sonic_switch_is_quiet)
{
	sonic_leaf();
	disc_mean[1] = 0.3;
	disc_mean[2] = 0.3;
	disc_mean[4] = 3;
	disc_mean[5] = 3;
	disc_mean[6] = 0.01;
	pause_tx[3] = 1e-3;
	pause_tx[5] = 1e-2; /* the top of the usual background */
	run(1200);
	ck_assert_uint_eq(fired_all(), 0);
}
END_TEST

/* A port really in XOFF (0.3) whose discards jump to 200 pps over its
 * 0.5 pps baseline: its headroom overflowed. */
START_TEST(test_discards_in_xoff_above_baseline)
{
	sonic_leaf();
	disc_mean[2] = 0.5;
	run(300);
	ck_assert_uint_eq(fired_all(), 0);
	pause_tx[2] = 0.3;
	disc_mean[2] = 200;
	run(2); /* a switch's drops wait a sample */
	struct drop d;
	ck_assert(drop_at("leaf0", 3, &d));
	ck_assert(d.peak >= 100);
	ck_assert(d.base >= 0 && d.base < 2);
	ck_assert(d.ratio > 0.2);
	ck_assert_uint_eq(fired_all(), 1);
	/* It goes on while the port stays in XOFF: not learned as the
	 * port's normal. */
	run(30);
	ck_assert(drop_at("leaf0", 3, NULL));
}
END_TEST

/* The same jump with only the PFC trickle: no lossless drop. */
START_TEST(test_discards_jump_without_xoff)
{
	sonic_leaf();
	disc_mean[2] = 0.5;
	run(300);
	disc_mean[2] = 200;
	run(20);
	ck_assert_uint_eq(fired_all(), 0);
	/* Nor XOFF with the discards at their usual level. */
	disc_mean[2] = 0.5;
	pause_tx[2] = 0.3;
	run(20);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
}
END_TEST

/* A noisy port (5 pps of ACL drops) at 8 pps in XOFF is its normal; a
 * quiet one (0.5 pps) at 8 pps is not. */
START_TEST(test_each_port_by_its_own_baseline)
{
	sonic_leaf();
	disc_mean[1] = 5;
	disc_mean[2] = 0.5;
	run(600);
	pause_tx[1] = 0.3;
	disc_const[1] = 8;
	run(30);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	pause_tx[2] = 0.3;
	disc_const[2] = 8;
	run(2); /* a switch's drops wait a sample */
	ck_assert(drop_at("leaf0", 3, NULL));
}
END_TEST

/* Short XOFFs of an undersized headroom: the port's pause rises from
 * its trickle to 0.005 while its discards jump; it stays a lossless drop
 * over a train of such bursts (XOFF windows barely teach the pause
 * baseline). At a port whose usual trickle is 1e-2, 1.2e-2 is no XOFF:
 * a discard spike there is no lossless drop. */
START_TEST(test_short_xoffs_against_the_pause_baseline)
{
	sonic_leaf();
	pause_tx[5] = 1e-2;
	disc_mean[5] = 0.3;
	run(300);
	pause_tx[5] = 1.2e-2;
	disc_const[5] = 200;
	run(5);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	pause_tx[5] = 1e-2;
	disc_const[5] = NAN;
	run(60);
	for (int k = 0; k < 10; k++) {
		pause_tx[2] = 0.005;
		disc_const[2] = 600;
		run(1);
		pause_tx[2] = 1e-4;
		disc_const[2] = 0;
		run(1); /* judged a sample later, on its peak */
		ck_assert(drop_at("leaf0", 3, NULL));
	}
}
END_TEST

/* A port with too little history is not judged: no inference. */
START_TEST(test_no_inference_without_history)
{
	sonic_leaf();
	run(3);
	pause_tx[2] = 0.3;
	disc_mean[2] = 200;
	run(2);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
}
END_TEST

/* Priority-group drops are the priority's: at once, no baseline. */
START_TEST(test_pg_drops_at_once)
{
	sonic_leaf();
	set("leaf0", sw_port(4), FM_C_PG_DROPS, 3, 0);
	run(2);
	ck_assert_uint_eq(fired_all(), 0);
	set("leaf0", sw_port(4), FM_C_PG_DROPS, 3, 10);
	run(2); /* a switch's drops wait a sample */
	ck_assert(drop_at("leaf0", 3, NULL));
}
END_TEST

/* Queue drops in the window a link went down (its queues flushed) and
 * as it came back are the link's; later ones are lossless drops. */
START_TEST(test_queue_drops_on_a_link_change)
{
	sonic_leaf();
	run(5);
	set("leaf0", sw_port(3), FM_C_LINK_UP, 0, 0);
	set("leaf0", sw_port(3), FM_C_QUEUE_DROPS, 3, 500);
	run(1);
	set("leaf0", sw_port(3), FM_C_QUEUE_DROPS, 3, 40);
	run(1);
	set("leaf0", sw_port(3), FM_C_LINK_UP, 0, 1);
	set("leaf0", sw_port(3), FM_C_QUEUE_DROPS, 3, 20);
	run(1);
	set("leaf0", sw_port(3), FM_C_QUEUE_DROPS, 3, 0);
	run(5);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	/* The link long settled: a drop is the priority's. */
	set("leaf0", sw_port(3), FM_C_QUEUE_DROPS, 3, 20);
	run(2); /* a switch's drops wait a sample */
	ck_assert(drop_at("leaf0", 3, NULL));
}
END_TEST

/* A flapping link's drops are evidence on its link_flap. */
START_TEST(test_flap_drops_are_its_evidence)
{
	sonic_leaf();
	run(3);
	for (int k = 0; k < 2; k++) {
		set("leaf0", sw_port(0), FM_C_LINK_UP, 0, 0);
		set("leaf0", sw_port(0), FM_C_QUEUE_DROPS, 3, 300);
		run(1);
		set("leaf0", sw_port(0), FM_C_LINK_UP, 0, 1);
		set("leaf0", sw_port(0), FM_C_QUEUE_DROPS, 3, 0);
		run(1);
	}
	set("leaf0", sw_port(0), FM_C_LINK_UP, 0, 0);
	set("leaf0", sw_port(0), FM_C_QUEUE_DROPS, 3, 300);
	run(1);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	bool found = false;
	for (size_t i = 0; i < s.n_active; i++) {
		const struct rules_incident *in = &s.active[i];
		if (in->kind != RULES_LINK_FLAP)
			continue;
		found = true;
		ck_assert(evidence(in, "lossless_drops_pps") == 300);
	}
	rules_snapshot_free(&s);
	ck_assert(found);
}
END_TEST

/* A switch reboot: silent, then back with its counters from zero and
 * its links down and up again, dropping as they come up: nothing but
 * the silence. */
START_TEST(test_reboot_is_no_lossless_drop)
{
	sonic_leaf();
	disc_mean[2] = 0.5;
	run(60);
	stop_device("leaf0");
	run(10);
	for (size_t i = 0; i < F.n; i++)
		if (!strcmp(F.s[i].dev, "leaf0")) {
			F.s[i].raw = 0;
			F.s[i].stopped = false;
		}
	for (int i = 0; i < NPORTS; i++) {
		set("leaf0", sw_port(i), FM_C_LINK_UP, 0, 0);
		set("leaf0", sw_port(i), FM_C_QUEUE_DROPS, 3, 100);
	}
	run(1);
	for (int i = 0; i < NPORTS; i++)
		set("leaf0", sw_port(i), FM_C_LINK_UP, 0, 1);
	run(1);
	for (int i = 0; i < NPORTS; i++)
		set("leaf0", sw_port(i), FM_C_QUEUE_DROPS, 3, 0);
	run(20);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	ck_assert_uint_eq(fired(RULES_TARGET_SILENT), 1);
}
END_TEST

/* A reroute: spine1 loses its link to leaf3 and what leaf0 had queued
 * towards spine1 for leaf3 is flushed at leaf0's uplink in the same
 * sample (fabsim's pfc_deadlock at 12 s). Those drops are the link
 * change's; once the routes have settled a drop there is a fault. */
START_TEST(test_reroute_drops_next_to_a_link_change)
{
	sonic_leaf();
	link2("leaf0", "Ethernet64", "spine1", "Ethernet1");
	link2("spine1", "Ethernet4", "leaf3", "Ethernet40");
	set("leaf0", "Ethernet64", FM_C_QUEUE_DROPS, 3, 0);
	set("spine1", "Ethernet1", FM_C_LINK_UP, 0, 1);
	set("spine1", "Ethernet4", FM_C_LINK_UP, 0, 1);
	run(5);
	set("spine1", "Ethernet4", FM_C_LINK_UP, 0, 0);
	set("leaf0", "Ethernet64", FM_C_QUEUE_DROPS, 3, 252);
	run(1);
	set("leaf0", "Ethernet64", FM_C_QUEUE_DROPS, 3, 0);
	run(5);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	set("leaf0", "Ethernet64", FM_C_QUEUE_DROPS, 3, 252);
	run(2); /* a switch's drops wait a sample */
	ck_assert(drop_at("leaf0", 3, NULL));
}
END_TEST

/* A switch's held drops are judged once the switch at the other end of
 * the dropping port has delivered a sample as new as theirs: s0 reporting
 * its link to l1 down 0.4 s after l0's sample showed the reroute's flush
 * makes them the link change's; once the routes have settled, drops at
 * l0 fire on s0's next sample, 0.1 s later, not a window later. */
START_TEST(test_held_drops_judged_on_the_neighbours_sample)
{
	static const char *const l0[] = { "l0", NULL };
	static const char *const sp[] = { "s0", "l1", NULL };
	link2("l0", "e1", "s0", "e0");
	link2("s0", "e1", "l1", "e0");
	set("l0", "e1", FM_C_QUEUE_TX_PACKETS, 3, 1e6);
	set("l0", "e1", FM_C_QUEUE_DROPS, 3, 0);
	set("s0", "e0", FM_C_LINK_UP, 0, 1);
	set("s0", "e1", FM_C_LINK_UP, 0, 1);
	steps(5);
	set("s0", "e1", FM_C_LINK_UP, 0, 0);
	set("l0", "e1", FM_C_QUEUE_DROPS, 3, 252);
	step_only(l0, SEC * 6 / 10);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);
	set("l0", "e1", FM_C_QUEUE_DROPS, 3, 0);
	for (int k = 0; k < 12; k++) {
		step_only(sp, SEC * 4 / 10);
		step_only(l0, SEC * 6 / 10);
	}
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0);

	set("l0", "e1", FM_C_QUEUE_DROPS, 3, 252);
	step_only(sp, SEC * 4 / 10);
	step_only(l0, SEC * 5 / 10);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 0); /* held */
	step_only(sp, SEC / 10);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 1);
	ck_assert(drop_at("l0", 3, NULL));
}
END_TEST

/* Switches publish on phases of their own: a1's sample shows the drops
 * of a reroute's flush half a second before a0's and a2's samples close
 * the pause cycle a0:e1 -> a1:e1 -> a2:e1 -> a0:e1 the new routes made
 * (fabsim's pfc_deadlock with publish jitter). The drops are the cycle's
 * incident, not a second one at a1. */
START_TEST(test_drops_a_sample_before_their_cycle)
{
	const char *d[3] = { "a0", "a1", "a2" };
	for (int i = 0; i < 3; i++) {
		link2(d[i], "e1", d[(i + 1) % 3], "e0");
		set(d[i], "e1", FM_C_PFC_RX_PAUSE, 3, 0);
		set(d[i], "e0", FM_C_PFC_TX_PAUSE, 3, 0);
		set(d[i], "e1", FM_C_QUEUE_TX_PACKETS, 3, 1e6);
		set(d[i], "e1", FM_C_QUEUE_DROPS, 3, 0);
	}
	steps(3);
	for (int i = 0; i < 3; i++) {
		set(d[i], "e1", FM_C_PFC_RX_PAUSE, 3, 1.0);
		set(d[i], "e0", FM_C_PFC_TX_PAUSE, 3, 1.0);
		set(d[i], "e1", FM_C_QUEUE_TX_PACKETS, 3, 0);
	}
	set("a1", "e1", FM_C_QUEUE_DROPS, 3, 252);
	static const char *const first[] = { "a1", NULL };
	static const char *const rest[] = { "a0", "a2", NULL };
	step_only(first, SEC / 2);
	step_only(rest, SEC / 2);
	set("a1", "e1", FM_C_QUEUE_DROPS, 3, 0);
	for (int k = 0; k < 3; k++) {
		step_only(first, SEC / 2);
		step_only(rest, SEC / 2);
	}
	struct rules_snapshot s;
	rules_snapshot(F.r, false, &s);
	bool cycle = false;
	for (size_t i = 0; i < s.n_active; i++) {
		const struct rules_incident *in = &s.active[i];
		if (in->kind != RULES_LOSSLESS_DROP)
			continue;
		ck_assert_str_eq(in->subjects[0].device, "a0");
		ck_assert_str_eq(in->subjects[0].port, "e1");
		cycle = true;
	}
	rules_snapshot_free(&s);
	ck_assert(cycle);
	ck_assert_uint_eq(fired(RULES_LOSSLESS_DROP), 1);
}
END_TEST

/* One receiver, r0:mlx5_0, behind leaf0:Ethernet0 (which marks and sends
 * it packets on priority 3, SONiC's queue counters), and six NICs that
 * may send to it. What the fabsim background and a real incast showed
 * (per second): */
struct nic_fig {
	double ce, cnp, marked, sent; /* receiver; its last hop */
	double handled[6];	      /* the senders' handled CNPs */
};

static void receiver(const struct nic_fig *f)
{
	link2("leaf0", "Ethernet0", "r0", "mlx5_0");
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, f->marked);
	set("leaf0", "Ethernet0", FM_C_QUEUE_TX_PACKETS, 3, f->sent);
	set("r0", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0, f->ce);
	set("r0", "mlx5_0", FM_C_CNP_SENT, 0, f->cnp);
	for (int i = 0; i < 6; i++) {
		char d[8];
		snprintf(d, sizeof d, "s%d", i);
		set(d, "mlx5_0", FM_C_CNP_HANDLED, 0, f->handled[i]);
	}
}

/* Background microbursts at a receiver on a fabric at 0.9 load (fabsim's
 * background: the benign generated fabric, benign_bursts, ecn_above_xoff
 * and nic_pfc_storm): hundreds of CNPs/s, thousands of CE/s, handled by
 * the senders of the receiver's flows and of other receivers' bursts,
 * but ~1e-4 of the packets its last hop sends it. No incast. */
START_TEST(test_microbursts_are_no_incast)
{
	static const struct nic_fig seen[] = {
		{ 1213, 144, 1213, 1.08e7, { 72, 72 } },
		{ 1834, 263, 1834, 1.08e7, { 70, 70, 63, 60 } },
		{ 2259, 227, 1697, 1.08e7, { 80, 80, 67 } },
		{ 1907, 227, 1731, 1.08e7, { 114, 113 } },
		{ 1174, 189, 1367, 1.08e7, { 95, 94 } },
	};
	for (size_t i = 0; i < sizeof seen / sizeof *seen; i++) {
		receiver(&seen[i]);
		steps(6);
		ck_assert_msg(fired(RULES_INCAST) == 0, "case %zu", i);
	}
	/* The same receiver overloaded by six senders at line rate
	 * (fabsim's incast: a quarter of its packets marked): it fires
	 * on the first sample, as before. */
	static const struct nic_fig incast = {
		2.4e6, 3e5, 2.4e6, 9.6e6, { 5e4, 5e4, 5e4, 5e4, 5e4, 5e4 }
	};
	receiver(&incast);
	step();
	ck_assert_uint_eq(fired(RULES_INCAST), 1);
}
END_TEST

/* Two senders bursting onto a receiver whose last hop drops at XOFF
 * (fabsim's lossless_drops): the bursts' seconds mark 15% to all of the
 * packets. An incast. */
START_TEST(test_short_incast_bursts_fire)
{
	static const struct nic_fig burst = {
		1.2e6, 5e4, 1.2e6, 7.7e6, { 2.5e4, 2.5e4 }
	};
	receiver(&burst);
	steps(2);
	ck_assert_uint_eq(fired(RULES_INCAST), 1);
}
END_TEST

/* incast_ce_ratio: 0 judges by the CNP floor and the last hop's marks
 * alone (the rule before the fraction): the microbursts pass it. */
START_TEST(test_incast_ce_ratio_configurable)
{
	fab_close();
	fab_open("interval: 1s\nlossless_priorities: [3]\n"
		 "rules:\n  incast_ce_ratio: 0\n");
	static const struct nic_fig weak = {
		1213, 144, 1213, 1.08e7, { 72, 72 }
	};
	receiver(&weak);
	steps(2);
	ck_assert_uint_eq(fired(RULES_INCAST), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("rules_noise");
	TCase *tc = tcase_create("noise");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_healthy_sonic_switch_is_quiet);
	tcase_add_test(tc, test_discards_in_xoff_above_baseline);
	tcase_add_test(tc, test_discards_jump_without_xoff);
	tcase_add_test(tc, test_each_port_by_its_own_baseline);
	tcase_add_test(tc, test_short_xoffs_against_the_pause_baseline);
	tcase_add_test(tc, test_no_inference_without_history);
	tcase_add_test(tc, test_pg_drops_at_once);
	tcase_add_test(tc, test_queue_drops_on_a_link_change);
	tcase_add_test(tc, test_flap_drops_are_its_evidence);
	tcase_add_test(tc, test_reboot_is_no_lossless_drop);
	tcase_add_test(tc, test_reroute_drops_next_to_a_link_change);
	tcase_add_test(tc, test_held_drops_judged_on_the_neighbours_sample);
	tcase_add_test(tc, test_drops_a_sample_before_their_cycle);
	tcase_add_test(tc, test_microbursts_are_no_incast);
	tcase_add_test(tc, test_short_incast_bursts_fire);
	tcase_add_test(tc, test_incast_ce_ratio_configurable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
