# The rule engine (rules/): libfabmon_rules.a, which fabmond and the
# tests link.
noinst_LIBRARIES += libfabmon_rules.a
libfabmon_rules_a_CPPFLAGS = $(RULES_CPPFLAGS)
libfabmon_rules_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
libfabmon_rules_a_SOURCES = rules/rules.c rules/rules.h rules/rules_int.h \
	rules/rules_incident.c rules/rules_pause.c rules/rules_detect.c \
	rules/rules_thread.c rules/rules_base.c \
	rules/report.c rules/report.h \
	rules/cfg_alert.c rules/cfg_alert.h \
	rules/cfg_rules.c rules/cfg_rules.h

# The report's history and /api/v1/report on constructed store contents.
check_PROGRAMS += tests/check_report
TESTS += tests/check_report
tests_check_report_SOURCES = tests/check_report.c tests/rules_fixture.h
tests_check_report_CFLAGS = $(TEST_CFLAGS)
tests_check_report_LDADD = $(TEST_LIBS)

# The report's feed, memory and query cost at 1,000 x 64 (prints figures).
noinst_PROGRAMS += bench/bench_report
bench_bench_report_SOURCES = bench/bench_report.c
bench_bench_report_LDADD = $(FABMON_LIBS)

# Incidents pushed to a real prometheus-alertmanager on loopback.
TESTS += tests/integration_alertmanager.sh
EXTRA_DIST += tests/integration_alertmanager.sh
# Two of them, one behind TLS and basic auth: every URL gets every alert.
TESTS += tests/integration_alertmanager_ha.sh
EXTRA_DIST += tests/integration_alertmanager_ha.sh

# The engine on fabsim's counter model, scenario by scenario.
check_PROGRAMS += tests/check_rules_sim
TESTS += tests/check_rules_sim
tests_check_rules_sim_SOURCES = tests/check_rules_sim.c
tests_check_rules_sim_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_rules_sim_CFLAGS = $(TEST_CFLAGS)
tests_check_rules_sim_LDADD = libfabsim.a $(TEST_LIBS)

# Each detection on constructed store contents and topologies.
check_PROGRAMS += tests/check_rules
TESTS += tests/check_rules
tests_check_rules_SOURCES = tests/check_rules.c tests/rules_fixture.h
tests_check_rules_CFLAGS = $(TEST_CFLAGS)
tests_check_rules_LDADD = $(TEST_LIBS)

# Storms from outside the view: a port paused by an unmonitored sender.
check_PROGRAMS += tests/check_rules_outside
TESTS += tests/check_rules_outside
tests_check_rules_outside_SOURCES = tests/check_rules_outside.c \
	tests/rules_fixture.h
tests_check_rules_outside_CFLAGS = $(TEST_CFLAGS)
tests_check_rules_outside_LDADD = $(TEST_LIBS)

# The link table (core/links.c) and the topology: and rules: config.
check_PROGRAMS += tests/check_links
TESTS += tests/check_links
tests_check_links_SOURCES = tests/check_links.c
tests_check_links_CFLAGS = $(TEST_CFLAGS)
tests_check_links_LDADD = $(TEST_LIBS)

# fabmond serving the engine's API and metrics with a real config.
TESTS += tests/integration_rules.sh
EXTRA_DIST += tests/integration_rules.sh doc/rules.md

# Every fabsim scenario end to end (fabsim -> fabmond -> /api/v1/incidents)
# against its truth: a table, and a failure on a miss, a wrong origin or
# a false incident.
TESTS += tests/integration_scenarios.sh
EXTRA_DIST += tests/integration_scenarios.sh tests/scenario_suite.py

# The engine's tick cost on a 1,000-switch fabric (prints figures).
noinst_PROGRAMS += bench/bench_detect
bench_bench_detect_SOURCES = bench/bench_detect.c
bench_bench_detect_LDADD = $(FABMON_LIBS)

# The detections on a healthy fabric's background (PFC trickle, receive
# discards, link changes) and the per-port baselines.
check_PROGRAMS += tests/check_rules_noise
TESTS += tests/check_rules_noise
tests_check_rules_noise_SOURCES = tests/check_rules_noise.c tests/rules_fixture.h
tests_check_rules_noise_CFLAGS = $(TEST_CFLAGS)
tests_check_rules_noise_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/check_cfg_alert
TESTS += tests/check_cfg_alert
tests_check_cfg_alert_SOURCES = tests/check_cfg_alert.c
tests_check_cfg_alert_CFLAGS = $(TEST_CFLAGS)
tests_check_cfg_alert_LDADD = $(TEST_LIBS)
