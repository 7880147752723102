# Check suites, one per module, and integration tests on loopback.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(CURL_CFLAGS)
TEST_LIBS = $(FABMON_LIBS) $(CHECK_LIBS) $(CURL_LIBS)

check_PROGRAMS += tests/check_log tests/check_ytree tests/check_cfg \
	tests/check_store \
	tests/check_prom tests/check_http
tests_check_log_SOURCES = tests/check_log.c
tests_check_log_CFLAGS = $(TEST_CFLAGS)
tests_check_log_LDADD = $(TEST_LIBS)
tests_check_ytree_SOURCES = tests/check_ytree.c
tests_check_ytree_CFLAGS = $(TEST_CFLAGS)
tests_check_ytree_LDADD = $(TEST_LIBS)
tests_check_cfg_SOURCES = tests/check_cfg.c
tests_check_cfg_CFLAGS = $(TEST_CFLAGS)
tests_check_cfg_LDADD = $(TEST_LIBS)
tests_check_store_SOURCES = tests/check_store.c
tests_check_store_CFLAGS = $(TEST_CFLAGS)
tests_check_store_LDADD = $(TEST_LIBS)
tests_check_prom_SOURCES = tests/check_prom.c
tests_check_prom_CFLAGS = $(TEST_CFLAGS)
tests_check_prom_LDADD = $(TEST_LIBS)
tests_check_http_SOURCES = tests/check_http.c
tests_check_http_CFLAGS = $(TEST_CFLAGS)
tests_check_http_LDADD = $(TEST_LIBS)

# The exporter-toolkit web config and basic auth (real PEMs and bcrypt
# hashes from openssl and htpasswd, made at run time).
check_PROGRAMS += tests/check_web_config
TESTS += tests/check_web_config
tests_check_web_config_SOURCES = tests/check_web_config.c tests/web_pki.h
tests_check_web_config_CFLAGS = $(TEST_CFLAGS) $(LIBCRYPT_CFLAGS)
tests_check_web_config_LDADD = $(TEST_LIBS)

# The HTTP server over real TLS (libcurl) with a web config: basic auth,
# headers, client certificates, plain HTTP refused, reloads.
check_PROGRAMS += tests/check_https
TESTS += tests/check_https
tests_check_https_SOURCES = tests/check_https.c tests/web_pki.h
tests_check_https_CFLAGS = $(TEST_CFLAGS)
tests_check_https_LDADD = $(TEST_LIBS)

TESTS += tests/check_log tests/check_ytree tests/check_cfg tests/check_store \
	tests/check_prom tests/check_http tests/integration_daemon.sh \
	tests/integration_files.sh tests/integration_reload.sh \
	tests/unit_hardening.sh

# Scripts find the programs and fixtures through these.
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	PROMTOOL='$(PROMTOOL)'; export PROMTOOL;

EXTRA_DIST += tests/integration_daemon.sh tests/integration_files.sh \
	tests/integration_reload.sh tests/unit_hardening.sh tests/lib.sh \
	tests/data

# The layers and size limits hold, and their checks fail on a planted
# include across a boundary (scripts/check-layers, scripts/check-sizes).
TESTS += tests/check_layers.sh
EXTRA_DIST += tests/check_layers.sh

# A live Counter32 wrap through fabsim's SNMP agent (--counter-base) and
# fabmond's SNMP collector.
TESTS += tests/integration_snmp_wrap.sh
EXTRA_DIST += tests/integration_snmp_wrap.sh

# A switch renumbering two interfaces at run time (tests/sim_snmp_serve
# --renumber) under fabmond's SNMP collector.
TESTS += tests/integration_snmp_renum.sh
EXTRA_DIST += tests/integration_snmp_renum.sh

# HC columns answered with 32-bit types (snmpsim): refused and counted,
# the 32-bit fallback taken.
TESTS += tests/integration_snmp_hc.sh
EXTRA_DIST += tests/integration_snmp_hc.sh

# The shipped Prometheus rules (promtool check/test rules on
# tests/prometheus/*.test.yml).
TESTS += tests/check_prometheus_rules.sh
EXTRA_DIST += tests/check_prometheus_rules.sh \
	tests/prometheus/fabmon-rules.test.yml \
	tests/prometheus/fabmon-alerts.test.yml

# The shipped Grafana dashboards: JSON model, data source variable,
# PromQL parsed by promtool.
TESTS += tests/check_grafana_dashboards.sh
EXTRA_DIST += tests/check_grafana_dashboards.sh tests/dashboard_exprs.py

# The shipped rules and dashboards evaluated on a real Prometheus
# scraping fabmond on fabsim's demo, faults injected for the health
# alerts.
TESTS += tests/integration_rules_dashboards.sh
EXTRA_DIST += tests/integration_rules_dashboards.sh tests/prom_eval.py

# A real Prometheus scrapes fabmond over HTTPS with basic auth; SIGHUP
# reloads of the web config (users swapped, a broken one refused).
TESTS += tests/integration_https.sh
EXTRA_DIST += tests/integration_https.sh
