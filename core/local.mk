# core/: the store, the counter vocabulary, the link table, target health,
# logging, the bounded YAML loader and the configuration skeleton.
noinst_LIBRARIES += libfabmon_core.a
libfabmon_core_a_SOURCES = \
	core/log.c core/log.h \
	core/counters.c core/counters.h \
	core/store.c core/store.h core/store_int.h \
	core/store_index.c core/store_label.c core/store_read.c \
	core/ytree.c core/ytree.h \
	core/cfg.c core/cfg.h \
	core/links.c core/links.h \
	core/health.c core/health.h \
	core/ident.c core/ident.h \
	core/collector.h
libfabmon_core_a_CPPFLAGS = $(CORE_CPPFLAGS)
libfabmon_core_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
