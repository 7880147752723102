/*
 * bench_sim_snmp: what fabsim's embedded SNMP agent costs at fabric
 * scale. Builds a generated fabric (default 32 spines, 960 leaves of 64
 * ports, 3,840 hosts x 8 NICs: 992 switches), starts sim_snmp on it and
 * prints the start-up time and RSS. A client process (net-snmp's
 * single-session asynchronous API, v2c, up to 100 switches in flight)
 * then polls the whole fabric: per switch one GETBULK walk of 12
 * counter columns (ifHCIn/Out Octets/Ucast/Multicast/Broadcast, ifIn/Out
 * Discards/Errors) over every port, max-repetitions 25. The agent's CPU
 * (getrusage of the serving process over the round) is printed per
 * varbind, per 64-port switch poll and as a share of one core for a
 * 1,000 x 64-port fabric polled every 10 s. Figures only; never fails on
 * time.
 *
 * Usage: bench_sim_snmp [spines leaves hosts nics [rounds [v3]]]
 * With "v3" the client uses SNMPv3 authPriv (SHA-256/AES; the keys are
 * derived once and copied into every session, and the first round
 * includes each session's engineID discovery).
 */
#include "config.h"

#include "model.h"
#include "snmp_agent.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#define NCOL	 12
#define WINDOW	 100
#define MAXREP	 25
#define OID_MAXN 32

static const oid cols[NCOL][11] = {
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 7 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 8 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 9 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 11 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 12 },
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 13 },
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 13, 0 },
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 14, 0 },
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 19, 0 },
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 20, 0 },
};
static const size_t col_len[NCOL] = { 11, 11, 11, 11, 11, 11,
				      11, 11, 10, 10, 10, 10 };

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(3);
		c += w;
		n -= (size_t)w;
	}
}

static void read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			exit(3);
		c += r;
		n -= (size_t)r;
	}
}

/* ---- The client (child process) ---- */

struct walk {
	void *sess;
	oid cur[NCOL][OID_MAXN];
	size_t cur_len[NCOL];
	bool done[NCOL];
	int active[NCOL]; /* columns in the last request */
	int n_active;
	bool finished;
};

static struct walk *walks;
static size_t n_walks, next_walk, in_flight;
static uint64_t round_vbs, round_pdus, round_timeouts;

static void start_walk(size_t i);

static bool send_next(struct walk *w);

static void finish(struct walk *w)
{
	if (w->finished)
		return;
	w->finished = true;
	in_flight--;
	if (next_walk < n_walks)
		start_walk(next_walk++);
}

static int cb(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu,
	      void *magic)
{
	(void)sp;
	(void)reqid;
	struct walk *w = magic;
	if (op == NETSNMP_CALLBACK_OP_TIMED_OUT ||
	    op == NETSNMP_CALLBACK_OP_SEND_FAILED) {
		round_timeouts++;
		finish(w);
		return 1;
	}
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || w->finished)
		return 1;
	round_pdus++;
	int i = 0;
	for (netsnmp_variable_list *v = pdu->variables; v;
	     v = v->next_variable, i++) {
		int c = w->active[i % w->n_active];
		if (w->done[c])
			continue;
		if (v->type == SNMP_ENDOFMIBVIEW ||
		    v->type == SNMP_NOSUCHOBJECT ||
		    v->type == SNMP_NOSUCHINSTANCE ||
		    snmp_oidtree_compare(cols[c], col_len[c], v->name,
					 v->name_length) != 0 ||
		    snmp_oid_compare(v->name, v->name_length, w->cur[c],
				     w->cur_len[c]) <= 0 ||
		    v->name_length > OID_MAXN) {
			w->done[c] = true;
			continue;
		}
		memcpy(w->cur[c], v->name, v->name_length * sizeof(oid));
		w->cur_len[c] = v->name_length;
		round_vbs++;
	}
	if (!send_next(w))
		finish(w);
	return 1;
}

static bool send_next(struct walk *w)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK);
	pdu->non_repeaters = 0;
	pdu->max_repetitions = MAXREP;
	w->n_active = 0;
	for (int c = 0; c < NCOL; c++) {
		if (w->done[c])
			continue;
		w->active[w->n_active++] = c;
		snmp_add_null_var(pdu, w->cur[c], w->cur_len[c]);
	}
	if (!w->n_active || !snmp_sess_async_send(w->sess, pdu, cb, w)) {
		snmp_free_pdu(pdu);
		return false;
	}
	return true;
}

static void start_walk(size_t i)
{
	struct walk *w = &walks[i];
	w->finished = false;
	for (int c = 0; c < NCOL; c++) {
		memcpy(w->cur[c], cols[c], col_len[c] * sizeof(oid));
		w->cur_len[c] = col_len[c];
		w->done[c] = false;
	}
	in_flight++;
	if (!send_next(w))
		finish(w);
}

struct round_stats {
	double wall, cpu;
	uint64_t vbs, pdus, timeouts;
};

#define V3_USER "bench"
#define V3_AUTH "bench-auth-key"
#define V3_PRIV "bench-priv-key"

static int client(int rfd, int wfd, int rounds, bool v3)
{
	uint32_t n;
	read_all(rfd, &n, sizeof n);
	int *ports = calloc(n, sizeof *ports);
	read_all(rfd, ports, n * sizeof *ports);

	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	setenv("MIBS", "", 1);
	setenv("MIBDIRS", "/nonexistent", 1);
	init_snmp("fabsim-bench");

	/* Ku does not depend on the engine: derive it once (4 ms each). */
	u_char auth_ku[USM_AUTH_KU_LEN], priv_ku[USM_PRIV_KU_LEN];
	size_t auth_ku_len = sizeof auth_ku, priv_ku_len = sizeof priv_ku;
	if (v3 && (generate_Ku(usmHMAC192SHA256AuthProtocol,
			       OID_LENGTH(usmHMAC192SHA256AuthProtocol),
			       (const u_char *)V3_AUTH, strlen(V3_AUTH),
			       auth_ku, &auth_ku_len) != SNMPERR_SUCCESS ||
		   generate_Ku(usmHMAC192SHA256AuthProtocol,
			       OID_LENGTH(usmHMAC192SHA256AuthProtocol),
			       (const u_char *)V3_PRIV, strlen(V3_PRIV),
			       priv_ku, &priv_ku_len) != SNMPERR_SUCCESS)) {
		fprintf(stderr, "bench: generate_Ku failed\n");
		return 1;
	}
	n_walks = n;
	walks = calloc(n, sizeof *walks);
	for (size_t i = 0; i < n; i++) {
		netsnmp_session s;
		char peer[64], comm[] = "public";
		snmp_sess_init(&s);
		snprintf(peer, sizeof peer, "udp:127.0.0.1:%d", ports[i]);
		s.peername = peer;
		s.version = SNMP_VERSION_2c;
		s.community = (u_char *)comm;
		s.community_len = strlen(comm);
		if (v3) {
			s.version = SNMP_VERSION_3;
			s.securityName = (char *)V3_USER;
			s.securityNameLen = strlen(V3_USER);
			s.securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
			s.securityAuthProto = usmHMAC192SHA256AuthProtocol;
			s.securityAuthProtoLen =
			    OID_LENGTH(usmHMAC192SHA256AuthProtocol);
			memcpy(s.securityAuthKey, auth_ku, auth_ku_len);
			s.securityAuthKeyLen = auth_ku_len;
			s.securityPrivProto = usmAESPrivProtocol;
			s.securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
			memcpy(s.securityPrivKey, priv_ku, priv_ku_len);
			s.securityPrivKeyLen = priv_ku_len;
		}
		s.timeout = 2000000;
		s.retries = 2;
		walks[i].sess = snmp_sess_open(&s);
		if (!walks[i].sess) {
			fprintf(stderr, "bench: cannot open session %zu\n", i);
			return 1;
		}
	}
	netsnmp_large_fd_set fds;
	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	for (int r = 0; r < rounds; r++) {
		char go = 'S';
		write_all(wfd, &go, 1);
		round_vbs = round_pdus = round_timeouts = 0;
		double t0 = now_s(), c0 = cpu_s();
		next_walk = 0;
		in_flight = 0;
		while (next_walk < n_walks && in_flight < WINDOW)
			start_walk(next_walk++);
		while (in_flight > 0) {
			int nfds = 0, block = 0;
			struct timeval tv = { 1, 0 };
			NETSNMP_LARGE_FD_ZERO(&fds);
			for (size_t i = 0; i < n_walks; i++)
				if (!walks[i].finished && i < next_walk)
					snmp_sess_select_info2_flags(
					    walks[i].sess, &nfds, &fds, &tv,
					    &block, NETSNMP_SELECT_NOALARMS);
			int k = netsnmp_large_fd_set_select(nfds, &fds, NULL,
							    NULL, &tv);
			for (size_t i = 0; i < next_walk; i++) {
				if (walks[i].finished)
					continue;
				if (k > 0)
					snmp_sess_read2(walks[i].sess, &fds);
				else if (k == 0)
					snmp_sess_timeout(walks[i].sess);
			}
		}
		struct round_stats st = { now_s() - t0, cpu_s() - c0, round_vbs,
					  round_pdus, round_timeouts };
		char end = 'E';
		write_all(wfd, &end, 1);
		write_all(wfd, &st, sizeof st);
	}
	char q = 'Q';
	write_all(wfd, &q, 1);
	netsnmp_large_fd_set_cleanup(&fds);
	for (size_t i = 0; i < n_walks; i++)
		snmp_sess_close(walks[i].sess);
	snmp_shutdown("fabsim-bench");
	free(walks);
	free(ports);
	return 0;
}

/* ---- The agent (parent) ---- */

int main(int argc, char **argv)
{
	unsigned spines = 32, leaves = 960, hosts = 3840, nics = 8;
	int rounds = 3;
	if (argc >= 5) {
		spines = (unsigned)atoi(argv[1]);
		leaves = (unsigned)atoi(argv[2]);
		hosts = (unsigned)atoi(argv[3]);
		nics = (unsigned)atoi(argv[4]);
	}
	if (argc >= 6)
		rounds = atoi(argv[5]);
	bool v3 = argc >= 7 && strcmp(argv[6], "v3") == 0;
	int to_child[2], to_parent[2];
	if (pipe(to_child) != 0 || pipe(to_parent) != 0) {
		perror("pipe");
		return 1;
	}
	/* The client forks before anything touches net-snmp. */
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(client(to_child[0], to_parent[1], rounds, v3));
	}
	close(to_child[0]);
	close(to_parent[1]);

	char err[512];
	struct sim_topo_gen g = {
		.spines = spines, .leaves = leaves, .hosts = hosts, .nics = nics
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	if (!t) {
		fprintf(stderr, "bench_sim_snmp: %s\n", err);
		return 1;
	}
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	if (!m) {
		fprintf(stderr, "bench_sim_snmp: %s\n", err);
		return 1;
	}
	/* Traffic so that counters are not all zero: NIC k of each host
	   to NIC k of the next host. */
	size_t nh = sim_topo_n_tier(t, SIM_NODE_HOST);
	for (size_t h = 0; nh > 1 && h < nh; h++) {
		const struct sim_node *a =
		    sim_topo_tier_node(t, SIM_NODE_HOST, h);
		const struct sim_node *b =
		    sim_topo_tier_node(t, SIM_NODE_HOST, (h + 1) % nh);
		for (size_t k = 0; k < a->n_ports && k < b->n_ports; k++) {
			struct sim_model_flow f = { .src = a->ports[k].id,
						    .dst = b->ports[k].id,
						    .prio = 3,
						    .gbps = 100 };
			sim_model_add_flow(m, &f);
		}
	}
	sim_model_step(m, 100000000);
	size_t n_sw = 0, n_rows = 0;
	for (size_t i = 0; i < sim_topo_n_nodes(t); i++) {
		const struct sim_node *n = sim_topo_node(t, i);
		if (n->kind != SIM_NODE_HOST) {
			n_sw++;
			n_rows += n->n_ports;
		}
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	long rss0 = rss_kib();
	double t0 = now_s(), c0 = cpu_s();
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	if (v3) {
		o.v3_user = V3_USER;
		o.v3_auth = "SHA-256";
		o.v3_auth_key = V3_AUTH;
		o.v3_priv = "AES";
		o.v3_priv_key = V3_PRIV;
	}
	struct sim_snmp *s = sim_snmp_new(t, m, &o, err, sizeof err);
	if (!s) {
		fprintf(stderr, "bench_sim_snmp: %s\n", err);
		kill(pid, SIGTERM);
		return 1;
	}
	double t1 = now_s(), c1 = cpu_s();
	long rss1 = rss_kib();
	printf("%s, fabric %u/%u/%u/%u: %zu switches, %zu switch ports; "
	       "sim_snmp_new %.1f ms wall (%.1f ms CPU), RSS %.1f MiB before "
	       "(topology + model), %.1f MiB after (+%.1f MiB agent)\n",
	       v3 ? "v3 authPriv SHA-256/AES" : "v2c", spines, leaves, hosts,
	       nics, n_sw, n_rows, (t1 - t0) * 1e3, (c1 - c0) * 1e3,
	       rss0 / 1024.0, rss1 / 1024.0, (rss1 - rss0) / 1024.0);
	fflush(stdout);

	uint32_t n = (uint32_t)n_sw;
	int *ports = calloc(n, sizeof *ports);
	size_t k = 0;
	for (size_t i = 0; i < sim_topo_n_nodes(t); i++)
		if (sim_snmp_port(s, i) >= 0)
			ports[k++] = sim_snmp_port(s, i);
	write_all(to_child[1], &n, sizeof n);
	write_all(to_child[1], ports, n * sizeof *ports);
	fcntl(to_parent[0], F_SETFL, O_NONBLOCK);

	double cpu_start = 0;
	for (bool quit = false; !quit;) {
		int r = sim_snmp_poll(s, 2000000);
		char c;
		while (!quit && read(to_parent[0], &c, 1) == 1) {
			if (c == 'S') {
				cpu_start = cpu_s();
			} else if (c == 'E') {
				double agent = cpu_s() - cpu_start;
				struct round_stats st;
				fcntl(to_parent[0], F_SETFL, 0);
				read_all(to_parent[0], &st, sizeof st);
				fcntl(to_parent[0], F_SETFL, O_NONBLOCK);
				double vb = (double)st.vbs;
				double per_vb = vb > 0 ? agent * 1e6 / vb : 0;
				/* 1,000 switches x 64 ports x 12 columns per
				   10 s */
				double share =
				    per_vb * 1e-6 * 1000 * 64 * NCOL / 10.0;
				printf("round: %llu varbinds in %llu responses "
				       "(%.1f vb/PDU), %llu "
				       "timeouts; wall %.2f s; agent CPU %.2f "
				       "s = %.2f us/varbind, %.0f us per "
				       "64-port switch poll; client CPU %.2f "
				       "s = %.2f us/varbind; 1,000 x 64 ports "
				       "x %d columns every 10 s = %.1f%% of "
				       "one core (every 1 s: %.0f%%)\n",
				       (unsigned long long)st.vbs,
				       (unsigned long long)st.pdus,
				       st.pdus ? vb / (double)st.pdus : 0,
				       (unsigned long long)st.timeouts, st.wall,
				       agent, per_vb, per_vb * 64 * NCOL,
				       st.cpu, vb > 0 ? st.cpu * 1e6 / vb : 0,
				       NCOL, share * 100, share * 1000);
				fflush(stdout);
			} else if (c == 'Q') {
				quit = true;
			}
		}
		if (r < 0)
			break;
	}
	int status;
	waitpid(pid, &status, 0);
	double f0 = now_s();
	sim_snmp_free(s);
	printf("sim_snmp_free %.1f ms\n", (now_s() - f0) * 1e3);
	free(ports);
	sim_model_free(m);
	sim_topo_free(t);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
