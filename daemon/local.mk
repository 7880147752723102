# The program's wiring (libfabmon.a): fabmond's start-up in dependency
# order, reload, signals and sd_notify. fabmond, the tests and the
# benchmarks link it with every folder's library (FABMON_LIBS).
noinst_LIBRARIES += libfabmon.a
libfabmon_a_SOURCES = \
	daemon/sdnotify.c daemon/sdnotify.h \
	daemon/cfgload.c daemon/cfgload.h \
	daemon/fabmond.c daemon/fabmond.h
libfabmon_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(MHD_CFLAGS) \
	$(JANSSON_CFLAGS) $(ZLIB_CFLAGS) $(SYSTEMD_CFLAGS) $(GRPC_CFLAGS) \
	$(PROTOBUFC_CFLAGS)
# Sources that include generated protobuf-c headers wait for them.
$(libfabmon_a_OBJECTS): proto/protoc.stamp

# Everything a program linking libfabmon.a needs.
FABMON_LIBS = libfabmon.a libfabmon_exporters.a libfabmon_rules.a \
	libfabmon_gnmi.a libfabmon_snmp.a libfabmon_nic.a libfabmon_core.a \
	libfabmon_lib.a libgnmi_proto.a $(YAML_LIBS) $(MHD_LIBS) \
	$(JANSSON_LIBS) $(ZLIB_LIBS) $(SYSTEMD_LIBS) $(GRPC_LIBS) \
	$(PROTOBUFC_LIBS) $(GNUTLS_LIBS) $(LIBCRYPT_LIBS) -lm

sbin_PROGRAMS += fabmond
fabmond_SOURCES = daemon/main.c
fabmond_LDADD = $(FABMON_LIBS)
