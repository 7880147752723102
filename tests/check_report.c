/*
 * check_report: the validation report's history (rules/report.c) fed by
 * the real rule engine on constructed store contents over an injected
 * clock (tests/rules_fixture.h, as check_rules: each step adds rate x
 * 1 s to the raw counters and ticks), then read through report_api_serve()
 * (exporters/report_api.c) and over real HTTP on loopback. Also the time
 * parser, the parameter errors and the memory bound at 1,000 switches x 64
 * ports.
 */
#include "config.h"

#include "buf.h"
#include "fabmond.h"
#include "http.h"
#include "incidents.h"
#include "report_api.h"
#include "rfc3339.h"
#include "rules_fixture.h"

#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void)
{
	fab_open("interval: 1s\nlossless_priorities: [3]\n"
		 "report: {window: 10m, step: 10s}\n");
	struct report_opts o = {
		.window_ns = F.cfg->report.window_ns,
		.step_ns = F.cfg->report.step_ns,
		.max_records = F.cfg->report.max_records,
		.max_incidents = F.cfg->report.max_incidents,
		.lossless_mask = F.cfg->lossless_mask,
	};
	F.rep = report_new(F.st, &o);
	struct rules_output out = { &report_output_ops, F.rep };
	rules_set_outputs(F.r, &out, 1);
}

static void teardown(void)
{
	fab_close();
}

/* GET /api/v1/report with "k=v" pairs (NULL-terminated) at the
 * simulated now; the parsed body, and the status in *status. */
static json_t *query(int *status, ...)
{
	struct api_param p[8];
	size_t n = 0;
	va_list ap;
	va_start(ap, status);
	const char *k;
	while ((k = va_arg(ap, const char *)) && n < 8) {
		p[n].key = k;
		p[n].value = va_arg(ap, const char *);
		n++;
	}
	va_end(ap);
	struct buf b;
	buf_init(&b);
	*status = report_api_serve(F.rep, p, n, &b, treal(NULL));
	json_error_t je;
	json_t *doc = json_loadb(b.data, b.len, 0, &je);
	ck_assert_msg(doc, "%s: %.*s", je.text, (int)b.len, b.data);
	buf_fini(&b);
	return doc;
}

static double num(json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	json_t *j = o;
	for (char *save, *t = strtok_r(buf, ".", &save); t;
	     t = strtok_r(NULL, ".", &save))
		j = json_object_get(j, t);
	ck_assert_msg(json_is_number(j), "%s is not a number", path);
	return json_number_value(j);
}

static const char *str(json_t *o, const char *key)
{
	json_t *j = json_object_get(o, key);
	ck_assert_msg(json_is_string(j), "%s is not a string", key);
	return json_string_value(j);
}

static json_t *prio_row(json_t *doc, int prio)
{
	json_t *arr = json_object_get(doc, "priorities"), *v;
	size_t i;
	json_array_foreach(arr, i, v) if (json_integer_value(json_object_get(
					      v, "priority")) == prio) return v;
	return NULL;
}

static bool has_reason(json_t *doc, const char *needle)
{
	json_t *v;
	size_t i;
	json_array_foreach(
	    json_object_get(doc, "reasons"), i,
	    v) if (strstr(json_string_value(v), needle)) return true;
	return false;
}

/* hostA keeps leaf0 paused: a storm with hostA as its origin. */
static void storm_fabric(void)
{
	link2("hostA", "mlx5_0", "leaf0", "Ethernet0");
	link2("hostB", "mlx5_0", "leaf0", "Ethernet8");
	const char *ports[][2] = { { "hostA", "mlx5_0" },
				   { "leaf0", "Ethernet0" },
				   { "hostB", "mlx5_0" },
				   { "leaf0", "Ethernet8" } };
	for (size_t i = 0; i < 4; i++) {
		set(ports[i][0], ports[i][1], FM_C_PFC_TX_PAUSE, 3, 0);
		set(ports[i][0], ports[i][1], FM_C_PFC_RX_PAUSE, 3, 0);
		set(ports[i][0], ports[i][1], FM_C_LINK_SPEED, 0, 5e10);
		set(ports[i][0], ports[i][1], FM_C_BYTES_TX, 0, 1e9);
	}
	set("leaf0", "Ethernet0", FM_C_PG_DROPS, 3, 0);
	set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 0);
	set("hostB", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
}

START_TEST(test_parse_time)
{
	int64_t t;
	ck_assert_int_eq(rfc3339_parse("2023-11-14T22:13:20Z", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC);
	ck_assert_int_eq(rfc3339_parse("2023-11-14T23:13:20.5+01:00", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC + SEC / 2);
	ck_assert_int_eq(rfc3339_parse("2023-11-14T21:13:20-01:00", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC);
	/* '+' decoded as a space from an unescaped query string. */
	ck_assert_int_eq(rfc3339_parse("2023-11-14T23:13:20 01:00", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC);
	ck_assert_int_eq(rfc3339_parse("1700000000", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC);
	ck_assert_int_eq(rfc3339_parse("1700000000.25", &t), 0);
	ck_assert_int_eq(t, INT64_C(1700000000) * SEC + SEC / 4);
	ck_assert_int_eq(rfc3339_parse("2024-02-29T00:00:00Z", &t), 0);
	const char *bad[] = { "",
			      "now",
			      "-5",
			      "1e9",
			      "17000000000000",
			      "1700000000.",
			      "2023-02-29T00:00:00Z",
			      "2023-11-14T22:13:20",
			      "2023-11-14 22:13:20Z",
			      "2023-13-01T00:00:00Z",
			      "2023-11-14T24:00:00Z",
			      "2023-11-14T22:13:20Zjunk",
			      "2023-11-14T22:13:20+1:00",
			      "1969-12-31T23:59:59Z" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(rfc3339_parse(bad[i], &t) == -EINVAL,
			      "accepted '%s'", bad[i]);
	/* Past 64-bit nanoseconds: refused as such, never wrapped. */
	const char *late[] = {
		"18446744074",		"99999999999",
		"9223372037",		"2263-01-01T00:00:00Z",
		"2262-04-11T23:47:17Z", "2262-04-11T23:47:16.854775808Z"
	};
	for (size_t i = 0; i < sizeof late / sizeof *late; i++)
		ck_assert_msg(rfc3339_parse(late[i], &t) == -ERANGE,
			      "accepted '%s'", late[i]);
	ck_assert_int_eq(rfc3339_parse("2262-04-11T23:47:16.854775807Z", &t),
			 0);
	ck_assert(t == INT64_MAX);
	ck_assert_int_eq(rfc3339_parse("9223372036.854775807", &t), 0);
	ck_assert(t == INT64_MAX);
}
END_TEST

START_TEST(test_clean_run_passes)
{
	storm_fabric();
	set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 10);
	set("hostB", "mlx5_0", FM_C_CNP_HANDLED, 0, 10);
	steps(30);
	int st;
	char from[32];
	snprintf(from, sizeof from, "%lld",
		 (long long)(treal(NULL) / SEC - 20));
	json_t *doc = query(&st, "from", from, NULL);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(str(doc, "verdict"), "pass");
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "reasons")), 0);
	json_t *p3 = prio_row(doc, 3);
	ck_assert_ptr_nonnull(p3);
	ck_assert(json_is_true(json_object_get(p3, "lossless")));
	ck_assert_double_eq(num(p3, "pause_seconds_tx"), 0);
	ck_assert_double_eq(num(doc, "drops.lossless"), 0);
	ck_assert_str_eq(str(json_object_get(doc, "drops"), "verdict"), "pass");
	/* 10 CNPs/s over the buckets covering the last 20 s (from a bucket
	 * boundary: 10 s buckets, so 20 to 30 s of them). */
	double sent = num(doc, "cnp.sent");
	ck_assert_msg(sent >= 200 && sent <= 300, "cnp.sent %g", sent);
	ck_assert_double_eq(num(doc, "cnp.handled"), sent);
	ck_assert(json_is_true(
	    json_object_get(json_object_get(doc, "coverage"), "complete")));
	json_decref(doc);
}
END_TEST

START_TEST(test_storm_drops_and_stragglers)
{
	storm_fabric();
	steps(5);
	int64_t t0 = treal(NULL);
	/* 20 s of storm: hostA pauses leaf0 all the time; hostB 0.25. */
	set("hostA", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 1.0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 1.0);
	set("hostB", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0.25);
	set("leaf0", "Ethernet8", FM_C_PFC_RX_PAUSE, 3, 0.25);
	set("leaf0", "Ethernet0", FM_C_PG_DROPS, 3, 2);
	steps(20);
	storm_fabric();
	set("hostA", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
	set("leaf0", "Ethernet0", FM_C_PFC_RX_PAUSE, 3, 0);
	set("hostB", "mlx5_0", FM_C_PFC_TX_PAUSE, 3, 0);
	set("leaf0", "Ethernet8", FM_C_PFC_RX_PAUSE, 3, 0);
	set("leaf0", "Ethernet0", FM_C_PG_DROPS, 3, 0);
	steps(30); /* the storm resolves (clear: 5 s) */
	int64_t t1 = treal(NULL);

	int st;
	char from[32], to[32];
	snprintf(from, sizeof from, "%lld", (long long)(t0 / SEC - 1));
	snprintf(to, sizeof to, "%lld", (long long)(t1 / SEC));
	json_t *doc = query(&st, "from", from, "to", to, "top", "1", NULL);
	ck_assert_int_eq(st, 200);
	ck_assert_str_eq(str(doc, "verdict"), "fail");
	json_t *p3 = prio_row(doc, 3);
	/* 20 s x (1 + 0.25) sent, the same received: the rate of the first
	 * stormy sample may land a tick late, hence the tolerance. */
	ck_assert_msg(fabs(num(p3, "pause_seconds_tx") - 25) <= 1.3, "tx %g",
		      num(p3, "pause_seconds_tx"));
	ck_assert_msg(fabs(num(p3, "pause_seconds_rx") - 25) <= 1.3, "rx %g",
		      num(p3, "pause_seconds_rx"));
	ck_assert_msg(fabs(num(p3, "drops") - 40) <= 2, "drops %g",
		      num(p3, "drops"));
	ck_assert_str_eq(str(json_object_get(doc, "drops"), "verdict"), "fail");
	ck_assert(has_reason(doc, "drops on lossless priority 3"));
	ck_assert(has_reason(doc, "pfc_storm"));
	/* The storm, fired and resolved inside the range, with origin. */
	json_t *incs = json_object_get(doc, "incidents");
	ck_assert_int_ge(num(incs, "counts.pfc_storm"), 1);
	json_t *v, *storm = NULL;
	size_t i;
	json_array_foreach(json_object_get(incs, "list"), i,
			   v) if (!strcmp(str(v, "kind"), "pfc_storm")) storm =
	    v;
	ck_assert_ptr_nonnull(storm);
	ck_assert_str_eq(str(storm, "state"), "resolved");
	ck_assert_str_eq(str(json_object_get(storm, "origin"), "device"),
			 "hostA");
	/* Stragglers: top=1 keeps hostA (20 s), not hostB (5 s). */
	json_t *sg = json_object_get(doc, "stragglers");
	ck_assert_uint_eq(json_array_size(sg), 1);
	ck_assert_str_eq(str(json_array_get(sg, 0), "device"), "hostA");
	ck_assert_msg(
	    fabs(num(json_array_get(sg, 0), "pause_seconds_tx") - 20) <= 1.1,
	    "hostA %g", num(json_array_get(sg, 0), "pause_seconds_tx"));
	json_decref(doc);

	/* A range before the storm: nothing seen then. */
	snprintf(to, sizeof to, "%lld", (long long)(t0 / SEC - 6));
	snprintf(from, sizeof from, "%lld", (long long)(t0 / SEC - 100));
	doc = query(&st, "from", from, "to", to, NULL);
	ck_assert_int_eq(st, 200);
	ck_assert_double_eq(num(prio_row(doc, 3), "pause_seconds_tx"), 0);
	ck_assert_double_eq(num(doc, "incidents.counts.pfc_storm"), 0);
	/* ...and most of it before the history starts. */
	ck_assert(json_is_false(
	    json_object_get(json_object_get(doc, "coverage"), "complete")));
	ck_assert_str_eq(str(doc, "verdict"), "warn");
	json_decref(doc);
}
END_TEST

/* leaf0's egress to host0 is congested; the ingress ports pause
 * host1 and host2. marks: whether the egress queue marks ECN. */
static void ecn_fabric(bool marks)
{
	link2("leaf0", "Ethernet0", "host0", "mlx5_0");
	link2("leaf0", "Ethernet8", "host1", "mlx5_0");
	link2("leaf0", "Ethernet16", "host2", "mlx5_0");
	set("leaf0", "Ethernet0", FM_C_QUEUE_OCCUPANCY, 3, 3e6);
	set("leaf0", "Ethernet0", FM_C_ECN_MARKED, 3, marks ? 1e5 : 0);
	set("leaf0", "Ethernet8", FM_C_ECN_MARKED, 3, 0);
	set("leaf0", "Ethernet16", FM_C_ECN_MARKED, 3, 0);
	set("leaf0", "Ethernet8", FM_C_PFC_TX_PAUSE, 3, 0.5);
	set("host1", "mlx5_0", FM_C_PFC_RX_PAUSE, 3, 0.5);
	set("leaf0", "Ethernet16", FM_C_PFC_TX_PAUSE, 3, 0.5);
	set("host2", "mlx5_0", FM_C_PFC_RX_PAUSE, 3, 0.5);
	/* NIC counters make them hosts. */
	set("host1", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
	set("host2", "mlx5_0", FM_C_CNP_HANDLED, 0, 0);
}

START_TEST(test_ecn_before_pfc)
{
	ecn_fabric(false);
	steps(12);
	int st;
	json_t *doc = query(&st, NULL);
	ck_assert_int_eq(st, 200);
	json_t *e = json_object_get(doc, "ecn_before_pfc");
	ck_assert_str_eq(str(e, "verdict"), "warn");
	ck_assert_int_eq(num(e, "checked_ports"), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(e, "ports")), 2);
	json_t *p0 = json_array_get(json_object_get(e, "ports"), 0);
	ck_assert_str_eq(str(p0, "device"), "leaf0");
	ck_assert_int_eq(num(p0, "priority"), 3);
	ck_assert(has_reason(doc, "without marking ECN"));
	/* The stragglers are the hosts held paused. */
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "stragglers")),
			  2);
	json_decref(doc);
}
END_TEST

START_TEST(test_ecn_marking_passes)
{
	ecn_fabric(true);
	steps(12);
	int st;
	json_t *doc = query(&st, NULL);
	json_t *e = json_object_get(doc, "ecn_before_pfc");
	ck_assert_str_eq(str(e, "verdict"), "pass");
	ck_assert_int_eq(num(e, "checked_ports"), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(e, "ports")), 0);
	ck_assert_double_gt(num(prio_row(doc, 3), "ecn_marked"), 1e5);
	json_decref(doc);
}
END_TEST

START_TEST(test_bad_parameters)
{
	int st;
	const char *cases[][4] = {
		{ "from", "yesterday", NULL, NULL },
		{ "to", "2023-11-14T22:13:20", NULL, NULL },
		{ "from", "1700000100", "to", "1700000000" },
		{ "top", "0", NULL, NULL },
		{ "top", "1001", NULL, NULL },
		{ "top", "3x", NULL, NULL },
		{ "since", "1", NULL, NULL },
		{ "from", "1", "from", "2" },
		{ "from", "", NULL, NULL },
		{ "from", "0", "to", "18446744074" },
		{ "from", "99999999999", NULL, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *doc = query(&st, cases[i][0], cases[i][1], cases[i][2],
				    cases[i][3], NULL);
		ck_assert_msg(st == 400, "case %zu: %d", i, st);
		ck_assert_ptr_nonnull(
		    json_string_value(json_object_get(doc, "error")));
		json_decref(doc);
	}
	/* No report at all: an empty, incomplete report. */
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(report_api_serve(NULL, NULL, 0, &b, BASE_NS), 200);
	ck_assert_ptr_nonnull(strstr(b.data, "\"verdict\":\"warn\""));
	buf_fini(&b);
}
END_TEST

/* The window: buckets and resolved incidents older than it go. */
/* The report's and the incidents' queries word a repeated or an empty
 * parameter alike (one api_param_once), the key cut at 64 bytes. */
START_TEST(test_parameter_errors_read_alike)
{
	static const char long_key[] =
	    "k123456789012345678901234567890123456789012345678901234567890123"
	    "tail";
	const struct api_param twice[] = { { "from", "1" }, { "from", "2" } };
	const struct api_param kinds[] = { { "kind", "pfc_storm" },
					   { "kind", "incast" } };
	const struct api_param empty[] = { { "top", "" } };
	const struct api_param no_value[] = { { "state", NULL } };
	const struct api_param longer[] = { { long_key, "" } };
	struct {
		bool report;
		const struct api_param *p;
		size_t n;
		const char *want;
	} cases[] = {
		{ true, twice, 2, "parameter 'from' given more than once" },
		{ false, kinds, 2, "parameter 'kind' given more than once" },
		{ true, empty, 1, "parameter 'top' has no value" },
		{ false, no_value, 1, "parameter 'state' has no value" },
		{ true, longer, 1,
		  "parameter "
		  "'k1234567890123456789012345678901234567890123456789012345678"
		  "9"
		  "0123' has no value" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct buf b;
		buf_init(&b);
		int st = cases[i].report
			     ? report_api_serve(NULL, cases[i].p, cases[i].n,
						&b, BASE_NS)
			     : incidents_api_incidents(NULL, cases[i].p,
						       cases[i].n, &b);
		ck_assert_int_eq(st, 400);
		json_t *doc = json_loadb(b.data, b.len, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(
		    json_string_value(json_object_get(doc, "error")),
		    cases[i].want);
		json_decref(doc);
		buf_fini(&b);
	}
}
END_TEST

START_TEST(test_window_eviction)
{
	storm_fabric();
	set("hostA", "mlx5_0", FM_C_CNP_SENT, 0, 1);
	steps(5);
	int64_t early = treal(NULL);
	steps(700); /* window 10 min */
	int st;
	char from[32], to[32];
	snprintf(from, sizeof from, "%lld", (long long)(early / SEC - 5));
	snprintf(to, sizeof to, "%lld", (long long)(early / SEC));
	json_t *doc = query(&st, "from", from, "to", to, NULL);
	ck_assert_int_eq(st, 200);
	ck_assert(json_is_null(
	    json_object_get(json_object_get(doc, "coverage"), "from_seconds")));
	ck_assert_double_eq(num(doc, "cnp.sent"), 0);
	json_decref(doc);
	doc = query(&st, NULL);
	/* The whole kept window: 10 min, at most one bucket more. */
	double sent = num(doc, "cnp.sent");
	ck_assert_msg(sent >= 600 && sent <= 611, "cnp.sent %g", sent);
	json_decref(doc);
	size_t now, bound;
	report_memory(F.rep, &now, &bound);
	ck_assert_uint_le(now, bound);
}
END_TEST

/* Records beyond max_records evict the oldest buckets' detail first;
 * the totals stay exact. Also prints the bound at 1,000 x 64 ports. */
START_TEST(test_records_bound)
{
	struct store *st = store_new(NULL);
	struct report_opts o = { .window_ns = 3600 * SEC,
				 .step_ns = SEC,
				 .max_records = 1000,
				 .max_incidents = 10,
				 .lossless_mask = 1u << 3 };
	struct report *rep = report_new(st, &o);
	store_label dev[10];
	for (int d = 0; d < 10; d++) {
		char name[16];
		snprintf(name, sizeof name, "host%d", d);
		dev[d] = store_intern(st, name);
	}
	store_label port = store_intern(st, "mlx5_0");
	for (int t = 0; t <= 300; t++) {
		report_begin(rep, BASE_NS + t * SEC);
		for (int d = 0; d < 10; d++) {
			struct rules_port_rates p = { .device = dev[d],
						      .port = port,
						      .is_nic = true };
			p.pause_tx_s[3] = (float)(d + 1) / 100;
			report_port(rep, &p);
		}
		report_end(rep);
	}
	struct buf b;
	buf_init(&b);
	struct api_param q[] = { { "from", "1700000000" },
				 { "to", "1700000300" } };
	ck_assert_int_eq(report_api_serve(rep, q, 2, &b, BASE_NS + 300 * SEC),
			 200);
	json_t *doc = json_loadb(b.data, b.len, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	/* Totals: 300 s x sum(0.01..0.10) = 165 s. */
	ck_assert_msg(fabs(num(prio_row(doc, 3), "pause_seconds_tx") - 165) <
			  0.01,
		      "%g", num(prio_row(doc, 3), "pause_seconds_tx"));
	/* Detail: 10 records a second, 1000 kept -> the last 100 s. */
	double df = num(doc, "coverage.detail_from_seconds");
	ck_assert_msg(df >= 1700000200 && df <= 1700000202, "detail %g", df);
	json_t *top = json_array_get(json_object_get(doc, "stragglers"), 0);
	ck_assert_str_eq(str(top, "device"), "host9");
	json_decref(doc);
	buf_fini(&b);
	size_t now, bound;
	report_memory(rep, &now, &bound);
	ck_assert_uint_le(now, bound);
	report_free(rep);
	store_free(st);

	/* The defaults: 24 h of 1 min buckets, 1 Mi records. */
	struct report_opts d = { .window_ns = REPORT_DEFAULT_WINDOW_NS,
				 .step_ns = REPORT_DEFAULT_STEP_NS,
				 .max_records = REPORT_DEFAULT_RECORDS,
				 .max_incidents = REPORT_DEFAULT_INCIDENTS,
				 .lossless_mask = 1u << 3 };
	size_t db = report_memory_bound(&d);
	ck_assert_uint_lt(db, (size_t)128 << 20);
	printf("report: memory bound with the defaults: %.1f MiB\n",
	       (double)db / (1 << 20));
}
END_TEST

/* 1,000 switches x 64 ports, every port pausing on priority 3 every
 * tick (the worst case) for 30 minutes of 1 s ticks: memory stays
 * under the bound. */
START_TEST(test_memory_1000_switches)
{
	struct store *st = store_new(NULL);
	struct report_opts o = { .window_ns = REPORT_DEFAULT_WINDOW_NS,
				 .step_ns = REPORT_DEFAULT_STEP_NS,
				 .max_records = REPORT_DEFAULT_RECORDS,
				 .max_incidents = REPORT_DEFAULT_INCIDENTS,
				 .lossless_mask = 1u << 3 };
	struct report *rep = report_new(st, &o);
	enum { SW = 1000, PORTS = 64 };
	store_label *dl = calloc(SW, sizeof *dl), pl[PORTS];
	for (int d = 0; d < SW; d++) {
		char name[16];
		snprintf(name, sizeof name, "leaf%d", d);
		dl[d] = store_intern(st, name);
	}
	for (int p = 0; p < PORTS; p++) {
		char name[16];
		snprintf(name, sizeof name, "Ethernet%d", p);
		pl[p] = store_intern(st, name);
	}
	size_t peak = 0, bound = 0, now = 0;
	/* One tick per minute-bucket keeps the test short; each tick
	 * writes one record per port, as a storm everywhere would. */
	for (int t = 0; t < 30; t++) {
		report_begin(rep, BASE_NS + (int64_t)t * 60 * SEC);
		report_end(rep);
		report_begin(rep, BASE_NS + (int64_t)t * 60 * SEC + SEC);
		for (int d = 0; d < SW; d++)
			for (int p = 0; p < PORTS; p++) {
				struct rules_port_rates rp = { .device = dl[d],
							       .port = pl[p] };
				rp.pause_tx_s[3] = 0.5f;
				rp.ecn[3] = 1;
				rp.has_ecn = 1u << 3;
				report_port(rep, &rp);
			}
		report_end(rep);
		report_memory(rep, &now, &bound);
		if (now > peak)
			peak = now;
	}
	ck_assert_uint_le(peak, bound);
	printf("report: 1000 switches x 64 ports pausing every minute: "
	       "%.1f MiB held (bound %.1f MiB)\n",
	       (double)peak / (1 << 20), (double)bound / (1 << 20));
	free(dl);
	report_free(rep);
	store_free(st);
}
END_TEST

static size_t on_body(char *p, size_t sz, size_t n, void *ctx)
{
	buf_append(ctx, p, sz * n);
	return sz * n;
}

/* GET url; the status, the body in b. */
static long http_get(const char *url, struct buf *b)
{
	CURL *c = curl_easy_init();
	ck_assert_ptr_nonnull(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
	long code = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

START_TEST(test_over_http)
{
	storm_fabric();
	steps(3);
	set("leaf0", "Ethernet0", FM_C_PG_DROPS, 3, 5);
	steps(5);
	char err[256];
	struct http_server *h = http_new(F.st, NULL, NULL);
	http_set_rules(h, F.r, F.l);
	http_set_report(h, F.rep);
	ck_assert_int_eq(
	    http_add_listener(h, "127.0.0.1", "0", err, sizeof err), 0);
	ck_assert_msg(http_start(h, err, sizeof err) == 0, "%s", err);
	unsigned port = http_listener_port(h, 0);
	char url[256];
	struct buf b;
	buf_init(&b);
	snprintf(url, sizeof url,
		 "http://127.0.0.1:%u/api/v1/report?from=2023-11-14T22:13:20Z"
		 "&to=2023-11-14T22:15:00%%2B00:00",
		 port);
	ck_assert_int_eq(http_get(url, &b), 200);
	json_t *doc = json_loadb(b.data, b.len, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(str(doc, "verdict"), "fail");
	ck_assert_str_eq(str(doc, "from"), "2023-11-14T22:13:20Z");
	ck_assert_double_gt(num(prio_row(doc, 3), "drops"), 0);
	json_decref(doc);
	buf_reset(&b);
	snprintf(url, sizeof url,
		 "http://127.0.0.1:%u/api/v1/report?from=tuesday", port);
	ck_assert_int_eq(http_get(url, &b), 400);
	ck_assert_ptr_nonnull(strstr(b.data, "from:"));
	buf_fini(&b);
	http_free(h);
}
END_TEST

/* The alertmanager: and report: sections: values, defaults, errors. */
START_TEST(test_config_sections)
{
	char err[512];
	const char *ok = "alertmanager:\n"
			 "  url: https://am.example:9093/\n"
			 "  resend: 30s\n"
			 "  timeout: 2s\n"
			 "  max_alerts: 50\n"
			 "  labels: {fabric: fab1, zone: z2}\n"
			 "report: {window: 2h, step: 30s, max_records: 4096, "
			 "max_incidents: 7}\n";
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "a.yaml", ok,
					strlen(ok), err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->alert.n_urls, 1);
	ck_assert_str_eq(c->alert.urls[0], "https://am.example:9093");
	ck_assert_uint_eq(c->alert.resend_ns, 30 * SEC);
	ck_assert_uint_eq(c->alert.timeout_ns, 2 * SEC);
	ck_assert_uint_eq(c->alert.max_alerts, 50);
	ck_assert_uint_eq(c->alert.n_labels, 2);
	ck_assert_str_eq(c->alert.label_names[1], "zone");
	ck_assert_str_eq(c->alert.label_values[1], "z2");
	ck_assert_uint_eq(c->report.window_ns, 7200 * SEC);
	ck_assert_uint_eq(c->report.step_ns, 30 * SEC);
	ck_assert_uint_eq(c->report.max_records, 4096);
	ck_assert_uint_eq(c->report.max_incidents, 7);
	cfg_free(c);

	c = cfg_load_buffer(fabmond_cfg_schema(), "d.yaml", "interval: 1s\n",
			    13, err, sizeof err);
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->alert.n_urls, 0);
	ck_assert_uint_eq(c->alert.resend_ns, 60 * SEC);
	ck_assert_uint_eq(c->report.window_ns, REPORT_DEFAULT_WINDOW_NS);
	ck_assert_uint_eq(c->report.step_ns, REPORT_DEFAULT_STEP_NS);
	ck_assert_uint_eq(c->report.max_records, REPORT_DEFAULT_RECORDS);
	ck_assert_uint_eq(c->report.max_incidents, REPORT_DEFAULT_INCIDENTS);
	cfg_free(c);

	static const char *const bad[][2] = {
		{ "alertmanager: {resend: 1m}\n",
		  "b.yaml:1:15: alertmanager: missing required key \"urls\" "
		  "(or "
		  "\"url\")" },
		{ "alertmanager:\n  url: 127.0.0.1:9093\n",
		  "b.yaml:2:8: alertmanager.url: \"127.0.0.1:9093\" is not an "
		  "http:// or https:// URL" },
		{ "alertmanager:\n  url: http://a\n  resend: 0s\n",
		  "b.yaml:3:11: alertmanager.resend: " },
		{ "alertmanager:\n  url: http://a\n  labels: {9x: y}\n",
		  "b.yaml:3:12: alertmanager.labels: \"9x\" is not a label "
		  "name" },
		{ "alertmanager:\n  url: http://a\n  labels: {kind: y}\n",
		  "b.yaml:3:12: alertmanager.labels: \"kind\" is set by "
		  "fabmond itself" },
		{ "alertmanager:\n  url: http://a\n  lables: {}\n",
		  "b.yaml:3:3: alertmanager.lables: unknown key (did you mean "
		  "\"labels\"?)" },
		{ "report: {window: 30s}\n", "b.yaml:1:18: report.window: " },
		{ "report: {window: 10m, step: 20m}\n",
		  "b.yaml:1:29: report.step: must not exceed window" },
		{ "report: {max_records: 0}\n",
		  "b.yaml:1:23: report.max_records: " },
		{ "report: {step: 1s, window: 31d}\n",
		  "b.yaml:1:16: report.step: window / step must be at most" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		c = cfg_load_buffer(fabmond_cfg_schema(), "b.yaml", bad[i][0],
				    strlen(bad[i][0]), err, sizeof err);
		ck_assert_msg(!c, "accepted: %s", bad[i][0]);
		ck_assert_msg(strncmp(err, bad[i][1], strlen(bad[i][1])) == 0,
			      "case %zu: got '%s', want '%s...'", i, err,
			      bad[i][1]);
	}
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parse_time);
	tcase_add_test(tc, test_clean_run_passes);
	tcase_add_test(tc, test_storm_drops_and_stragglers);
	tcase_add_test(tc, test_ecn_before_pfc);
	tcase_add_test(tc, test_ecn_marking_passes);
	tcase_add_test(tc, test_bad_parameters);
	tcase_add_test(tc, test_parameter_errors_read_alike);
	tcase_add_test(tc, test_window_eviction);
	tcase_add_test(tc, test_records_bound);
	tcase_add_test(tc, test_memory_1000_switches);
	tcase_add_test(tc, test_over_http);
	tcase_add_test(tc, test_config_sections);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_ALL);
	SRunner *sr = srunner_create(report_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
