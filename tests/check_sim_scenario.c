/*
 * check_sim_scenario: fabsim's scenarios load with their truth, bad
 * files fail with exact file:line:col messages, and every shipped
 * scenario, run through the counter model at 100 ms ticks for its
 * duration, shows the signal its truth names at the named origin during
 * the named span and not outside it.
 *
 * Scenarios live in $top_srcdir/sim/scenarios ($top_srcdir defaults to
 * "."); bad files are written to $TMPDIR (default /tmp).
 */
#include "config.h"

#include "model.h"
#include "scenario.h"
#include "topo.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TICK 100000000ull /* 100 ms */

static char err[1024];

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

static const char *const shipped[] = {
	"healthy",	     "benign_bursts",  "incast",
	"nic_pfc_storm",     "lossless_drops", "dcqcn_disabled",
	"ecn_above_xoff",    "link_flap",      "switch_reboot",
	"pause_on_lossy",    "target_silent",  "target_refuse",
	"rail_misalignment",
};
#define N_SHIPPED (sizeof shipped / sizeof shipped[0])

static struct sim_scenario *load(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "sim/scenarios/%s.yaml", name);
	struct sim_scenario *s =
	    sim_scenario_load(srcpath(rel), err, sizeof err);
	ck_assert_msg(s != NULL, "%s", err);
	return s;
}

/* ---- Running a scenario ---- */

/* Per tick and port, on the lossless priority 3: pause time we got
 * (rx) and gave (tx) in us, lossless drops, CE packets (switch: marked,
 * NIC: received), CNPs sent and handled. */
enum { RX, TX, DROP, ECN, CNP_SENT, CNP_HANDLED, N_SIG };

struct run {
	struct sim_scenario *s;
	const struct sim_topo *t;
	size_t ticks, ports;
	uint64_t *d; /* [tick][port][sig] deltas */
};

static void read_sig(const struct sim_model *m, size_t port, uint64_t *v)
{
	struct sim_model_switch_port sp;
	struct sim_model_nic_port n;
	if (sim_model_read_switch_port(m, port, &sp) == 0) {
		const struct sim_model_switch_prio *p = &sp.prio[3];
		v[RX] = p->pfc_rx_pause_us;
		v[TX] = p->pfc_tx_pause_us;
		v[DROP] = p->pg_drops + p->queue_drops;
		v[ECN] = p->ecn_marked;
		v[CNP_SENT] = v[CNP_HANDLED] = 0;
		return;
	}
	ck_assert_int_eq(sim_model_read_nic_port(m, port, &n), 0);
	v[RX] = n.rx_prio_pause_duration[3];
	v[TX] = n.tx_prio_pause_duration[3];
	v[DROP] = n.rx_prio_discards[3] + n.rx_discards_phy;
	v[ECN] = n.np_ecn_marked_roce_packets;
	v[CNP_SENT] = n.np_cnp_sent;
	v[CNP_HANDLED] = n.rp_cnp_handled;
}

static void run(const char *name, struct run *r)
{
	r->s = load(name);
	r->t = sim_scenario_topo(r->s);
	struct sim_model *m =
	    sim_model_new(r->t, sim_scenario_seed(r->s), err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	r->ticks = sim_scenario_duration_ns(r->s) / TICK;
	r->ports = sim_topo_n_ports(r->t);
	r->d = calloc(r->ticks * r->ports * N_SIG, sizeof *r->d);
	uint64_t *prev = calloc(r->ports * N_SIG, sizeof *prev);
	ck_assert(r->d && prev);
	for (size_t k = 0; k < r->ticks; k++) {
		ck_assert_int_eq(sim_scenario_apply(r->s, m, k * TICK), 0);
		ck_assert_int_eq(sim_model_step(m, TICK), 0);
		for (size_t p = 0; p < r->ports; p++) {
			uint64_t v[N_SIG],
			    *d = &r->d[(k * r->ports + p) * N_SIG];
			read_sig(m, p, v);
			for (int i = 0; i < N_SIG; i++) {
				ck_assert_uint_ge(v[i], prev[p * N_SIG + i]);
				d[i] = v[i] - prev[p * N_SIG + i];
				prev[p * N_SIG + i] = v[i];
			}
		}
	}
	free(prev);
	sim_model_free(m);
}

static void run_free(struct run *r)
{
	free(r->d);
	sim_scenario_free(r->s);
}

/* Sum of sig at port over the ticks that start in [from, to). */
static uint64_t sum(const struct run *r, size_t port, int sig, double from,
		    double to)
{
	uint64_t t = 0;
	for (size_t k = 0; k < r->ticks; k++) {
		double at = (double)k * 0.1 + 1e-9;
		if (at >= from && at < to)
			t += r->d[(k * r->ports + port) * N_SIG + sig];
	}
	return t;
}

/* The same over every port of node. */
static uint64_t sum_node(const struct run *r, const struct sim_node *n, int sig,
			 double from, double to)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n->n_ports; i++)
		t += sum(r, n->ports[i].id, sig, from, to);
	return t;
}

/* The least and the greatest pause ratio of one tick at port in
 * [from, to). */
static void ratio_range(const struct run *r, size_t port, int sig, double from,
			double to, double *lo, double *hi)
{
	*lo = 1e9;
	*hi = 0;
	for (size_t k = 0; k < r->ticks; k++) {
		double at = (double)k * 0.1 + 1e-9;
		if (at < from || at >= to)
			continue;
		double v = (double)r->d[(k * r->ports + port) * N_SIG + sig] /
			   (TICK / 1000);
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
}

static double sec(uint64_t ns)
{
	return (double)ns * 1e-9;
}

static const struct sim_scenario_incident *
incident(const struct run *r, size_t i, enum sim_scenario_kind kind)
{
	const struct sim_scenario_incident *in = sim_scenario_incident(r->s, i);
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->kind, kind);
	return in;
}

/* ---- Loading ---- */

START_TEST(every_shipped_scenario_and_truth_loads)
{
	for (size_t i = 0; i < N_SHIPPED; i++) {
		struct sim_scenario *s = load(shipped[i]);
		ck_assert_uint_gt(sim_scenario_duration_ns(s), 0);
		ck_assert_ptr_nonnull(sim_scenario_topo(s));
		size_t n = sim_scenario_n_incidents(s);
		bool benign = i < 2;
		ck_assert_msg(benign ? n == 0 : n > 0, "%s: %zu incidents",
			      shipped[i], n);
		for (size_t k = 0; k < n; k++) {
			const struct sim_scenario_incident *in =
			    sim_scenario_incident(s, k);
			ck_assert_str_ne(sim_scenario_kind_name(in->kind), "?");
			ck_assert_ptr_nonnull(in->device);
			ck_assert_uint_lt(in->from_ns, in->to_ns);
			ck_assert_uint_le(in->to_ns,
					  sim_scenario_duration_ns(s));
		}
		ck_assert_ptr_null(sim_scenario_incident(s, n));
		sim_scenario_free(s);
	}
	sim_scenario_free(NULL);
}
END_TEST

START_TEST(truth_names_origin_victims_and_span)
{
	struct sim_scenario *s = load("nic_pfc_storm");
	ck_assert_uint_eq(sim_scenario_n_incidents(s), 2);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_PFC_STORM);
	ck_assert_str_eq(in->device->name, "host0");
	ck_assert_str_eq(in->port->name, "mlx5_0");
	ck_assert_int_eq(in->priority, 3);
	ck_assert_uint_eq(in->from_ns, 10000000000ull);
	ck_assert_uint_eq(in->to_ns, 18000000000ull);
	ck_assert_uint_eq(in->n_victims, 4);
	ck_assert_str_eq(in->victims[1].node->name, "spine1");
	ck_assert_str_eq(in->victims[1].port->name, "Ethernet3/1");
	in = sim_scenario_incident(s, 1);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_LOSSLESS_DROP);
	ck_assert_uint_eq(in->n_victims, 0);
	/* "to" left out: the end of the scenario. */
	ck_assert_uint_eq(in->to_ns, sim_scenario_duration_ns(s));
	sim_scenario_free(s);

	s = load("lossless_drops");
	in = sim_scenario_incident(s, 0);
	ck_assert_ptr_null(in->port);
	ck_assert_str_eq(in->victims[0].port->name, "mlx5_0");
	sim_scenario_free(s);
	ck_assert_str_eq(sim_scenario_kind_name(SIM_SCENARIO_RAIL_MISALIGNMENT),
			 "rail_misalignment");
	ck_assert_str_eq(sim_scenario_kind_name(SIM_SCENARIO_KINDS), "?");
}
END_TEST

/* Writes <dir>/bad.yaml and (unless truth is NULL) bad.truth.yaml and
 * loads it; on failure, *msg gets the message with the directory cut
 * off. */
static struct sim_scenario *load_tmp(const char *scen, const char *truth,
				     const char **msg)
{
	static char buf[1024];
	char dir[512], path[600], tpath[600];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/check_sim_scenario.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/bad.yaml", dir);
	snprintf(tpath, sizeof tpath, "%s/bad.truth.yaml", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	/* Line 1 names the shipped demo fabric by an absolute path. */
	char top[4096];
	const char *src = srcpath("sim/topologies/demo.yaml");
	if (src[0] == '/')
		snprintf(top, sizeof top, "%s", src);
	else {
		ck_assert_ptr_nonnull(getcwd(top, sizeof top - 100));
		strncat(top, "/", sizeof top - strlen(top) - 1);
		strncat(top, src, sizeof top - strlen(top) - 1);
	}
	fprintf(f, "topology: %s\n%s", top, scen);
	fclose(f);
	if (truth) {
		f = fopen(tpath, "w");
		ck_assert_ptr_nonnull(f);
		fputs(truth, f);
		fclose(f);
	}
	struct sim_scenario *s = sim_scenario_load(path, err, sizeof err);
	unlink(path);
	unlink(tpath);
	rmdir(dir);
	size_t dl = strlen(dir);
	*msg = "";
	if (!s) {
		ck_assert_msg(strncmp(err, dir, dl) == 0, "%s", err);
		snprintf(buf, sizeof buf, "%s", err + dl + 1);
		*msg = buf;
	}
	return s;
}

static const char *load_bad(const char *scen, const char *truth)
{
	const char *msg;
	ck_assert_ptr_null(load_tmp(scen, truth, &msg));
	return msg;
}

#define HEAD  "seed: 1\nduration: 30s\n"
#define EMPTY "incidents: []\n"

START_TEST(unknown_event_is_an_error_at_its_position)
{
	ck_assert_str_eq(load_bad(HEAD "events:\n"
				       "  - {at: 1s, do: reboot, node: leaf0}\n"
				       "  - at: 2s\n"
				       "    do: reboto\n"
				       "    node: leaf0\n",
				  EMPTY),
			 "bad.yaml:7:9: events[1].do: unknown event \"reboto\" "
			 "(did you mean reboot?)");
	ck_assert_str_eq(load_bad(HEAD "events:\n"
				       "  - {at: 1s, do: nic, node: leaf0}\n",
				  EMPTY),
			 "bad.yaml:5:23: events[0]: node does not apply to do: "
			 "nic");
}
END_TEST

START_TEST(time_beyond_duration_is_an_error)
{
	ck_assert_str_eq(load_bad(HEAD
				  "events:\n"
				  "  - {at: 31s, do: reboot, node: leaf0}\n",
				  EMPTY),
			 "bad.yaml:5:10: events[0].at: 31s is beyond the "
			 "duration (30s)");
	ck_assert_str_eq(
	    load_bad(HEAD, "incidents:\n"
			   "  - kind: link_flap\n"
			   "    origin: {device: leaf0, port: Ethernet32}\n"
			   "    from: 10s\n"
			   "    to: 1m\n"),
	    "bad.truth.yaml:5:9: incidents[0].to: 1m is beyond the duration "
	    "(30s)");
}
END_TEST

START_TEST(unknown_node_or_port_is_an_error)
{
	ck_assert_str_eq(
	    load_bad(HEAD "events:\n"
			  "  - {at: 1s, do: reboot, node: leaf9}\n",
		     EMPTY),
	    "bad.yaml:5:32: events[0].node: no node \"leaf9\" in the "
	    "topology");
	ck_assert_str_eq(
	    load_bad(HEAD
		     "events:\n"
		     "  - {at: 1s, do: link_down, port: leaf0:Ethernet99}\n",
		     EMPTY),
	    "bad.yaml:5:35: events[0].port: no port \"leaf0:Ethernet99\" on "
	    "leaf0");
	ck_assert_str_eq(
	    load_bad(HEAD, "incidents:\n"
			   "  - kind: incast\n"
			   "    origin: {device: host0, port: mlx5_7}\n"
			   "    victims: [host1:mlx5_0, host99]\n"
			   "    from: 10s\n"),
	    "bad.truth.yaml:3:35: incidents[0].origin.port: no port "
	    "\"mlx5_7\" on host0");
	ck_assert_str_eq(
	    load_bad(HEAD, "incidents:\n"
			   "  - kind: incast\n"
			   "    origin: {device: host0, port: mlx5_0}\n"
			   "    victims: [host1:mlx5_0, host99]\n"
			   "    from: 10s\n"),
	    "bad.truth.yaml:4:29: incidents[0].victims[1]: no node "
	    "\"host99\" in the topology");
}
END_TEST

START_TEST(bad_kind_in_truth_is_an_error)
{
	const char *m = load_bad(HEAD, "incidents:\n"
				       "  - kind: pfc_strom\n"
				       "    origin: {device: host0}\n"
				       "    from: 10s\n");
	ck_assert_msg(
	    strncmp(m, "bad.truth.yaml:2:11: incidents[0].kind: ", 40) == 0,
	    "%s", m);
	ck_assert_msg(strstr(m, "\"pfc_strom\"") != NULL, "%s", m);
}
END_TEST

START_TEST(victims_are_nodes_or_ports)
{
	const char *msg;
	struct sim_scenario *s =
	    load_tmp(HEAD,
		     "incidents:\n"
		     "  - kind: congestion_spreading\n"
		     "    origin: {device: leaf0, port: Ethernet0, "
		     "priority: 3}\n"
		     "    victims: [spine1, host5:ens1np0]\n"
		     "    from: 1s\n"
		     "    to: 2500ms\n",
		     &msg);
	ck_assert_msg(s != NULL, "%s", msg);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_CONGESTION_SPREADING);
	ck_assert_uint_eq(in->n_victims, 2);
	ck_assert_str_eq(in->victims[0].node->name, "spine1");
	ck_assert_ptr_null(in->victims[0].port);
	ck_assert_str_eq(in->victims[1].port->name, "mlx5_1");
	ck_assert_uint_eq(in->from_ns, 1000000000ull);
	ck_assert_uint_eq(in->to_ns, 2500000000ull);
	ck_assert_uint_eq(sim_scenario_seed(s), 1);
	sim_scenario_free(s);
}
END_TEST

START_TEST(other_bad_files_fail_cleanly)
{
	/* No truth beside the scenario. */
	const char *m = load_bad(HEAD, NULL);
	ck_assert_msg(strstr(m, "bad.truth.yaml: cannot open: ") == m, "%s", m);
	ck_assert_str_eq(load_bad("seed: 1\n", EMPTY),
			 "bad.yaml:1:1: missing required key \"duration\"");
	ck_assert_str_eq(
	    load_bad(HEAD "events:\n"
			  "  - {at: 1s, do: stop, name: nothing}\n",
		     EMPTY),
	    "bad.yaml:5:30: events[0].name: no flow set \"nothing\" started "
	    "before");
	ck_assert_str_eq(
	    load_bad(HEAD
		     "events:\n"
		     "  - {at: 1s, do: flows, name: a, from: [leaf0:Ethernet0],"
		     " to: host0:mlx5_0, gbps: 10}\n",
		     EMPTY),
	    "bad.yaml:5:41: events[0].from[0]: expected a host NIC");
	ck_assert_str_eq(
	    load_bad(HEAD "traffic: {pattern: ring_allreduce, load: 1.5}\n",
		     EMPTY),
	    "bad.yaml:4:42: traffic.load: expected a number from 1e-06 to 1, "
	    "not \"1.5\"");
	ck_assert_str_eq(load_bad(HEAD, "incidents:\n"
					"  - kind: incast\n"
					"    origin: {device: host0}\n"
					"    from: 10s\n"
					"    to: 10s\n"),
			 "bad.truth.yaml:5:9: incidents[0].to: the span is "
			 "empty (to must be after from)");
}
END_TEST

/* ---- Replaying: each truth's signal where and when it says ---- */

/* Healthy and benign: no lossless drop, no ECN, pause ratio under 1% in
 * every tick on every port. */
static void check_clean(const char *name)
{
	struct run r;
	run(name, &r);
	double end = sec(sim_scenario_duration_ns(r.s));
	for (size_t p = 0; p < r.ports; p++) {
		double lo, hi;
		ck_assert_uint_eq(sum(&r, p, DROP, 0, end), 0);
		ck_assert_uint_eq(sum(&r, p, ECN, 0, end), 0);
		ratio_range(&r, p, TX, 0, end, &lo, &hi);
		ck_assert_double_lt(hi, 0.01);
		ratio_range(&r, p, RX, 0, end, &lo, &hi);
		ck_assert_double_lt(hi, 0.01);
	}
	run_free(&r);
}

START_TEST(healthy_all_reduce_is_clean)
{
	check_clean("healthy");
}
END_TEST

START_TEST(benign_bursts_are_clean)
{
	check_clean("benign_bursts");
}
END_TEST

START_TEST(incast_marks_at_the_receiver_and_cuts_the_senders)
{
	struct run r;
	run("incast", &r);
	const struct sim_scenario_incident *in =
	    incident(&r, 0, SIM_SCENARIO_INCAST);
	double from = sec(in->from_ns), to = sec(in->to_ns);
	double end = sec(sim_scenario_duration_ns(r.s));
	size_t rcv = in->port->id, leaf = in->port->peer->id;
	ck_assert_uint_gt(sum(&r, leaf, ECN, from, to), 0);
	ck_assert_uint_gt(sum(&r, rcv, ECN, from, to), 0);
	ck_assert_uint_gt(sum(&r, rcv, CNP_SENT, from, to), 0);
	ck_assert_uint_ge(in->n_victims, 2);
	for (size_t i = 0; i < in->n_victims; i++)
		ck_assert_uint_gt(
		    sum(&r, in->victims[i].port->id, CNP_HANDLED, from, to), 0);
	/* Nothing before; nothing once the queue has drained. */
	for (size_t p = 0; p < r.ports; p++) {
		ck_assert_uint_eq(sum(&r, p, ECN, 0, from), 0);
		ck_assert_uint_eq(sum(&r, p, ECN, to + 0.5, end), 0);
		ck_assert_uint_eq(sum(&r, p, CNP_HANDLED, 0, from), 0);
		ck_assert_uint_eq(sum(&r, p, DROP, 0, end), 0);
	}
	run_free(&r);
}
END_TEST

START_TEST(nic_storm_pauses_its_leaf_continuously_and_spreads)
{
	struct run r;
	run("nic_pfc_storm", &r);
	const struct sim_scenario_incident *in =
	    incident(&r, 0, SIM_SCENARIO_PFC_STORM);
	double from = sec(in->from_ns), to = sec(in->to_ns), lo, hi;
	double end = sec(sim_scenario_duration_ns(r.s));
	size_t nic = in->port->id;
	/* The origin NIC's tx pause ratio is ~1 in the span (after the
	   tick of the stall), 0 outside it. */
	ratio_range(&r, nic, TX, from + 0.1, to, &lo, &hi);
	ck_assert_double_ge(lo, 0.99);
	ratio_range(&r, nic, TX, 0, from, &lo, &hi);
	ck_assert_double_eq(hi, 0);
	ratio_range(&r, nic, TX, to + 0.1, end, &lo, &hi);
	ck_assert_double_eq(hi, 0);
	/* Every victim port pauses its upstream (or, a host, is paused)
	   continuously in the span. */
	for (size_t i = 0; i < in->n_victims; i++) {
		const struct sim_port *v = in->victims[i].port;
		int sig = v->node->kind == SIM_NODE_HOST ? RX : TX;
		ratio_range(&r, v->id, sig, from + 0.5, to, &lo, &hi);
		ck_assert_msg(lo >= 0.99, "%s:%s %f", v->node->name, v->name,
			      lo);
		ratio_range(&r, v->id, sig, 0, from, &lo, &hi);
		ck_assert_double_eq(hi, 0);
	}
	/* Stall prevention: then drops at the NIC, none before. */
	in = incident(&r, 1, SIM_SCENARIO_LOSSLESS_DROP);
	ck_assert_uint_eq(in->port->id, nic);
	ck_assert_uint_gt(sum(&r, nic, DROP, sec(in->from_ns) + 0.1, end), 0);
	for (size_t p = 0; p < r.ports; p++)
		ck_assert_uint_eq(sum(&r, p, DROP, 0, sec(in->from_ns)), 0);
	run_free(&r);
}
END_TEST

START_TEST(small_headroom_drops_on_the_lossless_priority_at_the_origin)
{
	struct run r;
	run("lossless_drops", &r);
	const struct sim_scenario_incident *in =
	    incident(&r, 0, SIM_SCENARIO_LOSSLESS_DROP);
	double from = sec(in->from_ns), to = sec(in->to_ns);
	ck_assert_uint_gt(sum_node(&r, in->device, DROP, from, to), 0);
	/* Drops every second of the span, none before, none elsewhere. */
	for (double t = from; t + 1 <= to; t += 1)
		ck_assert_uint_gt(sum_node(&r, in->device, DROP, t, t + 1), 0);
	for (size_t p = 0; p < r.ports; p++) {
		ck_assert_uint_eq(sum(&r, p, DROP, 0, from), 0);
		if (sim_topo_port(r.t, p)->node != in->device)
			ck_assert_uint_eq(sum(&r, p, DROP, 0, to), 0);
	}
	run_free(&r);
}
END_TEST

START_TEST(dcqcn_disabled_nic_gets_ce_and_sends_no_cnp)
{
	struct run r;
	run("dcqcn_disabled", &r);
	const struct sim_scenario_incident *in =
	    incident(&r, 0, SIM_SCENARIO_ECN_WITHOUT_CNP);
	double from = sec(in->from_ns), to = sec(in->to_ns);
	size_t rcv = in->port->id;
	ck_assert_uint_gt(sum(&r, rcv, ECN, from, to), 0);
	for (double t = from; t + 1 <= to; t += 1)
		ck_assert_uint_gt(sum(&r, rcv, ECN, t, t + 1), 0);
	for (size_t p = 0; p < r.ports; p++) {
		ck_assert_uint_eq(sum(&r, p, CNP_SENT, 0, to), 0);
		ck_assert_uint_eq(sum(&r, p, CNP_HANDLED, 0, to), 0);
		ck_assert_uint_eq(sum(&r, p, ECN, 0, from), 0);
	}
	run_free(&r);
}
END_TEST

START_TEST(ecn_above_xoff_pauses_without_marks)
{
	struct run r;
	run("ecn_above_xoff", &r);
	const struct sim_scenario_incident *in =
	    incident(&r, 0, SIM_SCENARIO_ECN_AFTER_PFC);
	double from = sec(in->from_ns), to = sec(in->to_ns), lo, hi;
	/* The origin (leaf0's port to host0) is congested: leaf0 pauses
	   the victims' ports, every tick of the span, and nothing marks. */
	ck_assert_str_eq(in->port->peer->node->name, "host0");
	for (size_t i = 0; i < in->n_victims; i++) {
		size_t v = in->victims[i].port->id;
		ratio_range(&r, v, RX, from + 0.5, to, &lo, &hi);
		ck_assert_double_gt(lo, 0.2);
		ratio_range(&r, sim_topo_port(r.t, v)->peer->id, TX, from + 0.5,
			    to, &lo, &hi);
		ck_assert_double_gt(lo, 0.2);
		ratio_range(&r, v, RX, 0, from, &lo, &hi);
		ck_assert_double_eq(hi, 0);
	}
	for (size_t p = 0; p < r.ports; p++) {
		ck_assert_uint_eq(sum(&r, p, ECN, 0, to), 0);
		ck_assert_uint_eq(sum(&r, p, DROP, 0, to), 0);
	}
	run_free(&r);
}
END_TEST

START_TEST(apply_is_idempotent_per_time_and_rewinds)
{
	struct sim_scenario *s = load("incast");
	const struct sim_topo *t = sim_scenario_topo(s);
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	ck_assert_int_eq(sim_scenario_apply(s, m, 0), 0);
	ck_assert_uint_eq(sim_model_n_flows(m), 0);
	ck_assert_int_eq(sim_scenario_apply(s, m, 10000000000ull), 0);
	ck_assert_uint_eq(sim_model_n_flows(m), 6);
	ck_assert_int_eq(sim_scenario_apply(s, m, 10000000000ull), 0);
	ck_assert_uint_eq(sim_model_n_flows(m), 6);
	ck_assert_double_eq(sim_model_flow_rate(m, 0), 400);
	ck_assert_int_eq(sim_scenario_apply(s, m, 25000000000ull), 0);
	ck_assert_double_eq(sim_model_flow_rate(m, 0), 0);
	sim_model_free(m);
	sim_scenario_rewind(s);
	m = sim_model_new(t, 1, err, sizeof err);
	ck_assert_int_eq(sim_scenario_apply(s, m, 30000000000ull), 0);
	ck_assert_uint_eq(sim_model_n_flows(m), 6);
	sim_model_free(m);
	sim_scenario_free(s);
}
END_TEST

/* A model for s, and stepping it (applying s each tick) up to t s. */
static struct sim_model *model_for(struct sim_scenario *s)
{
	struct sim_model *m = sim_model_new(
	    sim_scenario_topo(s), sim_scenario_seed(s), err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	return m;
}

static void advance(struct sim_scenario *s, struct sim_model *m, double t)
{
	uint64_t until = (uint64_t)(t * 1e9 + 0.5);
	while (sim_model_now_ns(m) < until) {
		ck_assert_int_eq(sim_scenario_apply(s, m, sim_model_now_ns(m)),
				 0);
		ck_assert_int_eq(sim_model_step(m, TICK), 0);
	}
}

static struct sim_model_switch_port swp(const struct sim_model *m, size_t port)
{
	struct sim_model_switch_port o;
	ck_assert_int_eq(sim_model_read_switch_port(m, port, &o), 0);
	return o;
}

START_TEST(link_flap_counts_its_transitions_in_the_span)
{
	struct sim_scenario *s = load("link_flap");
	struct sim_model *m = model_for(s);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_LINK_FLAP);
	size_t o = in->port->id, v = in->victims[0].port->id;
	ck_assert_uint_eq(in->port->peer->id, v);
	advance(s, m, sec(in->from_ns));
	ck_assert_uint_eq(swp(m, o).link_down_events, 0);
	ck_assert(swp(m, o).link_up);
	advance(s, m, sec(in->from_ns) + 0.1);
	ck_assert(!swp(m, o).link_up);
	advance(s, m, sec(in->to_ns));
	ck_assert(swp(m, o).link_up);
	ck_assert_uint_eq(swp(m, o).link_down_events, 3);
	ck_assert_uint_eq(swp(m, o).link_up_events, 3);
	ck_assert_uint_eq(swp(m, v).link_down_events, 3);
	advance(s, m, sec(sim_scenario_duration_ns(s)));
	ck_assert_uint_eq(swp(m, o).link_down_events, 3);
	/* The traffic kept flowing over the other spine: no drops on the
	   lossless priority but at the flapping link itself. */
	const struct sim_topo *t = sim_scenario_topo(s);
	for (size_t p = 0; p < sim_topo_n_ports(t); p++)
		if (p != o && p != v &&
		    sim_topo_port(t, p)->node->kind != SIM_NODE_HOST)
			ck_assert_uint_eq(swp(m, p).prio[3].pg_drops, 0);
	sim_model_free(m);
	sim_scenario_free(s);
}
END_TEST

START_TEST(switch_reboot_restarts_its_counters_at_the_named_time)
{
	struct sim_scenario *s = load("switch_reboot");
	struct sim_model *m = model_for(s);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_SWITCH_REBOOT);
	size_t node = in->device->id, up = in->device->ports[0].id;
	advance(s, m, sec(in->from_ns));
	uint64_t before = swp(m, up).out_octets;
	ck_assert_uint_gt(before, 0);
	ck_assert_uint_eq(sim_model_boots(m, node), 0);
	advance(s, m, sec(in->to_ns));
	ck_assert_uint_eq(sim_model_boots(m, node), 1);
	ck_assert_uint_eq(sim_model_boot_ns(m, node), in->from_ns);
	ck_assert_uint_lt(swp(m, up).out_octets, before / 10);
	advance(s, m, sec(sim_scenario_duration_ns(s)));
	ck_assert_uint_eq(sim_model_boots(m, node), 1);
	for (size_t i = 0; i < sim_topo_n_nodes(sim_scenario_topo(s)); i++)
		if (i != node)
			ck_assert_uint_eq(sim_model_boots(m, i), 0);
	sim_model_free(m);
	sim_scenario_free(s);
}
END_TEST

START_TEST(pause_on_a_lossy_priority_is_counted_in_the_span)
{
	struct sim_scenario *s = load("pause_on_lossy");
	struct sim_model *m = model_for(s);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_PAUSE_ON_LOSSY_PRIORITY);
	unsigned p = (unsigned)in->priority;
	ck_assert(!(sim_topo_lossless_mask(sim_scenario_topo(s)) & (1u << p)));
	size_t leaf = in->victims[0].port->id;
	ck_assert_uint_eq(in->port->peer->id, leaf);
	double from = sec(in->from_ns), to = sec(in->to_ns);
	advance(s, m, from);
	struct sim_model_switch_port a = swp(m, leaf);
	ck_assert_uint_eq(a.prio[p].pfc_rx_pause_us, 0);
	advance(s, m, to);
	struct sim_model_switch_port b = swp(m, leaf);
	/* Paused all the span, and still forwarding at demand (100G). */
	ck_assert_uint_eq(b.prio[p].pfc_rx_pause_us - a.prio[p].pfc_rx_pause_us,
			  (uint64_t)((to - from) * 1e6));
	ck_assert_uint_gt(b.prio[p].pfc_rx_frames, 0);
	ck_assert_double_gt((double)(b.prio[p].tx_bytes - a.prio[p].tx_bytes),
			    12.5e9 * (to - from) * 0.99);
	advance(s, m, sec(sim_scenario_duration_ns(s)));
	ck_assert_uint_eq(swp(m, leaf).prio[p].pfc_rx_pause_us,
			  b.prio[p].pfc_rx_pause_us);
	sim_model_free(m);
	sim_scenario_free(s);
}
END_TEST

START_TEST(target_faults_are_active_for_their_switch_and_span)
{
	struct sim_scenario *s = load("target_silent");
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_TARGET_SILENT);
	size_t n = sim_topo_n_nodes(sim_scenario_topo(s));
	for (uint64_t t = 0; t < sim_scenario_duration_ns(s); t += TICK)
		for (size_t i = 0; i < n; i++) {
			bool on = i == in->device->id && t >= in->from_ns &&
				  t < in->to_ns;
			ck_assert_int_eq(sim_scenario_target(s, i, t),
					 on ? SIM_SCENARIO_TARGET_IS_SILENT
					    : SIM_SCENARIO_TARGET_OK);
		}
	sim_scenario_free(s);

	s = load("target_refuse");
	in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_TARGET_REFUSE);
	ck_assert_uint_eq(in->to_ns, sim_scenario_duration_ns(s));
	for (uint64_t t = 0; t < sim_scenario_duration_ns(s); t += TICK)
		for (size_t i = 0; i < n; i++) {
			bool on = i == in->device->id && t >= in->from_ns;
			ck_assert_int_eq(sim_scenario_target(s, i, t),
					 on ? SIM_SCENARIO_TARGET_REFUSES
					    : SIM_SCENARIO_TARGET_OK);
		}
	sim_scenario_free(s);
}
END_TEST

START_TEST(target_faults_leave_the_fabric_clean)
{
	check_clean("target_silent");
	check_clean("target_refuse");
}
END_TEST

START_TEST(rail_misalignment_origin_is_cabled_off_its_rail)
{
	struct sim_scenario *s = load("rail_misalignment");
	const struct sim_topo *t = sim_scenario_topo(s);
	const struct sim_scenario_incident *in = sim_scenario_incident(s, 0);
	ck_assert_int_eq(in->kind, SIM_SCENARIO_RAIL_MISALIGNMENT);
	const struct sim_port *nic = in->port;
	ck_assert_ptr_eq(nic->peer, in->victims[0].port);
	const struct sim_node *leaf = nic->peer->node;
	ck_assert(leaf->rail != nic->rail || leaf->pod != nic->node->pod);
	/* Every other NIC is on its rail and pod. */
	for (size_t i = 0; i < sim_topo_n_tier(t, SIM_NODE_HOST); i++) {
		const struct sim_node *h =
		    sim_topo_tier_node(t, SIM_NODE_HOST, i);
		for (size_t k = 0; k < h->n_ports; k++) {
			const struct sim_port *p = &h->ports[k];
			if (p == nic || !p->peer)
				continue;
			ck_assert_int_eq(p->peer->node->rail, p->rail);
			ck_assert_int_eq(p->peer->node->pod, h->pod);
		}
	}
	sim_scenario_free(s);
	/* And the misrouted traffic still runs clean. */
	check_clean("rail_misalignment");
}
END_TEST

static Suite *sim_scenario_suite(void)
{
	Suite *s = suite_create("sim_scenario");
	TCase *tc = tcase_create("load");
	tcase_add_test(tc, every_shipped_scenario_and_truth_loads);
	tcase_add_test(tc, truth_names_origin_victims_and_span);
	tcase_add_test(tc, unknown_event_is_an_error_at_its_position);
	tcase_add_test(tc, time_beyond_duration_is_an_error);
	tcase_add_test(tc, unknown_node_or_port_is_an_error);
	tcase_add_test(tc, bad_kind_in_truth_is_an_error);
	tcase_add_test(tc, victims_are_nodes_or_ports);
	tcase_add_test(tc, other_bad_files_fail_cleanly);
	suite_add_tcase(s, tc);
	tc = tcase_create("replay");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, healthy_all_reduce_is_clean);
	tcase_add_test(tc, benign_bursts_are_clean);
	tcase_add_test(tc, incast_marks_at_the_receiver_and_cuts_the_senders);
	tcase_add_test(tc, nic_storm_pauses_its_leaf_continuously_and_spreads);
	tcase_add_test(
	    tc, small_headroom_drops_on_the_lossless_priority_at_the_origin);
	tcase_add_test(tc, dcqcn_disabled_nic_gets_ce_and_sends_no_cnp);
	tcase_add_test(tc, ecn_above_xoff_pauses_without_marks);
	tcase_add_test(tc, apply_is_idempotent_per_time_and_rewinds);
	tcase_add_test(tc, link_flap_counts_its_transitions_in_the_span);
	tcase_add_test(tc,
		       switch_reboot_restarts_its_counters_at_the_named_time);
	tcase_add_test(tc, pause_on_a_lossy_priority_is_counted_in_the_span);
	tcase_add_test(tc, target_faults_are_active_for_their_switch_and_span);
	tcase_add_test(tc, target_faults_leave_the_fabric_clean);
	tcase_add_test(tc, rail_misalignment_origin_is_cabled_off_its_rail);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_scenario_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
