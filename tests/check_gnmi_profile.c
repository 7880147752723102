/*
 * check_gnmi_profile: mapping profiles and the per-target mapper.
 *
 * Loading: the shipped profiles load, and bad profiles fail with
 * "file:line:col: key: message". Matching: captures with literal text,
 * globs, keys, origins, file order and ignore entries. Mapping real
 * data through a real store: sonic-gnmi's expected answers
 * (tests/data/sonic-gnmi), gNMI objects built from sonic-utilities'
 * COUNTERS_DB mock (tests/data/sonic-counters-db), and OpenConfig and
 * Arista PROTO leaves, each applied twice to check series, labels,
 * scales and rates. Then unmapped reporting, deletes, the path cache
 * (no new series, resolves or allocations on a second pass), -ESTALE
 * after a withdraw, the cache limit, and a timing loop that prints ns
 * per leaf (never asserted).
 *
 * Fixtures are found through $top_srcdir (set by make check), else ".".
 */
#include "config.h"

#include "gnmi_cfg.h"
#include "gnmi_notif.h"
#include "path.h"
#include "profile.h"
#include "store.h"
#include "value.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)
/* A plausible source timestamp: 2024-01-01T00:00:00Z. */
#define T0 (INT64_C(1704067200) * SEC)

static struct store *st;
static store_label dev, owner;
static int64_t fake_real_ns;

#define MAX_REPORTS 512
static char *reports[MAX_REPORTS];
static size_t n_reports;

static int64_t fake_real(void *ctx)
{
	return *(int64_t *)ctx;
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
}

static void teardown(void)
{
	for (size_t i = 0; i < n_reports; i++)
		free(reports[i]);
	n_reports = 0;
	store_free(st);
	st = NULL;
}

static void on_unmapped(void *ctx, const char *path)
{
	(void)ctx;
	if (n_reports < MAX_REPORTS)
		reports[n_reports++] = strdup(path);
}

static size_t reports_of(const char *path)
{
	size_t n = 0;
	for (size_t i = 0; i < n_reports; i++)
		n += strcmp(reports[i], path) == 0;
	return n;
}

static const char *top_srcdir(void)
{
	const char *top = getenv("top_srcdir");
	return top && *top ? top : ".";
}

static char *read_fixture(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", top_srcdir(), rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static struct gnmi_profile *load_shipped(const char *name)
{
	char dir[1024], err[512];
	snprintf(dir, sizeof dir, "%s/etc/profiles", top_srcdir());
	struct gnmi_profile *p =
	    gnmi_profile_load_named(dir, name, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	return p;
}

/* Writes yaml to a temporary file and loads it; err gets the message
 * with the file name replaced by "t.yaml". */
static struct gnmi_profile *load_text(const char *yaml, char *err,
				      size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char path[512], raw[512];
	snprintf(path, sizeof path, "%s/gprofXXXXXX.yaml",
		 tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemps(path, 5);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	struct gnmi_profile *p = gnmi_profile_load(path, raw, sizeof raw);
	unlink(path);
	size_t plen = strlen(path);
	if (strncmp(raw, path, plen) == 0)
		snprintf(err, errlen, "t.yaml%.480s", raw + plen);
	else
		snprintf(err, errlen, "%.500s", raw);
	return p;
}

static struct gnmi_mapper *mapper(const struct gnmi_profile *p)
{
	struct gnmi_mapper_opts o = { .store = st,
				      .owner = owner,
				      .device = dev,
				      .interval_ms = 1000,
				      .unmapped = on_unmapped };
	return gnmi_mapper_new(p, &o);
}

static struct gnmi_apply_stats apply(struct gnmi_mapper *m, struct notif *b)
{
	struct gnmi_apply_stats s = { 0 };
	gnmi_mapper_apply(m, &b->n, &s);
	return s;
}

/* Applies one JSON object at path (prefix target COUNTERS_DB). */
static struct gnmi_apply_stats apply_json(struct gnmi_mapper *m,
					  const char *path, const char *json,
					  int64_t ts)
{
	struct notif *b = nb_new(NULL, "COUNTERS_DB", ts);
	nb_json(b, path, json);
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	return s;
}

/*
 * Reading the store.
 */

static bool find(const char *port, enum fm_counter c, uint32_t sub,
		 struct store_sample *out)
{
	struct store_key k = { .device = dev,
			       .port = store_intern(st, port),
			       .sub = sub,
			       .counter = (uint16_t)c };
	store_handle h = store_lookup(st, &k);
	if (!h)
		return false;
	return store_read(st, store_handle_slot(h), out) == 0;
}

static uint32_t q(const char *name)
{
	return store_intern(st, name);
}

static struct store_sample must(const char *port, enum fm_counter c,
				uint32_t sub)
{
	struct store_sample s;
	ck_assert_msg(find(port, c, sub, &s), "no series %s %s/%u", port,
		      fm_counter_info(c)->name, sub);
	return s;
}

static uint64_t series_count(void)
{
	struct store_stats s;
	store_get_stats(st, &s);
	return s.series;
}

/*
 * Loading.
 */

START_TEST(test_shipped_profiles_load)
{
	static const char *const names[] = { "openconfig", "sonic", "arista" };
	for (size_t i = 0; i < 3; i++) {
		struct gnmi_profile *p = load_shipped(names[i]);
		ck_assert_str_eq(gnmi_profile_name(p), names[i]);
		size_t n;
		const char *target;
		const struct cfg_gnmi_sub *subs =
		    gnmi_profile_subscriptions(p, &n, &target);
		ck_assert_uint_ge(n, 3);
		ck_assert_uint_gt(gnmi_profile_mappings(p), 10);
		for (size_t j = 0; j < n; j++)
			ck_assert(subs[j].path[0] == '/');
		if (i == 1) {
			ck_assert_str_eq(target, "COUNTERS_DB");
			ck_assert_str_eq(subs[0].path, "/COUNTERS/Ethernet*");
			ck_assert_int_eq(subs[0].mode, CFG_SUB_SAMPLE);
			ck_assert_uint_eq(subs[0].sample_interval_ns, SEC);
		} else {
			ck_assert_str_eq(target, "");
		}
		gnmi_profile_free(p);
	}
}
END_TEST

START_TEST(test_load_named_rejects_names_that_are_paths)
{
	char err[256];
	ck_assert_ptr_null(
	    gnmi_profile_load_named("/etc", "../passwd", err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "profile name"));
	ck_assert_ptr_null(
	    gnmi_profile_load_named("/nonexistent", "sonic", err, sizeof err));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/sonic.yaml: cannot "
					  "open"));
	gnmi_profile_free(NULL);
}
END_TEST

#define HEAD "name: t\nmappings:\n"

static const struct bad_case {
	const char *what;
	const char *yaml;
	const char *want; /* a substring of the message after "t.yaml" */
} bad_cases[] = {
	{ "unknown counter, with a suggestion",
	  HEAD "  - path: /a[name={port}]/b\n    counter: pfc_rx_frame\n",
	  ":4:14: mappings[0].counter: unknown counter \"pfc_rx_frame\" (did "
	  "you mean \"pfc_rx_frames\"?)" },
	{ "unknown capture",
	  HEAD "  - path: /a[name={port}]/SAI_{prio}_RX\n    counter: "
	       "bytes_rx\n",
	  ":3:11: mappings[0].path: \"SAI_{prio}_RX\": unknown capture "
	  "{prio}" },
	{ "unterminated capture",
	  HEAD "  - path: /a/{port\n    counter: bytes_rx\n",
	  ":3:11: mappings[0].path: \"{port\": '{' without '}'" },
	{ "priority on a per-port counter",
	  HEAD "  - path: /a[name={port}]/p{priority}\n    counter: bytes_rx\n",
	  ":3:11: mappings[0].path: counter bytes_rx is not per priority: it "
	  "cannot take {priority}" },
	{ "queue on a per-priority counter",
	  HEAD "  - path: /a[name={port}]/p{priority}/{queue}\n    counter: "
	       "pfc_rx_frames\n",
	  "counter pfc_rx_frames is not per queue: it cannot take {queue}" },
	{ "no port capture", HEAD "  - path: /a/b\n    counter: bytes_rx\n",
	  ":3:11: mappings[0].path: the pattern must capture {port}" },
	{ "no port capture in the second pattern of a list",
	  HEAD "  - path:\n      - /a/{port}\n      - /b\n    counter: "
	       "bytes_rx\n",
	  ":5:9: mappings[0].path[1]: the pattern must capture {port}" },
	{ "per-priority counter without a priority",
	  HEAD "  - path: /a/{port}\n    counter: pfc_rx_frames\n",
	  "counter pfc_rx_frames is per priority: capture {priority} or set "
	  "priority" },
	{ "per-queue counter without a queue",
	  HEAD "  - path: /a/{port}\n    counter: ecn_marked\n",
	  "counter ecn_marked is per queue: capture {queue} or set queue" },
	{ "scale that is not a number",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: abc\n",
	  ":5:12: mappings[0].scale: \"abc\" is not a number" },
	{ "zero scale",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: 0\n",
	  ":5:12: mappings[0].scale: must be a positive number, not \"0\"" },
	{ "negative scale",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: -1e-6\n",
	  "mappings[0].scale: must be a positive number" },
	{ "infinite scale",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: inf\n",
	  "mappings[0].scale: \"inf\" is not a number" },
	{ "scale past a double's range",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: 1e999\n",
	  ":5:12: mappings[0].scale: \"1e999\" is out of range (a number is 0 "
	  "or of magnitude 2.2e-308 to 1.8e+308)" },
	{ "hexadecimal scale",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scale: 0x10\n",
	  "mappings[0].scale: \"0x10\" is not a number" },
	{ "priority out of range",
	  HEAD "  - path: /a/{port}\n    counter: pfc_rx_frames\n    "
	       "priority: 8\n",
	  ":5:15: mappings[0].priority: must be between 0 and 7, not 8" },
	{ "width other than 32 or 64",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    width: 16\n",
	  ":5:12: mappings[0].width: must be 32 or 64, not 16" },
	{ "width on a gauge",
	  HEAD "  - path: /a/{port}\n    counter: link_up\n    width: 32\n",
	  "mappings[0].width: applies to counters only (link_up is a gauge)" },
	{ "values on a counter",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    values: {UP: "
	       "1}\n",
	  "mappings[0].values: applies to gauges only (bytes_rx is a "
	  "counter)" },
	{ "values that are not numbers",
	  HEAD "  - path: /a/{port}\n    counter: link_up\n    values: {UP: "
	       "yes}\n",
	  "mappings[0].values.UP: \"yes\" is not a number" },
	{ "ignore entry with a counter",
	  HEAD "  - path: /a/{port}\n    ignore: true\n    counter: bytes_rx\n",
	  ":5:5: mappings[0].counter: an ignore entry takes only path and "
	  "target" },
	{ "an empty target",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    target: \"\"\n",
	  ":5:13: mappings[0].target: must not be empty" },
	{ "a target that is not a string",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    target: [x]\n",
	  "mappings[0].target: " },
	{ "unknown key, with a suggestion",
	  HEAD "  - path: /a/{port}\n    counter: bytes_rx\n    scael: 1\n",
	  ":5:5: mappings[0].scael: unknown key (did you mean \"scale\"?)" },
	{ "captures without text between them",
	  HEAD "  - path: /a/{port}{queue}\n    counter: ecn_marked\n",
	  "\"{port}{queue}\": captures and '*' need literal text between "
	  "them" },
	{ "a capture twice",
	  HEAD "  - path: /{port}/{port}\n    counter: bytes_rx\n",
	  "mappings[0].path: {port} is captured more than once" },
	{ "the ... wildcard",
	  HEAD "  - path: /a/.../{port}\n    counter: bytes_rx\n",
	  "\"...\" is not supported in patterns" },
	{ "a path that does not parse",
	  HEAD "  - path: /a[name={port}\n    counter: bytes_rx\n",
	  ":3:11: mappings[0].path: column" },
	{ "no mappings", "name: t\n",
	  ":1:1: missing required key \"mappings\"" },
	{ "an empty mapping list", "name: t\nmappings: []\n",
	  ":2:11: mappings: expected a non-empty list of mappings" },
	{ "a bad profile name", "name: a b\nmappings: []\n",
	  ":1:7: name: use letters, digits" },
	{ "a subscription path without '/'",
	  "name: t\nsubscriptions:\n  - path: COUNTERS\nmappings: []\n",
	  ":3:11: subscriptions[0].path: must start with '/'" },
	{ "a subscription path that does not parse",
	  "name: t\nsubscriptions:\n  - path: /a/b[name=*/c\nmappings: []\n",
	  "t.yaml:3:15: subscriptions[0].path: column 5: unterminated key" },
	{ "a bad subscription mode",
	  "name: t\nsubscriptions:\n  - path: /a\n    mode: stream\n",
	  ":4:11: subscriptions[0].mode: expected sample, on_change or "
	  "target_defined, not \"stream\"" },
	{ "a bad sample interval",
	  "name: t\nsubscriptions:\n  - path: /a\n    sample_interval: "
	  "fast\n",
	  "subscriptions[0].sample_interval: \"fast\" is not a duration" },
	{ "YAML syntax", "name: t\nmappings: [\n", "t.yaml:3:1: " },
	{ "anchors", "name: &n t\nmappings: []\n",
	  ":1:7: anchors and aliases are not supported" },
	{ "an empty file", "", "t.yaml: empty profile" },
	{ "an unknown top-level key", "name: t\nmapping: []\n",
	  ":2:1: mapping: unknown key (did you mean \"mappings\"?)" },
};

START_TEST(test_invalid_profiles_fail_with_file_line_col_and_key)
{
	const struct bad_case *c = &bad_cases[_i];
	char err[512];
	struct gnmi_profile *p = load_text(c->yaml, err, sizeof err);
	ck_assert_msg(p == NULL, "%s: loaded", c->what);
	ck_assert_msg(strstr(err, c->want) != NULL,
		      "%s:\n got  \"%s\"\n want \"%s\"", c->what, err, c->want);
	ck_assert_msg(strncmp(err, "t.yaml", 6) == 0, "%s: %s", c->what, err);
}
END_TEST

/*
 * Matching.
 */

static const char match_yaml[] =
    "name: match\n"
    "mappings:\n"
    "  - path: /ports/port[name={port}]/prio/SAI_PFC_{priority}_RX\n"
    "    counter: pfc_rx_frames\n"
    "  - path: /q/{port}:{queue}/pkts\n"
    "    counter: queue_tx_packets\n"
    "  - path: /x/*/{port}/fixed\n"
    "    counter: pfc_tx_frames\n"
    "    priority: 5\n"
    "  - path: /x/*/{port}/fixed\n"
    "    counter: pfc_rx_frames\n"
    "    priority: 6\n"
    "  - path: /ignored/*\n"
    "    ignore: true\n"
    "  - path: openconfig:/oc/port[name={port}]/in\n"
    "    counter: bytes_rx\n"
    "  - path: /glob/Eth*/{port}/x-{queue}-y\n"
    "    counter: queue_drops\n"
    "  - path: /fixedq/{port}\n"
    "    counter: ecn_marked\n"
    "    queue: UC3\n";

START_TEST(test_patterns_capture_with_literal_text_globs_and_keys)
{
	char err[256];
	struct gnmi_profile *p = load_text(match_yaml, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = nb_new(NULL, NULL, T0);
	nb_uint(b, "/ports/port[name=Ethernet1]/prio/SAI_PFC_3_RX", 11);
	/* Keys a pattern does not name are not looked at. */
	nb_uint(b, "/ports/port[name=Ethernet2][unit=0]/prio/SAI_PFC_0_RX", 12);
	nb_uint(b, "/q/Ethernet68:1/pkts", 13);
	/* The shortest port that works: queue "1:periodic". */
	nb_uint(b, "/q/Ethernet68:1:periodic/pkts", 14);
	nb_uint(b, "/x/anything/Ethernet3/fixed", 15);
	nb_uint(b, "/glob/Eth12/Ethernet4/x-7-y", 16);
	nb_uint(b, "/fixedq/Ethernet5", 17);
	nb_uint(b, "openconfig:/oc/port[name=Ethernet6]/in", 18);
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 8);
	ck_assert_uint_eq(s.unmapped, 0);
	ck_assert_uint_eq(must("Ethernet1", FM_C_PFC_RX_FRAMES, 3).raw, 11);
	ck_assert_uint_eq(must("Ethernet2", FM_C_PFC_RX_FRAMES, 0).raw, 12);
	ck_assert_uint_eq(must("Ethernet68", FM_C_QUEUE_TX_PACKETS, q("1")).raw,
			  13);
	ck_assert_uint_eq(
	    must("Ethernet68", FM_C_QUEUE_TX_PACKETS, q("1:periodic")).raw, 14);
	/* The first matching entry wins. */
	ck_assert_uint_eq(must("Ethernet3", FM_C_PFC_TX_FRAMES, 5).raw, 15);
	struct store_sample x;
	ck_assert(!find("Ethernet3", FM_C_PFC_RX_FRAMES, 6, &x));
	ck_assert_uint_eq(must("Ethernet4", FM_C_QUEUE_DROPS, q("7")).raw, 16);
	ck_assert_uint_eq(must("Ethernet5", FM_C_ECN_MARKED, q("UC3")).raw, 17);
	ck_assert_uint_eq(must("Ethernet6", FM_C_BYTES_RX, 0).raw, 18);
	ck_assert_uint_eq(series_count(), 8);

	b = nb_new(NULL, NULL, T0);
	nb_uint(b, "/ports/port/prio/SAI_PFC_3_RX", 1); /* no name key */
	nb_uint(b, "/ports/port[name=Ethernet1]/prio/SAI_PFC_9_RX", 1);
	nb_uint(b, "/ports/port[name=Ethernet1]/prio/SAI_PFC_x_RX", 1);
	nb_uint(b, "/ports/port[name=Ethernet1]/prio/SAI_PFC__RX", 1);
	nb_uint(b, "/ports/port[name=Ethernet1]/prio/SAI_PFC_3_RX/more", 1);
	nb_uint(b, "/q/:1/pkts", 1);		      /* empty port */
	nb_uint(b, "/oc/port[name=Ethernet6]/in", 1); /* no origin */
	nb_uint(b, "/glob/Foo/Ethernet4/x-7-y", 1);
	nb_uint(b, "/ignored/anything", 1);
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 0);
	ck_assert_uint_eq(s.unmapped, 9);
	/* Ignored leaves are not reported. */
	ck_assert_uint_eq(n_reports, 8);
	ck_assert_uint_eq(reports_of("/ports/port[name=Ethernet1]/prio/"
				     "SAI_PFC_9_RX"),
			  1);
	ck_assert_uint_eq(reports_of("/ignored/anything"), 0);
	ck_assert_uint_eq(series_count(), 8);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * SONiC: sonic-gnmi's expected answers.
 */

/* The same JSON object with every string value replaced by value. */
static char *json_with_values(const char *text, const char *value)
{
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);
	ck_assert_msg(o != NULL, "%s", je.text);
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v)
	{
		if (json_is_string(v))
			json_object_set_new(o, k, json_string(value));
	}
	char *out = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return out;
}

/* The decimal string member key of a JSON object, as a number. */
static uint64_t json_u64(const char *text, const char *key)
{
	json_t *o = json_loads(text, 0, NULL);
	const char *v = json_string_value(json_object_get(o, key));
	ck_assert_msg(v != NULL, "no %s", key);
	uint64_t n = strtoull(v, NULL, 10);
	json_decref(o);
	return n;
}

static size_t json_members(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	size_t n = json_object_size(o);
	json_decref(o);
	return n;
}

START_TEST(test_sonic_port_object_maps_pfc_per_priority_and_port_counters)
{
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper *m = mapper(p);
	char *zero =
	    read_fixture("tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt");
	char *hundred = json_with_values(zero, "100");
	size_t fields = json_members(zero);

	struct gnmi_apply_stats s1 =
	    apply_json(m, "/COUNTERS/Ethernet68", zero, T0);
	/* 8 priorities x (rx, tx, on2off) + 8 port counters. */
	ck_assert_uint_eq(s1.mapped, 32);
	ck_assert_uint_eq(s1.mapped + s1.unmapped, fields);
	ck_assert_uint_eq(s1.rejected, 0);
	ck_assert_uint_eq(s1.bad, 0);
	ck_assert_uint_eq(series_count(), 32);
	size_t reported = n_reports;
	ck_assert_uint_gt(reported, 0);
	ck_assert_uint_eq(reports_of("/COUNTERS/Ethernet68/"
				     "SAI_PORT_STAT_IF_IN_NON_UCAST_PKTS"),
			  1);
	/* Size histograms and L3 counters are ignored, not reported. */
	ck_assert_uint_eq(reports_of("/COUNTERS/Ethernet68/"
				     "SAI_PORT_STAT_ETHER_IN_PKTS_64_OCTETS"),
			  0);

	struct gnmi_apply_stats s2 =
	    apply_json(m, "/COUNTERS/Ethernet68", hundred, T0 + 2 * SEC);
	ck_assert_uint_eq(s2.mapped, 32);
	ck_assert_uint_eq(n_reports, reported);
	ck_assert_uint_eq(series_count(), 32);
	for (uint32_t prio = 0; prio < 8; prio++) {
		char field[64];
		snprintf(field, sizeof field, "SAI_PORT_STAT_PFC_%u_RX_PKTS",
			 prio);
		/* The fixture has SAI_PORT_STAT_PFC_7_RX_PKTS = "2". */
		double first = (double)json_u64(zero, field);
		struct store_sample x =
		    must("Ethernet68", FM_C_PFC_RX_FRAMES, prio);
		ck_assert(x.has_rate);
		ck_assert_double_eq_tol(x.rate, (100 - first) / 2, 1e-9);
		ck_assert_uint_eq(x.raw, 100);
		x = must("Ethernet68", FM_C_PFC_TX_FRAMES, prio);
		ck_assert_double_eq_tol(x.rate, 50, 1e-9);
		x = must("Ethernet68", FM_C_PFC_RX_TRANSITIONS, prio);
		ck_assert_double_eq_tol(x.rate, 50, 1e-9);
	}
	static const enum fm_counter port_counters[] = {
		FM_C_DISCARDS_RX, FM_C_DISCARDS_TX, FM_C_ERRORS_RX,
		FM_C_ERRORS_TX,	  FM_C_BYTES_RX,    FM_C_BYTES_TX,
		FM_C_PACKETS_RX,  FM_C_PACKETS_TX,
	};
	for (size_t i = 0; i < 8; i++) {
		struct store_sample x = must("Ethernet68", port_counters[i], 0);
		ck_assert(x.has_rate);
		ck_assert_double_eq_tol(x.rate, 50, 1e-9);
		ck_assert_int_eq(x.ts_ns, T0 + 2 * SEC);
		ck_assert_uint_eq(x.owner, owner);
	}
	free(zero);
	free(hundred);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_sonic_queues_and_watchdog_take_port_and_index_from_the_key)
{
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper *m = mapper(p);
	char *queues = read_fixture(
	    "tests/data/sonic-gnmi/COUNTERS_Ethernet68_Queues.txt");
	char *wild = read_fixture(
	    "tests/data/sonic-gnmi/COUNTERS_Ethernet_wildcard_Queues.txt");
	char *pfcwd =
	    read_fixture("tests/data/sonic-gnmi/COUNTERS_Ethernet68_Pfcwd.txt");

	struct gnmi_apply_stats s =
	    apply_json(m, "/COUNTERS/Ethernet68/Queues", queues, T0);
	ck_assert_uint_eq(s.rejected, 0);
	ck_assert_uint_gt(s.mapped, 0);
	struct store_sample x =
	    must("Ethernet68", FM_C_QUEUE_WATERMARK, q("1"));
	ck_assert_double_eq(x.value, 64);
	must("Ethernet68", FM_C_QUEUE_TX_PACKETS, q("1"));
	must("Ethernet68", FM_C_QUEUE_DROPS, q("1"));
	must("Ethernet68", FM_C_QUEUE_TX_BYTES, q("3"));
	must("Ethernet68", FM_C_QUEUE_OCCUPANCY, q("3"));

	/* The wildcard answer: ports from the keys, periodic ignored. */
	s = apply_json(m, "/COUNTERS/Ethernet*/Queues", wild, T0 + SEC);
	ck_assert_uint_eq(s.rejected, 0);
	x = must("Ethernet7", FM_C_QUEUE_WATERMARK, q("5"));
	ck_assert_double_eq(x.value, 100);
	x = must("Ethernet68", FM_C_QUEUE_WATERMARK, q("1"));
	ck_assert_double_eq(x.value, 64);
	ck_assert(
	    !find("Ethernet68", FM_C_QUEUE_WATERMARK, q("1:periodic"), &x));
	ck_assert(!find("Ethernet*", FM_C_QUEUE_WATERMARK, q("1"), &x));
	ck_assert_uint_eq(n_reports, 0);

	s = apply_json(m, "/COUNTERS/Ethernet68/Pfcwd", pfcwd, T0 + SEC);
	ck_assert_uint_eq(s.rejected, 0);
	/* Per lossless queue: detected, restored, status. */
	ck_assert_uint_eq(s.mapped, 6);
	for (uint32_t prio = 3; prio <= 4; prio++) {
		x = must("Ethernet68", FM_C_PFC_WD_STORMED, prio);
		ck_assert(x.has_value);
		ck_assert_double_eq(x.value, 0);
		must("Ethernet68", FM_C_PFC_WD_STORMS, prio);
		must("Ethernet68", FM_C_PFC_WD_RESTORES, prio);
	}
	ck_assert_uint_eq(n_reports, 0);
	free(queues);
	free(wild);
	free(pfcwd);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * SONiC: gNMI answers built from sonic-utilities' COUNTERS_DB mock.
 */

struct countersdb {
	json_t *db;
	json_t *ports;	/* {"Ethernet0": {port hash}, ...} */
	json_t *queues; /* {"Ethernet0:3": {queue hash}, ...} */
	json_t *pfcwd;	/* the queue hashes that carry PFC_WD_* fields */
};

static void countersdb_load(struct countersdb *c)
{
	json_error_t je;
	char path[1024];
	snprintf(path, sizeof path,
		 "%s/tests/data/sonic-counters-db/counters_db.json",
		 top_srcdir());
	c->db = json_load_file(path, 0, &je);
	ck_assert_msg(c->db != NULL, "%s: %s", path, je.text);
	c->ports = json_object();
	c->queues = json_object();
	c->pfcwd = json_object();
	const char *name;
	json_t *oid;
	char key[128];
	json_object_foreach(json_object_get(c->db, "COUNTERS_PORT_NAME_MAP"),
			    name, oid)
	{
		snprintf(key, sizeof key, "COUNTERS:%s",
			 json_string_value(oid));
		json_t *h = json_object_get(c->db, key);
		ck_assert_ptr_nonnull(h);
		json_object_set(c->ports, name, h);
	}
	json_object_foreach(json_object_get(c->db, "COUNTERS_QUEUE_NAME_MAP"),
			    name, oid)
	{
		snprintf(key, sizeof key, "COUNTERS:%s",
			 json_string_value(oid));
		json_t *h = json_object_get(c->db, key);
		if (!h)
			continue;
		json_object_set(c->queues, name, h);
		if (json_object_get(h, "PFC_WD_STATUS"))
			json_object_set(c->pfcwd, name, h);
	}
	ck_assert_uint_eq(json_object_size(c->ports), 3);
	ck_assert_uint_gt(json_object_size(c->pfcwd), 0);
}

static void countersdb_free(struct countersdb *c)
{
	json_decref(c->db);
	json_decref(c->ports);
	json_decref(c->queues);
	json_decref(c->pfcwd);
}

/* A deep copy of o (two levels) with numeric strings multiplied by k. */
static json_t *scaled(json_t *o, unsigned k)
{
	json_t *out = json_object();
	const char *name;
	json_t *h;
	json_object_foreach(o, name, h)
	{
		json_t *copy = json_object();
		const char *f;
		json_t *v;
		json_object_foreach(h, f, v)
		{
			const char *s = json_string_value(v);
			char *end, buf[32];
			unsigned long long n = s ? strtoull(s, &end, 10) : 0;
			if (s && *s && !*end && k) {
				snprintf(buf, sizeof buf, "%llu", n * k);
				json_object_set_new(copy, f, json_string(buf));
			} else {
				json_object_set(copy, f, v);
			}
		}
		json_object_set_new(out, name, copy);
	}
	return out;
}

static struct gnmi_apply_stats
apply_jobj(struct gnmi_mapper *m, const char *path, json_t *o, int64_t ts)
{
	char *text = json_dumps(o, JSON_COMPACT);
	struct gnmi_apply_stats s = apply_json(m, path, text, ts);
	free(text);
	return s;
}

START_TEST(test_sonic_counters_db_gives_pfc_ecn_and_watchdog_rates)
{
	struct countersdb c;
	countersdb_load(&c);
	/* The mock has no SAI pause durations (only the pfcwd Lua's EST_
	 * estimates): add one so that the µs -> s scale is exercised. */
	const char *name;
	json_t *h;
	json_object_foreach(c.ports, name, h)
	{
		json_object_set_new(h,
				    "SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US",
				    json_string("250000"));
	}
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper *m = mapper(p);

	/* The wildcard shapes: ports nested under their names. */
	json_t *p1 = scaled(c.ports, 1), *p2 = scaled(c.ports, 2);
	json_t *q1 = scaled(c.queues, 1), *q2 = scaled(c.queues, 2);
	json_t *w1 = scaled(c.pfcwd, 1), *w2 = scaled(c.pfcwd, 2);
	struct gnmi_apply_stats s;
	s = apply_jobj(m, "/COUNTERS/Ethernet*", p1, T0);
	ck_assert_uint_eq(s.rejected, 0);
	ck_assert_uint_eq(s.bad, 0);
	/* 3 ports x (8 rx + 8 tx + 1 pause + 6 port counters). */
	ck_assert_uint_eq(s.mapped, 3 * 23);
	s = apply_jobj(m, "/COUNTERS/Ethernet*/Queues", q1, T0);
	ck_assert_uint_eq(s.rejected, 0);
	s = apply_jobj(m, "/COUNTERS/Ethernet*/Pfcwd", w1, T0);
	ck_assert_uint_eq(s.rejected, 0);
	uint64_t series = series_count();

	s = apply_jobj(m, "/COUNTERS/Ethernet*", p2, T0 + SEC);
	ck_assert_uint_eq(s.mapped, 3 * 23);
	apply_jobj(m, "/COUNTERS/Ethernet*/Queues", q2, T0 + SEC);
	apply_jobj(m, "/COUNTERS/Ethernet*/Pfcwd", w2, T0 + SEC);
	ck_assert_uint_eq(series_count(), series);

	/* Doubling every counter over 1 s: the rate is the first value. */
	struct store_sample x = must("Ethernet0", FM_C_PFC_RX_FRAMES, 0);
	ck_assert_uint_eq(x.raw, 2400);
	ck_assert_double_eq_tol(x.rate, 1200, 1e-9);
	x = must("Ethernet0", FM_C_PFC_RX_FRAMES, 3);
	ck_assert_double_eq_tol(x.rate, 203, 1e-9);
	x = must("Ethernet0", FM_C_PFC_TX_FRAMES, 7);
	ck_assert_double_eq_tol(x.rate, 217, 1e-9);
	x = must("Ethernet0", FM_C_DISCARDS_RX, 0);
	ck_assert_double_eq_tol(x.rate, 100, 1e-9);
	x = must("Ethernet0", FM_C_BYTES_TX, 0);
	ck_assert_double_eq_tol(x.rate, 1000, 1e-9);
	/* 250000 µs more in 1 s: paused a quarter of the time. */
	x = must("Ethernet4", FM_C_PFC_RX_PAUSE, 3);
	ck_assert_double_eq_tol(x.rate, 0.25, 1e-12);
	ck_assert_double_eq_tol(x.value, 0.5, 1e-12);

	/* Queues: WRED ECN marks, drops, traffic. */
	x = must("Ethernet0", FM_C_ECN_MARKED, q("3"));
	ck_assert_uint_eq(x.raw, 38);
	ck_assert_double_eq_tol(x.rate, 19, 1e-9);
	x = must("Ethernet4", FM_C_ECN_MARKED, q("3"));
	ck_assert_double_eq_tol(x.rate, 48, 1e-9);
	x = must("Ethernet0", FM_C_QUEUE_DROPS, q("4"));
	ck_assert_double_eq_tol(x.rate, 12, 1e-9);
	x = must("Ethernet0", FM_C_QUEUE_WATERMARK, q("3"));
	ck_assert_double_eq(x.value, 120);

	/* The watchdog: Ethernet0:3 stormed with one detection. */
	x = must("Ethernet0", FM_C_PFC_WD_STORMED, 3);
	ck_assert_double_eq(x.value, 1);
	x = must("Ethernet4", FM_C_PFC_WD_STORMED, 3);
	ck_assert_double_eq(x.value, 0);
	x = must("Ethernet0", FM_C_PFC_WD_STORMS, 3);
	ck_assert_uint_eq(x.raw, 2);
	ck_assert_double_eq_tol(x.rate, 1, 1e-9);
	x = must("Ethernet4", FM_C_PFC_WD_RESTORES, 3);
	ck_assert_double_eq_tol(x.rate, 2, 1e-9);
	x = must("Ethernet0", FM_C_PFC_WD_DROPS_TX, 3);
	ck_assert_double_eq_tol(x.rate, 300, 1e-9);

	json_decref(p1);
	json_decref(p2);
	json_decref(q1);
	json_decref(q2);
	json_decref(w1);
	json_decref(w2);
	countersdb_free(&c);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_sonic_single_port_and_wildcard_shapes_give_the_same_series)
{
	struct countersdb c;
	countersdb_load(&c);
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper *m = mapper(p);
	json_t *one = json_object_get(c.ports, "Ethernet8");
	apply_jobj(m, "/COUNTERS/Ethernet8", one, T0);
	uint64_t series = series_count();
	ck_assert_uint_gt(series, 0);
	json_t *all = json_object();
	json_object_set(all, "Ethernet8", one);
	struct gnmi_apply_stats s =
	    apply_jobj(m, "/COUNTERS/Ethernet*", all, T0 + SEC);
	ck_assert_uint_eq(s.mapped, series);
	ck_assert_uint_eq(series_count(), series);
	json_decref(all);
	countersdb_free(&c);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * SONiC's APPL_DB PORT_TABLE (the sonic profile's second stream): one
 * port's fields as SWSS keeps them, every value a string, the speed in
 * Mb/s.
 */
static const char port_table_fields[] =
    "\"admin_status\":\"up\",\"alias\":\"etp%u\",\"description\":"
    "\"ARISTA01T1:Ethernet1\",\"fec\":\"rs\",\"index\":\"%u\","
    "\"lanes\":\"2304,2305,2306,2307\",\"mtu\":\"9100\","
    "\"oper_status\":\"up\",\"pfc_asym\":\"off\",\"speed\":\"%s\","
    "\"tpid\":\"0x8100\"";
#define PORT_TABLE_FIELDS 11

/* Applies PORT_TABLE JSON at path with prefix target target. */
static struct gnmi_apply_stats apply_appl(struct gnmi_mapper *m,
					  const char *target, const char *path,
					  const char *json, int64_t ts)
{
	struct notif *b = nb_new(NULL, target, ts);
	nb_json(b, path, json);
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	return s;
}

/* The speed becomes link_speed in bytes/s, in both of sonic-gnmi's
 * shapes; the other fields are ignored, not reported. On a stream with
 * another prefix target (COUNTERS_DB's) the same paths map nothing. */
START_TEST(test_sonic_port_table_speed_maps_on_the_appl_db_stream_only)
{
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper_opts o = { .store = st,
				      .owner = owner,
				      .device = dev,
				      .interval_ms = 10000,
				      .unmapped = on_unmapped,
				      .target = "APPL_DB" };
	struct gnmi_mapper *m = gnmi_mapper_new(p, &o);
	o.target = "COUNTERS_DB";
	struct gnmi_mapper *mc = gnmi_mapper_new(p, &o);
	char one[600], f0[512], f8[512], all[1200];
	snprintf(f0, sizeof f0, port_table_fields, 1u, 0u, "100000");
	snprintf(f8, sizeof f8, port_table_fields, 3u, 2u, "400000");
	snprintf(one, sizeof one, "{%s}", f0);
	snprintf(all, sizeof all, "{\"Ethernet0\":{%s},\"Ethernet8\":{%s}}", f0,
		 f8);

	struct gnmi_apply_stats s =
	    apply_appl(mc, "COUNTERS_DB", "/PORT_TABLE/Ethernet0", one, T0);
	ck_assert_uint_eq(s.mapped, 0);
	ck_assert_uint_eq(s.unmapped, PORT_TABLE_FIELDS);
	ck_assert_uint_eq(series_count(), 0);
	ck_assert_uint_eq(reports_of("/PORT_TABLE/Ethernet0/speed"), 1);

	s = apply_appl(m, "APPL_DB", "/PORT_TABLE/Ethernet0", one, T0);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(s.unmapped, PORT_TABLE_FIELDS - 1);
	ck_assert_uint_eq(s.rejected, 0);
	struct store_sample v = must("Ethernet0", FM_C_LINK_SPEED, 0);
	ck_assert_double_eq_tol(v.value, 12.5e9, 1);
	ck_assert_uint_eq(v.interval_ms, 10000);

	s = apply_appl(m, "APPL_DB", "/PORT_TABLE/Ethernet*", all, T0 + SEC);
	ck_assert_uint_eq(s.mapped, 2);
	ck_assert_uint_eq(s.unmapped, 2 * (PORT_TABLE_FIELDS - 1));
	ck_assert_double_eq_tol(must("Ethernet8", FM_C_LINK_SPEED, 0).value,
				50e9, 1);
	ck_assert_uint_eq(series_count(), 2);
	/* Only the COUNTERS_DB stream's speed was reported unmapped. */
	ck_assert_uint_eq(n_reports, PORT_TABLE_FIELDS);
	gnmi_mapper_free(mc);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/* A target on an ignore entry, and entries without one, which apply to
 * every stream. */
START_TEST(test_mapping_target_restricts_ignore_entries_too)
{
	char err[512];
	struct gnmi_profile *p =
	    load_text("name: t\nmappings:\n"
		      "  - path: /T/{port}/n\n    counter: bytes_rx\n"
		      "  - path: /T/*/*\n    ignore: true\n    target: DB_A\n",
		      err, sizeof err);
	ck_assert_msg(p, "%s", err);
	struct gnmi_mapper_opts o = { .store = st,
				      .owner = owner,
				      .device = dev,
				      .interval_ms = 1000,
				      .unmapped = on_unmapped,
				      .target = "DB_A" };
	struct gnmi_mapper *a = gnmi_mapper_new(p, &o);
	o.target = NULL;
	struct gnmi_mapper *none = gnmi_mapper_new(p, &o);
	const char *json = "{\"n\":\"7\",\"x\":\"1\"}";
	struct gnmi_apply_stats s = apply_appl(a, "DB_A", "/T/p1", json, T0);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(reports_of("/T/p1/x"), 0);
	s = apply_appl(none, "", "/T/p2", json, T0);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_uint_eq(reports_of("/T/p2/x"), 1);
	gnmi_mapper_free(none);
	gnmi_mapper_free(a);
	gnmi_profile_free(p);
}
END_TEST

/*
 * OpenConfig and Arista PROTO leaves.
 */

static struct notif *oc_sample(int64_t ts, uint64_t base, const char *oper)
{
	struct notif *b =
	    nb_new("/interfaces/interface[name=Ethernet1]", NULL, ts);
	nb_uint(b, "/state/counters/in-octets", base * 1000);
	nb_uint(b, "/state/counters/out-octets", base * 2000);
	nb_uint(b, "/state/counters/in-pkts", base * 10);
	nb_uint(b, "/state/counters/out-pkts", base * 20);
	nb_uint(b, "/state/counters/in-discards", base);
	nb_uint(b, "/state/counters/out-discards", base * 2);
	nb_uint(b, "/state/counters/in-errors", base * 3);
	nb_uint(b, "/state/counters/out-errors", base * 4);
	nb_uint(b, "/state/counters/in-unicast-pkts", base); /* ignored */
	nb_str(b, "/state/oper-status", oper);
	nb_uint(b, "/ethernet/state/counters/in-mac-pause-frames", base * 5);
	nb_uint(b, "/ethernet/state/counters/out-mac-pause-frames", base * 6);
	nb_str(b, "/state/description", "uplink"); /* unmapped */
	return b;
}

static struct notif *oc_queue(int64_t ts, uint64_t base)
{
	struct notif *b = nb_new(
	    "/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/"
	    "queue[name=3]/state",
	    NULL, ts);
	nb_uint(b, "/transmit-pkts", base * 100);
	nb_uint(b, "/transmit-octets", base * 100000);
	nb_uint(b, "/dropped-pkts", base * 7);
	nb_uint(b, "/ecn-marked-pkts", base * 9);
	nb_uint(b, "/max-queue-len", 1); /* ignored */
	return b;
}

START_TEST(test_openconfig_proto_leaves_map_counters_link_and_queues)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = oc_sample(T0, 1, "UP");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 11);
	ck_assert_uint_eq(s.unmapped, 2);
	ck_assert_uint_eq(n_reports, 1);
	ck_assert_str_eq(reports[0],
			 "/interfaces/interface[name=Ethernet1]/state/"
			 "description");
	b = oc_queue(T0, 1);
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 4);

	b = oc_sample(T0 + 2 * SEC, 3, "DOWN");
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 11);
	ck_assert_uint_eq(n_reports, 1);
	b = oc_queue(T0 + 2 * SEC, 3);
	apply(m, b);
	nb_free(b);

	ck_assert_double_eq_tol(must("Ethernet1", FM_C_BYTES_RX, 0).rate, 1000,
				1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_BYTES_TX, 0).rate, 2000,
				1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_PACKETS_TX, 0).rate, 20,
				1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_ERRORS_TX, 0).rate, 4,
				1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_PAUSE_RX_FRAMES, 0).rate,
				5, 1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_PAUSE_TX_FRAMES, 0).rate,
				6, 1e-9);
	struct store_sample x = must("Ethernet1", FM_C_LINK_UP, 0);
	ck_assert_double_eq(x.value, 0);
	ck_assert_double_eq_tol(
	    must("Ethernet1", FM_C_QUEUE_TX_PACKETS, q("3")).rate, 100, 1e-9);
	ck_assert_double_eq_tol(
	    must("Ethernet1", FM_C_QUEUE_TX_BYTES, q("3")).rate, 100000, 1e-9);
	ck_assert_double_eq_tol(
	    must("Ethernet1", FM_C_QUEUE_DROPS, q("3")).rate, 7, 1e-9);
	ck_assert_double_eq_tol(must("Ethernet1", FM_C_ECN_MARKED, q("3")).rate,
				9, 1e-9);
	ck_assert_uint_eq(series_count(), 15);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_openconfig_json_ietf_container_maps_like_leaves)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = nb_new(NULL, NULL, T0);
	nb_json(b, "/interfaces/interface[name=Ethernet2]/state",
		"{\"openconfig-interfaces:oper-status\":\"UP\","
		"\"counters\":{\"in-octets\":\"500\",\"out-octets\":\"700\","
		"\"in-fcs-errors\":\"0\"}}");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 3);
	ck_assert_uint_eq(s.unmapped, 1);
	ck_assert_uint_eq(n_reports, 0);
	ck_assert_uint_eq(must("Ethernet2", FM_C_BYTES_RX, 0).raw, 500);
	ck_assert_uint_eq(must("Ethernet2", FM_C_BYTES_TX, 0).raw, 700);
	ck_assert_double_eq(must("Ethernet2", FM_C_LINK_UP, 0).value, 1);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_gauge_words_outside_the_values_map_are_rejected)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b =
	    nb_new("/interfaces/interface[name=Ethernet1]", NULL, T0);
	nb_str(b, "/state/oper-status", "openconfig-if-types:UP");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 1);
	ck_assert_double_eq(must("Ethernet1", FM_C_LINK_UP, 0).value, 1);
	b = nb_new("/interfaces/interface[name=Ethernet1]", NULL, T0 + SEC);
	nb_str(b, "/state/oper-status", "SIDEWAYS");
	nb_str(b, "/state/counters/in-octets", "many");
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 0);
	ck_assert_uint_eq(s.rejected, 2);
	ck_assert_double_eq(must("Ethernet1", FM_C_LINK_UP, 0).value, 1);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

static struct notif *arista_sample(int64_t ts, uint64_t frames,
				   uint64_t pause_ns, uint64_t stuck)
{
	struct notif *b = nb_new(
	    "/interfaces/interface[name=Ethernet3/1]/ethernet/pfc", NULL, ts);
	for (unsigned prio = 0; prio < 8; prio++) {
		char path[160];
		snprintf(path, sizeof path,
			 "/priorities/priority[index=%u]/state/in-frames",
			 prio);
		nb_uint(b, path, frames * (prio + 1));
		snprintf(path, sizeof path,
			 "/priorities/priority[index=%u]/state/out-frames",
			 prio);
		nb_uint(b, path, frames * 2);
	}
	nb_uint(b, "/priorities/priority[index=3]/state/pfc-on-total-rx-time",
		pause_ns);
	nb_uint(b, "/priorities/priority[index=3]/state/pfc-on-max-rx-time",
		1); /* ignored */
	nb_uint(b,
		"/watchdog/tx-queues/tx-queue[index=3][queue-type=unicast]/"
		"state/stuck-count",
		stuck);
	nb_uint(b,
		"/watchdog/tx-queues/tx-queue[index=3][queue-type=unicast]/"
		"state/recovery-count",
		stuck);
	return b;
}

START_TEST(test_arista_pfc_augments_map_frames_pause_ns_and_watchdog32)
{
	struct gnmi_profile *p = load_shipped("arista");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = arista_sample(T0, 100, 1000000000, 4294967290u);
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 19);
	ck_assert_uint_eq(s.unmapped, 1);
	ck_assert_uint_eq(n_reports, 0);
	b = arista_sample(T0 + 2 * SEC, 300, 2500000000u, 4);
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 19);
	ck_assert_uint_eq(s.rejected, 0);
	for (uint32_t prio = 0; prio < 8; prio++) {
		struct store_sample x =
		    must("Ethernet3/1", FM_C_PFC_RX_FRAMES, prio);
		ck_assert_double_eq_tol(x.rate, 100.0 * (prio + 1), 1e-9);
		x = must("Ethernet3/1", FM_C_PFC_TX_FRAMES, prio);
		ck_assert_double_eq_tol(x.rate, 200, 1e-9);
	}
	/* 1.5 s of pause in 2 s, from nanoseconds. */
	struct store_sample x = must("Ethernet3/1", FM_C_PFC_RX_PAUSE, 3);
	ck_assert_double_eq_tol(x.rate, 0.75, 1e-12);
	ck_assert_double_eq_tol(x.value, 2.5, 1e-12);
	/* counter32: 4294967290 -> 4 is a wrap of 10. */
	x = must("Ethernet3/1", FM_C_PFC_WD_STORMS, 3);
	ck_assert(x.has_rate);
	ck_assert_double_eq_tol(x.rate, 5, 1e-9);
	x = must("Ethernet3/1", FM_C_PFC_WD_RESTORES, 3);
	ck_assert_double_eq_tol(x.rate, 5, 1e-9);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * Unmapped paths, deletes, time.
 */

START_TEST(test_unmapped_leaves_are_counted_each_time_and_reported_once)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	for (int round = 0; round < 3; round++) {
		struct notif *b =
		    nb_new("/system/state", NULL, T0 + round * SEC);
		nb_str(b, "/hostname", "leaf1");
		nb_uint(b, "/boot-time", 1);
		nb_uint(b, "/boot-time", 2); /* the same path twice */
		struct gnmi_apply_stats s = apply(m, b);
		nb_free(b);
		ck_assert_uint_eq(s.unmapped, 3);
		ck_assert_uint_eq(s.mapped, 0);
	}
	ck_assert_uint_eq(n_reports, 2);
	ck_assert_uint_eq(reports_of("/system/state/hostname"), 1);
	ck_assert_uint_eq(reports_of("/system/state/boot-time"), 1);
	struct gnmi_mapper_stats ms;
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.unmapped_paths, 2);
	ck_assert_uint_eq(ms.cache_entries, 2);
	ck_assert_uint_eq(series_count(), 0);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_deletes_mark_the_series_under_the_path_discontinuous)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b;
	for (uint64_t i = 1; i <= 2; i++) {
		b = oc_sample(T0 + (int64_t)i * SEC, i, "UP");
		apply(m, b);
		nb_free(b);
	}
	b = nb_new(NULL, NULL, T0 + 3 * SEC);
	nb_uint(
	    b, "/interfaces/interface[name=Ethernet9]/state/counters/in-octets",
	    5);
	apply(m, b);
	nb_free(b);
	struct store_sample before = must("Ethernet1", FM_C_BYTES_RX, 0);
	ck_assert(before.has_rate);
	struct store_stats s0;
	store_get_stats(st, &s0);

	/* A subtree delete (the interface went away), then it returns. */
	b = nb_new(NULL, NULL, T0 + 3 * SEC);
	nb_del(b, "/interfaces/interface[name=Ethernet1]");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.deletes, 1);
	b = oc_sample(T0 + 4 * SEC, 3, "UP");
	apply(m, b);
	nb_free(b);
	struct store_sample after = must("Ethernet1", FM_C_BYTES_RX, 0);
	ck_assert(!after.has_rate);
	ck_assert_double_eq(after.value, before.value);
	struct store_stats s1;
	store_get_stats(st, &s1);
	/* Every counter of Ethernet1 (the gauge has no rate to lose). */
	ck_assert_uint_eq(s1.resets_total - s0.resets_total, 10);

	/* A leaf delete of a path this mapper never saw still finds the
	 * series in the store; Ethernet9 was not under the deleted tree. */
	struct gnmi_mapper *fresh = mapper(p);
	b = nb_new(NULL, NULL, T0 + 5 * SEC);
	nb_del(b, "/interfaces/interface[name=Ethernet9]/state/counters/"
		  "in-octets");
	apply(fresh, b);
	nb_free(b);
	b = nb_new(NULL, NULL, T0 + 6 * SEC);
	nb_uint(
	    b, "/interfaces/interface[name=Ethernet9]/state/counters/in-octets",
	    6);
	apply(m, b);
	nb_free(b);
	store_get_stats(st, &s0);
	ck_assert_uint_eq(s0.resets_total - s1.resets_total, 1);
	ck_assert(!must("Ethernet9", FM_C_BYTES_RX, 0).has_rate);
	gnmi_mapper_free(fresh);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_timestamp_zero_means_now)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = oc_sample(0, 1, "UP");
	apply(m, b);
	nb_free(b);
	ck_assert_int_eq(must("Ethernet1", FM_C_BYTES_RX, 0).ts_ns,
			 fake_real_ns);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * The cache and the store.
 */

START_TEST(test_second_pass_of_the_same_shape_hits_the_cache_without_allocating)
{
	struct gnmi_profile *p = load_shipped("sonic");
	struct gnmi_mapper *m = mapper(p);
	char *obj =
	    read_fixture("tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt");
	size_t fields = json_members(obj);
	struct notif *b[3];
	for (int i = 0; i < 3; i++) {
		b[i] = nb_new(NULL, "COUNTERS_DB", T0 + i * SEC);
		nb_json(b[i], "/COUNTERS/Ethernet68", obj);
	}
	struct gnmi_mapper_stats ms0, ms1, ms2;
	struct store_stats ss1, ss2;

	apply(m, b[0]);
	gnmi_mapper_get_stats(m, &ms0);
	ck_assert_uint_eq(ms0.cache_misses, fields);
	ck_assert_uint_eq(ms0.cache_entries, fields);
	ck_assert_uint_eq(ms0.resolves, 32);
	size_t reported = n_reports;

	/* The second pass may still allocate in the store (rate rings
	 * are made on a series' second sample); the third must not. */
	apply(m, b[1]);
	gnmi_mapper_get_stats(m, &ms1);
	store_get_stats(st, &ss1);
	struct mallinfo2 h1 = mallinfo2();
	struct gnmi_apply_stats s = apply(m, b[2]);
	struct mallinfo2 h2 = mallinfo2();
	gnmi_mapper_get_stats(m, &ms2);
	store_get_stats(st, &ss2);

	ck_assert_uint_eq(s.mapped, 32);
	ck_assert_uint_eq(ms1.cache_misses, fields);
	ck_assert_uint_eq(ms2.cache_misses, fields);
	ck_assert_uint_eq(ms2.cache_hits, 2 * fields);
	ck_assert_uint_eq(ms2.resolves, 32);
	ck_assert_uint_eq(ms2.memory_bytes, ms1.memory_bytes);
	ck_assert_uint_eq(ss2.series, ss1.series);
	ck_assert_uint_eq(ss2.labels, ss1.labels);
	ck_assert_uint_eq(ss2.memory_bytes, ss1.memory_bytes);
	ck_assert_uint_eq(ss2.updates_total - ss1.updates_total, 32);
	ck_assert_uint_eq(n_reports, reported);
	/* Heap in use (glibc; sanitizer builds report 0 and pass). */
	ck_assert_uint_eq(h2.uordblks, h1.uordblks);
	for (int i = 0; i < 3; i++)
		nb_free(b[i]);
	free(obj);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_withdrawn_series_are_resolved_again_on_estale)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct notif *b = oc_sample(T0, 1, "UP");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 11);
	ck_assert_uint_eq(store_withdraw_owner(st, owner), 11);
	ck_assert_uint_eq(series_count(), 0);

	b = oc_sample(T0 + SEC, 2, "UP");
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 11);
	ck_assert_uint_eq(s.rejected, 0);
	ck_assert_uint_eq(series_count(), 11);
	struct gnmi_mapper_stats ms;
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.resolves, 22);
	ck_assert_uint_eq(ms.cache_misses, 13);
	/* A new series: its first sample again. */
	ck_assert(!must("Ethernet1", FM_C_BYTES_RX, 0).has_rate);

	/* reset: handles forgotten, paths and reports kept. */
	gnmi_mapper_reset(m);
	b = oc_sample(T0 + 2 * SEC, 3, "UP");
	s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 11);
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.resolves, 33);
	ck_assert_uint_eq(ms.cache_misses, 13);
	ck_assert_uint_eq(n_reports, 1);
	ck_assert(must("Ethernet1", FM_C_BYTES_RX, 0).has_rate);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_series_of_another_owner_are_rejected)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	struct store_key k = { .device = dev,
			       .port = store_intern(st, "Ethernet1"),
			       .counter = FM_C_BYTES_RX };
	struct store_series_spec spec = { .owner =
					      store_intern(st, "snmp-leaf1") };
	ck_assert(store_series(st, &k, &spec) != 0);
	struct notif *b = oc_sample(T0, 1, "UP");
	struct gnmi_apply_stats s = apply(m, b);
	nb_free(b);
	ck_assert_uint_eq(s.mapped, 10);
	ck_assert_uint_eq(s.rejected, 1);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

START_TEST(test_cache_limit_stops_caching_but_still_maps)
{
	struct gnmi_profile *p = load_shipped("openconfig");
	struct gnmi_mapper *m = mapper(p);
	gnmi_mapper_set_cache_limit(m, 4);
	for (int round = 0; round < 2; round++) {
		struct notif *b = oc_sample(T0 + round * SEC, 1 + round, "UP");
		struct gnmi_apply_stats s = apply(m, b);
		nb_free(b);
		ck_assert_uint_eq(s.mapped, 11);
		ck_assert_uint_eq(s.unmapped, 2);
	}
	struct gnmi_mapper_stats ms;
	gnmi_mapper_get_stats(m, &ms);
	ck_assert_uint_eq(ms.cache_entries, 4);
	ck_assert_uint_eq(ms.cache_hits, 4);
	ck_assert_uint_eq(ms.uncached, 2 * (13 - 4));
	/* The description leaf came past the limit: never reported. */
	ck_assert_uint_eq(n_reports, 0);
	ck_assert(must("Ethernet1", FM_C_ERRORS_TX, 0).has_rate);
	gnmi_mapper_free(m);
	gnmi_profile_free(p);
}
END_TEST

/*
 * Timing (printed, never asserted).
 */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void walk_nothing(void *ctx, const struct gnmi_view *v,
			 const struct gnmi_scalar *x)
{
	(void)v;
	(void)x;
	++*(uint64_t *)ctx;
}

/* ns per leaf of applying b iters times, and of walking it alone. */
static void time_apply(struct gnmi_mapper *m, struct notif *b, bool bump,
		       double *apply_ns, double *walk_ns)
{
	const int iters = 5000;
	uint64_t leaves = 0;

	apply(m, b); /* fills the cache */
	double t = now_s();
	for (int i = 1; i <= iters; i++) {
		b->n.timestamp = T0 + i * SEC;
		for (size_t j = 0; bump && j < b->n.n_update; j++)
			b->u[j]->val->uint_val += 1000;
		apply(m, b);
	}
	double dt = now_s() - t;
	t = now_s();
	for (int i = 0; i < iters; i++)
		gnmi_walk_notification(&b->n, walk_nothing, NULL, &leaves,
				       NULL);
	double wt = now_s() - t;
	*apply_ns = dt * 1e9 / (double)leaves;
	*walk_ns = wt * 1e9 / (double)leaves;
}

START_TEST(test_timing_prints_ns_per_leaf)
{
	struct gnmi_profile *sonic = load_shipped("sonic");
	struct gnmi_profile *arista = load_shipped("arista");
	struct gnmi_mapper *ms = mapper(sonic), *ma = mapper(arista);
	char *obj =
	    read_fixture("tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt");
	size_t fields = json_members(obj);
	double sonic_ns, sonic_walk, proto_ns, proto_walk;

	struct notif *b = nb_new(NULL, "COUNTERS_DB", T0);
	nb_json(b, "/COUNTERS/Ethernet68", obj);
	time_apply(ms, b, false, &sonic_ns, &sonic_walk);
	nb_free(b);

	/* 100 PROTO leaves: 13 ports x 8 priorities, cut at 100. */
	b = nb_new(NULL, NULL, T0);
	for (unsigned i = 0; i < 100; i++) {
		char path[200];
		snprintf(path, sizeof path,
			 "/interfaces/interface[name=Ethernet%u]/ethernet/pfc/"
			 "priorities/priority[index=%u]/state/in-frames",
			 i / 8, i % 8);
		nb_uint(b, path, 0);
	}
	time_apply(ma, b, true, &proto_ns, &proto_walk);
	nb_free(b);

	struct gnmi_mapper_stats s1, s2;
	gnmi_mapper_get_stats(ms, &s1);
	gnmi_mapper_get_stats(ma, &s2);
	ck_assert_uint_eq(s1.cache_misses, fields);
	ck_assert_uint_eq(s2.cache_misses, 100);
	printf("gnmi_profile timing (cache hits): SONiC port object, %zu "
	       "JSON_IETF fields, 32 mapped: %.0f ns/leaf (walk alone %.0f); "
	       "100 PROTO leaves, all mapped: %.0f ns/leaf (walk alone "
	       "%.0f)\n",
	       fields, sonic_ns, sonic_walk, proto_ns, proto_walk);
	free(obj);
	gnmi_mapper_free(ms);
	gnmi_mapper_free(ma);
	gnmi_profile_free(sonic);
	gnmi_profile_free(arista);
}
END_TEST

static Suite *gnmi_profile_suite(void)
{
	Suite *s = suite_create("gnmi_profile");

	TCase *tl = tcase_create("load");
	tcase_add_test(tl, test_shipped_profiles_load);
	tcase_add_test(tl, test_load_named_rejects_names_that_are_paths);
	tcase_add_loop_test(
	    tl, test_invalid_profiles_fail_with_file_line_col_and_key, 0,
	    (int)(sizeof bad_cases / sizeof bad_cases[0]));
	suite_add_tcase(s, tl);

	TCase *tm = tcase_create("map");
	tcase_add_checked_fixture(tm, setup, teardown);
	tcase_add_test(tm,
		       test_patterns_capture_with_literal_text_globs_and_keys);
	tcase_add_test(
	    tm, test_sonic_port_object_maps_pfc_per_priority_and_port_counters);
	tcase_add_test(
	    tm,
	    test_sonic_queues_and_watchdog_take_port_and_index_from_the_key);
	tcase_add_test(tm,
		       test_sonic_counters_db_gives_pfc_ecn_and_watchdog_rates);
	tcase_add_test(
	    tm,
	    test_sonic_single_port_and_wildcard_shapes_give_the_same_series);
	tcase_add_test(
	    tm, test_sonic_port_table_speed_maps_on_the_appl_db_stream_only);
	tcase_add_test(tm, test_mapping_target_restricts_ignore_entries_too);
	tcase_add_test(
	    tm, test_openconfig_proto_leaves_map_counters_link_and_queues);
	tcase_add_test(tm,
		       test_openconfig_json_ietf_container_maps_like_leaves);
	tcase_add_test(tm,
		       test_gauge_words_outside_the_values_map_are_rejected);
	tcase_add_test(
	    tm, test_arista_pfc_augments_map_frames_pause_ns_and_watchdog32);
	tcase_add_test(
	    tm, test_unmapped_leaves_are_counted_each_time_and_reported_once);
	tcase_add_test(
	    tm, test_deletes_mark_the_series_under_the_path_discontinuous);
	tcase_add_test(tm, test_timestamp_zero_means_now);
	suite_add_tcase(s, tm);

	TCase *tc = tcase_create("cache");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(
	    tc,
	    test_second_pass_of_the_same_shape_hits_the_cache_without_allocating);
	tcase_add_test(tc, test_withdrawn_series_are_resolved_again_on_estale);
	tcase_add_test(tc, test_series_of_another_owner_are_rejected);
	tcase_add_test(tc, test_cache_limit_stops_caching_but_still_maps);
	suite_add_tcase(s, tc);

	TCase *tt = tcase_create("timing");
	tcase_add_checked_fixture(tt, setup, teardown);
	tcase_set_timeout(tt, 300);
	tcase_add_test(tt, test_timing_prints_ns_per_leaf);
	suite_add_tcase(s, tt);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_profile_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
