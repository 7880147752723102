/*
 * check_sim_snmp: fabsim's embedded SNMP agent answers net-snmp's own
 * command-line tools (snmpget, snmpgetnext, snmpbulkget, snmpwalk,
 * snmpbulkwalk from Debian's snmp package) as the switches of the
 * model: a fabric with a switch of each flavour (SONiC, Arista EOS,
 * OpenConfig), flows stepped in the model, then ifName per flavour, HC
 * counters equal to the model's, Counter32 = the low 32 bits past 2^32,
 * per-priority PFC counters, LLDP neighbours from the cabling, sysUpTime
 * and counters reset by a reboot, GETBULK and GETNEXT walks that agree
 * and end at table and MIB ends, v2c and v3 authPriv (wrong community or
 * key: no answer), silent / refusing / healthy faults, garbage packets.
 *
 * The tools run as child processes while the test process serves them
 * with sim_snmp_poll(); they read no user configuration (SNMPCONFPATH,
 * SNMP_PERSISTENT_DIR and MIBDIRS point at a private directory) and use
 * numeric OIDs. Exits 77 when the tools are not installed. Every test
 * runs in its own process (net-snmp's agent starts once per process).
 */
#include "config.h"

#include "model.h"
#include "snmp_agent.h"
#include "topo.h"

#include "sim_snmp_tool.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define TICK	 100000000ull /* 100 ms */
#define OUT_MAX	 (512 * 1024)
#define ROWS_MAX 4096

static char err[1024];
static char envdir[256];

static struct sim_topo *T;
static struct sim_model *M;
static struct sim_snmp *S;
static char out[OUT_MAX];

/* 3 spines (sonic, arista, openconfig), 2 leaves (sonic, arista), 2
 * hosts with one NIC each; 400G; flows host0 <-> host1 on priority 3. */
static void start_with(const struct sim_snmp_options *o)
{
	static const enum sim_flavour flav[] = { SIM_FLAVOUR_SONIC,
						 SIM_FLAVOUR_ARISTA,
						 SIM_FLAVOUR_OPENCONFIG };
	struct sim_topo_gen g = { .spines = 3,
				  .leaves = 2,
				  .hosts = 2,
				  .nics = 1,
				  .flavours = flav,
				  .n_flavours = 3 };
	T = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(T != NULL, "%s", err);
	M = sim_model_new(T, 7, err, sizeof err);
	ck_assert_msg(M != NULL, "%s", err);
	const struct sim_node *h0 = sim_topo_tier_node(T, SIM_NODE_HOST, 0);
	const struct sim_node *h1 = sim_topo_tier_node(T, SIM_NODE_HOST, 1);
	struct sim_model_flow f = { .src = h0->ports[0].id,
				    .dst = h1->ports[0].id,
				    .prio = 3,
				    .gbps = 100 };
	ck_assert_int_ge(sim_model_add_flow(M, &f), 0);
	f.src = h1->ports[0].id;
	f.dst = h0->ports[0].id;
	ck_assert_int_ge(sim_model_add_flow(M, &f), 0);
	/* net-snmp's files under the suite's directory, so that a failed
	   test (which never reaches stop()) leaves nothing behind. */
	struct sim_snmp_options oo = *o;
	char state[300];
	snprintf(state, sizeof state, "%s/state-%ld", envdir, (long)getpid());
	oo.state_dir = state;
	S = sim_snmp_new(T, M, &oo, err, sizeof err);
	ck_assert_msg(S != NULL, "%s", err);
}

static void start(void)
{
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	start_with(&o);
}

static void stop(void)
{
	sim_snmp_free(S);
	sim_model_free(M);
	sim_topo_free(T);
	S = NULL;
	M = NULL;
	T = NULL;
}

static void steps(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(sim_model_step(M, TICK), 0);
}

/* The switches in node order. */
static size_t n_switches(void)
{
	return sim_topo_n_tier(T, SIM_NODE_SPINE) +
	       sim_topo_n_tier(T, SIM_NODE_LEAF);
}

static const struct sim_node *switch_node(size_t i)
{
	return sim_topo_node(T, i); /* spines and leaves come first */
}

/* Runs a tool while serving the agent (sim_snmp_tool.h). */
#define run(...) sim_snmp_tool(S, out, sizeof out, __VA_ARGS__)

#define V2C "-v2c -c public -Oqnt -t 2 -r 2"

/* One line of -Oqn output: ".1.3.6... value". */
struct row {
	char oid[160];
	char val[256];
};
static struct row rows[ROWS_MAX];

static size_t parse_rows(void)
{
	static char copy[OUT_MAX];
	memcpy(copy, out, sizeof copy);
	size_t n = 0;
	for (char *line = strtok(copy, "\n"); line && n < ROWS_MAX;
	     line = strtok(NULL, "\n")) {
		if (line[0] != '.')
			continue;
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		snprintf(rows[n].oid, sizeof rows[n].oid, "%.*s",
			 (int)(sp - line), line);
		snprintf(rows[n].val, sizeof rows[n].val, "%s", sp + 1);
		n++;
	}
	return n;
}

/* The value of oid in the last output, NULL if absent. */
static const char *value_of(size_t n, const char *oid)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].oid, oid) == 0)
			return rows[i].val;
	return NULL;
}

static uint64_t num(const char *v)
{
	ck_assert_ptr_nonnull(v);
	char *end;
	errno = 0;
	uint64_t x = strtoull(v, &end, 10);
	ck_assert_msg(end != v && errno == 0, "not a number: %s", v);
	return x;
}

/* The ifIndex each flavour gives its i-th front-panel port (400G: SONiC
 * names ports after their first of 4 lanes). */
static unsigned expected_ifindex(const struct sim_node *n, size_t i)
{
	switch (n->flavour) {
	case SIM_FLAVOUR_SONIC:
		return (unsigned)(i * 4 + 1);
	case SIM_FLAVOUR_ARISTA:
		return (unsigned)((i + 1) * 1000 + 1);
	default:
		return (unsigned)(i + 1);
	}
}

/* Walks a column on switch i; rows[] holds the result. */
static size_t walk(size_t sw, const char *col)
{
	int port = sim_snmp_port(S, switch_node(sw)->id);
	ck_assert_int_eq(
	    run("snmpbulkwalk " V2C " -Cr25 127.0.0.1:%d %s", port, col), 0);
	return parse_rows();
}

START_TEST(test_system_group_per_flavour)
{
	start();
	steps(25);
	static const char *const descr[] = { "SONiC", "Arista Networks EOS",
					     "OpenConfig" };
	static const char *const objid[] = { ".1.3.6.1.4.1.8072.",
					     ".1.3.6.1.4.1.30065.",
					     ".1.3.6.1.4.1.8072." };
	int seen_ports[16] = { 0 };
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		int port = sim_snmp_port(S, n->id);
		ck_assert_int_gt(port, 0);
		for (size_t j = 0; j < i; j++)
			ck_assert_int_ne(port, seen_ports[j]);
		seen_ports[i] = port;
		ck_assert_int_eq(
		    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.1.0 "
			"1.3.6.1.2.1.1.2.0 1.3.6.1.2.1.1.3.0 1.3.6.1.2.1.1.5.0 "
			"1.3.6.1.2.1.1.7.0 1.3.6.1.2.1.2.1.0",
			port),
		    0);
		size_t k = parse_rows();
		ck_assert_ptr_nonnull(strstr(value_of(k, ".1.3.6.1.2.1.1.1.0"),
					     descr[n->flavour]));
		ck_assert_msg(strncmp(value_of(k, ".1.3.6.1.2.1.1.2.0"),
				      objid[n->flavour],
				      strlen(objid[n->flavour])) == 0,
			      "%s", value_of(k, ".1.3.6.1.2.1.1.2.0"));
		/* 2.5 s of model time = 250 ticks of 1/100 s */
		ck_assert_uint_eq(num(value_of(k, ".1.3.6.1.2.1.1.3.0")), 250);
		char name[80];
		snprintf(name, sizeof name, "\"%s\"", n->name);
		ck_assert_str_eq(value_of(k, ".1.3.6.1.2.1.1.5.0"), name);
		ck_assert_uint_eq(num(value_of(k, ".1.3.6.1.2.1.2.1.0")),
				  n->n_ports);
	}
	/* A host has no agent. */
	ck_assert_int_eq(
	    sim_snmp_port(S, sim_topo_tier_node(T, SIM_NODE_HOST, 0)->id), -1);
	stop();
}
END_TEST

START_TEST(test_ifname_and_index_per_flavour)
{
	start();
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		size_t k = walk(i, "1.3.6.1.2.1.31.1.1.1.1");
		ck_assert_uint_eq(k, n->n_ports);
		for (size_t j = 0; j < n->n_ports; j++) {
			char oid[64], name[80];
			snprintf(oid, sizeof oid, ".1.3.6.1.2.1.31.1.1.1.1.%u",
				 expected_ifindex(n, j));
			snprintf(name, sizeof name, "\"%s\"", n->ports[j].name);
			ck_assert_ptr_nonnull(value_of(k, oid));
			ck_assert_str_eq(value_of(k, oid), name);
		}
		/* ifDescr carries the same name; ifAlias the peer. */
		k = walk(i, "1.3.6.1.2.1.31.1.1.1.18");
		ck_assert_uint_eq(k, n->n_ports);
		for (size_t j = 0; j < n->n_ports; j++) {
			char oid[64], desc[160];
			snprintf(oid, sizeof oid, ".1.3.6.1.2.1.31.1.1.1.18.%u",
				 expected_ifindex(n, j));
			snprintf(desc, sizeof desc, "\"%s\"",
				 n->ports[j].port_desc);
			ck_assert_str_eq(value_of(k, oid), desc);
		}
	}
	stop();
}
END_TEST

/* Checks a column of switch sw against f(model counters of the port). */
typedef uint64_t (*port_value)(const struct sim_model_switch_port *c);
static uint64_t hc_in(const struct sim_model_switch_port *c)
{
	return c->in_octets;
}
static uint64_t hc_out(const struct sim_model_switch_port *c)
{
	return c->out_octets;
}
static uint64_t hc_in_pkts(const struct sim_model_switch_port *c)
{
	return c->in_packets;
}
static uint64_t c32_in(const struct sim_model_switch_port *c)
{
	return c->in_octets & 0xffffffffu;
}
static uint64_t c32_out_pkts(const struct sim_model_switch_port *c)
{
	return c->out_packets & 0xffffffffu;
}

static void check_column(size_t sw, const char *col, port_value f)
{
	const struct sim_node *n = switch_node(sw);
	size_t k = walk(sw, col);
	ck_assert_uint_eq(k, n->n_ports);
	for (size_t j = 0; j < n->n_ports; j++) {
		struct sim_model_switch_port c;
		ck_assert_int_eq(
		    sim_model_read_switch_port(M, n->ports[j].id, &c), 0);
		char oid[80];
		snprintf(oid, sizeof oid, ".%s.%u", col,
			 expected_ifindex(n, j));
		ck_assert_msg(value_of(k, oid) != NULL, "%s missing", oid);
		ck_assert_msg(num(value_of(k, oid)) == f(&c),
			      "%s %s: %s != %llu", n->name, oid,
			      value_of(k, oid), (unsigned long long)f(&c));
	}
}

START_TEST(test_counters_equal_model_and_wrap)
{
	start();
	steps(5);
	for (size_t i = 0; i < n_switches(); i++) {
		check_column(i, "1.3.6.1.2.1.31.1.1.1.6", hc_in);
		check_column(i, "1.3.6.1.2.1.31.1.1.1.10", hc_out);
		check_column(i, "1.3.6.1.2.1.31.1.1.1.7", hc_in_pkts);
		check_column(i, "1.3.6.1.2.1.2.2.1.10", c32_in);
	}
	/* 100 Gb/s for 2 s puts 25 GB through the flows' ports: past 2^32
	   octets, where ifInOctets wraps and ifHCInOctets does not. */
	steps(20);
	bool wrapped = false;
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		check_column(i, "1.3.6.1.2.1.31.1.1.1.6", hc_in);
		check_column(i, "1.3.6.1.2.1.2.2.1.10", c32_in);
		check_column(i, "1.3.6.1.2.1.2.2.1.17", c32_out_pkts);
		for (size_t j = 0; j < n->n_ports; j++) {
			struct sim_model_switch_port c;
			sim_model_read_switch_port(M, n->ports[j].id, &c);
			if (c.in_octets >> 32)
				wrapped = true;
		}
	}
	ck_assert_msg(wrapped, "no counter went past 2^32");
	stop();
}
END_TEST

START_TEST(test_pfc_per_priority)
{
	start();
	/* Every switch's first port sends PFC on priority 3, its second on
	   priority 5; the peers count them received. */
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		ck_assert_int_eq(
		    sim_model_inject_pause(M, n->ports[0].id, 3, 0.5), 0);
		ck_assert_int_eq(
		    sim_model_inject_pause(M, n->ports[1].id, 5, 0.25), 0);
	}
	steps(10);
	uint64_t any_rx = 0;
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		const char *req = NULL, *ind = NULL;
		if (n->flavour == SIM_FLAVOUR_SONIC) {
			req = "1.3.6.1.4.1.9.9.813.1.2.1.2";
			ind = "1.3.6.1.4.1.9.9.813.1.2.1.3";
		} else if (n->flavour == SIM_FLAVOUR_ARISTA) {
			req = "1.3.6.1.4.1.30065.3.11.1.1.1.3";
			ind = "1.3.6.1.4.1.30065.3.11.1.1.1.4";
		}
		uint64_t nonzero_tx[8] = { 0 }, nonzero_rx[8] = { 0 };
		for (int dir = 0; req && dir < 2; dir++) {
			const char *col = dir ? ind : req;
			size_t k = walk(i, col);
			ck_assert_uint_eq(k, n->n_ports * 8);
			for (size_t j = 0; j < n->n_ports; j++) {
				struct sim_model_switch_port c;
				sim_model_read_switch_port(M, n->ports[j].id,
							   &c);
				for (unsigned p = 0; p < 8; p++) {
					char oid[96];
					snprintf(oid, sizeof oid, ".%s.%u.%u",
						 col, expected_ifindex(n, j),
						 p);
					uint64_t want =
					    dir ? c.prio[p].pfc_rx_frames
						: c.prio[p].pfc_tx_frames;
					ck_assert_uint_eq(num(value_of(k, oid)),
							  want);
					if (want)
						(dir ? nonzero_rx
						     : nonzero_tx)[p]++;
				}
			}
		}
		if (req) {
			ck_assert_uint_gt(nonzero_tx[3], 0);
			ck_assert_uint_gt(nonzero_tx[5], 0);
			any_rx += nonzero_rx[3] + nonzero_rx[5];
		}
		/* IEEE8021-PFC-MIB totals (Counter32) on every flavour. */
		size_t k = walk(i, "1.3.111.2.802.1.1.21.1.1.1.2");
		ck_assert_uint_eq(k, n->n_ports);
		for (size_t j = 0; j < n->n_ports; j++) {
			struct sim_model_switch_port c;
			sim_model_read_switch_port(M, n->ports[j].id, &c);
			uint64_t sum = 0;
			for (unsigned p = 0; p < 8; p++)
				sum += c.prio[p].pfc_tx_frames;
			char oid[96];
			snprintf(oid, sizeof oid,
				 ".1.3.111.2.802.1.1.21.1.1.1.2.%u",
				 expected_ifindex(n, j));
			ck_assert_uint_eq(num(value_of(k, oid)),
					  sum & 0xffffffffu);
		}
		/* SONiC's cpfcIfRequests is priority 3's; other flavours do
		   not have CISCO-PFC-EXT-MIB at all. */
		int port = sim_snmp_port(S, n->id);
		ck_assert_int_eq(run("snmpget " V2C " 127.0.0.1:%d "
				     "1.3.6.1.4.1.9.9.813.1.1.1.1.%u",
				     port, expected_ifindex(n, 0)),
				 0);
		k = parse_rows();
		ck_assert_uint_eq(k, 1);
		if (n->flavour == SIM_FLAVOUR_SONIC) {
			struct sim_model_switch_port c;
			sim_model_read_switch_port(M, n->ports[0].id, &c);
			ck_assert_uint_eq(num(rows[0].val),
					  c.prio[3].pfc_tx_frames);
			ck_assert_uint_gt(c.prio[3].pfc_tx_frames, 0);
		} else {
			ck_assert_ptr_nonnull(
			    strstr(rows[0].val, "No Such Object"));
		}
	}
	/* The peers of the pausing ports count what they receive. */
	ck_assert_uint_gt(any_rx, 0);
	stop();
}
END_TEST

START_TEST(test_lldp_neighbours_follow_cabling)
{
	start();
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		size_t k = walk(i, "1.0.8802.1.1.2.1.4.1.1.9");
		size_t cabled = 0;
		for (size_t j = 0; j < n->n_ports; j++) {
			const struct sim_port *p = &n->ports[j];
			if (!p->peer)
				continue;
			cabled++;
			char oid[96], name[80];
			snprintf(oid, sizeof oid,
				 ".1.0.8802.1.1.2.1.4.1.1.9.0.%u.1",
				 expected_ifindex(n, j));
			snprintf(name, sizeof name, "\"%s\"",
				 p->peer->node->name);
			ck_assert_msg(value_of(k, oid) != NULL, "%s %s",
				      n->name, oid);
			ck_assert_str_eq(value_of(k, oid), name);
		}
		ck_assert_uint_eq(k, cabled);
		ck_assert_uint_gt(cabled, 0);
		/* Peer port ids: switch peers send their port name. */
		k = walk(i, "1.0.8802.1.1.2.1.4.1.1.7");
		ck_assert_uint_eq(k, cabled);
		for (size_t j = 0; j < n->n_ports; j++) {
			const struct sim_port *p = &n->ports[j];
			if (!p->peer || p->peer->node->kind == SIM_NODE_HOST)
				continue;
			char oid[96], name[80];
			snprintf(oid, sizeof oid,
				 ".1.0.8802.1.1.2.1.4.1.1.7.0.%u.1",
				 expected_ifindex(n, j));
			snprintf(name, sizeof name, "\"%s\"", p->peer->name);
			ck_assert_str_eq(value_of(k, oid), name);
		}
	}
	/* A cable goes down: both ends lose the neighbour, oper down. */
	const struct sim_node *spine = switch_node(0);
	const struct sim_port *p = &spine->ports[0];
	ck_assert_ptr_nonnull(p->peer);
	ck_assert_int_eq(sim_model_set_link(M, p->id, false), 0);
	size_t k = walk(0, "1.0.8802.1.1.2.1.4.1.1.9");
	char oid[96];
	snprintf(oid, sizeof oid, ".1.0.8802.1.1.2.1.4.1.1.9.0.%u.1",
		 expected_ifindex(spine, 0));
	ck_assert_ptr_null(value_of(k, oid));
	int port = sim_snmp_port(S, spine->id);
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.2.2.1.8.%u "
		"1.3.6.1.2.1.2.2.1.8.%u",
		port, expected_ifindex(spine, 0), expected_ifindex(spine, 1)),
	    0);
	k = parse_rows();
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(num(rows[0].val), 2);
	ck_assert_uint_eq(num(rows[1].val), 1);
	stop();
}
END_TEST

/* sysUpTime and ifHCInOctets of a port of switch sw. */
static void uptime_and_octets(size_t sw, size_t j, uint64_t *up, uint64_t *oct,
			      uint64_t *disc)
{
	const struct sim_node *n = switch_node(sw);
	int port = sim_snmp_port(S, n->id);
	ck_assert_int_eq(run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.3.0 "
			     "1.3.6.1.2.1.31.1.1.1.6.%u "
			     "1.3.6.1.2.1.31.1.1.1.19.%u",
			     port, expected_ifindex(n, j),
			     expected_ifindex(n, j)),
			 0);
	size_t k = parse_rows();
	ck_assert_uint_eq(k, 3);
	*up = num(rows[0].val);
	*oct = num(rows[1].val);
	*disc = num(rows[2].val);
}

START_TEST(test_reboot_resets_uptime_and_counters)
{
	start();
	steps(30);
	/* leaf0 (node 3) carries the flows on its host port and uplinks. */
	size_t leaf = 3, other = 4;
	const struct sim_node *n = switch_node(leaf);
	ck_assert_int_eq(n->kind, SIM_NODE_LEAF);
	size_t busy = n->n_ports;
	for (size_t j = 0; j < n->n_ports; j++) {
		struct sim_model_switch_port c;
		sim_model_read_switch_port(M, n->ports[j].id, &c);
		if (c.in_octets > 0 && busy == n->n_ports)
			busy = j;
	}
	ck_assert_uint_lt(busy, n->n_ports);
	uint64_t up1, oct1, d1, up2, oct2, d2, upo1, upo2, x;
	uptime_and_octets(leaf, busy, &up1, &oct1, &d1);
	uptime_and_octets(other, 0, &upo1, &x, &d2);
	ck_assert_uint_eq(up1, 300);
	ck_assert_uint_gt(oct1, 0);
	ck_assert_int_eq(sim_model_reboot(M, n->id), 0);
	steps(2);
	uptime_and_octets(leaf, busy, &up2, &oct2, &d2);
	uptime_and_octets(other, 0, &upo2, &x, &d2);
	ck_assert_uint_eq(up2, 20);
	ck_assert_uint_lt(oct2, oct1);
	ck_assert_uint_le(d2, up2);
	/* Another switch keeps counting. */
	ck_assert_uint_eq(upo2, 320);
	stop();
}
END_TEST

/* Numeric OID comparison of two ".1.3..." strings. */
static int cmp_oid_text(const char *a, const char *b)
{
	while (*a && *b) {
		char *ea, *eb;
		unsigned long x = strtoul(a + 1, &ea, 10);
		unsigned long y = strtoul(b + 1, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a = ea;
		b = eb;
	}
	return *a ? 1 : *b ? -1 : 0;
}

START_TEST(test_walks_agree_and_end)
{
	start();
	steps(3);
	static char bulk[OUT_MAX];
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		int port = sim_snmp_port(S, n->id);
		/* The whole MIB by GETBULK with two repetition counts and by
		   GETNEXT: the same objects in strictly increasing order,
		   ending in endOfMibView. */
		ck_assert_int_eq(
		    run("snmpbulkwalk " V2C " -Cr7 127.0.0.1:%d .1", port), 0);
		memcpy(bulk, out, sizeof bulk);
		ck_assert_int_eq(
		    run("snmpbulkwalk " V2C " -Cr50 127.0.0.1:%d .1", port), 0);
		ck_assert_str_eq(out, bulk);
		ck_assert_int_eq(run("snmpwalk " V2C " 127.0.0.1:%d .1", port),
				 0);
		ck_assert_str_eq(out, bulk);
		ck_assert_ptr_nonnull(strstr(out, "No more variables left"));
		size_t k = parse_rows();
		/* system 7, ifNumber 1, ifTable 18 and ifXTable 19 columns,
		   IEEE 2, LLDP local 6 + 3 port columns, remote 9 per
		   neighbour, CISCO (2 + 2 x 8) or Arista (2 x 8) per port. */
		size_t cabled = 0;
		for (size_t j = 0; j < n->n_ports; j++)
			cabled += n->ports[j].peer != NULL;
		size_t per_port = 18 + 19 + 2 + 3;
		if (n->flavour == SIM_FLAVOUR_SONIC)
			per_port += 2 + 16;
		else if (n->flavour == SIM_FLAVOUR_ARISTA)
			per_port += 16;
		size_t want = 7 + 1 + 6 + per_port * n->n_ports + 9 * cabled;
		/* + the endOfMibView line snmpwalk prints */
		ck_assert_uint_eq(k, want + 1);
		for (size_t r = 1; r + 1 < k; r++)
			ck_assert_msg(
			    cmp_oid_text(rows[r - 1].oid, rows[r].oid) < 0,
			    "%s then %s", rows[r - 1].oid, rows[r].oid);
		/* A GETBULK running off a table continues into the next
		   column, and off the MIB gives endOfMibView. */
		ck_assert_int_eq(run("snmpbulkget " V2C " -Cn0 -Cr%zu "
				     "127.0.0.1:%d 1.3.6.1.2.1.31.1.1.1.6",
				     n->n_ports + 1, port),
				 0);
		k = parse_rows();
		ck_assert_uint_eq(k, n->n_ports + 1);
		char first7[64];
		snprintf(first7, sizeof first7, ".1.3.6.1.2.1.31.1.1.1.7.%u",
			 expected_ifindex(n, 0));
		ck_assert_str_eq(rows[n->n_ports].oid, first7);
		ck_assert_int_eq(
		    run("snmpbulkget " V2C " -Cn0 -Cr5 "
			"127.0.0.1:%d 1.3.111.2.802.1.1.21.1.1.1.3",
			port),
		    0);
		k = parse_rows();
		ck_assert_uint_ge(k, 1);
		ck_assert_ptr_nonnull(strstr(out, "No more variables left"));
		/* GETNEXT past a table another flavour lacks skips it. */
		ck_assert_int_eq(run("snmpgetnext " V2C
				     " 127.0.0.1:%d 1.3.6.1.4.1.9.9.813",
				     port),
				 0);
		k = parse_rows();
		ck_assert_uint_eq(k, 1);
		const char *want_prefix =
		    n->flavour == SIM_FLAVOUR_SONIC
			? ".1.3.6.1.4.1.9.9.813.1.1.1.1."
		    : n->flavour == SIM_FLAVOUR_ARISTA
			? ".1.3.6.1.4.1.30065.3.11.1.1.1.3."
			: ".1.3.111.2.802.1.1.21.1.1.1.2.";
		ck_assert_msg(
		    strncmp(rows[0].oid, want_prefix, strlen(want_prefix)) == 0,
		    "%s", rows[0].oid);
		/* GET of a missing row or column. */
		ck_assert_int_eq(run("snmpget " V2C " 127.0.0.1:%d "
				     "1.3.6.1.2.1.31.1.1.1.6.999999 "
				     "1.3.6.1.2.1.31.1.1.1.99.1",
				     port),
				 0);
		ck_assert_ptr_nonnull(strstr(out, "No Such Instance"));
		ck_assert_ptr_nonnull(strstr(out, "No Such Object"));
	}
	stop();
}
END_TEST

START_TEST(test_v2c_wrong_community_gets_no_answer)
{
	start();
	int port = sim_snmp_port(S, switch_node(0)->id);
	ck_assert_int_ne(run("snmpget -v2c -c private -Oqn -t 0.3 -r 0 "
			     "127.0.0.1:%d 1.3.6.1.2.1.1.5.0",
			     port),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "Timeout"));
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.5.0", port), 0);
	stop();
}
END_TEST

static void check_v3(const char *auth, const char *priv)
{
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	o.community = "fabsim-ro";
	o.v3_user = "fabmon";
	o.v3_auth = auth;
	o.v3_auth_key = "auth-pass-1";
	o.v3_priv = priv;
	o.v3_priv_key = "priv-pass-2";
	start_with(&o);
	steps(2);
	for (size_t i = 0; i < n_switches(); i++) {
		const struct sim_node *n = switch_node(i);
		int port = sim_snmp_port(S, n->id);
		ck_assert_int_eq(
		    run("snmpget -v3 -l authPriv -u fabmon -a %s -A "
			"auth-pass-1 "
			"-x %s -X priv-pass-2 -Oqnt -t 2 -r 2 127.0.0.1:%d "
			"1.3.6.1.2.1.1.5.0 1.3.6.1.2.1.31.1.1.1.6.%u",
			auth, priv, port, expected_ifindex(n, 0)),
		    0);
		size_t k = parse_rows();
		ck_assert_uint_eq(k, 2);
		char name[80];
		snprintf(name, sizeof name, "\"%s\"", n->name);
		ck_assert_str_eq(rows[0].val, name);
		struct sim_model_switch_port c;
		sim_model_read_switch_port(M, n->ports[0].id, &c);
		ck_assert_uint_eq(num(rows[1].val), c.in_octets);
	}
	int port = sim_snmp_port(S, switch_node(0)->id);
	/* Wrong auth key: an authentication failure, no data. */
	ck_assert_int_ne(
	    run("snmpget -v3 -l authPriv -u fabmon -a %s -A wrong-pass-9 "
		"-x %s -X priv-pass-2 -Oqnt -t 0.5 -r 0 127.0.0.1:%d "
		"1.3.6.1.2.1.1.5.0",
		auth, priv, port),
	    0);
	ck_assert_ptr_null(strstr(out, "\"spine0\""));
	/* Wrong priv key: nothing readable comes back. */
	ck_assert_int_ne(
	    run("snmpget -v3 -l authPriv -u fabmon -a %s -A auth-pass-1 "
		"-x %s -X wrong-pass-9 -Oqnt -t 0.5 -r 0 127.0.0.1:%d "
		"1.3.6.1.2.1.1.5.0",
		auth, priv, port),
	    0);
	ck_assert_ptr_null(strstr(out, "\"spine0\""));
	/* Unknown user and noAuth: refused. */
	ck_assert_int_ne(run("snmpget -v3 -l noAuthNoPriv -u fabmon -Oqnt "
			     "-t 0.5 -r 0 127.0.0.1:%d 1.3.6.1.2.1.1.5.0",
			     port),
			 0);
	ck_assert_ptr_null(strstr(out, "\"spine0\""));
	/* v2c with the configured community still works, the default one
	   does not. */
	ck_assert_int_eq(run("snmpget -v2c -c fabsim-ro -Oqnt -t 2 -r 2 "
			     "127.0.0.1:%d 1.3.6.1.2.1.1.5.0",
			     port),
			 0);
	ck_assert_int_ne(run("snmpget -v2c -c public -Oqnt -t 0.3 -r 0 "
			     "127.0.0.1:%d 1.3.6.1.2.1.1.5.0",
			     port),
			 0);
	stop();
}

START_TEST(test_v3_sha_aes)
{
	check_v3("SHA", "AES");
}
END_TEST

START_TEST(test_v3_sha256_aes)
{
	check_v3("SHA-256", "AES");
}
END_TEST

START_TEST(test_v3_sha512_aes256)
{
	check_v3("SHA-512", "AES-256");
}
END_TEST

/*
 * Sends a datagram to port from a connected socket and serves the agent
 * for up to ~1 s: 1 if an answer came, -ECONNREFUSED if the kernel said
 * port unreachable, 0 if nothing came.
 */
static int probe(int port, const void *msg, size_t len)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(send(fd, msg, len, 0), (ssize_t)len);
	int rc = 0;
	for (int i = 0; i < 100 && rc == 0; i++) {
		sim_snmp_poll(S, 10000000);
		char buf[2048];
		ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (r > 0)
			rc = 1;
		else if (r < 0 && errno == ECONNREFUSED)
			rc = -ECONNREFUSED;
	}
	close(fd);
	return rc;
}

/* A v2c GET of sysName.0 with community "public", BER by hand. */
static const unsigned char get_sysname[] = {
	0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06, 'p',	0x75, 0x62, 0x6c,
	0x69, 0x63, 0xa0, 0x1c, 0x02, 0x04, 0x12, 0x34, 0x56, 0x78, 0x02,
	0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0e, 0x30, 0x0c, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x05, 0x00, 0x05, 0x00,
};

START_TEST(test_faults_silent_refuse_ok)
{
	start();
	const struct sim_node *n = switch_node(1);
	int port = sim_snmp_port(S, n->id);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname), 1);

	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_IS_SILENT);
	ck_assert_int_eq(sim_snmp_port(S, n->id), port);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname), 0);
	ck_assert_int_ne(run("snmpget -v2c -c public -Oqn -t 0.3 -r 0 "
			     "127.0.0.1:%d 1.3.6.1.2.1.1.5.0",
			     port),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "Timeout"));
	/* The other switches keep answering. */
	int other = sim_snmp_port(S, switch_node(2)->id);
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.5.0", other), 0);

	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_REFUSES);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname),
			 -ECONNREFUSED);

	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	ck_assert_int_eq(sim_snmp_port(S, n->id), port);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname), 1);
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.5.0", port), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"spine1\""));

	/* Straight from silent back to OK too. */
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_IS_SILENT);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname), 1);
	stop();
}
END_TEST

START_TEST(test_garbage_does_not_hurt)
{
	start();
	int port = sim_snmp_port(S, switch_node(0)->id);
	static const unsigned char junk[][8] = {
		{ 0 },
		{ 0x30, 0x82, 0xff, 0xff, 0x02, 0x01 },
		{ 0x30, 0x03, 0x02, 0x01, 0x05 },
		{ 0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x04, 0x00 },
	};
	for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
		ck_assert_int_eq(probe(port, junk[i], sizeof junk[i]), 0);
	/* A truncated real request. */
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname - 7), 0);
	unsigned char big[1400];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (unsigned char)(i * 7919u >> 3);
	ck_assert_int_eq(probe(port, big, sizeof big), 0);
	ck_assert_int_eq(probe(port, get_sysname, sizeof get_sysname), 1);
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.5.0", port), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"spine0\""));
	stop();
}
END_TEST

START_TEST(test_one_agent_per_process_and_bad_options)
{
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	struct sim_topo_gen g = {
		.spines = 1, .leaves = 1, .hosts = 1, .nics = 1
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_ptr_nonnull(t);
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	ck_assert_ptr_nonnull(m);

	o.address = "10.1.2.3";
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "not a loopback address"));
	o.address = "127.0.0.1";
	o.community = "two words";
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "community"));
	o.community = "public";
	o.v3_user = "u";
	o.v3_auth = "MD5";
	o.v3_auth_key = "longenough";
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "SHA-256"));
	o.v3_auth = "SHA";
	o.v3_auth_key = "short";
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "auth key"));
	o.v3_auth_key = "longenough";
	o.v3_priv = "DES";
	o.v3_priv_key = "longenough";
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "AES-256"));

	/* A busy fixed port is refused before the agent starts. */
	o.v3_user = NULL;
	o.v3_priv = NULL;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	o.base_port = ntohs(a.sin_port) - 1u; /* the leaf's port is busy */
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_msg(strstr(err, "cannot bind UDP port") != NULL, "%s", err);
	close(fd);

	/* The refusals left no agent behind: this one starts. */
	sim_snmp_options_init(&o);
	struct sim_snmp *s = sim_snmp_new(t, m, &o, err, sizeof err);
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "already"));
	sim_snmp_free(s);
	sim_snmp_free(NULL);
	/* net-snmp cannot start its agent twice in one process. */
	ck_assert_ptr_null(sim_snmp_new(t, m, &o, err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "already"));
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

/* A base port: consecutive ports in node order. */
START_TEST(test_base_port)
{
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	/* Find a free range: ask the kernel for a port and hope the next
	   four are free too; retry elsewhere if not. */
	bool started = false;
	for (int attempt = 0; attempt < 10 && !started; attempt++) {
		int fd = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t len = sizeof a;
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
		getsockname(fd, (struct sockaddr *)&a, &len);
		close(fd);
		unsigned base = ntohs(a.sin_port);
		if (base > 65000)
			continue;
		o.base_port = base;
		struct sim_topo_gen g = {
			.spines = 3, .leaves = 2, .hosts = 2, .nics = 1
		};
		T = sim_topo_generate(&g, err, sizeof err);
		M = sim_model_new(T, 1, err, sizeof err);
		S = sim_snmp_new(T, M, &o, err, sizeof err);
		if (S) {
			started = true;
			break;
		}
		sim_model_free(M);
		sim_topo_free(T);
	}
	ck_assert_msg(started, "%s", err);
	for (size_t i = 0; i < n_switches(); i++)
		ck_assert_int_eq(sim_snmp_port(S, switch_node(i)->id),
				 (int)(o.base_port + i));
	int port = sim_snmp_port(S, switch_node(4)->id);
	ck_assert_int_eq(
	    run("snmpget " V2C " 127.0.0.1:%d 1.3.6.1.2.1.1.5.0", port), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"leaf1\""));
	stop();
}
END_TEST

/* ::1, where the host has IPv6 loopback. */
START_TEST(test_ipv6_loopback)
{
	struct sim_snmp_options o;
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	bool have6 =
	    fd >= 0 && bind(fd, (struct sockaddr *)&a6, sizeof a6) == 0;
	if (fd >= 0)
		close(fd);
	if (!have6)
		return;
	sim_snmp_options_init(&o);
	o.address = "::1";
	start_with(&o);
	int port = sim_snmp_port(S, switch_node(2)->id);
	ck_assert_int_eq(
	    run("snmpget " V2C " udp6:[::1]:%d 1.3.6.1.2.1.1.5.0", port), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"spine2\""));
	stop();
}
END_TEST

static Suite *sim_snmp_suite(void)
{
	Suite *s = suite_create("sim_snmp");
	TCase *tc = tcase_create("agent");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_system_group_per_flavour);
	tcase_add_test(tc, test_ifname_and_index_per_flavour);
	tcase_add_test(tc, test_counters_equal_model_and_wrap);
	tcase_add_test(tc, test_pfc_per_priority);
	tcase_add_test(tc, test_lldp_neighbours_follow_cabling);
	tcase_add_test(tc, test_reboot_resets_uptime_and_counters);
	tcase_add_test(tc, test_walks_agree_and_end);
	tcase_add_test(tc, test_v2c_wrong_community_gets_no_answer);
	tcase_add_test(tc, test_v3_sha_aes);
	tcase_add_test(tc, test_v3_sha256_aes);
	tcase_add_test(tc, test_v3_sha512_aes256);
	tcase_add_test(tc, test_faults_silent_refuse_ok);
	tcase_add_test(tc, test_garbage_does_not_hurt);
	tcase_add_test(tc, test_one_agent_per_process_and_bad_options);
	tcase_add_test(tc, test_base_port);
	tcase_add_test(tc, test_ipv6_loopback);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (system("command -v snmpget snmpgetnext snmpbulkget snmpwalk "
		   "snmpbulkwalk >/dev/null 2>&1") != 0) {
		printf("SKIP: check_sim_snmp: net-snmp's command-line tools "
		       "(Debian package snmp) are not installed\n");
		return 77;
	}
	/* The tools read no user or system configuration and no MIBs. */
	if (sim_snmp_tool_env(envdir, sizeof envdir, "check_sim_snmp") < 0)
		return 1;
	SRunner *sr = srunner_create(sim_snmp_suite());
	/* One agent per process lifetime: every test in its own process,
	   whatever CK_FORK says. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", envdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", envdir);
	return failed ? 1 : 0;
}
