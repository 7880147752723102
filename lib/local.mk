# lib/: small utilities with no fabmon dependency (memory, clocks, units,
# JSON helpers, RFC 3339, a string map).
noinst_LIBRARIES += libfabmon_lib.a
libfabmon_lib_a_SOURCES = \
	lib/mem.c lib/mem.h lib/clock.h lib/tsan.h \
	lib/units.c lib/units.h lib/fmt.c lib/fmt.h \
	lib/json.c lib/json.h lib/rfc3339.c lib/rfc3339.h \
	lib/rfile.c lib/rfile.h lib/strmap.c lib/strmap.h
libfabmon_lib_a_CPPFLAGS = $(LIB_CPPFLAGS)
libfabmon_lib_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
