# demo-target: one simulated gNMI leaf for the README's demo (fabsim,
# the simulated fabric, replaces it).
noinst_PROGRAMS += sim/demo-target
sim_demo_target_SOURCES = sim/demo_target.c
sim_demo_target_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
sim_demo_target_LDADD = libgnmi_target.a $(FABMON_LIBS)

# The simulated fabric's library: topology (sim_topo_), then the counter
# model, scenarios and serving as they come; fabsim and its tests link it.
noinst_LIBRARIES += libfabsim.a
libfabsim_a_SOURCES = sim/topo.c sim/topo.h sim/model.c sim/model.h \
	sim/scenario.c sim/scenario.h
libfabsim_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)

check_PROGRAMS += tests/check_sim_topo
TESTS += tests/check_sim_topo
tests_check_sim_topo_SOURCES = tests/check_sim_topo.c
tests_check_sim_topo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_topo_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_topo_LDADD = libfabsim.a $(TEST_LIBS)

check_PROGRAMS += tests/check_sim_model
TESTS += tests/check_sim_model
tests_check_sim_model_SOURCES = tests/check_sim_model.c
tests_check_sim_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_model_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_model_LDADD = libfabsim.a $(TEST_LIBS)

check_PROGRAMS += tests/check_sim_scenario
TESTS += tests/check_sim_scenario
tests_check_sim_scenario_SOURCES = tests/check_sim_scenario.c
tests_check_sim_scenario_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_scenario_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_scenario_LDADD = libfabsim.a $(TEST_LIBS)

# The counter model's step cost on the benchmark fabric and a
# 1,000-switch one (prints figures, never fails on time).
noinst_PROGRAMS += bench/bench_sim_model
bench_bench_sim_model_SOURCES = bench/bench_sim_model.c
bench_bench_sim_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
bench_bench_sim_model_LDADD = libfabsim.a $(FABMON_LIBS)

EXTRA_DIST += sim/topologies doc/fabsim-topology.md sim/scenarios \
	doc/fabsim-scenarios.md
