/*
 * fabsim's run: loads the fabric and scenario, starts the servers
 * (gNMI per switch, SNMP, NIC trees, the control endpoint) and runs the
 * loop that owns the model (see fabsim.c for the threads). Target
 * faults are applied here; control requests are answered in
 * fabsim_ctl.c and the fabmond configuration written in fabsim_conf.c.
 */
#include "config.h"

#include "fabsim_int.h"

#include "clock.h"
#include "units.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The longest delay of the run loop the model catches up at once. */
#define FABSIM_CATCHUP_NS (2 * NS_PER_S)

static volatile sig_atomic_t stop_flag;

void fabsim_on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* CPU time of the calling thread: costs on a shared machine. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* ---- Loading ---- */

/*
 * What fabmond sees: the visibility marks (the options, else the
 * scenario's visibility: block) and the publish schedule. Each publish
 * is early or late by at most a quarter of the interval: the drawn
 * jitter leaves room for the wait until the model tick the publish
 * happens on.
 */
static int fabsim_load_view(struct fabsim *f, uint64_t seed)
{
	char err[512];
	const struct fabsim_opts *o = &f->o;
	f->vis = sim_visibility_new(f->topo);
	/* The options win over the scenario's visibility: block. */
	const struct sim_scenario *sc = f->scn;
	f->vis->lldp_unmonitored_hosts =
	    o->unmonitored_lldp || sim_scenario_unmonitored_lldp(sc);
	const char *nic =
	    o->nic_hosts
		? o->nic_hosts
		: sim_scenario_visibility(sc, SIM_SCENARIO_VIS_NIC_HOSTS);
	const char *unmon =
	    o->unmonitored
		? o->unmonitored
		: sim_scenario_visibility(sc, SIM_SCENARIO_VIS_UNMONITORED);
	const char *nolldp =
	    o->no_lldp ? o->no_lldp
		       : sim_scenario_visibility(sc, SIM_SCENARIO_VIS_NO_LLDP);
	const char *what = "--nic-hosts";
	int rc = sim_visibility_nic_hosts(f->vis, nic, err, sizeof err);
	if (!rc) {
		what = "--unmonitored";
		rc = sim_visibility_mark(f->vis, unmon, SIM_VIS_UNMONITORED,
					 err, sizeof err);
	}
	if (!rc) {
		what = "--no-lldp";
		rc = sim_visibility_mark(f->vis, nolldp, SIM_VIS_NO_LLDP, err,
					 sizeof err);
	}
	if (!rc) {
		what = "visibility: no_pause_time";
		rc = sim_visibility_mark(
		    f->vis,
		    sim_scenario_visibility(sc, SIM_SCENARIO_VIS_NO_PAUSE_TIME),
		    SIM_VIS_NO_PAUSE_TIME, err, sizeof err);
	}
	if (!rc) {
		what = "visibility: no_appl_db";
		rc = sim_visibility_mark(
		    f->vis,
		    sim_scenario_visibility(sc, SIM_SCENARIO_VIS_NO_APPL_DB),
		    SIM_VIS_NO_APPL_DB, err, sizeof err);
	}
	if (rc) {
		fprintf(stderr, "fabsim: %s: %s\n", what, err);
		return FABSIM_EXIT_USAGE;
	}
	struct sim_pubsched_options po;
	sim_pubsched_options_init(&po);
	po.interval_ns = o->publish_ns;
	po.seed = seed ^ 0x7075626c69736821ull; /* not the model's draws */
	po.phases = !o->quiet_baseline;
	double room = (double)o->tick_ns / (double)o->publish_ns;
	po.jitter = o->quiet_baseline || room >= FABSIM_SAMPLE_JITTER
			? 0
			: FABSIM_SAMPLE_JITTER - room;
	po.loss = o->sample_loss_set  ? o->sample_loss
		  : o->quiet_baseline ? 0
				      : FABSIM_SAMPLE_LOSS;
	f->sched = sim_pubsched_new(sim_topo_n_nodes(f->topo), &po);
	return f->sched ? 0 : FABSIM_EXIT_RUNTIME;
}

int fabsim_load(struct fabsim *f)
{
	char err[1024];
	const struct fabsim_opts *o = &f->o;
	if (o->scenario) {
		f->scn = sim_scenario_load(o->scenario, err, sizeof err);
		if (!f->scn) {
			fprintf(stderr, "fabsim: %s\n", err);
			return FABSIM_EXIT_USAGE;
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
			return FABSIM_EXIT_USAGE;
		}
		f->scn = sim_scenario_new_empty(t, o->seed_set ? o->seed : 1);
	}
	/* --quiet-baseline: the model's background off too, whatever the
	 * scenario says. */
	if (o->quiet_baseline)
		sim_scenario_set_background_override(f->scn, 0);
	f->topo = sim_scenario_topo(f->scn);
	uint64_t seed = o->seed_set ? o->seed : sim_scenario_seed(f->scn);
	f->m = sim_model_new(f->topo, seed, err, sizeof err);
	if (!f->m) {
		fprintf(stderr, "fabsim: %s\n", err);
		return FABSIM_EXIT_RUNTIME;
	}
	sim_model_set_counter_base(f->m, o->counter_base);
	int vrc = fabsim_load_view(f, seed);
	if (vrc)
		return vrc;
	f->live = sim_scenario_live_new(f->scn);
	f->fault = calloc(sim_topo_n_nodes(f->topo) + 1, sizeof *f->fault);
	if (!f->fault)
		return FABSIM_EXIT_RUNTIME;
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

int fabsim_start_servers(struct fabsim *f)
{
	char err[512];
	const struct fabsim_opts *o = &f->o;
	struct sim_serve_gnmi_options go;
	sim_serve_gnmi_options_init(&go);
	go.address = o->address;
	go.base_port = o->gnmi_port;
	go.tick_interval_ns = o->publish_ns;
	go.vis = f->vis;
	go.seed = o->seed_set ? o->seed : sim_scenario_seed(f->scn);
	f->gnmi = sim_serve_gnmi_new(f->topo, &go, err, sizeof err);
	if (!f->gnmi) {
		fprintf(stderr, "fabsim: %s\n", err);
		return FABSIM_EXIT_RUNTIME;
	}
	if (!o->no_snmp) {
		struct sim_snmp_options so;
		sim_snmp_options_init(&so);
		so.address = o->address;
		so.base_port = o->snmp_port;
		so.community = o->community;
		so.vis = f->vis;
		so.seed = go.seed;
		so.slow_delay_ns = o->slow_delay_ns;
		f->snmp = sim_snmp_new(f->topo, f->m, &so, err, sizeof err);
		if (!f->snmp) {
			fprintf(stderr, "fabsim: SNMP: %s\n", err);
			return FABSIM_EXIT_RUNTIME;
		}
	}
	if (o->nic_dir) {
		/* The hosts --nic-hosts names, less the unmonitored ones. */
		char *hosts = sim_visibility_nic_list(f->vis);
		f->nic =
		    sim_nicfs_new(f->topo, o->nic_dir, hosts, err, sizeof err);
		free(hosts);
		if (!f->nic) {
			fprintf(stderr, "fabsim: --nic-dir: %s\n", err);
			return FABSIM_EXIT_RUNTIME;
		}
		int rc = sim_nicfs_write(f->nic, f->m);
		if (rc) {
			fprintf(stderr, "fabsim: --nic-dir %s: %s\n",
				o->nic_dir, strerror(-rc));
			return FABSIM_EXIT_RUNTIME;
		}
	}
	if (o->control) {
		f->ctl = sim_control_new(o->control, err, sizeof err);
		if (!f->ctl) {
			fprintf(stderr, "fabsim: %s\n", err);
			return FABSIM_EXIT_RUNTIME;
		}
		fprintf(stderr, "fabsim: control endpoint on http://%s:%d\n",
			strchr(o->control, '[') ? "[::1]" : "127.0.0.1",
			sim_control_port(f->ctl));
	}
	return 0;
}

int fabsim_snmp_port(const struct fabsim *f, size_t node)
{
	return f->snmp ? sim_snmp_port(f->snmp, node) : -1;
}

static void set_fault(struct fabsim *f, size_t node,
		      enum sim_scenario_target fault)
{
	const char *name = sim_scenario_target_name(fault);
	int rc = sim_serve_gnmi_set_fault(f->gnmi, node, fault);
	if (rc)
		fprintf(stderr, "fabsim: %s: gNMI %s: %s\n",
			sim_topo_node(f->topo, node)->name, name,
			strerror(-rc));
	if (f->snmp)
		sim_snmp_set_fault(f->snmp, node, fault);
	f->fault[node] = fault;
	if (f->o.verbose)
		fprintf(stderr, "fabsim: %s is now %s\n",
			sim_topo_node(f->topo, node)->name, name);
}

void fabsim_apply_faults(struct fabsim *f, uint64_t pos)
{
	size_t n = sim_topo_n_nodes(f->topo);
	for (size_t id = 0; id < n; id++) {
		if (sim_topo_node(f->topo, id)->kind == SIM_NODE_HOST ||
		    (sim_visibility_flags(f->vis, id) & SIM_VIS_UNMONITORED))
			continue;
		enum sim_scenario_target want =
		    sim_scenario_live_target(f->live, id, pos);
		if (want != f->fault[id])
			set_fault(f, id, want);
	}
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
 * Publishes the switches whose publish is due at elapsed (ns since the
 * start) on the schedule, with timestamp ts_ns (the model time of their
 * counters); a lost publish is skipped, so the counters go on
 * accumulating and the next sample's delta spans two intervals.
 */
static void publish_due(struct fabsim *f, uint64_t elapsed, int64_t ts_ns)
{
	size_t n = sim_topo_n_nodes(f->topo), done = 0;
	for (size_t id = 0; id < n; id++) {
		bool lost;
		if (sim_topo_node(f->topo, id)->kind == SIM_NODE_HOST ||
		    !sim_pubsched_take(f->sched, id, elapsed, &lost) || lost)
			continue;
		done += sim_serve_gnmi_publish_node(f->gnmi, f->m, id, ts_ns,
						    false);
	}
	f->n_pub_sw += done;
	f->n_pubs += done > 0;
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
		"publishes, %llu lost), lag %.3f s, max rss %ld MiB\n",
		(double)wall_ns / NS_PER_S, cpu / ((double)wall_ns / NS_PER_S),
		loop, other,
		f->n_ticks ? (double)f->step_ns / f->n_ticks / 1e6 : 0,
		(unsigned long long)f->n_ticks,
		f->n_pub_sw ? (double)f->pub_ns / f->n_pub_sw / 1e6 : 0,
		f->n_pub_sw ? other * 1e3 / f->n_pub_sw : 0,
		(unsigned long long)f->n_pub_sw,
		(unsigned long long)sim_pubsched_lost(f->sched),
		(double)f->lag_ns / NS_PER_S, ru.ru_maxrss / 1024);
}

int fabsim_run(struct fabsim *f)
{
	const struct fabsim_opts *o = &f->o;
	uint64_t start = mono_ns(), prev = start, owed = 0;
	/* Samples are stamped with the wall time their counters describe
	 * (the start plus model time), not the time of the publish: when
	 * the model lags the wall clock, counter deltas over timestamp
	 * deltas stay the model's rates, as a real device's do. */
	int64_t real0 = real_ns() - (int64_t)sim_model_now_ns(f->m);
	uint64_t next_tick = start + o->tick_ns;
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
				fabsim_handle(f, c);
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
		fabsim_apply_faults(f, pos);
		publish_due(f, t1 - start,
			    real0 + (int64_t)sim_model_now_ns(f->m));
		f->pub_ns += cpu_ns() - c1;
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

void fabsim_cleanup(struct fabsim *f)
{
	sim_control_free(f->ctl);
	sim_nicfs_free(f->nic);
	sim_snmp_free(f->snmp);
	sim_serve_gnmi_free(f->gnmi);
	sim_scenario_live_free(f->live);
	sim_model_free(f->m);
	sim_scenario_free(f->scn);
	sim_pubsched_free(f->sched);
	sim_visibility_free(f->vis);
	free(f->fault);
}
