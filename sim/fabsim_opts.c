/*
 * fabsim's command line: the usage text, the options into struct
 * fabsim_opts, and the checks of their combinations. Messages go to
 * stderr and name the option, as they always have.
 */
#include "config.h"

#include "fabsim_opts.h"

#include "control.h"
#include "model.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FABMON_PROFILEDIR
#define FABMON_PROFILEDIR "/usr/share/fabmon/profiles"
#endif

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
		"      --quiet-baseline    publish every switch on one grid, "
		"none late or lost\n"
		"      --sample-loss F     share of publishes lost (default "
		"0.005)\n"
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
		"      --slow-delay DUR    the slow fault's SNMP delay "
		"(default 3s)\n"
		"      --nic-dir DIR       write NIC sysfs/ethtool trees under "
		"DIR\n"
		"      --nic-hosts LIST    all (default), none, or h1,h2,...\n"
		"      --nic-interval DUR  NIC tree write interval (default "
		"every tick)\n"
		"      --control H:P       control endpoint (HTTP, loopback "
		"only)\n"
		"      --unmonitored LIST  nodes that are not targets at all\n"
		"      --unmonitored-lldp  LLDP names unmonitored hosts too\n"
		"      --no-lldp LIST      switches that export no LLDP\n"
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
	O_QUIET_BASELINE,
	O_SAMPLE_LOSS,
	O_UNMONITORED,
	O_UNMONITORED_LLDP,
	O_NO_LLDP,
	O_SLOW_DELAY,
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
	{ "slow-delay", required_argument, NULL, O_SLOW_DELAY },
	{ "nic-dir", required_argument, NULL, O_NIC_DIR },
	{ "nic-hosts", required_argument, NULL, O_NIC_HOSTS },
	{ "nic-interval", required_argument, NULL, O_NIC_INTERVAL },
	{ "control", required_argument, NULL, O_CONTROL },
	{ "emit-config", required_argument, NULL, O_EMIT },
	{ "profiles-dir", required_argument, NULL, O_PROFILES_DIR },
	{ "fabmond-listen", required_argument, NULL, O_FABMOND_LISTEN },
	{ "no-static-links", no_argument, NULL, O_NO_STATIC_LINKS },
	{ "quiet-baseline", no_argument, NULL, O_QUIET_BASELINE },
	{ "sample-loss", required_argument, NULL, O_SAMPLE_LOSS },
	{ "unmonitored", required_argument, NULL, O_UNMONITORED },
	{ "unmonitored-lldp", no_argument, NULL, O_UNMONITORED_LLDP },
	{ "no-lldp", required_argument, NULL, O_NO_LLDP },
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

static int parse_flavours(struct fabsim_opts *o, const char *s)
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

/* The defaults, before the options. */
static void set_defaults(struct fabsim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->tick_ns = 100 * NS_PER_MS;
	o->publish_ns = NS_PER_S;
	o->nic_ns = 0; /* every tick */
	o->address = "127.0.0.1";
	o->community = "public";
	o->profiles_dir = FABMON_PROFILEDIR;
	o->fabmond_listen = "127.0.0.1:9465";
}

/* An option of the fabric (generation, traffic, counters): 0, or
 * -EINVAL after a message. */
static int parse_fabric_opt(struct fabsim_opts *o, int c)
{
	int rc = 0;
	uint64_t v;
	switch (c) {
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
			rc = bad_arg(c == O_SPEED ? "speed" : "host-speed",
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
			rc =
			    bad_arg("load", optarg, "expected a fraction 0..1");
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
	}
	return rc;
}

/* An option of what fabmond sees (noise of the publishes, partial
 * visibility): 0, or -EINVAL after a message. */
static int parse_view_opt(struct fabsim_opts *o, int c)
{
	int rc = 0;
	switch (c) {
	case O_QUIET_BASELINE:
		o->quiet_baseline = true;
		break;
	case O_SAMPLE_LOSS: {
		char *end;
		o->sample_loss = strtod(optarg, &end);
		if (*end || !*optarg ||
		    !(o->sample_loss >= 0 && o->sample_loss <= 1))
			rc = bad_arg("sample-loss", optarg,
				     "expected a fraction 0..1");
		o->sample_loss_set = true;
		break;
	}
	case O_UNMONITORED:
		o->unmonitored = optarg;
		break;
	case O_UNMONITORED_LLDP:
		o->unmonitored_lldp = true;
		break;
	case O_NO_LLDP:
		o->no_lldp = optarg;
		break;
	}
	return rc;
}

/* Option c of getopt_long (its argument in optarg): -1 to go on, else
 * the exit status. */
static int parse_opt(struct fabsim_opts *o, int c)
{
	int rc = 0;
	uint64_t v;
	switch (c) {
	case 't':
		o->topology = optarg;
		break;
	case 's':
		o->scenario = optarg;
		break;
	case O_TICK:
		rc = parse_dur("tick", optarg, NS_PER_MS, SIM_MODEL_MAX_TICK_NS,
			       &o->tick_ns);
		break;
	case O_PUBLISH:
		rc = parse_dur("publish", optarg, 10 * NS_PER_MS,
			       3600 * NS_PER_S, &o->publish_ns);
		break;
	case O_SLOW_DELAY:
		rc = parse_dur("slow-delay", optarg, 10 * NS_PER_MS,
			       600 * NS_PER_S, &o->slow_delay_ns);
		break;
	case O_NIC_INTERVAL:
		rc = parse_dur("nic-interval", optarg, 10 * NS_PER_MS,
			       3600 * NS_PER_S, &o->nic_ns);
		break;
	case O_LOOP:
		o->loop = true;
		break;
	case O_DURATION:
		rc = parse_dur("duration", optarg, NS_PER_MS, UINT64_MAX / 4,
			       &o->duration_ns);
		break;
	case O_ADDRESS:
		o->address = optarg;
		break;
	case O_ALLOW_REMOTE:
		o->allow_remote = true;
		break;
	case O_GNMI_PORT:
	case O_SNMP_PORT:
		rc = parse_uint(c == O_GNMI_PORT ? "gnmi-port" : "snmp-port",
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
	case O_SPINES:
	case O_LEAVES:
	case O_HOSTS:
	case O_NICS:
	case O_SPEED:
	case O_HOST_SPEED:
	case O_FLAVOURS:
	case O_LOAD:
	case O_SEED:
	case O_COUNTER_BASE:
		rc = parse_fabric_opt(o, c);
		break;
	case O_QUIET_BASELINE:
	case O_SAMPLE_LOSS:
	case O_UNMONITORED:
	case O_UNMONITORED_LLDP:
	case O_NO_LLDP:
		rc = parse_view_opt(o, c);
		break;
	default:
		usage(stderr);
		return FABSIM_EXIT_USAGE;
	}
	return rc ? FABSIM_EXIT_USAGE : -1;
}

/* The combinations of options; -1 to go on, else the exit status. */
static int check_opts(const struct fabsim_opts *o, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "fabsim: unexpected argument %s\n",
			argv[optind]);
		return FABSIM_EXIT_USAGE;
	}
	int sources = !!o->topology + !!o->generate;
	if (sources > 1 || (!sources && !o->scenario)) {
		fprintf(stderr, "fabsim: give a topology (-t FILE), a scenario "
				"(-s FILE) or counts to generate one "
				"(--spines, --leaves, --hosts, --nics)\n");
		return FABSIM_EXIT_USAGE;
	}
	if (o->scenario && o->generate) {
		fprintf(stderr, "fabsim: a scenario names its topology: "
				"-s does not go with generated fabrics\n");
		return FABSIM_EXIT_USAGE;
	}
	if (o->loop && !o->scenario) {
		fprintf(stderr, "fabsim: --loop replays a scenario: give one "
				"with -s\n");
		return FABSIM_EXIT_USAGE;
	}
	if (o->load > 0 && o->scenario) {
		fprintf(stderr, "fabsim: --load is for a bare topology; a "
				"scenario sets its own traffic\n");
		return FABSIM_EXIT_USAGE;
	}
	char host[64], err[256];
	unsigned port;
	if (!sim_control_is_loopback(o->address) && !o->allow_remote) {
		fprintf(stderr,
			"fabsim: --address %s is not a loopback address; add "
			"--allow-remote to serve it\n",
			o->address);
		return FABSIM_EXIT_USAGE;
	}
	if (o->control && sim_control_parse_addr(o->control, host, sizeof host,
						 &port, err, sizeof err)) {
		fprintf(stderr, "fabsim: --control: %s\n", err);
		return FABSIM_EXIT_USAGE;
	}
	return -1;
}

/* Returns -1 to go on, else the exit status. */
int fabsim_opts_parse(struct fabsim_opts *o, int argc, char **argv)
{
	int c;
	set_defaults(o);
	while ((c = getopt_long(argc, argv, "t:s:vhV", longopts, NULL)) != -1) {
		int rc = parse_opt(o, c);
		if (rc >= 0)
			return rc;
	}
	return check_opts(o, argc, argv);
}
