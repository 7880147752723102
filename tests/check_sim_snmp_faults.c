/*
 * check_sim_snmp_faults: the target faults of fabsim's embedded SNMP
 * agent as a client on 127.0.0.1 sees them, with hand-made v2c
 * requests over a real UDP socket: garbage (each request answered from
 * the switch's port with a datagram that is not BER), the gNMI-only
 * faults (the agent serves), and ok restoring normal answers; and with
 * net-snmp's snmpget/snmpwalk (Debian package snmp; exits 77 without
 * them), which print each varbind's type: wrong_types (ifXTable's HC
 * counters as Counter32 or OCTET STRING, ifHighSpeed as OCTET STRING)
 * and renumber (the first and third interfaces trade ifIndex, names and
 * counters following the ports). Slow: no answer within a second, the
 * other switch answered meanwhile, then the answer (order, not time).
 *
 * The test process serves the agent with sim_snmp_poll() between its
 * own reads; waits are bounded (a hang guard, not a timing check).
 * Every test runs in its own process (net-snmp's agent starts once per
 * process).
 */
#include "config.h"

#include "model.h"
#include "snmp_agent.h"
#include "topo.h"

#include "sim_snmp_tool.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_S 30

#define OUT_MAX (256 * 1024)

static char err[1024];
static char envdir[256];
static char out[OUT_MAX];
static struct sim_topo *T;
static struct sim_model *M;
static struct sim_snmp *S;

static uint64_t slow_delay_ns; /* the agent's, if set before start() */

/* 2 spines (sonic, arista), 1 leaf, 2 hosts; a second of traffic. */
static void start(uint64_t seed)
{
	static const enum sim_flavour flav[] = { SIM_FLAVOUR_SONIC,
						 SIM_FLAVOUR_ARISTA };
	struct sim_topo_gen g = { .spines = 2,
				  .leaves = 1,
				  .hosts = 2,
				  .nics = 1,
				  .flavours = flav,
				  .n_flavours = 2 };
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
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(sim_model_step(M, 100000000ull), 0);
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	o.seed = seed;
	o.slow_delay_ns = slow_delay_ns;
	char state[300];
	snprintf(state, sizeof state, "%s/state-%ld", envdir, (long)getpid());
	o.state_dir = state;
	S = sim_snmp_new(T, M, &o, err, sizeof err);
	ck_assert_msg(S != NULL, "%s", err);
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

/* Runs a tool while serving the agent (sim_snmp_tool.h). */
#define run(...) sim_snmp_tool(S, out, sizeof out, __VA_ARGS__)

/* Numeric OIDs, the type of each value printed. The tools' own
 * timeout is generous: the agent answers as soon as run() polls it. */
#define V2C "-v2c -c public -On -t 5 -r 2"

/* A UDP socket connected to 127.0.0.1:port. */
static int client(int port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* Serves the agent until fd has a datagram (into buf) or max_ms of
 * polling have passed; its length, 0 if none came, or -errno. */
static ssize_t serve_until_answer(int fd, uint8_t *buf, size_t len, int max_ms)
{
	for (int waited = 0; waited <= max_ms; waited += 10) {
		ssize_t r = recv(fd, buf, len, MSG_DONTWAIT);
		if (r >= 0)
			return r;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		ck_assert_int_ge(sim_snmp_poll(S, 10000000), 0);
	}
	return 0;
}

/* Sends msg to the switch at port and returns the answer's length in
 * buf (0: none within the hang guard). */
static ssize_t ask(int port, const void *msg, size_t mlen, uint8_t *buf,
		   size_t len)
{
	int fd = client(port);
	ck_assert_int_eq(send(fd, msg, mlen, 0), (ssize_t)mlen);
	ssize_t r = serve_until_answer(fd, buf, len, WAIT_S * 1000);
	close(fd);
	return r;
}

/*
 * Whether buf holds one well-formed BER TLV that fills it exactly: the
 * outer shape of every SNMP message (a SEQUENCE with a definite
 * length). Enough to tell an answer from the garbage fault's bytes.
 */
static bool ber_whole(const uint8_t *b, size_t n)
{
	if (n < 2 || (b[0] & 0x1f) == 0x1f)
		return false;
	size_t len, hdr;
	if (b[1] < 0x80) {
		len = b[1];
		hdr = 2;
	} else {
		size_t k = b[1] & 0x7f;
		if (k == 0 || k > 4 || 2 + k > n)
			return false;
		len = 0;
		for (size_t i = 0; i < k; i++)
			len = len << 8 | b[2 + i];
		hdr = 2 + k;
	}
	return b[0] == 0x30 && hdr + len == n;
}

/* A v2c GET of sysName.0 with community "public", BER by hand. */
static const uint8_t get_sysname[] = {
	0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x06, 'p',	0x75, 0x62, 0x6c,
	0x69, 0x63, 0xa0, 0x1c, 0x02, 0x04, 0x12, 0x34, 0x56, 0x78, 0x02,
	0x01, 0x00, 0x02, 0x01, 0x00, 0x30, 0x0e, 0x30, 0x0c, 0x06, 0x08,
	0x2b, 0x06, 0x01, 0x02, 0x01, 0x01, 0x05, 0x00, 0x05, 0x00,
};

/* A GET answered normally: a whole BER message naming the switch. */
static void expect_answer(const struct sim_node *n)
{
	uint8_t buf[2048];
	ssize_t r = ask(sim_snmp_port(S, n->id), get_sysname,
			sizeof get_sysname, buf, sizeof buf);
	ck_assert_int_gt(r, 0);
	ck_assert(ber_whole(buf, (size_t)r));
	ck_assert_ptr_nonnull(memmem(buf, (size_t)r, n->name, strlen(n->name)));
}

/* The garbage answers of n to `count` GETs, concatenated into dst
 * (each prefixed by its length byte); returns the bytes used. */
static size_t garbage_answers(const struct sim_node *n, int count, uint8_t *dst,
			      size_t cap)
{
	size_t used = 0;
	for (int i = 0; i < count; i++) {
		uint8_t buf[2048];
		ssize_t r = ask(sim_snmp_port(S, n->id), get_sysname,
				sizeof get_sysname, buf, sizeof buf);
		ck_assert_msg(r > 0, "no answer to request %d", i);
		ck_assert_msg(!ber_whole(buf, (size_t)r),
			      "answer %d is a BER message", i);
		ck_assert_uint_lt(used + 1 + (size_t)r, cap);
		dst[used++] = (uint8_t)r;
		memcpy(dst + used, buf, (size_t)r);
		used += (size_t)r;
	}
	return used;
}

/* Garbage: every request is answered from the switch's port with bytes
 * that are not BER, the same bytes for the same seed; the other switch
 * answers normally; ok brings answers back. */
START_TEST(test_garbage_answers_are_not_ber)
{
	start(5);
	const struct sim_node *n = sim_topo_node(T, 0);
	const struct sim_node *other = sim_topo_node(T, 1);
	expect_answer(n);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_GARBAGE);
	uint8_t a[1024], b[1024];
	size_t la = garbage_answers(n, 8, a, sizeof a);
	expect_answer(other);
	/* Entering the fault again restarts the generator. */
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	expect_answer(n);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_GARBAGE);
	size_t lb = garbage_answers(n, 8, b, sizeof b);
	ck_assert_uint_eq(la, lb);
	ck_assert_mem_eq(a, b, la);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	expect_answer(n);
	stop();
}
END_TEST

/* The gNMI-only faults leave SNMP serving. */
START_TEST(test_gnmi_only_faults_keep_snmp_answering)
{
	start(1);
	const struct sim_node *n = sim_topo_node(T, 0);
	int port = sim_snmp_port(S, n->id);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_RESET);
	expect_answer(n);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_DROP_AFTER_SYNC);
	expect_answer(n);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	expect_answer(n);
	ck_assert_int_eq(sim_snmp_port(S, n->id), port);
	stop();
}
END_TEST

/* The type snmpgetnext prints for the first row of ifXTable column
 * col of the switch at port, into type (e.g. "Counter64"). */
static void first_type(int port, unsigned col, char *type, size_t len)
{
	ck_assert_int_eq(run("snmpgetnext " V2C " 127.0.0.1:%d "
			     "1.3.6.1.2.1.31.1.1.1.%u",
			     port, col),
			 0);
	char want[64];
	snprintf(want, sizeof want, "\n.1.3.6.1.2.1.31.1.1.1.%u.", col);
	/* The tools may say something first ("Created directory"). */
	memmove(out + 1, out, strlen(out) + 1);
	out[0] = '\n';
	const char *line = strstr(out, want);
	ck_assert_msg(line != NULL, "%s", out);
	const char *eq = strstr(line, " = ");
	ck_assert_ptr_nonnull(eq);
	eq += 3;
	size_t n = strcspn(eq, ":");
	ck_assert_uint_lt(n, len);
	memcpy(type, eq, n);
	type[n] = '\0';
}

/* Wrong types: the HC columns alternate Counter32 / STRING (of the
 * decimal value) by column, ifHighSpeed is a STRING; ifName and the
 * other switch keep theirs; ok restores Counter64 and Gauge32. */
START_TEST(test_wrong_types_answers_hc_counters_as_32_bit_or_text)
{
	start(1);
	const struct sim_node *n = sim_topo_node(T, 0);
	int port = sim_snmp_port(S, n->id);
	int other = sim_snmp_port(S, sim_topo_node(T, 1)->id);
	char type[64];
	for (unsigned col = 6; col <= 13; col++) {
		first_type(port, col, type, sizeof type);
		ck_assert_str_eq(type, "Counter64");
	}
	first_type(port, 15, type, sizeof type);
	ck_assert_str_eq(type, "Gauge32");
	char speed[64];
	snprintf(speed, sizeof speed, "\"%lu\"",
		 strtoul(strstr(out, "Gauge32: ") + 9, NULL, 10));

	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_WRONG_TYPES);
	for (unsigned col = 6; col <= 13; col++) {
		first_type(port, col, type, sizeof type);
		ck_assert_str_eq(type, col % 2 ? "STRING" : "Counter32");
	}
	/* The text is the decimal value. */
	first_type(port, 7, type, sizeof type);
	const char *txt = strstr(out, "STRING: \"");
	ck_assert_ptr_nonnull(txt);
	txt += 9;
	ck_assert_uint_gt(strspn(txt, "0123456789"), 0);
	ck_assert_int_eq(txt[strspn(txt, "0123456789")], '"');
	first_type(port, 15, type, sizeof type);
	ck_assert_str_eq(type, "STRING");
	ck_assert_msg(strstr(out, speed) != NULL, "%s lacks %s", out, speed);
	first_type(port, 1, type, sizeof type);
	ck_assert_str_eq(type, "STRING"); /* ifName is one anyway */
	first_type(other, 6, type, sizeof type);
	ck_assert_str_eq(type, "Counter64");

	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	first_type(port, 7, type, sizeof type);
	ck_assert_str_eq(type, "Counter64");
	first_type(port, 15, type, sizeof type);
	ck_assert_str_eq(type, "Gauge32");
	stop();
}
END_TEST

/* The value snmpget prints for oid (after "TYPE: "), into v. */
static void get_value(int port, const char *oid, char *v, size_t len)
{
	ck_assert_int_eq(run("snmpget " V2C " -Oqv 127.0.0.1:%d %s", port, oid),
			 0);
	/* The last line is the value (the tools may say something first). */
	char *end = out + strlen(out);
	while (end > out && end[-1] == '\n')
		*--end = '\0';
	char *line = strrchr(out, '\n');
	snprintf(v, len, "%s", line ? line + 1 : out);
}

/* Renumber: the first and third interfaces (in ifIndex order) trade
 * indexes; ifName and ifHCInOctets follow the physical ports; a second
 * renumber swaps them back. */
START_TEST(test_renumber_swaps_the_first_and_third_ifindex)
{
	start(1);
	/* The leaf: its host port carries the flow. */
	const struct sim_node *n =
	    sim_topo_tier_node(T, SIM_NODE_HOST, 0)->ports[0].peer->node;
	int port = sim_snmp_port(S, n->id);
	uint32_t a = 0, b = 0;
	ck_assert_int_eq(sim_snmp_renumber(S, n->id, &a, &b), 0);
	ck_assert_int_eq(sim_snmp_renumber(S, n->id, &a, &b), 0); /* back */
	ck_assert_uint_lt(a, b);
	/* a and b are the first and third rows of ifName. */
	ck_assert_int_eq(run("snmpwalk " V2C " -Oqn 127.0.0.1:%d "
			     "1.3.6.1.2.1.31.1.1.1.1",
			     port),
			 0);
	unsigned idx[3];
	const char *p = out;
	for (int i = 0; i < 3; i++) {
		p = strstr(p, ".1.3.6.1.2.1.31.1.1.1.1.");
		ck_assert_ptr_nonnull(p);
		p += strlen(".1.3.6.1.2.1.31.1.1.1.1.");
		idx[i] = (unsigned)strtoul(p, NULL, 10);
	}
	ck_assert_uint_eq(idx[0], a);
	ck_assert_uint_eq(idx[2], b);

	char oa[128], ob[128], name_a[128], name_b[128], ca[64], cb[64];
	snprintf(oa, sizeof oa, "1.3.6.1.2.1.31.1.1.1.1.%u", a);
	snprintf(ob, sizeof ob, "1.3.6.1.2.1.31.1.1.1.1.%u", b);
	get_value(port, oa, name_a, sizeof name_a);
	get_value(port, ob, name_b, sizeof name_b);
	ck_assert_str_ne(name_a, name_b);
	snprintf(oa, sizeof oa, "1.3.6.1.2.1.31.1.1.1.6.%u", a);
	snprintf(ob, sizeof ob, "1.3.6.1.2.1.31.1.1.1.6.%u", b);
	get_value(port, oa, ca, sizeof ca);
	get_value(port, ob, cb, sizeof cb);

	uint32_t a2, b2;
	ck_assert_int_eq(sim_snmp_renumber(S, n->id, &a2, &b2), 0);
	ck_assert_uint_eq(a2, a);
	ck_assert_uint_eq(b2, b);
	char v[128];
	snprintf(oa, sizeof oa, "1.3.6.1.2.1.31.1.1.1.1.%u", a);
	get_value(port, oa, v, sizeof v);
	ck_assert_str_eq(v, name_b);
	snprintf(ob, sizeof ob, "1.3.6.1.2.1.31.1.1.1.1.%u", b);
	get_value(port, ob, v, sizeof v);
	ck_assert_str_eq(v, name_a);
	/* The model did not step: the counters moved with the names. */
	snprintf(oa, sizeof oa, "1.3.6.1.2.1.31.1.1.1.6.%u", a);
	get_value(port, oa, v, sizeof v);
	ck_assert_str_eq(v, cb);
	snprintf(ob, sizeof ob, "1.3.6.1.2.1.31.1.1.1.6.%u", b);
	get_value(port, ob, v, sizeof v);
	ck_assert_str_eq(v, ca);
	ck_assert_str_ne(ca, cb);

	ck_assert_int_eq(
	    sim_snmp_renumber(S, sim_topo_tier_node(T, SIM_NODE_HOST, 0)->id,
			      &a2, &b2),
	    -ENOENT);
	stop();
}
END_TEST

/* Slow (an 8 s delay here): a GET gets no answer within a second while
 * the other switch answers at once; the answer then comes, whole, from
 * the switch's port; ok answers at once again. Only the order is
 * asserted: the delay can make an answer later, never earlier. */
START_TEST(test_slow_answers_late_without_holding_others)
{
	slow_delay_ns = 8000000000ull;
	start(1);
	ck_assert_uint_eq(SIM_SNMP_SLOW_DELAY_NS, 3000000000ull);
	const struct sim_node *n = sim_topo_node(T, 0);
	const struct sim_node *other = sim_topo_node(T, 1);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_SLOW);
	int fd = client(sim_snmp_port(S, n->id));
	ck_assert_int_eq(send(fd, get_sysname, sizeof get_sysname, 0),
			 (ssize_t)sizeof get_sysname);
	uint8_t buf[2048];
	ck_assert_int_eq(serve_until_answer(fd, buf, sizeof buf, 1000), 0);
	expect_answer(other);
	ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
	ck_assert_int_lt(r, 0); /* still held */
	r = serve_until_answer(fd, buf, sizeof buf, WAIT_S * 1000);
	ck_assert_int_gt(r, 0);
	ck_assert(ber_whole(buf, (size_t)r));
	ck_assert_ptr_nonnull(memmem(buf, (size_t)r, n->name, strlen(n->name)));
	close(fd);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	fd = client(sim_snmp_port(S, n->id));
	ck_assert_int_eq(send(fd, get_sysname, sizeof get_sysname, 0),
			 (ssize_t)sizeof get_sysname);
	ck_assert_int_gt(serve_until_answer(fd, buf, sizeof buf, WAIT_S * 1000),
			 0);
	close(fd);
	/* Leaving with a request still held drops it cleanly. */
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_SLOW);
	fd = client(sim_snmp_port(S, n->id));
	ck_assert_int_eq(send(fd, get_sysname, sizeof get_sysname, 0),
			 (ssize_t)sizeof get_sysname);
	ck_assert_int_eq(serve_until_answer(fd, buf, sizeof buf, 200), 0);
	sim_snmp_set_fault(S, n->id, SIM_SCENARIO_TARGET_OK);
	close(fd);
	expect_answer(n);
	stop();
}
END_TEST

static Suite *sim_snmp_faults_suite(void)
{
	Suite *s = suite_create("sim_snmp_faults");
	TCase *tc = tcase_create("faults");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_garbage_answers_are_not_ber);
	tcase_add_test(tc, test_gnmi_only_faults_keep_snmp_answering);
	tcase_add_test(tc,
		       test_wrong_types_answers_hc_counters_as_32_bit_or_text);
	tcase_add_test(tc, test_renumber_swaps_the_first_and_third_ifindex);
	tcase_add_test(tc, test_slow_answers_late_without_holding_others);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (system("command -v snmpget snmpgetnext snmpwalk >/dev/null "
		   "2>&1") != 0) {
		printf("SKIP: check_sim_snmp_faults: net-snmp's command-line "
		       "tools (Debian package snmp) are not installed\n");
		return 77;
	}
	/* The tools read no user or system configuration and no MIBs. */
	if (sim_snmp_tool_env(envdir, sizeof envdir, "check_sim_snmp_faults") <
	    0)
		return 1;
	SRunner *sr = srunner_create(sim_snmp_faults_suite());
	/* One agent per process lifetime: every test in its own process. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", envdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", envdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
