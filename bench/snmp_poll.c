/*
 * snmp_poll: what one SNMP poll cycle costs fabmon's collector, against
 * real agents on loopback. Prints figures; never fails on time.
 *
 *  A. One cycle of a simulated fabric (default 32 spines of 68 ports and
 *     68 leaves of 64 ports: 100 switches) served by fabsim's agents
 *     (tests/sim_snmp_serve in a child process): the first cycle (engine
 *     of identification, index tables and counters) and steady cycles
 *     (counters only), all switches started at once; wall time, the
 *     loop thread's CPU and the agent's CPU per cycle.
 *  B. One 512-port switch (a spine of 512 leaves, SONiC flavour: IF-MIB,
 *     IEEE8021-PFC and CISCO-PFC-EXT per priority) polled by fabmon and
 *     scraped by prometheus-snmp-exporter for the same columns (a module
 *     generated here), one after the other in this run: wall and CPU per
 *     poll or scrape, and their ratios.
 *
 * Usage: snmp_poll [--serve PATH] [--spines N --leaves N --hosts N]
 *                  [--sims N] [--rounds N] [--exporter PATH]
 *                  [--skip-exporter]
 * --sims 10 runs ten such fabrics, each in its own agent process (1,000
 * switches of 64 to 68 ports with the default shape).
 * Run from the build directory (make bench/snmp_poll tests/sim_snmp_serve).
 */
#include "config.h"

#include "cfg.h"
#include "collector.h"
#include "fabmond.h"
#include "health.h"
#include "log.h"
#include "snmp_poller.h"
#include "snmp_profile.h"
#include "store.h"

#include <curl/curl.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_SRCDIR
#define BENCH_SRCDIR "."
#endif

struct child {
	pid_t pid;
	FILE *out;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) a process has used so far. */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[2048];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		   &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int spawn(struct child *c, char *const argv[], bool pipe_out)
{
	int fds[2] = { -1, -1 };
	if (pipe_out && pipe(fds) < 0)
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		if (pipe_out) {
			dup2(fds[1], 1);
			close(fds[0]);
			close(fds[1]);
		}
		execv(argv[0], argv);
		fprintf(stderr, "snmp_poll: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	c->out = NULL;
	if (pipe_out) {
		close(fds[1]);
		c->out = fdopen(fds[0], "r");
	}
	return 0;
}

static void reap(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	if (c->out)
		fclose(c->out);
	c->out = NULL;
}

/* Starts sim_snmp_serve; fills names/ports. Returns the switch count. */
static size_t start_sim(struct child *c, const char *serve, unsigned spines,
			unsigned leaves, unsigned hosts, char ***names,
			int **ports)
{
	char s[16], l[16], h[16];
	snprintf(s, sizeof s, "%u", spines);
	snprintf(l, sizeof l, "%u", leaves);
	snprintf(h, sizeof h, "%u", hosts);
	char *argv[] = { (char *)serve, "--spines", s,	 "--leaves", l,
			 "--hosts",	h,	    NULL };
	if (spawn(c, argv, true) < 0)
		return 0;
	size_t n = 0;
	char line[256];
	*names = NULL;
	*ports = NULL;
	while (fgets(line, sizeof line, c->out)) {
		char name[128];
		int port;
		if (strncmp(line, "ready", 5) == 0)
			return n;
		if (sscanf(line, "%127s %d", name, &port) != 2)
			continue;
		*names = realloc(*names, (n + 1) * sizeof **names);
		*ports = realloc(*ports, (n + 1) * sizeof **ports);
		(*names)[n] = strdup(name);
		(*ports)[n] = port;
		n++;
	}
	return 0;
}

struct run {
	struct store *st;
	struct health *h;
	struct cfg *cfg;
	void *state;
};

static int run_start(struct run *r, const char *yaml)
{
	char err[1024];
	r->cfg = cfg_load_buffer(fabmond_cfg_schema(), "bench.yaml", yaml,
				 strlen(yaml), err, sizeof err);
	if (!r->cfg) {
		fprintf(stderr, "snmp_poll: %s\n", err);
		return -1;
	}
	r->st = store_new(NULL);
	r->h = health_new();
	struct collector_env env = { .store = r->st, .health = r->h };
	return snmp_collector_ops.start(&env, r->cfg, &r->state);
}

static void run_stop(struct run *r)
{
	snmp_collector_ops.stop(r->state);
	health_free(r->h);
	store_free(r->st);
	cfg_free(r->cfg);
}

/* Waits until polls_ok + polls_failed reaches want (bounded). */
static bool wait_polls(struct run *r, uint64_t want, double limit_s)
{
	struct snmp_poller_stats s;
	double t0 = now_s();
	struct timespec ts = { 0, 200 * 1000 };
	do {
		snmp_poller_get_stats(r->state, &s);
		if (s.polls_ok + s.polls_failed >= want)
			return true;
		nanosleep(&ts, NULL);
	} while (now_s() - t0 < limit_s);
	return false;
}

static char *targets_yaml(char **names, const int *ports, size_t n,
			  size_t first, size_t count)
{
	size_t cap = 4096 + count * 160, len = 0;
	char *y = malloc(cap);
	len += (size_t)snprintf(y + len, cap - len,
				"interval: 1h\nprofiles_dir: %s/etc/profiles\n"
				"targets:\n",
				BENCH_SRCDIR);
	for (size_t i = first; i < first + count && i < n; i++)
		len += (size_t)snprintf(
		    y + len, cap - len,
		    "  - name: %s\n    snmp: { address: \"127.0.0.1:%d\", "
		    "timeout: 5s, retries: 1 }\n",
		    names[i], ports[i]);
	return y;
}

static double sims_cpu_s(const struct child *sims, int nsims)
{
	double c = 0;
	for (int i = 0; i < nsims; i++)
		c += proc_cpu_s(sims[i].pid);
	return c;
}

static void fabric_cycle(const char *serve, unsigned spines, unsigned leaves,
			 unsigned hosts, int nsims, int rounds)
{
	struct child sims[64] = { { 0 } };
	char **names = NULL;
	int *ports = NULL;
	size_t n = 0;
	for (int k = 0; k < nsims; k++) {
		char **nk;
		int *pk;
		size_t m =
		    start_sim(&sims[k], serve, spines, leaves, hosts, &nk, &pk);
		if (!m) {
			fprintf(stderr, "snmp_poll: %s did not start\n", serve);
			for (int j = 0; j <= k; j++)
				reap(&sims[j]);
			return;
		}
		names = realloc(names, (n + m) * sizeof *names);
		ports = realloc(ports, (n + m) * sizeof *ports);
		for (size_t i = 0; i < m; i++) {
			/* Unique target names across the processes. */
			if (asprintf(&names[n + i], "s%d-%s", k, nk[i]) < 0)
				abort();
			ports[n + i] = pk[i];
			free(nk[i]);
		}
		free(nk);
		free(pk);
		n += m;
	}
	char *y = targets_yaml(names, ports, n, 0, n);
	struct run r = { 0 };
	double a0 = sims_cpu_s(sims, nsims);
	double t0 = now_s();
	if (run_start(&r, y) < 0) {
		for (int k = 0; k < nsims; k++)
			reap(&sims[k]);
		return;
	}
	/* The first cycle: identification, index tables and counters. */
	snmp_poller_trigger(r.state);
	if (!wait_polls(&r, n, 120))
		fprintf(stderr, "snmp_poll: first cycle incomplete\n");
	struct snmp_poller_stats s0, s1;
	snmp_poller_get_stats(r.state, &s0);
	double t1 = now_s(), a1 = sims_cpu_s(sims, nsims);
	printf("A. fabric of %zu switches (fabsim agents in %d process%s)\n", n,
	       nsims, nsims > 1 ? "es" : "");
	printf("   first cycle (ident + index + counters): wall %.3f s, "
	       "fabmon CPU %.3f s, agent CPU %.3f s, %llu values, %llu "
	       "failed\n",
	       t1 - t0, (double)s0.loop_cpu_ns / 1e9, a1 - a0,
	       (unsigned long long)s0.values,
	       (unsigned long long)s0.polls_failed);
	double wall = 0, cpu = 0, agent = 0, worst = 0;
	uint64_t values = 0;
	for (int k = 0; k < rounds; k++) {
		snmp_poller_get_stats(r.state, &s0);
		double c0 = now_s(), g0 = sims_cpu_s(sims, nsims);
		snmp_poller_trigger(r.state);
		wait_polls(&r, s0.polls_ok + s0.polls_failed + n, 120);
		double c1 = now_s(), g1 = sims_cpu_s(sims, nsims);
		snmp_poller_get_stats(r.state, &s1);
		wall += c1 - c0;
		if (c1 - c0 > worst)
			worst = c1 - c0;
		cpu += (double)(s1.loop_cpu_ns - s0.loop_cpu_ns) / 1e9;
		agent += g1 - g0;
		values += s1.values - s0.values;
	}
	printf("   steady cycle (counters), mean of %d: wall %.3f s (worst "
	       "%.3f), fabmon CPU %.3f s, agent CPU %.3f s, %llu values "
	       "(%.2f us fabmon CPU per value)\n",
	       rounds, wall / rounds, worst, cpu / rounds, agent / rounds,
	       (unsigned long long)(values / (uint64_t)rounds),
	       values ? cpu * 1e6 / (double)values : 0);
	double per_switch = cpu / rounds / (double)n;
	printf("   => 1,000 such switches: about %.2f s of fabmon CPU per "
	       "cycle (%.0f%% of one core at a 10 s interval)\n",
	       per_switch * 1000, per_switch * 1000 / 10 * 100);
	run_stop(&r);
	free(y);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ports);
	for (int k = 0; k < nsims; k++)
		reap(&sims[k]);
}

static size_t discard(char *p, size_t sz, size_t nm, void *ctx)
{
	(void)p;
	*(size_t *)ctx += sz * nm;
	return sz * nm;
}

static int free_tcp_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &l) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return ntohs(a.sin_port);
}

/* snmp_exporter module walking exactly the profile's columns. */
static int write_exporter_config(const char *path, const struct snmp_profile *p)
{
	FILE *f = fopen(path, "w");
	char buf[SNMP_PROFILE_MAX_OID * 11];
	if (!f)
		return -1;
	fprintf(f,
		"fabmon_bench:\n  version: 2\n  max_repetitions: 25\n"
		"  retries: 1\n  timeout: 5s\n  auth:\n    community: public\n"
		"  walk:\n");
	fprintf(f, "    - 1.3.6.1.2.1.31.1.1.1.19\n");
	for (size_t i = 0; i < p->n_cols; i++)
		if (p->cols[i].fallback_for < 0)
			fprintf(f, "    - %s\n",
				snmp_oid_format(p->cols[i].oid,
						p->cols[i].oid_len, buf,
						sizeof buf));
	fprintf(f, "  metrics:\n");
	fprintf(f, "    - name: ifCounterDiscontinuityTime\n"
		   "      oid: 1.3.6.1.2.1.31.1.1.1.19\n      type: gauge\n"
		   "      indexes:\n        - labelname: ifIndex\n"
		   "          type: gauge\n");
	for (size_t i = 0; i < p->n_cols; i++) {
		const struct snmp_column *c = &p->cols[i];
		if (c->fallback_for >= 0)
			continue;
		fprintf(f,
			"    - name: %s\n      oid: %s\n      type: %s\n"
			"      indexes:\n",
			c->name,
			snmp_oid_format(c->oid, c->oid_len, buf, sizeof buf),
			c->kind == SNMP_SAMPLE_GAUGE ? "gauge" : "counter");
		for (size_t k = 0; k < c->index.n; k++)
			fprintf(f,
				"        - labelname: idx%zu\n"
				"          type: gauge\n",
				k);
	}
	return fclose(f);
}

static void switch_512(const char *serve, const char *exporter, int rounds,
		       bool skip_exporter)
{
	struct child sim = { 0 }, exp = { 0 };
	char **names;
	int *ports;
	size_t n = start_sim(&sim, serve, 1, 512, 512, &names, &ports);
	if (!n) {
		fprintf(stderr, "snmp_poll: %s did not start\n", serve);
		reap(&sim);
		return;
	}
	/* Node order: spines first; spine0 has a port per leaf. */
	char *y = targets_yaml(names, ports, n, 0, 1);
	struct run r = { 0 };
	if (run_start(&r, y) < 0) {
		reap(&sim);
		return;
	}
	snmp_poller_trigger(r.state);
	wait_polls(&r, 1, 60);
	struct snmp_poller_stats s0, s1;
	snmp_poller_get_stats(r.state, &s0);
	double t0 = now_s(), g0 = proc_cpu_s(sim.pid);
	for (int k = 0; k < rounds; k++) {
		snmp_poller_trigger(r.state);
		wait_polls(&r, s0.polls_ok + s0.polls_failed + (uint64_t)k + 1,
			   60);
	}
	double t1 = now_s(), g1 = proc_cpu_s(sim.pid);
	snmp_poller_get_stats(r.state, &s1);
	double fm_wall = (t1 - t0) / rounds;
	double fm_cpu =
	    (double)(s1.loop_cpu_ns - s0.loop_cpu_ns) / 1e9 / rounds;
	double fm_agent = (g1 - g0) / rounds;
	uint64_t fm_values = (s1.values - s0.values) / (uint64_t)rounds;
	printf("B. one %s switch of 512 ports (fabsim agent, SONiC flavour)\n",
	       names[0]);
	printf("   fabmon:         wall %.4f s/poll, CPU %.4f s/poll, agent "
	       "CPU %.4f s/poll, %llu values/poll\n",
	       fm_wall, fm_cpu, fm_agent, (unsigned long long)fm_values);

	/* The same columns for snmp_exporter: the chosen profile's. */
	char err[512];
	struct snmp_profile_set set;
	snmp_profile_set_load(&set, BENCH_SRCDIR "/etc/profiles", NULL, NULL);
	const struct snmp_profile *p = snmp_profile_find(&set, "snmp-generic");
	run_stop(&r);
	if (skip_exporter || !p || access(exporter, X_OK) != 0) {
		printf("   snmp_exporter:  not run (%s)\n",
		       skip_exporter ? "--skip-exporter"
		       : !p	     ? "no snmp-generic profile"
				     : "prometheus-snmp-exporter not found");
		goto out;
	}
	char cfgpath[] = "/tmp/fabmon-snmp-exporter-XXXXXX";
	int fd = mkstemp(cfgpath);
	if (fd < 0) {
		perror("mkstemp");
		goto out;
	}
	close(fd);
	write_exporter_config(cfgpath, p);
	int hp = free_tcp_port();
	char cfgarg[128], listen[64], url[256];
	snprintf(cfgarg, sizeof cfgarg, "--config.file=%s", cfgpath);
	snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%d",
		 hp);
	char *argv[] = { (char *)exporter, cfgarg, listen, "--log.level=error",
			 NULL };
	spawn(&exp, argv, false);
	snprintf(
	    url, sizeof url,
	    "http://127.0.0.1:%d/snmp?target=127.0.0.1:%d&module=fabmon_bench",
	    hp, ports[0]);
	CURL *c = curl_easy_init();
	size_t bytes = 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &bytes);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	/* Wait for it to listen, and warm it up with one scrape. */
	CURLcode rc = CURLE_COULDNT_CONNECT;
	for (int i = 0; i < 100 && rc != CURLE_OK; i++) {
		rc = curl_easy_perform(c);
		if (rc != CURLE_OK)
			usleep(50000);
	}
	long code = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (rc != CURLE_OK || code != 200) {
		printf("   snmp_exporter:  scrape failed (%s, HTTP %ld)\n",
		       curl_easy_strerror(rc), code);
		goto out_curl;
	}
	double e0 = now_s(), x0 = proc_cpu_s(exp.pid), h0 = proc_cpu_s(sim.pid);
	bytes = 0;
	for (int k = 0; k < rounds; k++)
		curl_easy_perform(c);
	double e1 = now_s(), x1 = proc_cpu_s(exp.pid), h1 = proc_cpu_s(sim.pid);
	double ex_wall = (e1 - e0) / rounds, ex_cpu = (x1 - x0) / rounds;
	printf("   snmp_exporter:  wall %.4f s/scrape, CPU %.4f s/scrape, "
	       "agent CPU %.4f s/scrape, %zu bytes/scrape\n",
	       ex_wall, ex_cpu, (h1 - h0) / rounds, bytes / (size_t)rounds);
	printf("   ratios (snmp_exporter / fabmon): CPU %.1fx, wall %.1fx "
	       "(goal: >= 5x CPU, >= 3x wall)\n",
	       fm_cpu > 0 ? ex_cpu / fm_cpu : 0,
	       fm_wall > 0 ? ex_wall / fm_wall : 0);
out_curl:
	curl_easy_cleanup(c);
	unlink(cfgpath);
out:
	(void)err;
	snmp_profile_set_clear(&set);
	reap(&exp);
	reap(&sim);
	free(y);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ports);
}

int main(int argc, char **argv)
{
	const char *serve = "tests/sim_snmp_serve";
	const char *exporter = "/usr/bin/prometheus-snmp-exporter";
	unsigned spines = 32, leaves = 68, hosts = 2176;
	int rounds = 5, nsims = 1;
	bool skip_exporter = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--skip-exporter")) {
			skip_exporter = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "snmp_poll: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--serve"))
			serve = v;
		else if (!strcmp(a, "--exporter"))
			exporter = v;
		else if (!strcmp(a, "--spines"))
			spines = (unsigned)atoi(v);
		else if (!strcmp(a, "--leaves"))
			leaves = (unsigned)atoi(v);
		else if (!strcmp(a, "--hosts"))
			hosts = (unsigned)atoi(v);
		else if (!strcmp(a, "--sims"))
			nsims = atoi(v) > 0 && atoi(v) <= 64 ? atoi(v) : 1;
		else if (!strcmp(a, "--rounds"))
			rounds = atoi(v) > 0 ? atoi(v) : 1;
		else {
			fprintf(stderr, "snmp_poll: unknown option %s\n", a);
			return 2;
		}
	}
	if (access(serve, X_OK) != 0) {
		fprintf(stderr,
			"snmp_poll: %s not found: run from the build directory "
			"after make tests/sim_snmp_serve, or pass --serve\n",
			serve);
		return 2;
	}
	log_init();
	log_set_level(LOG_LVL_ERR);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	fabric_cycle(serve, spines, leaves, hosts, nsims, rounds);
	switch_512(serve, exporter, rounds * 4, skip_exporter);
	curl_global_cleanup();
	return 0;
}
