# exporters/ sources are part of libfabmon.a (daemon/local.mk); these
# are the rule engine's outputs.
libfabmon_a_SOURCES += \
	exporters/incidents.c exporters/incidents.h \
	exporters/alert.c exporters/alert.h \
	exporters/report_api.c exporters/report_api.h
# The Alertmanager pusher posts with libcurl.
libfabmon_a_CFLAGS += $(CURL_CFLAGS)
FABMON_LIBS += $(CURL_LIBS)
EXTRA_DIST += doc/api.md

# The Alertmanager pusher's figures for /metrics (a real pusher, posting
# to a closed loopback port).
check_PROGRAMS += tests/check_alert_meter
TESTS += tests/check_alert_meter
tests_check_alert_meter_SOURCES = tests/check_alert_meter.c
tests_check_alert_meter_CFLAGS = $(TEST_CFLAGS)
tests_check_alert_meter_LDADD = $(TEST_LIBS)
