# Benchmarks print figures; they never pass or fail on time.
noinst_PROGRAMS += bench/bench_store bench/bench_render
bench_bench_store_SOURCES = bench/bench_store.c
bench_bench_store_LDADD = $(FABMON_LIBS)
bench_bench_render_SOURCES = bench/bench_render.c
bench_bench_render_LDADD = $(FABMON_LIBS)
noinst_PROGRAMS += bench/gnmi_ingest
bench_gnmi_ingest_SOURCES = bench/gnmi_ingest.c
bench_gnmi_ingest_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
bench_gnmi_ingest_LDADD = libgnmi_target.a $(FABMON_LIBS)
$(bench_gnmi_ingest_OBJECTS): proto/protoc.stamp
