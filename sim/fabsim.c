/*
 * fabsim: a simulated RoCE fabric on loopback. Loads a topology (or
 * generates one) and optionally a scenario, runs the counter model in
 * real time, serves every switch over gNMI (sim/serve_gnmi) and SNMP
 * (sim/snmp_agent), writes every host's NIC counters as sysfs and
 * ethtool trees (sim/nicfs), takes commands on a control endpoint
 * (sim/control) and writes a fabmond configuration that points at all
 * of it (--emit-config). See man/fabsim.1.
 *
 * Threads. The run loop (this file's main thread) owns the model, the
 * scenario and its live events: every tick it applies the timeline,
 * steps the model by the real time elapsed (capped at the model's
 * longest tick), drains the control endpoint's queue, applies target
 * faults, publishes counters to the gNMI targets at the publish
 * interval, writes the NIC trees at theirs, and spends the rest of the
 * tick answering SNMP (net-snmp's agent is single-threaded and reads
 * the model directly, so it runs here too). The gNMI targets have the
 * target library's loop thread; the control endpoint has its HTTP
 * thread, which only queues requests for the run loop.
 */
#include "config.h"

#include "cfg.h"
#include "clock.h"
#include "control.h"
#include "model.h"
#include "scenario.h"
#include "serve_gnmi.h"
#include "topo.h"
#include "snmp_agent.h"
#include "nicfs.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef FABMON_PROFILEDIR
#define FABMON_PROFILEDIR "/usr/share/fabmon/profiles"
#endif

/* The longest delay of the run loop the model catches up at once. */
#define FABSIM_CATCHUP_NS (2 * NS_PER_S)

#define EXIT_RUNTIME 1
#define EXIT_USAGE   2

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct opts {
	const char *topology, *scenario;
	struct sim_topo_gen gen;
	bool generate;
	enum sim_flavour flavours[SIM_TOPO_MAX_FLAVOURS];
	uint64_t seed;
	bool seed_set;
	uint64_t counter_base;
	uint64_t tick_ns, publish_ns, nic_ns, duration_ns;
	double load;
	const char *address;
	bool allow_remote;
	unsigned gnmi_port, snmp_port;
	bool no_snmp;
	const char *community;
	const char *nic_dir, *nic_hosts;
	const char *control;
	const char *emit, *profiles_dir, *fabmond_listen;
	bool no_static_links;
	bool loop;
	int verbose;
};

struct fabsim {
	struct opts o;
	struct sim_scenario *scn;
	const struct sim_topo *topo;
	struct sim_scenario_live *live;
	struct sim_model *m;
	struct sim_serve_gnmi *gnmi;
	struct sim_snmp *snmp;
	struct sim_nicfs *nic;
	struct sim_control *ctl;
	enum sim_scenario_target *fault; /* per node, as applied */
	uint64_t loop_base_ns;		 /* model time the timeline began */
	unsigned loops;
	bool apply_warned;
	/* figures for -v */
	uint64_t lag_ns, step_ns, pub_ns, n_ticks, n_pubs, n_pub_sw;
};

/* CPU time of the calling thread: costs on a shared machine. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabsim -t TOPOLOGY.yaml [-s SCENARIO.yaml] [options]\n"
		"       fabsim -s SCENARIO.yaml [options]\n"
		"       fabsim --spines N --leaves N --hosts N --nics N "
		"[options]\n"
		"\n"
		"Fabric:\n"
		"  -t, --topology FILE     topology file\n"
		"  -s, --scenario FILE     scenario file (names its "
		"topology)\n"
		"      --spines/--leaves/--hosts/--nics N   generate a "
		"rail-wired fabric\n"
		"      --speed G, --host-speed G   link speeds "
		"(100G..800G)\n"
		"      --flavours LIST     switch flavours, round-robin "
		"(sonic,arista,openconfig)\n"
		"      --load F            background ring all-reduce at F "
		"of line rate (0..1)\n"
		"      --seed N            the model's seed\n"
		"      --counter-base N    switch counters start at N, not "
		"0\n"
		"Time:\n"
		"      --tick DUR          model tick (default 100ms, at most "
		"100ms)\n"
		"      --publish DUR       counter publish interval (default "
		"1s)\n"
		"      --loop              replay the scenario when it ends\n"
		"      --duration DUR      exit after DUR\n"
		"Serving (loopback):\n"
		"      --address ADDR      bind address (default 127.0.0.1)\n"
		"      --allow-remote      allow a non-loopback --address\n"
		"      --gnmi-port BASE    switch i on BASE+i (default 0: "
		"kernel-chosen)\n"
		"      --snmp-port BASE    the same for SNMP\n"
		"      --no-snmp           no SNMP agents\n"
		"      --community STR     SNMP v2c community (default "
		"public)\n"
		"      --nic-dir DIR       write NIC sysfs/ethtool trees under "
		"DIR\n"
		"      --nic-hosts LIST    all (default), none, or h1,h2,...\n"
		"      --nic-interval DUR  NIC tree write interval (default "
		"every tick)\n"
		"      --control H:P       control endpoint (HTTP, loopback "
		"only)\n"
		"fabmond:\n"
		"      --emit-config FILE  write a fabmond config for all of "
		"it ('-': stdout)\n"
		"      --profiles-dir DIR  profiles_dir in it (default %s)\n"
		"      --fabmond-listen H:P  listen address in it (default "
		"127.0.0.1:9465)\n"
		"      --no-static-links   leave the cabling out of it "
		"(learn it by LLDP)\n"
		"  -v, --verbose           log faults, events and costs\n"
		"  -h, --help              this help\n"
		"  -V, --version           the version\n",
		FABMON_PROFILEDIR);
}

enum {
	O_SPINES = 256,
	O_LEAVES,
	O_HOSTS,
	O_NICS,
	O_SPEED,
	O_HOST_SPEED,
	O_FLAVOURS,
	O_LOAD,
	O_SEED,
	O_TICK,
	O_PUBLISH,
	O_LOOP,
	O_DURATION,
	O_ADDRESS,
	O_ALLOW_REMOTE,
	O_GNMI_PORT,
	O_SNMP_PORT,
	O_NO_SNMP,
	O_COMMUNITY,
	O_NIC_DIR,
	O_NIC_HOSTS,
	O_NIC_INTERVAL,
	O_CONTROL,
	O_EMIT,
	O_PROFILES_DIR,
	O_FABMOND_LISTEN,
	O_NO_STATIC_LINKS,
	O_COUNTER_BASE,
};

static const struct option longopts[] = {
	{ "topology", required_argument, NULL, 't' },
	{ "scenario", required_argument, NULL, 's' },
	{ "spines", required_argument, NULL, O_SPINES },
	{ "leaves", required_argument, NULL, O_LEAVES },
	{ "hosts", required_argument, NULL, O_HOSTS },
	{ "nics", required_argument, NULL, O_NICS },
	{ "speed", required_argument, NULL, O_SPEED },
	{ "host-speed", required_argument, NULL, O_HOST_SPEED },
	{ "flavours", required_argument, NULL, O_FLAVOURS },
	{ "load", required_argument, NULL, O_LOAD },
	{ "seed", required_argument, NULL, O_SEED },
	{ "counter-base", required_argument, NULL, O_COUNTER_BASE },
	{ "tick", required_argument, NULL, O_TICK },
	{ "publish", required_argument, NULL, O_PUBLISH },
	{ "loop", no_argument, NULL, O_LOOP },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "address", required_argument, NULL, O_ADDRESS },
	{ "allow-remote", no_argument, NULL, O_ALLOW_REMOTE },
	{ "gnmi-port", required_argument, NULL, O_GNMI_PORT },
	{ "snmp-port", required_argument, NULL, O_SNMP_PORT },
	{ "no-snmp", no_argument, NULL, O_NO_SNMP },
	{ "community", required_argument, NULL, O_COMMUNITY },
	{ "nic-dir", required_argument, NULL, O_NIC_DIR },
	{ "nic-hosts", required_argument, NULL, O_NIC_HOSTS },
	{ "nic-interval", required_argument, NULL, O_NIC_INTERVAL },
	{ "control", required_argument, NULL, O_CONTROL },
	{ "emit-config", required_argument, NULL, O_EMIT },
	{ "profiles-dir", required_argument, NULL, O_PROFILES_DIR },
	{ "fabmond-listen", required_argument, NULL, O_FABMOND_LISTEN },
	{ "no-static-links", no_argument, NULL, O_NO_STATIC_LINKS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "fabsim: --%s %s: %s\n", opt, val, why);
	return -EINVAL;
}

static int parse_uint(const char *opt, const char *s, uint64_t max,
		      uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return bad_arg(opt, s, "expected a number");
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno)
		return bad_arg(opt, s, "expected a number");
	if (v > max) {
		char why[64];
		snprintf(why, sizeof why, "at most %llu",
			 (unsigned long long)max);
		return bad_arg(opt, s, why);
	}
	*out = v;
	return 0;
}

static int parse_dur(const char *opt, const char *s, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	uint64_t ns;
	if (units_parse_duration(s, &ns))
		return bad_arg(opt, s, "expected a duration (100ms, 1s, 1m)");
	if (ns < min || ns > max) {
		char a[32], b[32], why[96];
		units_format_duration(min, a, sizeof a);
		units_format_duration(max, b, sizeof b);
		snprintf(why, sizeof why, "must be between %s and %s", a, b);
		return bad_arg(opt, s, why);
	}
	*out = ns;
	return 0;
}

static int parse_flavours(struct opts *o, const char *s)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", s);
	o->gen.n_flavours = 0;
	for (char *sv, *tok = strtok_r(buf, ",", &sv); tok;
	     tok = strtok_r(NULL, ",", &sv)) {
		if (o->gen.n_flavours == SIM_TOPO_MAX_FLAVOURS)
			return bad_arg("flavours", s, "too many");
		if (sim_topo_parse_flavour(tok,
					   &o->flavours[o->gen.n_flavours]))
			return bad_arg("flavours", s,
				       "expected sonic, arista or openconfig");
		o->gen.n_flavours++;
	}
	if (!o->gen.n_flavours)
		return bad_arg("flavours", s, "empty list");
	o->gen.flavours = o->flavours;
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	int c;
	uint64_t v;
	memset(o, 0, sizeof *o);
	o->tick_ns = 100 * NS_PER_MS;
	o->publish_ns = NS_PER_S;
	o->nic_ns = 0; /* every tick */
	o->address = "127.0.0.1";
	o->community = "public";
	o->profiles_dir = FABMON_PROFILEDIR;
	o->fabmond_listen = "127.0.0.1:9465";
	while ((c = getopt_long(argc, argv, "t:s:vhV", longopts, NULL)) != -1) {
		int rc = 0;
		switch (c) {
		case 't':
			o->topology = optarg;
			break;
		case 's':
			o->scenario = optarg;
			break;
		case O_SPINES:
		case O_LEAVES:
		case O_HOSTS:
		case O_NICS:
			rc = parse_uint(longopts[c - O_SPINES + 2].name, optarg,
					SIM_TOPO_MAX_NODES, &v);
			if (c == O_SPINES)
				o->gen.spines = (unsigned)v;
			else if (c == O_LEAVES)
				o->gen.leaves = (unsigned)v;
			else if (c == O_HOSTS)
				o->gen.hosts = (unsigned)v;
			else
				o->gen.nics = (unsigned)v;
			o->generate = true;
			break;
		case O_SPEED:
		case O_HOST_SPEED: {
			unsigned g;
			if (sim_topo_parse_speed(optarg, &g))
				rc = bad_arg(c == O_SPEED ? "speed"
							  : "host-speed",
					     optarg,
					     "expected 100G, 200G, 400G or "
					     "800G");
			else if (c == O_SPEED)
				o->gen.speed = g;
			else
				o->gen.host_speed = g;
			break;
		}
		case O_FLAVOURS:
			rc = parse_flavours(o, optarg);
			break;
		case O_LOAD: {
			char *end;
			o->load = strtod(optarg, &end);
			if (*end || !(o->load >= 0 && o->load <= 1))
				rc = bad_arg("load", optarg,
					     "expected a fraction 0..1");
			break;
		}
		case O_SEED:
			rc = parse_uint("seed", optarg, UINT64_MAX, &o->seed);
			o->seed_set = true;
			break;
		case O_COUNTER_BASE:
			rc = parse_uint("counter-base", optarg, UINT64_MAX,
					&o->counter_base);
			break;
		case O_TICK:
			rc = parse_dur("tick", optarg, NS_PER_MS,
				       SIM_MODEL_MAX_TICK_NS, &o->tick_ns);
			break;
		case O_PUBLISH:
			rc = parse_dur("publish", optarg, 10 * NS_PER_MS,
				       3600 * NS_PER_S, &o->publish_ns);
			break;
		case O_NIC_INTERVAL:
			rc = parse_dur("nic-interval", optarg, 10 * NS_PER_MS,
				       3600 * NS_PER_S, &o->nic_ns);
			break;
		case O_LOOP:
			o->loop = true;
			break;
		case O_DURATION:
			rc = parse_dur("duration", optarg, NS_PER_MS,
				       UINT64_MAX / 4, &o->duration_ns);
			break;
		case O_ADDRESS:
			o->address = optarg;
			break;
		case O_ALLOW_REMOTE:
			o->allow_remote = true;
			break;
		case O_GNMI_PORT:
		case O_SNMP_PORT:
			rc = parse_uint(c == O_GNMI_PORT ? "gnmi-port"
							 : "snmp-port",
					optarg, 65535, &v);
			if (c == O_GNMI_PORT)
				o->gnmi_port = (unsigned)v;
			else
				o->snmp_port = (unsigned)v;
			break;
		case O_NO_SNMP:
			o->no_snmp = true;
			break;
		case O_COMMUNITY:
			o->community = optarg;
			break;
		case O_NIC_DIR:
			o->nic_dir = optarg;
			break;
		case O_NIC_HOSTS:
			o->nic_hosts = optarg;
			break;
		case O_CONTROL:
			o->control = optarg;
			break;
		case O_EMIT:
			o->emit = optarg;
			break;
		case O_PROFILES_DIR:
			o->profiles_dir = optarg;
			break;
		case O_FABMOND_LISTEN:
			o->fabmond_listen = optarg;
			break;
		case O_NO_STATIC_LINKS:
			o->no_static_links = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("fabsim %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
		if (rc)
			return EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "fabsim: unexpected argument %s\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	int sources = !!o->topology + !!o->generate;
	if (sources > 1 || (!sources && !o->scenario)) {
		fprintf(stderr, "fabsim: give a topology (-t FILE), a scenario "
				"(-s FILE) or counts to generate one "
				"(--spines, --leaves, --hosts, --nics)\n");
		return EXIT_USAGE;
	}
	if (o->scenario && o->generate) {
		fprintf(stderr, "fabsim: a scenario names its topology: "
				"-s does not go with generated fabrics\n");
		return EXIT_USAGE;
	}
	if (o->loop && !o->scenario) {
		fprintf(stderr, "fabsim: --loop replays a scenario: give one "
				"with -s\n");
		return EXIT_USAGE;
	}
	if (o->load > 0 && o->scenario) {
		fprintf(stderr, "fabsim: --load is for a bare topology; a "
				"scenario sets its own traffic\n");
		return EXIT_USAGE;
	}
	char host[64], err[256];
	unsigned port;
	if (!sim_control_is_loopback(o->address) && !o->allow_remote) {
		fprintf(stderr,
			"fabsim: --address %s is not a loopback address; add "
			"--allow-remote to serve it\n",
			o->address);
		return EXIT_USAGE;
	}
	if (o->control && sim_control_parse_addr(o->control, host, sizeof host,
						 &port, err, sizeof err)) {
		fprintf(stderr, "fabsim: --control: %s\n", err);
		return EXIT_USAGE;
	}
	return -1;
}

/* ---- Loading ---- */

static int load(struct fabsim *f)
{
	char err[1024];
	const struct opts *o = &f->o;
	if (o->scenario) {
		f->scn = sim_scenario_load(o->scenario, err, sizeof err);
		if (!f->scn) {
			fprintf(stderr, "fabsim: %s\n", err);
			return EXIT_USAGE;
		}
		if (o->topology)
			fprintf(stderr,
				"fabsim: note: -t %s is not used: %s names "
				"its own topology\n",
				o->topology, o->scenario);
	} else {
		struct sim_topo *t =
		    o->generate ? sim_topo_generate(&o->gen, err, sizeof err)
				: sim_topo_load(o->topology, err, sizeof err);
		if (!t) {
			fprintf(stderr, "fabsim: %s\n", err);
			return EXIT_USAGE;
		}
		f->scn = sim_scenario_new_empty(t, o->seed_set ? o->seed : 1);
	}
	f->topo = sim_scenario_topo(f->scn);
	uint64_t seed = o->seed_set ? o->seed : sim_scenario_seed(f->scn);
	f->m = sim_model_new(f->topo, seed, err, sizeof err);
	if (!f->m) {
		fprintf(stderr, "fabsim: %s\n", err);
		return EXIT_RUNTIME;
	}
	sim_model_set_counter_base(f->m, o->counter_base);
	f->live = sim_scenario_live_new(f->scn);
	f->fault = calloc(sim_topo_n_nodes(f->topo) + 1, sizeof *f->fault);
	if (!f->fault)
		return EXIT_RUNTIME;
	if (o->load > 0) {
		/* Ring all-reduce per rail, as a scenario's traffic:
		 * NIC k of host h sends to NIC k of host h + 1. */
		const struct sim_topo *t = f->topo;
		size_t hosts = sim_topo_n_tier(t, SIM_NODE_HOST);
		unsigned prio = 3;
		for (unsigned p = 0; p < 8; p++)
			if (sim_topo_lossless_mask(t) & (1u << p)) {
				prio = p;
				break;
			}
		for (size_t h = 0; hosts > 1 && h < hosts; h++) {
			const struct sim_node *a =
			    sim_topo_tier_node(t, SIM_NODE_HOST, h);
			const struct sim_node *b = sim_topo_tier_node(
			    t, SIM_NODE_HOST, (h + 1) % hosts);
			for (size_t k = 0; k < a->n_ports && k < b->n_ports;
			     k++) {
				struct sim_model_flow fl = {
					a->ports[k].id,
					b->ports[k].id,
					prio,
					o->load * a->ports[k].speed,
					NULL,
					0
				};
				sim_model_add_flow(f->m, &fl);
			}
		}
	}
	return 0;
}

/* ---- Serving ---- */

static int start_servers(struct fabsim *f)
{
	char err[512];
	const struct opts *o = &f->o;
	struct sim_serve_gnmi_options go;
	sim_serve_gnmi_options_init(&go);
	go.address = o->address;
	go.base_port = o->gnmi_port;
	f->gnmi = sim_serve_gnmi_new(f->topo, &go, err, sizeof err);
	if (!f->gnmi) {
		fprintf(stderr, "fabsim: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (!o->no_snmp) {
		struct sim_snmp_options so;
		sim_snmp_options_init(&so);
		so.address = o->address;
		so.base_port = o->snmp_port;
		so.community = o->community;
		f->snmp = sim_snmp_new(f->topo, f->m, &so, err, sizeof err);
		if (!f->snmp) {
			fprintf(stderr, "fabsim: SNMP: %s\n", err);
			return EXIT_RUNTIME;
		}
	}
	if (o->nic_dir) {
		f->nic = sim_nicfs_new(f->topo, o->nic_dir, o->nic_hosts, err,
				       sizeof err);
		if (!f->nic) {
			fprintf(stderr, "fabsim: --nic-dir: %s\n", err);
			return EXIT_RUNTIME;
		}
		int rc = sim_nicfs_write(f->nic, f->m);
		if (rc) {
			fprintf(stderr, "fabsim: --nic-dir %s: %s\n",
				o->nic_dir, strerror(-rc));
			return EXIT_RUNTIME;
		}
	}
	if (o->control) {
		f->ctl = sim_control_new(o->control, err, sizeof err);
		if (!f->ctl) {
			fprintf(stderr, "fabsim: %s\n", err);
			return EXIT_RUNTIME;
		}
		fprintf(stderr, "fabsim: control endpoint on http://%s:%d\n",
			strchr(o->control, '[') ? "[::1]" : "127.0.0.1",
			sim_control_port(f->ctl));
	}
	return 0;
}

static int snmp_port(const struct fabsim *f, size_t node)
{
	return f->snmp ? sim_snmp_port(f->snmp, node) : -1;
}

static void set_fault(struct fabsim *f, size_t node,
		      enum sim_scenario_target fault)
{
	static const char *const names[] = { "ok", "silent", "refuse" };
	int rc = sim_serve_gnmi_set_fault(f->gnmi, node, fault);
	if (rc)
		fprintf(stderr, "fabsim: %s: gNMI %s: %s\n",
			sim_topo_node(f->topo, node)->name, names[fault],
			strerror(-rc));
	if (f->snmp)
		sim_snmp_set_fault(f->snmp, node, fault);
	f->fault[node] = fault;
	if (f->o.verbose)
		fprintf(stderr, "fabsim: %s is now %s\n",
			sim_topo_node(f->topo, node)->name, names[fault]);
}

static void apply_faults(struct fabsim *f, uint64_t pos)
{
	size_t n = sim_topo_n_nodes(f->topo);
	for (size_t id = 0; id < n; id++) {
		if (sim_topo_node(f->topo, id)->kind == SIM_NODE_HOST)
			continue;
		enum sim_scenario_target want =
		    sim_scenario_live_target(f->live, id, pos);
		if (want != f->fault[id])
			set_fault(f, id, want);
	}
}

/* ---- The fabmond configuration ---- */

static void yaml_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void host_port(char *buf, size_t len, const char *host, int port)
{
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/*
 * The cabling as fabmond's static links (each cable once, switch end
 * first) and the rails the leaves are wired for: what an operator
 * declares from the cabling plan. A NIC cabled to another rail's leaf
 * (sim/topologies/miswired.yaml) stays as cabled, so fabmond sees it.
 */
static void emit_topology(const struct sim_topo *t, FILE *out)
{
	unsigned nics = sim_topo_nics(t);
	bool any_rail = false;
	for (size_t i = 0; i < sim_topo_n_tier(t, SIM_NODE_LEAF); i++)
		if (sim_topo_tier_node(t, SIM_NODE_LEAF, i)->rail >= 0)
			any_rail = true;
	fprintf(out, "topology:\n");
	if (any_rail && nics) {
		fprintf(out, "  rails:\n");
		for (unsigned k = 0; k < nics; k++) {
			bool first = true;
			for (size_t i = 0;
			     i < sim_topo_n_tier(t, SIM_NODE_LEAF); i++) {
				const struct sim_node *n =
				    sim_topo_tier_node(t, SIM_NODE_LEAF, i);
				if (n->rail != (int)k)
					continue;
				fprintf(out, first ? "    - {leaves: [" : ", ");
				yaml_str(out, n->name);
				first = false;
			}
			if (!first)
				fprintf(out, "], nics: [\"mlx5_%u\"]}\n", k);
		}
	}
	fprintf(out, "  links:\n");
	for (size_t id = 0; id < sim_topo_n_ports(t); id++) {
		const struct sim_port *p = sim_topo_port(t, id);
		const struct sim_port *q = p->peer;
		if (!q)
			continue;
		/* Once per cable: from the end with the smaller id. */
		if (q->id < p->id)
			continue;
		char a[2 * SIM_TOPO_NAME_MAX + 2], b[2 * SIM_TOPO_NAME_MAX + 2];
		snprintf(a, sizeof a, "%s:%s", p->node->name, p->name);
		snprintf(b, sizeof b, "%s:%s", q->node->name, q->name);
		fprintf(out, "    - {a: ");
		yaml_str(out, a);
		fprintf(out, ", b: ");
		yaml_str(out, b);
		fprintf(out, "}\n");
	}
}

static void emit_config(const struct fabsim *f, FILE *out)
{
	const struct sim_topo *t = f->topo;
	const struct opts *o = &f->o;
	char addr[128], iv[32];
	uint64_t every = o->publish_ns > NS_PER_S ? o->publish_ns : NS_PER_S;
	units_format_duration(every, iv, sizeof iv);
	fprintf(out,
		"# fabmond configuration written by fabsim %s for the fabric "
		"of\n# %s (%zu switches, %zu hosts)%s%s.\n",
		PACKAGE_VERSION, sim_topo_source(t),
		sim_topo_n_tier(t, SIM_NODE_SPINE) +
		    sim_topo_n_tier(t, SIM_NODE_LEAF),
		sim_topo_n_tier(t, SIM_NODE_HOST),
		o->scenario ? ", scenario " : "",
		o->scenario ? o->scenario : "");
	if (f->ctl) {
		host_port(addr, sizeof addr,
			  strchr(o->control, '[') ? "::1" : "127.0.0.1",
			  sim_control_port(f->ctl));
		fprintf(out, "# fabsim control: http://%s\n", addr);
	}
	fprintf(out, "listen: [");
	yaml_str(out, o->fabmond_listen);
	fprintf(out, "]\ninterval: %s\n", iv);
	uint8_t mask = sim_topo_lossless_mask(t);
	if (mask) {
		fprintf(out, "lossless_priorities: [");
		bool first = true;
		for (unsigned p = 0; p < 8; p++)
			if (mask & (1u << p)) {
				fprintf(out, first ? "%u" : ", %u", p);
				first = false;
			}
		fprintf(out, "]\n");
	}
	if (o->profiles_dir && *o->profiles_dir) {
		fprintf(out, "profiles_dir: ");
		yaml_str(out, o->profiles_dir);
		fputc('\n', out);
	}
	fprintf(out, "targets:\n");
	for (size_t id = 0; id < sim_topo_n_nodes(t); id++) {
		const struct sim_node *n = sim_topo_node(t, id);
		if (n->kind == SIM_NODE_HOST)
			continue;
		fprintf(out, "  - name: ");
		yaml_str(out, n->name);
		host_port(addr, sizeof addr, o->address,
			  sim_serve_gnmi_port(f->gnmi, id));
		fprintf(out,
			"\n    gnmi:\n      address: \"%s\"\n      insecure: "
			"true\n      profile: %s\n      interval: %s\n",
			addr, sim_serve_gnmi_profile(n->flavour), iv);
		if (sim_serve_gnmi_target(n->flavour))
			fprintf(out, "      target: %s\n",
				sim_serve_gnmi_target(n->flavour));
		/* fabsim's SONiC tables sit under COUNTERS/<port>, so the
		 * profile's first subscription already streams Queues
		 * and Pfcwd: subscribing to them again would send them
		 * twice. The LLDP neighbours are APPL_DB's, on a stream
		 * of their own (sonic-gnmi: one database per Subscribe). */
		if (n->flavour == SIM_FLAVOUR_SONIC)
			fprintf(out, "      subscriptions:\n        - path: "
				     "/COUNTERS/Ethernet*\n          mode: "
				     "sample\n        - path: "
				     "/LLDP_ENTRY_TABLE\n          mode: "
				     "on_change\n          target: APPL_DB\n");
		int sp = snmp_port(f, id);
		if (sp > 0) {
			host_port(addr, sizeof addr, o->address, sp);
			fprintf(out,
				"    snmp:\n      address: \"udp%s:%s\"\n      "
				"version: 2c\n      community: ",
				strchr(o->address, ':') ? "6" : "", addr);
			yaml_str(out, o->community);
			fprintf(out, "\n      interval: %s\n", iv);
		}
	}
	if (!o->no_static_links)
		emit_topology(t, out);
	if (f->nic && sim_nicfs_n_hosts(f->nic)) {
		fprintf(out, "nic:\n  interval: %s\n  hosts:\n", iv);
		for (size_t i = 0; i < sim_nicfs_n_hosts(f->nic); i++) {
			const char *h = sim_nicfs_host(f->nic, i)->name;
			char *p;
			fprintf(out, "    - device: ");
			yaml_str(out, h);
			fprintf(out, "\n      sysfs_root: ");
			if (asprintf(&p, "%s/%s/sys", o->nic_dir, h) > 0) {
				yaml_str(out, p);
				free(p);
			}
			fprintf(out, "\n      ethtool_dir: ");
			if (asprintf(&p, "%s/%s/ethtool", o->nic_dir, h) > 0) {
				yaml_str(out, p);
				free(p);
			}
			fputc('\n', out);
		}
	}
}

/* Writes the config to o->emit through a temporary file and a rename,
 * so a reader sees nothing or all of it. */
static int write_config(const struct fabsim *f)
{
	const char *path = f->o.emit;
	if (strcmp(path, "-") == 0) {
		emit_config(f, stdout);
		return fflush(stdout) ? -errno : 0;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "fabsim: --emit-config %s: %s\n", tmp,
			strerror(errno));
		return -errno;
	}
	emit_config(f, out);
	int rc = 0;
	if (fflush(out) || fsync(fileno(out)))
		rc = -errno;
	/* fabmond refuses a bigger file: say so here rather than leave a
	 * caller waiting for a fabmond that exited at once. */
	long size = ftell(out);
	if (!rc && size > (long)CFG_MAX_FILE_BYTES)
		fprintf(stderr,
			"fabsim: warning: --emit-config %s: %ld bytes, more "
			"than fabmond loads (%ld)%s\n",
			path, size, (long)CFG_MAX_FILE_BYTES,
			f->o.no_static_links
			    ? ""
			    : "; --no-static-links leaves the cabling out");
	if (fclose(out) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		fprintf(stderr, "fabsim: --emit-config %s: %s\n", path,
			strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

/* ---- Control requests ---- */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static char *json_error(const char *msg)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	fprintf(out, "{\"error\":");
	json_str(out, msg);
	fprintf(out, "}\n");
	fclose(out);
	return buf;
}

static const char *const fault_names[] = { "ok", "silent", "refuse" };

static char *status_json(const struct fabsim *f)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	const struct sim_topo *t = f->topo;
	uint64_t now = sim_model_now_ns(f->m);
	fprintf(out,
		"{\"model_time_s\":%.3f,\"scenario\":", (double)now / NS_PER_S);
	if (f->o.scenario) {
		fprintf(out, "{\"file\":");
		json_str(out, f->o.scenario);
		fprintf(out,
			",\"position_s\":%.3f,\"duration_s\":%.3f,"
			"\"loop\":%s,\"loops\":%u}",
			(double)(now - f->loop_base_ns) / NS_PER_S,
			(double)sim_scenario_duration_ns(f->scn) / NS_PER_S,
			f->o.loop ? "true" : "false", f->loops);
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\"topology\":");
	json_str(out, sim_topo_source(t));
	fprintf(out,
		",\"counts\":{\"spines\":%zu,\"leaves\":%zu,\"hosts\":%zu,"
		"\"ports\":%zu,\"flows\":%zu,\"live_events\":%zu},"
		"\"events\":[",
		sim_topo_n_tier(t, SIM_NODE_SPINE),
		sim_topo_n_tier(t, SIM_NODE_LEAF),
		sim_topo_n_tier(t, SIM_NODE_HOST), sim_topo_n_ports(t),
		sim_model_n_flows(f->m), sim_scenario_live_count(f->live));
	for (size_t i = 1; i <= sim_scenario_live_count(f->live); i++) {
		bool active;
		const char *k =
		    sim_scenario_live_kind(f->live, (int)i, &active);
		fprintf(out, "%s{\"id\":%zu,\"do\":\"%s\",\"active\":%s}",
			i > 1 ? "," : "", i, k, active ? "true" : "false");
	}
	fprintf(out, "],\"switches\":[");
	bool first = true;
	for (size_t id = 0; id < sim_topo_n_nodes(t); id++) {
		const struct sim_node *n = sim_topo_node(t, id);
		if (n->kind == SIM_NODE_HOST)
			continue;
		fprintf(out, "%s{\"name\":", first ? "" : ",");
		first = false;
		json_str(out, n->name);
		fprintf(out,
			",\"kind\":\"%s\",\"flavour\":\"%s\",\"gnmi_port\":%d,"
			"\"snmp_port\":%d,\"fault\":\"%s\",\"streams\":%zu}",
			sim_topo_kind_name(n->kind),
			sim_topo_flavour_name(n->flavour),
			sim_serve_gnmi_port(f->gnmi, id), snmp_port(f, id),
			fault_names[f->fault[id]],
			sim_serve_gnmi_streams(f->gnmi, id));
	}
	fprintf(out, "]}\n");
	fclose(out);
	return buf;
}

/* "/events/12" or "/events/12/stop" -> 12; 0 if not a number. */
static int event_id(const char *s, const char **rest)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || errno || v < 1 || v > 1000000000)
		return 0;
	*rest = end;
	return (int)v;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && strchr(" \t\r\n\"", s[n - 1]))
		s[--n] = '\0';
	size_t i = strspn(s, " \t\r\n\"");
	memmove(s, s + i, n - i + 1);
}

static void handle(struct fabsim *f, struct sim_control_cmd *c)
{
	char err[1024], *reply;
	unsigned status = 200;
	const char *m = c->method, *u = c->url, *rest;
	bool get = strcmp(m, "GET") == 0, post = strcmp(m, "POST") == 0,
	     del = strcmp(m, "DELETE") == 0;
	if (strcmp(u, "/status") == 0) {
		if (!get) {
			status = 405;
			reply = json_error("GET /status only");
		} else {
			reply = status_json(f);
		}
	} else if (strcmp(u, "/events") == 0) {
		if (!post) {
			status = 405;
			reply = json_error("POST /events with one event "
					   "in the scenario file syntax");
		} else {
			int id = sim_scenario_live_apply(f->live, f->m, "event",
							 c->body, c->body_len,
							 err, sizeof err);
			if (id < 0) {
				status = 400;
				reply = json_error(err);
			} else {
				bool active;
				status = 201;
				reply = NULL;
				if (asprintf(&reply,
					     "{\"id\":%d,\"do\":\"%s\"}\n", id,
					     sim_scenario_live_kind(
						 f->live, id, &active)) < 0)
					abort();
				if (f->o.verbose)
					fprintf(stderr,
						"fabsim: live event %d: %s\n",
						id, reply);
			}
		}
	} else if (strncmp(u, "/events/", 8) == 0) {
		int id = event_id(u + 8, &rest);
		bool stop_url = strcmp(rest, "/stop") == 0;
		if (!id || (*rest && !stop_url)) {
			status = 404;
			reply = json_error("no such path: /events/<id> or "
					   "/events/<id>/stop");
		} else if (!(stop_url ? post : del)) {
			status = 405;
			reply = json_error("DELETE /events/<id> or POST "
					   "/events/<id>/stop");
		} else {
			int rc = sim_scenario_live_stop(f->live, f->m, id, err,
							sizeof err);
			if (rc) {
				status = rc == -ENOENT ? 404 : 409;
				reply = json_error(err);
			} else {
				reply = NULL;
				if (asprintf(&reply,
					     "{\"id\":%d,\"stopped\":true}\n",
					     id) < 0)
					abort();
			}
		}
	} else if (strncmp(u, "/targets/", 9) == 0 && strlen(u) > 15 &&
		   strcmp(u + strlen(u) - 6, "/fault") == 0) {
		char name[SIM_TOPO_NAME_MAX + 1];
		size_t nl = strlen(u) - 15;
		const struct sim_node *n = NULL;
		if (nl <= SIM_TOPO_NAME_MAX) {
			memcpy(name, u + 9, nl);
			name[nl] = '\0';
			n = sim_topo_find_node(f->topo, name);
		}
		char word[32];
		snprintf(word, sizeof word, "%s", c->body);
		trim(word);
		int fault = -1;
		for (int i = 0; i < 3; i++)
			if (strcmp(word, fault_names[i]) == 0)
				fault = i;
		if (!post) {
			status = 405;
			reply = json_error("POST /targets/<switch>/fault "
					   "with ok, silent or refuse");
		} else if (!n || n->kind == SIM_NODE_HOST) {
			status = 404;
			snprintf(err, sizeof err, "no switch \"%.*s\"",
				 (int)(nl > 64 ? 64 : nl), u + 9);
			reply = json_error(err);
		} else if (fault < 0 || c->body_len > 30) {
			status = 400;
			reply = json_error("the body must be ok, silent or "
					   "refuse");
		} else {
			sim_scenario_live_set_target(f->live, n->id, fault);
			apply_faults(f,
				     sim_model_now_ns(f->m) - f->loop_base_ns);
			reply = NULL;
			if (asprintf(&reply,
				     "{\"target\":\"%s\",\"fault\":\"%s\"}\n",
				     n->name, fault_names[fault]) < 0)
				abort();
		}
	} else {
		status = 404;
		reply = json_error("no such path (GET /status, POST /events, "
				   "DELETE /events/<id>, POST "
				   "/targets/<switch>/fault)");
	}
	sim_control_done(f->ctl, c, status, reply);
}

/* ---- The run loop ---- */

static void wait_until(struct fabsim *f, uint64_t deadline)
{
	for (;;) {
		uint64_t now = mono_ns();
		if (now >= deadline || stop_flag)
			return;
		if (f->snmp) {
			int rc = sim_snmp_poll(f->snmp, deadline - now);
			if (rc >= 0)
				continue;
		}
		uint64_t left = deadline - now;
		struct timespec ts = { (time_t)(left / NS_PER_S),
				       (long)(left % NS_PER_S) };
		nanosleep(&ts, NULL);
	}
}

/*
 * Costs since the start, in CPU time (wall time means little on a
 * shared machine): the model's step per tick and the run loop's
 * publish per switch, and the CPU of the other threads (the gNMI
 * targets' loop sending samples, the control endpoint) per switch
 * published, which is nearly all gRPC work.
 */
static void report(struct fabsim *f, uint64_t wall_ns)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	double loop = (double)cpu_ns() / NS_PER_S;
	double other = cpu > loop ? cpu - loop : 0;
	fprintf(stderr,
		"fabsim: %.1f s: cpu %.3f s/s (run loop %.3f s, other threads "
		"%.3f s), model step %.3f ms/tick (%llu ticks), publish "
		"%.3f ms per switch, gRPC %.3f ms per switch (%llu switch "
		"publishes), lag %.3f s, max rss %ld MiB\n",
		(double)wall_ns / NS_PER_S, cpu / ((double)wall_ns / NS_PER_S),
		loop, other,
		f->n_ticks ? (double)f->step_ns / f->n_ticks / 1e6 : 0,
		(unsigned long long)f->n_ticks,
		f->n_pub_sw ? (double)f->pub_ns / f->n_pub_sw / 1e6 : 0,
		f->n_pub_sw ? other * 1e3 / f->n_pub_sw : 0,
		(unsigned long long)f->n_pub_sw, (double)f->lag_ns / NS_PER_S,
		ru.ru_maxrss / 1024);
}

static int run(struct fabsim *f)
{
	const struct opts *o = &f->o;
	uint64_t start = mono_ns(), prev = start, owed = 0;
	/* Samples are stamped with the wall time their counters describe
	 * (the start plus model time), not the time of the publish: when
	 * the model lags the wall clock, counter deltas over timestamp
	 * deltas stay the model's rates, as a real device's do. */
	int64_t real0 = real_ns() - (int64_t)sim_model_now_ns(f->m);
	uint64_t next_tick = start + o->tick_ns, next_pub = start;
	uint64_t next_nic = start + o->nic_ns,
		 next_report = start + 10 * NS_PER_S;
	uint64_t end = o->duration_ns ? start + o->duration_ns : 0;
	uint64_t scn_len = sim_scenario_duration_ns(f->scn);
	while (!stop_flag) {
		uint64_t now = mono_ns();
		if (end && now >= end)
			break;
		/* The model keeps wall time (the NIC trees carry no
		 * timestamp: a reader's clock times them): the time
		 * elapsed is stepped in whole ticks of o->tick_ns, the rest
		 * waits for the next round, so a late loop catches up with
		 * ticks of the usual length (the model's pause dynamics
		 * count per tick). Only a stall longer than
		 * FABSIM_CATCHUP_NS is lost, as lag. */
		owed += now - prev;
		prev = now;
		if (owed > FABSIM_CATCHUP_NS) {
			f->lag_ns += owed - FABSIM_CATCHUP_NS;
			owed = FABSIM_CATCHUP_NS;
		}
		uint64_t steps = owed / o->tick_ns;
		owed -= steps * o->tick_ns;
		if (f->ctl) {
			struct sim_control_cmd *c;
			while ((c = sim_control_next(f->ctl)))
				handle(f, c);
		}
		uint64_t pos = sim_model_now_ns(f->m) - f->loop_base_ns;
		if (o->loop && pos >= scn_len) {
			sim_scenario_restart(f->scn);
			f->loop_base_ns = sim_model_now_ns(f->m);
			f->loops++;
			pos = 0;
			if (o->verbose)
				fprintf(stderr,
					"fabsim: scenario restarts "
					"(loop %u)\n",
					f->loops);
		}
		uint64_t c0 = cpu_ns();
		for (uint64_t k = 0; k < steps; k++) {
			int rc = sim_scenario_apply(f->scn, f->m,
						    pos + k * o->tick_ns);
			if (rc && !f->apply_warned) {
				fprintf(stderr,
					"fabsim: the model refused a scenario "
					"event (%s)\n",
					strerror(-rc));
				f->apply_warned = true;
			}
			sim_model_step(f->m, o->tick_ns);
			f->n_ticks++;
		}
		uint64_t t1 = mono_ns(), c1 = cpu_ns();
		f->step_ns += c1 - c0;
		apply_faults(f, pos);
		if (t1 >= next_pub) {
			size_t n = sim_serve_gnmi_publish(
			    f->gnmi, f->m,
			    real0 + (int64_t)sim_model_now_ns(f->m), false);
			f->pub_ns += cpu_ns() - c1;
			f->n_pub_sw += n;
			f->n_pubs++;
			next_pub += o->publish_ns;
			if (next_pub <= t1)
				next_pub = t1 + o->publish_ns;
		}
		if (f->nic && (uint64_t)mono_ns() >= next_nic) {
			int r = sim_nicfs_write(f->nic, f->m);
			if (r && o->verbose)
				fprintf(stderr, "fabsim: NIC trees: %s\n",
					strerror(-r));
			next_nic += o->nic_ns;
			if (next_nic <= now)
				next_nic = now + o->nic_ns;
		}
		if (o->verbose && now >= next_report) {
			report(f, now - start);
			next_report += 10 * NS_PER_S;
		}
		/* The next tick on the same grid as the model's ticks, so
		 * how far the model trails wall time (the NIC trees' skew)
		 * is only the loop's lateness, not a phase a late round
		 * left behind. */
		next_tick += o->tick_ns;
		uint64_t t2 = mono_ns();
		if (next_tick <= t2)
			next_tick +=
			    ((t2 - next_tick) / o->tick_ns + 1) * o->tick_ns;
		wait_until(f, next_tick);
	}
	if (o->verbose)
		report(f, mono_ns() - start);
	return 0;
}

static void cleanup(struct fabsim *f)
{
	sim_control_free(f->ctl);
	sim_nicfs_free(f->nic);
	sim_snmp_free(f->snmp);
	sim_serve_gnmi_free(f->gnmi);
	sim_scenario_live_free(f->live);
	sim_model_free(f->m);
	sim_scenario_free(f->scn);
	free(f->fault);
}

int main(int argc, char **argv)
{
	struct fabsim f;
	memset(&f, 0, sizeof f);
	int rc = parse_args(&f.o, argc, argv);
	if (rc >= 0)
		return rc;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = load(&f);
	if (!rc)
		rc = start_servers(&f);
	if (!rc && f.o.emit && write_config(&f))
		rc = EXIT_RUNTIME;
	if (!rc) {
		if (f.o.verbose)
			fprintf(stderr, "fabsim: serving %zu switches of %s\n",
				sim_topo_n_tier(f.topo, SIM_NODE_SPINE) +
				    sim_topo_n_tier(f.topo, SIM_NODE_LEAF),
				sim_topo_source(f.topo));
		rc = run(&f);
	}
	cleanup(&f);
	return rc;
}
