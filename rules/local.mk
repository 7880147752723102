# The rule engine (rules/): part of libfabmon.a, which fabmond and the
# tests link.
libfabmon_a_SOURCES += rules/rules.c rules/rules.h \
	exporters/incidents.c exporters/incidents.h

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
tests_check_rules_SOURCES = tests/check_rules.c
tests_check_rules_CFLAGS = $(TEST_CFLAGS)
tests_check_rules_LDADD = $(TEST_LIBS)

# The link table (daemon/links.c) and the topology: and rules: config.
check_PROGRAMS += tests/check_links
TESTS += tests/check_links
tests_check_links_SOURCES = tests/check_links.c
tests_check_links_CFLAGS = $(TEST_CFLAGS)
tests_check_links_LDADD = $(TEST_LIBS)

# fabmond serving the engine's API and metrics with a real config.
TESTS += tests/integration_rules.sh
EXTRA_DIST += tests/integration_rules.sh doc/rules.md

# The engine's tick cost on a 1,000-switch fabric (prints figures).
noinst_PROGRAMS += bench/bench_detect
bench_bench_detect_SOURCES = bench/bench_detect.c
bench_bench_detect_LDADD = $(FABMON_LIBS)
