/*
 * check_sim_topo: fabsim's topology. The example files load with the
 * rail wiring they describe and the overrides their links make; every
 * cable is seen from both ends; ports are named in their node's flavour
 * and found by name; LLDP identities are unique and depend only on
 * names; the generator builds the fabrics it is asked for (the 8/64/512/8
 * benchmark fabric included) and refuses bad settings; writing a fabric
 * and loading it back gives the same fabric and the same bytes; each
 * kind of bad file gives its exact one-line message.
 *
 * Examples live in $top_srcdir/sim/topologies and fixtures in
 * $top_srcdir/tests/data/sim_topo ($top_srcdir defaults to ".").
 */
#include "config.h"

#include "topo.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[1024];

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

static struct sim_topo *load_example(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "sim/topologies/%s", name);
	struct sim_topo *t = sim_topo_load(srcpath(rel), err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_str_eq(err, "");
	return t;
}

static struct sim_topo *load(const char *yaml)
{
	return sim_topo_load_buffer("t.yaml", yaml, strlen(yaml), err,
				    sizeof err);
}

static const struct sim_port *port(const struct sim_topo *t,
				   const char *endpoint)
{
	const struct sim_port *p = sim_topo_find_endpoint(t, endpoint);
	ck_assert_msg(p != NULL, "no port %s", endpoint);
	return p;
}

/* "node:port" of p's peer, or "-" when p is uncabled. */
static const char *peer_of(const struct sim_port *p)
{
	static char buf[160];
	if (!p->peer)
		return "-";
	snprintf(buf, sizeof buf, "%s:%s", p->peer->node->name, p->peer->name);
	return buf;
}

/* Every port is where the indices say, and every cable has two ends. */
static void check_consistent(const struct sim_topo *t)
{
	size_t n_ports = 0;
	for (size_t i = 0; i < sim_topo_n_nodes(t); i++) {
		const struct sim_node *n = sim_topo_node(t, i);
		ck_assert_uint_eq(n->id, i);
		ck_assert_ptr_eq(sim_topo_find_node(t, n->name), n);
		ck_assert_ptr_eq(sim_topo_tier_node(t, n->kind, n->tier_index),
				 n);
		for (size_t j = 0; j < n->n_ports; j++) {
			const struct sim_port *p = &n->ports[j];
			ck_assert_ptr_eq(p->node, n);
			ck_assert_uint_eq(p->index, j);
			ck_assert_ptr_eq(sim_topo_port(t, p->id), p);
			ck_assert_ptr_eq(sim_topo_node_port(n, p->name), p);
			if (p->peer) {
				ck_assert_ptr_eq(p->peer->peer, p);
				ck_assert_ptr_ne(p->peer->node, n);
				ck_assert_uint_eq(p->peer->speed, p->speed);
				ck_assert_int_eq(p->peer->explicit_link,
						 p->explicit_link);
			}
		}
		n_ports += n->n_ports;
	}
	ck_assert_uint_eq(n_ports, sim_topo_n_ports(t));
	ck_assert_ptr_null(sim_topo_node(t, sim_topo_n_nodes(t)));
	ck_assert_ptr_null(sim_topo_port(t, sim_topo_n_ports(t)));
}

START_TEST(test_demo_example_has_two_pods_of_two_rails)
{
	struct sim_topo *t = load_example("demo.yaml");
	check_consistent(t);
	ck_assert_uint_eq(sim_topo_n_tier(t, SIM_NODE_SPINE), 2);
	ck_assert_uint_eq(sim_topo_n_tier(t, SIM_NODE_LEAF), 4);
	ck_assert_uint_eq(sim_topo_n_tier(t, SIM_NODE_HOST), 8);
	ck_assert_uint_eq(sim_topo_nics(t), 2);
	ck_assert_uint_eq(sim_topo_pods(t), 2);
	ck_assert_uint_eq(sim_topo_lossless_mask(t), 1u << 3);
	ck_assert_uint_eq(sim_topo_n_ports(t), 2 * 4 + 4 * 6 + 8 * 2);

	/* NIC k of host h is on rail k of h's pod, in the pod's order. */
	for (size_t h = 0; h < 8; h++) {
		const struct sim_node *host =
		    sim_topo_tier_node(t, SIM_NODE_HOST, h);
		ck_assert_int_eq(host->pod, (int)(h / 4));
		ck_assert_uint_eq(host->n_ports, 2);
		for (unsigned k = 0; k < 2; k++) {
			const struct sim_port *nic = &host->ports[k];
			const struct sim_node *leaf = nic->peer->node;
			ck_assert_int_eq(nic->rail, (int)k);
			ck_assert_int_eq(leaf->kind, SIM_NODE_LEAF);
			ck_assert_int_eq(leaf->rail, (int)k);
			ck_assert_int_eq(leaf->pod, host->pod);
			ck_assert_uint_eq(nic->peer->index, h % 4);
			ck_assert_uint_eq(nic->speed, 400);
			ck_assert(!nic->explicit_link);
		}
	}
	ck_assert_str_eq(peer_of(port(t, "host5:mlx5_1")), "leaf3:Ethernet8");
	ck_assert_str_eq(peer_of(port(t, "leaf0:Ethernet32")),
			 "spine0:Ethernet1/1");
	ck_assert_str_eq(peer_of(port(t, "leaf3:Ethernet40")),
			 "spine1:Ethernet4/1");
	ck_assert_uint_eq(port(t, "leaf3:Ethernet40")->speed, 800);
	ck_assert_uint_eq(port(t, "spine1:Ethernet4/1")->speed, 800);
	const struct sim_node *spine = sim_topo_find_node(t, "spine1");
	ck_assert_int_eq(spine->flavour, SIM_FLAVOUR_ARISTA);
	ck_assert_int_eq(spine->pod, -1);
	ck_assert_int_eq(spine->rail, -1);
	ck_assert_uint_eq(spine->n_ports, 4);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_miswired_example_overrides_and_adds_cables)
{
	struct sim_topo *t = load_example("miswired.yaml");
	check_consistent(t);
	ck_assert_uint_eq(sim_topo_lossless_mask(t), (1u << 3) | (1u << 4));
	ck_assert_ptr_nonnull(sim_topo_find_node(t, "gpu01"));
	ck_assert_ptr_null(sim_topo_find_node(t, "gpu00"));

	/* The NIC on the wrong rail, and the port it left empty. */
	const struct sim_port *nic = port(t, "gpu02:mlx5_1");
	ck_assert_str_eq(peer_of(nic), "leaf-b0:eth5");
	ck_assert(nic->explicit_link);
	ck_assert_int_eq(nic->rail, 1);
	ck_assert_int_eq(nic->peer->node->rail, 0);
	ck_assert_int_ne(nic->peer->node->pod, nic->node->pod);

	/* The leaf-to-leaf link took the lowest free port at each end. */
	const struct sim_port *l2l = port(t, "leaf-a1:Ethernet4");
	ck_assert_str_eq(peer_of(l2l), "leaf-b1:eth5");
	ck_assert(l2l->explicit_link);
	ck_assert_uint_eq(l2l->speed, 200);
	ck_assert_str_eq(l2l->port_desc, "leaf-b1:eth5");

	/* The rest of the rail wiring is untouched. */
	ck_assert_str_eq(peer_of(port(t, "gpu02:mlx5_0")), "leaf-a0:Ethernet4");
	ck_assert_str_eq(peer_of(port(t, "gpu03:ens1np0")), "leaf-b1:eth1");
	ck_assert_str_eq(peer_of(port(t, "leaf-b0:eth4")),
			 "spine-b:Ethernet3/1");

	/* Spare ports exist, uncabled, at the node's speed. */
	const struct sim_node *b0 = sim_topo_find_node(t, "leaf-b0");
	ck_assert_uint_eq(b0->n_ports, 8);
	ck_assert_str_eq(peer_of(&b0->ports[7]), "-");
	ck_assert_str_eq(b0->ports[7].name, "eth8");
	ck_assert_str_eq(b0->ports[7].port_desc, "");
	ck_assert_uint_eq(b0->ports[7].speed, 400);
	ck_assert_uint_eq(sim_topo_find_node(t, "leaf-a1")->n_ports, 4);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_large_example_matches_generated_fabric)
{
	struct sim_topo *t = load_example("large.yaml");
	check_consistent(t);
	ck_assert_uint_eq(sim_topo_n_nodes(t), 8 + 64 + 512);
	ck_assert_uint_eq(sim_topo_n_ports(t), 8 * 64 + 64 * 72 + 512 * 8);
	ck_assert_uint_eq(sim_topo_pods(t), 8);
	ck_assert_int_eq(sim_topo_find_node(t, "leaf1")->flavour,
			 SIM_FLAVOUR_ARISTA);
	ck_assert_int_eq(sim_topo_find_node(t, "leaf5")->flavour,
			 SIM_FLAVOUR_OPENCONFIG);
	ck_assert_str_eq(peer_of(port(t, "host511:mlx5_7")),
			 "leaf63:Ethernet504");
	sim_topo_free(t);
}
END_TEST

START_TEST(test_port_names_follow_flavour)
{
	struct sim_topo *t = load("speed: 400G\n"
				  "spines:\n"
				  "  - {name: s0, flavour: openconfig}\n"
				  "leaves:\n"
				  "  - {name: sonic400}\n"
				  "  - {name: sonic800, speed: 800G}\n"
				  "  - {name: eos, flavour: arista}\n"
				  "  - {name: oc, flavour: openconfig}\n"
				  "nics: 4\n"
				  "hosts: [h]\n");
	ck_assert_msg(t != NULL, "%s", err);
	check_consistent(t);
	static const struct {
		const char *node;
		const char *names[2];
	} want[] = {
		{ "s0", { "eth1", "eth2" } },
		{ "sonic400", { "Ethernet0", "Ethernet4" } },
		{ "sonic800", { "Ethernet0", "Ethernet8" } },
		{ "eos", { "Ethernet1/1", "Ethernet2/1" } },
		{ "oc", { "eth1", "eth2" } },
		{ "h", { "mlx5_0", "mlx5_1" } },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const struct sim_node *n = sim_topo_find_node(t, want[i].node);
		ck_assert_ptr_nonnull(n);
		ck_assert_uint_ge(n->n_ports, 2);
		for (size_t j = 0; j < 2; j++)
			ck_assert_str_eq(n->ports[j].name, want[i].names[j]);
	}
	const struct sim_node *h = sim_topo_find_node(t, "h");
	ck_assert_int_eq(h->flavour, SIM_FLAVOUR_MLX5);
	for (unsigned k = 0; k < 4; k++) {
		const struct sim_port *p = &h->ports[k];
		char dev[16], net[16];
		snprintf(dev, sizeof dev, "mlx5_%u", k);
		snprintf(net, sizeof net, "ens%unp0", k);
		ck_assert_str_eq(p->rdma_dev, dev);
		ck_assert_str_eq(p->netdev, net);
		ck_assert_uint_eq(p->rdma_port, 1);
		ck_assert_int_eq(p->rail, (int)k);
	}
	const struct sim_port *sp = &sim_topo_find_node(t, "eos")->ports[0];
	ck_assert_ptr_null(sp->rdma_dev);
	ck_assert_ptr_null(sp->netdev);
	ck_assert_uint_eq(sp->rdma_port, 0);
	ck_assert_int_eq(sp->rail, -1);
	/* Leaf links run at the slower end's speed. */
	ck_assert_uint_eq(port(t, "sonic800:Ethernet0")->speed, 400);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_ports_are_found_only_by_exact_names)
{
	struct sim_topo *t = load_example("demo.yaml");
	const struct sim_node *leaf = sim_topo_find_node(t, "leaf0");
	ck_assert_ptr_eq(sim_topo_node_port(leaf, "Ethernet16"),
			 &leaf->ports[2]);
	ck_assert_ptr_eq(sim_topo_find_port(t, "host3", "ens1np0"),
			 sim_topo_find_port(t, "host3", "mlx5_1"));
	ck_assert_ptr_eq(sim_topo_find_endpoint(t, "spine0:Ethernet4/1"),
			 &sim_topo_find_node(t, "spine0")->ports[3]);
	static const char *const bad[] = {
		"leaf0:Ethernet4", /* 800G SONiC steps by 8 */
		"leaf0:Ethernet08",
		"leaf0:Ethernet48",
		"leaf0:ethernet0",
		"leaf0:Ethernet0 ",
		"leaf0:",
		"leaf0",
		"spine0:Ethernet0/1",
		"spine0:Ethernet1/2",
		"spine0:Ethernet5/1",
		"host0:mlx5_2",
		"host0:mlx5_01",
		"host0:ens2np0",
		"host0:ens0np1",
		"nosuch:Ethernet0",
		":Ethernet0",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(sim_topo_find_endpoint(t, bad[i]) == NULL,
			      "found %s", bad[i]);
	ck_assert_ptr_null(sim_topo_find_node(t, "leaf"));
	ck_assert_ptr_null(sim_topo_find_node(t, NULL));
	ck_assert_ptr_null(sim_topo_node_port(NULL, "eth1"));
	ck_assert_ptr_null(sim_topo_tier_node(t, SIM_NODE_SPINE, 2));
	sim_topo_free(t);
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* n strings must be distinct. */
static void assert_unique(char **s, size_t n, const char *what)
{
	qsort(s, n, sizeof *s, cmp_str);
	for (size_t i = 1; i < n; i++)
		ck_assert_msg(strcmp(s[i - 1], s[i]) != 0, "%s %s twice", what,
			      s[i]);
}

START_TEST(test_lldp_identities_are_unique)
{
	const struct sim_topo_gen g = {
		.spines = 8, .leaves = 64, .hosts = 512, .nics = 8
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	size_t nn = sim_topo_n_nodes(t), np = sim_topo_n_ports(t), nm = 0;
	char **chassis = calloc(nn, sizeof *chassis);
	char **ids = calloc(np, sizeof *ids);
	char **macs = calloc(nn + np, sizeof *macs);
	for (size_t i = 0; i < nn; i++) {
		const struct sim_node *n = sim_topo_node(t, i);
		chassis[i] = (char *)n->chassis_id;
		macs[nm++] = (char *)n->chassis_id;
		/* Locally administered, unicast. */
		ck_assert_uint_eq(n->chassis_mac[0], 0x02);
		ck_assert_uint_eq(strlen(n->chassis_id), 17);
		ck_assert_ptr_nonnull(n->sys_desc);
	}
	for (size_t i = 0; i < np; i++) {
		const struct sim_port *p = sim_topo_port(t, i);
		ids[i] = malloc(256);
		snprintf(ids[i], 256, "%s/%s", p->node->chassis_id, p->port_id);
		if (p->node->kind == SIM_NODE_HOST) {
			ck_assert_int_eq(p->port_id_subtype, SIM_LLDP_PORT_MAC);
			ck_assert_str_eq(p->port_desc, p->netdev);
			ck_assert_uint_eq(p->mac[0], 0x02);
			macs[nm++] = (char *)p->port_id;
		} else {
			ck_assert_int_eq(p->port_id_subtype,
					 SIM_LLDP_PORT_IFNAME);
			ck_assert_str_eq(p->port_id, p->name);
			ck_assert_str_eq(p->port_desc, peer_of(p));
			ck_assert_mem_eq(p->mac, p->node->chassis_mac, 6);
		}
	}
	assert_unique(chassis, nn, "chassis id");
	assert_unique(ids, np, "chassis/port id");
	assert_unique(macs, nm, "MAC");
	for (size_t i = 0; i < np; i++)
		free(ids[i]);
	free(ids);
	free(chassis);
	free(macs);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_lldp_identities_depend_only_on_names)
{
	struct sim_topo *a = load_example("demo.yaml");
	const struct sim_topo_gen g = {
		.spines = 4, .leaves = 8, .hosts = 16, .nics = 4
	};
	struct sim_topo *b = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(b != NULL, "%s", err);
	static const char *const names[] = { "spine1", "leaf3", "host7" };
	for (size_t i = 0; i < 3; i++) {
		const struct sim_node *x = sim_topo_find_node(a, names[i]);
		const struct sim_node *y = sim_topo_find_node(b, names[i]);
		ck_assert_str_eq(x->chassis_id, y->chassis_id);
		ck_assert_str_eq(x->name, y->name);
	}
	ck_assert_str_eq(port(a, "host7:mlx5_1")->port_id,
			 port(b, "host7:mlx5_1")->port_id);
	ck_assert_str_ne(port(a, "host7:mlx5_1")->port_id,
			 port(a, "host7:mlx5_0")->port_id);
	/* Known values: scenarios and fixtures may quote them, so a change
	   of derivation must be noticed. */
	ck_assert_str_eq(sim_topo_find_node(a, "leaf3")->chassis_id,
			 "02:6c:2a:e4:10:cb");
	ck_assert_str_eq(port(a, "host7:mlx5_1")->port_id, "02:04:cb:01:75:fa");
	sim_topo_free(a);
	sim_topo_free(b);
}
END_TEST

START_TEST(test_generator_sizes)
{
	static const struct {
		unsigned s, l, h, n;
	} cases[] = {
		{ 1, 1, 1, 1 }, { 2, 4, 8, 2 },	  { 3, 6, 7, 3 },
		{ 4, 8, 5, 8 }, { 2, 16, 33, 4 }, { 1, 3, 2, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct sim_topo_gen g = { .spines = cases[i].s,
						.leaves = cases[i].l,
						.hosts = cases[i].h,
						.nics = cases[i].n };
		struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
		ck_assert_msg(t != NULL, "%s", err);
		check_consistent(t);
		unsigned pods = g.leaves / g.nics;
		ck_assert_uint_eq(sim_topo_pods(t), pods);
		ck_assert_uint_eq(sim_topo_n_nodes(t),
				  g.spines + g.leaves + g.hosts);
		/* Leaf ports: every NIC plus one uplink per spine. */
		ck_assert_uint_eq(sim_topo_n_ports(t),
				  (size_t)g.spines * g.leaves +
				      (size_t)g.leaves * g.spines +
				      2 * (size_t)g.hosts * g.nics);
		ck_assert_str_eq(sim_topo_source(t), "generated");
		/* Every port is cabled; pods differ by one host at most. */
		unsigned min = ~0u, max = 0;
		for (size_t p = 0; p < sim_topo_n_ports(t); p++)
			ck_assert_ptr_nonnull(sim_topo_port(t, p)->peer);
		for (size_t l = 0; l < g.leaves; l++) {
			const struct sim_node *n =
			    sim_topo_tier_node(t, SIM_NODE_LEAF, l);
			unsigned hosts = (unsigned)n->n_ports - g.spines;
			min = hosts < min ? hosts : min;
			max = hosts > max ? hosts : max;
			ck_assert_int_eq(n->rail, (int)(l % g.nics));
			ck_assert_int_eq(n->pod, (int)(l / g.nics));
		}
		ck_assert_uint_le(max - min, 1);
		sim_topo_free(t);
	}
}
END_TEST

START_TEST(test_generator_builds_the_benchmark_fabric)
{
	const struct sim_topo_gen g = { .spines = 8,
					.leaves = 64,
					.hosts = 512,
					.nics = 8,
					.speed = 800,
					.host_speed = 400 };
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	check_consistent(t);
	size_t nic_ports = 0, switch_ports = 0;
	for (size_t i = 0; i < sim_topo_n_ports(t); i++) {
		const struct sim_port *p = sim_topo_port(t, i);
		if (p->node->kind != SIM_NODE_HOST) {
			switch_ports++;
			continue;
		}
		nic_ports++;
		ck_assert_int_eq(p->peer->node->rail, p->rail);
		ck_assert_int_eq(p->peer->node->pod, p->node->pod);
		ck_assert_uint_eq(p->speed, 400);
	}
	ck_assert_uint_eq(nic_ports, 4096);
	ck_assert_uint_eq(switch_ports, 64 * 72 + 8 * 64);
	ck_assert_uint_eq(sim_topo_find_node(t, "leaf0")->n_ports, 72);
	ck_assert_str_eq(peer_of(port(t, "leaf63:Ethernet568")),
			 "spine7:Ethernet504");
	ck_assert_uint_eq(port(t, "leaf63:Ethernet568")->speed, 800);
	ck_assert_int_eq(sim_topo_find_node(t, "host64")->pod, 1);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_generator_mixes_flavours_round_robin)
{
	const enum sim_flavour mix[] = { SIM_FLAVOUR_SONIC, SIM_FLAVOUR_ARISTA,
					 SIM_FLAVOUR_OPENCONFIG };
	const struct sim_topo_gen g = { .spines = 2,
					.leaves = 4,
					.hosts = 4,
					.nics = 2,
					.flavours = mix,
					.n_flavours = 3,
					.lossless_mask = 0x18 };
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_int_eq(sim_topo_find_node(t, "spine1")->flavour,
			 SIM_FLAVOUR_ARISTA);
	ck_assert_int_eq(sim_topo_find_node(t, "leaf2")->flavour,
			 SIM_FLAVOUR_OPENCONFIG);
	ck_assert_int_eq(sim_topo_find_node(t, "leaf3")->flavour,
			 SIM_FLAVOUR_SONIC);
	ck_assert_int_eq(sim_topo_find_node(t, "host0")->flavour,
			 SIM_FLAVOUR_MLX5);
	ck_assert_uint_eq(sim_topo_lossless_mask(t), 0x18);
	ck_assert_str_eq(sim_topo_find_node(t, "leaf2")->ports[0].name, "eth1");
	sim_topo_free(t);
}
END_TEST

static const struct {
	struct sim_topo_gen g;
	const char *msg;
} bad_gen[] = {
	{ { .spines = 0, .leaves = 2, .hosts = 2, .nics = 1 },
	  "spines must be between 1 and 65536, not 0" },
	{ { .spines = 1, .leaves = 0, .hosts = 2, .nics = 1 },
	  "leaves must be between 1 and 65536, not 0" },
	{ { .spines = 1, .leaves = 2, .hosts = 0, .nics = 1 },
	  "hosts must be between 1 and 65536, not 0" },
	{ { .spines = 1, .leaves = 2, .hosts = 2, .nics = 0 },
	  "nics must be between 1 and 16, not 0" },
	{ { .spines = 1, .leaves = 8, .hosts = 2, .nics = 17 },
	  "nics must be between 1 and 16, not 17" },
	{ { .spines = 1, .leaves = 8, .hosts = 2, .nics = 16 },
	  "nics (16) must not exceed leaves (8): NIC k of every host goes to "
	  "the leaf of rail k" },
	{ { .spines = 1, .leaves = 6, .hosts = 2, .nics = 4 },
	  "leaves (6) must be a multiple of nics (4): leaves make pods of one "
	  "leaf per rail" },
	{ { .spines = 1, .leaves = 2, .hosts = 2, .nics = 1, .speed = 300 },
	  "speed 300 is not supported (100, 200, 400 or 800 Gb/s)" },
	{ { .spines = 1, .leaves = 2, .hosts = 2, .nics = 1, .host_speed = 25 },
	  "host speed 25 is not supported (100, 200, 400 or 800 Gb/s)" },
	{ { .spines = 30000, .leaves = 30000, .hosts = 30000, .nics = 1 },
	  "the fabric would have more than 65536 nodes" },
	{ { .spines = 1, .leaves = 2000, .hosts = 2, .nics = 1 },
	  "2000 leaves need 2000 ports on every spine, more than 1024" },
	{ { .spines = 8, .leaves = 1, .hosts = 1020, .nics = 1 },
	  "pod 0 has 1020 hosts: its leaves would need 1028 ports, more than "
	  "1024" },
};

START_TEST(test_generator_refuses_bad_settings)
{
	struct sim_topo *t = sim_topo_generate(&bad_gen[_i].g, err, sizeof err);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, bad_gen[_i].msg);
}
END_TEST

START_TEST(test_generator_refuses_host_flavour)
{
	const enum sim_flavour mix[] = { SIM_FLAVOUR_MLX5 };
	const struct sim_topo_gen g = { .spines = 1,
					.leaves = 1,
					.hosts = 1,
					.nics = 1,
					.flavours = mix,
					.n_flavours = 1 };
	ck_assert_ptr_null(sim_topo_generate(&g, err, sizeof err));
	ck_assert_str_eq(err, "flavour 3 is not a switch flavour (sonic, "
			      "arista or openconfig)");
	ck_assert_ptr_null(sim_topo_generate(NULL, err, sizeof err));
}
END_TEST

/* t written as YAML, in a malloc'd string. */
static char *to_yaml(const struct sim_topo *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(sim_topo_write_yaml(t, f), 0);
	fclose(f);
	return buf;
}

static void assert_same_port(const struct sim_port *p, const struct sim_port *q)
{
	ck_assert_str_eq(p->name, q->name);
	ck_assert_uint_eq(p->id, q->id);
	ck_assert_uint_eq(p->speed, q->speed);
	ck_assert_int_eq(p->explicit_link, q->explicit_link);
	ck_assert_mem_eq(p->mac, q->mac, 6);
	ck_assert_int_eq(p->port_id_subtype, q->port_id_subtype);
	ck_assert_str_eq(p->port_id, q->port_id);
	ck_assert_str_eq(p->port_desc, q->port_desc);
	ck_assert_int_eq(p->rail, q->rail);
	ck_assert_uint_eq(p->rdma_port, q->rdma_port);
	ck_assert_int_eq(!p->netdev, !q->netdev);
	if (p->netdev)
		ck_assert_str_eq(p->netdev, q->netdev);
	ck_assert_int_eq(!p->peer, !q->peer);
	if (p->peer)
		ck_assert_uint_eq(p->peer->id, q->peer->id);
}

static void assert_same_fabric(const struct sim_topo *a,
			       const struct sim_topo *b)
{
	ck_assert_uint_eq(sim_topo_n_nodes(a), sim_topo_n_nodes(b));
	ck_assert_uint_eq(sim_topo_n_ports(a), sim_topo_n_ports(b));
	ck_assert_uint_eq(sim_topo_lossless_mask(a), sim_topo_lossless_mask(b));
	ck_assert_uint_eq(sim_topo_nics(a), sim_topo_nics(b));
	ck_assert_uint_eq(sim_topo_pods(a), sim_topo_pods(b));
	for (size_t i = 0; i < sim_topo_n_nodes(a); i++) {
		const struct sim_node *m = sim_topo_node(a, i);
		const struct sim_node *n = sim_topo_node(b, i);
		ck_assert_str_eq(m->name, n->name);
		ck_assert_int_eq(m->kind, n->kind);
		ck_assert_int_eq(m->flavour, n->flavour);
		ck_assert_uint_eq(m->tier_index, n->tier_index);
		ck_assert_int_eq(m->pod, n->pod);
		ck_assert_int_eq(m->rail, n->rail);
		ck_assert_uint_eq(m->speed, n->speed);
		ck_assert_str_eq(m->chassis_id, n->chassis_id);
		ck_assert_str_eq(m->sys_desc, n->sys_desc);
		ck_assert_uint_eq(m->n_ports, n->n_ports);
		for (size_t j = 0; j < m->n_ports; j++)
			assert_same_port(&m->ports[j], &n->ports[j]);
	}
}

/* Writes t, loads the text, compares; the reload writes the same bytes. */
static void round_trip(const struct sim_topo *t)
{
	char *text = to_yaml(t);
	struct sim_topo *u =
	    sim_topo_load_buffer("w.yaml", text, strlen(text), err, sizeof err);
	ck_assert_msg(u != NULL, "%s in:\n%s", err, text);
	assert_same_fabric(t, u);
	char *again = to_yaml(u);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
	sim_topo_free(u);
}

START_TEST(test_written_examples_load_back_the_same)
{
	static const char *const names[] = { "demo.yaml", "miswired.yaml",
					     "large.yaml" };
	for (size_t i = 0; i < 3; i++) {
		struct sim_topo *t = load_example(names[i]);
		round_trip(t);
		sim_topo_free(t);
	}
}
END_TEST

START_TEST(test_written_generated_fabric_loads_back_the_same)
{
	const enum sim_flavour mix[] = { SIM_FLAVOUR_ARISTA,
					 SIM_FLAVOUR_SONIC };
	const struct sim_topo_gen g = { .spines = 8,
					.leaves = 64,
					.hosts = 512,
					.nics = 8,
					.speed = 800,
					.host_speed = 200,
					.flavours = mix,
					.n_flavours = 2,
					.lossless_mask = 0x08 | 0x10 };
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	round_trip(t);
	char *text = to_yaml(t);
	ck_assert_str_eq(text,
			 "# fabsim topology (see doc/fabsim-topology.md)\n"
			 "lossless_priorities: [3, 4]\n"
			 "speed: 800G\n"
			 "flavour: sonic\n"
			 "nics: 8\n"
			 "wiring: rail\n"
			 "spines:\n"
			 "  count: 8\n"
			 "  name: spine%d\n"
			 "  flavour: [arista, sonic]\n"
			 "leaves:\n"
			 "  count: 64\n"
			 "  name: leaf%d\n"
			 "  flavour: [arista, sonic]\n"
			 "hosts:\n"
			 "  count: 512\n"
			 "  name: host%d\n"
			 "  speed: 200G\n");
	free(text);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_written_listed_nodes_and_links_load_back_the_same)
{
	struct sim_topo *t =
	    load("lossless_priorities: []\n"
		 "wiring: none\n"
		 "flavour: arista\n"
		 "spines: [\"null\", {name: s1, ports: 4}]\n"
		 "leaves:\n"
		 "  - {name: l0, flavour: sonic, speed: 800G, ports: 3}\n"
		 "  - l1\n"
		 "hosts: {count: 3, name: \"%03d.gpu\"}\n"
		 "links:\n"
		 "  - [000.gpu, l0]\n"
		 "  - [001.gpu:ens0np0, l0:Ethernet8]\n"
		 "  - {a: l1, b: s1:Ethernet3/1, speed: 100G}\n"
		 "  - [l0, \"null\"]\n");
	ck_assert_msg(t != NULL, "%s", err);
	check_consistent(t);
	ck_assert_uint_eq(sim_topo_lossless_mask(t), 0);
	ck_assert_uint_eq(sim_topo_pods(t), 0);
	ck_assert_str_eq(peer_of(port(t, "000.gpu:mlx5_0")), "l0:Ethernet0");
	ck_assert_str_eq(peer_of(port(t, "l0:Ethernet16")), "null:Ethernet1/1");
	ck_assert_str_eq(peer_of(port(t, "s1:Ethernet1/1")), "-");
	ck_assert_uint_eq(port(t, "l1:Ethernet1/1")->speed, 100);
	ck_assert_int_eq(sim_topo_find_node(t, "l0")->rail, -1);
	ck_assert_int_eq(sim_topo_find_node(t, "001.gpu")->pod, -1);
	round_trip(t);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_write_reports_errors)
{
	struct sim_topo *t = load_example("demo.yaml");
	FILE *f = fopen("/dev/full", "w");
	if (f) {
		ck_assert_int_eq(sim_topo_write_yaml(t, f), -EIO);
		fclose(f);
	}
	sim_topo_free(t);
}
END_TEST

/* A valid fabric the bad inputs below start from. */
#define BASE                   \
	"spines: {count: 1}\n" \
	"leaves: {count: 2}\n" \
	"hosts: {count: 2}\n"

static const struct {
	const char *yaml;
	const char *msg;
} bad[] = {
	/* Unknown keys, with a suggestion when one is close. */
	{ "flavor: sonic\n" BASE,
	  "t.yaml:1:1: flavor: unknown key (did you mean \"flavour\"?)" },
	{ "spines: {count: 1, colour: red}\n"
	  "leaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:20: spines.colour: unknown key" },
	{ "spines: {count: 1}\nleaves: {count: 2}\n"
	  "hosts: [{name: h, flavour: sonic}]\n",
	  "t.yaml:3:19: hosts[0].flavour: unknown key" },
	{ BASE "links: [{a: host0, b: leaf0, sped: 100G}]\n",
	  "t.yaml:4:30: links[0].sped: unknown key (did you mean \"speed\"?)" },
	/* Values. */
	{ "speed: 300G\n" BASE,
	  "t.yaml:1:8: speed: \"300G\" is not a supported speed (100G, 200G, "
	  "400G or 800G)" },
	{ "speed: 400\n" BASE,
	  "t.yaml:1:8: speed: \"400\" is not a supported speed (100G, 200G, "
	  "400G or 800G)" },
	{ "spines: {count: 1}\nleaves: [{name: l, speed: 25G}]\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:2:27: leaves[0].speed: \"25G\" is not a supported speed "
	  "(100G, 200G, 400G or 800G)" },
	{ "flavour: cisco\n" BASE,
	  "t.yaml:1:10: flavour: expected sonic, arista or openconfig, not "
	  "\"cisco\"" },
	{ "spines: {count: 1, flavour: [sonic, mlx5]}\n"
	  "leaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:37: spines.flavour[1]: expected sonic, arista or "
	  "openconfig, not \"mlx5\"" },
	{ "nics: 17\n" BASE,
	  "t.yaml:1:7: nics: must be between 1 and 16, not 17" },
	{ "nics: -1\n" BASE,
	  "t.yaml:1:7: nics: must be between 1 and 16, not -1" },
	{ "nics: two\n" BASE,
	  "t.yaml:1:7: nics: expected a number, not \"two\"" },
	{ "spines: {count: 0}\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:17: spines.count: must be between 1 and 65536, not 0" },
	{ "lossless_priorities: [3, 8]\n" BASE,
	  "t.yaml:1:26: lossless_priorities[1]: must be between 0 and 7, not "
	  "8" },
	{ "lossless_priorities: [3, 3]\n" BASE,
	  "t.yaml:1:26: lossless_priorities[1]: priority 3 is listed twice" },
	{ "wiring: mesh\n" BASE,
	  "t.yaml:1:9: wiring: expected rail or none, not \"mesh\"" },
	{ "spines: {count: 1, name: spine}\n"
	  "leaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:26: spines.name: \"spine\" is not a name pattern (name "
	  "characters around one %d or %0<width>d)" },
	{ "spines: {count: 1, name: \"s%d%d\"}\n"
	  "leaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:26: spines.name: \"s%d%d\" is not a name pattern (name "
	  "characters around one %d or %0<width>d)" },
	{ "spines: [\"sp ine\"]\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:10: spines[0]: \"sp ine\" is not a valid node name (1 to "
	  "64 characters of A-Z a-z 0-9 . _ -)" },
	{ "spines: [\"a:b\"]\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:10: spines[0]: \"a:b\" is not a valid node name (1 to 64 "
	  "characters of A-Z a-z 0-9 . _ -)" },
	{ "spines: {count: 1}\nleaves: {count: 2}\nhosts: {count: 65535}\n",
	  "t.yaml:3:16: hosts.count: the fabric would have more than 65536 "
	  "nodes" },
	{ "spines: {count: 1}\nleaves: {count: 2}\n"
	  "hosts: {count: 2, name: "
	  "h234567890123456789012345678901234567890123456789012345678901234%d}"
	  "\n",
	  "t.yaml:3:25: hosts.name: makes names longer than 64 characters" },
	{ "spines: {count: 1}\nleaves: {count: 2}\n"
	  "hosts: {count: 2, ports: 4}\n",
	  "t.yaml:3:19: hosts.ports: unknown key" },
	/* Structure. */
	{ "spines: {count: 1}\nleaves: {count: 2}\n",
	  "t.yaml:1:1: missing required key \"hosts\"" },
	{ "spines: []\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:9: spines: needs at least one spine" },
	{ "spines: 2\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:9: spines: expected a list of nodes or a mapping with "
	  "count" },
	{ "spines: [[a]]\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:1:10: spines[0]: expected a node name or a mapping with "
	  "name, not a list" },
	{ "spines: [{flavour: sonic}]\nleaves: {count: 2}\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:1:10: spines[0]: missing required key \"name\"" },
	{ "- a\n- b\n", "t.yaml:1:1: expected a mapping of settings at the "
			"top level" },
	{ "", "t.yaml: empty topology file" },
	{ "speed: 400G\nspeed: 800G\n" BASE,
	  "t.yaml:2:1: speed: duplicate key (first at 1:1)" },
	{ "a: &x 1\n", "t.yaml:1:4: anchors and aliases are not supported" },
	{ BASE "---\n" BASE, "t.yaml:4:1: only one YAML document is allowed" },
	/* YAML syntax. */
	{ "spines: {count: 1\nleaves: {count: 2}\n",
	  "t.yaml:2:7: did not find expected ',' or '}' (while parsing a "
	  "flow mapping at 1:9)" },
	{ "spines:\n  count: 1\n count: 2\n",
	  "t.yaml:3:2: did not find expected key (while parsing a block "
	  "mapping at 1:1)" },
	/* Names. */
	{ "spines: [leaf0]\nleaves: {count: 2}\nhosts: {count: 2}\n",
	  "t.yaml:2:9: leaves: duplicate node name \"leaf0\" (first at 1:10)" },
	{ "spines: {count: 1}\nleaves: [l0, l1, {name: l0}]\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:2:25: leaves[2].name: duplicate node name \"l0\" (first at "
	  "2:10)" },
	{ "hosts: [spine0]\nspines: {count: 1, name: spine%d}\n"
	  "leaves: {count: 2}\n",
	  "t.yaml:2:26: spines.name: duplicate node name \"spine0\" (first at "
	  "1:9)" },
	/* Rails. */
	{ "nics: 4\n" BASE,
	  "t.yaml:1:7: nics: 4 NICs per host need at least 4 leaves (one per "
	  "rail), not 2" },
	{ "nics: 2\nspines: {count: 1}\nleaves: {count: 3}\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:3:17: leaves.count: 3 leaves do not make pods of 2 rails "
	  "(one per NIC); use a multiple of 2" },
	{ "nics: 2\nspines: {count: 1}\nleaves: [a, b, c]\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:3:9: leaves: 3 leaves do not make pods of 2 rails (one per "
	  "NIC); use a multiple of 2" },
	{ "spines: {count: 1}\nleaves: [{name: l0, ports: 1}, l1]\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:2:28: leaves[0].ports: 1 is fewer than the 2 ports the "
	  "wiring of l0 needs" },
	{ "spines: {count: 1, ports: 1}\nleaves: {count: 2}\n"
	  "hosts: {count: 2}\n",
	  "t.yaml:1:27: spines.ports: 1 is fewer than the 2 ports the "
	  "wiring of spine0 needs" },
	/* Links. */
	{ BASE "links: [[host0, leaf9]]\n",
	  "t.yaml:4:17: links[0][1]: no node named \"leaf9\"" },
	{ BASE "links: [[host0:mlx5_1, leaf0]]\n",
	  "t.yaml:4:10: links[0][0]: host0 has no port \"mlx5_1\" (its only "
	  "port is mlx5_0)" },
	{ BASE "links:\n  - {a: host0, b: leaf0:Ethernet2}\n",
	  "t.yaml:5:19: links[0].b: leaf0 has no port \"Ethernet2\" (its ports "
	  "are Ethernet0 and Ethernet4)" },
	{ BASE "links:\n  - [spine0:Ethernet12, leaf1]\n",
	  "t.yaml:5:6: links[0][0]: spine0 has no port \"Ethernet12\" (its "
	  "ports are Ethernet0 and Ethernet4)" },
	{ "wiring: none\n" BASE "links: [[leaf0:Ethernet0, host0]]\n",
	  "t.yaml:5:10: links[0][0]: leaf0 has no port \"Ethernet0\" (it has "
	  "none: give it ports, or name only the node to add one)" },
	{ BASE "links: [{a: \"host0:\", b: leaf0}]\n",
	  "t.yaml:4:13: links[0].a: \"host0:\": missing port name after ':'" },
	{ BASE "links:\n  - [host0:mlx5_0, leaf1:Ethernet0]\n"
	       "  - [leaf1:Ethernet0, spine0]\n",
	  "t.yaml:6:6: links[1][0]: port leaf1:Ethernet0 is already cabled by "
	  "links[0] (at 5:20)" },
	{ BASE "links: [[host0, leaf1]]\n",
	  "t.yaml:4:10: links[0][0]: host0 has no free port (its only port "
	  "is cabled)" },
	{ "nics: 2\n" BASE "links:\n  - [leaf1, spine0:Ethernet0]\n"
	  "  - [host1, spine0]\n",
	  "t.yaml:7:6: links[1][0]: host1 has no free port (all 2 of its "
	  "ports are cabled)" },
	{ BASE "links: [{a: leaf0, b: leaf0:Ethernet4}]\n",
	  "t.yaml:4:23: links[0].b: both ends are on leaf0" },
	{ BASE "links: [[host0]]\n",
	  "t.yaml:4:9: links[0]: expected two endpoints [a, b], not 1" },
	{ BASE "links: [{a: host0}]\n",
	  "t.yaml:4:9: links[0]: missing required key \"b\"" },
	{ BASE "links: [[host0, leaf0, leaf1]]\n",
	  "t.yaml:4:9: links[0]: expected two endpoints [a, b], not 3" },
	{ BASE "links: host0\n",
	  "t.yaml:4:8: links: expected a list of links" },
};

START_TEST(test_bad_input_has_exact_message)
{
	struct sim_topo *t = load(bad[_i].yaml);
	ck_assert_msg(t == NULL, "loaded: %s", bad[_i].yaml);
	ck_assert_str_eq(err, bad[_i].msg);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(test_bad_file_names_file_line_and_column)
{
	char want[4200];
	const char *path = srcpath("tests/data/sim_topo/wrong-port.yaml");
	ck_assert_ptr_null(sim_topo_load(path, err, sizeof err));
	snprintf(want, sizeof want,
		 "%s:9:23: links[1][1]: port leaf1:Ethernet0 is already cabled "
		 "by links[0] (at 8:20)",
		 path);
	ck_assert_str_eq(err, want);

	path = srcpath("tests/data/sim_topo/no-such-file.yaml");
	ck_assert_ptr_null(sim_topo_load(path, err, sizeof err));
	snprintf(want, sizeof want,
		 "%s: cannot open: No such file or directory", path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_file_too_large_is_refused)
{
	size_t n = SIM_TOPO_MAX_FILE_BYTES + 1;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	ck_assert_ptr_null(
	    sim_topo_load_buffer("big.yaml", big, n, err, sizeof err));
	ck_assert_str_eq(err, "big.yaml: file is larger than 4194304 bytes");

	char path[256];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/check_sim_topo.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	ck_assert_uint_eq(fwrite(big, 1, n, f), n);
	fclose(f);
	char want[300];
	snprintf(want, sizeof want, "%s: file is larger than 4194304 bytes",
		 path);
	ck_assert_ptr_null(sim_topo_load(path, err, sizeof err));
	ck_assert_str_eq(err, want);
	unlink(path);
	free(big);
}
END_TEST

START_TEST(test_nesting_too_deep_is_refused)
{
	/* Eight levels are fine as YAML (then refused as a value). */
	ck_assert_ptr_null(load("a: [[[[[[[1]]]]]]]\n"));
	ck_assert_str_eq(err, "t.yaml:1:1: a: unknown key");
	ck_assert_ptr_null(load("a: [[[[[[[[1]]]]]]]]\n"));
	ck_assert_str_eq(err, "t.yaml:1:11: nested deeper than 8 levels");
	ck_assert_ptr_null(load("spines:\n  count:\n    x:\n      y:\n"
				"        z:\n          w:\n            v:\n"
				"              u:\n                t: 1\n"));
	ck_assert_str_eq(err, "t.yaml:9:17: nested deeper than 8 levels");
}
END_TEST

START_TEST(test_names_and_speeds_parse)
{
	enum sim_flavour f;
	unsigned g;
	ck_assert_int_eq(sim_topo_parse_flavour("arista", &f), 0);
	ck_assert_int_eq(f, SIM_FLAVOUR_ARISTA);
	ck_assert_int_eq(sim_topo_parse_flavour("mlx5", &f), -EINVAL);
	ck_assert_int_eq(sim_topo_parse_flavour("SONiC", &f), -EINVAL);
	ck_assert_int_eq(sim_topo_parse_speed("800G", &g), 0);
	ck_assert_uint_eq(g, 800);
	ck_assert_int_eq(sim_topo_parse_speed("40G", &g), -EINVAL);
	ck_assert_int_eq(sim_topo_parse_speed("400", &g), -EINVAL);
	ck_assert_str_eq(sim_topo_flavour_name(SIM_FLAVOUR_OPENCONFIG),
			 "openconfig");
	ck_assert_str_eq(sim_topo_flavour_name(SIM_FLAVOUR_MLX5), "mlx5");
	ck_assert_str_eq(sim_topo_flavour_name((enum sim_flavour)9), "?");
	ck_assert_str_eq(sim_topo_kind_name(SIM_NODE_LEAF), "leaf");
	ck_assert_str_eq(sim_topo_kind_name((enum sim_node_kind)7), "?");
	sim_topo_free(NULL);
}
END_TEST

static Suite *sim_topo_suite(void)
{
	Suite *s = suite_create("sim_topo");
	TCase *tc = tcase_create("examples");
	tcase_add_test(tc, test_demo_example_has_two_pods_of_two_rails);
	tcase_add_test(tc, test_miswired_example_overrides_and_adds_cables);
	tcase_add_test(tc, test_large_example_matches_generated_fabric);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_port_names_follow_flavour);
	tcase_add_test(tc, test_ports_are_found_only_by_exact_names);
	tcase_add_test(tc, test_lldp_identities_are_unique);
	tcase_add_test(tc, test_lldp_identities_depend_only_on_names);
	tcase_add_test(tc, test_names_and_speeds_parse);
	suite_add_tcase(s, tc);

	tc = tcase_create("generator");
	tcase_add_test(tc, test_generator_sizes);
	tcase_add_test(tc, test_generator_builds_the_benchmark_fabric);
	tcase_add_test(tc, test_generator_mixes_flavours_round_robin);
	tcase_add_loop_test(tc, test_generator_refuses_bad_settings, 0,
			    sizeof bad_gen / sizeof *bad_gen);
	tcase_add_test(tc, test_generator_refuses_host_flavour);
	suite_add_tcase(s, tc);

	tc = tcase_create("write");
	tcase_add_test(tc, test_written_examples_load_back_the_same);
	tcase_add_test(tc, test_written_generated_fabric_loads_back_the_same);
	tcase_add_test(tc,
		       test_written_listed_nodes_and_links_load_back_the_same);
	tcase_add_test(tc, test_write_reports_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_bad_input_has_exact_message, 0,
			    sizeof bad / sizeof *bad);
	tcase_add_test(tc, test_bad_file_names_file_line_and_column);
	tcase_add_test(tc, test_file_too_large_is_refused);
	tcase_add_test(tc, test_nesting_too_deep_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_topo_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
