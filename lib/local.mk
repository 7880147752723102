# lib/: small utilities with no fabmon dependency (memory, clocks).
libfabmon_a_SOURCES += \
	lib/mem.c lib/mem.h lib/clock.h \
	lib/units.c lib/units.h lib/fmt.c lib/fmt.h \
	lib/json.c lib/json.h lib/rfc3339.c lib/rfc3339.h
