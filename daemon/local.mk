# The program's wiring: an internal library that fabmond and every test
# link (with lib/, core/ and the modules' sources).
noinst_LIBRARIES += libfabmon.a
libfabmon_a_SOURCES += \
	daemon/sdnotify.c daemon/sdnotify.h \
	daemon/fabmond.c daemon/fabmond.h \
	exporters/buf.c exporters/buf.h \
	exporters/prom.c exporters/prom.h \
	exporters/api.c exporters/api.h \
	exporters/http.c exporters/http.h
libfabmon_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(MHD_CFLAGS) \
	$(JANSSON_CFLAGS) $(ZLIB_CFLAGS) $(SYSTEMD_CFLAGS) $(GRPC_CFLAGS) \
	$(PROTOBUFC_CFLAGS)
# Sources that include generated protobuf-c headers wait for them.
$(libfabmon_a_OBJECTS): proto/protoc.stamp

# Everything a program linking libfabmon.a needs.
FABMON_LIBS = libfabmon.a libgnmi_proto.a $(YAML_LIBS) $(MHD_LIBS) \
	$(JANSSON_LIBS) $(ZLIB_LIBS) $(SYSTEMD_LIBS) $(GRPC_LIBS) \
	$(PROTOBUFC_LIBS) -lm

sbin_PROGRAMS += fabmond
fabmond_SOURCES = daemon/main.c
fabmond_LDADD = $(FABMON_LIBS)
