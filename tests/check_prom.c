/*
 * check_prom: the Prometheus exposition (prom_render) and the buffer and
 * number formatting under it (buf_*), against a real store and health
 * registry with an injected monotonic clock. When $PROMTOOL names a
 * promtool binary, its "check metrics" must accept the output.
 */
#include "config.h"

#include "buf.h"
#include "counters.h"
#include "health.h"
#include "expfmt.h"
#include "fabmon_revision.h"
#include "ident.h"
#include "procstat.h"
#include "prom.h"
#include "store.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define T0_NS 1700000000000000000LL /* source timestamps, ns */

static struct store *st;
static struct health *hl;
static int64_t mono_now;
static store_label owner;
static char *text;		/* the last render */
static struct ident_table *ids; /* the renderer's NIC identities */

static int64_t fake_mono(void *ctx)
{
	(void)ctx;
	return mono_now;
}

static void setup(void)
{
	mono_now = 1000000000;
	struct store_opts o = { .mono_ns = fake_mono };
	st = store_new(&o);
	hl = health_new();
	owner = store_intern(st, "t1");
	ids = ident_table_new();
	text = NULL;
}

static void teardown(void)
{
	free(text);
	ident_table_free(ids);
	health_free(hl);
	store_free(st);
}

static store_handle series(const char *dev, const char *port, enum fm_counter c,
			   uint32_t sub, double scale)
{
	struct store_key k = { .device = store_intern(st, dev),
			       .port = port ? store_intern(st, port) : 0,
			       .sub = sub,
			       .counter = (uint16_t)c };
	struct store_series_spec spec = { .owner = owner, .scale = scale };
	store_handle h = store_series(st, &k, &spec);
	ck_assert_msg(h != 0, "store_series(%s, %s, %d, %u)", dev,
		      port ? port : "-", (int)c, sub);
	return h;
}

/* A counter with two samples one second apart: total raw2 * scale. */
static void counter2(store_handle h, uint64_t raw1, uint64_t raw2)
{
	ck_assert_int_eq(store_update(st, h, raw1, T0_NS), 0);
	ck_assert_int_eq(store_update(st, h, raw2, T0_NS + 1000000000), 0);
}

static uint32_t queue(const char *name)
{
	return store_intern(st, name);
}

static const char *render_with(const struct prom_self *self)
{
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(prom_render(st, hl, self, &b), 0);
	size_t len;
	free(text);
	text = buf_steal(&b, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

static const char *render(void)
{
	struct prom_self self = { .scrape_duration_s = 0.25, .ident = ids };
	return render_with(&self);
}

/* True if whole line (without '\n') is a line of t. */
static bool has_line(const char *t, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = t; (p = strstr(p, line)); p++)
		if ((p == t || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* True if some line of t starts with prefix. */
static bool has_prefix(const char *t, const char *prefix)
{
	for (const char *p = t; (p = strstr(p, prefix)); p++)
		if (p == t || p[-1] == '\n')
			return true;
	return false;
}

#define ck_line(t, l) \
	ck_assert_msg(has_line(t, l), "no line '%s' in:\n%s", l, t)
#define ck_no_prefix(t, l) \
	ck_assert_msg(!has_prefix(t, l), "unexpected '%s' in:\n%s", l, t)

/* The kind ("counter"/"gauge") of a canonical family, NULL if none. */
static const char *canonical_type(const char *family)
{
	for (int i = FM_C_NONE + 1; i < FM_C__COUNT; i++) {
		const struct fm_counter_info *ci =
		    fm_counter_info((enum fm_counter)i);
		if (strcmp(ci->family, family) == 0)
			return ci->kind == FM_KIND_GAUGE ? "gauge" : "counter";
	}
	return NULL;
}

/*
 * Walks the exposition: each family opens with "# HELP name" then
 * "# TYPE name type", its samples follow with that exact name, and no
 * family appears twice (so families are contiguous). Returns the number
 * of sample lines; writes the number of families into *nfam.
 */
static size_t check_structure(const char *t, size_t *nfam)
{
	char seen[256][96];
	size_t nseen = 0, samples = 0;
	char cur[96] = "";
	bool typed = false;
	const char *p = t;
	while (*p) {
		const char *eol = strchr(p, '\n');
		ck_assert_msg(eol != NULL, "last line not terminated");
		size_t len = (size_t)(eol - p);
		char line[4096];
		ck_assert_uint_lt(len, sizeof line);
		memcpy(line, p, len);
		line[len] = '\0';
		if (strncmp(line, "# HELP ", 7) == 0) {
			char name[96];
			ck_assert_int_eq(sscanf(line + 7, "%95s", name), 1);
			for (size_t i = 0; i < nseen; i++)
				ck_assert_msg(strcmp(seen[i], name) != 0,
					      "family %s appears twice", name);
			ck_assert_uint_lt(nseen, 256);
			strcpy(seen[nseen++], name);
			strcpy(cur, name);
			typed = false;
			ck_assert_msg(strlen(line) > 8 + strlen(name),
				      "empty HELP for %s", name);
		} else if (strncmp(line, "# TYPE ", 7) == 0) {
			char name[96], type[16];
			ck_assert_int_eq(
			    sscanf(line + 7, "%95s %15s", name, type), 2);
			ck_assert_str_eq(name, cur);
			ck_assert_msg(strcmp(type, "counter") == 0 ||
					  strcmp(type, "gauge") == 0,
				      "type %s", type);
			const char *want = canonical_type(name);
			if (want)
				ck_assert_str_eq(type, want);
			typed = true;
		} else {
			ck_assert_msg(line[0] != '#', "stray comment %s", line);
			size_t n = strcspn(line, "{ ");
			ck_assert_msg(typed && strlen(cur) == n &&
					  strncmp(line, cur, n) == 0,
				      "sample '%s' outside its family (%s)",
				      line, cur);
			samples++;
		}
		p = eol + 1;
	}
	if (nfam)
		*nfam = nseen;
	return samples;
}

/* One series of every canonical counter, on two devices. */
static void fill_every_counter(void)
{
	for (int d = 0; d < 2; d++) {
		const char *dev = d ? "leaf2" : "leaf1";
		for (int i = FM_C_NONE + 1; i < FM_C__COUNT; i++) {
			const struct fm_counter_info *ci =
			    fm_counter_info((enum fm_counter)i);
			uint32_t sub = ci->sub == FM_SUB_PRIORITY ? 3
				       : ci->sub == FM_SUB_QUEUE  ? queue("q3")
								  : 0;
			store_handle h = series(dev, "Ethernet0",
						(enum fm_counter)i, sub, 1);
			if (ci->kind == FM_KIND_GAUGE)
				ck_assert_int_eq(
				    store_set_gauge(st, h, 1, T0_NS), 0);
			else
				counter2(h, 10, 20);
		}
	}
}

START_TEST(test_every_family_has_help_and_type)
{
	fill_every_counter();
	const char *t = render();
	size_t nfam = 0;
	size_t samples = check_structure(t, &nfam);
	/* Every canonical family is there with both devices' series. */
	for (int i = FM_C_NONE + 1; i < FM_C__COUNT; i++) {
		const struct fm_counter_info *ci =
		    fm_counter_info((enum fm_counter)i);
		char want[160];
		snprintf(want, sizeof want, "# TYPE %s %s", ci->family,
			 ci->kind == FM_KIND_GAUGE ? "gauge" : "counter");
		ck_line(t, want);
		snprintf(want, sizeof want, "# HELP %s ", ci->family);
		ck_assert(has_prefix(t, want));
	}
	ck_assert_uint_ge(samples, 2 * (FM_C__COUNT - 1));
	ck_assert_uint_gt(nfam, 20);
}
END_TEST

START_TEST(test_help_comes_from_the_first_id_of_a_family)
{
	/* Only the tx member (no HELP of its own) has a series. */
	counter2(series("leaf1", "Ethernet0", FM_C_PFC_TX_FRAMES, 2, 1), 1, 2);
	const char *t = render();
	const struct fm_counter_info *rx = fm_counter_info(FM_C_PFC_RX_FRAMES);
	char want[512];
	snprintf(want, sizeof want, "# HELP %s %s", rx->family, rx->help);
	ck_line(t, want);
	check_structure(t, NULL);
}
END_TEST

START_TEST(test_families_are_contiguous_whatever_the_creation_order)
{
	/* Interleave families and devices so slot order is scrambled. */
	static const enum fm_counter order[] = {
		FM_C_PFC_TX_FRAMES, FM_C_BYTES_RX,     FM_C_PFC_RX_FRAMES,
		FM_C_LINK_UP,	    FM_C_BYTES_TX,     FM_C_PFC_RX_PAUSE,
		FM_C_ECN_MARKED,    FM_C_PFC_TX_PAUSE,
	};
	char dev[16], port[16];
	size_t n = 0;
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
			snprintf(dev, sizeof dev, "leaf%d", round % 7);
			snprintf(port, sizeof port, "Ethernet%d", round);
			const struct fm_counter_info *ci =
			    fm_counter_info(order[i]);
			uint32_t sub = ci->sub == FM_SUB_PRIORITY ? 3
				       : ci->sub == FM_SUB_QUEUE  ? queue("UC3")
								  : 0;
			store_handle h = series(dev, port, order[i], sub, 1);
			if (ci->kind == FM_KIND_GAUGE)
				store_set_gauge(st, h, 1, T0_NS);
			else
				counter2(h, 5, 9);
			n++;
		}
	}
	const char *t = render();
	size_t nfam = 0;
	size_t samples = check_structure(t, &nfam);
	/* store_series, store_labels, ... are the other samples. */
	ck_assert_uint_ge(samples, n);
	/* pfc frames rx and tx are one family, direction-labelled. */
	const char *fam = strstr(t, "# TYPE fabmon_pfc_frames_total counter");
	ck_assert_ptr_nonnull(fam);
	ck_assert_ptr_null(strstr(fam + 1, "# TYPE fabmon_pfc_frames_total"));
}
END_TEST

START_TEST(test_label_values_are_escaped)
{
	counter2(series("le\"af\\1", "Eth\n0", FM_C_QUEUE_DROPS,
			queue("q\"x\\\n"), 1),
		 1, 7);
	const char *t = render();
	ck_line(t,
		"fabmon_queue_dropped_packets_total{device=\"le\\\"af\\\\1\","
		"port=\"Eth\\n0\",queue=\"q\\\"x\\\\\\n\"} 7");
	check_structure(t, NULL);
}
END_TEST

START_TEST(test_target_labels_are_escaped)
{
	struct health_target *ht = health_target(hl, "sw\"1\\\n", "gnmi");
	health_target_set_up(ht, true, NULL);
	const char *t = render();
	ck_line(t, "fabmon_target_up{target=\"sw\\\"1\\\\\\n\","
		   "protocol=\"gnmi\"} 1");
}
END_TEST

START_TEST(test_nic_port_info_family)
{
	static const int ident_owner;
	const char *t = render();
	ck_assert_ptr_null(strstr(t, "fabmon_nic_port_info"));
	struct ident_port id[] = {
		{ "h\"1", "mlx5_0/2", "mlx5_0", 2, "ib\\0", "InfiniBand" },
		{ "h0", "mlx5_0", "mlx5_0", 1, "ens1f0np0", "Ethernet" },
	};
	/* A table the renderer was not given does not show. */
	struct ident_table *other = ident_table_new();
	ident_publish(other, &ident_owner, id, 2);
	t = render();
	ck_assert_ptr_null(strstr(t, "fabmon_nic_port_info"));
	ident_table_free(other);
	ident_publish(ids, &ident_owner, id, 2);
	t = render();
	ck_line(t, "# TYPE fabmon_nic_port_info gauge");
	ck_line(t, "fabmon_nic_port_info{device=\"h0\",port=\"mlx5_0\","
		   "rdma_device=\"mlx5_0\",rdma_port=\"1\","
		   "netdev=\"ens1f0np0\",link_layer=\"Ethernet\"} 1");
	ck_line(t, "fabmon_nic_port_info{device=\"h\\\"1\",port=\"mlx5_0/2\","
		   "rdma_device=\"mlx5_0\",rdma_port=\"2\","
		   "netdev=\"ib\\\\0\",link_layer=\"InfiniBand\"} 1");
	check_structure(t, NULL);
	ident_withdraw(ids, &ident_owner);
	t = render();
	ck_assert_ptr_null(strstr(t, "fabmon_nic_port_info"));
}
END_TEST

START_TEST(test_priority_queue_and_direction_labels)
{
	counter2(series("leaf1", "Ethernet4", FM_C_PFC_RX_FRAMES, 3, 1), 10,
		 25);
	counter2(series("leaf1", "Ethernet4", FM_C_PFC_TX_FRAMES, 4, 1), 1, 2);
	counter2(series("leaf1", "Ethernet4", FM_C_ECN_MARKED, queue("UC3"), 1),
		 100, 150);
	counter2(series("leaf1", "Ethernet4", FM_C_BYTES_TX, 0, 1), 1000, 3000);
	counter2(series("leaf1", "Ethernet4", FM_C_CNP_SENT, 0, 1), 1, 4);
	store_set_gauge(st, series("leaf1", "Ethernet4", FM_C_LINK_UP, 0, 1), 1,
			T0_NS);
	const char *t = render();
	ck_line(t,
		"fabmon_pfc_frames_total{device=\"leaf1\",port=\"Ethernet4\","
		"priority=\"3\",direction=\"rx\"} 25");
	ck_line(t,
		"fabmon_pfc_frames_total{device=\"leaf1\",port=\"Ethernet4\","
		"priority=\"4\",direction=\"tx\"} 2");
	ck_line(t, "fabmon_ecn_marked_packets_total{device=\"leaf1\","
		   "port=\"Ethernet4\",queue=\"UC3\"} 150");
	ck_line(t, "fabmon_bytes_total{device=\"leaf1\",port=\"Ethernet4\","
		   "direction=\"tx\"} 3000");
	ck_line(t, "fabmon_cnp_sent_packets_total{device=\"leaf1\","
		   "port=\"Ethernet4\"} 4");
	ck_line(t, "fabmon_link_up{device=\"leaf1\",port=\"Ethernet4\"} 1");
}
END_TEST

START_TEST(test_counters_print_totals_and_gauges_values)
{
	store_handle c = series("leaf1", "Ethernet0", FM_C_PACKETS_RX, 0, 1);
	ck_assert_int_eq(store_update(st, c, 100, T0_NS), 0);
	ck_assert_int_eq(store_update(st, c, 160, T0_NS + 1000000000), 0);
	/* A reset: the total keeps what was counted. */
	ck_assert_int_eq(store_update(st, c, 5, T0_NS + 2000000000), 0);
	ck_assert_int_eq(store_update(st, c, 15, T0_NS + 3000000000), 0);
	/* Microseconds scaled to seconds. */
	store_handle p =
	    series("leaf1", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1e-6);
	counter2(p, 1000000, 3500000);
	store_handle g =
	    series("leaf1", "Ethernet0", FM_C_QUEUE_OCCUPANCY, queue("q0"), 1);
	ck_assert_int_eq(store_set_gauge(st, g, 800, T0_NS), 0);
	ck_assert_int_eq(store_set_gauge(st, g, 42.5, T0_NS + 1000000000), 0);
	const char *t = render();
	ck_line(t, "fabmon_packets_total{device=\"leaf1\",port=\"Ethernet0\","
		   "direction=\"rx\"} 170");
	ck_line(t, "fabmon_pfc_pause_seconds_total{device=\"leaf1\","
		   "port=\"Ethernet0\",priority=\"3\",direction=\"rx\"} 3.5");
	ck_line(t, "fabmon_queue_occupancy_bytes{device=\"leaf1\","
		   "port=\"Ethernet0\",queue=\"q0\"} 42.5");
	ck_line(t, "# TYPE fabmon_queue_occupancy_bytes gauge");
	ck_line(t, "# TYPE fabmon_packets_total counter");
}
END_TEST

START_TEST(test_stale_and_empty_series_are_omitted)
{
	counter2(series("old", "Ethernet0", FM_C_BYTES_RX, 0, 1), 1, 2);
	/* Past 5 intervals of 1 s: "old" is stale. */
	mono_now += 6000000000LL;
	counter2(series("new", "Ethernet0", FM_C_BYTES_RX, 0, 1), 1, 2);
	/* Created but never written. */
	series("empty", "Ethernet0", FM_C_BYTES_TX, 0, 1);
	const char *t = render();
	ck_line(t, "fabmon_bytes_total{device=\"new\",port=\"Ethernet0\","
		   "direction=\"rx\"} 2");
	ck_assert_ptr_null(strstr(t, "device=\"old\""));
	ck_assert_ptr_null(strstr(t, "device=\"empty\""));
	ck_line(t, "fabmon_store_series 3");
	ck_line(t, "fabmon_store_stale_series 1");
	/* A family whose only series is stale has no HELP/TYPE either. */
	mono_now += 6000000000LL;
	t = render();
	ck_assert_ptr_null(strstr(t, "fabmon_bytes_total"));
	check_structure(t, NULL);
}
END_TEST

START_TEST(test_health_families)
{
	counter2(series("leaf1", "Ethernet0", FM_C_BYTES_RX, 0, 1), 1, 2);
	struct health_target *a = health_target(hl, "leaf1", "gnmi");
	health_target_set_up(a, true, NULL);
	health_target_updated(a, 42);
	health_target_count(a, HEALTH_C_RECONNECTS, 3);
	health_target_set_duration(a, 0.5);
	struct health_target *b = health_target(hl, "leaf2", "snmp");
	health_target_set_up(b, false, "timeout");
	/* A success, then a failure: the failure is the state, the
	 * success keeps its own time. */
	health_set_reload(hl, true, 1750000000000000000LL);
	health_set_reload(hl, false, 1800000000000000000LL);

	struct prom_self self = { .scrape_duration_s = 0.125 };
	const char *t = render_with(&self);
	check_structure(t, NULL);
	char want[128];
	snprintf(want, sizeof want,
		 "fabmon_build_info{version=\"%s\",revision=\"%s\"} 1",
		 PACKAGE_VERSION, FABMON_REVISION);
	ck_line(t, want);
	ck_assert(has_prefix(t, "fabmon_start_time_seconds "));
	ck_line(t, "fabmon_scrape_duration_seconds 0.125");
	ck_line(t, "fabmon_store_series 1");
	ck_line(t, "fabmon_store_stale_series 0");
	ck_assert(has_prefix(t, "fabmon_store_labels "));
	ck_assert(has_prefix(t, "fabmon_store_memory_bytes "));
	ck_line(t, "fabmon_store_updates_total 2");
	ck_line(t, "fabmon_series_resets_total 0");
	ck_line(t, "fabmon_store_rejected_samples_total 0");
	ck_line(t, "fabmon_config_last_reload_successful 0");
	ck_line(t, "fabmon_config_last_reload_success_timestamp_seconds "
		   "1750000000");
	ck_line(t, "fabmon_target_up{target=\"leaf1\",protocol=\"gnmi\"} 1");
	ck_line(t, "fabmon_target_up{target=\"leaf2\",protocol=\"snmp\"} 0");
	/* sync_response is a gNMI notion: only gNMI entries have it. */
	ck_line(t, "fabmon_target_sync_seen{target=\"leaf1\","
		   "protocol=\"gnmi\"} 0");
	ck_no_prefix(t, "fabmon_target_sync_seen{target=\"leaf2\"");
	ck_assert(has_prefix(t, "fabmon_target_last_update_age_seconds{"
				"target=\"leaf1\",protocol=\"gnmi\"} "));
	ck_no_prefix(t, "fabmon_target_last_update_age_seconds{"
			"target=\"leaf2\"");
	ck_line(t, "fabmon_target_last_duration_seconds{target=\"leaf1\","
		   "protocol=\"gnmi\"} 0.5");
	ck_no_prefix(t, "fabmon_target_last_duration_seconds{"
			"target=\"leaf2\"");
	ck_line(t, "fabmon_target_updates_total{target=\"leaf1\","
		   "protocol=\"gnmi\"} 42");
	ck_line(t, "fabmon_target_reconnects_total{target=\"leaf1\","
		   "protocol=\"gnmi\"} 3");
	ck_line(t, "# TYPE fabmon_target_reconnects_total counter");
	for (int c = 0; c < HEALTH_C__COUNT; c++) {
		snprintf(want, sizeof want,
			 "# TYPE fabmon_target_%s_total counter",
			 health_counter_name((enum health_counter)c));
		ck_line(t, want);
	}

	/* A successful reload reports its own time; no previous render
	 * means no scrape duration. */
	health_set_reload(hl, true, 1800000000500000000LL);
	struct prom_self first = { .scrape_duration_s = -1 };
	t = render_with(&first);
	ck_line(t, "fabmon_config_last_reload_successful 1");
	ck_line(t, "fabmon_config_last_reload_success_timestamp_seconds "
		   "1800000000.5");
	ck_no_prefix(t, "fabmon_scrape_duration_seconds");
}
END_TEST

START_TEST(test_integer_and_float_formatting)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ -1, "-1" },
		{ 1e15, "1000000000000000" },
		{ 9007199254740993.0, "9007199254740992" },
		{ 18446744073709549568.0, "18446744073709549568" },
		{ -9223372036854775808.0, "-9223372036854775808" },
		{ 1e20, "1e+20" },
		{ 0.1, "0.1" },
		{ 3.5, "3.5" },
		{ 1.0 / 3.0, "0.3333333333333333" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1e-9, "0.000000001" },
		{ 1e-30, "1e-30" },
		{ 2.0001, "2.0001" },
		{ -3.25, "-3.25" },
		{ 123457 * 1e-6, "0.123457" },
		{ 4503599627370495.5, "4503599627370495.5" },
		{ 9007199254740991.0 + 0.5, "9007199254740992" },
		{ 1e16 + 0.5, "10000000000000000" },
		{ 12345678.901234567, "12345678.901234567" },
		{ 1700000000.123, "1700000000.123" },
		{ NAN, "NaN" },
		{ INFINITY, "+Inf" },
		{ -INFINITY, "-Inf" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[BUF_DOUBLE_MAX];
		size_t n = buf_format_double(cases[i].v, out);
		ck_assert_str_eq(out, cases[i].want);
		ck_assert_uint_eq(n, strlen(cases[i].want));
		if (isfinite(cases[i].v))
			ck_assert(strtod(out, NULL) == cases[i].v);
	}
	/* Any finite double reads back as itself: scaled counters and
	 * arbitrary bit patterns. */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		if (i % 2) {
			memcpy(&v, &x, sizeof v);
			if (!isfinite(v))
				continue;
		} else {
			v = (double)(x >> (x % 40)) * 1e-6;
		}
		char out[BUF_DOUBLE_MAX];
		size_t n = buf_format_double(v, out);
		ck_assert_uint_lt(n, BUF_DOUBLE_MAX);
		ck_assert_msg(strtod(out, NULL) == v, "%s != %.17g", out, v);
	}

	struct buf b;
	buf_init(&b);
	buf_put_u64(&b, UINT64_MAX);
	buf_putc(&b, ' ');
	buf_put_i64(&b, INT64_MIN);
	buf_putc(&b, ' ');
	buf_put_u64(&b, 0);
	buf_putc(&b, ' ');
	buf_put_u64(&b, 10);
	buf_putc(&b, ' ');
	buf_put_i64(&b, -7);
	size_t len;
	char *s = buf_steal(&b, &len);
	ck_assert_str_eq(s,
			 "18446744073709551615 -9223372036854775808 0 10 -7");
	free(s);

	/* Through the renderer: a fractional gauge and a huge total. */
	store_set_gauge(
	    st,
	    series("leaf1", "Ethernet0", FM_C_QUEUE_WATERMARK, queue("q"), 1),
	    0.25, T0_NS);
	counter2(series("leaf1", "Ethernet0", FM_C_BYTES_RX, 0, 1), 1,
		 1000000000000ULL);
	const char *t = render();
	ck_line(t, "fabmon_queue_watermark_bytes{device=\"leaf1\","
		   "port=\"Ethernet0\",queue=\"q\"} 0.25");
	ck_line(t, "fabmon_bytes_total{device=\"leaf1\",port=\"Ethernet0\","
		   "direction=\"rx\"} 1000000000000");
}
END_TEST

START_TEST(test_buffer_grows_across_many_appends)
{
	struct buf b;
	buf_init(&b);
	for (int i = 0; i < 100000; i++)
		buf_append(&b, "0123456789", 10);
	buf_printf(&b, "%s-%d", "end", 42);
	ck_assert_int_eq(buf_error(&b), 0);
	ck_assert_uint_eq(b.len, 1000000 + 6);
	ck_assert_int_eq(memcmp(b.data + 999990, "0123456789end-42", 16), 0);
	buf_fini(&b);
	ck_assert_ptr_null(b.data);
}
END_TEST

static char *inflate_all(const char *z, size_t zlen, size_t *outlen)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	size_t cap = zlen * 4 + 1024, len = 0;
	char *out = malloc(cap);
	zs.next_in = (unsigned char *)z;
	zs.avail_in = (uInt)zlen;
	int rc;
	do {
		if (cap - len < 4096) {
			cap *= 2;
			out = realloc(out, cap);
		}
		zs.next_out = (unsigned char *)out + len;
		zs.avail_out = (uInt)(cap - len);
		rc = inflate(&zs, Z_NO_FLUSH);
		ck_assert_msg(rc == Z_OK || rc == Z_STREAM_END, "inflate %d",
			      rc);
		len = cap - zs.avail_out;
	} while (rc != Z_STREAM_END);
	ck_assert_uint_eq(zs.avail_in, 0);
	inflateEnd(&zs);
	*outlen = len;
	return out;
}

START_TEST(test_gzip_output_inflates_to_the_same_text)
{
	fill_every_counter();
	const char *t = render();
	size_t tlen = strlen(t);
	for (int level = 1; level <= 9; level += 8) {
		struct buf z;
		buf_init(&z);
		ck_assert_int_eq(buf_gzip(t, tlen, level, &z), 0);
		ck_assert_uint_gt(z.len, 18);
		ck_assert_int_eq((unsigned char)z.data[0], 0x1f);
		ck_assert_int_eq((unsigned char)z.data[1], 0x8b);
		ck_assert_uint_lt(z.len, tlen);
		size_t n;
		char *back = inflate_all(z.data, z.len, &n);
		ck_assert_uint_eq(n, tlen);
		ck_assert_int_eq(memcmp(back, t, n), 0);
		free(back);
		buf_fini(&z);
	}
	/* Empty input is a valid, empty gzip stream. */
	struct buf z;
	buf_init(&z);
	ck_assert_int_eq(buf_gzip("", 0, 1, &z), 0);
	size_t n;
	char *back = inflate_all(z.data, z.len, &n);
	ck_assert_uint_eq(n, 0);
	free(back);
	buf_fini(&z);
}
END_TEST

START_TEST(test_large_store_renders_every_series_once)
{
	char dev[16], port[16];
	size_t n = 0;
	for (int d = 0; d < 20; d++) {
		snprintf(dev, sizeof dev, "leaf%02d", d);
		for (int p = 0; p < 32; p++) {
			snprintf(port, sizeof port, "Ethernet%d", p * 4);
			for (uint32_t prio = 0; prio < 8; prio++) {
				counter2(series(dev, port, FM_C_PFC_TX_FRAMES,
						prio, 1),
					 prio, prio + 10);
				counter2(series(dev, port, FM_C_PFC_RX_PAUSE,
						prio, 1e-6),
					 0, 123457);
				n += 2;
			}
		}
	}
	const char *t = render();
	size_t samples = check_structure(t, NULL);
	size_t fam = 0;
	for (const char *p = t; (p = strstr(p, "\nfabmon_pfc_")); p++)
		fam++;
	ck_assert_uint_eq(fam, n);
	ck_assert_uint_gt(samples, n);
	ck_line(t, "fabmon_pfc_pause_seconds_total{device=\"leaf07\","
		   "port=\"Ethernet12\",priority=\"5\",direction=\"rx\"} "
		   "0.123457");
}
END_TEST

START_TEST(test_promtool_accepts_the_exposition)
{
	const char *promtool = getenv("PROMTOOL");
	if (!promtool || !*promtool)
		return; /* the harness exports it when promtool exists */
	fill_every_counter();
	counter2(
	    series("le\"af\\9", "Eth\n1", FM_C_QUEUE_DROPS, queue("q\"\\"), 1),
	    1, 2);
	struct health_target *a = health_target(hl, "leaf1", "gnmi");
	health_target_set_up(a, true, NULL);
	health_target_updated(a, 1);
	health_target_set_duration(a, 0.01);
	static const int ident_owner;
	struct ident_port id = { "h0", "mlx5_0",    "mlx5_0",
				 1,    "ens1f0np0", "Ethernet" };
	ident_publish(ids, &ident_owner, &id, 1);
	const char *t = render();
	ident_withdraw(ids, &ident_owner);
	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/check_prom.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	size_t len = strlen(t);
	ck_assert_int_eq(write(fd, t, len), (ssize_t)len);
	close(fd);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' check metrics < '%s' 2>&1", promtool,
		 path);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	char out[4096];
	size_t got = fread(out, 1, sizeof out - 1, f);
	out[got] = '\0';
	int status = pclose(f);
	unlink(path);
	ck_assert_msg(WIFEXITED(status), "promtool did not exit");
	int rc = WEXITSTATUS(status);
	ck_assert_msg(rc == 0, "promtool check metrics exit %d:\n%s", rc, out);
}
END_TEST

/* Fixed process figures, so their lines can be checked exactly. */
static const struct procstat fixed_process = {
	.cpu_seconds = 1.5,
	.resident_bytes = 8388608,
	.virtual_bytes = 104857600,
	.start_time_s = 1700000000.25,
	.open_fds = 9,
	.max_fds = 1024,
	.virtual_max_bytes = PROCSTAT_UNLIMITED,
};

/* Everything prom_render can show: every canonical family, a target,
 * a NIC identity. */
static void fill_everything(void)
{
	static const int ident_owner;
	fill_every_counter();
	struct health_target *a = health_target(hl, "le\"af1", "gnmi");
	health_target_set_up(a, true, NULL);
	health_target_updated(a, 3);
	struct ident_port id = { "h0", "mlx5_0",    "mlx5_0",
				 1,    "ens1f0np0", "Ethernet" };
	ident_publish(ids, &ident_owner, &id, 1);
}

/* A render in f with the fixed process figures, ended as http.c does. */
static const char *render_fmt(enum expfmt f)
{
	struct prom_self self = { .scrape_duration_s = 0.25,
				  .ident = ids,
				  .format = f,
				  .process = &fixed_process };
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(prom_render(st, hl, &self, &b), 0);
	expfmt_put_eof(&b, f);
	size_t len;
	free(text);
	text = buf_steal(&b, &len);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* Lines of t that start with prefix; with skip, those that do not
 * (and do not contain skip) when prefix is NULL. */
static size_t count_lines(const char *t, const char *prefix, const char *skip)
{
	size_t n = 0;
	for (const char *p = t; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (prefix
			? strncmp(p, prefix, strlen(prefix)) == 0
			: (p[0] != '#' && !memmem(p, len, skip, strlen(skip))))
			n++;
		p += len + (eol != NULL);
	}
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * Walks an OpenMetrics exposition: families open with HELP and TYPE
 * (any order) and an optional UNIT that ends the family's name; a
 * counter family's name has no _total and its samples are name_total
 * or name_created, an info family's are name_info, a gauge's the name;
 * no family twice; "# EOF" is the last line and only there. Returns
 * the number of _created samples.
 */
static size_t check_openmetrics(const char *t)
{
	char seen[256][96];
	size_t nseen = 0, created = 0;
	char cur[96] = "", type[16] = "";
	const char *p = t;
	bool eof = false;
	while (*p) {
		ck_assert_msg(!eof, "text after # EOF");
		const char *eol = strchr(p, '\n');
		ck_assert_msg(eol != NULL, "last line not terminated");
		size_t len = (size_t)(eol - p);
		char line[4096], name[96], word[64];
		ck_assert_uint_lt(len, sizeof line);
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol + 1;
		if (strcmp(line, "# EOF") == 0) {
			eof = true;
			continue;
		}
		if (line[0] == '#') {
			ck_assert_int_eq(
			    sscanf(line, "# %63s %95s", word, name), 2);
			if (strcmp(name, cur) != 0) {
				for (size_t i = 0; i < nseen; i++)
					ck_assert_msg(strcmp(seen[i], name),
						      "family %s twice", name);
				ck_assert_uint_lt(nseen, 256);
				strcpy(seen[nseen++], name);
				strcpy(cur, name);
				type[0] = '\0';
			}
			if (strcmp(word, "TYPE") == 0) {
				ck_assert_int_eq(
				    sscanf(line, "# TYPE %*s %15s", type), 1);
				ck_assert_msg(strcmp(type, "counter") ||
						  !ends_with(name, "_total"),
					      "counter family %s", name);
			} else if (strcmp(word, "UNIT") == 0) {
				char u[32], suffix[40];
				ck_assert_int_eq(
				    sscanf(line, "# UNIT %*s %31s", u), 1);
				snprintf(suffix, sizeof suffix, "_%s", u);
				ck_assert_msg(ends_with(name, suffix),
					      "unit %s of %s", u, name);
				ck_assert_str_ne(type, "info");
			} else {
				ck_assert_str_eq(word, "HELP");
			}
			continue;
		}
		size_t n = strcspn(line, "{ ");
		ck_assert_msg(type[0], "sample '%s' before its TYPE", line);
		char sample[128];
		ck_assert_uint_lt(n, sizeof sample);
		memcpy(sample, line, n);
		sample[n] = '\0';
		char want[128], alt[128] = "";
		if (strcmp(type, "counter") == 0) {
			snprintf(want, sizeof want, "%s_total", cur);
			snprintf(alt, sizeof alt, "%s_created", cur);
		} else if (strcmp(type, "info") == 0) {
			snprintf(want, sizeof want, "%s_info", cur);
			ck_assert_msg(ends_with(line, "} 1"), "%s", line);
		} else {
			snprintf(want, sizeof want, "%s", cur);
		}
		ck_assert_msg(strcmp(sample, want) == 0 ||
				  strcmp(sample, alt) == 0,
			      "sample '%s' in family %s (%s)", line, cur, type);
		created += strcmp(sample, alt) == 0;
	}
	ck_assert_msg(eof, "no # EOF");
	return created;
}

START_TEST(test_openmetrics_exposition)
{
	fill_everything();
	const char *t = render_fmt(EXPFMT_OPENMETRICS);
	check_openmetrics(t);
	ck_line(t, "# TYPE fabmon_pfc_frames counter");
	ck_line(t, "# TYPE fabmon_pfc_pause_seconds counter");
	ck_line(t, "# UNIT fabmon_pfc_pause_seconds seconds");
	ck_assert(has_prefix(t, "fabmon_pfc_frames_total{device=\"leaf1\""));
	ck_no_prefix(t, "# UNIT fabmon_pfc_frames ");
	/* Device counters have no _created (prom.h says why). */
	ck_no_prefix(t, "fabmon_pfc_frames_created");
	ck_no_prefix(t, "fabmon_bytes_created");
	/* fabmond's own counters start with it. */
	char start[BUF_DOUBLE_MAX], line[256];
	buf_format_double((double)health_start_time_ns(hl) / 1e9, start);
	snprintf(line, sizeof line, "fabmon_store_updates_created %s", start);
	ck_line(t, line);
	ck_line(t, "# TYPE fabmon_store_updates counter");
	ck_assert(has_prefix(t, "fabmon_target_updates_created{target="
				"\"le\\\"af1\",protocol=\"gnmi\"} 1"));
	ck_line(t, "fabmon_target_updates_total{target=\"le\\\"af1\","
		   "protocol=\"gnmi\"} 3");
	/* Info metrics. */
	ck_line(t, "# TYPE fabmon_build info");
	snprintf(line, sizeof line,
		 "fabmon_build_info{version=\"%s\",revision=\"%s\"} 1",
		 PACKAGE_VERSION, FABMON_REVISION);
	ck_line(t, line);
	/* The build names a commit, or says it cannot. */
	size_t rl = strlen(FABMON_REVISION);
	ck_assert_msg(
	    (rl == 40 && strspn(FABMON_REVISION, "0123456789abcdef") == 40) ||
		strcmp(FABMON_REVISION, "unknown") == 0,
	    "revision '%s'", FABMON_REVISION);
	ck_line(t, "# TYPE fabmon_nic_port info");
	/* The process, as the client libraries spell it. */
	ck_line(t, "# TYPE process_cpu_seconds counter");
	ck_line(t, "# UNIT process_cpu_seconds seconds");
	ck_line(t, "process_cpu_seconds_total 1.5");
	ck_line(t, "process_cpu_seconds_created 1700000000.25");
	ck_line(t, "process_start_time_seconds 1700000000.25");
	ck_line(t, "# UNIT process_resident_memory_bytes bytes");
	ck_line(t, "process_resident_memory_bytes 8388608");
	ck_line(t, "process_virtual_memory_bytes 104857600");
	ck_line(t, "process_virtual_memory_max_bytes 1.8446744073709552e+19");
	ck_line(t, "process_open_fds 9");
	ck_line(t, "process_max_fds 1024");
	ck_assert(ends_with(t, "\n# EOF\n"));
}
END_TEST

START_TEST(test_text_format_keeps_its_spelling)
{
	fill_everything();
	const char *t = render_fmt(EXPFMT_TEXT);
	size_t nfam = 0;
	size_t samples = check_structure(t, &nfam);
	ck_assert_ptr_null(strstr(t, "_created"));
	ck_assert_ptr_null(strstr(t, "# UNIT"));
	ck_assert_ptr_null(strstr(t, "# EOF"));
	ck_line(t, "# TYPE fabmon_pfc_frames_total counter");
	ck_line(t, "# TYPE fabmon_build_info gauge");
	ck_line(t, "# TYPE fabmon_nic_port_info gauge");
	ck_line(t, "# TYPE process_cpu_seconds_total counter");
	ck_line(t, "process_cpu_seconds_total 1.5");
	ck_line(t, "process_open_fds 9");
	/* OpenMetrics has the same families and samples, plus _created. */
	size_t created = check_openmetrics(render_fmt(EXPFMT_OPENMETRICS));
	ck_assert_uint_eq(count_lines(text, "# TYPE ", NULL), nfam);
	ck_assert_uint_eq(count_lines(text, NULL, "_created"), samples);
	/* process_cpu, 4 of the store, 7 of the one target. */
	ck_assert_uint_eq(created, 1 + 4 + HEALTH_C__COUNT);
}
END_TEST

static Suite *prom_suite(void)
{
	Suite *s = suite_create("prom");
	TCase *tc = tcase_create("exposition");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_family_has_help_and_type);
	tcase_add_test(tc, test_help_comes_from_the_first_id_of_a_family);
	tcase_add_test(
	    tc, test_families_are_contiguous_whatever_the_creation_order);
	tcase_add_test(tc, test_label_values_are_escaped);
	tcase_add_test(tc, test_target_labels_are_escaped);
	tcase_add_test(tc, test_nic_port_info_family);
	tcase_add_test(tc, test_priority_queue_and_direction_labels);
	tcase_add_test(tc, test_counters_print_totals_and_gauges_values);
	tcase_add_test(tc, test_stale_and_empty_series_are_omitted);
	tcase_add_test(tc, test_health_families);
	tcase_add_test(tc, test_integer_and_float_formatting);
	tcase_add_test(tc, test_buffer_grows_across_many_appends);
	tcase_add_test(tc, test_gzip_output_inflates_to_the_same_text);
	tcase_add_test(tc, test_large_store_renders_every_series_once);
	tcase_add_test(tc, test_promtool_accepts_the_exposition);
	tcase_add_test(tc, test_openmetrics_exposition);
	tcase_add_test(tc, test_text_format_keeps_its_spelling);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(prom_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
