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
endif
EXTRA_DIST += fuzz/fuzz_cfg.c fuzz/fuzz_api.c fuzz/corpus
