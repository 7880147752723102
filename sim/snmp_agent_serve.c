/*
 * sim_snmp's serving side (see snmp_agent.c for the agent's shape):
 * options, net-snmp's library set up in isolation, one agent session per
 * switch on its own UDP socket, the poll loop, faults (silent, refusing)
 * and the lifecycle.
 *
 * Threads. net-snmp is built non-reentrant and keeps global state: one
 * agent per process, every call from the model's thread.
 */
#include "config.h"

#include "snmp_agent_int.h"

#include "log.h"
#include "mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* net-snmp's agent library keeps global state that its shutdown does
 * not fully reset (configuration handlers): one agent per process
 * lifetime. */
static bool agent_started;

/* ---- Sockets ---- */

static int fill_ep(const struct sim_snmp *s, int port, struct netsnmp_ep *ep)
{
	memset(ep, 0, sizeof *ep);
	if (s->ipv6) {
		ep->a.sin6.sin6_family = AF_INET6;
		ep->a.sin6.sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, s->address, &ep->a.sin6.sin6_addr) != 1)
			return -EINVAL;
	} else {
		ep->a.sin.sin_family = AF_INET;
		ep->a.sin.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, s->address, &ep->a.sin.sin_addr) != 1)
			return -EINVAL;
	}
	return 0;
}

static int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* What an epoll event's data says besides the switch (its low 32 bits):
 * the agent session's socket (no tag), the plain socket of the silent,
 * garbage and slow faults, or a slow fault's relay (its slot in bits
 * 32 to 47). */
#define TAG_RAW	  (1ull << 62)
#define TAG_RELAY (1ull << 61)

static void watch(struct sim_snmp *s, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		log_warn("sim", "snmp: epoll_ctl: %s", strerror(errno));
}

static void unwatch(struct sim_snmp *s, int fd)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* Opens w's agent session on w->port (0: kernel-chosen, then noted), or
 * with inner on a port of the kernel's, noted in w->inner_port: the
 * slow fault's agent, which only the relays reach. */
static int open_session(struct sim_snmp *s, struct sw *w, bool inner, char *err,
			size_t errlen)
{
	struct netsnmp_ep ep;
	if (fill_ep(s, inner ? 0 : w->port, &ep) != 0) {
		snprintf(err, errlen, "snmp: bad address %s", s->address);
		return -EINVAL;
	}
	netsnmp_transport *t = s->ipv6 ? netsnmp_udp6_transport(&ep, 1)
				       : netsnmp_udp_transport(&ep, 1);
	if (!t) {
		snprintf(err, errlen,
			 "snmp: %s: cannot bind UDP %s%s%s:%d (in use?)",
			 w->node->name, s->ipv6 ? "[" : "", s->address,
			 s->ipv6 ? "]" : "", w->port);
		return -EADDRINUSE;
	}
	int port = bound_port(t->sock);
	netsnmp_session sess;
	snmp_sess_init(&sess);
	sess.version = SNMP_DEFAULT_VERSION;
	sess.callback = handle_snmp_packet;
	sess.authenticator = NULL;
	sess.flags = netsnmp_ds_get_int(NETSNMP_DS_APPLICATION_ID,
					NETSNMP_DS_AGENT_FLAGS);
	sess.isAuthoritative = SNMP_SESS_AUTHORITATIVE;
	sess.myvoid = w;
	/* No pre-parse hook: TCP wrappers would read /etc/hosts.allow for
	   every request, and only loopback can reach us anyway. */
	netsnmp_session *sp =
	    snmp_add(&sess, t, NULL, netsnmp_agent_check_parse);
	if (!sp) {
		snprintf(err, errlen, "snmp: %s: cannot add the agent session",
			 w->node->name);
		return -ENOMEM;
	}
	w->sess = sp;
	w->sess_fd = t->sock;
	if (inner)
		w->inner_port = port;
	else
		w->port = port;
	watch(s, t->sock, (uint64_t)(w - s->sws));
	return 0;
}

static void close_session(struct sim_snmp *s, struct sw *w)
{
	if (!w->sess)
		return;
	unwatch(s, w->sess_fd);
	snmp_close(w->sess); /* closes the socket too */
	w->sess = NULL;
	w->sess_fd = -1;
}

static int open_silent(struct sim_snmp *s, struct sw *w)
{
	struct netsnmp_ep ep;
	if (fill_ep(s, w->port, &ep) != 0)
		return -EINVAL;
	int fd = socket(s->ipv6 ? AF_INET6 : AF_INET,
			SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	socklen_t len = s->ipv6 ? sizeof ep.a.sin6 : sizeof ep.a.sin;
	if (bind(fd, (struct sockaddr *)&ep.a, len) != 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	w->silent_fd = fd;
	if (s->epfd >= 0)
		watch(s, fd, (uint64_t)(w - s->sws) | TAG_RAW);
	return 0;
}

static void close_silent(struct sim_snmp *s, struct sw *w)
{
	if (w->silent_fd < 0)
		return;
	unwatch(s, w->silent_fd);
	close(w->silent_fd);
	w->silent_fd = -1;
}

/* ---- Set-up ---- */

void sim_snmp_options_init(struct sim_snmp_options *o)
{
	memset(o, 0, sizeof *o);
	o->address = "127.0.0.1";
	o->community = "public";
}

static bool is_word(const char *s)
{
	if (!s || !*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s == '"' || *s == '\'' || *s == '#' ||
		    (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static int check_options(const struct sim_snmp_options *o, bool *ipv6,
			 char *err, size_t errlen)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, o->address, &a4) == 1) {
		if ((ntohl(a4.s_addr) >> 24) != 127) {
			snprintf(err, errlen,
				 "snmp: address %s is not a loopback address",
				 o->address);
			return -EINVAL;
		}
		*ipv6 = false;
	} else if (inet_pton(AF_INET6, o->address, &a6) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&a6)) {
			snprintf(err, errlen,
				 "snmp: address %s is not a loopback address",
				 o->address);
			return -EINVAL;
		}
		*ipv6 = true;
	} else {
		snprintf(err, errlen,
			 "snmp: address \"%s\" is not an IP "
			 "address",
			 o->address);
		return -EINVAL;
	}
	if (o->base_port > 65535) {
		snprintf(err, errlen, "snmp: base port %u is out of range",
			 o->base_port);
		return -EINVAL;
	}
	if (!is_word(o->community)) {
		snprintf(err, errlen,
			 "snmp: the community must be 1 to 255 "
			 "printable characters without spaces or "
			 "quotes");
		return -EINVAL;
	}
	if (!o->v3_user)
		return 0;
	if (!is_word(o->v3_user)) {
		snprintf(err, errlen,
			 "snmp: v3 user \"%s\" must be 1 to 255 "
			 "printable characters without spaces",
			 o->v3_user);
		return -EINVAL;
	}
	static const char *const auths[] = { "SHA", "SHA-256", "SHA-512" };
	static const char *const privs[] = { "AES", "AES-256" };
	bool ok = false;
	for (size_t i = 0; o->v3_auth && i < N(auths); i++)
		ok |= strcmp(o->v3_auth, auths[i]) == 0;
	if (!ok) {
		snprintf(err, errlen,
			 "snmp: v3 auth \"%s\": expected SHA, "
			 "SHA-256 or SHA-512",
			 o->v3_auth ? o->v3_auth : "");
		return -EINVAL;
	}
	if (!is_word(o->v3_auth_key) || strlen(o->v3_auth_key) < 8) {
		snprintf(err, errlen,
			 "snmp: v3 auth key: expected 8 to 255 "
			 "printable characters without spaces");
		return -EINVAL;
	}
	if (!o->v3_priv)
		return 0;
	ok = false;
	for (size_t i = 0; i < N(privs); i++)
		ok |= strcmp(o->v3_priv, privs[i]) == 0;
	if (!ok) {
		snprintf(err, errlen,
			 "snmp: v3 priv \"%s\": expected AES or AES-256",
			 o->v3_priv);
		return -EINVAL;
	}
	if (!is_word(o->v3_priv_key) || strlen(o->v3_priv_key) < 8) {
		snprintf(err, errlen,
			 "snmp: v3 priv key: expected 8 to 255 "
			 "printable characters without spaces");
		return -EINVAL;
	}
	return 0;
}

/* net-snmp's log lines go to ours, tagged "sim". */
static int log_cb(int major, int minor, void *server_arg, void *client_arg)
{
	(void)major;
	(void)minor;
	(void)client_arg;
	const struct snmp_log_message *msg = server_arg;
	if (!msg || !msg->msg)
		return 0;
	size_t n = strlen(msg->msg);
	while (n && msg->msg[n - 1] == '\n')
		n--;
	if (!n)
		return 0;
	/* Errors are worth a warning; a warning (a failed authentication)
	   comes per request, so info; the rest (notices such as "Created
	   directory") is debug. */
	if (msg->priority <= LOG_ERR)
		log_warn("sim", "snmp agent: %.*s", (int)n, msg->msg);
	else if (msg->priority == LOG_WARNING)
		log_info("sim", "snmp agent: %.*s", (int)n, msg->msg);
	else
		log_debug("sim", "snmp agent: %.*s", (int)n, msg->msg);
	return 0;
}

static void config_line(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void config_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = xvasprintf(fmt, ap);
	va_end(ap);
	netsnmp_config(line);
	free(line);
}

static void remove_tree(const char *dir)
{
	/* Only what net-snmp creates: cert_indexes and files in dir. */
	char *sub = xasprintf("%s/cert_indexes", dir);
	rmdir(sub);
	free(sub);
	rmdir(dir);
}

static void init_library(const struct sim_snmp *s,
			 const struct sim_snmp_options *o)
{
	snmp_disable_log();
	snmp_enable_calllog();
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING,
			       log_cb, NULL);

	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE,
			       0);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
			       NETSNMP_DS_AGENT_DISABLE_PERL, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
			       NETSNMP_DS_AGENT_AGENTX_MASTER, 0);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
			       NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS,
			       1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID,
			      NETSNMP_DS_LIB_PERSISTENT_DIR, s->state_dir);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID,
			      NETSNMP_DS_LIB_CONFIGURATION_DIR, s->state_dir);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS,
			      s->state_dir);
	/* No MIB modules to load: numeric OIDs only. */
	setenv("MIBS", "", 1);
	/* A ports list is never used (we add our own sessions), but the
	   default would be port 161 if anything asked. */
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
			      "none");

	char noinit[] = "-smux,perl";
	add_to_init_list(noinit);
	init_agent(APP_NAME);

	/* One engineID per process (net-snmp has one engine), stable for a
	   given address and base port so that v3 collectors survive a
	   restart of fabsim; with kernel-chosen ports the process id tells
	   concurrent fabsims apart (their collectors' engine-time caches
	   are keyed by engineID). The text fits the 27 bytes allowed. */
	char key[128];
	if (o->base_port)
		snprintf(key, sizeof key, "%s|%u", s->address, o->base_port);
	else
		snprintf(key, sizeof key, "%s|pid%ld", s->address,
			 (long)getpid());
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const char *c = key; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	config_line("engineID fabsim-%08x", h);
	config_line("rocommunity%s %s default", s->ipv6 ? "6" : "",
		    o->community);
	if (o->v3_user) {
		if (o->v3_priv)
			config_line("createUser %s %s %s %s %s", o->v3_user,
				    o->v3_auth, o->v3_auth_key, o->v3_priv,
				    o->v3_priv_key);
		else
			config_line("createUser %s %s %s", o->v3_user,
				    o->v3_auth, o->v3_auth_key);
		config_line("rouser %s %s", o->v3_user,
			    o->v3_priv ? "authpriv" : "authnopriv");
	}
}

/* The library's state directory: o->state_dir, or a fresh one in
 * $TMPDIR (removed at free). -1 with err set if it cannot be made. */
static int open_state_dir(struct sim_snmp *s, const struct sim_snmp_options *o,
			  char *err, size_t errlen)
{
	if (o->state_dir) {
		s->state_dir = xstrdup(o->state_dir);
		if (mkdir(s->state_dir, 0700) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "snmp: state dir %s: %s",
				 s->state_dir, strerror(errno));
			return -1;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		s->state_dir = xasprintf("%s/fabsim-snmp.XXXXXX",
					 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(s->state_dir)) {
			snprintf(err, errlen,
				 "snmp: cannot create a state "
				 "dir in %s: %s",
				 tmp && *tmp ? tmp : "/tmp", strerror(errno));
			return -1;
		}
		s->own_state_dir = true;
	}
	return 0;
}

/* One struct sw per switch of the topology, in node order, its ports
 * numbered; -1 with err set if the fixed ports run past 65535. */
static int make_switches(struct sim_snmp *s, const struct sim_snmp_options *o,
			 char *err, size_t errlen)
{
	s->n_nodes = sim_topo_n_nodes(s->t);
	s->vis = o->vis;
	s->node_sw = xcalloc(s->n_nodes ? s->n_nodes : 1, sizeof *s->node_sw);
	size_t all = 0; /* switches, monitored or not: the port positions */
	for (size_t i = 0; i < s->n_nodes; i++) {
		s->node_sw[i] = -1;
		if (sim_topo_node(s->t, i)->kind != SIM_NODE_HOST)
			all++;
	}
	if (o->base_port && o->base_port + all > 65536) {
		snprintf(err, errlen,
			 "snmp: base port %u + %zu switches exceeds 65535",
			 o->base_port, all);
		return -1;
	}
	s->sws = xcalloc(all ? all : 1, sizeof *s->sws);
	size_t k = 0, pos = 0;
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct sim_node *n = sim_topo_node(s->t, i);
		if (n->kind == SIM_NODE_HOST)
			continue;
		pos++;
		if (sim_visibility_flags(o->vis, i) & SIM_VIS_UNMONITORED)
			continue;
		struct sw *w = &s->sws[k];
		w->s = s;
		w->node = n;
		w->silent_fd = -1;
		w->sess_fd = -1;
		w->port = o->base_port ? (int)(o->base_port + pos - 1) : 0;
		w->fault = SIM_SCENARIO_TARGET_OK;
		snmp_agent_number_ports(w);
		s->node_sw[i] = (int)k;
		k++;
	}
	s->n_sws = k;
	return 0;
}

/* Fixed ports are tried before the library starts: it can start only
 * once per process, so a busy port must fail before that. */
static int try_ports(struct sim_snmp *s, const struct sim_snmp_options *o,
		     char *err, size_t errlen)
{
	for (size_t i = 0; o->base_port && i < s->n_sws; i++) {
		struct sw *w = &s->sws[i];
		int rc = open_silent(s, w);
		if (rc != 0) {
			snprintf(err, errlen,
				 "snmp: %s: cannot bind UDP port %d on %s: %s",
				 w->node->name, w->port, s->address,
				 strerror(-rc));
			return -1;
		}
		close(w->silent_fd);
		w->silent_fd = -1;
	}
	return 0;
}

/* Undoes sim_snmp_new before the library was touched; also the last
 * step of sim_snmp_free, once the library is shut down. */
static void free_early(struct sim_snmp *s)
{
	if (s->epfd >= 0)
		close(s->epfd);
	for (size_t i = 0; s->sws && i < s->n_sws; i++)
		free(s->sws[i].ports);
	free(s->sws);
	free(s->node_sw);
	if (s->own_state_dir)
		remove_tree(s->state_dir);
	free(s->state_dir);
	free(s->address);
	free(s);
}

struct sim_snmp *sim_snmp_new(const struct sim_topo *t, struct sim_model *m,
			      const struct sim_snmp_options *o, char *err,
			      size_t errlen)
{
	struct sim_snmp_options def;
	if (!o) {
		sim_snmp_options_init(&def);
		o = &def;
	}
	if (!t || !m) {
		snprintf(err, errlen, "snmp: no topology or model");
		return NULL;
	}
	if (agent_started) {
		snprintf(err, errlen,
			 "snmp: an SNMP agent was already started in this "
			 "process (net-snmp's agent is process-global and "
			 "cannot be started twice)");
		return NULL;
	}
	bool ipv6 = false;
	if (check_options(o, &ipv6, err, errlen) != 0)
		return NULL;

	struct sim_snmp *s = xcalloc(1, sizeof *s);
	s->t = t;
	s->m = m;
	s->ipv6 = ipv6;
	s->address = xstrdup(o->address);
	s->epfd = -1;
	s->seed = o->seed;
	s->slow_ns =
	    o->slow_delay_ns ? o->slow_delay_ns : SIM_SNMP_SLOW_DELAY_NS;
	s->cache_gen = UINT64_MAX;
	if (open_state_dir(s, o, err, errlen) != 0) {
		free(s->address);
		free(s->state_dir);
		free(s);
		return NULL;
	}
	if (make_switches(s, o, err, errlen) != 0 ||
	    try_ports(s, o, err, errlen) != 0)
		goto fail_early;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		snprintf(err, errlen, "snmp: epoll_create1: %s",
			 strerror(errno));
		goto fail_early;
	}

	agent_started = true;
	init_library(s, o);
	if (snmp_agent_register(s, err, errlen) != 0)
		goto fail;
	init_snmp(APP_NAME);
	for (size_t i = 0; i < s->n_sws; i++)
		if (open_session(s, &s->sws[i], false, err, errlen) != 0)
			goto fail;
	return s;

fail:
	sim_snmp_free(s);
	return NULL;
fail_early:
	/* The library is untouched: undo by hand. */
	free_early(s);
	return NULL;
}

int sim_snmp_port(const struct sim_snmp *s, size_t node)
{
	if (!s || node >= s->n_nodes || s->node_sw[node] < 0)
		return -1;
	return s->sws[s->node_sw[node]].port;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What a fault does to SNMP: serve, drop, refuse or answer garbage
 * (the gNMI-only faults serve). */
enum snmp_mode {
	MODE_SERVE,
	MODE_DROP,
	MODE_REFUSE,
	MODE_GARBAGE,
	MODE_SLOW,
};

static enum snmp_mode mode_of(enum sim_scenario_target f)
{
	switch (f) {
	case SIM_SCENARIO_TARGET_IS_SILENT:
		return MODE_DROP;
	case SIM_SCENARIO_TARGET_REFUSES:
		return MODE_REFUSE;
	case SIM_SCENARIO_TARGET_GARBAGE:
		return MODE_GARBAGE;
	case SIM_SCENARIO_TARGET_SLOW:
		return MODE_SLOW;
	case SIM_SCENARIO_TARGET_OK:
	case SIM_SCENARIO_TARGET_RESET:
	case SIM_SCENARIO_TARGET_DROP_AFTER_SYNC:
	case SIM_SCENARIO_TARGET_WRONG_TYPES: /* answered by snmp_agent.c */
		break;
	}
	return MODE_SERVE;
}

static void drain_silent(int fd)
{
	char buf[2048];
	for (int i = 0; i < 64; i++)
		if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) < 0)
			break;
}

/*
 * A datagram that is not BER, drawn from w's generator: one of four
 * broken openings of the SNMP message's SEQUENCE, whatever the filler.
 *   0  a long-form length past the end of the datagram;
 *   1  a long-form length whose length bytes are missing;
 *   2  the indefinite length (SNMP forbids it) without end-of-contents;
 *   3  a high tag number that never ends.
 */
static size_t garbage_datagram(struct sw *w, uint8_t *b)
{
	uint64_t x = w->garbage_rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	w->garbage_rng = x;
	size_t n = 0;
	unsigned extra = (unsigned)(x >> 8) % 8;
	switch (x % 4) {
	case 0:
		b[n++] = 0x30;
		b[n++] = 0x84;
		b[n++] = 0x7f;
		b[n++] = 0xff;
		b[n++] = 0xff;
		b[n++] = 0xff;
		break;
	case 1:
		b[n++] = 0x30;
		b[n++] = (uint8_t)(0x82 + (x >> 16) % 3);
		extra = 0; /* the datagram ends inside the length */
		break;
	case 2:
		b[n++] = 0x30;
		b[n++] = 0x80;
		extra = extra ? extra : 1;
		for (unsigned k = 0; k < extra; k++) /* never 00 00 */
			b[n++] = (uint8_t)(0x01 | (x >> (16 + 4 * k)));
		extra = 0;
		break;
	default:
		b[n++] = 0x1f;
		for (unsigned k = 0; k <= extra; k++)
			b[n++] = (uint8_t)(0x80 | (x >> (16 + k)));
		extra = 0;
		break;
	}
	for (unsigned k = 0; k < extra; k++)
		b[n++] = (uint8_t)(x >> (24 + 4 * k));
	return n;
}

/* Garbage: each waiting request is answered, from the switch's port,
 * with a datagram that is not BER. */
static void answer_garbage(struct sw *w)
{
	char buf[2048];
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof from;
		if (recvfrom(w->silent_fd, buf, sizeof buf, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl) < 0)
			break;
		uint8_t g[24];
		size_t n = garbage_datagram(w, g);
		if (sendto(w->silent_fd, g, n, 0, (struct sockaddr *)&from,
			   fl) < 0)
			log_debug("sim", "snmp: %s: garbage answer: %s",
				  w->node->name, strerror(errno));
	}
}

/*
 * The slow fault. The switch's port is a plain socket; each request is
 * held, with its sender, for the delay, then sent from a relay socket
 * of its own to the switch's agent, which now listens on a port of the
 * kernel's (w->inner_port); the agent's answer comes back on the relay
 * and goes out from the switch's port to the sender. So the answer is
 * the agent's, read from the model when it is due, and nothing blocks:
 * the other switches are served meanwhile. A switch holds at most
 * SLOW_MAX requests (more are dropped, as by a saturated agent); a
 * request the agent does not answer (a wrong community) is forgotten
 * after SLOW_FORGET_NS.
 */
#define SLOW_MAX       64
#define SLOW_FORGET_NS (10 * 1000000000ull)

struct held {
	bool used;
	uint64_t due; /* forwarded then; forgotten at due + SLOW_FORGET_NS */
	int relay;    /* -1 until forwarded */
	struct sockaddr_storage from;
	socklen_t from_len;
	size_t len;
	uint8_t req[4096];
};

static void slow_drop(struct sim_snmp *s, struct sw *w, size_t i)
{
	struct held *h = &w->held[i];
	if (h->relay >= 0) {
		unwatch(s, h->relay);
		close(h->relay);
	}
	h->relay = -1;
	h->used = false;
	s->n_held--;
}

/* Leaves the slow fault: every held request is dropped. */
static void slow_free(struct sim_snmp *s, struct sw *w)
{
	for (size_t i = 0; w->held && i < SLOW_MAX; i++)
		if (w->held[i].used)
			slow_drop(s, w, i);
	free(w->held);
	w->held = NULL;
}

/* The requests waiting on w's port, held for the delay. */
static void slow_take(struct sim_snmp *s, struct sw *w)
{
	for (int k = 0; k < 64; k++) {
		size_t i = 0;
		while (i < SLOW_MAX && w->held[i].used)
			i++;
		if (i == SLOW_MAX) { /* full: drop what comes */
			drain_silent(w->silent_fd);
			return;
		}
		struct held *h = &w->held[i];
		h->from_len = sizeof h->from;
		ssize_t r =
		    recvfrom(w->silent_fd, h->req, sizeof h->req, MSG_DONTWAIT,
			     (struct sockaddr *)&h->from, &h->from_len);
		if (r < 0)
			return;
		h->len = (size_t)r;
		h->used = true;
		h->relay = -1;
		h->due = mono_ns() + s->slow_ns;
		s->n_held++;
	}
}

/* Sends held request i of w to the agent from a relay socket. */
static void slow_forward(struct sim_snmp *s, struct sw *w, size_t i)
{
	struct held *h = &w->held[i];
	struct netsnmp_ep ep;
	int fd = -1;
	if (fill_ep(s, w->inner_port, &ep) == 0)
		fd = socket(s->ipv6 ? AF_INET6 : AF_INET,
			    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	socklen_t len = s->ipv6 ? sizeof ep.a.sin6 : sizeof ep.a.sin;
	if (fd < 0 || connect(fd, (struct sockaddr *)&ep.a, len) != 0 ||
	    send(fd, h->req, h->len, 0) < 0) {
		log_debug("sim", "snmp: %s: slow relay: %s", w->node->name,
			  strerror(errno));
		if (fd >= 0)
			close(fd);
		slow_drop(s, w, i);
		return;
	}
	h->relay = fd;
	watch(s, fd, (uint64_t)(w - s->sws) | TAG_RELAY | (uint64_t)i << 32);
}

/* The agent's answer on relay i goes to the request's sender. */
static void slow_answer(struct sim_snmp *s, struct sw *w, size_t i)
{
	if (!w->held || i >= SLOW_MAX || !w->held[i].used ||
	    w->held[i].relay < 0)
		return;
	struct held *h = &w->held[i];
	uint8_t buf[65536];
	ssize_t r = recv(h->relay, buf, sizeof buf, MSG_DONTWAIT);
	if (r < 0 && errno == EAGAIN)
		return;
	if (r >= 0 && sendto(w->silent_fd, buf, (size_t)r, 0,
			     (struct sockaddr *)&h->from, h->from_len) < 0)
		log_debug("sim", "snmp: %s: slow answer: %s", w->node->name,
			  strerror(errno));
	slow_drop(s, w, i);
}

/* Forwards the held requests that are due and forgets the unanswered;
 * returns the next due time (UINT64_MAX: none). */
static uint64_t slow_run(struct sim_snmp *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (size_t k = 0; s->n_held && k < s->n_sws; k++) {
		struct sw *w = &s->sws[k];
		for (size_t i = 0; w->held && i < SLOW_MAX; i++) {
			struct held *h = &w->held[i];
			if (!h->used)
				continue;
			if (h->relay < 0 && now >= h->due)
				slow_forward(s, w, i);
			else if (h->relay >= 0 &&
				 now >= h->due + SLOW_FORGET_NS)
				slow_drop(s, w, i);
			if (h->used)
				next = h->relay < 0
					   ? (h->due < next ? h->due : next)
					   : next;
		}
	}
	return next;
}

int sim_snmp_poll(struct sim_snmp *s, uint64_t timeout_ns)
{
	s->gen++;
	u_int before = snmp_get_statistic(STAT_SNMPOUTGETRESPONSES);
	uint64_t deadline = mono_ns() + timeout_ns;
	netsnmp_large_fd_set fds;
	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	struct epoll_event evs[MAX_EVENTS];
	int rc = 0;
	for (bool first = true;; first = false) {
		uint64_t now = mono_ns();
		if (!first && now >= deadline)
			break;
		/* Wake at least every second for net-snmp's alarms, and
		 * when a slow switch's held request is due. */
		uint64_t until = deadline;
		if (s->n_held) {
			uint64_t due = slow_run(s, now);
			until = due < until ? due : until;
		}
		int ms = 0;
		if (now < until) {
			uint64_t left = (until - now + 999999) / 1000000;
			ms = left > 1000 ? 1000 : (int)left;
		}
		int n = epoll_wait(s->epfd, evs, MAX_EVENTS, ms);
		if (n < 0) {
			if (errno == EINTR)
				break;
			rc = -errno;
			break;
		}
		bool any = false;
		NETSNMP_LARGE_FD_ZERO(&fds);
		for (int i = 0; i < n; i++) {
			uint64_t tag = evs[i].data.u64;
			size_t swi = (size_t)(tag & 0xffffffffu);
			if (swi >= s->n_sws)
				continue;
			struct sw *w = &s->sws[swi];
			enum snmp_mode mode = mode_of(w->fault);
			if (tag & TAG_RELAY) {
				slow_answer(s, w, (size_t)(tag >> 32) & 0xffff);
			} else if (tag & TAG_RAW) {
				if (w->silent_fd < 0)
					continue;
				if (mode == MODE_GARBAGE)
					answer_garbage(w);
				else if (mode == MODE_SLOW && w->held)
					slow_take(s, w);
				else
					drain_silent(w->silent_fd);
			} else if (w->sess) {
				NETSNMP_LARGE_FD_SET(w->sess_fd, &fds);
				any = true;
			}
		}
		if (any)
			snmp_read2(&fds);
		run_alarms();
		netsnmp_check_outstanding_agent_requests();
	}
	netsnmp_large_fd_set_cleanup(&fds);
	if (rc < 0)
		return rc;
	u_int after = snmp_get_statistic(STAT_SNMPOUTGETRESPONSES);
	return (int)(after - before);
}

void sim_snmp_set_fault(struct sim_snmp *s, size_t node,
			enum sim_scenario_target fault)
{
	if (!s || node >= s->n_nodes || s->node_sw[node] < 0 ||
	    (unsigned)fault >= SIM_SCENARIO_TARGETS)
		return;
	struct sw *w = &s->sws[s->node_sw[node]];
	enum snmp_mode was = mode_of(w->fault), mode = mode_of(fault);
	w->fault = fault;
	if (was == mode)
		return;
	close_session(s, w);
	close_silent(s, w);
	slow_free(s, w);
	char err[256];
	int rc = 0;
	switch (mode) {
	case MODE_SERVE:
		rc = open_session(s, w, false, err, sizeof err);
		if (rc != 0)
			log_warn("sim", "%s", err);
		break;
	case MODE_DROP:
	case MODE_GARBAGE:
		/* Garbage: per switch and run, the seed and the switch. */
		w->garbage_rng =
		    (s->seed + 1) * 0x9e3779b97f4a7c15ull ^ (w->node->id + 1);
		rc = open_silent(s, w);
		if (rc != 0)
			log_warn("sim",
				 "snmp: %s: cannot bind port %d for fault "
				 "%s: %s",
				 w->node->name, w->port,
				 sim_scenario_target_name(fault),
				 strerror(-rc));
		break;
	case MODE_REFUSE:
		break;
	case MODE_SLOW:
		rc = open_silent(s, w);
		if (rc == 0)
			rc = open_session(s, w, true, err, sizeof err);
		if (rc != 0) {
			log_warn("sim", "snmp: %s: cannot be slow: %s",
				 w->node->name, strerror(-rc));
			break;
		}
		w->held = xcalloc(SLOW_MAX, sizeof *w->held);
		for (size_t i = 0; i < SLOW_MAX; i++)
			w->held[i].relay = -1;
		break;
	}
}

int sim_snmp_swap_ifindex(struct sim_snmp *s, size_t node, uint32_t a,
			  uint32_t b)
{
	if (!s || node >= s->n_nodes || s->node_sw[node] < 0)
		return -ENOENT;
	struct sw *w = &s->sws[s->node_sw[node]];
	struct sw_port *pa = NULL, *pb = NULL;
	for (size_t i = 0; i < w->n_ports; i++) {
		if (w->ports[i].ifindex == a)
			pa = &w->ports[i];
		if (w->ports[i].ifindex == b)
			pb = &w->ports[i];
	}
	if (!pa || !pb)
		return -ENOENT;
	/* The ports trade places in ifIndex order and keep the numbers
	 * of their new places: names, counters and ifLastChange follow
	 * the physical port. */
	struct sw_port tmp = *pa;
	*pa = *pb;
	*pb = tmp;
	pa->ifindex = a;
	pb->ifindex = b;
	s->cache_gen = UINT64_MAX;
	return 0;
}

int sim_snmp_renumber(struct sim_snmp *s, size_t node, uint32_t *a, uint32_t *b)
{
	if (!s || node >= s->n_nodes || s->node_sw[node] < 0)
		return -ENOENT;
	const struct sw *w = &s->sws[s->node_sw[node]];
	if (w->n_ports < 3)
		return -ERANGE;
	/* w->ports is in ifIndex order. */
	*a = w->ports[0].ifindex;
	*b = w->ports[2].ifindex;
	return sim_snmp_swap_ifindex(s, node, *a, *b);
}

void sim_snmp_free(struct sim_snmp *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_sws; i++) {
		slow_free(s, &s->sws[i]);
		close_session(s, &s->sws[i]);
		close_silent(s, &s->sws[i]);
	}
	snmp_agent_unregister(s);
	snmp_shutdown(APP_NAME);
	shutdown_agent();
	free_early(s);
}
