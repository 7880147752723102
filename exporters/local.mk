# exporters/ sources are part of libfabmon.a (daemon/local.mk).
EXTRA_DIST += doc/api.md

# The Alertmanager pusher's figures for /metrics (a real pusher, posting
# to a closed loopback port).
check_PROGRAMS += tests/check_alert_meter
TESTS += tests/check_alert_meter
tests_check_alert_meter_SOURCES = tests/check_alert_meter.c
tests_check_alert_meter_CFLAGS = $(TEST_CFLAGS)
tests_check_alert_meter_LDADD = $(TEST_LIBS)
