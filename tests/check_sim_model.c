/*
 * check_sim_model: fabsim's counter model keeps consistent physics. Over
 * runs of hundreds of 100 ms ticks on generated and example fabrics:
 * counters never go backwards except across a reboot of their switch,
 * pause time per tick never exceeds the tick, a continuously paused
 * 400G priority receives the 11,921 XOFF refreshes per second of the
 * quanta table; a healthy all-reduce stays clean, an incast marks ECN
 * and DCQCN cuts its senders, a stalled NIC pauses its leaf and the
 * pause spreads over topology neighbours until stall prevention fires,
 * mis-set ECN thresholds give pause without marks, small headroom drops
 * on the lossless priority, a NIC without DCQCN receives CE and sends
 * no CNP, a link flap and a reboot are counted, 32-bit q-counters wrap,
 * a cyclic buffer dependency stays deadlocked, PFC on a lossy priority
 * is counted but not obeyed, a seed replays bit for bit, and a counter
 * base shifts what switches report, not what the model does.
 *
 * Examples live in $top_srcdir/sim/topologies ($top_srcdir defaults to
 * ".").
 */
#include "config.h"

#include "model.h"
#include "topo.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK   100000000ull /* 100 ms */
#define TICK_S 0.1

static char err[1024];

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

/* 2 spines, 2 leaves (one rail), 8 hosts: host0-3 on leaf0, 4-7 on
 * leaf1; all 400G. */
static struct sim_topo *small(void)
{
	struct sim_topo_gen g = {
		.spines = 2, .leaves = 2, .hosts = 8, .nics = 1
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	return t;
}

static struct sim_model *model(const struct sim_topo *t, uint64_t seed)
{
	struct sim_model *m = sim_model_new(t, seed, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	return m;
}

/* NIC k of host h. */
static size_t nic(const struct sim_topo *t, size_t h, size_t k)
{
	return sim_topo_tier_node(t, SIM_NODE_HOST, h)->ports[k].id;
}

/* The port of node a cabled to node b. */
static size_t link_port(const struct sim_topo *t, const char *a, const char *b)
{
	const struct sim_node *n = sim_topo_find_node(t, a);
	ck_assert_ptr_nonnull(n);
	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i].peer &&
		    strcmp(n->ports[i].peer->node->name, b) == 0)
			return n->ports[i].id;
	ck_abort_msg("no link %s-%s", a, b);
	return 0;
}

static int flow(struct sim_model *m, size_t src, size_t dst, double gbps)
{
	struct sim_model_flow f = { src, dst, 3, gbps, NULL, 0 };
	int id = sim_model_add_flow(m, &f);
	ck_assert_int_ge(id, 0);
	return id;
}

static void set_nic(struct sim_model *m, size_t port, double drain, bool np,
		    uint32_t minor_ms, uint32_t crit_ms)
{
	struct sim_model_nic_cfg c;
	ck_assert_int_eq(sim_model_get_nic_cfg(m, port, &c), 0);
	c.rx_drain = drain;
	c.np_enabled = np;
	c.storm_minor_ms = minor_ms;
	c.storm_critical_ms = crit_ms;
	ck_assert_int_eq(sim_model_set_nic_cfg(m, port, &c), 0);
}

/* Every counter of every port, flattened, for comparisons. */
struct snap {
	size_t n;
	uint64_t *v;
	bool *gauge; /* not monotonic */
	size_t *port;
};

static void snap_take(const struct sim_topo *t, const struct sim_model *m,
		      struct snap *s)
{
	size_t cap = sim_topo_n_ports(t) * 256;
	if (!s->v) {
		s->v = calloc(cap, sizeof *s->v);
		s->gauge = calloc(cap, sizeof *s->gauge);
		s->port = calloc(cap, sizeof *s->port);
	}
	s->n = 0;
	for (size_t i = 0; i < sim_topo_n_ports(t); i++) {
		const uint64_t *w;
		size_t nw;
		struct sim_model_switch_port sp;
		struct sim_model_nic_port np;
		if (sim_model_read_switch_port(m, i, &sp) == 0) {
			w = (const uint64_t *)&sp;
			nw =
			    offsetof(struct sim_model_switch_port, link_up) / 8;
		} else {
			ck_assert_int_eq(sim_model_read_nic_port(m, i, &np), 0);
			/* Skip the 32-bit block: it may wrap. */
			w = &np.port_xmit_data;
			nw = (offsetof(struct sim_model_nic_port, link_up) -
			      offsetof(struct sim_model_nic_port,
				       port_xmit_data)) /
			     8;
			s->v[s->n] = np.np_ecn_marked_roce_packets;
			s->port[s->n++] = i;
			s->v[s->n] = np.np_cnp_sent;
			s->port[s->n++] = i;
			s->v[s->n] = np.rp_cnp_handled;
			s->port[s->n++] = i;
			s->v[s->n] = np.rp_cnp_ignored;
			s->port[s->n++] = i;
		}
		for (size_t k = 0; k < nw; k++) {
			bool g = false;
			if (w == (const uint64_t *)&sp) {
				size_t pr = k * 8 / sizeof(sp.prio[0]);
				size_t off = k * 8 % sizeof(sp.prio[0]);
				g = pr < SIM_MODEL_PRIOS &&
				    (off ==
				     offsetof(struct sim_model_switch_prio,
					      occupancy_bytes));
			}
			s->gauge[s->n] = g;
			s->port[s->n] = i;
			s->v[s->n++] = w[k];
		}
	}
}

static void snap_free(struct snap *s)
{
	free(s->v);
	free(s->gauge);
	free(s->port);
}

/* Pause durations of every port/priority grew by at most dt. */
static void check_pause_le_dt(const struct sim_topo *t,
			      const struct sim_model *m, uint64_t *prev_rx,
			      uint64_t *prev_tx)
{
	for (size_t i = 0; i < sim_topo_n_ports(t); i++)
		for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
			uint64_t rx, tx;
			struct sim_model_switch_port sp;
			struct sim_model_nic_port np;
			if (sim_model_read_switch_port(m, i, &sp) == 0) {
				rx = sp.prio[p].pfc_rx_pause_us;
				tx = sp.prio[p].pfc_tx_pause_us;
			} else {
				sim_model_read_nic_port(m, i, &np);
				rx = np.rx_prio_pause_duration[p];
				tx = np.tx_prio_pause_duration[p];
			}
			size_t k = i * SIM_MODEL_PRIOS + p;
			ck_assert_uint_le(rx - prev_rx[k], TICK / 1000 + 1);
			ck_assert_uint_le(tx - prev_tx[k], TICK / 1000 + 1);
			prev_rx[k] = rx;
			prev_tx[k] = tx;
		}
}

static struct sim_model_switch_port sw(const struct sim_model *m, size_t p)
{
	struct sim_model_switch_port o;
	ck_assert_int_eq(sim_model_read_switch_port(m, p, &o), 0);
	return o;
}

static struct sim_model_nic_port nc(const struct sim_model *m, size_t p)
{
	struct sim_model_nic_port o;
	ck_assert_int_eq(sim_model_read_nic_port(m, p, &o), 0);
	return o;
}

static void steps(struct sim_model *m, int n)
{
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(sim_model_step(m, TICK), 0);
}

/* A busy mix: all-reduce, incast, a stalled NIC with stall prevention,
 * a link flap, an injected lossy pause. */
static struct sim_model *busy(const struct sim_topo *t, uint64_t seed)
{
	struct sim_model *m = model(t, seed);
	size_t hosts = sim_topo_n_tier(t, SIM_NODE_HOST);
	for (size_t h = 0; h < hosts; h++)
		flow(m, nic(t, h, 0), nic(t, (h + 1) % hosts, 0), 300);
	for (size_t h = 2; h < hosts; h++)
		flow(m, nic(t, h, 0), nic(t, 1, 0), 200);
	set_nic(m, nic(t, 6, 0), 0, true, 850, 1000);
	ck_assert_int_eq(sim_model_inject_pause(m, nic(t, 5, 0), 1, 0.5), 0);
	return m;
}

static void busy_tick(const struct sim_topo *t, struct sim_model *m, int i)
{
	if (i == 100)
		sim_model_set_link(m, link_port(t, "leaf1", "spine0"), false);
	if (i == 130)
		sim_model_set_link(m, link_port(t, "leaf1", "spine0"), true);
	ck_assert_int_eq(sim_model_step(m, TICK), 0);
}

START_TEST(counters_never_go_backwards_and_pause_fits_in_the_tick)
{
	struct sim_topo *t = small();
	struct sim_model *m = busy(t, 7);
	struct snap a = { 0 }, b = { 0 };
	size_t n = sim_topo_n_ports(t) * SIM_MODEL_PRIOS;
	uint64_t *prx = calloc(n, 8), *ptx = calloc(n, 8);
	snap_take(t, m, &a);
	for (int i = 0; i < 300; i++) {
		busy_tick(t, m, i);
		snap_take(t, m, &b);
		ck_assert_uint_eq(a.n, b.n);
		for (size_t k = 0; k < a.n; k++)
			if (!a.gauge[k])
				ck_assert_msg(b.v[k] >= a.v[k],
					      "port %zu counter %zu went "
					      "back at tick %d",
					      a.port[k], k, i);
		check_pause_le_dt(t, m, prx, ptx);
		struct snap x = a;
		a = b;
		b = x;
	}
	free(prx);
	free(ptx);
	snap_free(&a);
	snap_free(&b);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(same_seed_same_counters)
{
	struct sim_topo *t = small();
	struct sim_model *m1 = busy(t, 42), *m2 = busy(t, 42);
	for (int i = 0; i < 200; i++) {
		busy_tick(t, m1, i);
		busy_tick(t, m2, i);
	}
	struct snap a = { 0 }, b = { 0 };
	snap_take(t, m1, &a);
	snap_take(t, m2, &b);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert_int_eq(memcmp(a.v, b.v, a.n * 8), 0);
	for (size_t i = 0; i < sim_model_n_flows(m1); i++)
		ck_assert(sim_model_flow_rate(m1, (int)i) ==
			  sim_model_flow_rate(m2, (int)i));
	snap_free(&a);
	snap_free(&b);
	sim_model_free(m1);
	sim_model_free(m2);
	sim_topo_free(t);
}
END_TEST

/* Words of a switch port's read that are gauges (not shifted by a
 * counter base): occupancy, watermark, the watchdog and link states. */
static bool gauge_word(size_t k)
{
	size_t pr = k * 8 / sizeof(struct sim_model_switch_prio);
	size_t off = k * 8 % sizeof(struct sim_model_switch_prio);
	if (k * 8 >= offsetof(struct sim_model_switch_port, link_up))
		return true;
	return pr < SIM_MODEL_PRIOS &&
	       (off ==
		    offsetof(struct sim_model_switch_prio, occupancy_bytes) ||
		off ==
		    offsetof(struct sim_model_switch_prio, watermark_bytes) ||
		off >= offsetof(struct sim_model_switch_prio, pfcwd_stormed));
}

START_TEST(counter_base_shifts_switch_counters_only_until_reboot)
{
	struct sim_topo *t = small();
	const uint64_t base = (1ull << 32) - 1000;
	struct sim_model *m1 = busy(t, 42), *m2 = busy(t, 42);
	sim_model_set_counter_base(m2, base);
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	size_t spine0 = sim_topo_find_node(t, "spine0")->id;
	ck_assert_uint_eq(sim_model_counter_base(m2, leaf0), base);
	ck_assert_uint_eq(sim_model_counter_base(
			      m2, sim_topo_port(t, nic(t, 0, 0))->node->id),
			  0);
	ck_assert_uint_eq(sim_model_counter_base(m1, leaf0), 0);
	for (int i = 0; i < 150; i++) {
		busy_tick(t, m1, i);
		busy_tick(t, m2, i);
	}
	size_t nw = offsetof(struct sim_model_switch_port, link_up) / 8 + 1;
	size_t moved = 0;
	for (size_t i = 0; i < sim_topo_n_ports(t); i++) {
		struct sim_model_switch_port a, b;
		if (sim_model_read_switch_port(m1, i, &a) != 0) {
			struct sim_model_nic_port x = nc(m1, i), y = nc(m2, i);
			ck_assert_int_eq(memcmp(&x, &y, sizeof x), 0);
			continue;
		}
		b = sw(m2, i);
		const uint64_t *wa = (const uint64_t *)&a;
		const uint64_t *wb = (const uint64_t *)&b;
		for (size_t k = 0; k < nw; k++) {
			uint64_t want = gauge_word(k) ? wa[k] : wa[k] + base;
			ck_assert_msg(wb[k] == want,
				      "port %zu word %zu: %llu, want %llu", i,
				      k, (unsigned long long)wb[k],
				      (unsigned long long)want);
		}
		/* The 32-bit view wraps once the port has counted 1000. */
		if (a.in_octets > 1000) {
			ck_assert_uint_lt((uint32_t)b.in_octets, a.in_octets);
			moved++;
		}
	}
	ck_assert_uint_gt(moved, 0);
	for (size_t f = 0; f < sim_model_n_flows(m1); f++)
		ck_assert(sim_model_flow_rate(m1, (int)f) ==
			  sim_model_flow_rate(m2, (int)f));
	/* A reboot drops the base of that switch only. */
	size_t p = sim_topo_port(t, nic(t, 1, 0))->peer->id;
	ck_assert_int_eq(sim_model_reboot(m2, leaf0), 0);
	ck_assert_uint_eq(sim_model_counter_base(m2, leaf0), 0);
	ck_assert_uint_eq(sim_model_counter_base(m2, spine0), base);
	ck_assert_uint_eq(sw(m2, p).out_octets, 0);
	ck_assert_uint_eq(sw(m2, p).prio[3].pfc_rx_frames, 0);
	steps(m2, 5);
	ck_assert_uint_gt(sw(m2, p).out_octets, 0);
	/* At most five ticks at 400G: no base left. */
	ck_assert_uint_le(sw(m2, p).out_octets,
			  (uint64_t)(400e9 / 8 * 5 * TICK_S));
	sim_model_free(m1);
	sim_model_free(m2);
	sim_topo_free(t);
}
END_TEST

START_TEST(continuously_paused_400g_priority_gets_11921_frames_per_second)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	flow(m, nic(t, 1, 0), nic(t, 0, 0), 100);
	set_nic(m, nic(t, 0, 0), 0, true, 0, 0);
	size_t leaf_port = sim_topo_port(t, nic(t, 0, 0))->peer->id;
	steps(m, 10);
	struct sim_model_switch_port a = sw(m, leaf_port);
	struct sim_model_nic_port na = nc(m, nic(t, 0, 0));
	steps(m, 100);
	struct sim_model_switch_port b = sw(m, leaf_port);
	struct sim_model_nic_port nb = nc(m, nic(t, 0, 0));
	double fps = (b.prio[3].pfc_rx_frames - a.prio[3].pfc_rx_frames) / 10.0;
	ck_assert_msg(fps > 11921 * 0.98 && fps < 11921 * 1.02, "%f", fps);
	ck_assert_uint_eq(nb.tx_prio_pause[3] - na.tx_prio_pause[3],
			  b.prio[3].pfc_rx_frames - a.prio[3].pfc_rx_frames);
	ck_assert_uint_eq(b.prio[3].pfc_rx_pause_us - a.prio[3].pfc_rx_pause_us,
			  10000000);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(healthy_all_reduce_at_high_load_is_clean)
{
	struct sim_topo_gen g = {
		.spines = 4, .leaves = 8, .hosts = 32, .nics = 4
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_ptr_nonnull(t);
	struct sim_model *m = model(t, 3);
	for (size_t h = 0; h < 32; h++)
		for (size_t k = 0; k < 4; k++)
			flow(m, nic(t, h, k), nic(t, (h + 1) % 32, k), 360);
	steps(m, 300);
	uint64_t rx = 0;
	for (size_t i = 0; i < sim_topo_n_ports(t); i++) {
		struct sim_model_switch_port s;
		if (sim_model_read_switch_port(m, i, &s) == 0) {
			for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
				ck_assert_uint_eq(s.prio[p].pfc_rx_frames, 0);
				ck_assert_uint_eq(s.prio[p].pfc_tx_pause_us, 0);
				ck_assert_uint_eq(s.prio[p].queue_drops, 0);
				ck_assert_uint_eq(s.prio[p].pg_drops, 0);
				ck_assert_uint_eq(s.prio[p].ecn_marked, 0);
			}
			ck_assert_uint_eq(s.in_discards + s.out_discards, 0);
			continue;
		}
		struct sim_model_nic_port n = nc(m, i);
		ck_assert_uint_eq(n.np_ecn_marked_roce_packets, 0);
		ck_assert_uint_eq(n.rx_discards_phy, 0);
		ck_assert_uint_eq(n.tx_prio_pause[3] + n.rx_prio_pause[3], 0);
		rx += n.port_rcv_data * 4;
	}
	/* 128 flows x 45 GB/s x 30 s delivered. */
	double want = 128 * 45e9 * 30;
	ck_assert_msg(rx > want * 0.99 && rx < want * 1.01, "%llu",
		      (unsigned long long)rx);
	for (size_t i = 0; i < sim_model_n_flows(m); i++)
		ck_assert(sim_model_flow_rate(m, (int)i) == 360);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(incast_marks_ecn_and_dcqcn_cuts_the_senders)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t k = 6, rcv = nic(t, 0, 0);
	int ids[8];
	for (size_t i = 0; i < k; i++)
		ids[i] = flow(m, nic(t, i + 2, 0), rcv, 400);
	steps(m, 300);
	size_t leaf_port = sim_topo_port(t, rcv)->peer->id;
	struct sim_model_switch_port s = sw(m, leaf_port);
	ck_assert_uint_gt(s.prio[3].ecn_marked, 0);
	ck_assert_uint_gt(s.prio[3].watermark_bytes, 100 * 1024);
	struct sim_model_nic_port r = nc(m, rcv);
	ck_assert_uint_gt(r.np_ecn_marked_roce_packets, 0);
	ck_assert_uint_gt(r.np_cnp_sent, 0);
	size_t handled = 0;
	double sum = 0;
	for (size_t i = 0; i < k; i++) {
		if (nc(m, nic(t, i + 2, 0)).rp_cnp_handled > 0)
			handled++;
		double rate = sim_model_flow_rate(m, ids[i]);
		ck_assert_double_lt(rate, 400);
		sum += rate;
	}
	ck_assert_uint_ge(handled, k);
	/* Settled near the receiver's line rate, not k times it. */
	ck_assert_double_lt(sum, 2 * 400);
	ck_assert_uint_eq(s.prio[3].pg_drops + s.prio[3].queue_drops, 0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

/* Host 0's NIC (on leaf0) stalls; hosts 4-7 (leaf1) send to it. */
START_TEST(nic_rx_stall_pauses_its_leaf_and_spreads_over_neighbours)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t rcv = nic(t, 0, 0);
	for (size_t h = 4; h < 8; h++)
		flow(m, nic(t, h, 0), rcv, 50);
	flow(m, nic(t, 5, 0), nic(t, 1, 0), 50); /* a victim */
	set_nic(m, rcv, 1, true, 850, 1000);
	steps(m, 5);
	set_nic(m, rcv, 0, true, 850, 1000);
	size_t np = sim_topo_n_ports(t);
	uint64_t *rx0 = calloc(np, 8), *tx0 = calloc(np, 8);
	for (size_t i = 0; i < np; i++) {
		struct sim_model_switch_port s;
		struct sim_model_nic_port n;
		if (sim_model_read_switch_port(m, i, &s) == 0) {
			rx0[i] = s.prio[3].pfc_rx_pause_us;
			tx0[i] = s.prio[3].pfc_tx_pause_us;
		} else {
			n = nc(m, i);
			rx0[i] = n.rx_prio_pause_duration[3];
			tx0[i] = n.tx_prio_pause_duration[3];
		}
	}
	steps(m, 8); /* 0.8 s: before the 850 ms warning */
	struct sim_model_nic_port r = nc(m, rcv);
	ck_assert_uint_ge(r.tx_prio_pause_duration[3] - tx0[rcv], 790000);
	ck_assert_uint_eq(r.tx_pause_storm_warning_events, 0);
	size_t leaf_port = sim_topo_port(t, rcv)->peer->id;
	ck_assert_uint_ge(
	    sw(m, leaf_port).prio[3].pfc_rx_pause_us - rx0[leaf_port], 790000);
	/* Every paused port is paused by its cable's other end, by as
	   much as that end says it paused it. */
	size_t paused = 0;
	for (size_t i = 0; i < np; i++) {
		const struct sim_port *p = sim_topo_port(t, i);
		struct sim_model_switch_port s;
		uint64_t rx, ptx;
		if (sim_model_read_switch_port(m, i, &s) == 0)
			rx = s.prio[3].pfc_rx_pause_us - rx0[i];
		else
			rx = nc(m, i).rx_prio_pause_duration[3] - rx0[i];
		if (!rx)
			continue;
		paused++;
		ck_assert_ptr_nonnull(p->peer);
		size_t q = p->peer->id;
		if (sim_model_read_switch_port(m, q, &s) == 0)
			ptx = s.prio[3].pfc_tx_pause_us - tx0[q];
		else
			ptx = nc(m, q).tx_prio_pause_duration[3] - tx0[q];
		ck_assert_uint_le(rx > ptx ? rx - ptx : ptx - rx, 1);
	}
	/* Hop by hop: leaf0 pauses both spines, the spines pause leaf1,
	   leaf1 pauses the senders. */
	ck_assert_uint_gt(paused, 6);
	const char *sp[] = { "spine0", "spine1" };
	for (int i = 0; i < 2; i++) {
		size_t up = link_port(t, "leaf0", sp[i]);
		ck_assert_uint_gt(sw(m, up).prio[3].pfc_tx_pause_us - tx0[up],
				  0);
		size_t down = link_port(t, sp[i], "leaf1");
		ck_assert_uint_gt(
		    sw(m, down).prio[3].pfc_tx_pause_us - tx0[down], 0);
	}
	ck_assert_uint_gt(nc(m, nic(t, 4, 0)).rx_prio_pause_duration[3], 0);
	/* Stall prevention: warning past 850 ms, error past 1 s, then the
	   NIC stops pausing and drops. */
	steps(m, 1);
	ck_assert_uint_eq(nc(m, rcv).tx_pause_storm_warning_events, 1);
	ck_assert_uint_eq(nc(m, rcv).tx_pause_storm_error_events, 0);
	steps(m, 3);
	r = nc(m, rcv);
	ck_assert_uint_eq(r.tx_pause_storm_warning_events, 1);
	ck_assert_uint_eq(r.tx_pause_storm_error_events, 1);
	uint64_t before = r.tx_prio_pause_duration[3];
	steps(m, 10);
	r = nc(m, rcv);
	ck_assert_uint_eq(r.tx_prio_pause_duration[3], before);
	ck_assert_uint_gt(r.rx_prio_discards[3], 0);
	ck_assert_uint_gt(r.rx_discards_phy, 0);
	ck_assert_uint_gt(r.out_of_buffer, 0);
	free(rx0);
	free(tx0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(ecn_thresholds_above_xoff_give_pause_without_marks)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	for (size_t i = 0; i < sim_topo_n_tier(t, SIM_NODE_LEAF); i++) {
		size_t id = sim_topo_tier_node(t, SIM_NODE_LEAF, i)->id;
		struct sim_model_switch_cfg c;
		ck_assert_int_eq(sim_model_get_switch_cfg(m, id, &c), 0);
		c.ecn_kmin = 64ull << 20;
		c.ecn_kmax = 128ull << 20;
		ck_assert_int_eq(sim_model_set_switch_cfg(m, id, &c), 0);
	}
	size_t rcv = nic(t, 0, 0);
	flow(m, nic(t, 1, 0), rcv, 400);
	flow(m, nic(t, 2, 0), rcv, 400);
	steps(m, 200);
	struct sim_model_switch_port s = sw(m, sim_topo_port(t, rcv)->peer->id);
	ck_assert_uint_eq(s.prio[3].ecn_marked, 0);
	ck_assert_uint_eq(nc(m, rcv).np_ecn_marked_roce_packets, 0);
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).rx_prio_pause_duration[3],
			  1000000);
	ck_assert_uint_gt(sw(m, sim_topo_port(t, nic(t, 1, 0))->peer->id)
			      .prio[3]
			      .pfc_tx_frames,
			  0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(sane_ecn_marks_come_no_later_than_pause)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t rcv = nic(t, 0, 0);
	size_t lp = sim_topo_port(t, rcv)->peer->id;
	for (size_t h = 1; h < 4; h++)
		flow(m, nic(t, h, 0), rcv, 150);
	int first_mark = -1, first_pause = -1;
	for (int i = 0; i < 100; i++) {
		steps(m, 1);
		struct sim_model_switch_port s = sw(m, lp);
		if (first_mark < 0 && s.prio[3].ecn_marked)
			first_mark = i;
		for (size_t h = 1; h < 4; h++)
			if (first_pause < 0 &&
			    nc(m, nic(t, h, 0)).rx_prio_pause_duration[3])
				first_pause = i;
	}
	ck_assert_int_ge(first_mark, 0);
	ck_assert(first_pause < 0 || first_mark <= first_pause);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(small_headroom_drops_on_the_lossless_priority)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	struct sim_model_switch_cfg c;
	sim_model_get_switch_cfg(m, leaf0, &c);
	c.headroom = 8 * 1024;
	ck_assert_int_eq(sim_model_set_switch_cfg(m, leaf0, &c), 0);
	size_t rcv = nic(t, 0, 0);
	flow(m, nic(t, 1, 0), rcv, 400);
	flow(m, nic(t, 2, 0), rcv, 400);
	steps(m, 100);
	size_t in = sim_topo_port(t, nic(t, 1, 0))->peer->id;
	struct sim_model_switch_port s = sw(m, in);
	ck_assert_uint_gt(s.prio[3].pg_drops, 0);
	ck_assert_uint_gt(s.in_discards, 0);
	ck_assert_uint_gt(nc(m, rcv).out_of_sequence, 0);
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).packet_seq_err, 0);
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).roce_adp_retrans, 0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(headroom_drops_leave_the_queue_pfc_holds)
{
	/* The drops of a too small headroom come out of what PFC held
	   back: the congested egress keeps its standing queue (and marks
	   ECN), it is not emptied by them. */
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	struct sim_model_switch_cfg c;
	sim_model_get_switch_cfg(m, leaf0, &c);
	c.headroom = 8 * 1024;
	ck_assert_int_eq(sim_model_set_switch_cfg(m, leaf0, &c), 0);
	size_t rcv = nic(t, 0, 0), out = sim_topo_port(t, rcv)->peer->id;
	flow(m, nic(t, 1, 0), rcv, 400);
	flow(m, nic(t, 2, 0), rcv, 400);
	steps(m, 1);
	struct sim_model_switch_port s = sw(m, out);
	ck_assert_uint_ge(s.prio[3].occupancy_bytes, c.ecn_kmin);
	ck_assert_uint_gt(s.prio[3].ecn_marked, 0);
	/* The receiver got line rate: the drops were on top of it. */
	ck_assert_uint_ge(s.prio[3].tx_bytes, 400e9 / 8 * TICK_S * 0.99);
	size_t in = sim_topo_port(t, nic(t, 1, 0))->peer->id;
	ck_assert_uint_gt(sw(m, in).prio[3].pg_drops, 0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(pfc_watchdog_drops_a_stormed_queue_and_restores)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	size_t rcv = nic(t, 0, 0), out = sim_topo_port(t, rcv)->peer->id;
	struct sim_model_switch_cfg c;
	sim_model_get_switch_cfg(m, leaf0, &c);
	ck_assert_uint_eq(c.pfcwd_detect_ms, 0);
	c.pfcwd_detect_ms = 300;
	c.pfcwd_restore_ms = 200;
	ck_assert_int_eq(sim_model_set_switch_cfg(m, leaf0, &c), 0);
	flow(m, nic(t, 1, 0), rcv, 100);
	steps(m, 5);
	ck_assert_uint_eq(sw(m, out).prio[3].pfcwd_storms, 0);
	/* The NIC stalls (no stall prevention): leaf0's port to it is
	   paused all the time with bytes queued; after 300 ms the
	   watchdog fires. */
	set_nic(m, rcv, 0, true, 0, 0);
	steps(m, 2);
	struct sim_model_switch_port a = sw(m, out);
	ck_assert_uint_eq(a.prio[3].pfcwd_storms, 0);
	ck_assert(!a.prio[3].pfcwd_stormed);
	steps(m, 1);
	a = sw(m, out);
	ck_assert_uint_eq(a.prio[3].pfcwd_storms, 1);
	ck_assert(a.prio[3].pfcwd_stormed);
	/* Stormed: it drops what it holds and what arrives, so the sender
	   is no longer paused. */
	steps(m, 5);
	struct sim_model_switch_port b = sw(m, out);
	ck_assert_uint_gt(b.prio[3].pfcwd_drops, a.prio[3].pfcwd_drops);
	ck_assert_uint_ge(b.prio[3].queue_drops, b.prio[3].pfcwd_drops);
	ck_assert_uint_eq(b.prio[3].occupancy_bytes, 0);
	size_t in = sim_topo_port(t, nic(t, 1, 0))->peer->id;
	uint64_t p0 = sw(m, in).prio[3].pfc_tx_pause_us;
	steps(m, 3);
	ck_assert_uint_eq(sw(m, in).prio[3].pfc_tx_pause_us, p0);
	/* Still paused by the NIC: no restoration. The NIC recovers, the
	   pause stops, 200 ms later the queue is restored. */
	ck_assert(sw(m, out).prio[3].pfcwd_stormed);
	set_nic(m, rcv, 1, true, 0, 0);
	steps(m, 4);
	b = sw(m, out);
	ck_assert(!b.prio[3].pfcwd_stormed);
	ck_assert_uint_eq(b.prio[3].pfcwd_restores, 1);
	uint64_t drops = b.prio[3].pfcwd_drops;
	steps(m, 10);
	ck_assert_uint_eq(sw(m, out).prio[3].pfcwd_drops, drops);
	ck_assert_uint_gt(nc(m, rcv).rx_prio_bytes[3], 0);
	/* A watchdog needs a restoration time. */
	c.pfcwd_restore_ms = 0;
	ck_assert_int_eq(sim_model_set_switch_cfg(m, leaf0, &c), -EINVAL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(dcqcn_disabled_nic_receives_ce_and_sends_no_cnp)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t rcv = nic(t, 0, 0);
	set_nic(m, rcv, 1, false, 6800, 8000);
	int a = flow(m, nic(t, 1, 0), rcv, 400);
	flow(m, nic(t, 2, 0), rcv, 400);
	steps(m, 100);
	struct sim_model_nic_port r = nc(m, rcv);
	ck_assert_uint_gt(r.np_ecn_marked_roce_packets, 0);
	ck_assert_uint_eq(r.np_cnp_sent, 0);
	ck_assert_uint_eq(nc(m, nic(t, 1, 0)).rp_cnp_handled, 0);
	ck_assert(sim_model_flow_rate(m, a) == 400);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(ignored_cnps_are_counted_and_do_not_cut_the_rate)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t rcv = nic(t, 0, 0), s1 = nic(t, 1, 0);
	struct sim_model_nic_cfg c;
	sim_model_get_nic_cfg(m, s1, &c);
	c.rp_ignore_cnp = true;
	sim_model_set_nic_cfg(m, s1, &c);
	int a = flow(m, s1, rcv, 400);
	flow(m, nic(t, 2, 0), rcv, 400);
	steps(m, 100);
	ck_assert_uint_gt(nc(m, s1).rp_cnp_ignored, 0);
	ck_assert_uint_eq(nc(m, s1).rp_cnp_handled, 0);
	ck_assert(sim_model_flow_rate(m, a) == 400);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(link_flap_counts_events_and_reroutes)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	int f = flow(m, nic(t, 0, 0), nic(t, 4, 0), 100);
	steps(m, 10);
	const size_t *path;
	size_t n;
	ck_assert_int_eq(sim_model_flow_path(m, f, &path, &n), 0);
	ck_assert_uint_eq(n, 4);
	size_t up = path[1];
	const char *spine = sim_topo_port(t, up)->peer->node->name;
	ck_assert_int_eq(sim_model_set_link(m, up, false), 0);
	ck_assert(!sim_model_link_up(m, up));
	steps(m, 10);
	ck_assert_int_eq(sim_model_flow_path(m, f, &path, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_ne(sim_topo_port(t, path[1])->peer->node->name, spine);
	struct sim_model_switch_port s = sw(m, up);
	ck_assert(!s.link_up);
	ck_assert_uint_eq(s.link_down_events, 1);
	uint64_t tx = s.out_octets;
	steps(m, 10);
	ck_assert_uint_eq(sw(m, up).out_octets, tx);
	ck_assert_int_eq(sim_model_set_link(m, up, true), 0);
	steps(m, 1);
	s = sw(m, up);
	ck_assert(s.link_up);
	ck_assert_uint_eq(s.link_up_events, 1);
	ck_assert_uint_eq(
	    sw(m, sim_topo_port(t, up)->peer->id).link_down_events, 1);
	/* A NIC's own link: the flow stops, the NIC counts it. */
	ck_assert_int_eq(sim_model_set_link(m, nic(t, 0, 0), false), 0);
	steps(m, 5);
	ck_assert_int_eq(sim_model_flow_path(m, f, &path, &n), 0);
	ck_assert_uint_eq(n, 0);
	struct sim_model_nic_port x = nc(m, nic(t, 0, 0));
	ck_assert_uint_eq(x.link_down_events_phy, 1);
	ck_assert(!x.link_up);
	ck_assert_uint_gt(x.tx_discards_phy, 0);
	ck_assert_int_eq(sim_model_set_link(m, 999999, false), -EINVAL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(reboot_restarts_the_switch_counters_from_zero)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	flow(m, nic(t, 0, 0), nic(t, 1, 0), 200);
	size_t p = sim_topo_port(t, nic(t, 1, 0))->peer->id;
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	steps(m, 50);
	uint64_t before = sw(m, p).out_octets;
	ck_assert_uint_gt(before, 0);
	ck_assert_uint_eq(sim_model_boots(m, leaf0), 0);
	ck_assert_int_eq(sim_model_reboot(m, leaf0), 0);
	ck_assert_uint_eq(sw(m, p).out_octets, 0);
	ck_assert_uint_eq(sim_model_boots(m, leaf0), 1);
	ck_assert_uint_eq(sim_model_boot_ns(m, leaf0), 50 * TICK);
	steps(m, 1);
	uint64_t one = sw(m, p).out_octets;
	ck_assert_uint_gt(one, 0);
	ck_assert_uint_lt(one, before / 10);
	steps(m, 10);
	ck_assert_uint_gt(sw(m, p).out_octets, one);
	/* The NIC did not reboot. */
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).port_rcv_data * 4, before);
	ck_assert_int_eq(sim_model_reboot(m, nic(t, 0, 0) + 1000), -EINVAL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(q_counters_wrap_modulo_2_32)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t rcv = nic(t, 0, 0);
	/* Stall prevention fired: the NIC drops all it receives, ~12 M
	   out_of_buffer per second at 400G. */
	set_nic(m, rcv, 0, true, 80, 100);
	flow(m, nic(t, 1, 0), rcv, 400);
	uint64_t total = 0;
	uint32_t prev = 0;
	bool wrapped = false;
	for (int i = 0; i < 4000 && !wrapped; i++) {
		steps(m, 1);
		uint32_t cur = nc(m, rcv).out_of_buffer;
		total += (uint32_t)(cur - prev);
		if (cur < prev)
			wrapped = true;
		prev = cur;
	}
	ck_assert(wrapped);
	ck_assert_uint_gt(total, 1ull << 32);
	ck_assert_uint_eq(total & 0xffffffffull, prev);
	/* 64-bit counters do not wrap. */
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).port_xmit_data, 1ull << 32);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(cyclic_buffer_dependency_deadlocks)
{
	struct sim_topo *t = sim_topo_load(
	    srcpath("sim/topologies/miswired.yaml"), err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	struct sim_model *m = model(t, 1);
	size_t a1b1 = link_port(t, "leaf-a1", "leaf-b1");
	size_t b1sa = link_port(t, "leaf-b1", "spine-a");
	size_t saa1 = link_port(t, "spine-a", "leaf-a1");
	size_t sa_a0 = link_port(t, "spine-a", "leaf-a0");
	size_t a0sa = link_port(t, "leaf-a0", "spine-a");
	size_t g1n1 = sim_topo_find_port(t, "gpu01", "mlx5_1")->id;
	size_t g1n0 = sim_topo_find_port(t, "gpu01", "mlx5_0")->id;
	size_t g2n0 = sim_topo_find_port(t, "gpu02", "mlx5_0")->id;
	size_t g3n1 = sim_topo_find_port(t, "gpu03", "mlx5_1")->id;
	size_t g4n1 = sim_topo_find_port(t, "gpu04", "mlx5_1")->id;
	size_t pa[] = { g1n1, a1b1, b1sa, sa_a0,
			sim_topo_port(t, g2n0)->peer->id };
	size_t pb[] = { g3n1, b1sa, saa1, sim_topo_port(t, g1n1)->peer->id };
	size_t pc[] = { g1n0, a0sa, saa1, a1b1,
			sim_topo_port(t, g4n1)->peer->id };
	struct sim_model_flow fa = { g1n1, g2n0, 3, 400, pa, 5 };
	struct sim_model_flow fb = { g3n1, g1n1, 3, 400, pb, 4 };
	struct sim_model_flow fc = { g1n0, g4n1, 3, 400, pc, 5 };
	int ia = sim_model_add_flow(m, &fa), ib = sim_model_add_flow(m, &fb),
	    ic = sim_model_add_flow(m, &fc);
	ck_assert_int_ge(ia, 0);
	ck_assert_int_ge(ib, 0);
	ck_assert_int_ge(ic, 0);
	steps(m, 20);
	/* Traffic stops; the cycle stays paused with no progress. */
	sim_model_set_flow_demand(m, ia, 0);
	sim_model_set_flow_demand(m, ib, 0);
	sim_model_set_flow_demand(m, ic, 0);
	steps(m, 5);
	size_t cyc[] = { a1b1, b1sa, saa1 };
	struct sim_model_switch_port a[3], b[3];
	for (int i = 0; i < 3; i++)
		a[i] = sw(m, cyc[i]);
	steps(m, 100);
	for (int i = 0; i < 3; i++) {
		b[i] = sw(m, cyc[i]);
		ck_assert_uint_eq(b[i].prio[3].tx_bytes, a[i].prio[3].tx_bytes);
		ck_assert_uint_gt(b[i].prio[3].occupancy_bytes, 0);
		ck_assert_uint_eq(b[i].prio[3].pfc_rx_pause_us -
				      a[i].prio[3].pfc_rx_pause_us,
				  10000000);
	}
	/* A bad path is refused. */
	struct sim_model_flow bad = { g1n1, g2n0, 3, 1, pb, 4 };
	ck_assert_int_eq(sim_model_add_flow(m, &bad), -EINVAL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(pfc_on_a_lossy_priority_is_counted_not_obeyed)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	size_t s = nic(t, 1, 0), leaf = sim_topo_port(t, s)->peer->id;
	struct sim_model_flow f = { nic(t, 0, 0), s, 1, 200, NULL, 0 };
	ck_assert_int_ge(sim_model_add_flow(m, &f), 0);
	ck_assert_int_eq(sim_model_inject_pause(m, s, 1, 1.0), 0);
	steps(m, 20);
	struct sim_model_switch_port p = sw(m, leaf);
	ck_assert_uint_eq(p.prio[1].pfc_rx_pause_us, 2000000);
	ck_assert_uint_gt(p.prio[1].pfc_rx_frames, 20 * 1192);
	ck_assert_uint_eq(nc(m, s).tx_prio_pause_duration[1], 2000000);
	/* Still forwarding at full demand. */
	double got = nc(m, s).rx_prio_bytes[1];
	ck_assert_double_gt(got, 25e9 * 2 * 0.99);
	ck_assert_int_eq(sim_model_inject_pause(m, s, 9, 1.0), -EINVAL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(a_quiet_start_then_traffic_steps_cleanly)
{
	/* Ticks before any flow exists, then traffic: scenarios start
	 * quiet and add flows at their events. */
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	steps(m, 5);
	ck_assert_uint_eq(nc(m, nic(t, 1, 0)).port_rcv_data, 0);
	struct sim_model_flow f = {
		nic(t, 0, 0), nic(t, 1, 0), 3, 100, NULL, 0
	};
	ck_assert_int_ge(sim_model_add_flow(m, &f), 0);
	steps(m, 10);
	ck_assert_uint_gt(nc(m, nic(t, 1, 0)).port_rcv_data, 0);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(knobs_refuse_bad_settings)
{
	struct sim_topo *t = small();
	struct sim_model *m = model(t, 1);
	struct sim_model_flow f = { nic(t, 0, 0), nic(t, 0, 0), 3, 1, NULL, 0 };
	ck_assert_int_eq(sim_model_add_flow(m, &f), -EINVAL);
	f.dst = sim_topo_port(t, nic(t, 0, 0))->peer->id;
	ck_assert_int_eq(sim_model_add_flow(m, &f), -EINVAL);
	f.dst = nic(t, 1, 0);
	f.prio = 8;
	ck_assert_int_eq(sim_model_add_flow(m, &f), -EINVAL);
	size_t leaf0 = sim_topo_find_node(t, "leaf0")->id;
	struct sim_model_switch_cfg c;
	sim_model_get_switch_cfg(m, leaf0, &c);
	c.xon = c.xoff;
	ck_assert_int_eq(sim_model_set_switch_cfg(m, leaf0, &c), -EINVAL);
	ck_assert_int_eq(sim_model_get_switch_cfg(
			     m, sim_topo_port(t, nic(t, 0, 0))->node->id, &c),
			 -EINVAL);
	struct sim_model_nic_cfg n;
	ck_assert_int_eq(sim_model_get_nic_cfg(m, f.src, &n), 0);
	n.rx_drain = 2;
	ck_assert_int_eq(sim_model_set_nic_cfg(m, f.src, &n), -EINVAL);
	ck_assert_int_eq(sim_model_step(m, 0), -EINVAL);
	ck_assert_int_eq(sim_model_step(m, SIM_MODEL_MAX_TICK_NS + 1), -EINVAL);
	struct sim_model_nic_port np;
	ck_assert_int_eq(sim_model_read_nic_port(m, f.dst - 100, &np),
			 f.dst >= 100 ? 0 : -EINVAL);
	struct sim_model_switch_port sp;
	ck_assert_int_eq(sim_model_read_switch_port(m, f.src, &sp), -EINVAL);
	ck_assert_ptr_null(sim_model_new(NULL, 1, err, sizeof err));
	ck_assert_str_eq(err, "sim_model: no topology");
	sim_model_free(NULL);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

static Suite *sim_model_suite(void)
{
	Suite *s = suite_create("sim_model");
	TCase *tc = tcase_create("physics");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc,
		       counters_never_go_backwards_and_pause_fits_in_the_tick);
	tcase_add_test(tc, same_seed_same_counters);
	tcase_add_test(tc,
		       counter_base_shifts_switch_counters_only_until_reboot);
	tcase_add_test(
	    tc, continuously_paused_400g_priority_gets_11921_frames_per_second);
	tcase_add_test(tc, healthy_all_reduce_at_high_load_is_clean);
	tcase_add_test(tc, incast_marks_ecn_and_dcqcn_cuts_the_senders);
	tcase_add_test(
	    tc, nic_rx_stall_pauses_its_leaf_and_spreads_over_neighbours);
	tcase_add_test(tc, ecn_thresholds_above_xoff_give_pause_without_marks);
	tcase_add_test(tc, sane_ecn_marks_come_no_later_than_pause);
	tcase_add_test(tc, small_headroom_drops_on_the_lossless_priority);
	tcase_add_test(tc, headroom_drops_leave_the_queue_pfc_holds);
	tcase_add_test(tc, pfc_watchdog_drops_a_stormed_queue_and_restores);
	tcase_add_test(tc, dcqcn_disabled_nic_receives_ce_and_sends_no_cnp);
	tcase_add_test(tc, ignored_cnps_are_counted_and_do_not_cut_the_rate);
	tcase_add_test(tc, link_flap_counts_events_and_reroutes);
	tcase_add_test(tc, reboot_restarts_the_switch_counters_from_zero);
	tcase_add_test(tc, q_counters_wrap_modulo_2_32);
	tcase_add_test(tc, cyclic_buffer_dependency_deadlocks);
	tcase_add_test(tc, pfc_on_a_lossy_priority_is_counted_not_obeyed);
	tcase_add_test(tc, a_quiet_start_then_traffic_steps_cleanly);
	tcase_add_test(tc, knobs_refuse_bad_settings);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_model_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
