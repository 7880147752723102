# The gNMI target library (libgnmi_target.a, linked by fabsim and the
# tests only).
noinst_LIBRARIES += libgnmi_target.a
libgnmi_target_a_SOURCES = gnmi_target/target.c gnmi_target/target.h \
	gnmi_target/target_int.h gnmi_target/tree.c gnmi_target/encode.c \
	gnmi_target/server.c
libgnmi_target_a_CPPFLAGS = $(GNMI_TARGET_CPPFLAGS)
libgnmi_target_a_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
$(libgnmi_target_a_OBJECTS): proto/protoc.stamp
GNMI_TARGET_LIBS = libgnmi_target.a $(FABMON_LIBS)
