/*
 * rules_int.h: internal to rules/, the declarations the pieces of the
 * rule engine share: the engine's state (struct rules), the per-port
 * view and its accessors, the incidents, and the functions one piece
 * calls in another. Nothing outside rules/ includes it.
 *
 * The pieces: rules.c (configuration, the view and the scan of the
 * store, the ratios, the tick), rules_incident.c (names, candidates,
 * the incident lifecycle, the outputs and snapshots), rules_pause.c
 * (the per-priority pause graph: weights, pause trees, onsets, storms,
 * spreading and deadlocks), rules_detect.c (the other detections:
 * queues, lossy priorities, NICs, flaps, targets, rails) and
 * rules_thread.c (the tick thread and its kicks). Everything but the
 * thread's wait and the kicks runs under the engine's lock.
 *
 * The view's accessors are static inline here so that the hot loops
 * (the scan, the detections) still inline them across the pieces.
 */
#ifndef FABMON_RULES_INT_H
#define FABMON_RULES_INT_H

#include "rules.h"

#include "cfg.h"
#include "counters.h"
#include "store.h"
#include "units.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PRIOS	       8
#define NONE	       UINT32_MAX
#define RULES_PREFETCH 64 /* slots ahead in the read pass */
#define MAX_SUBJECTS   256
#define MAX_EVIDENCE   12
#define MAX_ACTIVE     65536
#define FLAP_RING      8
/* Kicked ticks: the quiet time that ends a round of samples, the
 * longest a round may delay its tick, and the shortest gap between
 * ticks (rules.tick's floor). */
#define RULES_KICK_QUIET_NS (50 * 1000000)
#define RULES_KICK_MAX_NS   (250 * 1000000)
#define RULES_KICK_GAP_NS   (100 * 1000000)
/* How far back a link failure can be the cause of a pause cycle. */
#define DEADLOCK_CAUSE_NS (300 * NS_PER_S)
/* Bits on the wire held paused by one XOFF at pause_time 0xffff. */
#define PAUSE_HOLD_BITS (512.0 * 65535.0)

/* Per-(port, priority) fields. */
enum pfield {
	F_TX_PAUSE, /* s/s we kept the peer paused */
	F_RX_PAUSE, /* s/s we were paused */
	F_TX_FRAMES,
	F_RX_FRAMES,
	/* From here on: fields only read on lossless priorities, stored
	 * by lane (F_LANE0). */
	F_TX_PKTS, /* transmit progress, packets/s */
	F_DROPS,   /* drops on the priority, packets/s */
	F_ECN,	   /* CE marks, packets/s */
	F_OCC,	   /* queue occupancy, bytes */
	F_WD,	   /* switch watchdog: stormed (1) or storms/s */
	F_N,
	F_LANE0 = F_TX_PKTS
};

/* Per-port fields. */
enum qfield {
	P_SPEED,      /* bytes/s */
	P_LINK_UP,    /* 0/1 */
	P_DOWN_TOTAL, /* link down events, running total */
	P_CE,	      /* CE RoCE packets received/s */
	P_CNP_SENT,
	P_CNP_HANDLED,
	P_CNP_IGNORED,
	P_STORM_WARN,
	P_STORM_ERR,
	P_OOB, /* NIC out of buffer, packets/s */
	P_RETRIES,
	P_TX_BYTES,
	P_DISC_RX, /* port receive discards, packets/s (any priority) */
	P_N
};

/* What a tick saw of a port (valid). */
enum {
	PV_RATE = 1,	/* a fresh rate */
	PV_FRESH = 2,	/* any fresh value (gauges included) */
	PV_READ = 4,	/* a series in the store, fresh or not */
	PV_SEEN = 8,	/* a value, fresh or not */
	PV_RATIOS = 16, /* its ratios and tails are computed */
	PV_LOSSY = 32,	/* a pause figure on a lossy priority (not 0) */
	PV_ACTIVE = 64, /* a figure the report counts, or the port's
			   receive discards (drop_rules), is not 0 */
	PV_LINK = 128,	/* its link state or down count moved (flap_rules) */
	PV_ALL = PV_RATE | PV_FRESH | PV_READ | PV_SEEN,
};

enum mkind { M_UNKNOWN = 0, M_IGNORE, M_PRIO, M_PORT };
enum vkind { V_RATE, V_GAUGE, V_TOTAL };
enum agg { A_SUM, A_MAX };

/* What one store slot feeds (4 bytes: the map is streamed every tick
 * next to the store's figures). The slot's generation at
 * classification is kept apart (mgen) and compared only when a
 * withdrawal may have given slots new keys (store_withdrawals). */
#define MAP_PORT_BITS 20
#define MAP_MAX_PORTS (1u << MAP_PORT_BITS)
struct slot_map {
	uint32_t port : MAP_PORT_BITS;
	uint32_t kind : 2;  /* enum mkind */
	uint32_t cls : 7;   /* the view class: r->vcls[cls] */
	uint32_t vkind : 2; /* enum vkind */
	uint32_t lossy : 1; /* the class is lossy (vclass.lossy) */
};

/*
 * Where a series of a view class goes in its port's view block (see
 * vblk): the value's word, the has-bits word and mask, how readings of
 * the same class add up, and the pause stamp's word. A class is a
 * per-priority field at a priority (1 + f * 8 + prio) or a port field
 * (VCLS_PORT + f); the table follows the lossless set's layout.
 */
#define VCLS_PORT (1 + F_N * PRIOS)
#define VCLS_N	  (VCLS_PORT + P_N)
_Static_assert(VCLS_N <= 128, "view classes fit the slot map");
struct vclass {
	uint8_t woff;	/* the value's word */
	uint8_t hw;	/* the has-bits word */
	uint8_t sum;	/* readings add up (else the largest) */
	uint8_t lossy;	/* a lossy priority's pause figure */
	uint8_t pst;	/* its pause stamp's word; 0: none */
	uint8_t report; /* a figure the report counts (feed_outputs), or
			   the receive discards (drop_rules) */
	uint8_t link;	/* P_DOWN_TOTAL or P_LINK_UP (flap_rules) */
	uint32_t hmask;
};

/*
 * Frame counters are read next to pause time counters: with the time
 * they tell a pause that held to the end of its sample from one that
 * came and went (compute_ratios). Reading fewer series (every few ticks
 * for slow signals) does not pay: the scan is bound by memory, and
 * sparse reads cost the prefetcher more than they save
 * (bench/bench_detect).
 */
_Static_assert(sizeof(struct slot_map) == 4, "slot map entry size");

/* How each canonical counter feeds the view (counter id -> field). */
struct cmap {
	uint8_t kind; /* M_PRIO or M_PORT; 0: not read */
	uint8_t field;
	uint8_t vkind;
	bool lossy_too; /* read on lossy priorities as well */
};

/* An incident's subject inside the engine. */
struct isub {
	uint32_t port; /* engine port, or NONE for a whole device */
	store_label dev;
	int8_t prio;
	uint8_t role;
	int16_t parent;
	uint16_t depth;
};

struct iev {
	const char *name; /* static string */
	uint32_t port;	  /* NONE: dev only */
	store_label dev;
	double value;
};

struct inc {
	uint64_t id;
	enum rules_kind kind;
	enum rules_state state;
	store_label dev, port; /* origin; port 0: the whole device */
	int prio;
	/* A storm from outside the view (rules_incident's far_end and
	 * sender): far_end is part of the incident's key; the sender is
	 * the latest while pending, then kept (outputs' identity). */
	bool far_end;
	uint8_t sender; /* enum rules_sender */
	/* The condition by the data that showed it (figures' ms): held
	 * from (the start of the first window that showed it) to the
	 * newest arrival that showed it. For-durations accrue in this time,
	 * not in ticks: a late sample's held rates are not counted twice. */
	int64_t dfrom_ms, dlast_ms;
	int64_t started;   /* first sighting */
	int64_t fired;	   /* 0 while pending */
	int64_t last_true; /* last tick the condition held */
	int64_t peak_ns;
	double peak;
	bool asserted; /* this tick */
	struct isub *subs;
	size_t n_subs, cap_subs;
	struct iev ev[MAX_EVIDENCE];
	size_t n_ev;
	char summary[256];
};

/* What a rule hands to assert_inc (scratch, reused every tick). */
struct cand {
	struct isub subs[MAX_SUBJECTS];
	size_t n_subs;
	struct iev ev[MAX_EVIDENCE];
	size_t n_ev;
	/* How long the condition has held by the evidence (ns; 0: the
	 * rate's window), counted on a new incident's first sighting. */
	int64_t held_ns;
	/* The arrival (figures' ms) of the newest data that shows the
	 * condition (0: the origin port's, see data_ms). */
	int64_t data_ms;
	/* pause_tree: per subject, the arrival of the oldest data on its
	 * path from the root (the path is shown by data up to then). */
	int64_t sub_ms[MAX_SUBJECTS];
	/* A storm from outside the view (struct inc's far_end, sender). */
	bool far_end;
	uint8_t sender;
};

/* A pause series' sample: its age at the tick and its interval (ms,
 * saturated), for the pause tail (compute_ratios). */
struct pstamp {
	uint16_t age_ms, iv_ms;
};

/*
 * The view: what this tick read of each port, one block of 4-byte words
 * per port, so that read_store writes a port's series into two adjacent
 * cache lines (spread over two dozen arrays, the hardware prefetcher
 * lost track of them and the writes missed). Words:
 *   VW_TICK	the tick (vtick) that wrote the block; the has-bits
 *		below are this tick's only if it is the current one
 *   VW_QHAS	bit f: port field f set
 *   VW_PHAS	8 x 16 bits: bit f: field f of that priority set
 *   VW_PL	the lossless priorities' fields: [f * nl + lane]
 *   vpst	their pause stamps: [lane * 2 + rx]
 *   vqv	the port fields (P_N)
 *   vpnl	the lossy priorities' pause fields: [f * 8 + prio], f <
 *		F_LANE0; written only when not 0 (absent reads as 0
 *		there, and they are 0 but for a fault), so a healthy
 *		tick never touches their lines
 * rounded up to whole cache lines (vstride).
 */
union vword {
	float f;
	uint32_t u;
	struct pstamp ps;
};

_Static_assert(sizeof(union vword) == 4, "view word size");

enum {
	VW_TICK = 0,
	VW_QHAS = 1,
	VW_PHAS = 2,
	VW_PL = VW_PHAS + PRIOS / 2,
	VW_LINE = 16, /* words per cache line */
};

/*
 * A port's receive-discard baseline (rules_base.c): a decayed mean and
 * mean absolute deviation of its discards (packets/s), learned once per
 * fresh sample from windows that are not suspect. Samples not visited
 * (the discards and pause were 0: the port had no figure to look at)
 * are counted as zeros when the port is next visited: at_ms is the arrival of
 * the last sample counted. link_ns: the port's last link change (tick time),
 * see rules_link_suspect.
 */
struct dbase {
	int64_t at_ms;	 /* figures' ms; valid when seeded */
	int64_t link_ns; /* 0: none seen */
	float mean, dev;
	uint32_t n;  /* samples counted (saturates) */
	uint32_t pn; /* samples its pause baselines counted */
	uint8_t seeded;
};

/* A port's transmit pause baseline on a lossless priority (rules_base.c,
 * [lix]): the same kind of mean and deviation of its tx pause ratio,
 * counted with its discards' samples. */
struct pbase {
	float mean, dev;
};

struct rules_cfg {
	struct cfg_rules r;
	uint8_t lossless;
	/* Lossless priorities get lanes 0..nl-1 in the lossless-only parts
	 * of the view (lix): a port's figures there sit together instead of
	 * one float in every eight. */
	uint8_t nl, lane[PRIOS];
	uint64_t tick_ns;
	int64_t window_ns; /* a rate's window: the sample interval */
	int64_t silent_ns;
	int64_t lldp_ttl_ns;
};

struct rules {
	struct store *st;
	struct links *links;
	struct health *health;
	int64_t (*real_ns)(void *ctx);
	void *clock_ctx;

	pthread_mutex_t lock;
	struct rules_cfg c;

	/* Ports. */
	uint32_t n_ports, cap_ports;
	uint64_t port_growths; /* grow_ports reallocations (snapshot) */
	store_label *pdev, *pname;
	uint32_t *devi;
	int64_t *plast; /* newest arrival of the port's series this tick */
	int64_t *page;	/* its fastest series' youngest age this tick (ms) */
	uint32_t *piv;	/* the interval of those (ms) */
	int32_t *peer;
	uint8_t *is_nic;   /* sticky: NIC counters seen */
	uint8_t *valid;	   /* PV_* bits, this tick */
	union vword *view; /* [port * vstride], see vblk */
	uint32_t vstride, vpst, vqv, vpnl, vtick, view_cap;
	uint32_t vdst; /* the receive discards' stamp (rules_base.c) */
	struct vclass vcls[VCLS_N];
	float *rtx, *rrx; /* ratios [lix]; < 0 unknown */
	float *ttx, *trx; /* pause tails [lix] (s; 0 none) */
	float *pw, *dw;	  /* pausing / paused weight at the prio at hand */
	float *pt, *dt;	  /* pausing / paused tail at the prio at hand */
	double *down_last;
	uint8_t *down_seen;
	int8_t *link_last;
	int64_t *flap_t;     /* [port * FLAP_RING] */
	int64_t *down_at;    /* the link last seen going down (0: never) */
	int64_t *cycle_at;   /* last seen in a pause cycle (0: never) */
	uint32_t *cycle_key; /* that cycle's member that sorts first */
	int64_t *dhold_at;   /* a switch's drops first seen [lix] (0: none) */
	float *dhold_v;	     /* their peak while held [lix] */
	int64_t *dhold_arr;  /* the arrival (figures' ms) of the data that
				first showed them [lix] */
	uint32_t n_dhold;    /* held entries */
	uint8_t *flap_n;
	struct dbase *base;  /* receive-discard baselines (rules_base.c) */
	struct pbase *pbase; /* pause baselines [lix] (rules_base.c) */
	uint64_t *port_idx;  /* (dev << 32 | port) + 1; open addressing */
	uint32_t *port_idx_val;
	size_t port_idx_cap;
	bool ports_changed;

	/* Devices. */
	uint32_t n_devs, cap_devs;
	store_label *dlabel;
	uint32_t *dev_first, *dev_count, *dev_ports; /* CSR */
	float *dpaused;
	uint8_t *dfresh; /* a fresh series this tick */
	uint8_t *dseen;	 /* ever had data */
	int64_t *dage;	 /* its fastest series' youngest age this tick */
	uint32_t *div;	 /* the interval of those (ms) */
	int64_t *dlast;	 /* newest arrival (figures' ms), INT64_MIN: none */
	/* Per (device, priority): the arrival (figures' ms) of the data
	 * that first showed the device pausing (pw >= pause_ratio),
	 * storming (pw >= storm_ratio) in the current stretch (0: not),
	 * and released (no longer paused while pausing); whether it was
	 * paused at the last tick. */
	int64_t *donset, *dsonset, *drelease;
	uint8_t *dwas_paused;
	/* Per (device, priority): when a root was first held back for
	 * sampling skew, the arrival of the data that showed it then, and
	 * the tick it was last held back (figures' ms; 0: not held). */
	int64_t *dheld_from, *dheld_last;
	int64_t now_ms;	    /* this tick on the figures' scale */
	uint32_t def_iv_ms; /* the store's default interval */
	uint32_t *dstamp;
	uint8_t *dcolour;
	uint32_t stamp;
	uint64_t *dev_idx; /* label + 1 */
	uint32_t *dev_idx_val;
	size_t dev_idx_cap;

	/* Work arrays for walks (cap_devs / cap_ports sized). */
	uint32_t *queue, *qsub;
	uint32_t *stk_dev, *stk_pos, *stk_via;

	/* Store slots and queue labels. */
	struct slot_map *map;
	uint32_t *mgen; /* [slot]: its generation when classified */
	uint32_t map_cap;
	uint64_t withdrawals; /* store_withdrawals at the last full scan */
	bool withdrawals_known;
	bool too_many_ports; /* said once */
	int8_t *qprio;	     /* queue label -> priority, -2 unknown */
	uint32_t qprio_cap;

	/* Link table mirror. */
	uint64_t links_gen;
	uint32_t *rail_bad; /* pairs (nic port, leaf port) */
	size_t n_rail_bad, cap_rail_bad;

	/* Incidents. */
	struct inc **act;
	size_t n_act, cap_act;
	struct rules_incident *recent; /* ring of resolved, converted */
	size_t n_recent, recent_head, recent_cap;
	uint64_t next_id;
	uint64_t fired_total[RULES_KINDS];
	struct cand cand;

	/* Published for snapshots. */
	uint64_t ticks;
	uint64_t reads; /* series whose figures the last tick used */
	double last_cpu_s;
	/* Ticks that took longer than rules.tick (wall time) or started
	 * more than rules.tick late: the engine did not keep pace. Written
	 * by the tick thread under lock. */
	uint64_t overruns;
	double last_wall_s; /* wall time of the last tick */

	/* Outputs (rules_set_outputs; ctx borrowed). */
	struct rules_output out[RULES_MAX_OUTPUTS];
	size_t n_out;
	bool feeds; /* an output takes the per-port feed */

	/* Thread. */
	pthread_t thread;
	pthread_cond_t cond; /* with wake: kicks, reconfiguration, stop */
	pthread_mutex_t wake;
	bool running, stop;
	bool kicked;	 /* (wake) samples arrived since the last tick */
	int64_t kick_ns; /* (wake) monotonic time of the first of them */
	atomic_bool kick_pending;     /* kicked, without taking wake again */
	_Atomic int64_t last_kick_ns; /* monotonic time of the latest kick */
};

/* The lane index of (p, q), q lossless. */
static inline size_t lix(const struct rules *r, uint32_t p, int q)
{
	return (size_t)p * r->c.nl + r->c.lane[q];
}

static inline union vword *vblk(const struct rules *r, uint32_t p)
{
	return r->view + (size_t)p * r->vstride;
}

/* Where field f of priority q lives in a port's block. */
static inline uint32_t pvoff(const struct rules *r, int q, int f)
{
	return r->c.lossless & (1u << q)
		   ? VW_PL + (uint32_t)f * r->c.nl + r->c.lane[q]
		   : r->vpnl + (uint32_t)f * PRIOS + (uint32_t)q;
}

/* Port p's pause stamp of lossless priority q, one direction. */
static inline struct pstamp *pstamp(const struct rules *r, uint32_t p, int q,
				    int rx)
{
	return &vblk(r, p)[r->vpst + r->c.lane[q] * 2u + (uint32_t)rx].ps;
}

static inline uint16_t sat16(int64_t v)
{
	return v > UINT16_MAX ? UINT16_MAX : v < 0 ? 0 : (uint16_t)v;
}

static inline bool phas(const struct rules *r, uint32_t p, int q, int f)
{
	const union vword *b = vblk(r, p);
	return b[VW_TICK].u == r->vtick &&
	       ((b[VW_PHAS + q / 2].u >> (q % 2 * 16)) & (1u << f));
}

static inline float pval(const struct rules *r, uint32_t p, int q, int f)
{
	return phas(r, p, q, f) ? vblk(r, p)[pvoff(r, q, f)].f : 0;
}

static inline bool qhas(const struct rules *r, uint32_t p, int f)
{
	const union vword *b = vblk(r, p);
	return b[VW_TICK].u == r->vtick && (b[VW_QHAS].u & (1u << f));
}

static inline float qval(const struct rules *r, uint32_t p, int f)
{
	return qhas(r, p, f) ? vblk(r, p)[r->vqv + f].f : 0;
}

/* The refresh rate (XOFF frames/s) that holds a priority paused. */
static inline double refresh_rate(const struct rules *r, uint32_t p)
{
	double speed = qhas(r, p, P_SPEED) ? qval(r, p, P_SPEED) : 0;
	if (speed <= 0 && r->peer[p] >= 0 &&
	    qhas(r, (uint32_t)r->peer[p], P_SPEED))
		speed = qval(r, (uint32_t)r->peer[p], P_SPEED);
	return speed > 0 ? speed * 8 / PAUSE_HOLD_BITS : 0;
}

static inline float ratio_of(const struct rules *r, uint32_t p, int q,
			     int f_time, int f_frames, double refresh)
{
	if (phas(r, p, q, f_time)) {
		float v = pval(r, p, q, f_time);
		return v > 1 ? 1 : v < 0 ? 0 : v;
	}
	if (phas(r, p, q, f_frames) && refresh > 0) {
		double v = pval(r, p, q, f_frames) / refresh;
		return v > 1 ? 1 : (float)v;
	}
	return -1;
}

/*
 * The pause tail of (p, q) in one direction (f_time, f_frames; rx: the
 * receive side): how long ago, in seconds, a pause that was still on
 * at the sample began, counting the sample's age; 0 without evidence.
 *
 * A sample's pause time T and pause frames F tell one pause held to the
 * sample's end from pauses that came and went: a priority held paused
 * is refreshed at the rate R that keeps it paused (refresh_rate), at
 * least, and every pause that ends sends an XON, so n pauses in the
 * window send F >= R T + n - 1 frames (the last may still be on). F
 * within one frame of R T (the counters' rounding) is one pause that
 * sent no XON: it began T before the sample and was still on. Bursts
 * that pause and release many times send many XONs and stay far above;
 * a device that refreshes sooner than needed, or a wrong speed, is off
 * by many frames either way and gives no tail (the whole-window rules
 * still apply).
 */
static inline float pause_tail(const struct rules *r, uint32_t p, int q,
			       int f_time, int f_frames, int rx, double refresh)
{
	if (!phas(r, p, q, f_time) || !phas(r, p, q, f_frames) ||
	    !(refresh > 0))
		return 0;
	const struct pstamp *ps = pstamp(r, p, q, rx);
	double win = ps->iv_ms * 1e-3;
	double ratio = pval(r, p, q, f_time);
	if (!(ratio > 0) || !(win > 0))
		return 0;
	if (ratio > 1)
		ratio = 1;
	double extra = (pval(r, p, q, f_frames) - refresh * ratio) * win;
	if (!(fabs(extra) < 1))
		return 0;
	return (float)(ratio * win + ps->age_ms * 1e-3);
}

static inline bool has_peer(const struct rules *r, uint32_t p)
{
	return r->peer[p] >= 0;
}

/*
 * Whether port p is in the engine's view: a series of the store feeds
 * it, or the link table cables it. A target removed from the config
 * (its series withdrawn, its links gone) leaves the view: it is no
 * longer counted, and its incidents clear instead of being held.
 */
static inline bool port_present(const struct rules *r, uint32_t p)
{
	return (r->valid[p] & PV_READ) || r->peer[p] >= 0;
}

#define DEV_PORTS(r, d) (&(r)->dev_ports[(r)->dev_first[d]])

/*
 * rules_incident.c: candidates, incidents and outputs. All under the
 * engine's lock.
 */
/* Frees what a public incident copy holds and zeroes it. */
void rules_free_public(struct rules_incident *p);
/* The only lossless priority, or -1 when there are none or several. */
int rules_single_lossless(const struct rules *r);
/* Empties candidate c (scratch, reused) for the next detection. */
void rules_cand_reset(struct cand *c);
/* Adds a subject (port, else device dev) with its role, parent index
 * and depth; returns its index, or -1 when c is full. */
int rules_cand_sub(struct rules *r, struct cand *c, uint32_t port,
		   store_label dev, int prio, enum rules_role role, int parent,
		   unsigned depth);
/* True if port is already a subject of c. */
bool rules_cand_has(const struct cand *c, uint32_t port);
/* Adds evidence name = v, of port (NONE: of the incident). */
void rules_cand_ev(struct rules *r, struct cand *c, const char *name,
		   uint32_t port, double v);
/* The string of a store label ("" when unknown); the store's. */
const char *rules_lbl(const struct rules *r, store_label l);
/* The arrival (ms) of the data that shows c's condition. */
int64_t rules_data_ms(const struct rules *r, const struct cand *c);
/* The condition of (kind, origin) holds now with score and c's
 * subjects (c->subs[0] the origin) and evidence. */
void rules_assert_inc(struct rules *r, enum rules_kind k, store_label dev,
		      store_label port, int prio, double score, int64_t now,
		      const struct cand *c);
/* After the detections: pending -> firing -> resolved, outputs told. */
void rules_lifecycle(struct rules *r, int64_t now);
/* This tick's per-port rates into the outputs that take them. */
void rules_feed_outputs(struct rules *r, int64_t now);

/* rules_pause.c: the pause graph and its detections. */
/* Pausing / paused weights of every port at priority q. */
void rules_weights(struct rules *r, int q);
/* The pause tree from root device d into r->cand; returns its depth in
 * hops. The origin (subject 0) is chosen by the caller. */
unsigned rules_pause_tree(struct rules *r, uint32_t d, int q, uint32_t origin,
			  bool origin_pausing);
/* PFC storms, congestion spreading and deadlocks on priority q. */
void rules_pause_rules(struct rules *r, int q, int64_t now);

/* rules_detect.c: the other detections, each over the view at now. */
/* ECN after PFC and lossless drops on priority q (after
 * rules_pause_rules, whose cycles it reads). */
void rules_queue_rules(struct rules *r, int q, int64_t now);
void rules_lossy_rules(struct rules *r, int64_t now);
void rules_nic_rules(struct rules *r, int64_t now);
void rules_flap_rules(struct rules *r, int64_t now);
void rules_target_rules(struct rules *r, int64_t now);
void rules_rail_rules(struct rules *r, int64_t now);

/* rules_base.c: per-port baselines and the link's windows. */
/* Port p has a receive-discard series from now on (its history
 * starts: samples not seen with a figure count as zeros). */
void rules_base_seed(struct rules *r, uint32_t p);
/* Whether port p's receive discards x (packets/s, this tick's) rise
 * clearly above its own baseline; false while it has too little
 * history. *mean: the baseline's mean (evidence). */
bool rules_base_above(const struct rules *r, uint32_t p, double x,
		      double *mean);
/* Whether port p was really in XOFF on lossless priority q: its tx
 * pause ratio at least discard_pause_ratio and clearly above its own
 * pause baseline (not its usual trickle); false while it has too little
 * history. */
bool rules_base_xoff(const struct rules *r, uint32_t p, int q);
/* Learns this tick's fresh receive-discard samples (after the
 * detections, which judge against what came before). */
void rules_base_learn(struct rules *r, int64_t now);
/* Drops at port p now are its link's: it is down, or its link changed
 * within the last windows (a link change flushes the queues). */
bool rules_link_suspect(const struct rules *r, uint32_t p, int64_t now);
/* A link of port p's switch or of the switch at its other end changed
 * within the same windows: the routes through them are converging. */
bool rules_link_near(const struct rules *r, uint32_t p, int64_t now);
/* Port p's last link change was seen at now (flap_rules). */
static inline void rules_link_changed(struct rules *r, uint32_t p, int64_t now)
{
	r->base[p].link_ns = now;
}

#endif
