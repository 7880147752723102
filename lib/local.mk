# lib/: small utilities with no fabmon dependency (memory, clocks, units,
# JSON helpers, RFC 3339, a string map).
noinst_LIBRARIES += libfabmon_lib.a
libfabmon_lib_a_SOURCES = \
	lib/mem.c lib/mem.h lib/clock.h lib/tsan.h \
	lib/units.c lib/units.h lib/fmt.c lib/fmt.h \
	lib/json.c lib/json.h lib/rfc3339.c lib/rfc3339.h \
	lib/rfile.c lib/rfile.h lib/strmap.c lib/strmap.h \
	lib/procstat.c lib/procstat.h
libfabmon_lib_a_CPPFLAGS = $(LIB_CPPFLAGS)
libfabmon_lib_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)

# procstat against a proc tree of its own and the real /proc.
check_PROGRAMS += tests/check_procstat
TESTS += tests/check_procstat
tests_check_procstat_SOURCES = tests/check_procstat.c
tests_check_procstat_CFLAGS = $(TEST_CFLAGS)
tests_check_procstat_LDADD = $(TEST_LIBS)
