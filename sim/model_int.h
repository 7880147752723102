/*
 * Internal to sim/model*.c: not an API. The counter model's state and the
 * small helpers its pieces share. The helpers are static inline because
 * the step calls them per segment (bench/bench_sim_model measures it).
 *
 * model.c holds construction and the step, model_route.c the routes and
 * the segment layout the step runs on (rebuilt when flows or links
 * change), model_ctl.c the flows, settings, events and counter reads,
 * model_bg.c the background (statistical counts and events).
 * Threading is the model's: one thread at a time (see model.c).
 */
#ifndef FABMON_MODEL_INT_H
#define FABMON_MODEL_INT_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define P		   SIM_MODEL_PRIOS
#define FP_SHIFT	   10 /* fractional event counters: value * 1024 */
#define FP_ONE		   1024.0
#define NONE		   ((size_t)-1)
#define KIB		   1024ull
#define CNP_MIN_INTERVAL_S 4e-6
#define RP_AI_PER_S	   0.25 /* of line rate per second */
#define RP_MIN_GBPS	   0.1
#define MAX_HOPS	   SIM_MODEL_MAX_PATH
/* A NIC pausing at least this fraction of a tick is stalled (SONiC's
 * pfcwd uses the same 99%). */
#define STORM_PHI 0.99

struct flow {
	size_t src, dst;
	unsigned prio;
	double demand; /* bytes/s */
	double rate;   /* bytes/s, DCQCN */
	size_t *xpath; /* explicit path or NULL */
	size_t xlen;
	size_t *path; /* current path */
	size_t hops;  /* 0: no path */
	size_t seg0;  /* first segment */
	double line;  /* src's line rate, bytes/s */
	double lost;  /* bytes lost this tick */
	double marks; /* CE packets this tick */
};

/* A queue: egress (port, prio) or a NIC's RX buffer (port, prio). */
struct queue {
	size_t port;
	unsigned prio;
	bool rx;
	bool src; /* a NIC's transmit side: nothing is queued */
	int rank;
	size_t first, n; /* in qsegs */
	double share;	 /* of the port's capacity */
	double rate;	 /* the port's, bytes/s */
	size_t node;	 /* the port's */
	size_t inj;	 /* peer port x P + prio if lossless, else NONE */
	bool blocked;
	bool done; /* served this tick */
};

/* An ingress (port, prio) and the upstream queue feeding it. */
struct ingress {
	size_t port;
	unsigned prio;
	size_t upq;		    /* queue index */
	size_t up, node;	    /* upstream port, the port's node */
	bool nic;		    /* the port is a NIC's */
	double up_rate, up_refresh; /* the upstream port's */
	size_t first, n;	    /* in gsegs */
	double phi_prev;
	double arrived, pushed; /* this tick, bytes */
	double occ;		/* occupancy when last summed this tick */
	bool hot;		/* its bytes changed since: sum again */
};

struct nic_state {
	struct sim_model_nic_cfg cfg;
	uint64_t np_ecn, np_cnp, rp_handled, rp_ignored; /* FP */
	uint64_t oob, oos, pse, lat, adp;		 /* FP */
	uint64_t rx_disc_phy, tx_disc_phy;		 /* FP */
	uint64_t thres, warn, err;
	uint64_t crc; /* background FCS errors */
	uint64_t storm_ns;
	bool warned, errored;
};

struct injection {
	size_t port;
	unsigned prio;
	double ratio;
};

struct sim_model {
	const struct sim_topo *t;
	uint64_t seed, now_ns;
	size_t n_ports, n_nodes;
	/* The topology's, cached: the step asks for them per segment. */
	const struct sim_port **pt; /* by port id */
	bool *pnic;		    /* port is a host NIC */
	uint8_t lossless_mask;
	unsigned n_wd; /* switches with a PFC watchdog */
	bool wd_any;   /* some queue may still be stormed or timing */

	/* Per port x prio. */
	uint64_t *tx_bytes, *rx_bytes, *tx_pause_ns, *rx_pause_ns;
	uint64_t *xon_tx, *xon_rx, *ecn, *qdrop, *pgdrop; /* FP: last 3 */
	double *occ, *wm;
	/* PFC watchdog per port x prio: time stormed so far (detection),
	   time without pause while stormed (restoration), counts. */
	uint64_t *wd_ns, *wd_quiet_ns, *wd_storms, *wd_restores;
	uint64_t *wd_drops; /* FP */
	bool *wd_on;
	/* Per port. */
	uint64_t *in_disc, *out_disc; /* FP */
	uint64_t *up_events, *down_events;
	uint64_t *in_err; /* background FCS errors */
	bool *up;
	struct nic_state *nic; /* indexed by port; used for NIC ports */
	/* Per node. */
	struct sim_model_switch_cfg *sw;
	unsigned *boots;
	uint64_t *boot_ns;
	uint64_t *cbase; /* counter base, until the switch reboots */

	struct flow *flows;
	size_t n_flows, cap_flows;
	struct injection *inj;
	size_t n_inj;

	/* Rebuilt when dirty. */
	bool dirty;
	bool occ_valid; /* ingresses' occ, unless hot, as of now */
	size_t n_segs;
	size_t *seg_flow, *seg_q, *seg_g;
	unsigned *seg_hop;
	double *b, *a, *d;
	double *pb; /* pushed back by PFC this tick, per segment */
	struct queue *q;
	size_t n_q;
	size_t *qsegs;
	struct ingress *g;
	size_t n_g;
	size_t *gsegs;
	size_t *gorder;	 /* (key, ingress) pairs, downstream first */
	int32_t *qmap;	 /* 2 x n_ports x P -> queue, -1 */
	int32_t *gmap;	 /* n_ports x P -> ingress, -1 */
	double *inj_phi; /* n_ports x P: pause injected by port */
	int *dist;	 /* per node, routing scratch */
	size_t *bfs;
	unsigned *want; /* per node: a source of the routes (== stamp) */
	unsigned stamp;

	struct model_bg *bg; /* NULL until the background is set */
};

static inline const struct sim_port *port_of(const struct sim_model *m,
					     size_t id)
{
	return m->pt[id];
}

static inline bool is_nic(const struct sim_model *m, size_t id)
{
	return m->pnic[id];
}

static inline bool lossless(const struct sim_model *m, unsigned prio)
{
	return (m->lossless_mask >> prio) & 1;
}

static inline double rate_Bps(const struct sim_port *p)
{
	return p->speed * 1e9 / 8.0;
}

/* XOFF refreshes per second that hold a priority paused: one per
 * maximum pause of 65535 quanta of 512 bit times. */
static inline double refresh_rate(const struct sim_port *p)
{
	return p->speed * 1e9 / (65535.0 * 512.0);
}

static inline void fp_add(uint64_t *c, double x)
{
	if (x > 0)
		*c += (uint64_t)(x * FP_ONE);
}

static inline uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline bool is_switch(const struct sim_node *n)
{
	return n->kind != SIM_NODE_HOST;
}

/* Counts bytes of backlog dropped at (port, prio) as frames lost there. */
static inline void drop_backlog(struct sim_model *m, size_t port, unsigned prio,
				bool rx, double bytes)
{
	if (bytes <= 0)
		return;
	double pk = bytes / SIM_MODEL_FRAME_BYTES;
	if (rx) {
		fp_add(&m->pgdrop[port * P + prio], pk);
		fp_add(&m->nic[port].rx_disc_phy, pk);
	} else {
		fp_add(&m->qdrop[port * P + prio], pk);
		fp_add(&m->out_disc[port], pk);
	}
}

/*
 * Recomputes paths, segments, queues and ingresses (model_route.c).
 * Backlog of a flow stays where the new path still passes; elsewhere it
 * is dropped and counted at the port that held it. Clears m->dirty.
 */
void model_rebuild(struct sim_model *m);

/* Frees the segment layout's arrays (model_route.c). */
void model_free_segments(struct sim_model *m);

/* The background (model_bg.c). model_bg_step adds one step's counts
 * and runs its events (after the step, at the model's new time);
 * model_bg_reboot forgets a rebooted switch's gauges; model_bg_occ is
 * the occupancy it adds to (port x P + prio); model_bg_free frees it. */
void model_bg_step(struct sim_model *m, uint64_t dt_ns);
void model_bg_reboot(struct sim_model *m, size_t node);
uint64_t model_bg_occ(const struct sim_model *m, size_t pi);
void model_bg_free(struct sim_model *m);

#endif
