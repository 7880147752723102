# exporters/: the HTTP server, the Prometheus exposition and the JSON API,
# and the rule engine's outputs (incidents, the report's answers, the
# Alertmanager pusher): libfabmon_exporters.a.
noinst_LIBRARIES += libfabmon_exporters.a
libfabmon_exporters_a_CPPFLAGS = $(EXPORTERS_CPPFLAGS)
libfabmon_exporters_a_SOURCES = \
	exporters/buf.c exporters/buf.h \
	exporters/prom.c exporters/prom.h \
	exporters/expfmt.c exporters/expfmt.h \
	exporters/home.c exporters/home.h \
	exporters/api.c exporters/api.h \
	exporters/http.c exporters/http.h \
	exporters/http_guard.c exporters/http_guard.h \
	exporters/http_auth.c exporters/http_auth.h \
	exporters/webcfg.c exporters/webcfg.h \
	exporters/incidents.c exporters/incidents.h \
	exporters/alert.c exporters/alert.h \
	exporters/report_api.c exporters/report_api.h
# The Alertmanager pusher posts with libcurl.
libfabmon_exporters_a_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JANSSON_CFLAGS) \
	$(ZLIB_CFLAGS) $(CURL_CFLAGS) $(GNUTLS_CFLAGS) $(LIBCRYPT_CFLAGS)
FABMON_LIBS += $(CURL_LIBS)
EXTRA_DIST += doc/api.md

# The Alertmanager pusher's figures for /metrics (a real pusher, posting
# to a closed loopback port).
check_PROGRAMS += tests/check_alert_meter
TESTS += tests/check_alert_meter
tests_check_alert_meter_SOURCES = tests/check_alert_meter.c
tests_check_alert_meter_CFLAGS = $(TEST_CFLAGS)
tests_check_alert_meter_LDADD = $(TEST_LIBS)

# The pusher's labels and summary as posted, read by a loopback receiver.
check_PROGRAMS += tests/check_alert_labels
TESTS += tests/check_alert_labels
tests_check_alert_labels_SOURCES = tests/check_alert_labels.c
tests_check_alert_labels_CFLAGS = $(TEST_CFLAGS)
tests_check_alert_labels_LDADD = $(TEST_LIBS)

# The choice of exposition format and what differs between the two.
check_PROGRAMS += tests/check_expfmt
TESTS += tests/check_expfmt
tests_check_expfmt_SOURCES = tests/check_expfmt.c
tests_check_expfmt_CFLAGS = $(TEST_CFLAGS)
tests_check_expfmt_LDADD = $(TEST_LIBS)

# OpenMetrics from a running fabmond, read by prometheus_client's parser
# and negotiated by a real Prometheus.
TESTS += tests/integration_openmetrics.sh
EXTRA_DIST += tests/integration_openmetrics.sh
