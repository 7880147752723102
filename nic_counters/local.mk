# The NIC collector (libfabmon_nic.a, linked by fabmond): mlx5 counters
# from sysfs (counters, hw_counters), ethtool (ioctl or fabsim's files)
# and rdma-core enumeration.
noinst_LIBRARIES += libfabmon_nic.a
libfabmon_nic_a_SOURCES = \
	nic_counters/nic_map.c nic_counters/nic_map.h \
	nic_counters/nic_sysfs.c nic_counters/nic_sysfs.h \
	nic_counters/nic_ethtool.c nic_counters/nic_ethtool.h \
	nic_counters/nic_host.c nic_counters/nic_host.h \
	nic_counters/nic_guard.c nic_counters/nic_guard.h \
	nic_counters/nic_cfg.c nic_counters/nic_cfg.h \
	nic_counters/nic_collector.c nic_counters/nic_collector.h
libfabmon_nic_a_CPPFLAGS = $(NIC_CPPFLAGS)
libfabmon_nic_a_CFLAGS = $(AM_CFLAGS) $(IBVERBS_CFLAGS)
FABMON_LIBS += $(IBVERBS_LIBS)

# Its Check suite (also reads fabsim's NIC trees back, so it links
# libfabsim.a) and integration tests.
check_PROGRAMS += tests/check_nic
TESTS += tests/check_nic
tests_check_nic_SOURCES = tests/check_nic.c
tests_check_nic_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
tests_check_nic_CFLAGS = $(TEST_CFLAGS)
tests_check_nic_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(TEST_LIBS)
check_PROGRAMS += tests/check_nic_ethtool tests/check_nic_files
TESTS += tests/check_nic_ethtool tests/check_nic_files \
	tests/integration_nic.sh
tests_check_nic_ethtool_SOURCES = tests/check_nic_ethtool.c
tests_check_nic_ethtool_CFLAGS = $(TEST_CFLAGS)
tests_check_nic_ethtool_LDADD = $(TEST_LIBS)
tests_check_nic_files_SOURCES = tests/check_nic_files.c
tests_check_nic_files_CFLAGS = $(TEST_CFLAGS)
tests_check_nic_files_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/integration_nic.sh

# The cost of a read cycle of 8 ports, fabsim's writer, and the CPU ratio
# against prometheus-node-exporter's infiniband collector (prints
# figures, never fails on time).
noinst_PROGRAMS += bench/nic_read
bench_nic_read_SOURCES = bench/nic_read.c
bench_nic_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
bench_nic_read_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
bench_nic_read_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(FABMON_LIBS) $(CURL_LIBS)
EXTRA_DIST += doc/nic-counters.md

# The parsers of ethtool text and sysfs values under libFuzzer, or their
# seed corpus replayed as a test.
if ENABLE_FUZZERS
noinst_PROGRAMS += fuzz/fuzz_nic
fuzz_fuzz_nic_SOURCES = fuzz/fuzz_nic.c
fuzz_fuzz_nic_LDADD = $(FABMON_LIBS)
fuzz_fuzz_nic_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
else
check_PROGRAMS += fuzz/replay_nic
TESTS += fuzz/replay_nic
fuzz_replay_nic_SOURCES = fuzz/fuzz_nic.c fuzz/replay.c
fuzz_replay_nic_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"nic"'
fuzz_replay_nic_LDADD = $(FABMON_LIBS)
endif
EXTRA_DIST += fuzz/fuzz_nic.c
