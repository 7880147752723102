/*
 * gnmi_pack: a protobuf-c message packed into a gRPC byte buffer, as the
 * gNMI client, the target library and bench/fabsim_sink send them. The
 * caller owns the buffer (grpc_byte_buffer_destroy, or hands it to a
 * send batch that does).
 */
#ifndef FABMON_GNMI_PACK_H
#define FABMON_GNMI_PACK_H

#include <grpc/byte_buffer.h>
#include <grpc/slice.h>
#include <protobuf-c/protobuf-c.h>

static inline grpc_byte_buffer *gnmi_pack_message(const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(len);
	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

#endif
