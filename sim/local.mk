# The simulated fabric's library: topology (sim_topo_), then the counter
# model, scenarios and serving as they come; fabsim and its tests link it.
noinst_LIBRARIES += libfabsim.a
libfabsim_a_SOURCES = sim/topo.c sim/topo.h sim/topo_int.h sim/topo_parse.c \
	sim/topo_gen.c sim/topo_names.c sim/model.c sim/model.h \
	sim/model_int.h sim/model_route.c sim/model_ctl.c sim/model_bg.c \
	sim/scenario.c sim/scenario.h sim/snmp_agent.c sim/snmp_agent.h \
	sim/snmp_agent_int.h sim/snmp_agent_serve.c sim/scenario_int.h \
	sim/scenario_truth.c sim/scenario_run.c sim/pubsched.c sim/pubsched.h \
	sim/visibility.c sim/visibility.h sim/scenario_vis.c
libfabsim_a_CPPFLAGS = $(SIM_CPPFLAGS)
libfabsim_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(NETSNMPAGENT_CFLAGS)
# Programs that call sim_snmp_* (the embedded SNMP agent) also link this.
SIM_SNMP_LIBS = $(NETSNMPAGENT_LIBS)

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

check_PROGRAMS += tests/check_sim_bg
TESTS += tests/check_sim_bg
tests_check_sim_bg_SOURCES = tests/check_sim_bg.c
tests_check_sim_bg_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_bg_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_bg_LDADD = libfabsim.a $(TEST_LIBS)

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
	doc/fabsim-scenarios.md doc/fabsim-snmp.md

# fabsim: the simulated fabric's program. Its serving layer (gNMI per
# switch, the control endpoint) is a library of its own so that the
# Check suites drive it in-process.
noinst_LIBRARIES += libfabsim_serve.a
libfabsim_serve_a_SOURCES = sim/serve_gnmi.c sim/serve_gnmi.h \
	sim/control.c sim/control.h
libfabsim_serve_a_CPPFLAGS = $(SIM_CPPFLAGS)
libfabsim_serve_a_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
FABSIM_LIBS = libfabsim_serve.a libfabsim.a libgnmi_target.a \
	$(SIM_SNMP_LIBS) $(FABMON_LIBS)

bin_PROGRAMS += fabsim
fabsim_SOURCES = sim/fabsim.c sim/fabsim_int.h sim/fabsim_opts.c \
	sim/fabsim_opts.h sim/fabsim_run.c sim/fabsim_ctl.c sim/fabsim_conf.c
fabsim_CPPFLAGS = $(SIM_CPPFLAGS)
fabsim_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
fabsim_LDADD = $(FABSIM_LIBS)

# Each flavour served and read back by fabmond's own gNMI collector.
check_PROGRAMS += tests/check_sim_serve
TESTS += tests/check_sim_serve
tests_check_sim_serve_SOURCES = tests/check_sim_serve.c tests/gnmi_sub.h
tests_check_sim_serve_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_serve_CFLAGS = $(TEST_CFLAGS) $(MHD_CFLAGS)
tests_check_sim_serve_LDADD = libfabsim_serve.a libfabsim.a \
	libgnmi_target.a $(SIM_SNMP_LIBS) $(TEST_LIBS)

# The target faults (reset, garbage, drop_after_sync...) as a bare gNMI
# client sees them.
check_PROGRAMS += tests/check_sim_faults
TESTS += tests/check_sim_faults
tests_check_sim_faults_SOURCES = tests/check_sim_faults.c tests/gnmi_sub.h \
	tests/grpc_down.h
tests_check_sim_faults_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_faults_CFLAGS = $(TEST_CFLAGS) $(GRPC_CFLAGS) \
	$(PROTOBUFC_CFLAGS)
tests_check_sim_faults_LDADD = libfabsim_serve.a libfabsim.a \
	libgnmi_target.a $(SIM_SNMP_LIBS) $(TEST_LIBS)

# The target faults through fabsim's control endpoint (HTTP POST).
TESTS += tests/integration_sim_faults.sh
EXTRA_DIST += tests/integration_sim_faults.sh

# fabsim end to end with the real fabmond.
TESTS += tests/integration_fabsim.sh
EXTRA_DIST += tests/integration_fabsim.sh
# Every thread busy at once: scrapes, API calls, reloads and faults
# (clean under --enable-tsan; scripts/test runs it in that build too).
TESTS += tests/stress_concurrency.sh
EXTRA_DIST += tests/stress_concurrency.sh tests/tsan.supp

# The embedded SNMP agent (sim_snmp_): its Check suite drives net-snmp's
# own command-line tools against it; sim_snmp_serve serves a small
# fabric for manual checks.
check_PROGRAMS += tests/check_sim_snmp tests/sim_snmp_serve
TESTS += tests/check_sim_snmp
tests_check_sim_snmp_SOURCES = tests/check_sim_snmp.c tests/sim_snmp_tool.h
tests_check_sim_snmp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_snmp_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_snmp_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(TEST_LIBS)
# Its target faults (garbage...) as a UDP client sees them.
check_PROGRAMS += tests/check_sim_snmp_faults
TESTS += tests/check_sim_snmp_faults
tests_check_sim_snmp_faults_SOURCES = tests/check_sim_snmp_faults.c \
	tests/sim_snmp_tool.h
tests_check_sim_snmp_faults_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_sim_snmp_faults_CFLAGS = $(TEST_CFLAGS)
tests_check_sim_snmp_faults_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(TEST_LIBS)
tests_sim_snmp_serve_SOURCES = tests/sim_snmp_serve.c
tests_sim_snmp_serve_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_sim_snmp_serve_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(FABMON_LIBS)

# The NIC trees of simulated hosts (sysfs and ethtool files), read by
# fabmond's NIC collector.
libfabsim_a_SOURCES += sim/nicfs.c sim/nicfs.h
