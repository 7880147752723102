# demo-target: one simulated gNMI leaf for the README's demo (fabsim,
# the simulated fabric, replaces it).
noinst_PROGRAMS += sim/demo-target
sim_demo_target_SOURCES = sim/demo_target.c
sim_demo_target_CFLAGS = $(AM_CFLAGS) $(GRPC_CFLAGS) $(PROTOBUFC_CFLAGS)
sim_demo_target_LDADD = libgnmi_target.a $(FABMON_LIBS)
