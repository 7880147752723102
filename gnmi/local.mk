# The gNMI collector (libfabmon_gnmi.a, linked by fabmond). The gNMI
# target library is in gnmi_target/local.mk.
noinst_LIBRARIES += libfabmon_gnmi.a
libfabmon_gnmi_a_SOURCES = \
	gnmi/path.c gnmi/path.h gnmi/path_int.h gnmi/pack.h \
	gnmi/value.c gnmi/value.h gnmi/value_int.h \
	gnmi/value_num.c gnmi/value_text.c \
	gnmi/decode.c gnmi/decode.h \
	gnmi/wire.c gnmi/wire.h \
	gnmi/gnmi_cfg.c gnmi/gnmi_cfg.h \
	gnmi/profile.c gnmi/profile.h gnmi/profile_int.h \
	gnmi/mapper.c gnmi/objmap.c gnmi/objmap.h \
	gnmi/lldp.c gnmi/lldp.h \
	gnmi/client.c gnmi/client.h gnmi/client_int.h \
	gnmi/client_target.c gnmi/client_thread.c gnmi/client_objects.c
libfabmon_gnmi_a_CPPFLAGS = $(GNMI_CPPFLAGS)
libfabmon_gnmi_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS) $(GRPC_CFLAGS) \
	$(PROTOBUFC_CFLAGS)
$(libfabmon_gnmi_a_OBJECTS): proto/protoc.stamp

check_PROGRAMS += tests/check_gnmi_path tests/check_gnmi_value \
	tests/check_gnmi_decode tests/check_gnmi_profile \
	tests/check_gnmi_target tests/check_gnmi_collector \
	tests/check_gnmi_reconnect \
	tests/check_gnmi_wire tests/check_gnmi_lldp tests/check_gnmi_maps
TESTS += tests/check_gnmi_path tests/check_gnmi_value \
	tests/check_gnmi_decode tests/check_gnmi_profile \
	tests/check_gnmi_target tests/check_gnmi_collector \
	tests/check_gnmi_reconnect \
	tests/check_gnmi_wire tests/check_gnmi_lldp tests/check_gnmi_maps
tests_check_gnmi_path_SOURCES = tests/check_gnmi_path.c
tests_check_gnmi_path_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_path_LDADD = $(TEST_LIBS)
tests_check_gnmi_value_SOURCES = tests/check_gnmi_value.c
tests_check_gnmi_value_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_value_LDADD = $(TEST_LIBS)
tests_check_gnmi_decode_SOURCES = tests/check_gnmi_decode.c
tests_check_gnmi_decode_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_decode_LDADD = $(TEST_LIBS)
tests_check_gnmi_profile_SOURCES = tests/check_gnmi_profile.c tests/gnmi_notif.h
tests_check_gnmi_profile_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_profile_LDADD = $(TEST_LIBS)
tests_check_gnmi_target_SOURCES = tests/check_gnmi_target.c tests/grpc_down.h
tests_check_gnmi_target_CFLAGS = $(TEST_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_target_LDADD = libgnmi_target.a $(TEST_LIBS)
tests_check_gnmi_collector_SOURCES = tests/check_gnmi_collector.c \
	tests/gnmi_fixture.h tests/grpc_down.h
tests_check_gnmi_collector_CFLAGS = $(TEST_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_collector_LDADD = libgnmi_target.a $(TEST_LIBS)
tests_check_gnmi_reconnect_SOURCES = tests/check_gnmi_reconnect.c \
	tests/gnmi_fixture.h tests/grpc_down.h
tests_check_gnmi_reconnect_CFLAGS = $(TEST_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_reconnect_LDADD = libgnmi_target.a $(TEST_LIBS)
tests_check_gnmi_wire_SOURCES = tests/check_gnmi_wire.c
tests_check_gnmi_wire_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_wire_LDADD = $(TEST_LIBS)
tests_check_gnmi_lldp_SOURCES = tests/check_gnmi_lldp.c tests/gnmi_notif.h
tests_check_gnmi_lldp_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_lldp_LDADD = $(TEST_LIBS)
tests_check_gnmi_maps_SOURCES = tests/check_gnmi_maps.c tests/gnmi_notif.h
tests_check_gnmi_maps_CFLAGS = $(TEST_CFLAGS) $(PROTOBUFC_CFLAGS)
tests_check_gnmi_maps_LDADD = $(TEST_LIBS)
$(tests_check_gnmi_maps_OBJECTS) \
$(tests_check_gnmi_path_OBJECTS) $(tests_check_gnmi_value_OBJECTS) \
$(tests_check_gnmi_decode_OBJECTS) $(tests_check_gnmi_profile_OBJECTS) \
$(tests_check_gnmi_target_OBJECTS) \
$(tests_check_gnmi_collector_OBJECTS) \
$(tests_check_gnmi_reconnect_OBJECTS) \
$(tests_check_gnmi_wire_OBJECTS) \
$(tests_check_gnmi_lldp_OBJECTS): proto/protoc.stamp

if ENABLE_FUZZERS
noinst_PROGRAMS += fuzz/fuzz_gnmi_decode fuzz/fuzz_gnmi_json \
	fuzz/fuzz_gnmi_wire fuzz/fuzz_gnmi_profile
fuzz_fuzz_gnmi_decode_SOURCES = fuzz/fuzz_gnmi_decode.c
fuzz_fuzz_gnmi_decode_LDADD = $(FABMON_LIBS)
fuzz_fuzz_gnmi_decode_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_gnmi_json_SOURCES = fuzz/fuzz_gnmi_json.c
fuzz_fuzz_gnmi_json_LDADD = $(FABMON_LIBS)
fuzz_fuzz_gnmi_json_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_gnmi_wire_SOURCES = fuzz/fuzz_gnmi_wire.c
fuzz_fuzz_gnmi_wire_LDADD = $(FABMON_LIBS)
fuzz_fuzz_gnmi_wire_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
fuzz_fuzz_gnmi_profile_SOURCES = fuzz/fuzz_gnmi_profile.c
fuzz_fuzz_gnmi_profile_LDADD = $(FABMON_LIBS)
fuzz_fuzz_gnmi_profile_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
$(fuzz_fuzz_gnmi_wire_OBJECTS) $(fuzz_fuzz_gnmi_profile_OBJECTS): \
	proto/protoc.stamp
else
# Without libFuzzer, the targets replay their corpora as tests.
check_PROGRAMS += fuzz/replay_gnmi_decode fuzz/replay_gnmi_json \
	fuzz/replay_gnmi_wire fuzz/replay_gnmi_profile
TESTS += fuzz/replay_gnmi_decode fuzz/replay_gnmi_json \
	fuzz/replay_gnmi_wire fuzz/replay_gnmi_profile
fuzz_replay_gnmi_decode_SOURCES = fuzz/fuzz_gnmi_decode.c fuzz/replay.c
fuzz_replay_gnmi_decode_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"gnmi_decode"'
fuzz_replay_gnmi_decode_LDADD = $(FABMON_LIBS)
fuzz_replay_gnmi_json_SOURCES = fuzz/fuzz_gnmi_json.c fuzz/replay.c
fuzz_replay_gnmi_json_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"gnmi_json"'
fuzz_replay_gnmi_json_LDADD = $(FABMON_LIBS)
fuzz_replay_gnmi_wire_SOURCES = fuzz/fuzz_gnmi_wire.c fuzz/replay.c
fuzz_replay_gnmi_wire_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"gnmi_wire"'
fuzz_replay_gnmi_wire_LDADD = $(FABMON_LIBS)
fuzz_replay_gnmi_profile_SOURCES = fuzz/fuzz_gnmi_profile.c fuzz/replay.c
fuzz_replay_gnmi_profile_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"gnmi_profile"'
fuzz_replay_gnmi_profile_LDADD = $(FABMON_LIBS)
$(fuzz_replay_gnmi_decode_OBJECTS) $(fuzz_replay_gnmi_json_OBJECTS) \
$(fuzz_replay_gnmi_wire_OBJECTS) $(fuzz_replay_gnmi_profile_OBJECTS): \
	proto/protoc.stamp
endif
TESTS += tests/integration_gnmi_lldp.sh
EXTRA_DIST += tests/integration_gnmi_lldp.sh
EXTRA_DIST += fuzz/fuzz_gnmi_decode.c fuzz/fuzz_gnmi_json.c \
	fuzz/fuzz_gnmi_wire.c fuzz/fuzz_gnmi_profile.c

profilesdir = $(pkgdatadir)/profiles
dist_profiles_DATA = etc/profiles/openconfig.yaml etc/profiles/sonic.yaml \
	etc/profiles/arista.yaml
EXTRA_DIST += doc/profiles.md doc/gnmi-wire.md
