/*
 * nic_collector: the NIC collector. Reads the mlx5 counters of the
 * hosts in the config's nic: section (this machine, or the list of
 * simulated hosts fabsim writes) every nic.interval and writes them to
 * the store, one health entry per host (protocol "nic").
 *
 * Threads: one thread polls every host in turn (a cycle of 8 ports
 * costs well under a millisecond of CPU: files stay open and are read
 * with pread), each poll on a worker it waits for at most read_timeout
 * (the interval, at least 5 s): a host whose read hangs in a driver is
 * marked down "read timed out" and left alone until the read returns,
 * and stopping never waits for a read (nic_collector.c).
 *
 * The main thread's reload converges the host list under the
 * collector's lock: hosts that left are freed, their health entry
 * removed and their series withdrawn; changed ones are rebuilt; new
 * ones start at the next cycle.
 */
#ifndef FABMON_NIC_COLLECTOR_H
#define FABMON_NIC_COLLECTOR_H

#include "collector.h"

/* The collector ops table fabmond lists. */
extern const struct collector_ops nic_collector_ops;

#endif
