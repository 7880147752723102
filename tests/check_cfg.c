/*
 * check_cfg: the config module. A full file loads with every value in
 * place; defaults hold; each kind of bad input gives its exact one-line
 * message; *_file secrets are read and never shown; the parser's size and
 * depth bounds hold; durations and sizes parse and format exactly.
 *
 * Fixtures live in $top_srcdir/tests/data/cfg and $top_srcdir/etc; files
 * for *_file keys are made under $TMPDIR (or /tmp) and removed.
 */
#include "config.h"

#include "cfg.h"
#include "fabmond.h"
#include "gnmi_cfg.h"
#include "log.h"
#include "nic_cfg.h"
#include "snmp_cfg.h"
#include "units.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MS UINT64_C(1000000)
#define S  UINT64_C(1000000000)

static char err[1024];

static struct cfg *load(const char *yaml)
{
	return cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", yaml,
			       strlen(yaml), err, sizeof err);
}

/* yaml must fail with exactly msg, on one line. */
static void expect_error(const char *yaml, const char *msg)
{
	struct cfg *c = load(yaml);
	ck_assert_msg(c == NULL, "loaded: %s", yaml);
	ck_assert_str_eq(err, msg);
	ck_assert_ptr_null(strchr(err, '\n'));
}

static char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

/* A temporary file holding content; the caller unlinks path. */
static void make_temp(char *path, size_t len, const char *content,
		      size_t content_len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/check_cfg.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, content_len), (ssize_t)content_len);
	ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_full_file_sets_every_value)
{
	struct cfg *c =
	    cfg_load(fabmond_cfg_schema(), srcpath("tests/data/cfg/full.yaml"),
		     err, sizeof err);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(c->path, srcpath("tests/data/cfg/full.yaml"));

	ck_assert_uint_eq(c->n_listen, 3);
	ck_assert_str_eq(c->listen[0].host, "::1");
	ck_assert_str_eq(c->listen[0].port, "9100");
	ck_assert_str_eq(c->listen[1].host, "127.0.0.1");
	ck_assert_str_eq(c->listen[1].port, "0");
	ck_assert_str_eq(c->listen[2].host, "");
	ck_assert_str_eq(c->listen[2].port, "9465");
	ck_assert_uint_eq(c->interval_ns, 500 * MS);
	ck_assert_uint_eq(c->lossless_mask, (1u << 3) | (1u << 4));
	ck_assert_int_eq(c->log_level, LOG_LVL_DEBUG);
	ck_assert_uint_eq(c->n_log_debug, 2);
	ck_assert_str_eq(c->log_debug[0], "gnmi");
	ck_assert_str_eq(c->log_debug[1], "snmp");
	ck_assert_uint_eq(c->store_ring, 128);
	ck_assert_uint_eq(c->store_stale_intervals, 10);
	ck_assert_uint_eq(c->http_threads, 4);
	ck_assert_uint_eq(c->http_max_connections, 1024);
	ck_assert_uint_eq(c->http_max_per_client, 16);
	ck_assert_uint_eq(c->http_header_timeout_ns, 2500000000u);
	ck_assert_str_eq(c->http_web_config,
			 "/nonexistent/fabmon/web-config.yml");

	ck_assert_uint_eq(c->n_targets, 3);
	const struct cfg_target *t = &c->targets[0];
	ck_assert_str_eq(t->name, "leaf1");
	ck_assert_ptr_null(snmp_cfg_of(t));
	const struct cfg_gnmi *g = gnmi_cfg_of(t);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->address, "192.0.2.1:8080");
	ck_assert(!g->insecure);
	ck_assert(g->skip_verify);
	ck_assert_str_eq(g->ca, "/etc/fabmon/ca.pem");
	ck_assert_str_eq(g->cert, "/etc/fabmon/client.pem");
	ck_assert_str_eq(g->key, "/etc/fabmon/client.key");
	ck_assert_str_eq(g->server_name, "leaf1.example.net");
	ck_assert_str_eq(g->username, "admin");
	ck_assert_str_eq(g->password, "not-a-real-secret");
	ck_assert_uint_eq(g->interval_ns, 750 * MS);
	ck_assert_int_eq(g->mode, CFG_GNMI_POLL);
	ck_assert_uint_eq(g->poll_interval_ns, 2 * S);
	ck_assert_int_eq(g->encoding, CFG_GNMI_ENC_JSON_IETF);
	ck_assert_str_eq(g->target, "COUNTERS_DB");
	ck_assert_str_eq(g->profile, "sonic");
	ck_assert(g->updates_only);
	ck_assert_uint_eq(g->n_subs, 3);
	ck_assert_str_eq(g->subs[0].path, "/COUNTERS/Ethernet*");
	ck_assert_ptr_null(g->subs[0].target);
	ck_assert_str_eq(g->subs[2].path, "/LLDP_ENTRY_TABLE");
	ck_assert_str_eq(g->subs[2].target, "APPL_DB");
	ck_assert_int_eq(g->subs[2].mode, CFG_SUB_ON_CHANGE);
	ck_assert_str_eq(g->subs[0].origin, "sonic-db");
	ck_assert_int_eq(g->subs[0].mode, CFG_SUB_ON_CHANGE);
	ck_assert_uint_eq(g->subs[0].sample_interval_ns, 0);
	ck_assert_uint_eq(g->subs[0].heartbeat_interval_ns, 60 * S);
	ck_assert(g->subs[0].suppress_redundant);
	ck_assert_str_eq(g->subs[1].path,
			 "/interfaces/interface[name=*]/state/counters");
	ck_assert_ptr_null(g->subs[1].origin);
	ck_assert_int_eq(g->subs[1].mode, CFG_SUB_SAMPLE);
	ck_assert_uint_eq(g->subs[1].sample_interval_ns, 750 * MS);
	ck_assert_uint_eq(g->subs[1].heartbeat_interval_ns, 0);
	ck_assert(!g->subs[1].suppress_redundant);

	t = &c->targets[1];
	ck_assert_str_eq(t->name, "spine1");
	ck_assert_ptr_null(gnmi_cfg_of(t));
	const struct cfg_snmp *s = snmp_cfg_of(t);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->address, "udp:192.0.2.11:1161");
	ck_assert_int_eq(s->version, 3);
	ck_assert_ptr_null(s->community);
	ck_assert_str_eq(s->user, "monitor");
	ck_assert_int_eq(s->auth, CFG_SNMP_AUTH_SHA256);
	ck_assert_str_eq(s->auth_key, "auth-key-1234");
	ck_assert_int_eq(s->priv, CFG_SNMP_PRIV_AES);
	ck_assert_str_eq(s->priv_key, "priv-key-5678");
	ck_assert_uint_eq(s->interval_ns, 5 * S);
	ck_assert_uint_eq(s->timeout_ns, 250 * MS);
	ck_assert_uint_eq(s->retries, 3);
	ck_assert_uint_eq(s->max_repetitions, 50);
	ck_assert_str_eq(s->profile, "arista");

	t = &c->targets[2];
	ck_assert_str_eq(t->name, "leaf2");
	ck_assert_str_eq(gnmi_cfg_of(t)->address, "unix:/run/gnmi.sock");
	ck_assert(gnmi_cfg_of(t)->insecure);
	ck_assert_int_eq(gnmi_cfg_of(t)->mode, CFG_GNMI_ONCE);
	ck_assert_uint_eq(gnmi_cfg_of(t)->poll_interval_ns, 0);
	ck_assert_int_eq(gnmi_cfg_of(t)->encoding, CFG_GNMI_ENC_PROTO);
	ck_assert_uint_eq(gnmi_cfg_of(t)->n_subs, 0);
	ck_assert_str_eq(snmp_cfg_of(t)->address, "[2001:db8::2]:161");
	ck_assert_int_eq(snmp_cfg_of(t)->version, 2);
	ck_assert_str_eq(snmp_cfg_of(t)->community, "private");

	ck_assert(nic_cfg_of(c)->enabled);
	ck_assert_str_eq(nic_cfg_of(c)->device, "host-01");
	ck_assert_str_eq(nic_cfg_of(c)->sysfs_root, "/tmp/sys");
	ck_assert_str_eq(nic_cfg_of(c)->ethtool_dir, "/tmp/ethtool");
	ck_assert_uint_eq(nic_cfg_of(c)->interval_ns, 200 * MS);
	ck_assert_uint_eq(c->rules.tick_ns, 250 * MS);
	cfg_free(c);
}
END_TEST

static void check_defaults(const struct cfg *c)
{
	char host[256] = "";
	ck_assert_uint_eq(c->n_listen, 1);
	ck_assert_str_eq(c->listen[0].host, "127.0.0.1");
	ck_assert_str_eq(c->listen[0].port, CFG_DEFAULT_PORT);
	ck_assert_uint_eq(c->interval_ns, 1 * S);
	ck_assert_uint_eq(c->lossless_mask, 1u << 3);
	ck_assert_int_eq(c->log_level, -1);
	ck_assert_uint_eq(c->n_log_debug, 0);
	ck_assert_uint_eq(c->store_ring, 64);
	ck_assert_uint_eq(c->store_stale_intervals, 5);
	ck_assert_uint_eq(c->http_threads, 2);
	ck_assert_uint_eq(c->http_max_connections, 256);
	ck_assert_uint_eq(c->http_max_per_client, 64);
	ck_assert_uint_eq(c->http_header_timeout_ns, 10000000000u);
	ck_assert_ptr_null(c->http_web_config);
	ck_assert(!nic_cfg_of(c)->enabled);
	ck_assert_int_eq(gethostname(host, sizeof host - 1), 0);
	ck_assert_str_eq(nic_cfg_of(c)->device, host);
	ck_assert_str_eq(nic_cfg_of(c)->sysfs_root, "/sys");
	ck_assert_ptr_null(nic_cfg_of(c)->ethtool_dir);
	ck_assert_uint_eq(nic_cfg_of(c)->interval_ns, 0);
	ck_assert_uint_eq(c->rules.tick_ns, 0);
}

START_TEST(test_default_config_has_documented_defaults)
{
	struct cfg *c = cfg_default(fabmond_cfg_schema());
	check_defaults(c);
	ck_assert_ptr_null(c->path);
	ck_assert_uint_eq(c->n_targets, 0);
	ck_assert_ptr_null(cfg_find_target(c, "x"));
	cfg_free(c);
	cfg_free(NULL);
}
END_TEST

START_TEST(test_minimal_file_takes_defaults)
{
	struct cfg *c =
	    cfg_load(fabmond_cfg_schema(),
		     srcpath("tests/data/cfg/minimal.yaml"), err, sizeof err);
	ck_assert_msg(c != NULL, "%s", err);
	check_defaults(c);
	ck_assert_uint_eq(c->n_targets, 1);
	const struct cfg_snmp *s = snmp_cfg_of(&c->targets[0]);
	ck_assert_ptr_null(gnmi_cfg_of(&c->targets[0]));
	ck_assert_str_eq(s->address, "192.0.2.1");
	ck_assert_int_eq(s->version, 2);
	ck_assert_str_eq(s->community, "public");
	ck_assert_ptr_null(s->user);
	ck_assert_int_eq(s->auth, CFG_SNMP_AUTH_NONE);
	ck_assert_int_eq(s->priv, CFG_SNMP_PRIV_NONE);
	ck_assert_uint_eq(s->interval_ns, 0);
	ck_assert_uint_eq(s->timeout_ns, 1 * S);
	ck_assert_uint_eq(s->retries, 1);
	ck_assert_uint_eq(s->max_repetitions, 25);
	ck_assert_ptr_null(s->profile);
	cfg_free(c);
}
END_TEST

START_TEST(test_gnmi_defaults_follow_global_interval)
{
	struct cfg *c = load("interval: 2s\n"
			     "targets:\n"
			     "  - name: a\n"
			     "    gnmi:\n"
			     "      address: sw:57400\n"
			     "      subscriptions:\n"
			     "        - path: /x\n"
			     "  - name: b\n"
			     "    gnmi:\n"
			     "      address: sw:57400\n"
			     "      mode: poll\n"
			     "  - name: c\n"
			     "    gnmi:\n"
			     "      address: sw:57400\n"
			     "      interval: 3s\n"
			     "      mode: poll\n"
			     "      subscriptions: [{path: /x}]\n");
	ck_assert_msg(c != NULL, "%s", err);
	const struct cfg_gnmi *g = gnmi_cfg_of(&c->targets[0]);
	ck_assert(!g->insecure);
	ck_assert(!g->skip_verify);
	ck_assert_ptr_null(g->ca);
	ck_assert_ptr_null(g->password);
	ck_assert_int_eq(g->mode, CFG_GNMI_STREAM);
	ck_assert_uint_eq(g->poll_interval_ns, 0);
	ck_assert_int_eq(g->encoding, CFG_GNMI_ENC_AUTO);
	ck_assert_ptr_null(g->target);
	ck_assert_ptr_null(g->profile);
	ck_assert(!g->updates_only);
	ck_assert_int_eq(g->subs[0].mode, CFG_SUB_SAMPLE);
	ck_assert_uint_eq(g->subs[0].sample_interval_ns, 2 * S);
	ck_assert_int_eq(gnmi_cfg_of(&c->targets[1])->mode, CFG_GNMI_POLL);
	ck_assert_uint_eq(gnmi_cfg_of(&c->targets[1])->poll_interval_ns, 2 * S);
	ck_assert_uint_eq(gnmi_cfg_of(&c->targets[1])->interval_ns, 0);
	/* A target's own interval comes before the global one. */
	g = gnmi_cfg_of(&c->targets[2]);
	ck_assert_uint_eq(g->interval_ns, 3 * S);
	ck_assert_uint_eq(g->poll_interval_ns, 3 * S);
	ck_assert_uint_eq(g->subs[0].sample_interval_ns, 3 * S);
	cfg_free(c);
}
END_TEST

START_TEST(test_example_config_loads)
{
	struct cfg *c = cfg_load(fabmond_cfg_schema(),
				 srcpath("etc/fabmon.yaml"), err, sizeof err);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_ge(c->n_targets, 2);
	ck_assert_ptr_nonnull(cfg_find_target(c, "leaf01"));
	ck_assert_ptr_nonnull(gnmi_cfg_of(cfg_find_target(c, "leaf01")));
	ck_assert_ptr_nonnull(cfg_find_target(c, "spine01"));
	ck_assert_ptr_nonnull(snmp_cfg_of(cfg_find_target(c, "spine01")));
	ck_assert(!nic_cfg_of(c)->enabled);
	cfg_free(c);
}
END_TEST

START_TEST(test_gnmi_collector_section_and_profiles_dir)
{
	struct cfg *c = load("interval: 1s\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->threads, 2);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->max_connecting, 32);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->max_message, 16u << 20);
	ck_assert_str_eq(c->profiles_dir, FABMON_PROFILEDIR);
	cfg_free(c);
	c = load("gnmi: {threads: 4, max_connecting: 8, "
		 "max_message_size: 64MiB}\n"
		 "profiles_dir: /opt/fabmon/profiles\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->threads, 4);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->max_connecting, 8);
	ck_assert_uint_eq(gnmi_cfg_collector(c)->max_message, 64u << 20);
	ck_assert_str_eq(c->profiles_dir, "/opt/fabmon/profiles");
	cfg_free(c);
}
END_TEST

START_TEST(test_gnmi_block_copies_compare_equal)
{
	struct cfg *c = load("targets:\n"
			     "  - name: a\n"
			     "    gnmi:\n"
			     "      address: 'h:1'\n"
			     "      username: u\n"
			     "      password: p\n"
			     "      subscriptions:\n"
			     "        - {path: /a/b, sample_interval: 2s}\n"
			     "  - name: b\n"
			     "    gnmi:\n"
			     "      address: 'h:1'\n"
			     "      username: u\n"
			     "      password: q\n"
			     "      subscriptions:\n"
			     "        - {path: /a/b, sample_interval: 2s}\n");
	ck_assert_msg(c != NULL, "%s", err);
	struct cfg_gnmi *d = cfg_gnmi_dup(gnmi_cfg_of(&c->targets[0]));
	ck_assert_ptr_ne(d, gnmi_cfg_of(&c->targets[0]));
	ck_assert_ptr_ne(d->subs, gnmi_cfg_of(&c->targets[0])->subs);
	ck_assert_str_eq(d->subs[0].path, "/a/b");
	ck_assert(cfg_gnmi_equal(d, gnmi_cfg_of(&c->targets[0])));
	/* Only the password differs: a new session is needed. */
	ck_assert(!cfg_gnmi_equal(d, gnmi_cfg_of(&c->targets[1])));
	d->subs[0].sample_interval_ns++;
	ck_assert(!cfg_gnmi_equal(d, gnmi_cfg_of(&c->targets[0])));
	ck_assert(cfg_gnmi_equal(NULL, NULL));
	ck_assert(!cfg_gnmi_equal(d, NULL));
	cfg_gnmi_free(d);
	cfg_gnmi_free(NULL);
	cfg_free(c);
}
END_TEST

START_TEST(test_find_target_by_name)
{
	struct cfg *c = load("targets:\n"
			     "  - {name: a, snmp: {address: h1}}\n"
			     "  - {name: b, gnmi: {address: 'h2:1'}}\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_ptr_eq(cfg_find_target(c, "a"), &c->targets[0]);
	ck_assert_ptr_eq(cfg_find_target(c, "b"), &c->targets[1]);
	ck_assert_ptr_null(cfg_find_target(c, "c"));
	ck_assert_ptr_null(cfg_find_target(c, NULL));
	cfg_free(c);
}
END_TEST

START_TEST(test_accepted_spellings)
{
	/* Sections left empty (all entries commented out) are empty. */
	struct cfg *c = load("targets:\n"
			     "# - name: a\n"
			     "rules:\n"
			     "nic: ~\n"
			     "log: {debug: []}\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->n_targets, 0);
	ck_assert_uint_eq(c->rules.tick_ns, 0);
	ck_assert_uint_eq(c->n_log_debug, 0);
	cfg_free(c);

	/* Booleans in any case, SNMP version 2, an empty priority list. */
	c = load("nic: {enabled: On}\n"
		 "targets:\n"
		 "  - name: a\n"
		 "    snmp: {address: 'udp6:[2001:db8::1]:161', version: 2}\n"
		 "  - name: b\n"
		 "    snmp: {address: 'h', version: '2c', community: c}\n"
		 "  - name: c\n"
		 "    snmp:\n"
		 "      address: h\n"
		 "      version: 3\n"
		 "      user: u\n"
		 "lossless_priorities: []\n"
		 "rules: {tick: 0s}\n"
		 "log: {level: warn}\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert(nic_cfg_of(c)->enabled);
	ck_assert_int_eq(snmp_cfg_of(&c->targets[0])->version, 2);
	ck_assert_str_eq(snmp_cfg_of(&c->targets[1])->community, "c");
	ck_assert_int_eq(snmp_cfg_of(&c->targets[2])->version, 3);
	ck_assert_int_eq(snmp_cfg_of(&c->targets[2])->auth, CFG_SNMP_AUTH_NONE);
	ck_assert_uint_eq(c->lossless_mask, 0);
	ck_assert_uint_eq(c->rules.tick_ns, 0);
	ck_assert_int_eq(c->log_level, LOG_LVL_WARN);
	cfg_free(c);
}
END_TEST

/* Each bad input and its exact message. */
static const struct {
	const char *yaml, *msg;
} bad[] = {
	/* unknown keys, with a suggestion when one is close */
	{ "interval: 1s\nintervall: 2s\n",
	  "t.yaml:2:1: intervall: unknown key (did you mean \"interval\"?)" },
	{ "store:\n  ring: 8\n  size: 3\n",
	  "t.yaml:3:3: store.size: unknown key" },
	{ "targets:\n  - name: a\n    snmp: {address: h, comunity: x}\n",
	  "t.yaml:3:24: targets[0].snmp.comunity: unknown key (did you mean "
	  "\"community\"?)" },
	/* durations */
	{ "targets:\n  - name: a\n    snmp:\n      address: h\n"
	  "      interval: 5x\n",
	  "t.yaml:5:17: targets[0].snmp.interval: \"5x\" is not a duration" },
	{ "interval: 50ms\n",
	  "t.yaml:1:11: interval: must be between 100ms and 1h, not 50ms" },
	{ "interval: 99999999999999h\n",
	  "t.yaml:1:11: interval: \"99999999999999h\" is too long a duration" },
	{ "rules: {tick: 10ms}\n",
	  "t.yaml:1:15: rules.tick: must be 0 or between 100ms and 1h, not "
	  "10ms" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions:\n        - {path: /a, sample_interval: 1us}\n",
	  "t.yaml:6:39: targets[0].gnmi.subscriptions[0].sample_interval: "
	  "must be 0 or at least 1ms, not 1us" },
	{ "targets:\n  - name: a\n    snmp: {address: h, timeout: 2m}\n",
	  "t.yaml:3:33: targets[0].snmp.timeout: must be between 10ms and 1m, "
	  "not 2m" },
	/* numbers */
	{ "http:\n  threads: 100\n",
	  "t.yaml:2:12: http.threads: must be between 1 and 64, not 100" },
	{ "http: {max_connections: 0}\n",
	  "t.yaml:1:25: http.max_connections: must be between 1 and 65536, "
	  "not 0" },
	{ "http: {header_timeout: 10ms}\n",
	  "t.yaml:1:24: http.header_timeout: must be between 100ms and 1h, "
	  "not 10ms" },
	{ "http: {web_config: /dev/null}\n",
	  "t.yaml:1:20: http.web_config: \"/dev/null\": not a regular file "
	  "(character device)" },
	{ "http: {max_connections_per_client: 0}\n",
	  "t.yaml:1:36: http.max_connections_per_client: must be between 1 "
	  "and 65536, not 0" },
	{ "store: {ring: -8}\n",
	  "t.yaml:1:15: store.ring: must be between 8 and 4096, not -8" },
	{ "store: {stale_after: 99999999999999999999999}\n",
	  "t.yaml:1:22: store.stale_after: must be between 2 and 1000, not "
	  "99999999999999999999999" },
	{ "store:\n  ring: many\n",
	  "t.yaml:2:9: store.ring: expected a number, not \"many\"" },
	{ "store:\n  ring: 0x10\n",
	  "t.yaml:2:9: store.ring: expected a number, not \"0x10\"" },
	{ "targets:\n  - name: a\n    snmp: {address: h, retries: 11}\n",
	  "t.yaml:3:33: targets[0].snmp.retries: must be between 0 and 10, "
	  "not 11" },
	{ "targets:\n  - name: a\n    snmp: {address: h, max_repetitions: 0}\n",
	  "t.yaml:3:41: targets[0].snmp.max_repetitions: must be between 1 "
	  "and 200, not 0" },
	{ "lossless_priorities: [3, 8]\n",
	  "t.yaml:1:26: lossless_priorities[1]: must be between 0 and 7, not "
	  "8" },
	{ "lossless_priorities: [3, 4, 3]\n",
	  "t.yaml:1:29: lossless_priorities[2]: priority 3 is listed twice" },
	/* wrong types */
	{ "store: 5\n", "t.yaml:1:8: store: expected a mapping" },
	{ "targets: {a: 1}\n", "t.yaml:1:10: targets: expected a list" },
	{ "targets: [5]\n", "t.yaml:1:11: targets[0]: expected a mapping" },
	{ "store:\n  ring: [1]\n",
	  "t.yaml:2:9: store.ring: expected a number, not a list" },
	{ "interval: {a: 1}\n",
	  "t.yaml:1:11: interval: expected a duration, not a mapping" },
	{ "nic:\n  enabled: maybe\n",
	  "t.yaml:2:12: nic.enabled: expected a boolean (true/false, yes/no, "
	  "on/off), not \"maybe\"" },
	{ "targets:\n  - name:\n",
	  "t.yaml:2:10: targets[0].name: missing value (expected a string)" },
	{ "log: {debug: gnmi}\n", "t.yaml:1:14: log.debug: expected a list" },
	{ "- a\n", "t.yaml:1:1: expected a mapping of settings at the top "
		   "level" },
	{ "? [a]\n: b\n",
	  "t.yaml:1:3: keys must be plain strings, not a list" },
	/* enumerations and names */
	{ "log: {level: verbose}\n",
	  "t.yaml:1:14: log.level: expected error, warn, notice, info or "
	  "debug, not \"verbose\"" },
	{ "log: {debug: [gnmi, gnmy]}\n",
	  "t.yaml:1:21: log.debug[1]: \"gnmy\" is not a subsystem (all, core, "
	  "config, store, http, gnmi, snmp, nic, rules, topology, sim)" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', mode: push}\n",
	  "t.yaml:3:34: targets[0].gnmi.mode: expected stream, once or poll, "
	  "not \"push\"" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', encoding: xml}\n",
	  "t.yaml:3:38: targets[0].gnmi.encoding: expected json, json_ietf, "
	  "proto or auto, not \"xml\"" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions: [{path: /a, mode: poll}]\n",
	  "t.yaml:5:40: targets[0].gnmi.subscriptions[0].mode: expected "
	  "sample, on_change or target_defined, not \"poll\"" },
	{ "targets:\n  - name: leaf 1\n    snmp: {address: h}\n",
	  "t.yaml:2:11: targets[0].name: \"leaf 1\" is not a valid name (1 to "
	  "64 characters of A-Z a-z 0-9 . _ : -)" },
	{ "nic: {device: ''}\n",
	  "t.yaml:1:15: nic.device: \"\" is not a valid name (1 to 64 "
	  "characters of A-Z a-z 0-9 . _ : -)" },
	/* duplicates */
	{ "store:\n  ring: 8\n  ring: 9\n",
	  "t.yaml:3:3: store.ring: duplicate key (first at 2:3)" },
	{ "targets:\n  - name: a\n    snmp: {address: h}\n"
	  "  - name: b\n    snmp: {address: h}\n"
	  "  - name: a\n    snmp: {address: h}\n"
	  "  - name: b\n    snmp: {address: h}\n",
	  "t.yaml:6:11: targets[2].name: duplicate target name \"a\" (first at "
	  "2:11)" },
	/* missing keys and empty lists */
	{ "targets:\n  - snmp: {address: h}\n",
	  "t.yaml:2:5: targets[0]: missing required key \"name\"" },
	{ "targets:\n  - name: a\n    gnmi: {insecure: true}\n",
	  "t.yaml:3:11: targets[0].gnmi: missing required key \"address\"" },
	{ "targets:\n  - name: a\n    snmp:\n",
	  "t.yaml:3:10: targets[0].snmp: missing required key \"address\"" },
	{ "targets:\n  - name: a\n", "t.yaml:2:5: targets[0]: needs gnmi, snmp "
				     "or both" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions:\n        - origin: x\n",
	  "t.yaml:6:11: targets[0].gnmi.subscriptions[0]: missing required "
	  "key \"path\"" },
	/* subscription paths are parsed as gNMI paths (issue #14: this
	 * one used to pass --check-config and fail at run time) */
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions:\n"
	  "        - path: /interfaces/interface[name=*/state\n",
	  "t.yaml:6:38: targets[0].gnmi.subscriptions[0].path: column 22: "
	  "unterminated key" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions:\n"
	  "        - path: '/interfaces/interface[name=*/state'\n",
	  "t.yaml:6:17: targets[0].gnmi.subscriptions[0].path: column 22: "
	  "unterminated key" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions: [{path: interfaces}]\n",
	  "t.yaml:5:30: targets[0].gnmi.subscriptions[0].path: must start "
	  "with '/'" },
	{ "listen: []\n", "t.yaml:1:9: listen: needs at least one address" },
	/* addresses */
	{ "listen: ['::1:9465']\n",
	  "t.yaml:1:10: listen[0]: \"::1:9465\" is not host:port (e.g. "
	  "127.0.0.1:9465, [::1]:9465, :9465)" },
	{ "listen: [':http']\n",
	  "t.yaml:1:10: listen[0]: \":http\" is not host:port (e.g. "
	  "127.0.0.1:9465, [::1]:9465, :9465)" },
	{ "listen: ['[::1]:65536']\n",
	  "t.yaml:1:10: listen[0]: port must be between 0 and 65535 in "
	  "\"[::1]:65536\"" },
	{ "targets:\n  - name: a\n    gnmi: {address: ':57400'}\n",
	  "t.yaml:3:21: targets[0].gnmi.address: \":57400\" is not host:port, "
	  "[v6]:port or unix:/path" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:0'}\n",
	  "t.yaml:3:21: targets[0].gnmi.address: port must be between 1 and "
	  "65535 in \"h:0\"" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'unix:run/x'}\n",
	  "t.yaml:3:21: targets[0].gnmi.address: \"unix:run/x\": a unix "
	  "socket needs an absolute path (unix:/path)" },
	{ "targets:\n  - name: a\n    snmp: {address: 'h:99999'}\n",
	  "t.yaml:3:21: targets[0].snmp.address: \"h:99999\" is not an SNMP "
	  "address (host, host:port, [v6]:port, optionally after udp: or "
	  "udp6:)" },
	/* gNMI combinations */
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', insecure: true, "
	  "ca: /ca.pem}\n",
	  "t.yaml:3:48: targets[0].gnmi.ca: cannot be used with insecure: "
	  "true" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', cert: /c.pem}\n",
	  "t.yaml:3:34: targets[0].gnmi.cert: needs key too (cert and key go "
	  "together)" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', key: /k.pem}\n",
	  "t.yaml:3:33: targets[0].gnmi.key: needs cert too (cert and key go "
	  "together)" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', password: pw}\n",
	  "t.yaml:3:38: targets[0].gnmi.password: needs username too" },
	{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', poll_interval: "
	  "1s}\n",
	  "t.yaml:3:43: targets[0].gnmi.poll_interval: only applies to mode: "
	  "poll" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      subscriptions: [{path: interfaces}]\n",
	  "t.yaml:5:30: targets[0].gnmi.subscriptions[0].path: must start "
	  "with '/'" },
	{ "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
	  "      username: u\n      password_file: /x\n      password: p\n",
	  "t.yaml:7:17: targets[0].gnmi.password: use password or "
	  "password_file, not both" },
	/* SNMP combinations */
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 1}\n",
	  "t.yaml:3:33: targets[0].snmp.version: expected 2c or 3, not \"1\"" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3}\n",
	  "t.yaml:3:11: targets[0].snmp: missing required key \"user\"" },
	{ "targets:\n  - name: a\n    snmp: {address: h, user: u}\n",
	  "t.yaml:3:30: targets[0].snmp.user: only applies to version 3" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "community: c}\n",
	  "t.yaml:3:56: targets[0].snmp.community: only applies to version "
	  "2c" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "auth: MD5, auth_key: 12345678}\n",
	  "t.yaml:3:51: targets[0].snmp.auth: expected SHA, SHA-256 or "
	  "SHA-512, not \"MD5\"" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "auth: SHA}\n",
	  "t.yaml:3:51: targets[0].snmp.auth: needs auth_key or "
	  "auth_key_file" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "priv: AES, priv_key: 12345678}\n",
	  "t.yaml:3:51: targets[0].snmp.priv: needs auth too (no privacy "
	  "without authentication)" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "auth_key: 12345678}\n",
	  "t.yaml:3:55: targets[0].snmp.auth_key: needs auth too" },
	{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, user: u, "
	  "auth: SHA, auth_key: short}\n",
	  "t.yaml:3:66: targets[0].snmp.auth_key: must be at least 8 "
	  "characters long" },
	/* YAML-level problems */
	{ "a: b: c\n",
	  "t.yaml:1:5: mapping values are not allowed in this context" },
	{ "store:\n  ring: [1, 2\n",
	  "t.yaml:3:1: did not find expected ',' or ']' (while parsing a flow "
	  "sequence at 2:9)" },
	{ "x: &a 1\n", "t.yaml:1:4: anchors and aliases are not supported" },
	{ "x: 1\ny: *a\n",
	  "t.yaml:2:4: anchors and aliases are not supported" },
	{ "interval: 1s\n---\ninterval: 2s\n",
	  "t.yaml:2:1: only one YAML document is allowed" },
	{ "interval: \"1\\0s\"\n",
	  "t.yaml:1:11: interval: must not contain a NUL character" },
	{ "interval: 1s\x01\n",
	  "t.yaml:1:13: control characters are not allowed" },
	{ "gnmi: {threads: 0}\n",
	  "t.yaml:1:17: gnmi.threads: must be between 1 and 64, not 0" },
	{ "gnmi: {max_message_size: 1KiB}\n",
	  "t.yaml:1:26: gnmi.max_message_size: must be between 65536 and "
	  "1073741824 bytes, not 1KiB" },
	{ "gnmi: {max_message_size: lots}\n",
	  "t.yaml:1:26: gnmi.max_message_size: \"lots\" is not a size" },
	{ "gnmi: {sessions: 3}\n", "t.yaml:1:8: gnmi.sessions: unknown key" },
	{ "", "t.yaml: empty configuration file" },
	{ "# only a comment\n", "t.yaml: empty configuration file" },
	{ "---\n", "t.yaml: empty configuration file" },
};

START_TEST(test_bad_input_has_exact_message)
{
	expect_error(bad[_i].yaml, bad[_i].msg);
}
END_TEST

START_TEST(test_message_has_documented_form)
{
	/* The example of cfg.h and fabmond(8), at its real position. */
	static const char yaml[] = "# fabmon.yaml\n"
				   "interval: 1s\n"
				   "targets:\n"
				   "  - name: leaf1\n"
				   "    snmp: {address: leaf1}\n"
				   "  - name: leaf2\n"
				   "    snmp: {address: leaf2}\n"
				   "  - name: leaf3\n"
				   "    gnmi:\n"
				   "      address: leaf3:8080\n"
				   "      insecure: true\n"
				   "      username: admin\n"
				   "      mode: stream\n"
				   "      interval: 5x\n";
	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "fabmon.yaml",
					   yaml, sizeof yaml - 1, err,
					   sizeof err));
	ck_assert_str_eq(err, "fabmon.yaml:14:17: targets[2].gnmi.interval: "
			      "\"5x\" is not a duration");
}
END_TEST

START_TEST(test_file_not_found_names_file)
{
	ck_assert_ptr_null(cfg_load(
	    fabmond_cfg_schema(), "/nonexistent/fabmon.yaml", err, sizeof err));
	ck_assert_str_eq(err, "/nonexistent/fabmon.yaml: cannot open: No such "
			      "file or directory");
}
END_TEST

START_TEST(test_file_too_large_is_refused)
{
	size_t n = CFG_MAX_FILE_BYTES;
	char *buf = malloc(n + 1), path[4096];
	const char *head = "interval: 2s\n";

	/* Exactly the limit loads; one byte more does not. */
	memset(buf, ' ', n + 1);
	memcpy(buf, head, strlen(head));
	buf[strlen(head)] = '#';
	buf[n - 1] = '\n';
	make_temp(path, sizeof path, buf, n);
	struct cfg *c = cfg_load(fabmond_cfg_schema(), path, err, sizeof err);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->interval_ns, 2 * S);
	cfg_free(c);
	unlink(path);

	buf[n] = '\n';
	make_temp(path, sizeof path, buf, n + 1);
	ck_assert_ptr_null(
	    cfg_load(fabmond_cfg_schema(), path, err, sizeof err));
	char want[4200];
	snprintf(want, sizeof want, "%s: file is larger than %zu bytes", path,
		 (size_t)CFG_MAX_FILE_BYTES);
	ck_assert_str_eq(err, want);
	unlink(path);

	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "big.yaml",
					   buf, n + 1, err, sizeof err));
	snprintf(want, sizeof want, "big.yaml: file is larger than %zu bytes",
		 (size_t)CFG_MAX_FILE_BYTES);
	ck_assert_str_eq(err, want);
	free(buf);
}
END_TEST

START_TEST(test_nesting_too_deep_is_refused)
{
	char buf[256];
	int depth;

	/* The top-level mapping is level 1, so 31 lists still parse (and
	 * fail on the unknown key), 32 do not. */
	for (depth = 31; depth <= 32; depth++) {
		int len = snprintf(buf, sizeof buf, "a: ");
		for (int i = 0; i < depth; i++)
			buf[len++] = '[';
		for (int i = 0; i < depth; i++)
			buf[len++] = ']';
		buf[len++] = '\n';
		buf[len] = '\0';
		ck_assert_ptr_null(load(buf));
		if (depth == 31)
			ck_assert_str_eq(err, "t.yaml:1:1: a: unknown key");
		else
			ck_assert_str_eq(err, "t.yaml:1:35: nested deeper than "
					      "32 levels");
	}

	/* A file of nothing but '[' stops at the limit, not at its end. */
	size_t n = CFG_MAX_FILE_BYTES;
	char *deep = malloc(n);
	memset(deep, '[', n);
	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", deep,
					   n, err, sizeof err));
	ck_assert_str_eq(err, "t.yaml:1:33: nested deeper than 32 levels");
	/* Block nesting counts the same way. */
	int len = 0;
	for (depth = 0; depth < 40 && len < (int)n - 64; depth++)
		len += snprintf(deep + len, n - (size_t)len, "%*sk:\n",
				2 * depth, "");
	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", deep,
					   (size_t)len, err, sizeof err));
	ck_assert_str_eq(err, "t.yaml:33:65: nested deeper than 32 levels");
	free(deep);
}
END_TEST

START_TEST(test_secret_files_are_read_and_trimmed)
{
	char pw[4096], comm[4096], auth[4096], priv[4096], yaml[20000];
	make_temp(pw, sizeof pw, "gnmi-pass\n", 10);
	make_temp(comm, sizeof comm, "community-1\r\n", 13);
	make_temp(auth, sizeof auth, "auth-secret", 11);
	make_temp(priv, sizeof priv, "priv-secret\n\n", 13);
	snprintf(yaml, sizeof yaml,
		 "targets:\n"
		 "  - name: a\n"
		 "    gnmi: {address: 'h:1', username: u, password_file: %s}\n"
		 "    snmp: {address: h, community_file: %s}\n"
		 "  - name: b\n"
		 "    snmp:\n"
		 "      address: h\n"
		 "      version: 3\n"
		 "      user: u\n"
		 "      auth: SHA-512\n"
		 "      auth_key_file: %s\n"
		 "      priv: AES-256\n"
		 "      priv_key_file: %s\n",
		 pw, comm, auth, priv);
	struct cfg *c = load(yaml);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_str_eq(gnmi_cfg_of(&c->targets[0])->password, "gnmi-pass");
	ck_assert_str_eq(snmp_cfg_of(&c->targets[0])->community, "community-1");
	ck_assert_str_eq(snmp_cfg_of(&c->targets[1])->auth_key, "auth-secret");
	ck_assert_int_eq(snmp_cfg_of(&c->targets[1])->auth,
			 CFG_SNMP_AUTH_SHA512);
	/* Only one trailing newline goes. */
	ck_assert_str_eq(snmp_cfg_of(&c->targets[1])->priv_key,
			 "priv-secret\n");
	ck_assert_int_eq(snmp_cfg_of(&c->targets[1])->priv,
			 CFG_SNMP_PRIV_AES256);
	cfg_free(c);
	unlink(pw);
	unlink(comm);
	unlink(auth);
	unlink(priv);
}
END_TEST

START_TEST(test_secret_file_problems_name_key_and_path)
{
	char yaml[8192], want[8192], path[4096];

	snprintf(yaml, sizeof yaml,
		 "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
		 "      username: u\n      password_file: /nonexistent/pw\n");
	expect_error(yaml, "t.yaml:6:22: targets[0].gnmi.password_file: "
			   "\"/nonexistent/pw\": cannot open: No such file "
			   "or directory");

	make_temp(path, sizeof path, "\n", 1);
	snprintf(yaml, sizeof yaml,
		 "targets:\n  - name: a\n    snmp:\n      address: h\n"
		 "      community_file: %s\n",
		 path);
	snprintf(want, sizeof want,
		 "t.yaml:5:23: targets[0].snmp.community_file: \"%s\" is "
		 "empty",
		 path);
	expect_error(yaml, want);
	unlink(path);

	/* Only regular files: a FIFO or a tty would block the load. */
	snprintf(yaml, sizeof yaml,
		 "targets:\n  - name: a\n    snmp:\n      address: h\n"
		 "      community_file: /dev/null\n");
	expect_error(yaml, "t.yaml:5:23: targets[0].snmp.community_file: "
			   "\"/dev/null\": not a regular file (character "
			   "device)");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	snprintf(yaml, sizeof yaml,
		 "targets:\n  - name: a\n    snmp:\n      address: h\n"
		 "      community_file: %s\n",
		 path);
	snprintf(want, sizeof want,
		 "t.yaml:5:23: targets[0].snmp.community_file: \"%s\": not a "
		 "regular file (fifo)",
		 path);
	expect_error(yaml, want);
	unlink(path);

	/* Larger than any secret. */
	char *big = malloc(70000);
	memset(big, 'x', 70000);
	make_temp(path, sizeof path, big, 70000);
	free(big);
	snprintf(yaml, sizeof yaml,
		 "targets:\n  - name: a\n    gnmi:\n      address: h:1\n"
		 "      username: u\n      password_file: %s\n",
		 path);
	snprintf(want, sizeof want,
		 "t.yaml:6:22: targets[0].gnmi.password_file: \"%s\": file "
		 "is larger than 65536 bytes",
		 path);
	expect_error(yaml, want);
	unlink(path);
}
END_TEST

/* Copies tmpl into out with each '@' replaced by the first n bytes of s. */
static void fill(char *out, size_t len, const char *tmpl, const char *s,
		 size_t n)
{
	size_t o = 0;
	for (; *tmpl && o + n + 1 < len; tmpl++) {
		if (*tmpl == '@') {
			memcpy(out + o, s, n);
			o += n;
		} else {
			out[o++] = *tmpl;
		}
	}
	out[o] = '\0';
}

START_TEST(test_secrets_never_appear_in_messages)
{
	static const char *const secret = "Hunter2-TopSecret";
	static const struct {
		const char *yaml;
		size_t n; /* bytes of the secret used */
	} cases[] = {
		/* both forms given */
		{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', username: "
		  "u, password: @, password_file: /x}\n",
		  17 },
		/* password without username */
		{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', password: "
		  "@}\n",
		  17 },
		/* an error after the secret */
		{ "targets:\n  - name: a\n    gnmi: {address: 'h:1', username: "
		  "u, password: @, mode: bad}\n",
		  17 },
		/* the secret where it does not belong */
		{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, "
		  "user: u, community: @}\n",
		  17 },
		{ "targets:\n  - name: a\n    snmp: {address: h, auth_key: "
		  "@}\n",
		  17 },
		{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, "
		  "user: u, auth: SHA, auth_key: @, priv_key: @}\n",
		  17 },
		/* too short */
		{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, "
		  "user: u, auth: SHA, auth_key: @}\n",
		  6 },
		{ "targets:\n  - name: a\n    snmp: {address: h, version: 3, "
		  "user: u, auth: SHA, auth_key: Hunter2-TopSecret, priv: AES, "
		  "priv_key: @}\n",
		  6 },
	};
	char yaml[8192], path[4096];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fill(yaml, sizeof yaml, cases[i].yaml, secret, cases[i].n);
		ck_assert_ptr_null(load(yaml));
		ck_assert_msg(strstr(err, "Hunter") == NULL, "%s", err);
	}

	/* Nor does a secret read from a file. */
	make_temp(path, sizeof path, secret, strlen(secret));
	fill(yaml, sizeof yaml,
	     "targets:\n  - name: a\n    snmp: {address: h, version: 3, "
	     "user: u, auth: SHA, auth_key_file: @, priv: AES, priv_key: "
	     "short}\n",
	     path, strlen(path));
	ck_assert_ptr_null(load(yaml));
	ck_assert_msg(strstr(err, "Hunter") == NULL, "%s", err);
	ck_assert_msg(strstr(err, "priv_key: must be at least 8") != NULL, "%s",
		      err);
	unlink(path);
}
END_TEST

START_TEST(test_messages_stay_on_one_line)
{
	/* Keys and values with control characters are masked, and a long
	 * key is cut. */
	ck_assert_ptr_null(load("\"a\\nb\": 1\n"));
	ck_assert_str_eq(err, "t.yaml:1:1: a?b: unknown key");
	ck_assert_ptr_null(load("log: {level: \"x\\ty\"}\n"));
	ck_assert_str_eq(err, "t.yaml:1:14: log.level: expected error, warn, "
			      "notice, info or debug, not \"x?y\"");
	char yaml[512];
	memset(yaml, 'k', 300);
	strcpy(yaml + 300, ": 1\n");
	ck_assert_ptr_null(load(yaml));
	ck_assert_str_eq(err, "t.yaml:1:1: "
			      "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
			      "kkkkkkkkkkkkkkkk...: unknown key");

	/* A short buffer truncates; a NULL one is allowed. */
	char small[8];
	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "t.yaml",
					   "x: 1\n", 5, small, sizeof small));
	ck_assert_str_eq(small, "t.yaml:");
	ck_assert_ptr_null(cfg_load_buffer(fabmond_cfg_schema(), "t.yaml",
					   "x: 1\n", 5, NULL, 0));
}
END_TEST

static const struct {
	const char *s;
	int rc;
	uint64_t ns;
} durations[] = {
	{ "0", 0, 0 },
	{ "0s", 0, 0 },
	{ "1ns", 0, 1 },
	{ "1us", 0, 1000 },
	{ "1\xc2\xb5s", 0, 1000 },
	{ "1\xce\xbcs", 0, 1000 },
	{ "1ms", 0, MS },
	{ "1s", 0, S },
	{ "1m", 0, 60 * S },
	{ "1h", 0, 3600 * S },
	{ "1d", 0, 86400 * S },
	{ "200ms", 0, 200 * MS },
	{ "1.5s", 0, 1500 * MS },
	{ ".5s", 0, 500 * MS },
	{ "1m30s", 0, 90 * S },
	{ "2h45m", 0, (2 * 3600 + 45 * 60) * S },
	{ "1s1s", 0, 2 * S },
	{ "1.9ns", 0, 1 },
	{ "0.000000001s", 0, 1 },
	{ "1.0000000001d", 0, UINT64_C(86400000008640) },
	{ "0.333333333333333333333333h", 0, UINT64_C(1199999999999) },
	{ "18446744073709551615ns", 0, UINT64_MAX },
	{ "213503d23h34m33.709551615s", 0, UINT64_MAX },
	{ "", -EINVAL, 0 },
	{ "5", -EINVAL, 0 },
	{ "1.5", -EINVAL, 0 },
	{ "00", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ ".s", -EINVAL, 0 },
	{ "1x", -EINVAL, 0 },
	{ "5x", -EINVAL, 0 },
	{ "1S", -EINVAL, 0 },
	{ "-1s", -EINVAL, 0 },
	{ "+1s", -EINVAL, 0 },
	{ " 1s", -EINVAL, 0 },
	{ "1s ", -EINVAL, 0 },
	{ "1 s", -EINVAL, 0 },
	{ "1ss", -EINVAL, 0 },
	{ "1s2", -EINVAL, 0 },
	{ "1..5s", -EINVAL, 0 },
	{ "1e3s", -EINVAL, 0 },
	{ "18446744073709551616ns", -ERANGE, 0 },
	{ "213504d", -ERANGE, 0 },
	{ "99999999999999999999999s", -ERANGE, 0 },
	{ "213503d23h34m33.709551616s", -ERANGE, 0 },
	/* syntax is checked past an overflow */
	{ "99999999999999999999999sx", -EINVAL, 0 },
};

START_TEST(test_parse_duration)
{
	uint64_t ns = 12345;
	int rc = units_parse_duration(durations[_i].s, &ns);
	ck_assert_msg(rc == durations[_i].rc, "\"%s\": rc %d", durations[_i].s,
		      rc);
	if (rc == 0)
		ck_assert_uint_eq(ns, durations[_i].ns);
	else
		ck_assert_uint_eq(ns, 12345);
}
END_TEST

START_TEST(test_parse_size)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t bytes;
	} sizes[] = {
		{ "0", 0, 0 },
		{ "1", 0, 1 },
		{ "10B", 0, 10 },
		{ "1KB", 0, 1000 },
		{ "2MB", 0, 2000000 },
		{ "3GB", 0, UINT64_C(3000000000) },
		{ "1KiB", 0, 1024 },
		{ "2MiB", 0, 2 << 20 },
		{ "3GiB", 0, UINT64_C(3) << 30 },
		{ "1.5KiB", 0, 1536 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "", -EINVAL, 0 },
		{ "KB", -EINVAL, 0 },
		{ "1 KB", -EINVAL, 0 },
		{ "1kb", -EINVAL, 0 },
		{ "1TB", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "1KBx", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "17179869184GiB", -ERANGE, 0 },
	};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		uint64_t b = 7;
		int rc = units_parse_size(sizes[i].s, &b);
		ck_assert_msg(rc == sizes[i].rc, "\"%s\": rc %d", sizes[i].s,
			      rc);
		ck_assert_uint_eq(b, rc ? 7 : sizes[i].bytes);
	}
}
END_TEST

START_TEST(test_format_duration)
{
	static const struct {
		uint64_t ns;
		const char *s;
	} forms[] = {
		{ 0, "0s" },
		{ 1, "1ns" },
		{ 999, "999ns" },
		{ 1000, "1us" },
		{ 1500, "1.5us" },
		{ 200 * MS, "200ms" },
		{ 1500 * MS / 1000, "1.5ms" },
		{ S, "1s" },
		{ 1500 * MS, "1.5s" },
		{ S + 1, "1.000000001s" },
		{ 90 * S, "1m30s" },
		{ 60 * S + 500 * MS, "1m0.5s" },
		{ 3600 * S, "1h" },
		{ 86400 * S, "1d" },
		{ 90061 * S + 500 * MS, "1d1h1m1.5s" },
		{ UINT64_MAX, "213503d23h34m33.709551615s" },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		units_format_duration(forms[i].ns, buf, sizeof buf);
		ck_assert_str_eq(buf, forms[i].s);
	}
	/* A short buffer is cut, never overrun. */
	units_format_duration(90061 * S, buf, 5);
	ck_assert_uint_lt(strlen(buf), 5);
}
END_TEST

START_TEST(test_format_duration_round_trips)
{
	uint64_t x = 88172645463325252ull, ns;
	char buf[64];
	for (int i = 0; i < 20000; i++) {
		/* xorshift64, shifted right to cover every magnitude */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t v = x >> (i % 64);
		units_format_duration(v, buf, sizeof buf);
		ck_assert_int_eq(units_parse_duration(buf, &ns), 0);
		ck_assert_msg(ns == v, "%s", buf);
	}
}
END_TEST

/*
 * The hooks: a schema of one made-up protocol, so that what core does
 * with a section is seen apart from any real one.
 */
struct demo {
	uint64_t every;
	bool seen;
};

static void *demo_init(struct cfg *c)
{
	(void)c;
	return calloc(1, sizeof(struct demo));
}

static int demo_parse(struct ytree_ctx *x, struct cfg *c, void *data,
		      const struct ytree_node *n)
{
	struct demo *d = data;
	(void)c;
	d->seen = true;
	return ytree_duration(x, n, MS, S, false, &d->every);
}

static void demo_fini(struct cfg *c, void *data)
{
	(void)c;
	free(data);
}

static uint64_t demo_interval(const struct cfg *c, const void *data)
{
	(void)c;
	return ((const struct demo *)data)->every;
}

static int demo_block(struct ytree_ctx *x, const struct cfg *c,
		      const struct ytree_node *n, void **out)
{
	struct demo *d = calloc(1, sizeof *d);
	*out = d;
	d->every = c->interval_ns;
	return ytree_duration(x, n, 200 * MS, S, false, &d->every);
}

static uint64_t demo_block_interval(const void *data)
{
	return ((const struct demo *)data)->every;
}

static const struct cfg_section_ops demo_ops = {
	.key = "demo",
	.init = demo_init,
	.parse = demo_parse,
	.fini = demo_fini,
	.interval = demo_interval,
	.parse_target = demo_block,
	.free_target = free,
	.target_interval = demo_block_interval,
};
static const struct cfg_section_ops *const demo_list[] = { &demo_ops };
static const struct cfg_schema demo_schema = { demo_list, 1 };

static struct cfg *load_demo(const char *yaml)
{
	return cfg_load_buffer(&demo_schema, "t.yaml", yaml, strlen(yaml), err,
			       sizeof err);
}

START_TEST(test_sections_go_to_their_hooks)
{
	struct cfg *c = load_demo("interval: 500ms\ndemo: 300ms\n"
				  "targets:\n  - {name: a, demo: 400ms}\n"
				  "  - {name: b, demo: 250ms}\n");
	ck_assert_msg(c != NULL, "%s", err);
	const struct demo *top = cfg_section(c, "demo");
	ck_assert(top->seen);
	ck_assert_uint_eq(top->every, 300 * MS);
	const struct demo *b = cfg_target_block(&c->targets[1], "demo");
	ck_assert_uint_eq(b->every, 250 * MS);
	ck_assert_ptr_null(cfg_target_block(&c->targets[1], "gnmi"));
	ck_assert_ptr_null(cfg_section(c, "gnmi"));
	ck_assert_uint_eq(cfg_min_interval(c), 250 * MS);
	cfg_free(c);

	/* Absent, a section still gets its defaults. */
	c = load_demo("interval: 2s\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert(!((const struct demo *)cfg_section(c, "demo"))->seen);
	ck_assert_uint_eq(cfg_min_interval(c), 2 * S);
	cfg_free(c);
	c = cfg_default(&demo_schema);
	ck_assert_ptr_nonnull(cfg_section(c, "demo"));
	cfg_free(c);
}
END_TEST

START_TEST(test_hook_errors_and_unknown_protocols)
{
	/* The hook's error, with the key path core gave it. */
	ck_assert_ptr_null(load_demo("targets:\n  - {name: a, demo: 1s}\n"
				     "  - {name: b, demo: 100ms}\n"));
	ck_assert_str_eq(err, "t.yaml:3:21: targets[1].demo: must be between "
			      "200ms and 1s, not 100ms");
	/* Core names no protocol: without gnmi's hooks, gnmi: is unknown. */
	ck_assert_ptr_null(load_demo("gnmi: {threads: 2}\n"));
	ck_assert_str_eq(err, "t.yaml:1:1: gnmi: unknown key");
	ck_assert_ptr_null(load_demo("targets:\n  - name: a\n"));
	ck_assert_str_eq(err, "t.yaml:2:5: targets[0]: needs demo");
}
END_TEST

static Suite *cfg_suite(void)
{
	Suite *s = suite_create("cfg");
	TCase *tc = tcase_create("load");
	tcase_add_test(tc, test_full_file_sets_every_value);
	tcase_add_test(tc, test_default_config_has_documented_defaults);
	tcase_add_test(tc, test_minimal_file_takes_defaults);
	tcase_add_test(tc, test_gnmi_defaults_follow_global_interval);
	tcase_add_test(tc, test_example_config_loads);
	tcase_add_test(tc, test_find_target_by_name);
	tcase_add_test(tc, test_gnmi_collector_section_and_profiles_dir);
	tcase_add_test(tc, test_gnmi_block_copies_compare_equal);
	tcase_add_test(tc, test_accepted_spellings);
	tcase_add_test(tc, test_sections_go_to_their_hooks);
	tcase_add_test(tc, test_hook_errors_and_unknown_protocols);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_bad_input_has_exact_message, 0,
			    (int)(sizeof bad / sizeof *bad));
	tcase_add_test(tc, test_message_has_documented_form);
	tcase_add_test(tc, test_file_not_found_names_file);
	tcase_add_test(tc, test_file_too_large_is_refused);
	tcase_add_test(tc, test_nesting_too_deep_is_refused);
	tcase_add_test(tc, test_messages_stay_on_one_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("secrets");
	tcase_add_test(tc, test_secret_files_are_read_and_trimmed);
	tcase_add_test(tc, test_secret_file_problems_name_key_and_path);
	tcase_add_test(tc, test_secrets_never_appear_in_messages);
	suite_add_tcase(s, tc);

	tc = tcase_create("units");
	tcase_add_loop_test(tc, test_parse_duration, 0,
			    (int)(sizeof durations / sizeof *durations));
	tcase_add_test(tc, test_parse_size);
	tcase_add_test(tc, test_format_duration);
	tcase_add_test(tc, test_format_duration_round_trips);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cfg_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
