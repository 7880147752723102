/*
 * check_gnmi_lldp: LLDP neighbours from decoded gNMI notifications into
 * the link table (gnmi/lldp.h), through the shipped profile's mapper
 * and its hooks, as the collector wires them: JSON containers and
 * per-leaf updates, MAC port ids, several neighbours on a port,
 * deletes, a subscription's sync that no longer lists a neighbour, the
 * refresh that keeps on-change neighbours from ageing out, and a target
 * that stops being collected.
 */
#include "config.h"

#include "gnmi_notif.h"
#include "links.h"
#include "lldp.h"
#include "path.h"
#include "profile.h"
#include "store.h"

#include <check.h>
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
static struct store *st;
static struct gnmi_profile *prof;
static struct gnmi_lldp *G;
static struct gnmi_mapper *M;
static size_t n_unmapped;

static void on_unmapped(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	n_unmapped++;
}

static bool leaf_hook(void *ctx, const struct gnmi_view *v,
		      const struct gnmi_scalar *val)
{
	return gnmi_lldp_leaf(ctx, v, val);
}

static bool delete_hook(void *ctx, const struct gnmi_view *v)
{
	return gnmi_lldp_delete(ctx, v);
}

static const char *top_srcdir(void)
{
	const char *s = getenv("top_srcdir");
	return s && *s ? s : ".";
}

/* leaf0's mapper for profile p, its LLDP leaves and deletes to G, as
 * the collector wires them. */
static struct gnmi_mapper *mapper_for(const struct gnmi_profile *p)
{
	struct gnmi_mapper_opts o = {
		.store = st,
		.owner = store_intern(st, "leaf0"),
		.device = store_intern(st, "leaf0"),
		.interval_ms = 1000,
		.unmapped = on_unmapped,
		.ctx = G,
		.leaf_hook = leaf_hook,
		.delete_hook = delete_hook,
	};
	return gnmi_mapper_new(p, &o);
}

static void setup(void)
{
	char dir[1024], err[512];
	now_ns = 1000 * SEC;
	n_unmapped = 0;
	L = links_new(tclock, NULL);
	struct store_opts so = { 0 };
	st = store_new(&so);
	snprintf(dir, sizeof dir, "%s/etc/profiles", top_srcdir());
	prof = gnmi_profile_load_named(dir, "arista", err, sizeof err);
	ck_assert_msg(prof != NULL, "%s", err);
	G = gnmi_lldp_new(L, "leaf0", "gnmi");
	M = mapper_for(prof);
}

static void teardown(void)
{
	gnmi_mapper_free(M);
	gnmi_lldp_free(G);
	gnmi_profile_free(prof);
	store_free(st);
	links_free(L);
}

/* Applies b through the mapper, frees it, flushes at the test clock. */
static struct gnmi_apply_stats apply(struct notif *b)
{
	struct gnmi_apply_stats s = { 0 };
	gnmi_mapper_apply(M, &b->n, &s);
	nb_free(b);
	gnmi_lldp_flush(G, now_ns);
	return s;
}

static bool peer_is(const char *dev, const char *port, const char *pd,
		    const char *pp)
{
	char d[64], p[64];
	if (!links_peer(L, dev, port, d, sizeof d, p, sizeof p))
		return pd == NULL;
	return pd && strcmp(d, pd) == 0 && strcmp(p, pp) == 0;
}

#define NB "/lldp/interfaces/interface[name=%s]/neighbors/neighbor[id=%s]/state"

/* One neighbour as fabsim's OpenConfig flavours send it: a JSON_IETF
 * container at the neighbour's state. */
static void json_neighbor(struct notif *b, const char *port, const char *id,
			  const char *sys, const char *pid, const char *type)
{
	char path[256], json[512];
	snprintf(path, sizeof path, NB, port, id);
	snprintf(json, sizeof json,
		 "{\"openconfig-lldp:system-name\":\"%s\",\"chassis-id\":"
		 "\"%s\",\"chassis-id-type\":\"MAC_ADDRESS\",\"port-id\":"
		 "\"%s\",\"port-id-type\":\"%s\",\"port-description\":"
		 "\"to %s\"}",
		 sys, id, pid, type, port);
	nb_json(b, path, json);
}

START_TEST(test_json_neighbours_fill_the_link_table)
{
	struct notif *b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet32", "02:00:00:00:00:10", "spine0",
		      "Ethernet1", "INTERFACE_NAME");
	json_neighbor(b, "Ethernet36", "02:00:00:00:00:11", "spine1",
		      "Ethernet1", "openconfig-lldp-types:INTERFACE_NAME");
	/* The rest of the lldp tree is taken, not unmapped. */
	nb_str(b, "/lldp/state/system-name", "leaf0");
	struct gnmi_apply_stats s = apply(b);
	ck_assert_uint_eq(s.unmapped, 0);
	ck_assert_uint_eq(n_unmapped, 0);
	ck_assert_uint_eq(s.mapped, 13);
	ck_assert_uint_eq(gnmi_lldp_count(G), 2);

	ck_assert(peer_is("leaf0", "Ethernet32", "spine0", "Ethernet1"));
	ck_assert(peer_is("spine0", "Ethernet1", "leaf0", "Ethernet32"));
	ck_assert(peer_is("spine1", "Ethernet1", "leaf0", "Ethernet36"));
	struct links_snapshot snap;
	links_snapshot(L, &snap);
	ck_assert_uint_eq(snap.n_links, 2);
	for (size_t i = 0; i < snap.n_links; i++) {
		ck_assert_int_eq(snap.links[i].source, LINKS_SRC_LLDP);
		ck_assert_str_eq(snap.links[i].reporter, "gnmi");
		ck_assert_str_eq(snap.links[i].a_device, "leaf0");
		ck_assert(snap.links[i].resolved);
	}
	uint64_t gen = snap.generation;
	links_snapshot_free(&snap);

	/* The same again changes nothing. */
	b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet32", "02:00:00:00:00:10", "spine0",
		      "Ethernet1", "INTERFACE_NAME");
	apply(b);
	ck_assert_uint_eq(links_generation(L), gen);

	/* Counters of the same target still reach the store. */
	b = nb_new(NULL, NULL, 0);
	nb_json(b, "/interfaces/interface[name=Ethernet32]/state/counters",
		"{\"in-octets\":\"10\"}");
	s = apply(b);
	ck_assert_uint_eq(s.mapped, 1);
}
END_TEST

START_TEST(test_leaf_updates_and_mac_port_ids)
{
	/* Leaf by leaf (PROTO), a host NIC known by its MAC. */
	char path[256];
	struct notif *b = nb_new(NULL, NULL, 0);
	snprintf(path, sizeof path, NB "/system-name", "Ethernet0", "7");
	nb_str(b, path, "host0");
	apply(b);
	/* A name without a port id cannot be placed yet. */
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	b = nb_new(NULL, NULL, 0);
	snprintf(path, sizeof path, NB "/port-id", "Ethernet0", "7");
	nb_str(b, path, "02:1a:2b:3c:4d:5e");
	snprintf(path, sizeof path, NB "/port-id-type", "Ethernet0", "7");
	nb_str(b, path, "openconfig-lldp-types:MAC_ADDRESS");
	apply(b);
	struct links_snapshot snap;
	links_snapshot(L, &snap);
	ck_assert_uint_eq(snap.n_links, 1);
	ck_assert(!snap.links[0].resolved);
	ck_assert_str_eq(snap.links[0].b_device, "host0");
	links_snapshot_free(&snap);
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	ck_assert_int_eq(
	    links_set_nic_mac(L, "host0", "mlx5_0", "02-1A-2B-3C-4D-5E"), 0);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	ck_assert(peer_is("host0", "mlx5_0", "leaf0", "Ethernet0"));
}
END_TEST

START_TEST(test_deletes_and_a_second_neighbour)
{
	struct notif *b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet8", "a", "host1", "mlx5_0", "LOCAL");
	json_neighbor(b, "Ethernet8", "b", "host9", "mlx5_3", "LOCAL");
	json_neighbor(b, "Ethernet12", "c", "host2", "mlx5_0", "LOCAL");
	json_neighbor(b, "Ethernet16", "d", "host3", "mlx5_0", "LOCAL");
	apply(b);
	/* The first neighbour of a port is its link. */
	ck_assert(peer_is("leaf0", "Ethernet8", "host1", "mlx5_0"));

	/* It leaves: the second takes over. */
	b = nb_new(NULL, NULL, 0);
	nb_del(b, "/lldp/interfaces/interface[name=Ethernet8]/neighbors/"
		  "neighbor[id=a]");
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet8", "host9", "mlx5_3"));
	ck_assert(peer_is("host1", "mlx5_0", NULL, NULL));

	/* A deleted port id leaves the neighbour unplaceable. */
	b = nb_new(NULL, NULL, 0);
	char path[256];
	snprintf(path, sizeof path, NB "/port-id", "Ethernet8", "b");
	nb_del(b, path);
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet8", NULL, NULL));

	/* A whole interface, then the whole tree. */
	b = nb_new(NULL, NULL, 0);
	nb_del(b, "/lldp/interfaces/interface[name=Ethernet12]");
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet12", NULL, NULL));
	ck_assert(peer_is("leaf0", "Ethernet16", "host3", "mlx5_0"));
	b = nb_new(NULL, NULL, 0);
	nb_del(b, "/lldp");
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet16", NULL, NULL));
	ck_assert_uint_eq(gnmi_lldp_count(G), 0);
	struct links_snapshot snap;
	links_snapshot(L, &snap);
	ck_assert_uint_eq(snap.n_links, 0);
	links_snapshot_free(&snap);
}
END_TEST

/* One LLDP_ENTRY_TABLE entry as lldp_syncd writes it: strings only. */
static void sonic_entry(char *out, size_t len, const char *sys, const char *pid,
			int subtype)
{
	snprintf(out, len,
		 "{\"lldp_rem_index\":\"1\",\"lldp_rem_chassis_id_subtype\":"
		 "\"4\",\"lldp_rem_chassis_id\":\"02:00:00:00:00:99\","
		 "\"lldp_rem_port_id_subtype\":\"%d\",\"lldp_rem_port_id\":"
		 "\"%s\",\"lldp_rem_port_desc\":\"\",\"lldp_rem_sys_name\":"
		 "\"%s\",\"lldp_rem_sys_cap_enabled\":\"28 00\"}",
		 subtype, pid, sys);
}

/* SONiC's APPL_DB table through the shipped sonic profile's mapper:
 * the table shape (sonic-gnmi's answer to /LLDP_ENTRY_TABLE) and the
 * per-entry one, numeric port id subtypes, an entry deleted, and a
 * resubscription that no longer lists one. */
START_TEST(test_sonic_lldp_entry_table)
{
	char dir[1024], err[512], e0[512], e8[512], e16[512], json[2048];
	snprintf(dir, sizeof dir, "%s/etc/profiles", top_srcdir());
	struct gnmi_profile *sp =
	    gnmi_profile_load_named(dir, "sonic", err, sizeof err);
	ck_assert_msg(sp != NULL, "%s", err);
	gnmi_mapper_free(M);
	M = mapper_for(sp);

	gnmi_lldp_begin_sync(G);
	sonic_entry(e0, sizeof e0, "host0", "02:1a:2b:3c:4d:5e", 3);
	sonic_entry(e8, sizeof e8, "spine0", "Ethernet1/1", 5);
	snprintf(json, sizeof json, "{\"Ethernet0\":%s,\"Ethernet8\":%s}", e0,
		 e8);
	struct notif *b = nb_new(NULL, "APPL_DB", 0);
	nb_json(b, "/LLDP_ENTRY_TABLE", json);
	struct gnmi_apply_stats s = apply(b);
	gnmi_lldp_sync(G);
	gnmi_lldp_flush(G, now_ns);
	ck_assert_uint_eq(s.unmapped, 0);
	ck_assert_uint_eq(n_unmapped, 0);
	ck_assert_uint_eq(gnmi_lldp_count(G), 2);
	ck_assert(peer_is("leaf0", "Ethernet8", "spine0", "Ethernet1/1"));
	/* Subtype 3: a MAC, placed once the NIC's MAC is known. */
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	ck_assert_int_eq(
	    links_set_nic_mac(L, "host0", "mlx5_0", "02:1a:2b:3c:4d:5e"), 0);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));

	/* One entry, as an on-change update of its key. */
	sonic_entry(e16, sizeof e16, "host2", "mlx5_0", 7);
	b = nb_new(NULL, "APPL_DB", 0);
	nb_json(b, "/LLDP_ENTRY_TABLE/Ethernet16", e16);
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet16", "host2", "mlx5_0"));
	/* Its neighbour changes. */
	sonic_entry(e16, sizeof e16, "host3", "mlx5_0", 7);
	b = nb_new(NULL, "APPL_DB", 0);
	nb_json(b, "/LLDP_ENTRY_TABLE/Ethernet16", e16);
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet16", "host3", "mlx5_0"));
	ck_assert(peer_is("host2", "mlx5_0", NULL, NULL));
	/* The entry is deleted. */
	b = nb_new(NULL, "APPL_DB", 0);
	nb_del(b, "/LLDP_ENTRY_TABLE/Ethernet16");
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet16", NULL, NULL));
	ck_assert_uint_eq(gnmi_lldp_count(G), 2);

	/* Resubscribed: the table lists Ethernet8 only. */
	gnmi_lldp_begin_sync(G);
	snprintf(json, sizeof json, "{\"Ethernet8\":%s}", e8);
	b = nb_new(NULL, "APPL_DB", 0);
	nb_json(b, "/LLDP_ENTRY_TABLE", json);
	apply(b);
	gnmi_lldp_sync(G);
	gnmi_lldp_flush(G, now_ns);
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	ck_assert(peer_is("leaf0", "Ethernet8", "spine0", "Ethernet1/1"));
	ck_assert_uint_eq(gnmi_lldp_count(G), 1);
	ck_assert_uint_eq(n_unmapped, 0);
	/* The mapper goes with the fixture; its profile here. */
	gnmi_mapper_free(M);
	M = NULL;
	gnmi_profile_free(sp);
}
END_TEST

START_TEST(test_sync_drops_what_a_new_subscription_no_longer_lists)
{
	gnmi_lldp_begin_sync(G);
	struct notif *b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet0", "a", "host0", "mlx5_0", "LOCAL");
	json_neighbor(b, "Ethernet4", "b", "host1", "mlx5_0", "LOCAL");
	apply(b);
	gnmi_lldp_sync(G);
	gnmi_lldp_flush(G, now_ns);
	ck_assert(peer_is("leaf0", "Ethernet4", "host1", "mlx5_0"));
	/* An on-change update after the sync is kept. */
	b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet8", "c", "host2", "mlx5_0", "LOCAL");
	apply(b);

	/* Reconnected: the new stream lists host0 only. */
	gnmi_lldp_begin_sync(G);
	b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet0", "a", "host0", "mlx5_0", "LOCAL");
	apply(b);
	ck_assert(peer_is("leaf0", "Ethernet4", "host1", "mlx5_0"));
	gnmi_lldp_sync(G);
	gnmi_lldp_flush(G, now_ns);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	ck_assert(peer_is("leaf0", "Ethernet4", NULL, NULL));
	ck_assert(peer_is("leaf0", "Ethernet8", NULL, NULL));
	ck_assert_uint_eq(gnmi_lldp_count(G), 1);
}
END_TEST

START_TEST(test_refresh_keeps_on_change_neighbours_and_free_forgets)
{
	struct notif *b = nb_new(NULL, NULL, 0);
	json_neighbor(b, "Ethernet0", "a", "host0", "mlx5_0", "LOCAL");
	apply(b);
	/* Sent once (on change), then only other leaves for 10 minutes:
	 * the refresh keeps the link from ageing out. */
	for (int i = 0; i < 600; i++) {
		now_ns += SEC;
		gnmi_lldp_flush(G, now_ns);
		links_expire(L, 0, LINKS_DEFAULT_LLDP_TTL_NS);
	}
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	/* Without flushes (the stream is gone) it ages out. */
	now_ns += LINKS_DEFAULT_LLDP_TTL_NS + SEC;
	links_expire(L, 0, LINKS_DEFAULT_LLDP_TTL_NS);
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
	/* And a reconnect's refresh brings it back. */
	now_ns += GNMI_LLDP_REFRESH_NS;
	gnmi_lldp_flush(G, now_ns);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));

	/* The target stops being collected: its links go. */
	gnmi_lldp_free(G);
	G = gnmi_lldp_new(L, "leaf0", "gnmi");
	ck_assert(peer_is("leaf0", "Ethernet0", NULL, NULL));
}
END_TEST

START_TEST(test_escaped_and_malformed_leaves)
{
	char path[256];
	struct notif *b = nb_new(NULL, NULL, 0);
	/* A JSON-escaped system name is unescaped. */
	json_neighbor(b, "Ethernet0", "a", "host\\u0030", "mlx5_0", "LOCAL");
	/* Not a neighbour's state, wildcard keys, a number: taken and
	 * ignored. */
	nb_str(b,
	       "/lldp/interfaces/interface[name=Ethernet4]/neighbors/"
	       "neighbor[id=b]/config/system-name",
	       "x");
	snprintf(path, sizeof path, NB "/system-name", "*", "b");
	nb_str(b, path, "x");
	snprintf(path, sizeof path, NB "/port-id", "Ethernet8", "c");
	Gnmi__TypedValue *v = nb_add(b, path);
	v->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	v->uint_val = 7;
	struct gnmi_apply_stats s = apply(b);
	ck_assert_uint_eq(s.unmapped, 0);
	ck_assert(peer_is("leaf0", "Ethernet0", "host0", "mlx5_0"));
	ck_assert(peer_is("leaf0", "Ethernet4", NULL, NULL));
	ck_assert_uint_eq(gnmi_lldp_count(G), 1);
}
END_TEST

static Suite *lldp_suite(void)
{
	Suite *s = suite_create("gnmi_lldp");
	TCase *tc = tcase_create("lldp");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_json_neighbours_fill_the_link_table);
	tcase_add_test(tc, test_leaf_updates_and_mac_port_ids);
	tcase_add_test(tc, test_deletes_and_a_second_neighbour);
	tcase_add_test(tc,
		       test_sync_drops_what_a_new_subscription_no_longer_lists);
	tcase_add_test(
	    tc, test_refresh_keeps_on_change_neighbours_and_free_forgets);
	tcase_add_test(tc, test_escaped_and_malformed_leaves);
	tcase_add_test(tc, test_sonic_lldp_entry_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lldp_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
