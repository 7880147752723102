/*
 * check_sim_bg: the counter model's background (sim/model_bg.c). On the
 * demo fabric under a 90% all-reduce, over minutes of 100 ms ticks: off
 * by default; the same seed gives the same counters bit for bit and
 * another seed others; microburst pause stays within 1e-5..1e-2 of each
 * second at both ends of a link with one XON per microburst, marks and
 * CNPs at modest rates; receive discards on a fraction of the switch
 * ports at 0.01..5 pps; no lossless drop ever; flaps are single,
 * short, on switch links and never twice on a link within 60 s;
 * reboots come after 2 minutes; every event is logged and counted.
 *
 * Examples live in $top_srcdir/sim/topologies ($top_srcdir defaults to
 * ".").
 */
#include "config.h"

#include "model.h"
#include "topo.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK	 100000000ull /* 100 ms */
#define PRIO	 3
#define MINUTE_S 60

static char err[1024];

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

static struct sim_topo *demo(void)
{
	struct sim_topo *t =
	    sim_topo_load(srcpath("sim/topologies/demo.yaml"), err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	return t;
}

/* A model of t under a ring all-reduce per rail at 90% of line rate,
 * with background b (NULL: none set). */
static struct sim_model *loaded(const struct sim_topo *t, uint64_t seed,
				const struct sim_model_background *b)
{
	struct sim_model *m = sim_model_new(t, seed, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	size_t hosts = sim_topo_n_tier(t, SIM_NODE_HOST);
	for (size_t h = 0; h < hosts; h++) {
		const struct sim_node *a =
		    sim_topo_tier_node(t, SIM_NODE_HOST, h);
		const struct sim_node *z =
		    sim_topo_tier_node(t, SIM_NODE_HOST, (h + 1) % hosts);
		for (size_t k = 0; k < a->n_ports; k++) {
			struct sim_model_flow f = {
				a->ports[k].id,		 z->ports[k].id, PRIO,
				0.9 * a->ports[k].speed, NULL,		 0
			};
			ck_assert_int_ge(sim_model_add_flow(m, &f), 0);
		}
	}
	if (b)
		ck_assert_int_eq(sim_model_set_background(m, b), 0);
	return m;
}

static void steps(struct sim_model *m, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(sim_model_step(m, TICK), 0);
}

START_TEST(background_is_off_until_set)
{
	struct sim_topo *t = demo();
	struct sim_model *m = loaded(t, 1, NULL);
	struct sim_model_background b;
	sim_model_get_background(m, &b);
	ck_assert(!b.enabled);
	steps(m, 600);
	for (size_t p = 0; p < sim_topo_n_ports(t); p++) {
		struct sim_model_switch_port s;
		if (sim_model_read_switch_port(m, p, &s))
			continue;
		ck_assert_uint_eq(s.prio[PRIO].pfc_tx_pause_us, 0);
		ck_assert_uint_eq(s.in_discards, 0);
		ck_assert_uint_eq(s.in_errors, 0);
	}
	ck_assert_uint_eq(sim_model_bg_n_events(m), 0);
	ck_assert_uint_eq(sim_model_bg_count(m, SIM_MODEL_BG_MICROBURST), 0);
	/* Defaults are documented in model.h; bad knobs are refused. */
	sim_model_background_defaults(&b);
	ck_assert(b.enabled);
	ck_assert_double_eq(b.discard_port_fraction, 0.2);
	b.error_link_fraction = 1.5;
	ck_assert_int_eq(sim_model_set_background(m, &b), -EINVAL);
	b.error_link_fraction = 0.03;
	b.flap_mean_s = -1;
	ck_assert_int_eq(sim_model_set_background(m, &b), -EINVAL);
	b.flap_mean_s = NAN;
	ck_assert_int_eq(sim_model_set_background(m, &b), -EINVAL);
	sim_model_get_background(m, &b);
	ck_assert(!b.enabled);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

static bool same_counters(const struct sim_topo *t, const struct sim_model *a,
			  const struct sim_model *b)
{
	for (size_t p = 0; p < sim_topo_n_ports(t); p++) {
		struct sim_model_switch_port x, y;
		struct sim_model_nic_port u, v;
		if (sim_model_read_switch_port(a, p, &x) == 0) {
			ck_assert_int_eq(sim_model_read_switch_port(b, p, &y),
					 0);
			if (memcmp(&x, &y, sizeof x))
				return false;
			continue;
		}
		ck_assert_int_eq(sim_model_read_nic_port(a, p, &u), 0);
		ck_assert_int_eq(sim_model_read_nic_port(b, p, &v), 0);
		if (memcmp(&u, &v, sizeof u))
			return false;
	}
	return true;
}

START_TEST(same_seed_same_background_bit_for_bit)
{
	struct sim_topo *t = demo();
	struct sim_model_background b;
	sim_model_background_defaults(&b);
	b.flap_mean_s = 30;
	b.reboot_mean_s = 60;
	struct sim_model *x = loaded(t, 7, &b), *y = loaded(t, 7, &b),
			 *z = loaded(t, 8, &b);
	steps(x, 3 * MINUTE_S * 10);
	steps(y, 3 * MINUTE_S * 10);
	steps(z, 3 * MINUTE_S * 10);
	ck_assert(same_counters(t, x, y));
	ck_assert(!same_counters(t, x, z));
	ck_assert_uint_eq(sim_model_bg_n_events(x), sim_model_bg_n_events(y));
	ck_assert_uint_gt(sim_model_bg_n_events(x), 0);
	for (size_t i = 0; i < sim_model_bg_n_events(x); i++)
		ck_assert(memcmp(sim_model_bg_event(x, i),
				 sim_model_bg_event(y, i),
				 sizeof(struct sim_model_bg_event)) == 0);
	for (int k = 0; k < SIM_MODEL_BG_KINDS; k++)
		ck_assert_uint_eq(sim_model_bg_count(x, k),
				  sim_model_bg_count(y, k));
	sim_model_free(x);
	sim_model_free(y);
	sim_model_free(z);
	sim_topo_free(t);
}
END_TEST

/* Per second and port: what the background left on priority PRIO. */
struct second {
	uint64_t tx_us, rx_us, tx_frames, xons, cnp, in_disc;
};

static void read_second(const struct sim_model *m, size_t p, struct second *o)
{
	struct sim_model_switch_port s;
	struct sim_model_nic_port n;
	memset(o, 0, sizeof *o);
	if (sim_model_read_switch_port(m, p, &s) == 0) {
		o->tx_us = s.prio[PRIO].pfc_tx_pause_us;
		o->rx_us = s.prio[PRIO].pfc_rx_pause_us;
		o->tx_frames = s.prio[PRIO].pfc_tx_frames;
		o->in_disc = s.in_discards;
		for (unsigned q = 0; q < SIM_MODEL_PRIOS; q++) {
			ck_assert_uint_eq(s.prio[q].pg_drops, 0);
			if (q == PRIO)
				ck_assert_uint_eq(s.prio[q].queue_drops, 0);
			else
				ck_assert_uint_eq(s.prio[q].pfc_tx_frames, 0);
		}
		return;
	}
	ck_assert_int_eq(sim_model_read_nic_port(m, p, &n), 0);
	o->tx_us = n.tx_prio_pause_duration[PRIO];
	o->rx_us = n.rx_prio_pause_duration[PRIO];
	o->tx_frames = n.tx_prio_pause[PRIO];
	o->cnp = n.np_cnp_sent;
	ck_assert_uint_eq(n.out_of_buffer, 0);
	ck_assert_uint_eq(n.rx_discards_phy, 0);
	for (unsigned q = 0; q < SIM_MODEL_PRIOS; q++) {
		ck_assert_uint_eq(n.rx_prio_discards[q], 0);
		if (q != PRIO)
			ck_assert_uint_eq(n.tx_prio_pause[q], 0);
	}
}

/* The XONs a port sent: its peer's received transitions. */
static uint64_t xons_sent(const struct sim_model *m, const struct sim_port *p)
{
	struct sim_model_switch_port s;
	struct sim_model_nic_port n;
	size_t peer = p->peer->id;
	if (sim_model_read_switch_port(m, peer, &s) == 0)
		return s.prio[PRIO].pfc_rx_transitions;
	ck_assert_int_eq(sim_model_read_nic_port(m, peer, &n), 0);
	return n.rx_prio_pause_transition[PRIO];
}

START_TEST(microbursts_and_discards_land_in_their_ranges)
{
	struct sim_topo *t = demo();
	struct sim_model_background b;
	sim_model_background_defaults(&b);
	b.flap_mean_s = b.reboot_mean_s = 0;
	struct sim_model *m = loaded(t, 3, &b);
	size_t np = sim_topo_n_ports(t);
	struct second *prev = calloc(np, sizeof *prev);
	ck_assert(prev);
	unsigned secs = 10 * MINUTE_S, paused = 0, cnp_secs = 0, cnp_high = 0;
	for (unsigned k = 0; k < secs; k++) {
		steps(m, 10);
		for (size_t p = 0; p < np; p++) {
			const struct sim_port *pt = sim_topo_port(t, p);
			struct second s;
			read_second(m, p, &s);
			s.xons = pt->peer ? xons_sent(m, pt) : 0;
			uint64_t us = s.tx_us - prev[p].tx_us;
			uint64_t fr = s.tx_frames - prev[p].tx_frames;
			uint64_t xo = s.xons - prev[p].xons;
			uint64_t cnp = s.cnp - prev[p].cnp;
			/* At most 1% of the second, at least one 10 us
			   microburst when any; one XON each, so frames well
			   above what the time alone would refresh (each
			   microburst is shorter than a refresh interval). */
			ck_assert_uint_le(us, 10000);
			if (us) {
				double R = pt->speed * 1e9 / (65535.0 * 512.0);
				paused++;
				ck_assert_uint_ge(us, 9);
				ck_assert_uint_ge(xo, 1);
				ck_assert_uint_ge(fr, xo);
				ck_assert_double_le((double)(fr - xo),
						    (double)us * 1e-6 * R + 2);
				ck_assert_double_gt(2.0 * (double)xo,
						    (double)us * 1e-6 * R);
			}
			if (cnp) {
				cnp_secs++;
				cnp_high += cnp >= 100;
			}
			prev[p] = s;
		}
	}
	/* Bursty episodes on a few ports, not everywhere all the time. */
	ck_assert_uint_gt(paused, 50);
	ck_assert_uint_lt(paused, secs * np / 10);
	ck_assert_uint_gt(sim_model_bg_count(m, SIM_MODEL_BG_MICROBURST), 10);
	/* CNPs mostly well under 100/s per NIC. */
	ck_assert_uint_gt(cnp_secs, 0);
	ck_assert_uint_lt(cnp_high * 4, cnp_secs);
	unsigned sw = 0, disc = 0;
	for (size_t p = 0; p < np; p++) {
		struct sim_model_switch_port s;
		if (sim_model_read_switch_port(m, p, &s))
			continue;
		sw++;
		if (!s.in_discards)
			continue;
		disc++;
		/* 0.01..5 pps, Poisson over 600 s (0 is possible at the
		   bottom of the range). */
		ck_assert_double_le((double)s.in_discards, 5.0 * secs * 1.2);
	}
	ck_assert_uint_ge(disc, 1);
	ck_assert_uint_le(disc, sw / 2);
	sim_model_free(m);
	free(prev);
	sim_topo_free(t);
}
END_TEST

START_TEST(flaps_and_reboots_are_single_spaced_and_logged)
{
	struct sim_topo *t = demo();
	struct sim_model_background b;
	sim_model_background_defaults(&b);
	b.microburst_scale = 0;
	b.flap_mean_s = 10;
	b.reboot_mean_s = 60;
	struct sim_model *m = loaded(t, 5, &b);
	steps(m, 15 * MINUTE_S * 10);
	size_t n = sim_model_bg_n_events(m), downs = 0, boots = 0;
	ck_assert_ptr_null(sim_model_bg_event(m, n));
	for (size_t i = 0; i < n; i++) {
		const struct sim_model_bg_event *e = sim_model_bg_event(m, i);
		if (i)
			ck_assert_uint_ge(e->at_ns,
					  sim_model_bg_event(m, i - 1)->at_ns);
		if (e->kind == SIM_MODEL_BG_REBOOT) {
			boots++;
			ck_assert_uint_ge(e->at_ns, 120000000000ull);
			ck_assert_uint_eq(e->port, (size_t)-1);
			continue;
		}
		if (e->kind != SIM_MODEL_BG_LINK_DOWN)
			continue;
		downs++;
		const struct sim_port *p = sim_topo_port(t, e->port);
		ck_assert_uint_eq(p->node->id, e->node);
		ck_assert(p->node->kind != SIM_NODE_HOST);
		ck_assert(p->peer->node->kind != SIM_NODE_HOST);
		/* The next event of the link is its up, 100-600 ms on. */
		const struct sim_model_bg_event *up = NULL;
		for (size_t j = i + 1; j < n && !up; j++)
			if (sim_model_bg_event(m, j)->kind !=
			    SIM_MODEL_BG_REBOOT)
				up = sim_model_bg_event(m, j);
		if (!up)
			continue;
		ck_assert_int_eq(up->kind, SIM_MODEL_BG_LINK_UP);
		ck_assert_uint_eq(up->port, e->port);
		ck_assert_uint_ge(up->at_ns - e->at_ns, 100000000ull);
		ck_assert_uint_le(up->at_ns - e->at_ns, 600000000ull);
		/* Never the same link again within 60 s. */
		for (size_t j = i + 1; j < n; j++) {
			const struct sim_model_bg_event *x =
			    sim_model_bg_event(m, j);
			if (x->at_ns >= e->at_ns + 60000000000ull)
				break;
			if (x->kind == SIM_MODEL_BG_LINK_DOWN)
				ck_assert(x->port != e->port &&
					  x->port != p->peer->id);
		}
	}
	ck_assert_uint_ge(downs, 10);
	ck_assert_uint_ge(boots, 2);
	ck_assert_uint_eq(downs, sim_model_bg_count(m, SIM_MODEL_BG_LINK_DOWN));
	ck_assert_uint_eq(boots, sim_model_bg_count(m, SIM_MODEL_BG_REBOOT));
	unsigned total = 0;
	for (size_t i = 0; i < sim_topo_n_nodes(t); i++)
		total += sim_model_boots(m, i);
	ck_assert_uint_eq(total, boots);
	/* Stopping brings back a link a flap holds down. */
	b.enabled = false;
	ck_assert_int_eq(sim_model_set_background(m, &b), 0);
	for (size_t p = 0; p < sim_topo_n_ports(t); p++)
		if (sim_topo_port(t, p)->peer)
			ck_assert(sim_model_link_up(m, p));
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(fcs_errors_follow_the_load_on_a_few_links)
{
	struct sim_topo *t = demo();
	struct sim_model_background b;
	sim_model_background_defaults(&b);
	b.flap_mean_s = b.reboot_mean_s = 0;
	b.error_link_fraction = 0.5;
	struct sim_model *m = loaded(t, 11, &b);
	steps(m, 5 * MINUTE_S * 10);
	unsigned ends = 0, links = 0;
	for (size_t p = 0; p < sim_topo_n_ports(t); p++) {
		const struct sim_port *pt = sim_topo_port(t, p);
		struct sim_model_switch_port s;
		struct sim_model_nic_port n;
		uint64_t e, peer_e;
		if (!pt->peer)
			continue;
		links++;
		if (sim_model_read_switch_port(m, p, &s) == 0)
			e = s.in_errors;
		else if (sim_model_read_nic_port(m, p, &n) == 0)
			e = n.rx_crc_errors_phy;
		else
			continue;
		if (!e)
			continue;
		ends++;
		/* At most 1/s at full load; one end of a link. */
		ck_assert_uint_le(e, 5 * MINUTE_S + 60);
		if (sim_model_read_switch_port(m, pt->peer->id, &s) == 0)
			peer_e = s.in_errors;
		else {
			ck_assert_int_eq(
			    sim_model_read_nic_port(m, pt->peer->id, &n), 0);
			peer_e = n.rx_crc_errors_phy;
		}
		ck_assert_uint_eq(peer_e, 0);
	}
	ck_assert_uint_ge(ends, 2);
	ck_assert_uint_le(ends, links / 2);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

static Suite *sim_bg_suite(void)
{
	Suite *s = suite_create("sim_bg");
	TCase *tc = tcase_create("background");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, background_is_off_until_set);
	tcase_add_test(tc, same_seed_same_background_bit_for_bit);
	tcase_add_test(tc, microbursts_and_discards_land_in_their_ranges);
	tcase_add_test(tc, flaps_and_reboots_are_single_spaced_and_logged);
	tcase_add_test(tc, fcs_errors_follow_the_load_on_a_few_links);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_bg_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
