# Benchmarks print figures; they never pass or fail on time.
noinst_PROGRAMS += bench/bench_store bench/bench_render
bench_bench_store_SOURCES = bench/bench_store.c
bench_bench_store_LDADD = $(FABMON_LIBS)
bench_bench_render_SOURCES = bench/bench_render.c
bench_bench_render_LDADD = $(FABMON_LIBS)
# Loading a topology of 40k, 64k and 100k static links (issue #16).
noinst_PROGRAMS += bench/bench_cfg_links
bench_bench_cfg_links_SOURCES = bench/bench_cfg_links.c
bench_bench_cfg_links_LDADD = $(FABMON_LIBS)
noinst_PROGRAMS += bench/gnmi_ingest
bench_gnmi_ingest_SOURCES = bench/gnmi_ingest.c
bench_gnmi_ingest_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
bench_gnmi_ingest_LDADD = libgnmi_target.a $(FABMON_LIBS)
$(bench_gnmi_ingest_OBJECTS): proto/protoc.stamp
# fabsim's embedded SNMP agent polled as a 992-switch fabric (figures).
noinst_PROGRAMS += bench/bench_sim_snmp
bench_bench_sim_snmp_SOURCES = bench/bench_sim_snmp.c
bench_bench_sim_snmp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sim
bench_bench_sim_snmp_LDADD = libfabsim.a $(SIM_SNMP_LIBS) $(NETSNMP_LIBS) \
	$(FABMON_LIBS)
# fabsim at a thousand switches subscribed by fabmond (a script: it runs
# both programs; prints figures).
EXTRA_DIST += bench/bench_fabsim_scale.sh bench/detect_table.py
# Its default subscriber: counts what every switch streams, no decoding.
noinst_PROGRAMS += bench/fabsim_sink
bench_fabsim_sink_SOURCES = bench/fabsim_sink.c
bench_fabsim_sink_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
bench_fabsim_sink_LDADD = $(FABMON_LIBS)
$(bench_fabsim_sink_OBJECTS): proto/protoc.stamp
# Detection latency per incident kind, every scenario end to end (a
# script over tests/scenario_suite.py; prints figures).
EXTRA_DIST += bench/bench_detect_latency.sh bench/soak.sh
