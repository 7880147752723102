/*
 * nic_read: what reading NIC counters costs.
 *
 *  1. fabsim's writer: microseconds per NIC per tick to rewrite a host's
 *     tree from the model (counter files in place, the ethtool file
 *     replaced).
 *  2. fabmon's read cycle of one host with 8 RoCE ports (sysfs counters,
 *     hw_counters, port state and the ethtool file of each port), in CPU
 *     time per cycle (CLOCK_PROCESS_CPUTIME_ID over many cycles), with
 *     and without the ethtool files.
 *  3. prometheus-node-exporter's infiniband collector on the same tree
 *     (--path.sysfs, --collector.disable-defaults
 *     --collector.infiniband, bound to 127.0.0.1 on a free port), scraped
 *     N times; its CPU from /proc/<pid>/stat; the ratio per scrape.
 *
 * Usage: bench/nic_read [cycles] [scrapes]   (defaults 20000 and 300)
 * The trees go under $TMPDIR (default /tmp): a tmpfs shows the cost of
 * the code rather than of the file system.
 * Prints figures; never fails on time. Without node_exporter installed
 * part 3 is skipped with a note.
 */
#include "config.h"

#include "log.h"
#include "model.h"
#include "nic_host.h"
#include "nicfs.h"
#include "store.h"
#include "topo.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "nic_read: %s: %s\n", what, why);
	exit(1);
}

/* CPU seconds a process has used (utime + stime), or -1. */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[2048];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	unsigned long ut = 0, st = 0;
	/* fields after ")": state(3) ... utime(14) stime(15) */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		   &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static unsigned short free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0)
		die("port", strerror(errno));
	close(s);
	return ntohs(a.sin_port);
}

struct body {
	size_t len;
	size_t ib_lines;
};

static size_t on_data(char *p, size_t sz, size_t n, void *ctx)
{
	struct body *b = ctx;
	b->len += sz * n;
	for (size_t i = 0; i + 15 < sz * n; i++)
		if (p[i] == '\n' &&
		    memcmp(p + i + 1, "node_infiniband", 15) == 0)
			b->ib_lines++;
	return sz * n;
}

static void node_exporter(const char *sysfs, int scrapes, double fabmon_cpu)
{
	const char *bin = "prometheus-node-exporter";
	if (system("command -v prometheus-node-exporter >/dev/null 2>&1")) {
		printf("node_exporter: not installed (Debian package "
		       "prometheus-node-exporter): comparison skipped\n");
		return;
	}
	unsigned short port = free_port();
	char listen[64], path[4400];
	snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%u",
		 port);
	snprintf(path, sizeof path, "--path.sysfs=%s", sysfs);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp(bin, bin, listen, path, "--collector.disable-defaults",
		       "--collector.infiniband", (char *)NULL);
		_exit(127);
	}
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/metrics", port);
	CURL *c = curl_easy_init();
	struct body b = { 0 };
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	int ok = 0;
	for (int i = 0; i < 100 && !ok; i++) {
		ok = curl_easy_perform(c) == CURLE_OK;
		if (!ok)
			usleep(50000);
	}
	if (!ok) {
		printf("node_exporter: did not answer on %s\n", url);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		curl_easy_cleanup(c);
		return;
	}
	/* warm up, then measure */
	for (int i = 0; i < 10; i++)
		curl_easy_perform(c);
	memset(&b, 0, sizeof b);
	double c0 = proc_cpu_s(pid), t0 = mono_s();
	for (int i = 0; i < scrapes; i++)
		curl_easy_perform(c);
	double c1 = proc_cpu_s(pid), t1 = mono_s();
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	curl_easy_cleanup(c);
	double per = (c1 - c0) / scrapes;
	printf("node_exporter --collector.infiniband: %d scrapes in %.2f s, "
	       "%.1f us CPU per scrape, %zu node_infiniband_* lines and %zu "
	       "bytes per scrape\n",
	       scrapes, t1 - t0, per * 1e6, b.ib_lines / (size_t)scrapes,
	       b.len / (size_t)scrapes);
	printf("CPU ratio per scrape (node_exporter / fabmon read cycle of "
	       "the same tree, sysfs only): %.1fx\n",
	       per / fabmon_cpu);
}

static double read_cycles(const char *root, const char *eth, int cycles,
			  size_t *files, int *values)
{
	struct store *st = store_new(NULL);
	struct nic_host_opts o = {
		.store = st,
		.device = "host0",
		.sysfs_root = root,
		.ethtool_dir = eth,
		.no_ethtool = eth == NULL,
		.interval_ms = 100,
		.rescan_ns = INT64_C(1) << 60, /* scans are not cycles */
	};
	struct nic_host *h = nic_host_new(&o);
	*values = nic_host_poll(h); /* the scan, and first values */
	*files = nic_host_n_files(h);
	double c0 = cpu_s();
	for (int i = 0; i < cycles; i++)
		(void)nic_host_poll(h);
	double per = (cpu_s() - c0) / cycles;
	if (eth) {
		/* a scan (list, open, resolve) plus its cycle, as happens
		   every 10 intervals */
		int scans = 200;
		c0 = cpu_s();
		for (int i = 0; i < scans; i++) {
			nic_host_rescan(h);
			(void)nic_host_poll(h);
		}
		printf("fabmon scan + cycle, 8 ports: %.1f us CPU (every 10 "
		       "intervals, 1 s to 10 s)\n",
		       (cpu_s() - c0) / scans * 1e6);
	}
	nic_host_free(h);
	store_free(st);
	return per;
}

int main(int argc, char **argv)
{
	int cycles = argc > 1 ? atoi(argv[1]) : 20000;
	int scrapes = argc > 2 ? atoi(argv[2]) : 300;
	setvbuf(stdout, NULL, _IOLBF, 0);
	log_set_level(LOG_LVL_WARN);
	if (cycles < 1 || scrapes < 1)
		die("usage", "nic_read [cycles] [scrapes]");
	char err[256];
	struct sim_topo_gen g = {
		.spines = 1, .leaves = 8, .hosts = 2, .nics = 8
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	if (!t)
		die("topology", err);
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	const struct sim_node *h0 = sim_topo_tier_node(t, SIM_NODE_HOST, 0);
	const struct sim_node *h1 = sim_topo_tier_node(t, SIM_NODE_HOST, 1);
	for (unsigned k = 0; k < 8; k++) {
		struct sim_model_flow f = {
			h0->ports[k].id, h1->ports[k].id, 3, 300, NULL, 0
		};
		sim_model_add_flow(m, &f);
	}
	char dir[4096];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir - 32, "%s", tmp && *tmp ? tmp : "/tmp");
	strcat(dir, "/fabmon-nic_read.XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp", strerror(errno));
	struct sim_nicfs *w = sim_nicfs_new(t, dir, "host0", err, sizeof err);
	if (!w)
		die("nic tree", err);

	/* 1. the writer */
	int ticks = 2000;
	double wc = 0;
	for (int i = 0; i < ticks; i++) {
		sim_model_step(m, 1000000);
		double c0 = cpu_s();
		if (sim_nicfs_write(w, m) < 0)
			die("write", "failed");
		wc += cpu_s() - c0;
	}
	printf("fabsim writer: %.1f us CPU per NIC per tick (8 NICs, %d "
	       "ticks)\n",
	       wc / ticks / 8 * 1e6, ticks);

	/* 2. fabmon's read cycle */
	char root[4200], eth[4200];
	snprintf(root, sizeof root, "%s/host0/sys", dir);
	snprintf(eth, sizeof eth, "%s/host0/ethtool", dir);
	size_t files;
	int values;
	double with_eth = read_cycles(root, eth, cycles, &files, &values);
	printf("fabmon read cycle, 8 ports, sysfs + ethtool files: %.1f us "
	       "CPU (%zu files kept open, %d values per cycle, %d cycles)\n",
	       with_eth * 1e6, files, values, cycles);
	double sysfs_only = read_cycles(root, NULL, cycles, &files, &values);
	printf("fabmon read cycle, 8 ports, sysfs only:           %.1f us "
	       "CPU (%d values per cycle)\n",
	       sysfs_only * 1e6, values);

	/* 3. node_exporter on the same tree */
	node_exporter(root, scrapes, sysfs_only);

	sim_nicfs_free(w);
	sim_model_free(m);
	sim_topo_free(t);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "nic_read: could not remove %s\n", dir);
	return 0;
}
