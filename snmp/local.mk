# The SNMP collector (libfabmon_snmp.a, linked by fabmond and the tests).
noinst_LIBRARIES += libfabmon_snmp.a
libfabmon_snmp_a_SOURCES = \
	snmp/snmp_varbind.c snmp/snmp_varbind.h \
	snmp/snmp_cfg.c snmp/snmp_cfg.h \
	snmp/snmp_profile.c snmp/snmp_profile.h \
	snmp/snmp_keys.c snmp/snmp_keys.h \
	snmp/snmp_poller.c snmp/snmp_poller.h snmp/snmp_int.h \
	snmp/snmp_session.c snmp/snmp_walk.c snmp/snmp_renum.c snmp/snmp_lldp.c
libfabmon_snmp_a_CPPFLAGS = $(SNMP_CPPFLAGS)
libfabmon_snmp_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(NETSNMP_CFLAGS)
FABMON_LIBS += $(NETSNMP_LIBS)

snmpprofilesdir = $(pkgdatadir)/profiles
dist_snmpprofiles_DATA = etc/profiles/snmp-generic.yaml \
	etc/profiles/snmp-sonic.yaml etc/profiles/snmp-arista.yaml \
	etc/profiles/snmp-cisco.yaml etc/profiles/snmp-mellanox.yaml \
	etc/profiles/snmp-dell.yaml
EXTRA_DIST += doc/snmp-profiles.md

check_PROGRAMS += tests/check_snmp tests/snmp_probe
tests_snmp_probe_SOURCES = tests/snmp_probe.c
tests_snmp_probe_LDADD = $(FABMON_LIBS)
TESTS += tests/check_snmp tests/integration_snmp.sh
tests_check_snmp_SOURCES = tests/check_snmp.c
tests_check_snmp_CFLAGS = $(TEST_CFLAGS) $(NETSNMP_CFLAGS)
tests_check_snmp_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/integration_snmp.sh

noinst_PROGRAMS += bench/snmp_poll
bench_snmp_poll_SOURCES = bench/snmp_poll.c
bench_snmp_poll_CPPFLAGS = $(AM_CPPFLAGS) -DBENCH_SRCDIR='"$(abs_top_srcdir)"'
bench_snmp_poll_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS)
bench_snmp_poll_LDADD = $(FABMON_LIBS) $(CURL_LIBS)

# The fuzz targets of the profile loader and of the varbind conversions
# (each replayed over its corpus without --enable-fuzzers).
if ENABLE_FUZZERS
noinst_PROGRAMS += fuzz/fuzz_snmp_profile fuzz/fuzz_snmp_varbind
fuzz_fuzz_snmp_varbind_SOURCES = fuzz/fuzz_snmp_varbind.c
fuzz_fuzz_snmp_varbind_LDADD = $(FABMON_LIBS)
fuzz_fuzz_snmp_varbind_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_snmp_profile_SOURCES = fuzz/fuzz_snmp_profile.c
fuzz_fuzz_snmp_profile_LDADD = $(FABMON_LIBS)
fuzz_fuzz_snmp_profile_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
else
check_PROGRAMS += fuzz/replay_snmp_profile fuzz/replay_snmp_varbind
TESTS += fuzz/replay_snmp_profile fuzz/replay_snmp_varbind
fuzz_replay_snmp_varbind_SOURCES = fuzz/fuzz_snmp_varbind.c fuzz/replay.c
fuzz_replay_snmp_varbind_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"snmp_varbind"'
fuzz_replay_snmp_varbind_LDADD = $(FABMON_LIBS)
fuzz_replay_snmp_profile_SOURCES = fuzz/fuzz_snmp_profile.c fuzz/replay.c
fuzz_replay_snmp_profile_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"snmp_profile"'
fuzz_replay_snmp_profile_LDADD = $(FABMON_LIBS)
endif
EXTRA_DIST += fuzz/fuzz_snmp_profile.c fuzz/corpus/snmp_profile \
	fuzz/fuzz_snmp_varbind.c fuzz/corpus/snmp_varbind \
	fuzz/seeds_snmp_varbind.py
