# The gNMI target library (libgnmi_target.a, linked by fabsim and the
# tests only).
noinst_LIBRARIES += libgnmi_target.a
libgnmi_target_a_SOURCES = gnmi_target/target.c gnmi_target/target.h
libgnmi_target_a_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
$(libgnmi_target_a_OBJECTS): proto/protoc.stamp
GNMI_TARGET_LIBS = libgnmi_target.a $(FABMON_LIBS)
