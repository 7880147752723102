/*
 * check_links: the link table (static links, LLDP reports and their
 * resolution, ageing, generations) and the topology: and rules:
 * sections of fabmon.yaml.
 */
#include "config.h"

#include "cfg.h"
#include "fabmond.h"
#include "links.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC INT64_C(1000000000)

static int64_t now_ns;

static int64_t tclock(void *ctx)
{
	(void)ctx;
	return now_ns;
}

static struct links *L;

static void setup(void)
{
	now_ns = 1000 * SEC;
	L = links_new(tclock, NULL);
}

static void teardown(void)
{
	links_free(L);
}

static bool peer_is(const char *dev, const char *port, const char *pd,
		    const char *pp)
{
	char d[64], p[64];
	if (!links_peer(L, dev, port, d, sizeof d, p, sizeof p))
		return pd == NULL;
	return pd && strcmp(d, pd) == 0 && strcmp(p, pp) == 0;
}

static struct cfg *load(const char *yaml, char *err, size_t errlen)
{
	return cfg_load_buffer(fabmond_cfg_schema(), "fabmon.yaml", yaml,
			       strlen(yaml), err, errlen);
}

START_TEST(test_static_links_both_ways)
{
	char err[256];
	struct cfg *c =
	    load("topology:\n"
		 "  links:\n"
		 "    - {a: \"leaf1:Ethernet0\", b: \"gpu3:mlx5_0\"}\n"
		 "    - [\"leaf1:Ethernet4\", \"spine0:Ethernet1/1\"]\n",
		 err, sizeof err);
	ck_assert_msg(c, "%s", err);
	uint64_t g0 = links_generation(L);
	links_set_static(L, &c->topology);
	uint64_t g1 = links_generation(L);
	ck_assert_uint_ne(g0, g1);
	ck_assert(peer_is("leaf1", "Ethernet0", "gpu3", "mlx5_0"));
	ck_assert(peer_is("gpu3", "mlx5_0", "leaf1", "Ethernet0"));
	ck_assert(peer_is("spine0", "Ethernet1/1", "leaf1", "Ethernet4"));
	ck_assert(peer_is("leaf1", "Ethernet8", NULL, NULL));
	/* The same set again changes nothing. */
	links_set_static(L, &c->topology);
	ck_assert_uint_eq(links_generation(L), g1);
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, 2);
	ck_assert_int_eq(s.links[0].source, LINKS_SRC_STATIC);
	ck_assert(s.links[0].resolved);
	links_snapshot_free(&s);
	links_set_static(L, NULL);
	ck_assert_uint_ne(links_generation(L), g1);
	ck_assert(peer_is("leaf1", "Ethernet0", NULL, NULL));
	cfg_free(c);
}
END_TEST

START_TEST(test_lldp_ifname_and_refresh)
{
	ck_assert_int_eq(
	    links_report_lldp(L, "leaf0", "Ethernet32", "spine0", "Ethernet1/1",
			      LINKS_LLDP_PORT_IFNAME, "leaf0:Eth", "gnmi", 0),
	    0);
	uint64_t g = links_generation(L);
	ck_assert(peer_is("spine0", "Ethernet1/1", "leaf0", "Ethernet32"));
	/* The other end reports the same link: one link, no change. */
	ck_assert_int_eq(links_report_lldp(L, "spine0", "Ethernet1/1", "leaf0",
					   "Ethernet32", LINKS_LLDP_PORT_IFNAME,
					   NULL, "snmp", 0),
			 0);
	now_ns += 10 * SEC;
	ck_assert_int_eq(
	    links_report_lldp(L, "leaf0", "Ethernet32", "spine0", "Ethernet1/1",
			      LINKS_LLDP_PORT_IFNAME, "leaf0:Eth", "gnmi", 0),
	    0);
	ck_assert_uint_eq(links_generation(L), g);
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, 1);
	ck_assert_int_eq(s.links[0].source, LINKS_SRC_LLDP);
	ck_assert_str_eq(s.links[0].reporter, "gnmi");
	ck_assert_int_eq(s.links[0].age_ns, 0);
	links_snapshot_free(&s);
	/* A different neighbour moves the generation. */
	ck_assert_int_eq(
	    links_report_lldp(L, "leaf0", "Ethernet32", "spine1", "Ethernet1/1",
			      LINKS_LLDP_PORT_IFNAME, NULL, "gnmi", 0),
	    0);
	ck_assert_uint_ne(links_generation(L), g);
	ck_assert(peer_is("leaf0", "Ethernet32", "spine1", "Ethernet1/1"));
	ck_assert_int_eq(
	    links_report_lldp(L, "", "x", "y", "z", 5, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(
	    links_report_lldp(L, "a", "x", "y", NULL, 5, NULL, NULL, 0),
	    -EINVAL);
}
END_TEST

START_TEST(test_lldp_mac_resolution)
{
	/* A switch sees a NIC that announces its MAC as port id. */
	ck_assert_int_eq(links_report_lldp(L, "leaf0", "Ethernet0", "host0",
					   "02:AA:bb:cc:dd:01",
					   LINKS_LLDP_PORT_MAC, "ens0np0",
					   "snmp", 0),
			 0);
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, 1);
	ck_assert(!s.links[0].resolved);
	ck_assert_str_eq(s.links[0].b_port, "02:AA:bb:cc:dd:01");
	links_snapshot_free(&s);
	uint64_t g = links_generation(L);
	/* The NIC collector learns the MAC: the link resolves. */
	ck_assert_int_eq(
	    links_set_nic_mac(L, "host0", "mlx5_0", "02-aa-bb-cc-dd-01"), 0);
	ck_assert_uint_ne(links_generation(L), g);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	ck_assert(peer_is("host0", "mlx5_0", "leaf0", "Ethernet0"));
	ck_assert_int_eq(links_set_nic_mac(L, "h", "p", "02:aa"), -EINVAL);
	ck_assert_int_eq(links_set_nic_mac(L, "h", "p", "zz:aa:bb:cc:dd:ee"),
			 -EINVAL);
}
END_TEST

START_TEST(test_static_wins_and_lldp_ages)
{
	char err[256];
	struct cfg *c = load("topology:\n  links:\n"
			     "    - [\"leaf0:Ethernet0\", \"host0:mlx5_0\"]\n",
			     err, sizeof err);
	ck_assert_msg(c, "%s", err);
	links_set_static(L, &c->topology);
	/* LLDP says something else: the config wins, the report is kept
	 * and shown as overridden. */
	ck_assert_int_eq(links_report_lldp(L, "leaf0", "Ethernet0", "host9",
					   "mlx5_0", LINKS_LLDP_PORT_IFNAME,
					   NULL, "gnmi", 0),
			 0);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	ck_assert(peer_is("host9", "mlx5_0", NULL, NULL));
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, 2);
	ck_assert(s.links[1].overridden);
	links_snapshot_free(&s);
	ck_assert_int_eq(links_report_lldp(L, "leaf0", "Ethernet4", "host1",
					   "mlx5_0", LINKS_LLDP_PORT_IFNAME,
					   NULL, "gnmi", 0),
			 0);
	now_ns += 100 * SEC;
	ck_assert_int_eq(links_report_lldp(L, "leaf0", "Ethernet8", "host2",
					   "mlx5_0", LINKS_LLDP_PORT_IFNAME,
					   NULL, "gnmi", 0),
			 0);
	now_ns += 30 * SEC;
	uint64_t g = links_generation(L);
	ck_assert_uint_eq(links_expire(L, 0, LINKS_DEFAULT_LLDP_TTL_NS), 2);
	ck_assert_uint_ne(links_generation(L), g);
	ck_assert(peer_is("leaf0", "Ethernet4", NULL, NULL));
	ck_assert(peer_is("leaf0", "Ethernet8", "host2", "mlx5_0"));
	links_forget_lldp(L, "leaf0", "Ethernet8");
	ck_assert(peer_is("leaf0", "Ethernet8", NULL, NULL));
	cfg_free(c);
}
END_TEST

static void *reporter(void *arg)
{
	int k = *(int *)arg;
	for (int i = 0; i < 2000; i++) {
		char port[32];
		snprintf(port, sizeof port, "Ethernet%d", i % 64);
		links_report_lldp(L, k ? "leafB" : "leafA", port, "spine", port,
				  LINKS_LLDP_PORT_IFNAME, NULL, "t", 0);
		char d[64], p[64];
		links_peer(L, "spine", port, d, sizeof d, p, sizeof p);
		links_generation(L);
	}
	return NULL;
}

START_TEST(test_concurrent_reports)
{
	pthread_t t[2];
	int ids[2] = { 0, 1 };
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reporter, &ids[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, 128);
	size_t resolved = 0;
	for (size_t i = 0; i < s.n_links; i++)
		resolved += s.links[i].resolved && !s.links[i].overridden;
	/* leafA and leafB both claim spine's ports: one of each wins. */
	ck_assert_uint_eq(resolved, 64);
	links_snapshot_free(&s);
}
END_TEST

START_TEST(test_rails_from_config)
{
	char err[256];
	struct cfg *c =
	    load("topology:\n  rails:\n"
		 "    - {leaves: [leaf0, leaf2]}\n"
		 "    - {leaves: [leaf1], nics: [mlx5_1, ens1np0]}\n",
		 err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->topology.n_rails, 2);
	ck_assert_str_eq(c->topology.rails[0].nics[0], "mlx5_0");
	ck_assert_uint_eq(c->topology.rails[1].n_nics, 2);
	links_set_static(L, &c->topology);
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_rails, 2);
	ck_assert_str_eq(s.rails[0].leaves[1], "leaf2");
	links_snapshot_free(&s);
	cfg_free(c);
}
END_TEST

struct bad {
	const char *yaml;
	const char *msg;
};

START_TEST(test_config_errors)
{
	static const struct bad bad[] = {
		{ "topology:\n  links:\n    - {a: \"leaf0\", b: \"h:p\"}\n",
		  "fabmon.yaml:3:11: topology.links[0].a: \"leaf0\" is not "
		  "\"device:port\"" },
		{ "topology:\n  links:\n    - [\"a:1\", \"b:1\"]\n"
		  "    - [\"c:1\", \"a:1\"]\n",
		  "fabmon.yaml:4:7: topology.links[1]: a:1 is already linked "
		  "by links[0]" },
		{ "topology:\n  links:\n    - [\"a:1\", \"a:1\"]\n",
		  "fabmon.yaml:3:7: topology.links[0]: links a:1 to itself" },
		{ "topology:\n  links:\n    - [\"a:1\"]\n",
		  "fabmon.yaml:3:7: topology.links[0]: a link is [a, b] or "
		  "{a: ..., b: ...}, with two ends" },
		{ "topology:\n  links:\n    - {a: \"x:1\", c: \"y:1\"}\n",
		  "fabmon.yaml:3:18: topology.links[0].c: unknown key" },
		{ "topology:\n  rails:\n    - {leaves: [l0]}\n"
		  "    - {leaves: [l1, l0]}\n",
		  "fabmon.yaml:4:16: topology.rails[1].leaves: leaf l0 is "
		  "already on rails[0]" },
		{ "topology:\n  lldp_ttl: 0s\n", "fabmon.yaml:2:13: "
						 "topology.lldp_ttl" },
		{ "rules:\n  storm_ratio: 1.5\n",
		  "fabmon.yaml:2:16: rules.storm_ratio: must be between 0.001 "
		  "and 1, not \"1.5\"" },
		{ "rules:\n  pause_ratio: 0.x\n",
		  "fabmon.yaml:2:16: rules.pause_ratio: \"0.x\" is not a "
		  "number" },
		{ "rules:\n  pause_ratio: 0.95\n",
		  "fabmon.yaml:2:16: rules.pause_ratio: must not exceed "
		  "storm_ratio (0.9)" },
		{ "rules:\n  incast_senders: 0\n",
		  "fabmon.yaml:2:19: rules.incast_senders" },
		{ "rules:\n  tick: 10ms\n", "fabmon.yaml:2:9: rules.tick" },
		{ "rules:\n  storm_fro: 1s\n", "fabmon.yaml:2:3: rules" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[512];
		struct cfg *c = load(bad[i].yaml, err, sizeof err);
		ck_assert_msg(!c, "accepted: %s", bad[i].yaml);
		ck_assert_msg(strncmp(err, bad[i].msg, strlen(bad[i].msg)) == 0,
			      "got \"%s\", want \"%s\"", err, bad[i].msg);
	}
}
END_TEST

START_TEST(test_rules_config_values)
{
	char err[256];
	struct cfg *c = load("rules:\n  tick: 250ms\n  storm_ratio: 0.95\n"
			     "  storm_for: 400ms\n  clear: 10s\n"
			     "  incast_senders: 5\n  ecn_min_ce_pps: 12.5\n"
			     "  flap_window: 1m\n",
			     err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->rules.tick_ns, 250000000);
	ck_assert_double_eq(c->rules.storm_ratio, 0.95);
	ck_assert_uint_eq(c->rules.storm_for_ns, 400000000);
	ck_assert_uint_eq(c->rules.clear_ns, 10 * (uint64_t)SEC);
	ck_assert_uint_eq(c->rules.incast_senders, 5);
	ck_assert_double_eq(c->rules.ecn_min_ce, 12.5);
	ck_assert_uint_eq(c->rules.flap_window_ns, 60 * (uint64_t)SEC);
	/* Untouched keys keep their defaults. */
	ck_assert_double_eq(c->rules.pause_ratio, 0.2);
	ck_assert_uint_eq(c->rules.keep_resolved, 100);
	cfg_free(c);
	c = cfg_default(fabmond_cfg_schema());
	ck_assert_double_eq(c->rules.storm_ratio, 0.9);
	ck_assert_uint_eq(c->topology.lldp_ttl_ns, 120 * (uint64_t)SEC);
	cfg_free(c);
}
END_TEST

/*
 * A topology of 100k links (the size of issue #16's report): it loads
 * and fills the table; and duplicates among so many are still found,
 * the earliest one, at the offending link's file:line:column and key.
 * Not timed: bench/bench_cfg_links prints how long such loads take.
 */
#define BIG_LINKS 100000

/* The YAML of BIG_LINKS links "swD:EthernetP <-> hostI:mlx5_0" (64
 * ports a switch), then extra (may be ""). The caller frees it. */
static char *big_topology(const char *extra, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	ck_assert_ptr_nonnull(f);
	fputs("topology:\n  links:\n", f);
	for (unsigned i = 0; i < BIG_LINKS; i++)
		fprintf(f, "    - [sw%04u:Ethernet%u, host%06u:mlx5_0]\n",
			i / 64, i % 64 * 4, i);
	fputs(extra, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static struct cfg *load_big(const char *extra, char *err, size_t errlen)
{
	size_t len;
	char *yaml = big_topology(extra, &len);
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "big.yaml", yaml,
					len, err, errlen);
	free(yaml);
	return c;
}

START_TEST(test_hundred_thousand_links)
{
	char err[512];
	struct cfg *c = load_big("", err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->topology.n_links, BIG_LINKS);
	ck_assert_str_eq(c->topology.links[99999].a_device, "sw1562");
	ck_assert_str_eq(c->topology.links[99999].a_port, "Ethernet124");
	links_set_static(L, &c->topology);
	ck_assert(peer_is("sw0000", "Ethernet0", "host000000", "mlx5_0"));
	ck_assert(peer_is("host077777", "mlx5_0", "sw1215", "Ethernet68"));
	ck_assert(peer_is("sw1562", "Ethernet124", "host099999", "mlx5_0"));
	ck_assert(peer_is("sw1562", "Ethernet128", NULL, NULL));
	struct links_snapshot s;
	links_snapshot(L, &s);
	ck_assert_uint_eq(s.n_links, BIG_LINKS);
	links_snapshot_free(&s);
	cfg_free(c);
}
END_TEST

START_TEST(test_duplicates_among_many_links)
{
	static const struct bad bad[] = {
		/* One end of a late link. */
		{ "    - [host077777:mlx5_0, sw9999:Ethernet0]\n",
		  "big.yaml:100003:7: topology.links[100000]: "
		  "host077777:mlx5_0 is already linked by links[77777]" },
		/* Both ends taken: the earlier link is named. */
		{ "    - [host090000:mlx5_0, sw0078:Ethernet32]\n",
		  "big.yaml:100003:7: topology.links[100000]: "
		  "sw0078:Ethernet32 is already linked by links[5000]" },
		/* A link written the other way round: its a end. */
		{ "    - {a: \"host000042:mlx5_0\", b: "
		  "\"sw0000:Ethernet168\"}\n",
		  "big.yaml:100003:7: topology.links[100000]: "
		  "host000042:mlx5_0 is already linked by links[42]" },
		{ "    - [sw9999:Ethernet0, sw9999:Ethernet0]\n",
		  "big.yaml:100003:7: topology.links[100000]: links "
		  "sw9999:Ethernet0 to itself" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[512];
		struct cfg *c = load_big(bad[i].yaml, err, sizeof err);
		ck_assert_msg(!c, "accepted: %s", bad[i].yaml);
		ck_assert_str_eq(err, bad[i].msg);
	}
}
END_TEST

/* Many rails of many leaves: a leaf on two rails names the earliest. */
START_TEST(test_rail_leaf_on_two_rails)
{
	char *buf = NULL, err[512];
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	fputs("topology:\n  rails:\n", f);
	for (unsigned r = 0; r < 64; r++) {
		fputs("    - leaves: [", f);
		for (unsigned k = 0; k < 512; k++)
			fprintf(f, "%sleaf%u", k ? ", " : "", r * 512 + k);
		/* The last rail repeats a leaf of rail 9 and one of 3. */
		fputs(r == 63 ? ", leaf5000, leaf1600]\n" : "]\n", f);
	}
	ck_assert_int_eq(fclose(f), 0);
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "rails.yaml", buf,
					len, err, sizeof err);
	free(buf);
	ck_assert(!c);
	ck_assert_str_eq(err, "rails.yaml:66:15: topology.rails[63].leaves: "
			      "leaf leaf1600 is already on rails[3]");
}
END_TEST

static Suite *links_suite(void)
{
	Suite *s = suite_create("links");
	TCase *tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_static_links_both_ways);
	tcase_add_test(tc, test_lldp_ifname_and_refresh);
	tcase_add_test(tc, test_lldp_mac_resolution);
	tcase_add_test(tc, test_static_wins_and_lldp_ages);
	tcase_add_test(tc, test_concurrent_reports);
	tcase_add_test(tc, test_rails_from_config);
	suite_add_tcase(s, tc);
	TCase *tcc = tcase_create("config");
	tcase_add_test(tcc, test_config_errors);
	tcase_add_test(tcc, test_rules_config_values);
	suite_add_tcase(s, tcc);
	TCase *tcs = tcase_create("scale");
	tcase_add_checked_fixture(tcs, setup, teardown);
	/* A hang guard for sanitizer builds, not a speed check. */
	tcase_set_timeout(tcs, 300);
	tcase_add_test(tcs, test_hundred_thousand_links);
	tcase_add_test(tcs, test_duplicates_among_many_links);
	tcase_add_test(tcs, test_rail_leaf_on_two_rails);
	suite_add_tcase(s, tcs);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(links_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
