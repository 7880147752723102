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
#include "model.h"
#include "scenario.h"
#include "serve_gnmi.h"
#include "store.h"
#include "topo.h"

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
