/*
 * gnmi_ingest: how fast the gNMI collector takes a stream in, decode
 * through store. Prints figures; never fails on time.
 *
 * A child process runs the target library on 127.0.0.1 and, once the
 * collector has subscribed, sends N prepacked notifications of M
 * updates each (Arista PFC leaves of the arista profile, values and
 * timestamps rising) as fast as gRPC takes them. The parent runs the
 * real collector (its completion-queue threads) into a real store and
 * measures its own CPU (all its threads) and wall time until every
 * update is in the store, and its peak RSS. Then, as the ceiling, the
 * same message is decoded offline with protobuf-c's malloc allocator
 * and with fabmon's arena, and read in place by the wire walker (the
 * collector's path: validate, then walk every leaf into a no-op
 * callback).
 *
 * Usage: gnmi_ingest [N [M]]   (default 20000 x 100)
 */
#include "config.h"

#include "cfg.h"
#include "client.h"
#include "collector.h"
#include "decode.h"
#include "health.h"
#include "store.h"
#include "target.h"
#include "wire.h"

#include "fabmond.h"
#include "gnmi.pb-c.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PORTS 25
#define T0    INT64_C(1800000000000000000)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* One SubscribeResponse with m updates, its values all v, stamped ts. */
static uint8_t *make_message(int m, uint64_t v, int64_t ts, size_t *len)
{
	static const char *const leaves[4] = { "in-frames", "out-frames",
					       "pfc-on-total-rx-time",
					       "rx-transitions" };
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	Gnmi__Notification n = GNMI__NOTIFICATION__INIT;
	Gnmi__Update *u = calloc((size_t)m, sizeof *u);
	Gnmi__Update **up = calloc((size_t)m, sizeof *up);
	Gnmi__Path *paths = calloc((size_t)m, sizeof *paths);
	Gnmi__TypedValue *vals = calloc((size_t)m, sizeof *vals);
	Gnmi__PathElem *elems = calloc((size_t)m * 7, sizeof *elems);
	Gnmi__PathElem **elemp = calloc((size_t)m * 7, sizeof *elemp);
	Gnmi__PathElem__KeyEntry *keys = calloc((size_t)m * 2, sizeof *keys);
	Gnmi__PathElem__KeyEntry **keyp = calloc((size_t)m * 2, sizeof *keyp);
	char(*names)[32] = calloc((size_t)m, sizeof *names);
	static char n_if[] = "interfaces", n_i[] = "interface",
		    n_eth[] = "ethernet", n_pfc[] = "pfc",
		    n_prios[] = "priorities", n_prio[] = "priority",
		    n_state[] = "state", k_name[] = "name", k_index[] = "index",
		    v3[] = "3";
	for (int i = 0; i < m; i++) {
		int port = (i / 4) % PORTS;
		snprintf(names[i], sizeof names[i], "Ethernet%d",
			 port + i / 100);
		char *e[8] = {
			n_if,	 n_i,	 n_eth,	  n_pfc,
			n_prios, n_prio, n_state, (char *)leaves[i % 4]
		};
		Gnmi__PathElem *pe = &elems[i * 7];
		/* 8 elements: reuse the block of 7 plus one static. */
		static Gnmi__PathElem last[4];
		for (int j = 0; j < 7; j++) {
			gnmi__path_elem__init(&pe[j]);
			pe[j].name = e[j];
			elemp[i * 7 + j] = &pe[j];
		}
		gnmi__path_elem__init(&last[i % 4]);
		last[i % 4].name = e[7];
		gnmi__path_elem__key_entry__init(&keys[i * 2]);
		keys[i * 2].key = k_name;
		keys[i * 2].value = names[i];
		keyp[i * 2] = &keys[i * 2];
		pe[1].n_key = 1;
		pe[1].key = &keyp[i * 2];
		gnmi__path_elem__key_entry__init(&keys[i * 2 + 1]);
		keys[i * 2 + 1].key = k_index;
		keys[i * 2 + 1].value = v3;
		keyp[i * 2 + 1] = &keys[i * 2 + 1];
		pe[5].n_key = 1;
		pe[5].key = &keyp[i * 2 + 1];
		Gnmi__PathElem **all = calloc(8, sizeof *all);
		memcpy(all, &elemp[i * 7], 7 * sizeof *all);
		all[7] = &last[i % 4];
		gnmi__path__init(&paths[i]);
		paths[i].n_elem = 8;
		paths[i].elem = all;
		gnmi__typed_value__init(&vals[i]);
		vals[i].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
		vals[i].uint_val = v;
		gnmi__update__init(&u[i]);
		u[i].path = &paths[i];
		u[i].val = &vals[i];
		up[i] = &u[i];
	}
	n.timestamp = ts;
	n.n_update = (size_t)m;
	n.update = up;
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
	r.update = &n;
	*len = gnmi__subscribe_response__get_packed_size(&r);
	uint8_t *buf = malloc(*len);
	gnmi__subscribe_response__pack(&r, buf);
	for (int i = 0; i < m; i++)
		free(paths[i].elem);
	free(u);
	free(up);
	free(paths);
	free(vals);
	free(elems);
	free(elemp);
	free(keys);
	free(keyp);
	free(names);
	return buf;
}

/* The child: serve, wait for the subscription, send n messages. */
static void run_target(int n, int m, int port_pipe)
{
	struct gnmi_target_loop *loop = gnmi_target_loop_new();
	struct gnmi_target_options o;
	char err[256];
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	struct gnmi_target *t = gnmi_target_new(loop, &o, err, sizeof err);
	if (!t) {
		fprintf(stderr, "target: %s\n", err);
		_exit(1);
	}
	int port = gnmi_target_port(t);
	if (write(port_pipe, &port, sizeof port) != sizeof port)
		_exit(1);
	while (gnmi_target_stream_count(t) == 0)
		usleep(1000);
	usleep(200000); /* the initial sync has gone */
	size_t len;
	for (int i = 0; i < n; i++) {
		uint8_t *msg = make_message(m, (uint64_t)i * 1000,
					    T0 + (int64_t)i * 1000000, &len);
		/* Keep the send queue short: the target is not the subject,
		 * and a queue past its limit cancels the stream. */
		while (gnmi_target_queued(t) > 128)
			usleep(200);
		gnmi_target_send_raw(t, msg, len);
		free(msg);
	}
	pause();
}

static void ignore_leaf(void *ctx, const struct gnmi_view *v,
			const struct gnmi_scalar *s)
{
	(void)ctx;
	(void)v;
	(void)s;
}

static void offline_decode(int m)
{
	size_t len;
	uint8_t *msg = make_message(m, 42, T0, &len);
	int rounds = 20000;
	double t0 = now_s();
	for (int i = 0; i < rounds; i++) {
		Gnmi__SubscribeResponse *r =
		    gnmi__subscribe_response__unpack(NULL, len, msg);
		gnmi__subscribe_response__free_unpacked(r, NULL);
	}
	double t_malloc = now_s() - t0;
	struct gnmi_arena *a = gnmi_arena_new(64u << 20);
	t0 = now_s();
	for (int i = 0; i < rounds; i++) {
		ProtobufCMessage *out;
		gnmi_arena_reset(a);
		gnmi_decode(&gnmi__subscribe_response__descriptor, msg, len,
			    16u << 20, a, &out);
	}
	double t_arena = now_s() - t0;
	gnmi_arena_free(a);
	uint64_t leaves = 0;
	t0 = now_s();
	for (int i = 0; i < rounds; i++) {
		struct gnmi_wire_info info;
		struct gnmi_walk_stats ws = { 0 };
		if (gnmi_wire_parse(msg, len, &info) == GNMI_WIRE_OK)
			gnmi_wire_walk(&info, ignore_leaf, NULL, NULL, &ws);
		leaves += ws.leaves;
	}
	double t_wire = now_s() - t0;
	printf("offline decode, %d updates/message (%zu bytes):\n", m, len);
	printf("  protobuf-c malloc: %.2f M updates/s\n",
	       (double)rounds * m / t_malloc / 1e6);
	printf("  fabmon arena:      %.2f M updates/s (with depth pre-scan)\n",
	       (double)rounds * m / t_arena / 1e6);
	printf("  wire walker:       %.2f M updates/s (validate + walk, %s)\n",
	       (double)rounds * m / t_wire / 1e6,
	       leaves == (uint64_t)rounds * (uint64_t)m ? "every leaf"
							: "LEAVES MISSING");
	free(msg);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	int m = argc > 2 ? atoi(argv[2]) : 100;
	const char *src = getenv("top_srcdir");
	int fds[2];
	if (n <= 0 || m <= 0 || m > 10000 || pipe(fds) < 0)
		return 2;
	pid_t child = fork();
	if (child == 0) {
		close(fds[0]);
		run_target(n, m, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	int port = 0;
	if (read(fds[0], &port, sizeof port) != sizeof port) {
		fprintf(stderr, "gnmi_ingest: the target did not start\n");
		return 1;
	}

	char text[1024], err[256];
	snprintf(text, sizeof text,
		 "profiles_dir: %s/etc/profiles\n"
		 "gnmi: {threads: 1}\n"
		 "targets:\n"
		 "  - name: leaf1\n"
		 "    gnmi:\n"
		 "      address: 127.0.0.1:%d\n"
		 "      insecure: true\n"
		 "      profile: arista\n"
		 "      subscriptions:\n"
		 "        - path: /interfaces/interface[name=*]/ethernet/pfc\n"
		 "          sample_interval: 10s\n",
		 src && *src ? src : ".", port);
	struct cfg *cfg = cfg_load_buffer(fabmond_cfg_schema(), "bench.yaml",
					  text, strlen(text), err, sizeof err);
	if (!cfg) {
		fprintf(stderr, "gnmi_ingest: %s\n", err);
		return 1;
	}
	struct store *st = store_new(NULL);
	struct health *hl = health_new();
	struct collector_env env = { .store = st, .health = hl };
	void *col = NULL;
	gnmi_collector_ops.start(&env, cfg, &col);

	uint64_t want = (uint64_t)n * (uint64_t)m, got = 0;
	double t_first = 0, c_first = 0, deadline = now_s() + 300;
	while (got < want && now_s() < deadline) {
		struct health_target_info *v = NULL;
		size_t k = health_snapshot(hl, &v);
		got = k ? v[0].counters[HEALTH_C_UPDATES] : 0;
		health_snapshot_free(v, k);
		if (got && !t_first) {
			t_first = now_s();
			c_first = cpu_s();
		}
		usleep(got ? 2000 : 1000);
	}
	double wall = now_s() - t_first, cpu = cpu_s() - c_first;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct store_stats ss;
	store_get_stats(st, &ss);

	printf("gnmi_ingest: %d notifications x %d updates over loopback\n", n,
	       m);
	printf("  updates stored: %llu of %llu (%llu series)\n",
	       (unsigned long long)got, (unsigned long long)want,
	       (unsigned long long)ss.series);
	printf("  wall %.2f s: %.2f M updates/s\n", wall,
	       (double)got / wall / 1e6);
	printf("  collector CPU %.2f s: %.2f M updates/s per core, %.0f ns "
	       "CPU per update\n",
	       cpu, (double)got / cpu / 1e6, cpu * 1e9 / (double)got);
	printf("  peak RSS %.1f MiB\n", (double)ru.ru_maxrss / 1024);

	gnmi_collector_ops.stop(col);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	health_free(hl);
	store_free(st);
	cfg_free(cfg);
	offline_decode(m);
	return got == want ? 0 : 1;
}
