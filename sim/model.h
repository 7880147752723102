/*
 * sim_model: fabsim's counter model. A fluid (rate-based) model of a
 * lossless RoCE v2 fabric stepped in ticks: flows of bytes cross egress
 * queues, PFC holds ingress buffers at Xoff by pausing the upstream
 * egress, ECN marks, DCQCN cuts sender rates, drops happen where the
 * device would drop; every port keeps the raw counters its device would
 * (switch ports as SONiC/SAI keeps them, host NICs with the mlx5
 * hw_counters, IB port counters and ethtool names), with native widths.
 * The equations are in model.c's opening comment.
 *
 * Ports are the topology's: every per-port function takes a sim_port id
 * (sim_topo_port(t, id)), every per-node one a sim_node id.
 *
 * Ownership and threads. The model borrows its topology, which must
 * outlive it, and owns everything else. No wall clock and no global
 * state: time is what sim_model_step() is given, and the same seed,
 * topology, knob calls and steps give the same counters, bit for bit.
 * One thread at a time per model (readers included); separate models
 * share nothing.
 */
#ifndef FABMON_SIM_MODEL_H
#define FABMON_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo.h"

#define SIM_MODEL_PRIOS 8
/* Bytes of one modelled RoCE packet on the wire (4096 B payload plus
 * Ethernet, IP, UDP, BTH and ICRC headers): packets = bytes / this. */
#define SIM_MODEL_FRAME_BYTES 4160
/* The most egress ports on an explicit flow path, the src NIC
 * included. */
#define SIM_MODEL_MAX_PATH 64
/* The longest tick sim_model_step() accepts. */
#define SIM_MODEL_MAX_TICK_NS 100000000ull

struct sim_model;

/*
 * A model of t's fabric with every link up, no flows and default
 * configuration (sim_model_switch_cfg and sim_model_nic_cfg below). seed
 * picks the ECMP hash. Returns NULL with a one-line message in err if t
 * is NULL. Free with sim_model_free().
 */
struct sim_model *sim_model_new(const struct sim_topo *t, uint64_t seed,
				char *err, size_t errlen);
/* Frees m; sim_model_free(NULL) is a no-op. */
void sim_model_free(struct sim_model *m);

/*
 * Advances the model by dt_ns (1 ns to SIM_MODEL_MAX_TICK_NS): moves
 * bytes, applies PFC, ECN, DCQCN and drops, and adds to the counters.
 * Returns 0, or -EINVAL for a dt out of range.
 */
int sim_model_step(struct sim_model *m, uint64_t dt_ns);
/* Model time: the sum of the steps taken. */
uint64_t sim_model_now_ns(const struct sim_model *m);

/* ---- Traffic ---- */

/*
 * A flow: bytes from one NIC port to another on one priority, at a
 * demand rate. Without a path it is routed shortest-path over up links,
 * ECMP by a hash of the seed, the flow id and the node, and rerouted
 * when links change. An explicit path (for a misrouted or rerouted
 * flow, e.g. a cyclic dependency) lists the egress ports in order, from
 * src itself to the switch port cabled to dst; the flow stops while a
 * link on it is down. The path is copied.
 */
struct sim_model_flow {
	size_t src, dst; /* NIC port ids (host ports), src != dst */
	unsigned prio;	 /* 0..7 */
	double gbps;	 /* demand, >= 0 */
	const size_t *path;
	size_t path_len; /* 0: routed */
};

/* Adds a flow; returns its id (>= 0, dense, in order of addition) or
 * -EINVAL if f is invalid (ports not NICs, bad priority or path). */
int sim_model_add_flow(struct sim_model *m, const struct sim_model_flow *f);
/* Sets a flow's demand (Gb/s >= 0): 0 or -EINVAL. The sending rate
 * follows it at once when it drops, and by DCQCN's increase when it
 * rises. */
int sim_model_set_flow_demand(struct sim_model *m, int flow, double gbps);
/* Number of flows added. */
size_t sim_model_n_flows(const struct sim_model *m);
/* A flow's current sending rate in Gb/s (DCQCN's RP rate), -1 if no
 * such flow. */
double sim_model_flow_rate(const struct sim_model *m, int flow);
/* A flow's current egress ports, borrowed until the next knob call or
 * step; *n = 0 while it has no path. 0 or -EINVAL. */
int sim_model_flow_path(struct sim_model *m, int flow, const size_t **ports,
			size_t *n);

/* ---- Knobs ---- */

/* Per switch buffer, PFC and ECN settings (bytes), on every port and
 * lossless priority of the switch. */
struct sim_model_switch_cfg {
	uint64_t xoff;	   /* ingress PG: pause the upstream above this */
	uint64_t xon;	   /* resume below this (< xoff) */
	uint64_t headroom; /* absorbs the in-flight bytes after an XOFF */
	uint64_t ecn_kmin, ecn_kmax; /* egress queue marking ramp */
	double ecn_pmax;	     /* mark probability at kmax (0..1] */
	uint64_t lossy_limit;	     /* tail drop of a lossy egress queue */
	uint32_t pfc_reaction_ns;    /* XOFF to upstream silence */
	/* PFC watchdog (SONiC pfcwd, action drop) on every lossless egress
	   queue: a queue paused >= 99% of the time with bytes queued for
	   pfcwd_detect_ms is stormed: it drops what it holds and what
	   arrives and ignores pause until no pause has come for
	   pfcwd_restore_ms. 0 disables the watchdog. */
	uint32_t pfcwd_detect_ms, pfcwd_restore_ms;
};
/* Defaults: xoff 512 KiB, xon 480 KiB, headroom 256 KiB, ECN 100..400
 * KiB at 20%, lossy limit 2 MiB, reaction 2 us, watchdog off (restore
 * 200 ms). 0 or -EINVAL if node is not a switch or (set) cfg is
 * inconsistent (xon >= xoff, kmin > kmax, pmax outside (0, 1], a
 * watchdog without a restoration time). */
int sim_model_get_switch_cfg(const struct sim_model *m, size_t node,
			     struct sim_model_switch_cfg *cfg);
int sim_model_set_switch_cfg(struct sim_model *m, size_t node,
			     const struct sim_model_switch_cfg *cfg);

/* Per NIC port receive path and congestion control. */
struct sim_model_nic_cfg {
	uint64_t xoff;	    /* RX buffer level that pauses the leaf */
	uint64_t xon;	    /* < xoff */
	uint64_t headroom;  /* the buffer is xoff + headroom */
	double rx_drain;    /* host drain as a fraction of line rate:
			       1 healthy, 0 receive path stalled */
	bool np_enabled;    /* DCQCN NP: send CNPs for CE packets */
	bool rp_ignore_cnp; /* RP counts CNPs as ignored, no rate cut */
	/* Stall prevention (pfc-prevention-tout): warning past minor,
	   error and pause disabled past critical; critical 0 disables. */
	uint32_t storm_minor_ms, storm_critical_ms;
};
/* Defaults: xoff 256 KiB, xon 224 KiB, headroom 128 KiB, drain 1, NP
 * on, CNPs handled, storm 6800/8000 ms (firmware default). 0 or
 * -EINVAL if port is not a NIC or cfg is inconsistent. */
int sim_model_get_nic_cfg(const struct sim_model *m, size_t port,
			  struct sim_model_nic_cfg *cfg);
int sim_model_set_nic_cfg(struct sim_model *m, size_t port,
			  const struct sim_model_nic_cfg *cfg);

/* Brings a cable (port and its peer) down or up: carrier transitions
 * are counted at both ends, routed flows reroute, bytes queued for a
 * down link are dropped. 0, or -EINVAL for an uncabled or unknown
 * port. */
int sim_model_set_link(struct sim_model *m, size_t port, bool up);
/* Whether port's link is up. */
bool sim_model_link_up(const struct sim_model *m, size_t port);

/* Reboots a switch: every counter of its ports restarts from 0 (its
 * counter base too), its queues are flushed, its boot count rises. 0 or
 * -EINVAL. */
int sim_model_reboot(struct sim_model *m, size_t node);
/* Boots so far (0 until the first reboot) and the model time of the
 * last one, for discontinuity markers (sysUpTime, counter epochs). */
unsigned sim_model_boots(const struct sim_model *m, size_t node);
uint64_t sim_model_boot_ns(const struct sim_model *m, size_t node);

/*
 * Starts every switch's cumulative counters at base instead of 0, as on
 * a switch that has been up for months: every cumulative counter of its
 * ports (each per-priority one and each port total, on its own) reads
 * base plus what the model counted, modulo 2^64; gauges (occupancy,
 * watermark, link and watchdog state) are not shifted, and NIC ports
 * keep 0. Only what the read functions report moves: the dynamics, and
 * so determinism, are those of base 0. A switch's reboot drops its base
 * (its counters restart from 0). Meant before the first step: a later
 * call makes every switch's counters jump at once. Default 0.
 */
void sim_model_set_counter_base(struct sim_model *m, uint64_t base);
/* The counter base of a switch now (0 after its reboot, or if node is
 * not a switch). */
uint64_t sim_model_counter_base(const struct sim_model *m, size_t node);

/* Makes port transmit PFC on prio for fraction ratio (0..1, 0 stops)
 * of every tick, whatever its buffers: a misconfigured or faulty
 * device. The peer counts the frames; it stops sending only if prio is
 * lossless. 0 or -EINVAL. */
int sim_model_inject_pause(struct sim_model *m, size_t port, unsigned prio,
			   double ratio);

/* ---- Background ---- */

/*
 * The background (model_bg.c): what a healthy loaded fabric shows that
 * the fluid model cannot resolve. Per port, from the bytes it received
 * in the step and its role (host NIC, leaf downlink, leaf uplink, spine
 * port): microburst episodes on the lossless priorities (short pauses,
 * ECN marks, CNPs), receive discards unrelated to buffers and drops on a
 * lossy queue on some switch ports, FCS errors on a few links; and a
 * schedule of single flaps of non-critical links and switch reboots.
 * Counts are added to the counters the read functions report, at both
 * ends of a link; they never move bytes, so the fluid dynamics are
 * those of the model without it. Seeded from the model seed and the
 * port ids: deterministic like the rest. Figures and their origin:
 * doc/fabsim-scenarios.md, "The background". Every knob at 0 disables
 * its part.
 */
struct sim_model_background {
	bool enabled;
	double microburst_scale;	 /* episode rate x this, 0..100 */
	double discard_port_fraction;	 /* switch ports, 0..1 */
	double lossy_drop_port_fraction; /* switch ports, 0..1 */
	double error_link_fraction;	 /* links, 0..1 */
	double flap_mean_s;		 /* fabric-wide mean interval */
	double reboot_mean_s;		 /* fabric-wide mean interval */
};
/* Defaults: enabled, scale 1, discards on 20% of switch ports, lossy
 * drops on 10%, errors on 3% of links, a flap every 300 s and a reboot
 * every 1800 s on average. */
void sim_model_background_defaults(struct sim_model_background *b);
/* Sets (or with enabled false, stops) the background: 0, or -EINVAL for
 * a knob out of range. Stopping brings up a link it holds down.
 * sim_model_new() starts with it off (enabled false, knobs at their
 * defaults). */
int sim_model_set_background(struct sim_model *m,
			     const struct sim_model_background *b);
void sim_model_get_background(const struct sim_model *m,
			      struct sim_model_background *b);

/* What the background did: its events (listed) and microburst episodes
 * (counted only). */
enum sim_model_bg_kind {
	SIM_MODEL_BG_LINK_DOWN,
	SIM_MODEL_BG_LINK_UP,
	SIM_MODEL_BG_REBOOT,
	SIM_MODEL_BG_MICROBURST,
};
#define SIM_MODEL_BG_KINDS 4
struct sim_model_bg_event {
	uint64_t at_ns; /* model time at the end of the step it happened */
	enum sim_model_bg_kind kind;
	size_t node; /* the switch rebooted, or the link's end's node */
	size_t port; /* a link's end (the peer is the other), or (size_t)-1 */
};
/* The events (flaps' downs and ups, reboots) in time order; NULL past
 * the end. Borrowed until the next step. */
size_t sim_model_bg_n_events(const struct sim_model *m);
const struct sim_model_bg_event *sim_model_bg_event(const struct sim_model *m,
						    size_t i);
/* How many of a kind the background has made so far (microburst
 * episodes included), 0 for an unknown kind. */
uint64_t sim_model_bg_count(const struct sim_model *m,
			    enum sim_model_bg_kind kind);

/* ---- Counters ---- */

/* One priority (= queue index) of a switch port; 64-bit, monotonic
 * until the switch reboots, pause times in us. */
struct sim_model_switch_prio {
	uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
	uint64_t pfc_rx_frames, pfc_tx_frames;	   /* XOFF refreshes + XON */
	uint64_t pfc_rx_pause_us, pfc_tx_pause_us; /* egress paused / we
						      paused the peer */
	uint64_t pfc_rx_transitions;		   /* XOFF -> XON received */
	uint64_t queue_drops;			   /* egress queue drops */
	uint64_t pg_drops;			   /* ingress PG drops */
	uint64_t ecn_marked;			   /* packets marked CE */
	uint64_t occupancy_bytes;		   /* gauge */
	uint64_t watermark_bytes;		   /* max since boot */
	/* PFC watchdog: storms detected (SONiC's DEADLOCK_DETECTED),
	   restorations, packets its drop action dropped (also in
	   queue_drops); whether the queue is stormed now (gauge). */
	uint64_t pfcwd_storms, pfcwd_restores, pfcwd_drops;
	bool pfcwd_stormed;
};

struct sim_model_switch_port {
	struct sim_model_switch_prio prio[SIM_MODEL_PRIOS];
	uint64_t in_octets, in_packets, out_octets, out_packets;
	uint64_t in_discards, out_discards;
	uint64_t in_errors; /* frames received with a bad FCS */
	uint64_t link_up_events, link_down_events;
	bool link_up; /* gauge */
};

/* A host NIC port with mlx5 names and widths. */
struct sim_model_nic_port {
	/* hw_counters: congestion group, 64-bit */
	uint64_t np_ecn_marked_roce_packets, np_cnp_sent;
	uint64_t rp_cnp_handled, rp_cnp_ignored;
	/* hw_counters: q-counters, 32-bit in hardware, wrap at 2^32 */
	uint32_t out_of_buffer, out_of_sequence, packet_seq_err;
	uint32_t local_ack_timeout_err, roce_adp_retrans;
	/* ports/1/counters: data in 4-byte words, 64-bit */
	uint64_t port_xmit_data, port_rcv_data;
	uint64_t port_xmit_packets, port_rcv_packets;
	/* ethtool -S, per priority (pause durations in us) */
	uint64_t rx_prio_bytes[SIM_MODEL_PRIOS],
	    rx_prio_packets[SIM_MODEL_PRIOS];
	uint64_t tx_prio_bytes[SIM_MODEL_PRIOS],
	    tx_prio_packets[SIM_MODEL_PRIOS];
	uint64_t rx_prio_pause[SIM_MODEL_PRIOS], tx_prio_pause[SIM_MODEL_PRIOS];
	uint64_t rx_prio_pause_duration[SIM_MODEL_PRIOS];
	uint64_t tx_prio_pause_duration[SIM_MODEL_PRIOS];
	uint64_t rx_prio_pause_transition[SIM_MODEL_PRIOS];
	uint64_t rx_prio_discards[SIM_MODEL_PRIOS];
	/* ethtool -S, port */
	uint64_t rx_discards_phy, tx_discards_phy, rx_buffer_passed_thres_phy;
	uint64_t rx_crc_errors_phy;
	uint64_t tx_pause_storm_warning_events, tx_pause_storm_error_events;
	uint64_t link_down_events_phy;
	bool link_up;
};

/* Fill *out with a port's counters as its device would report them now.
 * 0, or -EINVAL if port is not a switch port (resp. a NIC port). */
int sim_model_read_switch_port(const struct sim_model *m, size_t port,
			       struct sim_model_switch_port *out);
int sim_model_read_nic_port(const struct sim_model *m, size_t port,
			    struct sim_model_nic_port *out);

#endif
