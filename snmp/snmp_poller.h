/*
 * snmp_poller: the SNMP collector. Polls every target that has an snmp:
 * block with asynchronous GETBULK walks and writes canonical samples
 * into the store through the target's profile (snmp_profile.h).
 *
 * Threads: one loop thread carries every target. It owns all net-snmp
 * state (the library is built without locking, and its USM user list,
 * engine-time cache and request ids are process-global): each target has
 * one single-session-API session whose UDP socket sits in the loop's
 * epoll set, so there is no select() and no FD_SETSIZE limit. net-snmp
 * is initialised once per process, on the loop thread when the first
 * target arrives (never without SNMP targets), with configuration files,
 * MIB loading and persistent state turned off and its log routed to
 * ours at debug; a process must not run net-snmp on another thread at
 * the same time (fabmond does not). The main thread reaches the loop
 * only through a mailbox (a new target list on reload), and waits until
 * the loop applied it, so a removed target is never touched after
 * reload returns.
 *
 * Per target, a poll cycle is: SNMPv3 engine discovery when needed
 * (asynchronous: an empty GET whose REPORT names the engine), one GET of
 * sysObjectID/sysUpTime/ifNumber the first time (the profile is chosen
 * by sysObjectID when the config names none), a walk of the index
 * tables (ifName, ifDescr, ifAlias, the LLDP local port and remote
 * tables) at the start, every 5 minutes and whenever sysUpTime goes
 * back or ifNumber changes, then one GETBULK walk of every profile
 * column plus ifCounterDiscontinuityTime, with sysUpTime and ifNumber as
 * non-repeaters of its first request. At most 128 targets poll at once
 * (agents drop bursts); a target that times out keeps only its own slot.
 * A poll that is still running when the next is due is an overrun:
 * counted, logged (rate-limited), and the missed slot is skipped.
 * Failures back off exponentially (up to 60 s, jittered).
 */
#ifndef FABMON_SNMP_POLLER_H
#define FABMON_SNMP_POLLER_H

#include "collector.h"

#include <stdint.h>

/* The collector ops table fabmond lists. */
extern const struct collector_ops snmp_collector_ops;

/* Totals of a running collector, for tests and benchmarks (any thread). */
struct snmp_poller_stats {
	uint64_t polls_ok;     /* counter walks completed */
	uint64_t polls_failed; /* cycles that failed (timeout, error) */
	uint64_t values;       /* samples written */
	uint64_t overruns;
	uint64_t pdus;		 /* responses processed */
	int64_t loop_cpu_ns;	 /* CPU time of the loop thread so far */
	uint64_t lldp_neighbors; /* neighbours known over all targets */
};
void snmp_poller_get_stats(void *state, struct snmp_poller_stats *out);

/* Makes every idle target due now (benchmarks: one cycle of all targets
 * started together, backoff ignored). Returns once the loop applied it. */
void snmp_poller_trigger(void *state);

/* One LLDP neighbour as the remote table of a target reports it. The
 * collector also reports them to the link table of its environment
 * (links_report_lldp, source "snmp"), which /api/v1/topology and the
 * rule engine read. */
struct snmp_lldp_neighbor {
	char *device;		   /* the target (local device) */
	char *port;		   /* local port, by ifName where known */
	char *neighbor_device;	   /* lldpRemSysName */
	char *neighbor_port;	   /* lldpRemPortId (else PortDesc) */
	int neighbor_port_subtype; /* lldpRemPortIdSubtype (0: unknown) */
	char *neighbor_port_desc;  /* lldpRemPortDesc ("" if none) */
};
/* A copy of every target's LLDP neighbours (any thread); free with
 * snmp_lldp_free(). */
size_t snmp_poller_lldp(void *state, struct snmp_lldp_neighbor **out);
void snmp_lldp_free(struct snmp_lldp_neighbor *v, size_t n);

#endif
