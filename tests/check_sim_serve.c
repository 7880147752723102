/*
 * check_sim_serve: fabsim's gNMI serving, read back by fabmond's own
 * gNMI collector through the shipped profiles. A generated fabric with
 * one switch of each flavour per tier is modelled for a few seconds
 * with traffic and an injected PFC pause, published once, and served
 * on 127.0.0.1 with ports the kernel picks; the real collector
 * subscribes to every switch with its flavour's profile and writes a
 * real store. Every canonical value must equal the model's counter in
 * the canonical unit (pause in seconds from SONiC's us and Arista's
 * ns). Then the fault hooks: a silent switch keeps its stream and
 * sends nothing; a refusing one ends the stream and refuses new ones.
 * The noise: the per-switch publish schedule (phase, jitter within a
 * quarter interval, loss at its rate, all from the seed), late and lost
 * publishes as a bare gNMI client (tests/gnmi_sub.h) receives them, and
 * the served trees under --unmonitored and --no-lldp marks.
 *
 * Waits are bounded polls (a hang guard, not a timing check).
 */
#include "config.h"

#include "cfg.h"
#include "client.h"
#include "collector.h"
#include "control.h"
#include "fabmond.h"
#include "health.h"
#include "gnmi_sub.h"
#include "model.h"
#include "pubsched.h"
#include "scenario.h"
#include "serve_gnmi.h"
#include "store.h"
#include "topo.h"
#include "units.h"
#include "visibility.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_S 20

static struct sim_topo *topo;
static struct sim_model *model;
static struct sim_serve_gnmi *srv;
static struct store *st;
static struct health *hl;
static void *col;
static struct cfg *cfg;

static const char *srcdir(void)
{
	const char *s = getenv("top_srcdir");
	return s && *s ? s : ".";
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

#define WAIT_FOR(cond, ...)                                \
	do {                                               \
		int waited_ = 0;                           \
		while (!(cond) && waited_ < WAIT_S * 50) { \
			sleep_ms(20);                      \
			waited_++;                         \
		}                                          \
		ck_assert_msg((cond), __VA_ARGS__);        \
	} while (0)

static const enum sim_flavour mix[] = { SIM_FLAVOUR_SONIC, SIM_FLAVOUR_ARISTA,
					SIM_FLAVOUR_OPENCONFIG };

/* A fabric of 3 spines and 3 leaves (one of each flavour per tier) and
 * 3 hosts, modelled for 3 s with a ring of flows and host1's NIC
 * sending PFC on priority 3 to its leaf 40% of the time. */
static void setup(void)
{
	char err[512];
	struct sim_topo_gen g = { .spines = 3,
				  .leaves = 3,
				  .hosts = 3,
				  .nics = 1,
				  .flavours = mix,
				  .n_flavours = 3 };
	topo = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(topo != NULL, "%s", err);
	model = sim_model_new(topo, 1, err, sizeof err);
	ck_assert_msg(model != NULL, "%s", err);
	for (size_t h = 0; h < 3; h++) {
		const struct sim_node *a =
		    sim_topo_tier_node(topo, SIM_NODE_HOST, h);
		const struct sim_node *b =
		    sim_topo_tier_node(topo, SIM_NODE_HOST, (h + 1) % 3);
		struct sim_model_flow f = {
			a->ports[0].id, b->ports[0].id, 3, 200, NULL, 0
		};
		ck_assert_int_ge(sim_model_add_flow(model, &f), 0);
	}
	const struct sim_node *h1 = sim_topo_find_node(topo, "host1");
	ck_assert_int_eq(sim_model_inject_pause(model, h1->ports[0].id, 3, 0.4),
			 0);
	for (int i = 0; i < 30; i++)
		ck_assert_int_eq(sim_model_step(model, 100000000ull), 0);
	st = store_new(NULL);
	hl = health_new();
}

static void teardown(void)
{
	if (col)
		gnmi_collector_ops.stop(col);
	col = NULL;
	sim_serve_gnmi_free(srv);
	srv = NULL;
	cfg_free(cfg);
	cfg = NULL;
	health_free(hl);
	store_free(st);
	sim_model_free(model);
	sim_topo_free(topo);
}

static void serve(void)
{
	char err[512];
	srv = sim_serve_gnmi_new(topo, NULL, err, sizeof err);
	ck_assert_msg(srv != NULL, "%s", err);
}

/* fabmond's config for every switch with its flavour's profile. */
static void collect(void)
{
	char text[8192], err[512];
	size_t len = (size_t)snprintf(text, sizeof text,
				      "profiles_dir: %s/etc/profiles\n"
				      "targets:\n",
				      srcdir());
	for (size_t id = 0; id < sim_topo_n_nodes(topo); id++) {
		const struct sim_node *n = sim_topo_node(topo, id);
		if (n->kind == SIM_NODE_HOST)
			continue;
		const char *tg = sim_serve_gnmi_target(n->flavour);
		len += (size_t)snprintf(
		    text + len, sizeof text - len,
		    "  - name: %s\n    gnmi:\n      address: 127.0.0.1:%d\n"
		    "      insecure: true\n      profile: %s\n"
		    "      interval: 1s\n%s%s%s",
		    n->name, sim_serve_gnmi_port(srv, id),
		    sim_serve_gnmi_profile(n->flavour),
		    tg ? "      target: " : "", tg ? tg : "", tg ? "\n" : "");
	}
	cfg = cfg_load_buffer(fabmond_cfg_schema(), "serve.yaml", text, len,
			      err, sizeof err);
	ck_assert_msg(cfg != NULL, "config: %s\n%s", err, text);
	struct collector_env env = { .store = st, .health = hl };
	ck_assert_int_eq(gnmi_collector_ops.start(&env, cfg, &col), 0);
}

static bool read_value(const char *dev, const char *port, enum fm_counter c,
		       uint32_t sub, double *v)
{
	struct store_key k = {
		.device = store_intern(st, dev),
		.port = store_intern(st, port),
		.counter = (uint16_t)c,
		.sub = sub,
	};
	store_handle h = store_lookup(st, &k);
	struct store_sample s;
	if (!h || store_read(st, store_handle_slot(h), &s) || !s.has_value)
		return false;
	*v = s.value;
	return true;
}

static bool value_is(const char *dev, const char *port, enum fm_counter c,
		     uint32_t sub, double want)
{
	double v;
	return read_value(dev, port, c, sub, &v) &&
	       fabs(v - want) <= 1e-9 * (fabs(want) + 1);
}

static uint32_t queue_sub(unsigned q)
{
	char name[8];
	snprintf(name, sizeof name, "%u", q);
	return (uint32_t)store_intern(st, name);
}

/* Every port of every switch: the canonical values equal the model's. */
START_TEST(test_every_flavour_serves_the_model_through_its_profile)
{
	serve();
	ck_assert_uint_eq(sim_serve_gnmi_publish(srv, model, 0, true), 6);
	collect();
	size_t checked_pfc = 0, nonzero_pause = 0, checked_pg = 0;
	uint8_t lossless = sim_topo_lossless_mask(topo);
	ck_assert_uint_ne(lossless, 0);
	for (size_t id = 0; id < sim_topo_n_nodes(topo); id++) {
		const struct sim_node *n = sim_topo_node(topo, id);
		if (n->kind == SIM_NODE_HOST)
			continue;
		for (size_t i = 0; i < n->n_ports; i++) {
			const struct sim_port *p = &n->ports[i];
			struct sim_model_switch_port c;
			ck_assert_int_eq(
			    sim_model_read_switch_port(model, p->id, &c), 0);
			const char *d = n->name, *pn = p->name;
			WAIT_FOR(value_is(d, pn, FM_C_BYTES_RX, 0,
					  (double)c.in_octets),
				 "%s %s bytes_rx != %llu", d, pn,
				 (unsigned long long)c.in_octets);
			ck_assert(value_is(d, pn, FM_C_BYTES_TX, 0,
					   (double)c.out_octets));
			ck_assert(value_is(d, pn, FM_C_PACKETS_RX, 0,
					   (double)c.in_packets));
			ck_assert(value_is(d, pn, FM_C_DISCARDS_TX, 0,
					   (double)c.out_discards));
			const struct sim_model_switch_prio *q3 = &c.prio[3];
			WAIT_FOR(value_is(d, pn, FM_C_QUEUE_TX_PACKETS,
					  queue_sub(3), (double)q3->tx_packets),
				 "%s %s queue 3 packets", d, pn);
			ck_assert(value_is(d, pn, FM_C_ECN_MARKED, queue_sub(3),
					   (double)q3->ecn_marked));
			if (n->flavour != SIM_FLAVOUR_SONIC)
				WAIT_FOR(value_is(d, pn, FM_C_LINK_UP, 0, 1),
					 "%s %s link_up", d, pn);
			if (n->flavour == SIM_FLAVOUR_SONIC) {
				/* The port's speed, from APPL_DB's PORT_TABLE
				 * (Mb/s there, bytes/s in the store). */
				WAIT_FOR(value_is(d, pn, FM_C_LINK_SPEED, 0,
						  p->speed * 125e6),
					 "%s %s link_speed", d, pn);
				/* PG drops, through COUNTERS_PG_NAME_MAP, for
				 * the lossless priorities only. */
				for (unsigned pr = 0; pr < 8; pr++) {
					double v;
					if (!(lossless & (1u << pr))) {
						ck_assert(!read_value(
						    d, pn, FM_C_PG_DROPS, pr,
						    &v));
						continue;
					}
					WAIT_FOR(
					    value_is(
						d, pn, FM_C_PG_DROPS, pr,
						(double)c.prio[pr].pg_drops),
					    "%s %s pg_drops %u", d, pn, pr);
					checked_pg++;
				}
			}
			if (n->flavour == SIM_FLAVOUR_OPENCONFIG) {
				/* OpenConfig has no PFC counters. */
				double v;
				ck_assert(!read_value(d, pn, FM_C_PFC_RX_FRAMES,
						      3, &v));
				continue;
			}
			WAIT_FOR(value_is(d, pn, FM_C_PFC_RX_FRAMES, 3,
					  (double)q3->pfc_rx_frames),
				 "%s %s pfc_rx_frames", d, pn);
			ck_assert(value_is(d, pn, FM_C_PFC_RX_PAUSE, 3,
					   (double)q3->pfc_rx_pause_us * 1e-6));
			ck_assert(value_is(d, pn, FM_C_PFC_RX_TRANSITIONS, 3,
					   (double)q3->pfc_rx_transitions));
			if (n->flavour == SIM_FLAVOUR_SONIC)
				ck_assert(value_is(d, pn, FM_C_PFC_TX_PAUSE, 3,
						   (double)q3->pfc_tx_pause_us *
						       1e-6));
			checked_pfc++;
			if (q3->pfc_rx_pause_us)
				nonzero_pause++;
		}
	}
	ck_assert_uint_gt(checked_pfc, 0);
	ck_assert_uint_gt(checked_pg, 0);
	/* host1's pause reaches its leaf: the check above saw it. */
	ck_assert_uint_gt(nonzero_pause, 0);
}
END_TEST

static bool all_streaming(void)
{
	for (size_t id = 0; id < sim_topo_n_nodes(topo); id++)
		if (sim_topo_node(topo, id)->kind != SIM_NODE_HOST &&
		    !sim_serve_gnmi_streams(srv, id))
			return false;
	return true;
}

/* Only switches with a stream open are published. */
START_TEST(test_idle_switches_are_not_published)
{
	serve();
	ck_assert_uint_eq(sim_serve_gnmi_publish(srv, model, 0, false), 0);
	collect();
	WAIT_FOR(all_streaming(), "not every switch has a stream");
	ck_assert_uint_eq(sim_serve_gnmi_publish(srv, model, 0, false), 6);
	const struct sim_port *p = &sim_topo_node(topo, 0)->ports[0];
	struct sim_model_switch_port c;
	ck_assert_int_eq(sim_model_read_switch_port(model, p->id, &c), 0);
	WAIT_FOR(
	    value_is("spine0", p->name, FM_C_BYTES_RX, 0, (double)c.in_octets),
	    "spine0's counters did not arrive");
}
END_TEST

static bool target_up(const char *name, bool *up)
{
	struct health_target_info *v = NULL;
	size_t n = health_snapshot(hl, &v);
	bool found = false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].target, name) == 0) {
			*up = v[i].up;
			found = true;
		}
	health_snapshot_free(v, n);
	return found;
}

static uint64_t counter_of(const char *name, int which)
{
	struct health_target_info *v = NULL;
	size_t n = health_snapshot(hl, &v);
	uint64_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].target, name) == 0)
			c = v[i].counters[which];
	health_snapshot_free(v, n);
	return c;
}

static bool is_up(const char *name)
{
	bool up = false;
	return target_up(name, &up) && up;
}

/* A TCP connection to 127.0.0.1:port: 0, or the errno. */
static int tcp_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a) ? errno : 0;
	close(fd);
	return rc;
}

/* Silent: the collector's stream watchdog gives up on the switch's
 * stream while the others go on; OK again: it streams again. Refused: the port
 * refuses connections until OK reopens it on the same port. */
START_TEST(test_faults_take_a_switch_down_and_back)
{
	serve();
	collect();
	const struct sim_node *leaf1 = sim_topo_find_node(topo, "leaf1");
	WAIT_FOR((sim_serve_gnmi_publish(srv, model, 0, false),
		  is_up("leaf1") && is_up("leaf0")),
		 "leaf1 not up");
	ck_assert_int_eq(sim_serve_gnmi_set_fault(
			     srv, leaf1->id, SIM_SCENARIO_TARGET_IS_SILENT),
			 0);
	ck_assert_int_eq(sim_serve_gnmi_fault(srv, leaf1->id),
			 SIM_SCENARIO_TARGET_IS_SILENT);
	/* fabmond's collector resubscribes to a stream that says nothing
	 * for three intervals (it does not mark it down: see the report);
	 * leaf0 keeps receiving meanwhile. */
	uint64_t r0 = counter_of("leaf1", HEALTH_C_RECONNECTS);
	uint64_t u0 = counter_of("leaf0", HEALTH_C_UPDATES);
	WAIT_FOR((sim_serve_gnmi_publish(srv, model, 0, false),
		  counter_of("leaf1", HEALTH_C_RECONNECTS) > r0),
		 "leaf1 not resubscribed while silent");
	ck_assert_uint_gt(counter_of("leaf0", HEALTH_C_UPDATES), u0);
	ck_assert(is_up("leaf0"));
	ck_assert_int_eq(
	    sim_serve_gnmi_set_fault(srv, leaf1->id, SIM_SCENARIO_TARGET_OK),
	    0);
	WAIT_FOR((sim_serve_gnmi_publish(srv, model, 0, false), is_up("leaf1")),
		 "leaf1 did not come back");

	int port = sim_serve_gnmi_port(srv, leaf1->id);
	ck_assert_int_eq(tcp_connect(port), 0);
	ck_assert_int_eq(sim_serve_gnmi_set_fault(srv, leaf1->id,
						  SIM_SCENARIO_TARGET_REFUSES),
			 0);
	ck_assert_int_eq(tcp_connect(port), ECONNREFUSED);
	ck_assert_int_eq(sim_serve_gnmi_port(srv, leaf1->id), port);
	ck_assert_int_eq(
	    sim_serve_gnmi_set_fault(srv, leaf1->id, SIM_SCENARIO_TARGET_OK),
	    0);
	ck_assert_int_eq(tcp_connect(port), 0);
}
END_TEST

START_TEST(test_control_addresses_are_loopback_only)
{
	char host[64], err[256];
	unsigned port;
	ck_assert_int_eq(sim_control_parse_addr("127.0.0.1:80", host,
						sizeof host, &port, err,
						sizeof err),
			 0);
	ck_assert_str_eq(host, "127.0.0.1");
	ck_assert_uint_eq(port, 80);
	ck_assert_int_eq(sim_control_parse_addr("[::1]:0", host, sizeof host,
						&port, err, sizeof err),
			 0);
	ck_assert_str_eq(host, "::1");
	ck_assert(sim_control_is_loopback("::1"));
	ck_assert(sim_control_is_loopback("127.3.4.5"));
	ck_assert(!sim_control_is_loopback("10.0.0.1"));
	ck_assert(!sim_control_is_loopback("0.0.0.0"));
	ck_assert_int_ne(sim_control_parse_addr("127.0.0.1", host, sizeof host,
						&port, err, sizeof err),
			 0);
	ck_assert_ptr_null(sim_control_new("0.0.0.0:0", err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "only loopback"));
}
END_TEST

/* ---- Live events (sim_scenario_live_*, the control endpoint's) ---- */

static struct sim_scenario *live_scn;
static struct sim_scenario_live *live;
static struct sim_model *live_model;

static void live_setup(void)
{
	char err[512];
	const struct sim_topo_gen g = {
		.spines = 2, .leaves = 2, .hosts = 4, .nics = 1
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	live_scn = sim_scenario_new_empty(t, 1);
	live_model = sim_model_new(t, 1, err, sizeof err);
	ck_assert_ptr_nonnull(live_model);
	live = sim_scenario_live_new(live_scn);
}

static void live_teardown(void)
{
	sim_scenario_live_free(live);
	sim_model_free(live_model);
	sim_scenario_free(live_scn);
}

static int apply(const char *text, char *err, size_t errlen)
{
	return sim_scenario_live_apply(live, live_model, "event", text,
				       strlen(text), err, errlen);
}

START_TEST(test_live_flows_start_and_stop)
{
	char err[256];
	int id = apply("{do: flows, name: x, from: [host1:mlx5_0, "
		       "host2:mlx5_0], to: host0:mlx5_0, gbps: 100}",
		       err, sizeof err);
	ck_assert_msg(id == 1, "%d %s", id, err);
	ck_assert_uint_eq(sim_model_n_flows(live_model), 2);
	for (int i = 0; i < 5; i++)
		sim_model_step(live_model, 100000000ull);
	ck_assert_double_gt(sim_model_flow_rate(live_model, 0), 0);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err), 0);
	sim_model_step(live_model, 100000000ull);
	ck_assert_double_eq(sim_model_flow_rate(live_model, 0), 0);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err),
	    -EALREADY);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, 9, err, sizeof err),
	    -ENOENT);
	/* The name is taken now; a timeline-style stop finds it. */
	ck_assert_int_lt(apply("{do: flows, name: x, from: [host1:mlx5_0], "
			       "to: host0:mlx5_0, gbps: 1}",
			       err, sizeof err),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "already defined"));
	ck_assert_int_eq(apply("{at: 99h, do: stop, name: x}", err, sizeof err),
			 2);
}
END_TEST

START_TEST(test_live_knobs_links_and_faults_are_undone)
{
	char err[256];
	const struct sim_port *nic =
	    sim_topo_find_port(sim_scenario_topo(live_scn), "host0", "mlx5_0");
	struct sim_model_nic_cfg before, during, after;
	sim_model_get_nic_cfg(live_model, nic->id, &before);
	int id = apply("do: nic\nport: host0:mlx5_0\nrx_drain: 0\n", err,
		       sizeof err);
	ck_assert_msg(id > 0, "%s", err);
	sim_model_get_nic_cfg(live_model, nic->id, &during);
	ck_assert_double_eq(during.rx_drain, 0);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err), 0);
	sim_model_get_nic_cfg(live_model, nic->id, &after);
	ck_assert_double_eq(after.rx_drain, before.rx_drain);

	id = apply("{do: link_down, port: host0:mlx5_0}", err, sizeof err);
	ck_assert_msg(id > 0, "%s", err);
	ck_assert(!sim_model_link_up(live_model, nic->id));
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err), 0);
	ck_assert(sim_model_link_up(live_model, nic->id));

	const struct sim_node *leaf0 =
	    sim_topo_find_node(sim_scenario_topo(live_scn), "leaf0");
	id = apply("{do: target_refuse, node: leaf0}", err, sizeof err);
	ck_assert_int_eq(sim_scenario_live_target(live, leaf0->id, 0),
			 SIM_SCENARIO_TARGET_REFUSES);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err), 0);
	ck_assert_int_eq(sim_scenario_live_target(live, leaf0->id, 0),
			 SIM_SCENARIO_TARGET_OK);
	sim_scenario_live_set_target(live, leaf0->id,
				     SIM_SCENARIO_TARGET_IS_SILENT);
	ck_assert_int_eq(sim_scenario_live_target(live, leaf0->id, 0),
			 SIM_SCENARIO_TARGET_IS_SILENT);

	id = apply("{do: reboot, node: leaf0}", err, sizeof err);
	ck_assert_int_eq(
	    sim_scenario_live_stop(live, live_model, id, err, sizeof err),
	    -EOPNOTSUPP);
	bool active;
	ck_assert_str_eq(sim_scenario_live_kind(live, id, &active), "reboot");
	ck_assert(active);
}
END_TEST

START_TEST(test_live_errors_name_line_column_and_key)
{
	char err[256];
	ck_assert_int_lt(apply("do: reboto\n", err, sizeof err), 0);
	ck_assert_str_eq(err, "event:1:5: do: unknown event \"reboto\" (did "
			      "you mean reboot?)");
	ck_assert_int_lt(
	    apply("{do: nic, port: leaf0:Ethernet0}", err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(err, "event:1:"));
	ck_assert_ptr_nonnull(strstr(err, "port"));
	ck_assert_int_lt(apply("[1, 2]", err, sizeof err), 0);
	ck_assert_ptr_nonnull(strstr(err, "one event"));
	ck_assert_int_lt(apply("", err, sizeof err), 0);
	ck_assert_int_lt(apply("{do: [x]", err, sizeof err), 0);
	ck_assert_uint_eq(sim_scenario_live_count(live), 0);
}
END_TEST

/* --loop: replaying a timeline on the same model reuses its flows. */
START_TEST(test_restart_replays_without_new_flows)
{
	char err[512], path[512];
	snprintf(path, sizeof path, "%s/sim/scenarios/incast.yaml", srcdir());
	struct sim_scenario *s = sim_scenario_load(path, err, sizeof err);
	ck_assert_msg(s != NULL, "%s", err);
	struct sim_model *m =
	    sim_model_new(sim_scenario_topo(s), 1, err, sizeof err);
	ck_assert_int_eq(sim_scenario_apply(s, m, 26000000000ull), 0);
	size_t n = sim_model_n_flows(m);
	ck_assert_uint_gt(n, 0);
	for (int round = 0; round < 2; round++) {
		sim_scenario_restart(s);
		ck_assert_int_eq(sim_scenario_apply(s, m, 0), 0);
		ck_assert_int_eq(sim_scenario_apply(s, m, 26000000000ull), 0);
		ck_assert_uint_eq(sim_model_n_flows(m), n);
	}
	sim_model_free(m);
	sim_scenario_free(s);
}
END_TEST

/* ---- Publish noise and partial visibility ---- */

#define IV NS_PER_S
#define T0 INT64_C(1700000000000000000)

/* Member i's offsets from its grid, at(i, k) - k * interval, over n
 * publishes: their least and greatest, and the publishes lost. */
static void offsets(const struct sim_pubsched *s, size_t i, uint64_t n,
		    uint64_t *lo, uint64_t *hi, uint64_t *lost)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (uint64_t k = 0; k < n; k++) {
		bool l;
		uint64_t off = sim_pubsched_at(s, i, k, &l) - k * IV;
		*lo = off < *lo ? off : *lo;
		*hi = off > *hi ? off : *hi;
		*lost += l;
	}
}

/* Each switch keeps its own phase and every publish stays within a
 * quarter interval of its grid point; loss happens at its rate; the
 * same seed gives the same schedule; the quiet one is one grid. */
START_TEST(test_schedule_jitters_within_a_quarter_and_loses_at_its_rate)
{
	struct sim_pubsched_options o;
	sim_pubsched_options_init(&o);
	o.interval_ns = IV;
	o.jitter = 0.25;
	o.loss = 0.2;
	o.seed = 7;
	struct sim_pubsched *a = sim_pubsched_new(8, &o),
			    *b = sim_pubsched_new(8, &o);
	o.seed = 8;
	struct sim_pubsched *c = sim_pubsched_new(8, &o);
	ck_assert(a && b && c);
	uint64_t lost = 0, lo0 = 0, n = 2000;
	bool phases_differ = false, seeds_differ = false;
	for (size_t i = 0; i < 8; i++) {
		uint64_t lo, hi;
		offsets(a, i, n, &lo, &hi, &lost);
		/* [phase, phase + interval/2): within +-1/4 of the grid
		 * point phase + interval/4, and the jitter is used. */
		ck_assert_uint_lt(hi - lo, IV / 2);
		ck_assert_uint_gt(hi - lo, IV * 45 / 100);
		if (i == 0)
			lo0 = lo;
		else if (lo / (IV / 10) != lo0 / (IV / 10))
			phases_differ = true;
		for (uint64_t k = 0; k < 50; k++) {
			bool la, lb, lc;
			uint64_t ta = sim_pubsched_at(a, i, k, &la);
			ck_assert_uint_eq(ta, sim_pubsched_at(b, i, k, &lb));
			ck_assert_int_eq(la, lb);
			if (ta != sim_pubsched_at(c, i, k, &lc))
				seeds_differ = true;
		}
	}
	ck_assert(phases_differ);
	ck_assert(seeds_differ);
	double rate = (double)lost / (double)(8 * n);
	ck_assert_msg(rate > 0.18 && rate < 0.22, "loss rate %.4f", rate);

	/* Taking in 100 ms rounds: one publish per interval each, the
	 * lost ones counted; a long stall takes only the newest. */
	uint64_t taken = 0;
	for (uint64_t now = 0; now < 100 * IV; now += IV / 10)
		for (size_t i = 0; i < 8; i++) {
			bool l;
			taken += sim_pubsched_take(a, i, now, &l);
		}
	ck_assert_uint_ge(taken, 8 * 98);
	ck_assert_uint_le(taken, 8 * 100);
	ck_assert_uint_eq(sim_pubsched_taken(a), taken);
	ck_assert_uint_gt(sim_pubsched_lost(a), 0);
	bool l;
	ck_assert(sim_pubsched_take(a, 0, 1000 * IV, &l));
	ck_assert(!sim_pubsched_take(a, 0, 1000 * IV, &l));

	o.jitter = 0;
	o.loss = 0;
	o.phases = false;
	struct sim_pubsched *q = sim_pubsched_new(8, &o);
	for (size_t i = 0; i < 8; i++)
		for (uint64_t k = 0; k < 100; k++) {
			ck_assert_uint_eq(sim_pubsched_at(q, i, k, &l), k * IV);
			ck_assert(!l);
		}
	o.jitter = 0.5;
	ck_assert_ptr_null(sim_pubsched_new(8, &o));
	sim_pubsched_free(a);
	sim_pubsched_free(b);
	sim_pubsched_free(c);
	sim_pubsched_free(q);
}
END_TEST

/* The first switch of flavour f. */
static const struct sim_node *switch_of(enum sim_flavour f)
{
	for (size_t id = 0; id < sim_topo_n_nodes(topo); id++) {
		const struct sim_node *n = sim_topo_node(topo, id);
		if (n->kind != SIM_NODE_HOST && n->flavour == f)
			return n;
	}
	ck_abort_msg("no switch of flavour %d", (int)f);
	return NULL;
}

/* Reads responses until the sync_response; returns the updates seen. */
static size_t until_sync(struct gsub *g)
{
	size_t updates = 0;
	for (;;) {
		Gnmi__SubscribeResponse *r = gsub_next(g, WAIT_S * 1000);
		ck_assert_msg(r != NULL, "no sync_response");
		bool sync = r->response_case ==
			    GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE;
		if (!sync)
			updates += r->update->n_update;
		gnmi__subscribe_response__free_unpacked(r, NULL);
		if (sync)
			return updates;
	}
}

/*
 * fabsim's run in simulated time: one switch published on its schedule
 * (jitter within a quarter interval less one model tick, a fifth of
 * the publishes lost), stamped with the model time of its counters,
 * which advance in 100 ms ticks. A SAMPLE subscriber sees each
 * publish that happened as one notification with exactly its
 * timestamp, nothing for a lost one (the next sample's interval spans
 * both), and no repeated timestamps in between.
 */
START_TEST(test_late_and_lost_publishes_reach_a_client_as_sent)
{
	char err[512];
	struct sim_serve_gnmi_options go;
	sim_serve_gnmi_options_init(&go);
	go.tick_interval_ns = IV;
	srv = sim_serve_gnmi_new(topo, &go, err, sizeof err);
	ck_assert_msg(srv != NULL, "%s", err);
	const struct sim_node *n = switch_of(SIM_FLAVOUR_OPENCONFIG);
	struct sim_pubsched_options o;
	sim_pubsched_options_init(&o);
	o.interval_ns = IV;
	o.jitter = 0.15; /* fabsim's: a quarter less the 100 ms tick */
	o.loss = 0.2;
	o.seed = 3;
	struct sim_pubsched *sched =
	    sim_pubsched_new(sim_topo_n_nodes(topo), &o);

	char path[256];
	snprintf(path, sizeof path, "/interfaces/interface[name=%s]/state",
		 n->ports[0].name);
	struct gsub g;
	gsub_open(&g, sim_serve_gnmi_port(srv, n->id), NULL, path, IV, false);
	WAIT_FOR(sim_serve_gnmi_streams(srv, n->id) == 1, "no stream");
	ck_assert_uint_eq(until_sync(&g), 0); /* nothing published yet */

	uint64_t model_t = 0, lost = 0, run = 0;
	int64_t prev = 0;
	for (uint64_t k = 0; k < 40; k++) {
		bool l;
		uint64_t at = sim_pubsched_at(sched, n->id, k, &l);
		while (model_t < at) { /* the run loop's model ticks */
			ck_assert_int_eq(sim_model_step(model, IV / 10), 0);
			model_t += IV / 10;
		}
		if (l) {
			lost++;
			run++;
			continue;
		}
		int64_t ts = T0 + (int64_t)model_t;
		ck_assert(
		    sim_serve_gnmi_publish_node(srv, model, n->id, ts, false));
		Gnmi__SubscribeResponse *r = gsub_next(&g, WAIT_S * 1000);
		ck_assert_msg(r != NULL, "no sample for publish %llu",
			      (unsigned long long)k);
		ck_assert_int_eq(r->response_case,
				 GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
		ck_assert_int_eq(r->update->timestamp, ts);
		gnmi__subscribe_response__free_unpacked(r, NULL);
		/* One interval since the last sample, or one more per
		 * lost publish, each within a quarter interval. */
		if (prev) {
			int64_t want = (int64_t)(run + 1) * (int64_t)IV;
			ck_assert_int_gt(ts - prev, want - (int64_t)IV / 2);
			ck_assert_int_lt(ts - prev, want + (int64_t)IV / 2);
		}
		prev = ts;
		run = 0;
	}
	ck_assert_uint_ge(lost, 3);
	/* No tick, no sample: nothing is resent with an old timestamp. */
	ck_assert_ptr_null(gsub_next(&g, 1500));
	gsub_close(&g);
	sim_pubsched_free(sched);
}
END_TEST

/* Updates a ONCE subscription to path (prefix target tg) returns. */
static size_t once_count(const struct sim_node *n, const char *tg,
			 const char *path)
{
	struct gsub g;
	gsub_open(&g, sim_serve_gnmi_port(srv, n->id), tg, path, 0, true);
	size_t c = until_sync(&g);
	gsub_close(&g);
	return c;
}

/* LLDP neighbours a switch should name: every cabled peer but the
 * unmonitored hosts. */
static size_t lldp_expected(const struct sim_node *n,
			    const struct sim_visibility *v, bool *hides)
{
	size_t c = 0;
	for (size_t i = 0; i < n->n_ports; i++) {
		const struct sim_port *p = &n->ports[i];
		if (!p->peer)
			continue;
		if (sim_visibility_lldp_names(v, p->peer->node))
			c++;
		else
			*hides = true;
	}
	return c;
}

/* --unmonitored and --no-lldp as the served trees show them. */
START_TEST(test_unmonitored_and_no_lldp_leave_the_served_trees)
{
	char err[512];
	struct sim_visibility *v = sim_visibility_new(topo);
	const struct sim_node *sonic = switch_of(SIM_FLAVOUR_SONIC),
			      *oc = switch_of(SIM_FLAVOUR_OPENCONFIG);
	ck_assert_int_eq(sim_visibility_mark(v, "host0, host1,host2",
					     SIM_VIS_UNMONITORED, err,
					     sizeof err),
			 0);
	ck_assert_int_eq(sim_visibility_mark(v, oc->name, SIM_VIS_UNMONITORED,
					     err, sizeof err),
			 0);
	ck_assert_int_eq(sim_visibility_mark(v, sonic->name, SIM_VIS_NO_LLDP,
					     err, sizeof err),
			 0);
	ck_assert_int_ne(
	    sim_visibility_mark(v, "host0", SIM_VIS_NO_LLDP, err, sizeof err),
	    0);
	ck_assert_int_ne(
	    sim_visibility_mark(v, "nosuch", SIM_VIS_NO_LLDP, err, sizeof err),
	    0);
	struct sim_serve_gnmi_options go;
	sim_serve_gnmi_options_init(&go);
	go.vis = v;
	srv = sim_serve_gnmi_new(topo, &go, err, sizeof err);
	ck_assert_msg(srv != NULL, "%s", err);
	ck_assert_int_eq(sim_serve_gnmi_port(srv, oc->id), -1);
	ck_assert_int_gt(sim_serve_gnmi_port(srv, sonic->id), 0);
	ck_assert_uint_eq(sim_serve_gnmi_publish(srv, model, T0, true), 5);

	/* The no-LLDP SONiC switch: counters, no LLDP_ENTRY_TABLE. */
	ck_assert_uint_eq(once_count(sonic, "APPL_DB", "/LLDP_ENTRY_TABLE"), 0);
	ck_assert_uint_gt(once_count(sonic, "COUNTERS_DB", "/COUNTERS"), 0);
	/* The other switches name every neighbour switch (the unmonitored
	 * one too) but no unmonitored host. */
	bool hides = false;
	size_t want = 0;
	for (size_t id = 0; id < sim_topo_n_nodes(topo); id++) {
		const struct sim_node *n = sim_topo_node(topo, id);
		if (n->kind == SIM_NODE_HOST || n == oc || n == sonic)
			continue;
		want = lldp_expected(n, v, &hides);
		ck_assert_uint_gt(want, 0);
		if (n->flavour == SIM_FLAVOUR_SONIC)
			ck_assert_uint_eq(
			    once_count(n, "APPL_DB", "/LLDP_ENTRY_TABLE"),
			    want);
		else
			ck_assert_uint_eq(once_count(n, NULL, "/lldp"), want);
	}
	/* Both cases happened: a host left out, the unmonitored switch
	 * named by a neighbour. */
	ck_assert(hides);
	size_t names_oc = 0;
	for (size_t i = 0; i < sim_topo_n_ports(topo); i++) {
		const struct sim_port *p = sim_topo_port(topo, i);
		names_oc += p->peer && p->peer->node == oc && p->node != oc &&
			    p->node->kind != SIM_NODE_HOST;
	}
	ck_assert_uint_gt(names_oc, 0);
	sim_serve_gnmi_free(srv);
	srv = NULL;
	sim_visibility_free(v);
}
END_TEST

/* A SONiC switch whose gNMI server exposes COUNTERS_DB only: its
 * counters, but no APPL_DB PORT_TABLE or LLDP_ENTRY_TABLE; the other
 * SONiC switches keep theirs. Only SONiC switches can be so marked. */
START_TEST(test_no_appl_db_leaves_port_table_and_lldp_out)
{
	char err[512];
	struct sim_visibility *v = sim_visibility_new(topo);
	const struct sim_node *sonic = switch_of(SIM_FLAVOUR_SONIC),
			      *oc = switch_of(SIM_FLAVOUR_OPENCONFIG),
			      *other = NULL;
	for (size_t id = 0; id < sim_topo_n_nodes(topo) && !other; id++) {
		const struct sim_node *n = sim_topo_node(topo, id);
		if (n->kind != SIM_NODE_HOST &&
		    n->flavour == SIM_FLAVOUR_SONIC && n != sonic)
			other = n;
	}
	ck_assert_ptr_nonnull(other);
	ck_assert_int_eq(sim_visibility_mark(v, sonic->name, SIM_VIS_NO_APPL_DB,
					     err, sizeof err),
			 0);
	ck_assert_int_ne(sim_visibility_mark(v, oc->name, SIM_VIS_NO_APPL_DB,
					     err, sizeof err),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "is not a SONiC switch"));
	ck_assert_int_ne(sim_visibility_mark(v, "host0", SIM_VIS_NO_APPL_DB,
					     err, sizeof err),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "is a host, not a switch"));
	struct sim_serve_gnmi_options go;
	sim_serve_gnmi_options_init(&go);
	go.vis = v;
	srv = sim_serve_gnmi_new(topo, &go, err, sizeof err);
	ck_assert_msg(srv != NULL, "%s", err);
	ck_assert_uint_gt(sim_serve_gnmi_publish(srv, model, T0, true), 0);
	ck_assert_uint_gt(once_count(sonic, "COUNTERS_DB", "/COUNTERS"), 0);
	ck_assert_uint_eq(once_count(sonic, "APPL_DB", "/PORT_TABLE"), 0);
	ck_assert_uint_eq(once_count(sonic, "APPL_DB", "/LLDP_ENTRY_TABLE"), 0);
	ck_assert_uint_gt(once_count(other, "APPL_DB", "/PORT_TABLE"), 0);
	ck_assert_uint_gt(once_count(other, "APPL_DB", "/LLDP_ENTRY_TABLE"), 0);
	sim_serve_gnmi_free(srv);
	srv = NULL;
	sim_visibility_free(v);
}
END_TEST

static Suite *sim_serve_suite(void)
{
	Suite *s = suite_create("sim_serve");
	TCase *tc = tcase_create("gnmi");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc,
		       test_every_flavour_serves_the_model_through_its_profile);
	tcase_add_test(tc, test_idle_switches_are_not_published);
	tcase_add_test(tc, test_faults_take_a_switch_down_and_back);
	tcase_add_test(tc, test_control_addresses_are_loopback_only);
	suite_add_tcase(s, tc);
	tc = tcase_create("noise");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(
	    tc, test_schedule_jitters_within_a_quarter_and_loses_at_its_rate);
	tcase_add_test(tc, test_late_and_lost_publishes_reach_a_client_as_sent);
	tcase_add_test(tc, test_unmonitored_and_no_lldp_leave_the_served_trees);
	tcase_add_test(tc, test_no_appl_db_leaves_port_table_and_lldp_out);
	suite_add_tcase(s, tc);
	tc = tcase_create("live");
	tcase_add_checked_fixture(tc, live_setup, live_teardown);
	tcase_add_test(tc, test_live_flows_start_and_stop);
	tcase_add_test(tc, test_live_knobs_links_and_faults_are_undone);
	tcase_add_test(tc, test_live_errors_name_line_column_and_key);
	tcase_add_test(tc, test_restart_replays_without_new_flows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_serve_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
