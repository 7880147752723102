/*
 * check_gnmi_maps: profile name maps (maps: in a profile, gnmi/objmap.h)
 * without a network: the loader's syntax and its errors, and the mapper
 * reading a map's fields and resolving counters published per object
 * id through it. The map and PG counters are SONiC's
 * COUNTERS_PG_NAME_MAP and COUNTERS:oid:0x… hashes from
 * tests/data/sonic-counters-db/counters_db.json (sonic-utilities' mock
 * table, see its SOURCE.txt), sent as sonic-gnmi sends whole hashes.
 */
#include "config.h"

#include "gnmi_notif.h"
#include "objmap.h"
#include "path.h"
#include "profile.h"
#include "store.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)
#define T0  (INT64_C(1704067200) * SEC)

static struct store *st;
static store_label dev, owner;
static int64_t fake_real_ns;
static char *reports[64];
static size_t n_reports;
static json_t *db;

static int64_t fake_real(void *ctx)
{
	return *(int64_t *)ctx;
}

static const char *top_srcdir(void)
{
	const char *top = getenv("top_srcdir");
	return top && *top ? top : ".";
}

static void setup(void)
{
	struct store_opts o = { .real_ns = fake_real,
				.clock_ctx = &fake_real_ns };
	fake_real_ns = T0 + 500 * SEC;
	st = store_new(&o);
	dev = store_intern(st, "leaf1");
	owner = store_intern(st, "target-leaf1");
	n_reports = 0;
	char path[1024];
	json_error_t je;
	snprintf(path, sizeof path,
		 "%s/tests/data/sonic-counters-db/counters_db.json",
		 top_srcdir());
	db = json_load_file(path, 0, &je);
	ck_assert_msg(db != NULL, "%s: %s", path, je.text);
}

static void teardown(void)
{
	for (size_t i = 0; i < n_reports; i++)
		free(reports[i]);
	json_decref(db);
	store_free(st);
}

static void on_unmapped(void *ctx, const char *path)
{
	(void)ctx;
	if (n_reports < 64)
		reports[n_reports++] = strdup(path);
}

static struct gnmi_profile *load_sonic(void)
{
	char dir[1024], err[512];
	snprintf(dir, sizeof dir, "%s/etc/profiles", top_srcdir());
	struct gnmi_profile *p =
	    gnmi_profile_load_named(dir, "sonic", err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

static struct gnmi_mapper *mapper(const struct gnmi_profile *p,
				  struct gnmi_objmap *om)
{
	struct gnmi_mapper_opts o = { .store = st,
				      .owner = owner,
				      .device = dev,
				      .interval_ms = 10000,
				      .unmapped = on_unmapped,
				      .objmap = om };
	return gnmi_mapper_new(p, &o);
}

static struct gnmi_apply_stats apply_json(struct gnmi_mapper *m,
					  const char *path, const char *json,
					  int64_t ts)
{
	struct gnmi_apply_stats s = { 0 };
	struct notif *b = nb_new(NULL, "COUNTERS_DB", ts);
	nb_json(b, path, json);
	gnmi_mapper_apply(m, &b->n, &s);
	nb_free(b);
	return s;
}

static char *dump(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Sends the fixture's COUNTERS_PG_NAME_MAP whole. */
static struct gnmi_apply_stats send_map(struct gnmi_mapper *m)
{
	char *s = dump(json_object_get(db, "COUNTERS_PG_NAME_MAP"));
	struct gnmi_apply_stats r =
	    apply_json(m, "COUNTERS_PG_NAME_MAP", s, T0);
	free(s);
	return r;
}

/* Sends the fixture's hash of PG oid with its drop counter plus add,
 * and a watermark field, at ts. */
static struct gnmi_apply_stats send_pg(struct gnmi_mapper *m, const char *oid,
				       uint64_t add, int64_t ts)
{
	char key[128], path[128], json[256];
	snprintf(key, sizeof key, "COUNTERS:%s", oid);
	const json_t *h = json_object_get(db, key);
	ck_assert_ptr_nonnull(h);
	const char *v = json_string_value(json_object_get(
	    h, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"));
	ck_assert_ptr_nonnull(v);
	snprintf(json, sizeof json,
		 "{\"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS\":"
		 "\"%llu\",\"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_"
		 "WATERMARK_BYTES\":\"4096\"}",
		 (unsigned long long)(strtoull(v, NULL, 10) + add));
	snprintf(path, sizeof path, "COUNTERS/%s", oid);
	return apply_json(m, path, json, ts);
}

static bool find(const char *port, uint32_t prio, struct store_sample *out)
{
	struct store_key k = { .device = dev,
			       .port = store_intern(st, port),
			       .sub = prio,
			       .counter = (uint16_t)FM_C_PG_DROPS };
	store_handle h = store_lookup(st, &k);
	return h && store_read(st, store_handle_slot(h), out) == 0 &&
	       out->has_value;
}

/*
 * Loading.
 */

START_TEST(test_sonic_profile_declares_the_pg_map)
{
	struct gnmi_profile *p = load_sonic();
	ck_assert_uint_eq(gnmi_profile_maps(p), 1);
	const struct cfg_gnmi_sub *sub, *obj;
	ck_assert_str_eq(gnmi_profile_map_info(p, 0, &sub, &obj), "pg");
	ck_assert_str_eq(sub->path, "/COUNTERS_PG_NAME_MAP");
	ck_assert_int_eq(sub->mode, CFG_SUB_ON_CHANGE);
	ck_assert_str_eq(obj->path, "/COUNTERS/{pg}");
	ck_assert_int_eq(obj->mode, CFG_SUB_SAMPLE);
	ck_assert_uint_eq(obj->sample_interval_ns, 10 * SEC);
	ck_assert_ptr_null(gnmi_profile_map_info(p, 1, NULL, NULL));
	/* The object path is built element by element: the id's ':'
	 * stays inside one element. */
	struct gnmi_path *gp =
	    gnmi_profile_map_object_path(p, 0, "oid:0x1a0000000003a2");
	ck_assert_uint_eq(gp->n_elem, 2);
	ck_assert_str_eq(gp->elem[0].name, "COUNTERS");
	ck_assert_str_eq(gp->elem[1].name, "oid:0x1a0000000003a2");
	ck_assert_ptr_null(gp->origin);
	gnmi_path_clear(gp);
	free(gp);
	gnmi_profile_free(p);
}
END_TEST

#define HEAD                                                \
	"name: t\n"                                         \
	"maps:\n"                                           \
	"  - name: pg\n"                                    \
	"    key: \"{port}:{priority}\"\n"                  \
	"    subscription: {path: /MAP, mode: on_change}\n" \
	"    objects:\n"                                    \
	"      path: /C/{pg}\n"                             \
	"      sample_interval: 10s\n"

static const struct {
	const char *yaml, *want;
} bad[] = {
	{ "name: t\nmaps:\n  - name: pg\n    kye: \"{port}\"\n",
	  "t.yaml:4:5: maps[0].kye: unknown key (did you mean \"key\"?)" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}\"\n"
	  "    subscription: {path: /MAP}\n",
	  "t.yaml:3:5: maps[0]: missing required key \"objects\"" },
	{ HEAD "  - name: pg\n    key: \"{port}\"\n"
	       "    subscription: {path: /MAP2}\n"
	       "    objects:\n      path: /D/{pg}\n"
	       "mappings:\n  - {path: /X, ignore: true}\n",
	  "t.yaml:9:11: maps[1].name: duplicate map \"pg\"" },
	{ "name: t\nmaps:\n  - name: port\n",
	  "t.yaml:3:11: maps[0].name: \"port\" is a capture's name" },
	{ "name: t\nmaps:\n  - name: Pg\n    key: \"{port}\"\n",
	  "t.yaml:3:11: maps[0].name: use lowercase letters" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"Ethernet:x\"\n",
	  "t.yaml:4:10: maps[0].key: the key must capture" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}:{port}\"\n",
	  "t.yaml:4:10: maps[0].key: {port} is captured more than once" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}\"\n"
	  "    subscription: {path: /MAP/*}\n",
	  "t.yaml:5:19: maps[0].subscription: path /MAP/*: a map's path is "
	  "a fixed path" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}\"\n"
	  "    subscription: {path: /MAP}\n"
	  "    objects: {path: /C/x}\n",
	  "t.yaml:6:14: maps[0].objects: path /C/x: an objects path has no "
	  "'*' and exactly one element {pg}" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}\"\n"
	  "    subscription: {path: /MAP, mood: sample}\n",
	  "t.yaml:5:32: maps[0].subscription.mood: unknown key (did you "
	  "mean \"mode\"?)" },
	{ HEAD "mappings:\n  - path: /C/x{pg}/D\n    counter: pg_drops\n",
	  "t.yaml:10:11: mappings[0].path: \"x{pg}\": {pg} names a map's "
	  "object: it must be a whole element" },
	{ HEAD "mappings:\n  - path: /C/{pgx}/D\n    counter: pg_drops\n",
	  "t.yaml:10:11: mappings[0].path: \"{pgx}\": unknown capture "
	  "{pgx} (expected {port}, {priority}, {queue} or a map's {name})" },
	{ "name: t\nmaps:\n  - name: pg\n    key: \"{port}\"\n"
	  "    subscription: {path: /MAP}\n"
	  "    objects:\n      path: /C/{pg}\n"
	  "mappings:\n  - path: /C/{pg}/D\n    counter: pg_drops\n",
	  "t.yaml:9:11: mappings[0].path: counter pg_drops is per "
	  "priority: capture {priority} or set priority" },
	{ HEAD "mappings:\n  - path: /C/{pg}/{port}\n    counter: pg_drops\n",
	  "t.yaml:10:11: mappings[0].path: {port} is captured more than "
	  "once" },
	{ "name: t\nmaps: 3\nmappings:\n  - {path: /X, ignore: true}\n",
	  "t.yaml:2:7: maps: expected a list of maps" },
};

static struct gnmi_profile *load_text(const char *yaml, char *err,
				      size_t errlen)
{
	char raw[512];
	struct gnmi_profile *p = gnmi_profile_load_buffer(
	    "t.yaml", yaml, strlen(yaml), raw, sizeof raw);
	snprintf(err, errlen, "%s", raw);
	return p;
}

START_TEST(test_map_errors_name_file_line_and_column)
{
	char err[512];
	struct gnmi_profile *p = load_text(bad[_i].yaml, err, sizeof err);
	ck_assert_msg(p == NULL, "loaded:\n%s", bad[_i].yaml);
	ck_assert_msg(strncmp(err, bad[_i].want, strlen(bad[_i].want)) == 0,
		      "got  \"%s\"\nwant \"%s...\"", err, bad[_i].want);
}
END_TEST

START_TEST(test_a_map_may_give_any_capture_and_patterns_use_it)
{
	char err[512];
	struct gnmi_profile *p =
	    load_text(HEAD "mappings:\n"
			   "  - path: /C/{pg}/DROPS\n    counter: pg_drops\n"
			   "  - path: /C/{pg}/*\n    ignore: true\n",
		      err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(gnmi_profile_maps(p), 1);
	gnmi_profile_free(p);
}
END_TEST

/*
 * Mapping.
 */

START_TEST(test_pg_drops_resolve_through_the_map_with_rates)
{
	struct gnmi_profile *p = load_sonic();
	struct gnmi_objmap *om = gnmi_objmap_new(gnmi_profile_maps(p));
	struct gnmi_mapper *m = mapper(p, om);
	struct gnmi_apply_stats s = send_map(m);
	ck_assert_uint_eq(s.mapped, 24);
	ck_assert_uint_eq(s.rejected, 0);
	ck_assert_uint_eq(gnmi_objmap_size(om, 0), 24);
	size_t n;
	const char *const *ids = gnmi_objmap_objects(om, 0, &n);
	ck_assert_uint_eq(n, 24);
	ck_assert_str_eq(ids[0], "oid:0x1a00000000034f");
	/* Ethernet8:3 is oid:0x1a0000000003a2, 103 drops in the table. */
	s = send_pg(m, "oid:0x1a0000000003a2", 0, T0);
	/* The drops; the watermark is ignored (counted, not reported). */
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(s.unmapped, 1);
	s = send_pg(m, "oid:0x1a0000000003a2", 50, T0 + 10 * SEC);
	struct store_sample v;
	ck_assert(find("Ethernet8", 3, &v));
	ck_assert(fabs(v.value - 153) < 1e-9);
	ck_assert(v.has_rate);
	ck_assert(fabs(v.rate - 5.0) < 1e-9);
	/* Ethernet0:7 is 807 on priority 7; nothing went to 3. */
	send_pg(m, "oid:0x1a000000000356", 0, T0);
	ck_assert(find("Ethernet0", 7, &v));
	ck_assert(fabs(v.value - 807) < 1e-9);
	ck_assert(!find("Ethernet0", 3, &v));
	ck_assert_uint_eq(n_reports, 0);
	struct gnmi_mapper_stats ms;
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.map_fields, 24);
	gnmi_mapper_free(m);
	gnmi_objmap_unref(om);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_malformed_map_fields_are_rejected_the_rest_work)
{
	struct gnmi_profile *p = load_sonic();
	struct gnmi_objmap *om = gnmi_objmap_new(1);
	struct gnmi_mapper *m = mapper(p, om);
	struct gnmi_apply_stats s =
	    apply_json(m, "COUNTERS_PG_NAME_MAP",
		       "{\"Ethernet0\":\"oid:0x1\",\"Ethernet0:x\":\"oid:0x2\","
		       "\":3\":\"oid:0x3\",\"Ethernet0:9\":\"oid:0x4\","
		       "\"Ethernet0:4\":17,\"Ethernet0:5\":\"\","
		       "\"Ethernet4:3\":\"oid:0x1a00000000037a\"}",
		       T0);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(s.rejected, 6);
	ck_assert_uint_eq(s.map_rejected, 6);
	ck_assert_uint_eq(gnmi_objmap_size(om, 0), 1);
	send_pg(m, "oid:0x1a00000000037a", 0, T0);
	struct store_sample v;
	ck_assert(find("Ethernet4", 3, &v));
	ck_assert(fabs(v.value - 403) < 1e-9);
	struct gnmi_mapper_stats ms;
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.map_rejected, 6);
	gnmi_mapper_free(m);
	gnmi_objmap_unref(om);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_unknown_object_is_unmapped_once_until_the_map_names_it)
{
	struct gnmi_profile *p = load_sonic();
	struct gnmi_objmap *om = gnmi_objmap_new(1);
	struct gnmi_mapper *m = mapper(p, om);
	apply_json(m, "COUNTERS_PG_NAME_MAP",
		   "{\"Ethernet4:3\":\"oid:0x1a00000000037a\"}", T0);
	struct gnmi_apply_stats s = send_pg(m, "oid:0x1a0000000003a2", 0, T0);
	ck_assert_uint_eq(s.unmapped, 2);
	s = send_pg(m, "oid:0x1a0000000003a2", 5, T0 + 10 * SEC);
	ck_assert_uint_eq(s.unmapped, 2);
	ck_assert_uint_eq(n_reports, 2); /* each path once */
	ck_assert_str_eq(reports[0],
			 "/COUNTERS/oid:0x1a0000000003a2/"
			 "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS");
	struct store_sample v;
	ck_assert(!find("Ethernet8", 3, &v));
	/* The map learns it: the cached miss is matched again. */
	uint64_t sg = gnmi_objmap_set_gen(om);
	apply_json(m, "COUNTERS_PG_NAME_MAP",
		   "{\"Ethernet8:3\":\"oid:0x1a0000000003a2\"}", T0);
	ck_assert_uint_gt(gnmi_objmap_set_gen(om), sg);
	s = send_pg(m, "oid:0x1a0000000003a2", 9, T0 + 20 * SEC);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(s.unmapped, 1); /* the ignored watermark */
	ck_assert(find("Ethernet8", 3, &v));
	ck_assert(fabs(v.value - 112) < 1e-9);
	ck_assert_uint_eq(n_reports, 2);
	gnmi_mapper_free(m);
	gnmi_objmap_unref(om);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_set_generation_moves_only_when_the_ids_change)
{
	struct gnmi_profile *p = load_sonic();
	struct gnmi_objmap *om = gnmi_objmap_new(1);
	struct gnmi_mapper *m = mapper(p, om);
	send_map(m);
	uint64_t sg = gnmi_objmap_set_gen(om), g = gnmi_objmap_gen(om);
	send_map(m); /* the same map again (a SAMPLE or a resync) */
	ck_assert_uint_eq(gnmi_objmap_set_gen(om), sg);
	ck_assert_uint_eq(gnmi_objmap_gen(om), g);
	/* A PG moves to another port: labels change, ids do not. */
	apply_json(m, "COUNTERS_PG_NAME_MAP",
		   "{\"Ethernet12:3\":\"oid:0x1a0000000003a2\"}", T0);
	ck_assert_uint_gt(gnmi_objmap_gen(om), g);
	/* (Ethernet8:3 still names it too: the set is the same.) */
	ck_assert_uint_eq(gnmi_objmap_set_gen(om), sg);
	/* A new PG: a new id. */
	apply_json(m, "COUNTERS_PG_NAME_MAP",
		   "{\"Ethernet12:4\":\"oid:0x1a0000000004a0\"}", T0);
	ck_assert_uint_gt(gnmi_objmap_set_gen(om), sg);
	size_t n;
	gnmi_objmap_objects(om, 0, &n);
	ck_assert_uint_eq(n, 25);
	/* Deletes: one field, then the whole map. */
	struct notif *b = nb_new(NULL, "COUNTERS_DB", T0);
	nb_del(b, "COUNTERS_PG_NAME_MAP/Ethernet12:4");
	gnmi_mapper_apply(m, &b->n, NULL);
	nb_free(b);
	gnmi_objmap_objects(om, 0, &n);
	ck_assert_uint_eq(n, 24);
	b = nb_new(NULL, "COUNTERS_DB", T0);
	nb_del(b, "COUNTERS_PG_NAME_MAP");
	gnmi_mapper_apply(m, &b->n, NULL);
	nb_free(b);
	gnmi_objmap_objects(om, 0, &n);
	ck_assert_uint_eq(n, 0);
	gnmi_mapper_free(m);
	gnmi_objmap_unref(om);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_without_an_objmap_map_leaves_are_unmapped)
{
	struct gnmi_profile *p = load_sonic();
	struct gnmi_mapper *m = mapper(p, NULL);
	struct gnmi_apply_stats s = send_map(m);
	ck_assert_uint_eq(s.mapped, 0);
	ck_assert_uint_eq(s.unmapped, 24);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

static Suite *maps_suite(void)
{
	Suite *s = suite_create("gnmi_maps");
	TCase *tc = tcase_create("maps");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sonic_profile_declares_the_pg_map);
	tcase_add_loop_test(tc, test_map_errors_name_file_line_and_column, 0,
			    (int)(sizeof bad / sizeof bad[0]));
	tcase_add_test(tc, test_a_map_may_give_any_capture_and_patterns_use_it);
	tcase_add_test(tc, test_pg_drops_resolve_through_the_map_with_rates);
	tcase_add_test(tc,
		       test_malformed_map_fields_are_rejected_the_rest_work);
	tcase_add_test(
	    tc, test_unknown_object_is_unmapped_once_until_the_map_names_it);
	tcase_add_test(tc, test_set_generation_moves_only_when_the_ids_change);
	tcase_add_test(tc, test_without_an_objmap_map_leaves_are_unmapped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(maps_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
