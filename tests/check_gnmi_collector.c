/*
 * check_gnmi_collector: the gNMI collector end to end over loopback. A
 * real gNMI server (the target library, gRPC core) on 127.0.0.1 with a
 * port the kernel picks streams to the real collector, which writes a
 * real store through the shipped profiles; the last tests run the
 * fabmond binary against it and read /metrics and /api/v1/incidents
 * over HTTP (a SONiC switch held paused by a neighbour outside the
 * view). The target, collector and waits are gnmi_fixture.h's.
 *
 * Waits are bounded polls (a hang guard, not a timing check): each
 * condition is awaited for up to WAIT_S seconds.
 */
#include "config.h"

#include "cfg.h"
#include "client.h"
#include "collector.h"
#include "fabmond.h"
#include "health.h"
#include "log.h"
#include "store.h"
#include "target.h"

#include "gnmi_fixture.h"

#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T0 INT64_C(1800000000000000000) /* a tick timestamp, ns */

#define PFC3                                                             \
	"/interfaces/interface[name=Ethernet1]/ethernet/pfc/priorities/" \
	"priority[index=3]/state/"
#define OCTETS "/interfaces/interface[name=Ethernet1]/state/counters/in-octets"

/* One series' copy, if it exists. */
static bool read_series(const char *dev, const char *port, enum fm_counter c,
			uint32_t sub, struct store_sample *out)
{
	struct store_key k = {
		.device = store_intern(st, dev),
		.port = store_intern(st, port),
		.counter = (uint16_t)c,
		.sub = sub,
	};
	store_handle h = store_lookup(st, &k);
	if (!h)
		return false;
	return store_read(st, store_handle_slot(h), out) == 0 && out->has_value;
}

static bool value_is(const char *dev, const char *port, enum fm_counter c,
		     uint32_t sub, double want)
{
	struct store_sample s;
	return read_series(dev, port, c, sub, &s) &&
	       fabs(s.value - want) < 1e-9;
}

static bool rate_is(const char *dev, const char *port, enum fm_counter c,
		    uint32_t sub, double want)
{
	struct store_sample s;
	return read_series(dev, port, c, sub, &s) && s.has_rate &&
	       fabs(s.rate - want) < 1e-6 * (fabs(want) + 1);
}

/* Health entries of target, whatever the protocol. */
static size_t n_entries(const char *target)
{
	struct health_target_info *v = NULL;
	size_t n = health_snapshot(hl, &v), k = 0;
	for (size_t i = 0; i < n; i++)
		k += strcmp(v[i].target, target) == 0;
	health_snapshot_free(v, n);
	return k;
}

static bool error_contains(const char *target, const char *text)
{
	return get_info(target) && !info.up && info.last_error &&
	       strstr(info.last_error, text);
}

static void set_pfc(uint64_t frames, uint64_t paused_ns, int64_t ts)
{
	ck_assert_int_eq(gnmi_target_set_uint(tgt, PFC3 "in-frames", frames),
			 0);
	ck_assert_int_eq(
	    gnmi_target_set_uint(tgt, PFC3 "pfc-on-total-rx-time", paused_ns),
	    0);
	ck_assert_int_eq(gnmi_target_set_uint(tgt, OCTETS, frames * 100), 0);
	gnmi_target_tick(tgt, ts);
}

static const char *arista_cfg =
    "targets:\n"
    "  - name: leaf1\n"
    "    gnmi:\n"
    "      address: 127.0.0.1:%d\n"
    "      insecure: true\n"
    "      profile: arista\n"
    "      %s\n"
    "      subscriptions:\n"
    "        - path: /interfaces/interface[name=*]/ethernet/pfc\n"
    "          sample_interval: 100ms\n"
    "        - path: /interfaces/interface[name=*]/state/counters\n"
    "          sample_interval: 100ms\n";

START_TEST(test_stream_values_reach_the_store_converted)
{
	start_target(NULL);
	set_pfc(1000, 500000000, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));

	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 1000),
		 "pfc frames never arrived");
	ck_assert(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_PAUSE, 3, 0.5));
	ck_assert(value_is("leaf1", "Ethernet1", FM_C_BYTES_RX, 0, 100000));

	/* One second later by the target's clock: rates from its stamps. */
	set_pfc(3000, 1500000000, T0 + NS_PER_S);
	WAIT_FOR(rate_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 2000),
		 "no frame rate");
	ck_assert(rate_is("leaf1", "Ethernet1", FM_C_PFC_RX_PAUSE, 3, 1.0));
	ck_assert(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_PAUSE, 3, 1.5));

	ck_assert(get_info("leaf1"));
	ck_assert(info.up);
	ck_assert(info.sync_seen);
	ck_assert_uint_gt(info.counters[HEALTH_C_UPDATES], 0);
	ck_assert_uint_eq(info.counters[HEALTH_C_DECODE_ERRORS], 0);
}
END_TEST

START_TEST(test_once_mode_collects_every_interval)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt),
				 "mode: once\n      interval: 200ms"));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "first ONCE did not arrive");
	set_pfc(20, 0, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 20),
		 "ONCE was not run again");
	ck_assert(get_info("leaf1"));
	ck_assert(info.up);
}
END_TEST

START_TEST(test_poll_mode_polls_every_interval)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt),
				 "mode: poll\n      poll_interval: 200ms"));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "initial POLL data did not arrive");
	set_pfc(30, 0, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 30),
		 "no poll answer");
	ck_assert(rate_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 20));
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 1);
}
END_TEST

START_TEST(test_server_restart_reconnects_and_data_resumes)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data before the restart");

	ck_assert_int_eq(gnmi_target_stop(tgt), 0);
	WAIT_FOR(get_info("leaf1") && !info.up, "target still up when stopped");
	ck_assert_ptr_nonnull(strstr(info.last_error, "UNAVAILABLE"));
	ck_assert_int_eq(gnmi_target_start(tgt), 0);
	set_pfc(50, 0, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 50),
		 "data did not resume after the restart");
	ck_assert(rate_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 40));
	ck_assert(get_info("leaf1"));
	ck_assert(info.up);
	ck_assert_uint_ge(info.counters[HEALTH_C_RECONNECTS], 1);
}
END_TEST

START_TEST(test_silent_stream_is_resubscribed_by_the_watchdog)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data before the silence");
	/* 100 ms samples: silence past 300 ms is a dead stream. */
	gnmi_target_set_silent(tgt, true);
	WAIT_FOR(get_info("leaf1") && info.counters[HEALTH_C_RECONNECTS] >= 1,
		 "the watchdog never resubscribed");
	/* Silence is reported, not read as health. */
	WAIT_FOR(get_info("leaf1") && !info.up, "target still up while silent");
	ck_assert_ptr_nonnull(strstr(info.last_error, "no message"));
	gnmi_target_set_silent(tgt, false);
	set_pfc(70, 0, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 70),
		 "data did not resume after the silence");
	WAIT_FOR(get_info("leaf1") && info.up,
		 "target not up after the silence");
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 1);
}
END_TEST

START_TEST(test_wrong_password_is_reported_and_not_retried_hot)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.username = "fabmon";
	o.password = "right";
	start_target(&o);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt),
				 "username: fabmon\n      password: wrong"));
	WAIT_FOR(error_contains("leaf1", "UNAUTHENTICATED"),
		 "no UNAUTHENTICATED reason: %s",
		 info.last_error ? info.last_error : "(none)");
	uint64_t errors = info.counters[HEALTH_C_ERRORS];
	sleep_ms(1500);
	ck_assert(get_info("leaf1"));
	ck_assert_msg(info.counters[HEALTH_C_ERRORS] == errors,
		      "retried within 1.5 s: %llu errors",
		      (unsigned long long)info.counters[HEALTH_C_ERRORS]);
	ck_assert_ptr_nonnull(strstr(info.last_error, "retrying in"));
	ck_assert(!value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10));
}
END_TEST

START_TEST(test_right_password_streams)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.username = "fabmon";
	o.password = "s3cret";
	start_target(&o);
	set_pfc(10, 0, T0);
	char secret[300];
	snprintf(secret, sizeof secret, "%s/pw", tmpdir);
	FILE *f = fopen(secret, "w");
	ck_assert_ptr_nonnull(f);
	fputs("s3cret\n", f);
	fclose(f);
	char extra[400];
	snprintf(extra, sizeof extra,
		 "username: fabmon\n      password_file: %s", secret);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), extra));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data with the right password");
}
END_TEST

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A CA, a server certificate for 127.0.0.1/localhost and a client
 * certificate, made with the openssl command. */
static void make_certs(void)
{
	char cmd[2048];
	snprintf(
	    cmd, sizeof cmd,
	    "cd %s && "
	    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
	    "-nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca "
	    ">/dev/null 2>&1 && "
	    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
	    "-keyout srv.key -out srv.csr -subj /CN=localhost >/dev/null "
	    "2>&1 && "
	    "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > "
	    "srv.ext && "
	    "openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -out srv.pem -days 2 -extfile srv.ext "
	    ">/dev/null 2>&1 && "
	    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
	    "-keyout cli.key -out cli.csr -subj /CN=fabmon >/dev/null 2>&1 "
	    "&& openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -out cli.pem -days 2 >/dev/null 2>&1",
	    tmpdir);
	ck_assert_msg(system(cmd) == 0, "openssl failed");
}

static void start_tls_target(bool mutual)
{
	char p[300];
	make_certs();
	snprintf(p, sizeof p, "%s/srv.pem", tmpdir);
	char *cert = slurp(p);
	snprintf(p, sizeof p, "%s/srv.key", tmpdir);
	char *key = slurp(p);
	snprintf(p, sizeof p, "%s/ca.pem", tmpdir);
	char *ca = slurp(p);
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.tls_cert_pem = cert;
	o.tls_key_pem = key;
	o.tls_client_ca_pem = mutual ? ca : NULL;
	start_target(&o);
	free(cert);
	free(key);
	free(ca);
}

static const char *tls_cfg =
    "targets:\n"
    "  - name: leaf1\n"
    "    gnmi:\n"
    "      address: 127.0.0.1:%d\n"
    "      profile: arista\n"
    "      ca: %s/ca.pem\n"
    "      server_name: localhost\n"
    "%s"
    "      subscriptions:\n"
    "        - path: /interfaces/interface[name=*]/ethernet/pfc\n"
    "          sample_interval: 100ms\n";

START_TEST(test_tls_verifies_the_target)
{
	start_tls_target(false);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(tls_cfg, gnmi_target_port(tgt), tmpdir, ""));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data over TLS");
}
END_TEST

START_TEST(test_skip_verify_trusts_any_certificate)
{
	start_tls_target(false);
	set_pfc(10, 0, T0);
	/* No CA at all: only skip_verify lets this through. */
	start_collector(
	    load_cfg("targets:\n"
		     "  - name: leaf1\n"
		     "    gnmi:\n"
		     "      address: 127.0.0.1:%d\n"
		     "      profile: arista\n"
		     "      skip_verify: true\n"
		     "      subscriptions:\n"
		     "        - path: /interfaces/interface[name=*]/"
		     "ethernet/pfc\n"
		     "          sample_interval: 100ms\n",
		     gnmi_target_port(tgt)));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data with skip_verify");
}
END_TEST

START_TEST(test_mtls_needs_the_client_certificate)
{
	start_tls_target(true);
	set_pfc(10, 0, T0);
	char extra[700];
	snprintf(extra, sizeof extra,
		 "      cert: %s/cli.pem\n      key: %s/cli.key\n", tmpdir,
		 tmpdir);
	/* Without a client certificate the handshake fails: down. */
	struct cfg *c = load_cfg(tls_cfg, gnmi_target_port(tgt), tmpdir, "");
	start_collector(c);
	WAIT_FOR(error_contains("leaf1", "UNAVAILABLE"),
		 "no failure without a client certificate");
	gnmi_collector_ops.stop(col);
	col = NULL;
	cfg_free(cfg);
	cfg = NULL;
	/* With it: data. */
	start_collector(
	    load_cfg(tls_cfg, gnmi_target_port(tgt), tmpdir, extra));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data over mutual TLS");
}
END_TEST

START_TEST(test_malformed_message_is_counted_and_stream_goes_on)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data before the garbage");
	static const unsigned char garbage[] = { 0x0a, 0xff, 0xff, 0xff,
						 0xff, 0x0f, 0x01, 0x02 };
	ck_assert_uint_eq(gnmi_target_inject(tgt, garbage, sizeof garbage), 1);
	WAIT_FOR(get_info("leaf1") &&
		     info.counters[HEALTH_C_DECODE_ERRORS] >= 1,
		 "the malformed message was not counted");
	set_pfc(90, 0, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 90),
		 "the stream did not go on");
	ck_assert(get_info("leaf1"));
	ck_assert_uint_eq(info.counters[HEALTH_C_RECONNECTS], 0);
	ck_assert(info.up);
}
END_TEST

/* A switch that sends "n/a" for a counter (fabsim's wrong_types fault):
 * counted as a decode error, not silently dropped; the rest goes on. */
START_TEST(test_a_counter_that_is_not_a_number_is_counted)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "no data before the bad value");
	ck_assert_int_eq(gnmi_target_set_string(tgt, PFC3 "in-frames", "n/a"),
			 0);
	ck_assert_int_eq(gnmi_target_set_uint(tgt, OCTETS, 7000), 0);
	gnmi_target_tick(tgt, T0 + NS_PER_S);
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_BYTES_RX, 0, 7000),
		 "the other counters did not go on");
	WAIT_FOR(get_info("leaf1") &&
		     info.counters[HEALTH_C_DECODE_ERRORS] >= 1,
		 "the non-number was not counted");
	ck_assert(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10));
}
END_TEST

START_TEST(test_sonic_counters_db_json_ietf_maps_through_the_profile)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.encodings = GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
	start_target(&o);
	char p[512];
	snprintf(p, sizeof p,
		 "%s/tests/data/sonic-gnmi/COUNTERS_Ethernet68.txt", srcdir());
	char *json = slurp(p);
	ck_assert_int_eq(gnmi_target_set_json(tgt, "COUNTERS/Ethernet68", json),
			 0);
	gnmi_target_tick(tgt, T0);
	free(json);
	/* The profile's own subscriptions and its COUNTERS_DB target. */
	start_collector(load_cfg("targets:\n"
				 "  - name: sonic1\n"
				 "    gnmi:\n"
				 "      address: 127.0.0.1:%d\n"
				 "      insecure: true\n"
				 "      target: COUNTERS_DB\n",
				 gnmi_target_port(tgt)));
	/* SAI_PORT_STAT_PFC_7_RX_PKTS is "2" in the recording. */
	WAIT_FOR(value_is("sonic1", "Ethernet68", FM_C_PFC_RX_FRAMES, 7, 2),
		 "SONiC PFC counter did not arrive");
	ck_assert(get_info("sonic1"));
	ck_assert(info.up);
	ck_assert_uint_gt(info.counters[HEALTH_C_UPDATES], 0);
	/* The profile's LLDP table (APPL_DB) comes on a second stream,
	 * which has no health entry of its own. */
	WAIT_FOR(gnmi_target_stream_count(tgt) == 2,
		 "%zu streams, not COUNTERS_DB's and APPL_DB's",
		 gnmi_target_stream_count(tgt));
	ck_assert_uint_eq(n_entries("sonic1"), 1);
}
END_TEST

/* A target that behaves like sonic-gnmi: JSON encodings only, sample
 * intervals under 1 s refused. */
static void start_sonic_target(void)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.encodings = GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
	o.min_sample_interval_ns = NS_PER_S;
	start_target(&o);
}

/*
 * SONiC's port speeds: COUNTERS_DB has none, the sonic profile reads
 * them from APPL_DB's PORT_TABLE on its second stream (10 s samples).
 * The target serves PORT_TABLE/<port> as SWSS keeps it (strings, speed
 * in Mb/s); the port's link_speed arrives in bytes/s, a series that
 * expects the table's 10 s interval, beside the COUNTERS_DB counters.
 */
START_TEST(test_sonic_port_speed_arrives_from_appl_db)
{
	start_sonic_target();
	ck_assert_int_eq(
	    gnmi_target_set_json(tgt, "COUNTERS/Ethernet8",
				 "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"5\"}"),
	    0);
	ck_assert_int_eq(
	    gnmi_target_set_json(
		tgt, "PORT_TABLE/Ethernet8",
		"{\"admin_status\":\"up\",\"alias\":\"etp2\","
		"\"description\":\"\",\"fec\":\"rs\",\"index\":\"1\","
		"\"lanes\":\"8,9,10,11,12,13,14,15\",\"mtu\":\"9100\","
		"\"oper_status\":\"up\",\"pfc_asym\":\"off\","
		"\"speed\":\"400000\",\"tpid\":\"0x8100\"}"),
	    0);
	gnmi_target_tick(tgt, T0);
	start_collector(load_cfg("targets:\n"
				 "  - name: sonic1\n"
				 "    gnmi:\n"
				 "      address: 127.0.0.1:%d\n"
				 "      insecure: true\n"
				 "      target: COUNTERS_DB\n",
				 gnmi_target_port(tgt)));
	WAIT_FOR(value_is("sonic1", "Ethernet8", FM_C_LINK_SPEED, 0, 50e9),
		 "the port's speed did not arrive from PORT_TABLE");
	/* The counters come on the other stream, in their own time. */
	WAIT_FOR(value_is("sonic1", "Ethernet8", FM_C_PFC_RX_FRAMES, 3, 5),
		 "the COUNTERS_DB counter did not arrive beside the speed");
	struct store_sample v;
	ck_assert(read_series("sonic1", "Ethernet8", FM_C_LINK_SPEED, 0, &v));
	ck_assert_uint_eq(v.interval_ms, 10000);
	ck_assert(!v.stale);
	/* The PORT_TABLE fields it ignores are not the target's error. */
	ck_assert(get_info("sonic1"));
	ck_assert(info.up);
	ck_assert_uint_eq(info.counters[HEALTH_C_ERRORS], 0);
}
END_TEST

/* A subscription with another prefix target goes on a stream of its
 * own; when the target refuses that one (here its sample interval),
 * the switch stays up on its main stream and the helper is not retried
 * hot. */
START_TEST(test_helper_stream_failure_leaves_the_switch_up)
{
	start_sonic_target();
	ck_assert_int_eq(
	    gnmi_target_set_json(tgt, "COUNTERS/Ethernet0",
				 "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":"
				 "\"5\"}"),
	    0);
	gnmi_target_tick(tgt, T0);
	start_collector(load_cfg("targets:\n"
				 "  - name: sonic1\n"
				 "    gnmi:\n"
				 "      address: 127.0.0.1:%d\n"
				 "      insecure: true\n"
				 "      profile: sonic\n"
				 "      subscriptions:\n"
				 "        - path: /COUNTERS/Ethernet*\n"
				 "          sample_interval: 1s\n"
				 "        - path: /LLDP_ENTRY_TABLE\n"
				 "          sample_interval: 10ms\n"
				 "          target: APPL_DB\n",
				 gnmi_target_port(tgt)));
	WAIT_FOR(value_is("sonic1", "Ethernet0", FM_C_PFC_RX_FRAMES, 3, 5),
		 "the main stream's counter did not arrive");
	sleep_ms(1500);
	ck_assert(get_info("sonic1"));
	ck_assert(info.up);
	ck_assert_ptr_null(info.last_error);
	ck_assert_uint_eq(info.counters[HEALTH_C_ERRORS], 0);
	ck_assert_uint_eq(n_entries("sonic1"), 1);
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 1);
}
END_TEST

/*
 * Priority-group drops through COUNTERS_PG_NAME_MAP (the sonic
 * profile's pg map). Ids and values are entries of sonic-utilities'
 * mock COUNTERS_DB (tests/data/sonic-counters-db/counters_db.json).
 */
#define PG_E0_3	 "oid:0x1a000000000352" /* Ethernet0:3, 803 drops */
#define PG_E4_3	 "oid:0x1a00000000037a" /* Ethernet4:3, 403 drops */
#define PG_E8_3	 "oid:0x1a0000000003a2" /* Ethernet8:3, 103 drops */
#define PG_DROPS "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"

static void set_pg(const char *oid, uint64_t drops)
{
	char path[64], json[256];
	snprintf(path, sizeof path, "COUNTERS/%s", oid);
	snprintf(json, sizeof json,
		 "{\"" PG_DROPS "\":\"%llu\","
		 "\"SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES\":"
		 "\"0\"}",
		 (unsigned long long)drops);
	ck_assert_int_eq(gnmi_target_set_json(tgt, path, json), 0);
}

static const char *pg_cfg = "targets:\n"
			    "  - name: sonic1\n"
			    "    gnmi:\n"
			    "      address: 127.0.0.1:%d\n"
			    "      insecure: true\n"
			    "      profile: sonic\n"
			    "      subscriptions:\n"
			    "        - path: /COUNTERS/oid:0x1a00000000dead\n"
			    "          sample_interval: 1s\n";

static void start_pg_target(const char *map)
{
	start_sonic_target();
	ck_assert_int_eq(gnmi_target_set_json(tgt, "COUNTERS_PG_NAME_MAP", map),
			 0);
	set_pg(PG_E0_3, 803);
	set_pg(PG_E4_3, 403);
	set_pg(PG_E8_3, 103);
	/* A PG the map does not name, which the config subscribes to. */
	set_pg("oid:0x1a00000000dead", 1);
	gnmi_target_tick(tgt, T0);
}

/* The map's ids get a stream of their own; their drops become pg_drops
 * of the (port, priority) the map names, with rates from the tick
 * timestamps. Malformed fields are counted and the others work; an id
 * the map does not name stays unmapped. */
START_TEST(test_sonic_pg_drops_resolve_through_the_name_map)
{
	start_pg_target("{\"Ethernet0:3\":\"" PG_E0_3 "\","
			"\"Ethernet4:3\":\"" PG_E4_3 "\","
			"\"Ethernet0\":\"oid:0x1\",\"Ethernet0:x\":\"oid:0x2\","
			"\":3\":\"oid:0x3\"}");
	start_collector(load_cfg(pg_cfg, gnmi_target_port(tgt)));
	WAIT_FOR(value_is("sonic1", "Ethernet0", FM_C_PG_DROPS, 3, 803) &&
		     value_is("sonic1", "Ethernet4", FM_C_PG_DROPS, 3, 403),
		 "PG drops did not arrive through the map");
	/* The main stream (map and the unnamed id) and the objects one. */
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 2);
	ck_assert(get_info("sonic1"));
	ck_assert(info.up);
	ck_assert_uint_eq(info.counters[HEALTH_C_DECODE_ERRORS], 3);
	WAIT_FOR(get_info("sonic1") && info.counters[HEALTH_C_UNMAPPED] > 0,
		 "the unnamed PG was not counted unmapped");
	struct store_sample v;
	ck_assert(!read_series("sonic1", "Ethernet8", FM_C_PG_DROPS, 3, &v));
	/* 10 s later (the PG_DROP interval): 50 more drops on Ethernet0. */
	set_pg(PG_E0_3, 853);
	set_pg(PG_E4_3, 403);
	gnmi_target_tick(tgt, T0 + 10 * NS_PER_S);
	WAIT_FOR(rate_is("sonic1", "Ethernet0", FM_C_PG_DROPS, 3, 5.0) &&
		     rate_is("sonic1", "Ethernet4", FM_C_PG_DROPS, 3, 0.0),
		 "PG drop rates are not 5/s and 0/s");
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 2);
}
END_TEST

/* A new PG in the map: the objects stream subscribes again with its
 * id (once), and its drops arrive; the map's stream is not touched. */
START_TEST(test_a_new_pg_in_the_map_is_subscribed)
{
	start_pg_target("{\"Ethernet0:3\":\"" PG_E0_3 "\"}");
	start_collector(load_cfg(pg_cfg, gnmi_target_port(tgt)));
	WAIT_FOR(value_is("sonic1", "Ethernet0", FM_C_PG_DROPS, 3, 803),
		 "the first PG's drops did not arrive");
	ck_assert_int_eq(
	    gnmi_target_set_json(tgt, "COUNTERS_PG_NAME_MAP",
				 "{\"Ethernet0:3\":\"" PG_E0_3 "\","
				 "\"Ethernet8:3\":\"" PG_E8_3 "\"}"),
	    0);
	gnmi_target_tick(tgt, T0 + NS_PER_S);
	WAIT_FOR(value_is("sonic1", "Ethernet8", FM_C_PG_DROPS, 3, 103),
		 "the new PG's drops did not arrive");
	ck_assert(value_is("sonic1", "Ethernet0", FM_C_PG_DROPS, 3, 803));
	ck_assert_uint_eq(gnmi_target_stream_count(tgt), 2);
	ck_assert(get_info("sonic1"));
	ck_assert(info.up);
	/* Resubscribing the objects is not a reconnect of the switch. */
	ck_assert_uint_eq(info.counters[HEALTH_C_RECONNECTS], 0);
	ck_assert_uint_eq(info.counters[HEALTH_C_ERRORS], 0);
}
END_TEST

/* The map sent again (same ids, another order, another field moved
 * to a listed id) does not resubscribe the objects; a change that
 * adds two PGs at once resubscribes once. */
START_TEST(test_objects_resubscribe_only_when_the_ids_change)
{
	char logf[128];
	snprintf(logf, sizeof logf, "%s/log", tmpdir);
	int fd = open(logf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	log_set_fd(fd);
	start_pg_target("{\"Ethernet0:3\":\"" PG_E0_3 "\","
			"\"Ethernet4:3\":\"" PG_E4_3 "\"}");
	start_collector(load_cfg(pg_cfg, gnmi_target_port(tgt)));
	WAIT_FOR(value_is("sonic1", "Ethernet4", FM_C_PG_DROPS, 3, 403),
		 "the PG drops did not arrive");
	static const char *const same[] = {
		"{\"Ethernet4:3\":\"" PG_E4_3 "\","
		"\"Ethernet0:3\":\"" PG_E0_3 "\"}",
		"{\"Ethernet0:3\":\"" PG_E0_3 "\","
		"\"Ethernet4:3\":\"" PG_E4_3 "\","
		"\"Ethernet12:3\":\"" PG_E4_3 "\"}",
	};
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(
		    gnmi_target_set_json(tgt, "COUNTERS_PG_NAME_MAP", same[i]),
		    0);
		gnmi_target_tick(tgt, T0 + (i + 1) * NS_PER_S);
	}
	/* Ethernet12:3 names a listed id: mapped once the map says so. */
	set_pg(PG_E4_3, 410);
	gnmi_target_tick(tgt, T0 + 10 * NS_PER_S);
	WAIT_FOR(value_is("sonic1", "Ethernet12", FM_C_PG_DROPS, 3, 410) ||
		     value_is("sonic1", "Ethernet4", FM_C_PG_DROPS, 3, 410),
		 "the moved field's PG did not update");
	ck_assert_int_eq(lines_with(logf, "subscribing again"), 0);
	ck_assert_int_eq(
	    gnmi_target_set_json(tgt, "COUNTERS_PG_NAME_MAP",
				 "{\"Ethernet0:3\":\"" PG_E0_3 "\","
				 "\"Ethernet4:3\":\"" PG_E4_3 "\","
				 "\"Ethernet8:3\":\"" PG_E8_3 "\","
				 "\"Ethernet8:4\":\"oid:0x1a0000000003a3\"}"),
	    0);
	set_pg("oid:0x1a0000000003a3", 104);
	gnmi_target_tick(tgt, T0 + 11 * NS_PER_S);
	WAIT_FOR(value_is("sonic1", "Ethernet8", FM_C_PG_DROPS, 3, 103) &&
		     value_is("sonic1", "Ethernet8", FM_C_PG_DROPS, 4, 104),
		 "the new PGs' drops did not arrive");
	ck_assert_int_eq(lines_with(logf, "[pg objects]: 4 objects now: "
					  "subscribing again"),
			 1);
	ck_assert_int_eq(lines_with(logf, "subscribing again"), 1);
	log_set_fd(2);
	close(fd);
}
END_TEST

START_TEST(test_unsupported_encoding_is_reported)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.encodings = GNMI_TARGET_ENC_PROTO;
	start_target(&o);
	start_collector(
	    load_cfg(arista_cfg, gnmi_target_port(tgt), "encoding: json_ietf"));
	WAIT_FOR(error_contains("leaf1", "encoding json_ietf is not supported"),
		 "no encoding error: %s",
		 info.last_error ? info.last_error : "(none)");
}
END_TEST

START_TEST(test_refused_sample_interval_is_reported_not_hot_retried)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.min_sample_interval_ns = NS_PER_S;
	start_target(&o);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(error_contains("leaf1", "INVALID_ARGUMENT"),
		 "no INVALID_ARGUMENT: %s",
		 info.last_error ? info.last_error : "(none)");
	ck_assert_ptr_nonnull(strstr(info.last_error, "1s"));
	uint64_t errors = info.counters[HEALTH_C_ERRORS];
	sleep_ms(1500);
	ck_assert(get_info("leaf1"));
	ck_assert_uint_eq(info.counters[HEALTH_C_ERRORS], errors);
}
END_TEST

START_TEST(test_unreachable_target_backs_off)
{
	/* A port nothing listens on (the target is made and freed). */
	start_target(NULL);
	int port = gnmi_target_port(tgt);
	gnmi_target_free(tgt);
	tgt = NULL;
	start_collector(load_cfg(arista_cfg, port, ""));
	WAIT_FOR(error_contains("leaf1", "UNAVAILABLE"), "not reported down");
	sleep_ms(2000);
	ck_assert(get_info("leaf1"));
	/* Backoff from 1 s with full jitter: a handful, not hundreds. */
	ck_assert_uint_le(info.counters[HEALTH_C_ERRORS], 6);
}
END_TEST

START_TEST(test_reload_retries_a_target_that_could_not_start)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	/* The profile is looked up in an empty directory first. */
	char text[2048], err[512], cmd[1024];
	snprintf(text, sizeof text,
		 "profiles_dir: %s\n"
		 "targets:\n"
		 "  - name: leaf1\n"
		 "    gnmi:\n"
		 "      address: 127.0.0.1:%d\n"
		 "      insecure: true\n"
		 "      profile: arista\n"
		 "      subscriptions:\n"
		 "        - path: /interfaces/interface[name=*]/ethernet/pfc\n"
		 "          sample_interval: 100ms\n",
		 tmpdir, gnmi_target_port(tgt));
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", text,
					strlen(text), err, sizeof err);
	ck_assert_msg(c != NULL, "%s", err);
	start_collector(c);
	WAIT_FOR(error_contains("leaf1", "profile:"), "no profile error");
	/* The file appears; the same config, reloaded, now works. */
	snprintf(cmd, sizeof cmd, "cp %s/etc/profiles/arista.yaml %s/",
		 srcdir(), tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	struct cfg *again =
	    cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", text, strlen(text),
			    err, sizeof err);
	ck_assert_ptr_nonnull(again);
	ck_assert_int_eq(gnmi_collector_ops.reload(col, again), 0);
	cfg_free(cfg);
	cfg = again;
	WAIT_FOR(value_is("leaf1", "Ethernet1", FM_C_PFC_RX_FRAMES, 3, 10),
		 "the reloaded target did not start");
}
END_TEST

START_TEST(test_reload_stops_removed_targets)
{
	start_target(NULL);
	set_pfc(10, 0, T0);
	start_collector(load_cfg(arista_cfg, gnmi_target_port(tgt), ""));
	WAIT_FOR(gnmi_target_stream_count(tgt) == 1, "no stream");
	struct cfg *empty = load_cfg("interval: 1s\n");
	ck_assert_int_eq(gnmi_collector_ops.reload(col, empty), 0);
	cfg_free(cfg);
	cfg = empty;
	WAIT_FOR(gnmi_target_stream_count(tgt) == 0,
		 "the removed target still streams");
}
END_TEST

/*
 * fabmond itself: a config pointing at the target, a real scrape, the
 * exposition typed and converted, checked by promtool when available.
 */
struct body {
	char *p;
	size_t n;
};

static size_t on_body(char *d, size_t sz, size_t nm, void *ctx)
{
	struct body *b = ctx;
	b->p = realloc(b->p, b->n + sz * nm + 1);
	memcpy(b->p + b->n, d, sz * nm);
	b->n += sz * nm;
	b->p[b->n] = '\0';
	return sz * nm;
}

/* GET path from fabmond's HTTP port into b. */
static bool http_get(int port, const char *path, struct body *b)
{
	char url[256];
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
	free(b->p);
	*b = (struct body){ 0 };
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	return rc == CURLE_OK && b->p;
}

static bool scrape(int port, struct body *b)
{
	return http_get(port, "/metrics", b);
}

/* Runs the fabmond binary on the config text (written to tmpdir), its
 * log in tmpdir/fabmond.log; returns its pid. */
static pid_t spawn_fabmond(const char *text)
{
	char path[300], bin[300], logpath[300];
	snprintf(path, sizeof path, "%s/fabmon.yaml", tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	const char *b = getenv("top_builddir");
	snprintf(bin, sizeof bin, "%s/fabmond", b && *b ? b : ".");
	snprintf(logpath, sizeof logpath, "%s/fabmond.log", tmpdir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		FILE *lf = freopen(logpath, "w", stderr);
		(void)lf;
		execl(bin, "fabmond", "-f", "-c", path, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Stops fabmond (SIGTERM) and checks it exited cleanly. */
static void stop_fabmond(pid_t pid)
{
	kill(pid, SIGTERM);
	int status = 0;
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A free TCP port on 127.0.0.1 for fabmond's listener. */
static int free_port(void)
{
	struct gnmi_target_options o;
	char err[128];
	gnmi_target_options_init(&o);
	o.address = "127.0.0.1:0";
	struct gnmi_target *t = gnmi_target_new(loop, &o, err, sizeof err);
	ck_assert_ptr_nonnull(t);
	int port = gnmi_target_port(t);
	gnmi_target_free(t);
	return port;
}

START_TEST(test_fabmond_exports_gnmi_values_typed_and_converted)
{
	start_target(NULL);
	set_pfc(1000, 250000000, T0);
	int http = free_port();
	char text[2048];
	snprintf(text, sizeof text,
		 "listen: ['127.0.0.1:%d']\n"
		 "profiles_dir: %s/etc/profiles\n"
		 "targets:\n"
		 "  - name: leaf1\n"
		 "    gnmi:\n"
		 "      address: 127.0.0.1:%d\n"
		 "      insecure: true\n"
		 "      profile: arista\n"
		 "      subscriptions:\n"
		 "        - path: /interfaces/interface[name=*]/ethernet/pfc\n"
		 "          sample_interval: 100ms\n",
		 http, srcdir(), gnmi_target_port(tgt));
	pid_t pid = spawn_fabmond(text);

	struct body body = { 0 };
	const char *want = "fabmon_pfc_frames_total{device=\"leaf1\","
			   "port=\"Ethernet1\",priority=\"3\","
			   "direction=\"rx\"} 1000\n";
	WAIT_FOR(scrape(http, &body) && strstr(body.p, want),
		 "no PFC frames in /metrics");
	ck_assert_ptr_nonnull(
	    strstr(body.p, "# TYPE fabmon_pfc_frames_total counter\n"));
	ck_assert_ptr_nonnull(strstr(
	    body.p, "fabmon_pfc_pause_seconds_total{device=\"leaf1\","
		    "port=\"Ethernet1\",priority=\"3\",direction=\"rx\"} "
		    "0.25\n"));
	ck_assert_ptr_nonnull(
	    strstr(body.p,
		   "fabmon_target_up{target=\"leaf1\",protocol=\"gnmi\"} 1\n"));
	WAIT_FOR(scrape(http, &body) &&
		     strstr(body.p, "fabmon_target_sync_seen{target=\"leaf1\","
				    "protocol=\"gnmi\"} 1\n"),
		 "sync_response not exported");

	const char *promtool = getenv("PROMTOOL");
	if (promtool && *promtool) {
		char mpath[300], cmd[700];
		snprintf(mpath, sizeof mpath, "%s/metrics.txt", tmpdir);
		FILE *m = fopen(mpath, "w");
		fputs(body.p, m);
		fclose(m);
		snprintf(cmd, sizeof cmd, "%s check metrics < %s", promtool,
			 mpath);
		ck_assert_msg(system(cmd) == 0,
			      "promtool check metrics failed");
	}
	free(body.p);
	stop_fabmond(pid);
}
END_TEST

/*
 * One SONiC switch (the shipped sonic profile), its Ethernet0 held
 * paused on priority 3 by a neighbour fabmond neither monitors nor has a
 * link for: PFC frames at 100G's refresh rate and 1 s of pause time per
 * second since t0, and its PFC watchdog stormed. Published at ts (ns
 * since the epoch).
 */
static void sonic_held_paused(int64_t t0, int64_t ts)
{
	double s = (double)(ts - t0) / 1e9;
	double refresh = 12.5e9 * 8 / (512.0 * 65535.0);
	char j[512];
	snprintf(j, sizeof j,
		 "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"%llu\","
		 "\"SAI_PORT_STAT_PFC_3_RX_PAUSE_DURATION_US\":\"%llu\","
		 "\"SAI_PORT_STAT_PFC_3_TX_PKTS\":\"0\","
		 "\"SAI_PORT_STAT_PFC_3_TX_PAUSE_DURATION_US\":\"0\"}",
		 (unsigned long long)llround(refresh * s),
		 (unsigned long long)llround(1e6 * s));
	ck_assert_int_eq(gnmi_target_set_json(tgt, "COUNTERS/Ethernet0", j), 0);
	ck_assert_int_eq(
	    gnmi_target_set_json(tgt, "COUNTERS/Ethernet0/Pfcwd",
				 "{\"Ethernet0:3\":{\"PFC_WD_STATUS\":"
				 "\"stormed\",\"PFC_WD_ACTION\":\"drop\","
				 "\"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED\":"
				 "\"1\"}}"),
	    0);
	gnmi_target_tick(tgt, ts);
}

static int64_t real_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* Whether /api/v1/incidents has exactly one incident, a firing
 * pfc_storm at the far end of leaf0:Ethernet0 priority 3 whose sender
 * is unmonitored. */
static bool far_end_storm_firing(int http, struct body *b)
{
	if (!http_get(http, "/api/v1/incidents?state=active", b))
		return false;
	json_t *doc = json_loads(b->p, 0, NULL);
	json_t *act = json_object_get(doc, "active");
	json_t *in = json_array_get(act, 0);
	json_t *org = json_object_get(in, "origin");
	const char *kind = json_string_value(json_object_get(in, "kind"));
	const char *state = json_string_value(json_object_get(in, "state"));
	const char *dev = json_string_value(json_object_get(org, "device"));
	const char *port = json_string_value(json_object_get(org, "port"));
	const char *snd = json_string_value(json_object_get(org, "sender"));
	bool ok = json_array_size(act) == 1 && kind &&
		  !strcmp(kind, "pfc_storm") && state &&
		  !strcmp(state, "firing") && dev && !strcmp(dev, "leaf0") &&
		  port && !strcmp(port, "Ethernet0") &&
		  json_integer_value(json_object_get(org, "priority")) == 3 &&
		  json_is_true(json_object_get(org, "far_end")) && snd &&
		  !strcmp(snd, "unmonitored");
	json_decref(doc);
	return ok;
}

/* The storm a SONiC switch's own watchdog reports, from a neighbour
 * outside fabmond's view (no static link, no LLDP): one pfc_storm at
 * Ethernet0's far end, priority 3, and the metric with its sender. */
START_TEST(test_fabmond_finds_a_storm_from_outside_the_view)
{
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.encodings = GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
	start_target(&o);
	int64_t t0 = real_ns();
	sonic_held_paused(t0, t0);
	int http = free_port();
	char text[2048];
	snprintf(text, sizeof text,
		 "listen: ['127.0.0.1:%d']\n"
		 "profiles_dir: %s/etc/profiles\n"
		 "interval: 1s\n"
		 "lossless_priorities: [3]\n"
		 "targets:\n"
		 "  - name: leaf0\n"
		 "    gnmi:\n"
		 "      address: 127.0.0.1:%d\n"
		 "      insecure: true\n"
		 "      profile: sonic\n",
		 http, srcdir(), gnmi_target_port(tgt));
	pid_t pid = spawn_fabmond(text);

	/* The switch samples every 250 ms (the profile streams every 1 s);
	 * a bounded wait for the incident, not a timing check. */
	struct body body = { 0 };
	bool found = false;
	for (int i = 0; i < WAIT_S * 4 && !found; i++) {
		sleep_ms(250);
		sonic_held_paused(t0, real_ns());
		found = far_end_storm_firing(http, &body);
	}
	ck_assert_msg(found, "no far-end pfc_storm: %s",
		      body.p ? body.p : "(no answer)");
	ck_assert(scrape(http, &body));
	ck_assert_msg(
	    strstr(body.p,
		   "fabmon_incident_active{kind=\"pfc_storm\",device=\"leaf0\","
		   "port=\"Ethernet0\",priority=\"3\",role=\"origin\","
		   "sender=\"unmonitored\"} 1\n"),
	    "%s", body.p);
	const char *promtool = getenv("PROMTOOL");
	if (promtool && *promtool) {
		char mpath[300], cmd[700];
		snprintf(mpath, sizeof mpath, "%s/storm.txt", tmpdir);
		FILE *m = fopen(mpath, "w");
		fputs(body.p, m);
		fclose(m);
		snprintf(cmd, sizeof cmd, "%s check metrics < %s", promtool,
			 mpath);
		ck_assert_msg(system(cmd) == 0,
			      "promtool check metrics failed");
	}
	free(body.p);
	stop_fabmond(pid);
}
END_TEST

static Suite *gnmi_collector_suite(void)
{
	Suite *s = suite_create("gnmi_collector");
	TCase *tc = tcase_create("collector");
	tcase_add_checked_fixture(tc, gnmi_fix_setup, gnmi_fix_teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_stream_values_reach_the_store_converted);
	tcase_add_test(tc, test_once_mode_collects_every_interval);
	tcase_add_test(tc, test_poll_mode_polls_every_interval);
	tcase_add_test(tc, test_server_restart_reconnects_and_data_resumes);
	tcase_add_test(tc, test_silent_stream_is_resubscribed_by_the_watchdog);
	tcase_add_test(tc, test_wrong_password_is_reported_and_not_retried_hot);
	tcase_add_test(tc, test_right_password_streams);
	tcase_add_test(tc, test_tls_verifies_the_target);
	tcase_add_test(tc, test_skip_verify_trusts_any_certificate);
	tcase_add_test(tc, test_mtls_needs_the_client_certificate);
	tcase_add_test(tc,
		       test_malformed_message_is_counted_and_stream_goes_on);
	tcase_add_test(tc, test_a_counter_that_is_not_a_number_is_counted);
	tcase_add_test(
	    tc, test_sonic_counters_db_json_ietf_maps_through_the_profile);
	tcase_add_test(tc, test_helper_stream_failure_leaves_the_switch_up);
	tcase_add_test(tc, test_sonic_port_speed_arrives_from_appl_db);
	tcase_add_test(tc, test_sonic_pg_drops_resolve_through_the_name_map);
	tcase_add_test(tc, test_a_new_pg_in_the_map_is_subscribed);
	tcase_add_test(tc, test_objects_resubscribe_only_when_the_ids_change);
	tcase_add_test(tc, test_unsupported_encoding_is_reported);
	tcase_add_test(
	    tc, test_refused_sample_interval_is_reported_not_hot_retried);
	tcase_add_test(tc, test_unreachable_target_backs_off);
	tcase_add_test(tc, test_reload_retries_a_target_that_could_not_start);
	tcase_add_test(tc, test_reload_stops_removed_targets);
	tcase_add_test(tc,
		       test_fabmond_exports_gnmi_values_typed_and_converted);
	tcase_add_test(tc, test_fabmond_finds_a_storm_from_outside_the_view);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gnmi_collector_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
