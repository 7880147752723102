# libFuzzer targets, built with ./configure --enable-fuzzers CC=clang.
# Run one with: fuzz/fuzz_cfg -max_total_time=60 scratch/ $(srcdir)/fuzz/corpus/cfg
if ENABLE_FUZZERS
noinst_PROGRAMS += fuzz/fuzz_cfg fuzz/fuzz_api
fuzz_fuzz_cfg_SOURCES = fuzz/fuzz_cfg.c
fuzz_fuzz_cfg_LDADD = $(FABMON_LIBS)
fuzz_fuzz_cfg_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_api_SOURCES = fuzz/fuzz_api.c
fuzz_fuzz_api_LDADD = $(FABMON_LIBS)
fuzz_fuzz_api_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
noinst_PROGRAMS += fuzz/fuzz_sim_topo fuzz/fuzz_sim_scenario
fuzz_fuzz_sim_topo_SOURCES = fuzz/fuzz_sim_topo.c
fuzz_fuzz_sim_topo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
fuzz_fuzz_sim_topo_LDADD = libfabsim.a $(FABMON_LIBS)
fuzz_fuzz_sim_topo_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_sim_scenario_SOURCES = fuzz/fuzz_sim_scenario.c
fuzz_fuzz_sim_scenario_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
fuzz_fuzz_sim_scenario_LDADD = libfabsim.a $(FABMON_LIBS)
fuzz_fuzz_sim_scenario_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
else
# Without libFuzzer, every target replays its corpus as a test.
check_PROGRAMS += fuzz/replay_sim_topo fuzz/replay_sim_scenario
TESTS += fuzz/replay_sim_topo fuzz/replay_sim_scenario
check_PROGRAMS += fuzz/replay_cfg fuzz/replay_api
TESTS += fuzz/replay_cfg fuzz/replay_api
fuzz_replay_cfg_SOURCES = fuzz/fuzz_cfg.c fuzz/replay.c
fuzz_replay_cfg_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"cfg"'
fuzz_replay_cfg_LDADD = $(FABMON_LIBS)
fuzz_replay_api_SOURCES = fuzz/fuzz_api.c fuzz/replay.c
fuzz_replay_api_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"api"'
fuzz_replay_api_LDADD = $(FABMON_LIBS)
fuzz_replay_sim_topo_SOURCES = fuzz/fuzz_sim_topo.c fuzz/replay.c
fuzz_replay_sim_topo_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim \
	-DFUZZ_CORPUS='"sim_topo"'
fuzz_replay_sim_topo_LDADD = libfabsim.a $(FABMON_LIBS)
fuzz_replay_sim_scenario_SOURCES = fuzz/fuzz_sim_scenario.c fuzz/replay.c
fuzz_replay_sim_scenario_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim \
	-DFUZZ_CORPUS='"sim_scenario"'
fuzz_replay_sim_scenario_LDADD = libfabsim.a $(FABMON_LIBS)
endif
EXTRA_DIST += fuzz/fuzz_cfg.c fuzz/fuzz_api.c fuzz/corpus \
	fuzz/fuzz_sim_topo.c fuzz/fuzz_sim_scenario.c fuzz/replay.c
