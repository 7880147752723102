# gNMI messages, compiled by protoc-c at build time (never committed).
# google/protobuf/any.proto comes from libprotobuf-dev; protobuf-c ships
# no generated well-known types, so it is generated here too.
PROTO_SRC = proto/gnmi.proto proto/gnmi_ext.proto
PROTO_GEN_C = proto/gnmi.pb-c.c proto/gnmi_ext.pb-c.c \
	proto/google/protobuf/any.pb-c.c
PROTO_GEN_H = proto/gnmi.pb-c.h proto/gnmi_ext.pb-c.h \
	proto/google/protobuf/any.pb-c.h

# One stamp for the multi-output rule, so make -j runs protoc-c once.
proto/protoc.stamp: $(PROTO_SRC)
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) -I$(srcdir)/proto -I$(PROTOBUF_INCLUDEDIR) --c_out=proto \
		$(srcdir)/proto/gnmi.proto $(srcdir)/proto/gnmi_ext.proto \
		$(PROTOBUF_INCLUDEDIR)/google/protobuf/any.proto && touch $@
$(PROTO_GEN_C) $(PROTO_GEN_H): proto/protoc.stamp

BUILT_SOURCES += proto/protoc.stamp
CLEANFILES += proto/protoc.stamp $(PROTO_GEN_C) $(PROTO_GEN_H)
EXTRA_DIST += $(PROTO_SRC)

# Generated code is compiled without the project's warning set: it is
# not ours to fix.
noinst_LIBRARIES += libgnmi_proto.a
nodist_libgnmi_proto_a_SOURCES = $(PROTO_GEN_C) $(PROTO_GEN_H)
libgnmi_proto_a_CPPFLAGS = -I$(top_builddir)/proto -DPROTOBUF_C__NO_DEPRECATED
libgnmi_proto_a_CFLAGS = -std=gnu11 $(PROTOBUFC_CFLAGS) $(FABMON_SAN_CFLAGS)
