/*
 * rules: the rule engine (the contract is in rules.h; the detections
 * and their reasons in doc/rules.md).
 *
 * The view. Every (device, port) the store or the link table knows gets
 * a stable port id; per-port and per-(port, priority) figures live in
 * flat arrays indexed by it (struct-of-arrays, grown only when ports
 * appear); what only lossless priorities use is stored by lane (lix), so
 * a port's figures there sit together. A slot map remembers, per store slot,
 * which port, field and priority a series feeds and the slot generation it was
 * classified at, so a tick is one lock-free pass over the store's dense figures
 * (store_figs: 16 bytes a slot, not the 128-byte records) with no
 * lookups: check the generation still matches, fold the rate into its
 * field (sum or max). A slot whose generation changed (withdrawn and
 * reused) is classified again from its key (store_slot_key, the only
 * locked read). The figures carry the slot's arrival time and interval,
 * so staleness is the store's rule (store_stale_rule) applied here.
 *
 * The pause graph, per lossless priority q. Port x "pauses" its peer y
 * with weight max(tx_ratio(x), rx_ratio(y)): each end's view of the same
 * link, whichever reports. A ratio is the pause time rate (s/s) when a
 * duration counter exists, else frames/s over the refresh rate that
 * holds a priority paused at the link's speed (speed / (512 bits x
 * 0xffff quanta), domain.md 4.1). A device is paused when one of its
 * ports is held paused. A root is a device that pauses a peer while not
 * being paused itself: the pause starts there (a stalled NIC, or a
 * congested egress queue on a switch). From each root a breadth-first
 * walk over "paused port -> its device -> that device's pausing ports ->
 * their peers" gives the pause tree with hop depths. Paused devices no
 * root reaches can only be waiting on each other: a depth-first search
 * among them finds the cycles (deadlock candidates).
 *
 * Incidents. Rules assert (kind, origin) with subjects, evidence and a
 * score every tick the condition holds; the lifecycle pass turns
 * assertions into pending -> firing -> resolved. A condition's first
 * sighting counts the rate's own window (one sample interval), so a
 * for-duration no longer than the interval fires on the first tick:
 * the rate already covers that much time. Where a sample shows one
 * pause still on at its end (pause_tail: its frames are those of one
 * unbroken pause), a storm or deadlock counts from that pause's start
 * instead: a storm fires on the sample that saw it begin, once the
 * pause is storm_for old, rather than one sample later when a whole
 * window is paused.
 *
 * Ports of targets removed from the config (their series withdrawn,
 * their links gone) leave the view (port_present): they are not
 * counted and their incidents clear instead of being held.
 */
#include "config.h"

#include "rules.h"

#include "alert.h"
#include "cfg.h"
#include "clock.h"
#include "counters.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "mem.h"
#include "report.h"
#include "store.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PRIOS	       8
#define NONE	       UINT32_MAX
#define RULES_PREFETCH 64 /* slots ahead in the read pass */
#define MAX_SUBJECTS   256
#define MAX_EVIDENCE   12
#define MAX_ACTIVE     65536
#define FLAP_RING      8
#define NS_PER_S       INT64_C(1000000000)
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
	PV_ACTIVE = 64, /* a figure the report counts is not 0 */
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
	uint8_t report; /* a figure the report counts (feed_report) */
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

static const struct cmap cmaps[FM_C__COUNT] = {
	[FM_C_PFC_TX_PAUSE] = { M_PRIO, F_TX_PAUSE, V_RATE, true },
	[FM_C_PFC_RX_PAUSE] = { M_PRIO, F_RX_PAUSE, V_RATE, true },
	[FM_C_PFC_TX_FRAMES] = { M_PRIO, F_TX_FRAMES, V_RATE, true },
	[FM_C_PFC_RX_FRAMES] = { M_PRIO, F_RX_FRAMES, V_RATE, true },
	[FM_C_PRIO_PACKETS_TX] = { M_PRIO, F_TX_PKTS, V_RATE, false },
	[FM_C_QUEUE_TX_PACKETS] = { M_PRIO, F_TX_PKTS, V_RATE, false },
	[FM_C_PRIO_DISCARDS_RX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PG_DROPS] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_QUEUE_DROPS] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PFC_WD_DROPS_RX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PFC_WD_DROPS_TX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_ECN_MARKED] = { M_PRIO, F_ECN, V_RATE, false },
	[FM_C_QUEUE_OCCUPANCY] = { M_PRIO, F_OCC, V_GAUGE, false },
	[FM_C_PFC_WD_STORMS] = { M_PRIO, F_WD, V_RATE, false },
	[FM_C_PFC_WD_STORMED] = { M_PRIO, F_WD, V_GAUGE, false },
	[FM_C_LINK_SPEED] = { M_PORT, P_SPEED, V_GAUGE, false },
	[FM_C_LINK_UP] = { M_PORT, P_LINK_UP, V_GAUGE, false },
	[FM_C_LINK_DOWN_EVENTS] = { M_PORT, P_DOWN_TOTAL, V_TOTAL, false },
	[FM_C_ROCE_CE_RECEIVED] = { M_PORT, P_CE, V_RATE, false },
	[FM_C_CNP_SENT] = { M_PORT, P_CNP_SENT, V_RATE, false },
	[FM_C_CNP_HANDLED] = { M_PORT, P_CNP_HANDLED, V_RATE, false },
	[FM_C_CNP_IGNORED] = { M_PORT, P_CNP_IGNORED, V_RATE, false },
	[FM_C_NIC_STORM_WARNINGS] = { M_PORT, P_STORM_WARN, V_RATE, false },
	[FM_C_NIC_STORM_ERRORS] = { M_PORT, P_STORM_ERR, V_RATE, false },
	[FM_C_NIC_OUT_OF_BUFFER] = { M_PORT, P_OOB, V_RATE, false },
	[FM_C_RDMA_ACK_TIMEOUTS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_SEQ_ERRORS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_OUT_OF_SEQUENCE] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_ADAPTIVE_RETRANS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_BYTES_TX] = { M_PORT, P_TX_BYTES, V_RATE, false },
	[FM_C_DISCARDS_RX] = { M_PORT, P_DISC_RX, V_RATE, false },
};

static const uint8_t pfield_agg[F_N] = {
	[F_TX_PAUSE] = A_MAX,  [F_RX_PAUSE] = A_MAX, [F_TX_FRAMES] = A_SUM,
	[F_RX_FRAMES] = A_SUM, [F_TX_PKTS] = A_MAX,  [F_DROPS] = A_SUM,
	[F_ECN] = A_SUM,       [F_OCC] = A_MAX,	     [F_WD] = A_MAX,
};
static const uint8_t qfield_agg[P_N] = {
	[P_SPEED] = A_MAX,	 [P_LINK_UP] = A_MAX,
	[P_DOWN_TOTAL] = A_SUM,	 [P_CE] = A_SUM,
	[P_CNP_SENT] = A_SUM,	 [P_CNP_HANDLED] = A_SUM,
	[P_CNP_IGNORED] = A_SUM, [P_STORM_WARN] = A_SUM,
	[P_STORM_ERR] = A_SUM,	 [P_OOB] = A_SUM,
	[P_RETRIES] = A_SUM,	 [P_TX_BYTES] = A_SUM,
	[P_DISC_RX] = A_SUM,
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
	store_label *pdev, *pname;
	uint32_t *devi;
	int64_t *plast; /* newest arrival of the port's series this tick */
	int64_t *page;	/* its youngest series' age this tick (ms) */
	int32_t *peer;
	uint8_t *is_nic;   /* sticky: NIC counters seen */
	uint8_t *valid;	   /* PV_* bits, this tick */
	union vword *view; /* [port * vstride], see vblk */
	uint32_t vstride, vpst, vqv, vpnl, vtick, view_cap;
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
	uint8_t *flap_n;
	uint64_t *port_idx; /* (dev << 32 | port) + 1; open addressing */
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
	int64_t *dage;	 /* youngest series' age this tick */
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

	/* Outputs (rules_set_outputs; borrowed). */
	struct report *report;
	struct alert *alert;

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

static const char *const kind_names[RULES_KINDS] = {
	[RULES_PFC_STORM] = "pfc_storm",
	[RULES_CONGESTION_SPREADING] = "congestion_spreading",
	[RULES_PFC_DEADLOCK] = "pfc_deadlock",
	[RULES_INCAST] = "incast",
	[RULES_LOSSLESS_DROP] = "lossless_drop",
	[RULES_PAUSE_ON_LOSSY] = "pause_on_lossy_priority",
	[RULES_ECN_AFTER_PFC] = "ecn_after_pfc",
	[RULES_ECN_WITHOUT_CNP] = "ecn_without_cnp",
	[RULES_LINK_FLAP] = "link_flap",
	[RULES_TARGET_SILENT] = "target_silent",
	[RULES_RAIL_MISALIGNMENT] = "rail_misalignment",
};

const char *rules_kind_name(enum rules_kind k)
{
	return (unsigned)k < RULES_KINDS ? kind_names[k] : "?";
}

const char *rules_state_name(enum rules_state s)
{
	switch (s) {
	case RULES_PENDING:
		return "pending";
	case RULES_FIRING:
		return "firing";
	case RULES_RESOLVED:
		return "resolved";
	}
	return "?";
}

const char *rules_role_name(enum rules_role r)
{
	switch (r) {
	case RULES_ROLE_ORIGIN:
		return "origin";
	case RULES_ROLE_VICTIM:
		return "victim";
	case RULES_ROLE_SPREADER:
		return "spreader";
	case RULES_ROLE_MEMBER:
		return "member";
	case RULES_ROLES:
		break;
	}
	return "?";
}

static int64_t real_default(void *ctx)
{
	(void)ctx;
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

uint64_t rules_tick_for(const struct cfg *c)
{
	uint64_t t = c->rules.tick_ns;
	if (!t)
		t = cfg_min_interval(c);
	if (t < 100000000)
		t = 100000000;
	return t;
}

static double thread_cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void size_view(struct rules *r);
static void build_vclasses(struct rules *r);

static void apply_cfg(struct rules *r, const struct cfg *c)
{
	uint8_t old = r->c.lossless;
	r->c.r = c->rules;
	r->c.lossless = c->lossless_mask;
	r->c.nl = (uint8_t)__builtin_popcount(r->c.lossless);
	for (int q = 0; q < PRIOS; q++)
		r->c.lane[q] = (uint8_t)__builtin_popcount(r->c.lossless &
							   ((1u << q) - 1));
	r->c.tick_ns = rules_tick_for(c);
	r->c.lldp_ttl_ns = c->topology.lldp_ttl_ns
			       ? (int64_t)c->topology.lldp_ttl_ns
			       : LINKS_DEFAULT_LLDP_TTL_NS;
	r->c.window_ns =
	    (int64_t)(c->interval_ns ? c->interval_ns : (uint64_t)NS_PER_S);
	if (r->c.window_ns > (int64_t)r->c.tick_ns * 10)
		r->c.window_ns = (int64_t)r->c.tick_ns * 10;
	r->c.silent_ns =
	    c->rules.silent_for_ns
		? (int64_t)c->rules.silent_for_ns
		: (int64_t)(c->store_stale_intervals ? c->store_stale_intervals
						     : 5) *
		      r->c.window_ns;
	/* Which series are read depends on the lossless set, and the
	 * view's layout on how many there are. */
	if (old != r->c.lossless && r->map)
		memset(r->map, 0, r->map_cap * sizeof *r->map);
	size_view(r);
	build_vclasses(r);
}

struct rules *rules_new(struct store *st, struct links *l, struct health *h,
			const struct cfg *c, const struct rules_opts *opts)
{
	struct rules *r = xcalloc(1, sizeof *r);
	r->st = st;
	r->links = l;
	r->health = h;
	r->real_ns = opts && opts->real_ns ? opts->real_ns : real_default;
	r->clock_ctx = opts ? opts->clock_ctx : NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&r->wake, NULL);
	atomic_init(&r->kick_pending, false);
	atomic_init(&r->last_kick_ns, 0);
	apply_cfg(r, c);
	r->next_id = 1;
	return r;
}

static void free_public(struct rules_incident *p)
{
	for (size_t i = 0; i < p->n_subjects; i++) {
		free(p->subjects[i].device);
		free(p->subjects[i].port);
	}
	free(p->subjects);
	for (size_t i = 0; i < p->n_evidence; i++) {
		free(p->evidence[i].name);
		free(p->evidence[i].device);
		free(p->evidence[i].port);
	}
	free(p->evidence);
	free(p->summary);
	memset(p, 0, sizeof *p);
}

void rules_free(struct rules *r)
{
	if (!r)
		return;
	rules_stop(r);
	free(r->pdev);
	free(r->pname);
	free(r->devi);
	free(r->peer);
	free(r->is_nic);
	free(r->valid);
	free(r->view);
	free(r->rtx);
	free(r->rrx);
	free(r->ttx);
	free(r->trx);
	free(r->pw);
	free(r->dw);
	free(r->pt);
	free(r->dt);
	free(r->down_last);
	free(r->down_seen);
	free(r->link_last);
	free(r->flap_t);
	free(r->down_at);
	free(r->cycle_at);
	free(r->cycle_key);
	free(r->flap_n);
	free(r->port_idx);
	free(r->port_idx_val);
	free(r->dlabel);
	free(r->dev_first);
	free(r->dev_count);
	free(r->dev_ports);
	free(r->dpaused);
	free(r->dfresh);
	free(r->dseen);
	free(r->dage);
	free(r->dlast);
	free(r->donset);
	free(r->dsonset);
	free(r->drelease);
	free(r->dwas_paused);
	free(r->dheld_from);
	free(r->dheld_last);
	free(r->plast);
	free(r->page);
	free(r->dstamp);
	free(r->dcolour);
	free(r->dev_idx);
	free(r->dev_idx_val);
	free(r->queue);
	free(r->qsub);
	free(r->stk_dev);
	free(r->stk_pos);
	free(r->stk_via);
	free(r->map);
	free(r->mgen);
	free(r->qprio);
	free(r->rail_bad);
	for (size_t i = 0; i < r->n_act; i++) {
		free(r->act[i]->subs);
		free(r->act[i]);
	}
	free(r->act);
	for (size_t i = 0; i < r->n_recent; i++)
		free_public(&r->recent[(r->recent_head + i) % r->recent_cap]);
	free(r->recent);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void rules_configure(struct rules *r, const struct cfg *c)
{
	pthread_mutex_lock(&r->lock);
	apply_cfg(r, c);
	pthread_mutex_unlock(&r->lock);
	/* The thread re-reads the tick. */
	pthread_mutex_lock(&r->wake);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->wake);
}

uint64_t rules_tick_ns(struct rules *r)
{
	pthread_mutex_lock(&r->lock);
	uint64_t t = r->c.tick_ns;
	pthread_mutex_unlock(&r->lock);
	return t;
}

/* Ports and devices. */

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* A tiny open-addressing map of 64-bit keys (+1) to uint32 values. */
static bool umap_find(const uint64_t *keys, const uint32_t *vals, size_t cap,
		      uint64_t key, uint32_t *val)
{
	if (!cap)
		return false;
	size_t mask = cap - 1;
	for (size_t i = mix64(key) & mask; keys[i]; i = (i + 1) & mask)
		if (keys[i] == key + 1) {
			*val = vals[i];
			return true;
		}
	return false;
}

static void umap_put(uint64_t **keys, uint32_t **vals, size_t *cap, size_t used,
		     uint64_t key, uint32_t val)
{
	if ((used + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		uint64_t *nk = xcalloc(ncap, sizeof *nk);
		uint32_t *nv = xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < *cap; i++) {
			if (!(*keys)[i])
				continue;
			size_t j = mix64((*keys)[i] - 1) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = (*keys)[i];
			nv[j] = (*vals)[i];
		}
		free(*keys);
		free(*vals);
		*keys = nk;
		*vals = nv;
		*cap = ncap;
	}
	size_t mask = *cap - 1;
	size_t i = mix64(key) & mask;
	while ((*keys)[i])
		i = (i + 1) & mask;
	(*keys)[i] = key + 1;
	(*vals)[i] = val;
}

#define GROW(p, cap, ncap)                                              \
	do {                                                            \
		(p) = xreallocarray((p), (ncap), sizeof *(p));          \
		memset((p) + (cap), 0, ((ncap) - (cap)) * sizeof *(p)); \
	} while (0)

/* Sizes the view for cap_ports ports at the stride the lossless set
 * needs; a new stride starts it over (its blocks only hold one tick). */
static void size_view(struct rules *r)
{
	uint32_t used = VW_PL + (F_N + 2u) * r->c.nl + P_N + F_LANE0 * PRIOS;
	uint32_t stride = (used + VW_LINE - 1) / VW_LINE * VW_LINE;
	r->vpst = VW_PL + F_N * r->c.nl;
	r->vqv = r->vpst + 2u * r->c.nl;
	r->vpnl = r->vqv + P_N;
	if (stride != r->vstride) {
		free(r->view);
		r->view = NULL;
		r->view_cap = 0;
		r->vstride = stride;
	}
	if (r->view_cap >= r->cap_ports)
		return;
	size_t bytes = (size_t)r->cap_ports * stride * sizeof *r->view;
	union vword *v = xaligned_zalloc(VW_LINE * sizeof *v, bytes);
	if (r->view)
		memcpy(v, r->view,
		       (size_t)r->view_cap * stride * sizeof *r->view);
	free(r->view);
	r->view = v;
	r->view_cap = r->cap_ports;
}

static inline uint32_t pvoff(const struct rules *r, int q, int f);

static void build_vclasses(struct rules *r)
{
	memset(r->vcls, 0, sizeof r->vcls);
	for (int f = 0; f < F_N; f++) {
		for (int q = 0; q < PRIOS; q++) {
			struct vclass *vc = &r->vcls[1 + f * PRIOS + q];
			bool lossless = r->c.lossless & (1u << q);
			if (!lossless && f >= F_LANE0)
				continue; /* never read */
			vc->woff = (uint8_t)pvoff(r, q, f);
			vc->hw = (uint8_t)(VW_PHAS + q / 2);
			vc->hmask = (1u << f) << (q % 2 * 16);
			vc->sum = pfield_agg[f] == A_SUM;
			vc->lossy = !lossless;
			vc->report = f != F_TX_PKTS && f != F_OCC;
			if (lossless && (f == F_TX_PAUSE || f == F_RX_PAUSE))
				vc->pst =
				    (uint8_t)(r->vpst + r->c.lane[q] * 2u +
					      (f == F_RX_PAUSE));
		}
	}
	for (int f = 0; f < P_N; f++) {
		struct vclass *vc = &r->vcls[VCLS_PORT + f];
		vc->woff = (uint8_t)(r->vqv + (uint32_t)f);
		vc->hw = VW_QHAS;
		vc->hmask = 1u << f;
		vc->sum = qfield_agg[f] == A_SUM;
		vc->link = f == P_DOWN_TOTAL || f == P_LINK_UP;
		vc->report = f == P_CE || f == P_CNP_SENT ||
			     f == P_CNP_HANDLED || f == P_CNP_IGNORED ||
			     f == P_OOB;
	}
}

static void grow_ports(struct rules *r, uint32_t need)
{
	if (need <= r->cap_ports)
		return;
	uint32_t cap = r->cap_ports, ncap = cap ? cap : 256;
	while (ncap < need)
		ncap *= 2;
	GROW(r->pdev, cap, ncap);
	GROW(r->pname, cap, ncap);
	GROW(r->devi, cap, ncap);
	GROW(r->plast, cap, ncap);
	GROW(r->page, cap, ncap);
	GROW(r->peer, cap, ncap);
	GROW(r->is_nic, cap, ncap);
	GROW(r->valid, cap, ncap);
	GROW(r->rtx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->rrx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->ttx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->trx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->pw, cap, ncap);
	GROW(r->dw, cap, ncap);
	GROW(r->pt, cap, ncap);
	GROW(r->dt, cap, ncap);
	GROW(r->down_last, cap, ncap);
	GROW(r->down_seen, cap, ncap);
	GROW(r->link_last, cap, ncap);
	GROW(r->flap_t, (size_t)cap * FLAP_RING, (size_t)ncap * FLAP_RING);
	GROW(r->down_at, cap, ncap);
	GROW(r->cycle_at, cap, ncap);
	GROW(r->cycle_key, cap, ncap);
	GROW(r->flap_n, cap, ncap);
	GROW(r->queue, cap, ncap);
	GROW(r->qsub, cap, ncap);
	r->cap_ports = ncap;
	size_view(r);
}

static uint32_t find_dev(struct rules *r, store_label dev)
{
	uint32_t d;
	if (umap_find(r->dev_idx, r->dev_idx_val, r->dev_idx_cap, dev, &d))
		return d;
	if (r->n_devs == r->cap_devs) {
		uint32_t cap = r->cap_devs, ncap = cap ? cap * 2 : 64;
		GROW(r->dlabel, cap, ncap);
		GROW(r->dev_first, cap, ncap);
		GROW(r->dev_count, cap, ncap);
		GROW(r->dpaused, cap, ncap);
		GROW(r->dfresh, cap, ncap);
		GROW(r->dseen, cap, ncap);
		GROW(r->dage, cap, ncap);
		GROW(r->dlast, cap, ncap);
		GROW(r->donset, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dsonset, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->drelease, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dwas_paused, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dheld_from, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dheld_last, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dstamp, cap, ncap);
		GROW(r->dcolour, cap, ncap);
		GROW(r->stk_dev, cap, ncap);
		GROW(r->stk_pos, cap, ncap);
		GROW(r->stk_via, cap, ncap);
		r->cap_devs = ncap;
	}
	d = r->n_devs++;
	r->dlabel[d] = dev;
	umap_put(&r->dev_idx, &r->dev_idx_val, &r->dev_idx_cap, d, dev, d);
	return d;
}

/* The port id of (dev, port), created if new. */
static uint32_t find_port(struct rules *r, store_label dev, store_label port)
{
	uint64_t key = (uint64_t)dev << 32 | port;
	uint32_t p;
	if (umap_find(r->port_idx, r->port_idx_val, r->port_idx_cap, key, &p))
		return p;
	grow_ports(r, r->n_ports + 1);
	p = r->n_ports++;
	r->pdev[p] = dev;
	r->pname[p] = port;
	r->devi[p] = find_dev(r, dev);
	r->peer[p] = -1;
	r->link_last[p] = -1;
	umap_put(&r->port_idx, &r->port_idx_val, &r->port_idx_cap, p, key, p);
	r->ports_changed = true;
	return p;
}

/* Ports per device (CSR), after ports were added. */
static void index_devices(struct rules *r)
{
	free(r->dev_ports);
	r->dev_ports =
	    xcalloc(r->n_ports ? r->n_ports : 1, sizeof *r->dev_ports);
	memset(r->dev_count, 0, r->n_devs * sizeof *r->dev_count);
	for (uint32_t p = 0; p < r->n_ports; p++)
		r->dev_count[r->devi[p]]++;
	uint32_t at = 0;
	for (uint32_t d = 0; d < r->n_devs; d++) {
		r->dev_first[d] = at;
		at += r->dev_count[d];
		r->dev_count[d] = 0;
	}
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint32_t d = r->devi[p];
		r->dev_ports[r->dev_first[d] + r->dev_count[d]++] = p;
	}
	r->ports_changed = false;
}

static bool name_in(const char *s, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, v[i]) == 0)
			return true;
	return false;
}

/* Mirrors the link table: peers and the rail check's findings. */
static void rebuild_graph(struct rules *r)
{
	struct links_snapshot s;
	links_snapshot(r->links, &s);
	for (uint32_t p = 0; p < r->n_ports; p++)
		r->peer[p] = -1;
	r->n_rail_bad = 0;
	for (size_t i = 0; i < s.n_links; i++) {
		const struct links_entry *e = &s.links[i];
		if (!e->resolved || e->overridden)
			continue;
		uint32_t a = find_port(r, store_intern(r->st, e->a_device),
				       store_intern(r->st, e->a_port));
		uint32_t b = find_port(r, store_intern(r->st, e->b_device),
				       store_intern(r->st, e->b_port));
		r->peer[a] = (int32_t)b;
		r->peer[b] = (int32_t)a;
		/* Rails: an end named as rail k's NIC must face a rail-k
		 * leaf. */
		for (int end = 0; end < 2 && s.n_rails; end++) {
			const char *nic_dev = end ? e->b_device : e->a_device;
			const char *nic_port = end ? e->b_port : e->a_port;
			const char *other = end ? e->a_device : e->b_device;
			for (size_t k = 0; k < s.n_rails; k++) {
				const struct links_rail *rl = &s.rails[k];
				if (!name_in(nic_port, rl->nics, rl->n_nics))
					continue;
				(void)nic_dev;
				if (name_in(other, rl->leaves, rl->n_leaves))
					break;
				if (r->n_rail_bad + 2 > r->cap_rail_bad) {
					r->cap_rail_bad =
					    r->cap_rail_bad
						? r->cap_rail_bad * 2
						: 64;
					r->rail_bad = xreallocarray(
					    r->rail_bad, r->cap_rail_bad,
					    sizeof *r->rail_bad);
				}
				r->rail_bad[r->n_rail_bad++] = end ? b : a;
				r->rail_bad[r->n_rail_bad++] = end ? a : b;
				break;
			}
		}
	}
	r->links_gen = s.generation;
	links_snapshot_free(&s);
}

/* Reading the store. */

static int queue_prio(struct rules *r, store_label q)
{
	if (q >= r->qprio_cap) {
		uint32_t cap = r->qprio_cap, ncap = cap ? cap : 64;
		while (ncap <= q)
			ncap *= 2;
		r->qprio = xreallocarray(r->qprio, ncap, sizeof *r->qprio);
		memset(r->qprio + cap, -2, ncap - cap);
		r->qprio_cap = ncap;
	}
	if (r->qprio[q] == -2) {
		/* The queue index is the priority (the usual RoCE
		 * mapping): "3", "UC3", "queue3". */
		const char *s = store_label_str(r->st, q);
		int p = -1;
		if (s) {
			size_t n = strlen(s);
			if (n && s[n - 1] >= '0' && s[n - 1] <= '7' &&
			    (n == 1 || s[n - 2] < '0' || s[n - 2] > '9'))
				p = s[n - 1] - '0';
		}
		r->qprio[q] = (int8_t)p;
	}
	return r->qprio[q];
}

static void classify(struct rules *r, struct slot_map *m,
		     const struct store_key *k)
{
	m->kind = M_IGNORE;
	if (k->counter >= FM_C__COUNT)
		return;
	const struct cmap *c = &cmaps[k->counter];
	if (!c->kind)
		return;
	const struct fm_counter_info *info =
	    fm_counter_info((enum fm_counter)k->counter);
	int prio = 0;
	if (c->kind == M_PRIO) {
		prio = info->sub == FM_SUB_QUEUE ? queue_prio(r, k->sub)
						 : (int)k->sub;
		if (prio < 0 || prio >= PRIOS)
			return;
		if (!c->lossy_too && !(r->c.lossless & (1u << prio)))
			return;
	}
	uint32_t port = find_port(r, k->device, k->port);
	if (port >= MAP_MAX_PORTS) {
		if (!r->too_many_ports)
			log_warn("rules",
				 "more than %u ports: the rule engine ignores "
				 "the others",
				 MAP_MAX_PORTS);
		r->too_many_ports = true;
		return;
	}
	m->port = port;
	m->kind = c->kind;
	m->cls = c->kind == M_PRIO ? 1u + c->field * PRIOS + (unsigned)prio
				   : (unsigned)VCLS_PORT + c->field;
	m->vkind = c->vkind;
	m->lossy = c->kind == M_PRIO && !(r->c.lossless & (1u << prio));
	if (c->kind == M_PORT &&
	    (c->field == P_CE || c->field == P_CNP_SENT ||
	     c->field == P_CNP_HANDLED || c->field == P_CNP_IGNORED ||
	     c->field == P_STORM_WARN || c->field == P_OOB))
		r->is_nic[m->port] = 1;
}

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

/* Folds one series' reading (age and interval in ms) into its port's
 * view. */
static void apply(struct rules *r, const struct slot_map *m,
		  const struct vclass *vc, float x, int64_t age_ms,
		  uint32_t iv_ms)
{
	union vword *b = vblk(r, m->port);
	if (b[VW_TICK].u != r->vtick) {
		/* The block's first write this tick. */
		b[VW_TICK].u = r->vtick;
		for (int w = VW_QHAS; w < VW_PL; w++)
			b[w].u = 0;
	}
	uint32_t has = b[vc->hw].u;
	float *v = &b[vc->woff].f;
	if (!(has & vc->hmask))
		*v = x;
	else if (vc->sum)
		*v += x;
	else if (x > *v)
		*v = x;
	b[vc->hw].u = has | vc->hmask;
	if (vc->pst) {
		struct pstamp *ps = &b[vc->pst].ps;
		ps->age_ms = sat16(age_ms);
		ps->iv_ms = sat16(iv_ms);
	}
}

/* New ports start with nothing this tick. */
static void clear_new_ports(struct rules *r, uint32_t before)
{
	memset(r->valid + before, 0, r->n_ports - before);
	for (uint32_t p = before; p < r->n_ports; p++) {
		r->plast[p] = INT64_MIN;
		r->page[p] = INT64_MAX;
	}
	for (uint32_t d = 0; d < r->n_devs; d++)
		if (!r->dseen[d])
			r->dage[d] = INT64_MAX;
}

/*
 * (Re)classifies slot s, whose figures carry generation gen. False when
 * the figures at hand are not those of the key read (the slot changed
 * in between): they are skipped this tick, the next one reclassifies.
 */
static bool reclassify(struct rules *r, uint32_t s, uint32_t gen)
{
	struct slot_map *m = &r->map[s];
	struct store_key key;
	uint32_t kgen;

	if (store_slot_key(r->st, s, &key, &kgen) < 0) {
		m->kind = M_UNKNOWN;
		return false;
	}
	uint32_t before = r->n_ports;
	classify(r, m, &key);
	r->mgen[s] = kgen;
	if (r->n_ports != before)
		clear_new_ports(r, before);
	return kgen == gen;
}

/* Folds what a run of port p's series said (read_store) into its
 * view. */
static bool port_ratios(struct rules *r, uint32_t p);

/* Folds what a run of port p's series said (read_store) into its view
 * and computes its ratios while its view is in the cache (again, should
 * a later run of the same port add to it). */
static inline void flush_port(struct rules *r, uint32_t p, unsigned valid,
			      int64_t age, int64_t last)
{
	if (p == NONE)
		return;
	r->valid[p] |= (uint8_t)valid;
	if (age < r->page[p])
		r->page[p] = age;
	if (last > r->plast[p])
		r->plast[p] = last;
	if (port_ratios(r, p))
		r->valid[p] |= PV_RATIOS;
}

/* Age in ms from which a series is stale (store_stale_rule on the
 * figures' scale). */
static int64_t stale_after(unsigned intervals, uint32_t interval_ms)
{
	return (int64_t)intervals * interval_ms;
}

/*
 * One pass over the store's figures (lock-free, see store.h) into the
 * view; full: compare every slot's generation with its classification.
 * The figures' words are loaded only as needed: the head (flags,
 * generation, rate) for every slot, the arrival time and the tail
 * (interval, value) for the series the rules use. Always true with
 * full; else false (the view is then to be read again, full) when a
 * withdrawal began since wd was read.
 */
static bool scan_store(struct rules *r, uint32_t n, int64_t now,
		       unsigned k_stale, uint32_t def_iv, bool full,
		       uint64_t wd)
{
	uint64_t reads = 0;
	/* The last stamp seen and what it says: the store's staleness
	 * rule, (double)age >= k * interval * 1e6, in integers. */
	uint64_t last_stamp = UINT64_MAX;
	int64_t mono = 0, age = 0;
	uint32_t iv = def_iv;
	bool stale = true;

	/* A new tick: every block's has-bits are old (see vblk). */
	if (++r->vtick == 0)
		r->vtick = 1;
	if (r->n_ports) {
		memset(r->valid, 0, r->n_ports);
		for (uint32_t p = 0; p < r->n_ports; p++) {
			r->plast[p] = INT64_MIN;
			r->page[p] = INT64_MAX;
		}
	}
	const struct store_fig *fg = NULL;
	uint32_t left = 0;
	/* The port at hand: its series are mostly in a row; what they
	 * say about the port and its device is folded in once per run
	 * (flush_port), not per series, from registers. */
	uint32_t cur = NONE;
	unsigned cval = 0;
	int64_t cage = INT64_MAX, clast = INT64_MIN;
	for (uint32_t s = 0; s < n; s++, fg++) {
		if (!left) {
			left = store_figs(r->st, s, &fg);
			if (!left)
				break;
		}
		left--;
		/* Two streams the hardware prefetcher loses among the
		 * view's: fetch them ahead. */
		if (left > RULES_PREFETCH)
			__builtin_prefetch(fg + RULES_PREFETCH);
		if (s + RULES_PREFETCH < n)
			__builtin_prefetch(&r->map[s + RULES_PREFETCH]);
		struct slot_map *m = &r->map[s];
		uint64_t head = store_fig_head(fg);
		uint32_t meta = store_fig_meta(head);
		if (!(meta & STORE_FIG_LIVE)) {
			m->kind = M_UNKNOWN;
			continue;
		}
		if ((m->kind == M_UNKNOWN ||
		     (full && r->mgen[s] != store_fig_gen(head))) &&
		    !reclassify(r, s, store_fig_gen(head)))
			continue;
		if (m->kind == M_IGNORE)
			continue;
		if (m->port != cur) {
			flush_port(r, cur, cval, cage, clast);
			cur = m->port;
			cval = 0;
			cage = INT64_MAX;
			clast = INT64_MIN;
		}
		reads++;
		/* Half the series: pause figures of lossy priorities, 0,
		 * stamped like the series before them in the port's run.
		 * They add nothing to what the run holds. */
		if (m->lossy && (cval & PV_ALL) == PV_ALL &&
		    (meta & (STORE_FIG_HAS_VALUE | STORE_FIG_HAS_RATE)) ==
			(STORE_FIG_HAS_VALUE | STORE_FIG_HAS_RATE) &&
		    store_fig_float(head) == 0 &&
		    store_fig_stamp(fg) == last_stamp)
			continue;
		cval |= PV_READ;
		if (!(meta & STORE_FIG_HAS_VALUE))
			continue;
		/* A port's series mostly share their stamp (one
		 * notification): its arithmetic is done once. */
		uint64_t stamp = store_fig_stamp(fg);
		if (stamp != last_stamp) {
			last_stamp = stamp;
			mono = store_fig_arrival_ms(stamp);
			age = now > mono ? now - mono : 0;
			iv = store_fig_interval_ms(stamp);
			if (!iv)
				iv = def_iv;
			stale = age >= stale_after(k_stale, iv);
		}
		cval |= PV_SEEN;
		if (age < cage)
			cage = age;
		if (stale)
			continue;
		/* The newest fresh data (see track_onsets). */
		if (mono > clast)
			clast = mono;
		bool rate = m->vkind == V_RATE;
		if (rate && !(meta & STORE_FIG_HAS_RATE)) {
			/* Fresh, but no rate yet (first sample, reset). */
			cval |= PV_FRESH;
			continue;
		}
		cval |= rate ? PV_FRESH | PV_RATE : PV_FRESH;
		float x = m->vkind == V_TOTAL ? store_fig_value(r->st, s)
					      : store_fig_float(head);
		const struct vclass *vc = &r->vcls[m->cls];
		/* Lossy priorities: 0 is as good as absent (see vblk). */
		if (vc->lossy) {
			if (x == 0)
				continue;
			cval |= PV_LOSSY;
		}
		if (vc->report && x != 0)
			cval |= PV_ACTIVE;
		/* What flap_rules compares with: ports whose link did not
		 * move and that flapped in no window are not visited. */
		if (vc->link &&
		    (m->cls == VCLS_PORT + P_DOWN_TOTAL
			 ? !r->down_seen[m->port] || x != r->down_last[m->port]
			 : (x > 0.5f) != (r->link_last[m->port] == 1)))
			cval |= PV_LINK;
		apply(r, m, vc, x, age, iv);
	}
	flush_port(r, cur, cval, cage, clast);
	r->reads = reads;
	if (full)
		return true;
	atomic_thread_fence(memory_order_acquire);
	return store_withdrawals(r->st) == wd;
}

static void read_store(struct rules *r)
{
	uint32_t n = store_slots(r->st);
	int64_t now_ns = store_mono_now(r->st);
	int64_t now = store_fig_ms(r->st, now_ns);
	unsigned k_stale;
	uint32_t def_iv;

	store_stale_rule(r->st, &k_stale, &def_iv);
	if (n > r->map_cap) {
		uint32_t ncap = r->map_cap ? r->map_cap : 1024;
		while (ncap < n)
			ncap *= 2;
		GROW(r->map, r->map_cap, ncap);
		GROW(r->mgen, r->map_cap, ncap);
		r->map_cap = ncap;
	}
	r->now_ms = now;
	r->def_iv_ms = def_iv;
	/* Generations are compared only when a withdrawal may have given
	 * slots new keys since the last scan that did (or during this
	 * one: it is then done again, comparing). */
	uint64_t wd = store_withdrawals(r->st);
	bool full = !r->withdrawals_known || wd != r->withdrawals;
	while (!scan_store(r, n, now, k_stale, def_iv, full, wd)) {
		atomic_thread_fence(memory_order_acquire);
		uint64_t after = store_withdrawals(r->st);
		if (full || after == wd)
			break;
		wd = after;
		full = true;
	}
	if (full) {
		r->withdrawals = wd;
		r->withdrawals_known = true;
	}
	/* Devices from their ports. */
	for (uint32_t d = 0; d < r->n_devs; d++) {
		r->dfresh[d] = 0;
		r->dage[d] = INT64_MAX;
		r->dlast[d] = INT64_MIN;
	}
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint8_t v = r->valid[p];
		uint32_t dv = r->devi[p];
		if (v & PV_SEEN) {
			r->dseen[dv] = 1;
			if (r->page[p] * 1000000 < r->dage[dv])
				r->dage[dv] = r->page[p] * 1000000;
		}
		if (v & PV_FRESH) {
			r->dfresh[dv] = 1;
			if (r->plast[p] > r->dlast[dv])
				r->dlast[dv] = r->plast[p];
		}
	}
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
static double refresh_rate(const struct rules *r, uint32_t p)
{
	double speed = qhas(r, p, P_SPEED) ? qval(r, p, P_SPEED) : 0;
	if (speed <= 0 && r->peer[p] >= 0 &&
	    qhas(r, (uint32_t)r->peer[p], P_SPEED))
		speed = qval(r, (uint32_t)r->peer[p], P_SPEED);
	return speed > 0 ? speed * 8 / PAUSE_HOLD_BITS : 0;
}

static float ratio_of(const struct rules *r, uint32_t p, int q, int f_time,
		      int f_frames, double refresh)
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
static float pause_tail(const struct rules *r, uint32_t p, int q, int f_time,
			int f_frames, int rx, double refresh)
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

/* Port p's pause ratios and tails on the lossless priorities, from its
 * view. False when it has no speed of its own: its peer's, which the
 * read pass may not have reached yet, counts. */
static bool port_ratios(struct rules *r, uint32_t p)
{
	const union vword *b = vblk(r, p);
	bool now = b[VW_TICK].u == r->vtick;
	double refresh = -1; /* refresh_rate(), when needed */
	for (int q = 0; q < PRIOS; q++) {
		if (!(r->c.lossless & (1u << q)))
			continue;
		size_t i = lix(r, p, q);
		/* The usual case first: both pause times there and 0, no
		 * watchdog: not paused either way, no tail. */
		uint32_t h = now ? b[VW_PHAS + q / 2].u >> (q % 2 * 16) : 0;
		const union vword *lv = &b[VW_PL + r->c.lane[q]];
		uint32_t both = 1u << F_TX_PAUSE | 1u << F_RX_PAUSE;
		if ((h & both) == both && lv[F_TX_PAUSE * r->c.nl].f == 0 &&
		    lv[F_RX_PAUSE * r->c.nl].f == 0 &&
		    !((h & 1u << F_WD) && lv[F_WD * r->c.nl].f > 0)) {
			r->rtx[i] = r->rrx[i] = 0;
			r->ttx[i] = r->trx[i] = 0;
			continue;
		}
		if (refresh < 0)
			refresh = refresh_rate(r, p);
		r->rtx[i] = ratio_of(r, p, q, F_TX_PAUSE, F_TX_FRAMES, refresh);
		r->rrx[i] = ratio_of(r, p, q, F_RX_PAUSE, F_RX_FRAMES, refresh);
		r->ttx[i] =
		    pause_tail(r, p, q, F_TX_PAUSE, F_TX_FRAMES, 0, refresh);
		r->trx[i] =
		    pause_tail(r, p, q, F_RX_PAUSE, F_RX_FRAMES, 1, refresh);
		/* The switch's own watchdog says this queue is
		 * stormed: held paused by the peer. */
		if (pval(r, p, q, F_WD) > 0)
			r->rrx[i] = 1;
	}
	return qhas(r, p, P_SPEED);
}

/* The ratios of the ports the read pass left (see read_store). */
static void compute_ratios(struct rules *r)
{
	for (uint32_t p = 0; p < r->n_ports; p++)
		if (!(r->valid[p] & PV_RATIOS))
			port_ratios(r, p);
}

/* Incidents. */

static int single_lossless(const struct rules *r)
{
	uint8_t m = r->c.lossless;
	if (m && !(m & (m - 1)))
		return __builtin_ctz(m);
	return -1;
}

static void cand_reset(struct cand *c)
{
	c->n_subs = 0;
	c->n_ev = 0;
	c->held_ns = 0;
	c->data_ms = 0;
}

static int cand_sub(struct rules *r, struct cand *c, uint32_t port,
		    store_label dev, int prio, enum rules_role role, int parent,
		    unsigned depth)
{
	if (c->n_subs == MAX_SUBJECTS)
		return -1;
	struct isub *s = &c->subs[c->n_subs];
	s->port = port;
	s->dev = port != NONE ? r->pdev[port] : dev;
	s->prio = (int8_t)prio;
	s->role = (uint8_t)role;
	s->parent = (int16_t)parent;
	s->depth = (uint16_t)depth;
	return (int)c->n_subs++;
}

static bool cand_has(const struct cand *c, uint32_t port)
{
	for (size_t i = 0; i < c->n_subs; i++)
		if (c->subs[i].port == port)
			return true;
	return false;
}

static void cand_ev(struct rules *r, struct cand *c, const char *name,
		    uint32_t port, double v)
{
	if (c->n_ev == MAX_EVIDENCE)
		return;
	struct iev *e = &c->ev[c->n_ev++];
	e->name = name;
	e->port = port;
	e->dev = port != NONE ? r->pdev[port] : 0;
	e->value = v;
}

static const char *lbl(const struct rules *r, store_label l)
{
	const char *s = store_label_str(r->st, l);
	return s ? s : "";
}

static struct inc *find_inc(struct rules *r, enum rules_kind k, store_label dev,
			    store_label port, int prio)
{
	for (size_t i = 0; i < r->n_act; i++) {
		struct inc *in = r->act[i];
		if (in->kind == k && in->dev == dev && in->port == port &&
		    in->prio == prio)
			return in;
	}
	return NULL;
}

static void describe(struct rules *r, struct inc *in)
{
	size_t victims = in->n_subs ? in->n_subs - 1 : 0;
	char prio[32] = "";
	if (in->prio >= 0)
		snprintf(prio, sizeof prio, " priority %d", in->prio);
	snprintf(in->summary, sizeof in->summary,
		 "%s at %s%s%s%s, %zu other port%s involved, peak %.3g",
		 kind_names[in->kind], lbl(r, in->dev), in->port ? ":" : "",
		 in->port ? lbl(r, in->port) : "", prio, victims,
		 victims == 1 ? "" : "s", in->peak);
}

/* Merges c's subjects into in (by port or device and role). */
static void merge_subs(struct inc *in, const struct cand *c)
{
	for (size_t i = 0; i < c->n_subs; i++) {
		const struct isub *s = &c->subs[i];
		bool have = false;
		for (size_t k = 0; k < in->n_subs && !have; k++)
			have = in->subs[k].port == s->port &&
			       in->subs[k].dev == s->dev &&
			       in->subs[k].prio == s->prio;
		if (have || in->n_subs >= MAX_SUBJECTS)
			continue;
		if (in->n_subs == in->cap_subs) {
			in->cap_subs = in->cap_subs ? in->cap_subs * 2 : 8;
			in->subs = xreallocarray(in->subs, in->cap_subs,
						 sizeof *in->subs);
		}
		struct isub t = *s;
		/* Parents index c's array; map them into in's. */
		if (t.parent >= 0) {
			const struct isub *ps = &c->subs[t.parent];
			t.parent = -1;
			for (size_t k = 0; k < in->n_subs; k++)
				if (in->subs[k].port == ps->port &&
				    in->subs[k].dev == ps->dev) {
					t.parent = (int16_t)k;
					break;
				}
		}
		in->subs[in->n_subs++] = t;
	}
}

static inline bool has_peer(const struct rules *r, uint32_t p)
{
	return r->peer[p] >= 0;
}

/*
 * The arrival (figures' ms) of the data that shows c's condition: what
 * the rule said, else the origin port's newest, else its peer's or its
 * device's, else this tick.
 */
static int64_t data_ms(const struct rules *r, const struct cand *c)
{
	if (c->data_ms > 0)
		return c->data_ms;
	if (c->n_subs && c->subs[0].port != NONE) {
		uint32_t p = c->subs[0].port;
		if (r->plast[p] > 0)
			return r->plast[p];
		if (has_peer(r, p) && r->plast[r->peer[p]] > 0)
			return r->plast[r->peer[p]];
		if (r->dlast[r->devi[p]] > 0)
			return r->dlast[r->devi[p]];
	}
	return r->now_ms;
}

/*
 * The condition of (kind, origin) holds now with score and c's subjects
 * (c->subs[0] must be the origin) and evidence.
 */
static void assert_inc(struct rules *r, enum rules_kind k, store_label dev,
		       store_label port, int prio, double score, int64_t now,
		       const struct cand *c)
{
	int64_t seen = data_ms(r, c);
	struct inc *in = find_inc(r, k, dev, port, prio);
	if (!in) {
		if (r->n_act >= MAX_ACTIVE)
			return;
		in = xcalloc(1, sizeof *in);
		in->id = r->next_id++;
		in->kind = k;
		in->state = RULES_PENDING;
		in->dev = dev;
		in->port = port;
		in->prio = prio;
		in->started = now;
		in->dfrom_ms =
		    seen -
		    (c->held_ns > 0 ? c->held_ns : r->c.window_ns) / 1000000;
		in->dlast_ms = seen;
		in->peak = -INFINITY;
		if (r->n_act == r->cap_act) {
			r->cap_act = r->cap_act ? r->cap_act * 2 : 16;
			r->act =
			    xreallocarray(r->act, r->cap_act, sizeof *r->act);
		}
		r->act[r->n_act++] = in;
	}
	in->asserted = true;
	in->last_true = now;
	if (seen > in->dlast_ms)
		in->dlast_ms = seen;
	merge_subs(in, c);
	if (score >= in->peak) {
		in->peak = score;
		in->peak_ns = now;
		memcpy(in->ev, c->ev, c->n_ev * sizeof *c->ev);
		in->n_ev = c->n_ev;
		describe(r, in);
	}
}

static uint64_t for_ns(const struct rules *r, enum rules_kind k)
{
	const struct cfg_rules *c = &r->c.r;
	switch (k) {
	case RULES_PFC_STORM:
		return c->storm_for_ns;
	case RULES_CONGESTION_SPREADING:
		return c->spreading_for_ns;
	case RULES_PFC_DEADLOCK:
		return c->deadlock_for_ns;
	case RULES_INCAST:
		return c->incast_for_ns;
	case RULES_LOSSLESS_DROP:
		return c->drop_for_ns;
	case RULES_PAUSE_ON_LOSSY:
		return c->lossy_pause_for_ns;
	case RULES_ECN_AFTER_PFC:
		return c->ecn_after_pfc_for_ns;
	case RULES_ECN_WITHOUT_CNP:
		return c->ecn_without_cnp_for_ns;
	case RULES_LINK_FLAP:
	case RULES_TARGET_SILENT:
	case RULES_RAIL_MISALIGNMENT:
	case RULES_KINDS:
		break;
	}
	return 0;
}

static char *dup_label(const struct rules *r, store_label l)
{
	return xstrdup(l ? lbl(r, l) : "");
}

static void to_public(const struct rules *r, const struct inc *in,
		      struct rules_incident *p)
{
	memset(p, 0, sizeof *p);
	p->id = in->id;
	p->kind = in->kind;
	p->state = in->state;
	p->priority = in->prio;
	p->started_ns = in->started;
	p->fired_ns = in->fired;
	p->peak_ns = in->peak_ns;
	p->peak = isfinite(in->peak) ? in->peak : 0;
	p->summary = xstrdup(in->summary);
	p->subjects = xcalloc(in->n_subs ? in->n_subs : 1, sizeof *p->subjects);
	for (size_t i = 0; i < in->n_subs; i++) {
		const struct isub *s = &in->subs[i];
		struct rules_subject *o = &p->subjects[i];
		o->device = dup_label(r, s->dev);
		o->port = dup_label(r, s->port != NONE ? r->pname[s->port] : 0);
		o->priority = s->prio;
		o->role = (enum rules_role)s->role;
		o->parent = s->parent;
		o->depth = s->depth;
	}
	p->n_subjects = in->n_subs;
	p->evidence = xcalloc(in->n_ev ? in->n_ev : 1, sizeof *p->evidence);
	for (size_t i = 0; i < in->n_ev; i++) {
		const struct iev *e = &in->ev[i];
		struct rules_evidence *o = &p->evidence[i];
		o->name = xstrdup(e->name);
		o->device = dup_label(r, e->dev);
		o->port = dup_label(r, e->port != NONE ? r->pname[e->port] : 0);
		o->value = e->value;
	}
	p->n_evidence = in->n_ev;
}

static void keep_resolved(struct rules *r, struct inc *in)
{
	size_t cap = r->c.r.keep_resolved;
	if (!cap)
		return;
	if (cap != r->recent_cap) {
		/* (Re)size the ring when first used or the cap changed;
		 * the resolved incidents kept so far are forgotten. */
		for (size_t i = 0; i < r->n_recent; i++)
			free_public(
			    &r->recent[(r->recent_head + i) % r->recent_cap]);
		free(r->recent);
		r->recent = xcalloc(cap, sizeof *r->recent);
		r->n_recent = r->recent_head = 0;
		r->recent_cap = cap;
	}
	size_t slot;
	if (r->n_recent < cap) {
		slot = (r->recent_head + r->n_recent) % cap;
		r->n_recent++;
	} else {
		slot = r->recent_head;
		free_public(&r->recent[slot]);
		r->recent_head = (r->recent_head + 1) % cap;
	}
	to_public(r, in, &r->recent[slot]);
	r->recent[slot].resolved_ns = in->last_true;
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

/* Whether the origin has fresh data (else the incident is held). An
 * origin that left the view counts as having data: its incidents
 * resolve after the clear duration. */
static bool origin_has_data(const struct rules *r, const struct inc *in)
{
	if (in->kind == RULES_TARGET_SILENT ||
	    in->kind == RULES_RAIL_MISALIGNMENT)
		return true;
	if (in->n_subs == 0 || in->subs[0].port == NONE)
		return true;
	uint32_t p = in->subs[0].port;
	if (!port_present(r, p))
		return true;
	/* Link state is gauges and totals; the rest needs rates. */
	return r->valid[p] & (in->kind == RULES_LINK_FLAP ? PV_FRESH : PV_RATE);
}

/* Outputs hook: an incident fired or resolved (report, alert). */
static void notify_outputs(struct rules *r, const struct inc *in)
{
	if (!r->report && !r->alert)
		return;
	struct rules_incident p;
	to_public(r, in, &p);
	if (in->state == RULES_RESOLVED)
		p.resolved_ns = in->last_true;
	if (r->report)
		report_incident(r->report, &p);
	if (r->alert)
		alert_incident(r->alert, &p);
	free_public(&p);
}

static void lifecycle(struct rules *r, int64_t now)
{
	for (size_t i = 0; i < r->n_act;) {
		struct inc *in = r->act[i];
		bool drop = false;
		if (in->asserted) {
			/* Samples arrive a little early or late: a quarter
			 * of a window's slack, so that two samples make
			 * two windows. */
			int64_t held = (in->dlast_ms - in->dfrom_ms) * 1000000 +
				       r->c.window_ns / 4;
			if (in->state == RULES_PENDING &&
			    held >= (int64_t)for_ns(r, in->kind)) {
				in->state = RULES_FIRING;
				in->fired = now;
				r->fired_total[in->kind]++;
				log_notice("rules", "firing: %s", in->summary);
				notify_outputs(r, in);
			}
		} else if (!origin_has_data(r, in)) {
			/* Held: no data is not a clear signal. Do not let
			 * the clear timer run meanwhile. */
			in->last_true = now;
		} else if (in->state == RULES_PENDING) {
			drop = true;
		} else if (now - in->last_true >= (int64_t)r->c.r.clear_ns) {
			in->state = RULES_RESOLVED;
			log_notice("rules", "resolved: %s", in->summary);
			keep_resolved(r, in);
			notify_outputs(r, in);
			drop = true;
		}
		in->asserted = false;
		if (drop) {
			free(in->subs);
			free(in);
			r->act[i] = r->act[--r->n_act];
			continue;
		}
		i++;
	}
}

/* The detections. */

/* Pausing / paused weights of every port at priority q. */
static void weights(struct rules *r, int q)
{
	for (uint32_t p = 0; p < r->n_ports; p++) {
		size_t i = lix(r, p, q);
		float pw = r->rtx[i], dw = r->rrx[i];
		float pt = r->ttx[i], dt = r->trx[i];
		if (has_peer(r, p)) {
			size_t j = lix(r, (uint32_t)r->peer[p], q);
			if (r->rrx[j] > pw)
				pw = r->rrx[j];
			if (r->rtx[j] > dw)
				dw = r->rtx[j];
			if (r->trx[j] > pt)
				pt = r->trx[j];
			if (r->ttx[j] > dt)
				dt = r->ttx[j];
		}
		r->pt[p] = pt;
		r->dt[p] = dt;
		/* A NIC's own pause-storm warning is a storm signal even
		 * when its pause counters lag. */
		if (qval(r, p, P_STORM_WARN) > 0 &&
		    (single_lossless(r) == q || pw >= r->c.r.pause_ratio) &&
		    pw < r->c.r.storm_ratio)
			pw = (float)r->c.r.storm_ratio;
		r->pw[p] = pw;
		r->dw[p] = dw;
	}
	for (uint32_t d = 0; d < r->n_devs; d++)
		r->dpaused[d] = 0;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint32_t d = r->devi[p];
		if (r->dw[p] > r->dpaused[d])
			r->dpaused[d] = r->dw[p];
	}
}

#define DEV_PORTS(r, d) (&(r)->dev_ports[(r)->dev_first[d]])

/* The arrival (figures' ms) of the newest data that shows port x
 * pausing its peer at q (pw[x] >= thr): x's own tx ratio, its peer's rx
 * ratio, or (a NIC's storm warning) x's data. */
static int64_t edge_ms(const struct rules *r, uint32_t x, int q, float thr)
{
	int64_t t = 0;
	if (r->rtx[lix(r, x, q)] >= thr && r->plast[x] > t)
		t = r->plast[x];
	if (has_peer(r, x)) {
		uint32_t y = (uint32_t)r->peer[x];
		if (r->rrx[lix(r, y, q)] >= thr && r->plast[y] > t)
			t = r->plast[y];
	}
	if (t <= 0)
		t = r->plast[x] > 0 ? r->plast[x] : r->now_ms;
	return t;
}

/* The arrival of the data that shows c's pause tree (pause_tree) at
 * least hops deep: of the paths that deep, the one shown by the newest
 * data, each path by its oldest edge's. 0: none that deep. */
static int64_t tree_ms(const struct cand *c, unsigned hops)
{
	int64_t t = 0;
	for (size_t i = 0; i < c->n_subs; i++)
		if (c->subs[i].role == RULES_ROLE_VICTIM &&
		    c->subs[i].depth >= hops && c->sub_ms[i] > t)
			t = c->sub_ms[i];
	return t;
}

/* The pause tree from root device d into r->cand; returns its depth in
 * hops. The origin (subject 0) is chosen by the caller. */
static unsigned pause_tree(struct rules *r, uint32_t d, int q, uint32_t origin,
			   bool origin_pausing)
{
	struct cand *c = &r->cand;
	float thr = (float)r->c.r.pause_ratio;
	unsigned maxdepth = 0;
	size_t head = 0, tail = 0;

	cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN, -1, 0);
	c->sub_ms[0] = INT64_MAX;
	r->dstamp[d] = r->stamp;
	/* The root's pausing ports: the origin itself, or spreaders of a
	 * congested egress. */
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if (r->pw[x] < thr)
			continue;
		int sx = 0;
		if (!(origin_pausing && x == origin))
			sx = cand_sub(r, c, x, 0, q, RULES_ROLE_SPREADER, 0, 0);
		if (sx < 0)
			break;
		c->sub_ms[sx] = edge_ms(r, x, q, thr);
		r->queue[tail] = x;
		r->qsub[tail++] = (uint32_t)sx;
	}
	while (head < tail) {
		uint32_t x = r->queue[head];
		int sx = (int)r->qsub[head++];
		unsigned dx = c->subs[sx].depth;
		if (!has_peer(r, x))
			continue;
		uint32_t y = (uint32_t)r->peer[x];
		int sy = cand_sub(r, c, y, 0, q, RULES_ROLE_VICTIM, sx, dx + 1);
		if (sy < 0)
			break;
		c->sub_ms[sy] = c->sub_ms[sx];
		if (dx + 1 > maxdepth)
			maxdepth = dx + 1;
		uint32_t e = r->devi[y];
		if (r->dstamp[e] == r->stamp)
			continue;
		r->dstamp[e] = r->stamp;
		for (uint32_t k = 0; k < r->dev_count[e]; k++) {
			uint32_t z = DEV_PORTS(r, e)[k];
			if (z == y || r->pw[z] < thr)
				continue;
			int sz = cand_sub(r, c, z, 0, q, RULES_ROLE_SPREADER,
					  sy, dx + 1);
			if (sz < 0)
				break;
			int64_t t = edge_ms(r, z, q, thr);
			c->sub_ms[sz] = t < c->sub_ms[sy] ? t : c->sub_ms[sy];
			r->queue[tail] = z;
			r->qsub[tail++] = (uint32_t)sz;
		}
	}
	return maxdepth;
}

/* Whether port a's device:port sorts before b's. */
static bool sorts_before(const struct rules *r, uint32_t a, uint32_t b)
{
	int cmp = strcmp(lbl(r, r->pdev[a]), lbl(r, r->pdev[b]));
	return cmp < 0 || (cmp == 0 && strcmp(lbl(r, r->pname[a]),
					      lbl(r, r->pname[b])) < 0);
}

/*
 * The link whose failure closed the cycle on the stack from..sp-1: the
 * most recent link-down, within DEADLOCK_CAUSE_NS, seen on a port of
 * the cycle's switches or on its peer. Its end that sorts first (the
 * link_flap convention), or NONE.
 */
static uint32_t deadlock_cause(const struct rules *r, size_t from, size_t sp,
			       int64_t now, int64_t *when)
{
	uint32_t best = NONE;
	int64_t best_t = 0;
	for (size_t i = from; i < sp; i++) {
		uint32_t d = r->stk_dev[i];
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			for (int end = 0; end < 2; end++) {
				if (end && !has_peer(r, x))
					break;
				uint32_t z = end ? (uint32_t)r->peer[x] : x;
				int64_t t = r->down_at[z];
				if (t && now - t <= DEADLOCK_CAUSE_NS &&
				    t > best_t) {
					best_t = t;
					best = z;
				}
			}
		}
	}
	if (best != NONE && has_peer(r, best) &&
	    sorts_before(r, (uint32_t)r->peer[best], best))
		best = (uint32_t)r->peer[best];
	*when = best_t;
	return best;
}

/*
 * Whether root device d's port x may be named a storm from its pause
 * tail alone (before a whole window shows it): x is a NIC, and nothing
 * pauses d at all. A switch that holds a peer paused without a break
 * while its own egress drains slowly (paused a little, or just busy) is
 * congestion spreading, not a storm; a NIC that stops draining its
 * receive buffer is the storm (domain.md 4).
 */
static bool tail_root(const struct rules *r, uint32_t d, uint32_t x)
{
	return r->is_nic[x] && !(r->dpaused[d] > 0.01f);
}

/*
 * Sampling skew. Targets sample and deliver on their own phases (and a
 * loaded collector receives them late, one port's update at a time), so
 * at a tick one port's data may be a window newer than its neighbour's:
 * a device whose newer window shows it pausing next to data of an older
 * window that does not show it paused (yet, or any more) looks like a
 * root for a tick, a false storm or spreading origin one hop down the
 * real tree. So each change of a device's pause state (it starts
 * pausing, starts storming, stops being paused while it pauses) is
 * stamped with the arrival of the newest data that showed it, and the
 * device may be named a root only once every port of it and every peer
 * of those has delivered data from that round on (within
 * RULES_KICK_MAX_NS: the same round), i.e. windows that overlap the
 * change, or the older end of a link is outweighed by the newer one
 * (see onset_settled). That waits at most one interval of the slowest
 * of them, and
 * never more than RULES_SKEW_WAIT intervals (a port that stopped
 * reporting goes stale on its own rule).
 */
#define RULES_SKEW_WAIT 2

static void track_onsets(struct rules *r, int q, float thr)
{
	for (uint32_t d = 0; d < r->n_devs; d++) {
		float pw = 0;
		int64_t seen = r->dlast[d];
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = r->dev_ports[r->dev_first[d] + k];
			if (r->pw[x] > pw)
				pw = r->pw[x];
			if (r->peer[x] >= 0 &&
			    r->dlast[r->devi[r->peer[x]]] > seen)
				seen = r->dlast[r->devi[r->peer[x]]];
		}
		if (seen == INT64_MIN || seen == 0)
			seen = r->now_ms ? r->now_ms : 1;
		size_t i = (size_t)d * PRIOS + q;
		bool paused = r->dpaused[d] >= thr;
		if (pw < thr)
			r->donset[i] = 0;
		else if (!r->donset[i])
			r->donset[i] = seen;
		if (pw < (float)r->c.r.storm_ratio)
			r->dsonset[i] = 0;
		else if (!r->dsonset[i])
			r->dsonset[i] = seen;
		if (pw >= thr && !paused && r->dwas_paused[i])
			r->drelease[i] = seen;
		r->dwas_paused[i] = paused;
	}
}

/* Whether the older data of link end a (ports a and b are its two
 * ends) is outweighed by b's newer data: the link's weights (weights())
 * take the greater of the two ends' figures, so a's older figures
 * change nothing when none is above b's. */
static bool outweighed(const struct rules *r, uint32_t a, uint32_t b, int q)
{
	size_t i = lix(r, a, q), j = lix(r, b, q);
	return !(qval(r, a, P_STORM_WARN) > 0) && r->rtx[i] <= r->rrx[j] &&
	       r->rrx[i] <= r->rtx[j] && r->ttx[i] <= r->trx[j] &&
	       r->trx[i] <= r->ttx[j];
}

/*
 * Whether every port of root candidate d and every peer of those has
 * delivered data from the round of its last pause-state change on (see
 * track_onsets), or the older end of a link changes nothing: its
 * figures are outweighed by the other end's newer ones (a host NIC,
 * read on the NIC collector's own phase, is then not waited for once
 * its switch port has shown what the NIC's read would).
 */
static bool onset_settled(const struct rules *r, uint32_t d, int q)
{
	size_t i = (size_t)d * PRIOS + q;
	int64_t t = r->donset[i];
	if (r->dsonset[i] > t)
		t = r->dsonset[i];
	if (r->drelease[i] > t)
		t = r->drelease[i];
	if (!t || r->now_ms - t >= (int64_t)RULES_SKEW_WAIT *
				       (r->def_iv_ms ? r->def_iv_ms : 1000))
		return true;
	int64_t from = t - RULES_KICK_MAX_NS / 1000000;
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = r->dev_ports[r->dev_first[d] + k];
		int32_t y = r->peer[x];
		bool old_x = r->plast[x] != INT64_MIN && r->plast[x] < from;
		bool old_y =
		    y >= 0 && r->plast[y] != INT64_MIN && r->plast[y] < from;
		if (!old_x && !old_y)
			continue;
		if (old_x && old_y)
			return false;
		/* One end is older: the other must be newer, with data. */
		uint32_t a = old_x ? x : (uint32_t)y;
		uint32_t b = old_x ? (uint32_t)y : x;
		if (y < 0 || r->plast[b] == INT64_MIN ||
		    !outweighed(r, a, b, q))
			return false;
	}
	return true;
}

static void pause_rules(struct rules *r, int q, int64_t now)
{
	struct cand *c = &r->cand;
	float thr = (float)r->c.r.pause_ratio;

	weights(r, q);
	track_onsets(r, q, thr);
	r->stamp++;
	if (r->stamp == 0) {
		memset(r->dstamp, 0, r->n_devs * sizeof *r->dstamp);
		r->stamp = 1;
	}
	uint32_t root_stamp = r->stamp;
	/* Roots: pausing, not paused. */
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (r->pw[p] < thr)
			continue;
		uint32_t d = r->devi[p];
		if (r->dpaused[d] >= thr || r->dstamp[d] == root_stamp)
			continue;
		/* The root's strongest pausing port, and its most
		 * occupied queue (a congested egress). */
		uint32_t best = p, occ_port = NONE;
		float occ = 0;
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			if (r->pw[x] > r->pw[best])
				best = x;
			if (pval(r, x, q, F_OCC) > occ && r->pw[x] < thr) {
				occ = pval(r, x, q, F_OCC);
				occ_port = x;
			}
		}
		/* A storm: held paused for the window (the ratio), or one
		 * pause still on at the sample that began storm_for ago or
		 * more (its tail: the window that saw it begin). */
		bool whole = r->pw[best] >= r->c.r.storm_ratio;
		bool storm =
		    whole || (tail_root(r, d, best) &&
			      r->pt[best] * 1e9 >= r->c.r.storm_for_ns);
		uint32_t origin = storm || occ_port == NONE ? best : occ_port;
		/* Not yet: a neighbour's data may be a window behind (see
		 * track_onsets). */
		/* Held back for skew: a new incident counts from the data
		 * that showed it when first held back (the wait is not the
		 * condition's absence), if it was held back up to the last
		 * interval. */
		size_t hi = (size_t)d * PRIOS + q;
		int64_t iv = r->def_iv_ms ? r->def_iv_ms : 1000;
		bool recent =
		    r->dheld_from[hi] && r->now_ms - r->dheld_last[hi] <= iv;
		if (!onset_settled(r, d, q)) {
			if (!recent)
				r->dheld_from[hi] = edge_ms(r, best, q, thr);
			r->dheld_last[hi] = r->now_ms;
			continue;
		}
		int64_t held_from = recent ? r->dheld_from[hi] : 0;
		r->dheld_from[hi] = 0;
		cand_reset(c);
		unsigned depth = pause_tree(r, d, q, origin, origin == best);
		c->data_ms = storm ? edge_ms(r, best, q, thr)
				   : tree_ms(c, r->c.r.spreading_hops);
		if (held_from && c->data_ms > held_from)
			c->held_ns =
			    (c->data_ms - held_from) * 1000000 + r->c.window_ns;
		if (storm && !whole && r->pt[best] * 1e9 > c->held_ns)
			c->held_ns = (int64_t)(r->pt[best] * 1e9);
		cand_ev(r, c, "pause_ratio_tx", best, r->pw[best]);
		if (has_peer(r, best))
			cand_ev(r, c, "peer_pause_ratio_rx",
				(uint32_t)r->peer[best],
				r->rrx[lix(r, (uint32_t)r->peer[best], q)]);
		if (occ_port != NONE)
			cand_ev(r, c, "queue_occupancy_bytes", occ_port, occ);
		if (qhas(r, best, P_STORM_WARN))
			cand_ev(r, c, "nic_pause_storm_warnings_per_s", best,
				qval(r, best, P_STORM_WARN));
		if (has_peer(r, best) &&
		    phas(r, (uint32_t)r->peer[best], q, F_TX_PKTS))
			cand_ev(r, c, "peer_tx_pps", (uint32_t)r->peer[best],
				pval(r, (uint32_t)r->peer[best], q, F_TX_PKTS));
		if (storm && !whole)
			cand_ev(r, c, "paused_for_seconds", best, r->pt[best]);
		cand_ev(r, c, "tree_depth_hops", NONE, depth);
		cand_ev(r, c, "tree_ports", NONE, (double)c->n_subs);
		if (storm)
			assert_inc(r, RULES_PFC_STORM, r->pdev[origin],
				   r->pname[origin], q, r->pw[best], now, c);
		else if (depth >= r->c.r.spreading_hops)
			assert_inc(r, RULES_CONGESTION_SPREADING,
				   r->pdev[origin], r->pname[origin], q, depth,
				   now, c);
	}

	/* Paused devices no root reached: look for cycles among them. */
	for (uint32_t d = 0; d < r->n_devs; d++)
		r->dcolour[d] = 0;
	for (uint32_t d0 = 0; d0 < r->n_devs; d0++) {
		if (r->dpaused[d0] < thr || r->dstamp[d0] == root_stamp ||
		    r->dcolour[d0])
			continue;
		size_t sp = 0;
		r->stk_dev[sp] = d0;
		r->stk_pos[sp] = 0;
		r->dcolour[d0] = 1;
		sp = 1;
		while (sp) {
			uint32_t d = r->stk_dev[sp - 1];
			uint32_t k = r->stk_pos[sp - 1]++;
			if (k >= r->dev_count[d]) {
				r->dcolour[d] = 2;
				sp--;
				continue;
			}
			uint32_t y = DEV_PORTS(r, d)[k];
			if (r->dw[y] < thr || !has_peer(r, y))
				continue;
			uint32_t e = r->devi[(uint32_t)r->peer[y]];
			if (r->dpaused[e] < thr || r->dstamp[e] == root_stamp ||
			    r->dcolour[e] == 2)
				continue;
			r->stk_via[sp - 1] = y;
			if (r->dcolour[e] == 0) {
				r->dcolour[e] = 1;
				r->stk_dev[sp] = e;
				r->stk_pos[sp] = 0;
				sp++;
				continue;
			}
			/* e is on the stack: the cycle is e .. d. */
			size_t from = sp - 1;
			while (r->stk_dev[from] != e)
				from--;
			bool stuck = true;
			uint32_t first = r->stk_via[from];
			/* How long every member has been stuck: a window
			 * without progress, or a pause still on at its sample
			 * (its tail: no progress since it began). */
			float held = INFINITY;
			for (size_t i = from; i < sp; i++) {
				uint32_t m = r->stk_via[i];
				bool progress =
				    phas(r, m, q, F_TX_PKTS)
					? pval(r, m, q, F_TX_PKTS) >
					      r->c.r.deadlock_progress
					: r->dw[m] < r->c.r.storm_ratio;
				float mh =
				    progress ? 0 : (float)r->c.window_ns / 1e9f;
				if (r->dt[m] > mh)
					mh = r->dt[m];
				progress = !(mh > 0);
				if (mh > 0 && mh < held)
					held = mh;
				if (progress)
					stuck = false;
				int cmp = strcmp(lbl(r, r->pdev[m]),
						 lbl(r, r->pdev[first]));
				if (cmp < 0 ||
				    (cmp == 0 &&
				     strcmp(lbl(r, r->pname[m]),
					    lbl(r, r->pname[first])) < 0))
					first = m;
			}
			/* Every cycle's members, stuck or still moving,
			 * for the drops it causes (queue_rules). */
			for (size_t i = from; i < sp; i++) {
				r->cycle_at[r->stk_via[i]] = now;
				r->cycle_key[r->stk_via[i]] = first;
			}
			if (!stuck)
				continue;
			/* A cycle forms when rerouting after a link failure
			 * bounces traffic back up (TAGGER's 1-bounce paths):
			 * the most recent link failure on the cycle's
			 * switches is where it started. */
			int64_t down_t = 0;
			uint32_t cause =
			    deadlock_cause(r, from, sp, now, &down_t);
			uint32_t origin = cause != NONE ? cause : first;
			cand_reset(c);
			c->held_ns = (int64_t)(held * 1e9);
			cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			float minw = 1;
			for (size_t i = from; i < sp; i++) {
				uint32_t m = r->stk_via[i];
				if (r->dw[m] < minw)
					minw = r->dw[m];
				if (m != origin)
					cand_sub(r, c, m, 0, q,
						 RULES_ROLE_MEMBER, 0, 1);
				cand_ev(r, c, "pause_ratio_rx", m, r->dw[m]);
			}
			cand_ev(r, c, "cycle_length", NONE,
				(double)(sp - from));
			if (cause != NONE)
				cand_ev(r, c, "link_down_seconds_ago", cause,
					(double)(now - down_t) / 1e9);
			assert_inc(r, RULES_PFC_DEADLOCK, r->pdev[origin],
				   r->pname[origin], q, minw, now, c);
		}
	}
}

/* Whether port p was on a pause cycle lately: within the clear
 * duration and a sample (the drops that break a cycle come as it
 * dissolves). */
static bool in_cycle(const struct rules *r, uint32_t p, int64_t now)
{
	return r->cycle_at[p] &&
	       now - r->cycle_at[p] <=
		   (int64_t)r->c.r.clear_ns + 2 * r->c.window_ns;
}

/*
 * The egress the traffic of device d at priority q is heading to: the
 * most occupied queue, else the busiest port running at a tenth of its
 * speed or more (a burst may fill only part of a sample); NONE if
 * neither.
 */
static uint32_t busiest_egress(const struct rules *r, uint32_t d, int q)
{
	uint32_t best = NONE, busy = NONE;
	double occ = 0, util = 0.1;
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if (pval(r, x, q, F_OCC) > occ) {
			occ = pval(r, x, q, F_OCC);
			best = x;
		}
		/* The speed is the port's, else its peer's (SONiC's
		 * counters carry none). */
		double speed = qval(r, x, P_SPEED);
		if (!(speed > 0) && has_peer(r, x))
			speed = qval(r, (uint32_t)r->peer[x], P_SPEED);
		if (qhas(r, x, P_TX_BYTES) && speed > 0) {
			double u = qval(r, x, P_TX_BYTES) / speed;
			if (u >= util) {
				util = u;
				busy = x;
			}
		}
	}
	return best != NONE ? best : busy;
}

/* ecn_after_pfc and lossless_drop at priority q (weights() done). */
static void queue_rules(struct rules *r, int q, int64_t now)
{
	struct cand *c = &r->cand;
	float thr = (float)r->c.r.ecn_pause_ratio;

	for (uint32_t d = 0; d < r->n_devs; d++) {
		if (r->dpaused[d] >= r->c.r.pause_ratio)
			continue;
		/* Nothing to say of a device that pauses no peer (most). */
		bool pausing = false;
		for (uint32_t k = 0; k < r->dev_count[d] && !pausing; k++)
			pausing = r->rtx[lix(r, DEV_PORTS(r, d)[k], q)] >= thr;
		if (!pausing)
			continue;
		bool ecn_known = false, occ_known = false;
		double marks = 0, occ = -1, best_pw = 0;
		uint32_t occ_port = NONE, pause_port = NONE;
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			float own = r->rtx[lix(r, x, q)];
			if (phas(r, x, q, F_ECN)) {
				ecn_known = true;
				marks += pval(r, x, q, F_ECN);
			}
			if (own >= thr) {
				pausing = true;
				if (own > best_pw) {
					best_pw = own;
					pause_port = x;
				}
			}
			if (phas(r, x, q, F_OCC))
				occ_known = true;
			if (phas(r, x, q, F_OCC) &&
			    pval(r, x, q, F_OCC) > occ && own < thr) {
				occ = pval(r, x, q, F_OCC);
				occ_port = x;
			}
		}
		/* Where queue depths are known, a pause with every egress
		 * queue empty comes from the ingress buffers alone (a
		 * headroom fault, seen as drops), not from a queue that
		 * should have marked. */
		if (!ecn_known || !pausing || marks > 0 ||
		    (occ_known && !(occ > 0)))
			continue;
		uint32_t origin =
		    occ_port != NONE && occ > 0 ? occ_port : pause_port;
		/* The victims: the pause tree below it (the senders it
		 * holds paused and, hop by hop, those upstream), and every
		 * peer it pauses even lightly. */
		cand_reset(c);
		if (++r->stamp == 0) {
			memset(r->dstamp, 0, r->n_devs * sizeof *r->dstamp);
			r->stamp = 1;
		}
		pause_tree(r, d, q, origin, origin == pause_port);
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			if (r->rtx[lix(r, x, q)] >= thr && has_peer(r, x) &&
			    !cand_has(c, (uint32_t)r->peer[x]))
				cand_sub(r, c, (uint32_t)r->peer[x], 0, q,
					 RULES_ROLE_VICTIM, 0, 1);
		}
		cand_ev(r, c, "pause_ratio_tx", pause_port, best_pw);
		cand_ev(r, c, "ecn_marked_pps", NONE, marks);
		if (occ_port != NONE)
			cand_ev(r, c, "queue_occupancy_bytes", occ_port, occ);
		assert_inc(r, RULES_ECN_AFTER_PFC, r->pdev[origin],
			   r->pname[origin], q, best_pw, now, c);
	}

	/* Drops on the lossless priority: a switch is one incident per
	 * device, a NIC one per port. */
	for (uint32_t p = 0; p < r->n_ports; p++) {
		/* Drops, and the pause that makes discards drops, are
		 * figures other than 0 that the report counts. */
		if (!(r->valid[p] & PV_ACTIVE))
			continue;
		double drops = pval(r, p, q, F_DROPS);
		bool nic = r->is_nic[p];
		/* NIC buffer drops have no priority: count them once, on
		 * the lowest lossless one. */
		if (nic && q == __builtin_ctz(r->c.lossless | 0x100u))
			drops += qval(r, p, P_OOB);
		/* A switch without per-priority ingress drop counters
		 * (SONiC's gNMI tables have none for priority groups):
		 * receive discards on a port that sent PFC on q in the
		 * same window are q's. The port was in XOFF and still
		 * dropped: its headroom overflowed. */
		if (!nic && !(drops > 0) && r->rtx[lix(r, p, q)] > 0 &&
		    qval(r, p, P_DISC_RX) > 0)
			drops = qval(r, p, P_DISC_RX);
		if (!(drops > 0))
			continue;
		cand_reset(c);
		store_label dev = r->pdev[p], port = nic ? r->pname[p] : 0;
		if (!nic && in_cycle(r, p, now)) {
			/* Drops on the ports of a pause cycle (its buffers
			 * overflowing as it forms, or the watchdog breaking
			 * it): one incident for the cycle, at its member
			 * that sorts first, the other members its victims. */
			uint32_t o = r->cycle_key[p];
			cand_sub(r, c, o, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			for (uint32_t m = 0; m < r->n_ports; m++)
				if (m != o && r->cycle_key[m] == o &&
				    in_cycle(r, m, now))
					cand_sub(r, c, m, 0, q,
						 RULES_ROLE_VICTIM, 0, 1);
			dev = r->pdev[o];
			port = r->pname[o];
		} else if (nic) {
			cand_sub(r, c, p, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			if (has_peer(r, p))
				cand_sub(r, c, (uint32_t)r->peer[p], 0, q,
					 RULES_ROLE_VICTIM, 0, 1);
		} else {
			cand_sub(r, c, NONE, r->pdev[p], q, RULES_ROLE_ORIGIN,
				 -1, 0);
			cand_sub(r, c,
				 has_peer(r, p) ? (uint32_t)r->peer[p] : p, 0,
				 q, RULES_ROLE_VICTIM, 0, 1);
			uint32_t e = busiest_egress(r, r->devi[p], q);
			if (e != NONE && e != p && has_peer(r, e))
				cand_sub(r, c, (uint32_t)r->peer[e], 0, q,
					 RULES_ROLE_VICTIM, 0, 1);
		}
		cand_ev(r, c, "drops_pps", p, drops);
		if (qhas(r, p, P_RETRIES))
			cand_ev(r, c, "transport_retries_per_s", p,
				qval(r, p, P_RETRIES));
		if (has_peer(r, p) && qhas(r, (uint32_t)r->peer[p], P_RETRIES))
			cand_ev(r, c, "peer_transport_retries_per_s",
				(uint32_t)r->peer[p],
				qval(r, (uint32_t)r->peer[p], P_RETRIES));
		assert_inc(r, RULES_LOSSLESS_DROP, dev, port, q, drops, now, c);
	}
}

static void lossy_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	/* Port by port: a port's priorities share its view block. */
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!(r->valid[p] & PV_LOSSY))
			continue;
		for (int q = 0; q < PRIOS; q++) {
			if (r->c.lossless & (1u << q))
				continue;
			float tx = pval(r, p, q, F_TX_FRAMES) +
				   pval(r, p, q, F_TX_PAUSE) * 1000;
			float rx = pval(r, p, q, F_RX_FRAMES) +
				   pval(r, p, q, F_RX_PAUSE) * 1000;
			uint32_t origin, victim;
			if (tx >= 0.5f) {
				origin = p;
				victim = has_peer(r, p) ? (uint32_t)r->peer[p]
							: NONE;
			} else if (rx >= 0.5f) {
				origin =
				    has_peer(r, p) ? (uint32_t)r->peer[p] : p;
				victim = has_peer(r, p) ? p : NONE;
			} else {
				continue;
			}
			cand_reset(c);
			cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			if (victim != NONE)
				cand_sub(r, c, victim, 0, q, RULES_ROLE_VICTIM,
					 0, 1);
			cand_ev(r, c, "pfc_tx_fps", origin,
				pval(r, origin, q, F_TX_FRAMES));
			if (victim != NONE)
				cand_ev(r, c, "peer_pfc_rx_fps", victim,
					pval(r, victim, q, F_RX_FRAMES));
			assert_inc(r, RULES_PAUSE_ON_LOSSY, r->pdev[origin],
				   r->pname[origin], q, tx > rx ? tx : rx, now,
				   c);
		}
	}
}

static void nic_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	int prio = single_lossless(r);
	size_t senders = 0;

	/* Senders: NICs whose reaction point cut its rate. */
	for (uint32_t p = 0; p < r->n_ports; p++)
		if (r->is_nic[p] && qval(r, p, P_CNP_HANDLED) >= 1)
			r->queue[senders++] = p;

	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!r->is_nic[p])
			continue;
		double ce = qval(r, p, P_CE), cnp = qval(r, p, P_CNP_SENT);
		size_t others = senders;
		for (size_t i = 0; i < senders; i++)
			if (r->queue[i] == p)
				others--;
		/* An incast congests the receiver's last hop: where its
		 * switch port's queue is known, it must mark or hold data
		 * (marks met on a congested fabric link upstream, with the
		 * last hop idle, are not an incast). */
		int32_t y = has_peer(r, p) ? r->peer[p] : -1;
		bool last_hop = y < 0 || prio < 0 ||
				(!phas(r, (uint32_t)y, prio, F_ECN) &&
				 !phas(r, (uint32_t)y, prio, F_OCC)) ||
				pval(r, (uint32_t)y, prio, F_ECN) > 0 ||
				pval(r, (uint32_t)y, prio, F_OCC) > 0;
		/* Senders DCQCN does not reach (no marks on their path)
		 * are held by pause instead: the NICs the receiver's
		 * switch pauses count too. */
		size_t paused = 0;
		if (y >= 0 && prio >= 0 && ce > 0 && last_hop) {
			uint32_t d = r->devi[y];
			for (uint32_t k = 0; k < r->dev_count[d]; k++) {
				uint32_t x = DEV_PORTS(r, d)[k];
				if ((int32_t)x == y || !has_peer(r, x))
					continue;
				uint32_t z = (uint32_t)r->peer[x];
				if (!r->is_nic[z] ||
				    r->rtx[lix(r, x, prio)] <
					r->c.r.pause_ratio ||
				    qval(r, z, P_CNP_HANDLED) >= 1)
					continue;
				r->qsub[paused++] = z;
			}
		}
		if (ce > 0 && cnp >= r->c.r.incast_min_cnp && last_hop &&
		    others + paused >= r->c.r.incast_senders) {
			cand_reset(c);
			cand_sub(r, c, p, 0, prio, RULES_ROLE_ORIGIN, -1, 0);
			for (size_t i = 0; i < senders; i++)
				if (r->queue[i] != p)
					cand_sub(r, c, r->queue[i], 0, prio,
						 RULES_ROLE_VICTIM, 0, 1);
			for (size_t i = 0; i < paused; i++)
				cand_sub(r, c, r->qsub[i], 0, prio,
					 RULES_ROLE_VICTIM, 0, 1);
			others += paused;
			cand_ev(r, c, "roce_ce_pps", p, ce);
			cand_ev(r, c, "cnp_sent_pps", p, cnp);
			cand_ev(r, c, "senders", NONE, (double)others);
			if (has_peer(r, p) && prio >= 0 &&
			    phas(r, (uint32_t)r->peer[p], prio, F_ECN))
				cand_ev(
				    r, c, "ecn_marked_pps",
				    (uint32_t)r->peer[p],
				    pval(r, (uint32_t)r->peer[p], prio, F_ECN));
			assert_inc(r, RULES_INCAST, r->pdev[p], r->pname[p],
				   prio, (double)others, now, c);
		}
		bool no_cnp = ce >= r->c.r.ecn_min_ce &&
			      qhas(r, p, P_CNP_SENT) && cnp < 1;
		double ignored = qval(r, p, P_CNP_IGNORED);
		if (no_cnp || ignored >= 1) {
			cand_reset(c);
			cand_sub(r, c, p, 0, prio, RULES_ROLE_ORIGIN, -1, 0);
			/* The senders it fails to slow: upstream of its
			 * switch, the peers that switch pauses. */
			if (no_cnp && has_peer(r, p) && prio >= 0) {
				uint32_t d = r->devi[r->peer[p]];
				for (uint32_t k = 0; k < r->dev_count[d]; k++) {
					uint32_t x = DEV_PORTS(r, d)[k];
					if (x != (uint32_t)r->peer[p] &&
					    has_peer(r, x) &&
					    r->rtx[lix(r, x, prio)] >=
						r->c.r.pause_ratio)
						cand_sub(
						    r, c, (uint32_t)r->peer[x],
						    0, prio, RULES_ROLE_VICTIM,
						    0, 1);
				}
			}
			cand_ev(r, c, "roce_ce_pps", p, ce);
			cand_ev(r, c, "cnp_sent_pps", p, cnp);
			cand_ev(r, c, "cnp_ignored_pps", p, ignored);
			assert_inc(r, RULES_ECN_WITHOUT_CNP, r->pdev[p],
				   r->pname[p], prio, no_cnp ? ce : ignored,
				   now, c);
		}
	}
}

static void flap_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	int64_t window = (int64_t)r->c.r.flap_window_ns;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!(r->valid[p] & PV_LINK) && !r->flap_n[p])
			continue;
		unsigned downs = 0;
		if (qhas(r, p, P_DOWN_TOTAL)) {
			/* Whole events: a total counted in halves (OpenConfig
			 * carrier-transitions) counts a flap once, when the
			 * link is back. */
			double v = qval(r, p, P_DOWN_TOTAL);
			if (r->down_seen[p] && v > r->down_last[p]) {
				downs =
				    (unsigned)(floor(v + 1e-6) -
					       floor(r->down_last[p] + 1e-6));
				/* When it went down: link_up says better
				 * (a total in halves also moves when the
				 * link comes back). */
				if (!qhas(r, p, P_LINK_UP))
					r->down_at[p] = now;
			}
			r->down_last[p] = v;
			r->down_seen[p] = 1;
		}
		if (qhas(r, p, P_LINK_UP)) {
			int up = qval(r, p, P_LINK_UP) > 0.5;
			if (r->link_last[p] == 1 && !up) {
				if (!qhas(r, p, P_DOWN_TOTAL))
					downs = 1;
				r->down_at[p] = now;
			}
			r->link_last[p] = (int8_t)up;
		}
		int64_t *ring = &r->flap_t[(size_t)p * FLAP_RING];
		for (unsigned i = 0; i < downs && i < FLAP_RING; i++) {
			memmove(ring + 1, ring, (FLAP_RING - 1) * sizeof *ring);
			ring[0] = now;
			if (r->flap_n[p] < FLAP_RING)
				r->flap_n[p]++;
		}
		unsigned recent = 0;
		for (unsigned i = 0; i < r->flap_n[p]; i++)
			if (now - ring[i] < window)
				recent++;
		if (recent < r->c.r.flap_count)
			continue;
		/* One incident per link: the end whose name sorts first. */
		uint32_t origin = p, victim = NONE;
		if (has_peer(r, p)) {
			uint32_t o = (uint32_t)r->peer[p];
			int cmp =
			    strcmp(lbl(r, r->pdev[o]), lbl(r, r->pdev[p]));
			if (cmp < 0 ||
			    (cmp == 0 && strcmp(lbl(r, r->pname[o]),
						lbl(r, r->pname[p])) < 0)) {
				origin = o;
				victim = p;
			} else {
				victim = o;
			}
		}
		cand_reset(c);
		cand_sub(r, c, origin, 0, -1, RULES_ROLE_ORIGIN, -1, 0);
		if (victim != NONE)
			cand_sub(r, c, victim, 0, -1, RULES_ROLE_VICTIM, 0, 1);
		cand_ev(r, c, "link_down_events_in_window", p, recent);
		assert_inc(r, RULES_LINK_FLAP, r->pdev[origin],
			   r->pname[origin], -1, recent, now, c);
	}
}

/* A device that sent data before and whose every series is now stale
 * (the store's staleness: stale_intervals sample intervals) and older
 * than silent_for. */
static void target_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	for (uint32_t d = 0; d < r->n_devs; d++) {
		if (!r->dseen[d] || r->dfresh[d] || r->dage[d] == INT64_MAX ||
		    r->dage[d] < r->c.silent_ns)
			continue;
		cand_reset(c);
		cand_sub(r, c, NONE, r->dlabel[d], -1, RULES_ROLE_ORIGIN, -1,
			 0);
		cand_ev(r, c, "seconds_since_data", NONE,
			(double)r->dage[d] / 1e9);
		assert_inc(r, RULES_TARGET_SILENT, r->dlabel[d], 0, -1,
			   (double)r->dage[d] / 1e9, now, c);
	}
}

static void rail_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	for (size_t i = 0; i + 1 < r->n_rail_bad; i += 2) {
		uint32_t nic = r->rail_bad[i], leaf = r->rail_bad[i + 1];
		cand_reset(c);
		cand_sub(r, c, nic, 0, -1, RULES_ROLE_ORIGIN, -1, 0);
		cand_sub(r, c, leaf, 0, -1, RULES_ROLE_VICTIM, 0, 1);
		assert_inc(r, RULES_RAIL_MISALIGNMENT, r->pdev[nic],
			   r->pname[nic], -1, 1, now, c);
	}
}

/*
 * Outputs hook: this tick's per-port rates into the report's history
 * (ports with nothing to say are skipped). Pause seconds are the
 * ratios the rules use (duration counters, else frames at the link's
 * refresh rate).
 */
static void feed_report(struct rules *r, int64_t now)
{
	report_begin(r->report, now);
	struct report_port rp;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		/* Nothing the report counts is other than 0: it would be
		 * skipped below. */
		if ((r->valid[p] & (PV_RATE | PV_ACTIVE)) !=
		    (PV_RATE | PV_ACTIVE))
			continue;
		memset(&rp, 0, sizeof rp);
		bool any = false;
		double refresh = refresh_rate(r, p);
		for (int q = 0; q < PRIOS; q++) {
			float tx, rx;
			if (r->c.lossless & (1u << q)) {
				tx = r->rtx[lix(r, p, q)];
				rx = r->rrx[lix(r, p, q)];
			} else {
				tx = ratio_of(r, p, q, F_TX_PAUSE, F_TX_FRAMES,
					      refresh);
				rx = ratio_of(r, p, q, F_RX_PAUSE, F_RX_FRAMES,
					      refresh);
			}
			rp.pause_tx_s[q] = tx > 0 ? tx : 0;
			rp.pause_rx_s[q] = rx > 0 ? rx : 0;
			rp.frames_tx[q] = pval(r, p, q, F_TX_FRAMES);
			rp.frames_rx[q] = pval(r, p, q, F_RX_FRAMES);
			rp.drops[q] = pval(r, p, q, F_DROPS);
			rp.ecn[q] = pval(r, p, q, F_ECN);
			if (phas(r, p, q, F_ECN))
				rp.has_ecn |= (uint8_t)(1u << q);
			any |= rp.pause_tx_s[q] > 0 || rp.pause_rx_s[q] > 0 ||
			       rp.frames_tx[q] > 0 || rp.frames_rx[q] > 0 ||
			       rp.drops[q] > 0 || rp.ecn[q] > 0;
		}
		rp.ce = qval(r, p, P_CE);
		rp.cnp_sent = qval(r, p, P_CNP_SENT);
		rp.cnp_handled = qval(r, p, P_CNP_HANDLED);
		rp.cnp_ignored = qval(r, p, P_CNP_IGNORED);
		rp.out_of_buffer = qval(r, p, P_OOB);
		any |= rp.ce > 0 || rp.cnp_sent > 0 || rp.cnp_handled > 0 ||
		       rp.cnp_ignored > 0 || rp.out_of_buffer > 0;
		if (!any)
			continue;
		rp.device = r->pdev[p];
		rp.port = r->pname[p];
		rp.is_nic = r->is_nic[p];
		report_port(r->report, &rp);
	}
	report_end(r->report);
}

void rules_set_outputs(struct rules *r, struct report *rep, struct alert *al)
{
	pthread_mutex_lock(&r->lock);
	r->report = rep;
	r->alert = al;
	pthread_mutex_unlock(&r->lock);
}

struct report *rules_get_report(struct rules *r)
{
	if (!r)
		return NULL;
	pthread_mutex_lock(&r->lock);
	struct report *rep = r->report;
	pthread_mutex_unlock(&r->lock);
	return rep;
}

void rules_tick(struct rules *r, int64_t now)
{
	pthread_mutex_lock(&r->lock);
	double cpu0 = thread_cpu_s();
	/* LLDP neighbours that stopped being reported leave the graph. */
	links_expire(r->links, 0, r->c.lldp_ttl_ns);
	uint64_t gen = links_generation(r->links);
	if (gen != r->links_gen)
		rebuild_graph(r);
	read_store(r);
	if (r->ports_changed)
		index_devices(r);
	compute_ratios(r);
	for (int q = 0; q < PRIOS; q++) {
		if (!(r->c.lossless & (1u << q)))
			continue;
		pause_rules(r, q, now);
		queue_rules(r, q, now);
	}
	lossy_rules(r, now);
	nic_rules(r, now);
	flap_rules(r, now);
	target_rules(r, now);
	rail_rules(r, now);
	lifecycle(r, now);
	if (r->report)
		feed_report(r, now);
	r->ticks++;
	r->last_cpu_s = thread_cpu_s() - cpu0;
	pthread_mutex_unlock(&r->lock);
}

/* Snapshots. */

static int cmp_ratio(const void *a, const void *b)
{
	const struct rules_port_ratio *x = a, *y = b;
	int c = strcmp(x->device, y->device);
	if (!c)
		c = strcmp(x->port, y->port);
	return c ? c : x->priority - y->priority;
}

void rules_snapshot(struct rules *r, bool with_ratios,
		    struct rules_snapshot *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&r->lock);
	out->active = xcalloc(r->n_act ? r->n_act : 1, sizeof *out->active);
	for (size_t i = 0; i < r->n_act; i++)
		to_public(r, r->act[i], &out->active[i]);
	out->n_active = r->n_act;
	size_t cap = r->recent_cap;
	out->recent =
	    xcalloc(r->n_recent ? r->n_recent : 1, sizeof *out->recent);
	for (size_t i = 0; i < r->n_recent && r->recent; i++) {
		/* Newest first. */
		size_t slot = (r->recent_head + r->n_recent - 1 - i) % cap;
		const struct rules_incident *src = &r->recent[slot];
		struct rules_incident *o = &out->recent[i];
		*o = *src;
		o->summary = xstrdup(src->summary);
		o->subjects = xcalloc(src->n_subjects ? src->n_subjects : 1,
				      sizeof *o->subjects);
		for (size_t k = 0; k < src->n_subjects; k++) {
			o->subjects[k] = src->subjects[k];
			o->subjects[k].device =
			    xstrdup(src->subjects[k].device);
			o->subjects[k].port = xstrdup(src->subjects[k].port);
		}
		o->evidence = xcalloc(src->n_evidence ? src->n_evidence : 1,
				      sizeof *o->evidence);
		for (size_t k = 0; k < src->n_evidence; k++) {
			o->evidence[k] = src->evidence[k];
			o->evidence[k].name = xstrdup(src->evidence[k].name);
			o->evidence[k].device =
			    xstrdup(src->evidence[k].device);
			o->evidence[k].port = xstrdup(src->evidence[k].port);
		}
	}
	out->n_recent = r->n_recent;
	memcpy(out->fired_total, r->fired_total, sizeof out->fired_total);
	out->ticks = r->ticks;
	out->last_tick_cpu_s = r->last_cpu_s;
	out->last_tick_reads = r->reads;
	out->ports = 0;
	for (uint32_t p = 0; p < r->n_ports; p++)
		out->ports += port_present(r, p);
	if (with_ratios) {
		size_t n = 0, cap2 = 0;
		for (uint32_t p = 0; p < r->n_ports; p++) {
			for (int q = 0; q < PRIOS; q++) {
				if (!(r->c.lossless & (1u << q)))
					continue;
				size_t i = lix(r, p, q);
				if (r->rtx[i] < 0 && r->rrx[i] < 0)
					continue;
				if (n == cap2) {
					cap2 = cap2 ? cap2 * 2 : 64;
					out->ratios =
					    xreallocarray(out->ratios, cap2,
							  sizeof *out->ratios);
				}
				struct rules_port_ratio *o = &out->ratios[n++];
				o->device = dup_label(r, r->pdev[p]);
				o->port = dup_label(r, r->pname[p]);
				o->priority = q;
				o->pause_tx = r->rtx[i];
				o->pause_rx = r->rrx[i];
			}
		}
		out->n_ratios = n;
	}
	pthread_mutex_unlock(&r->lock);
	if (out->n_ratios)
		qsort(out->ratios, out->n_ratios, sizeof *out->ratios,
		      cmp_ratio);
}

void rules_snapshot_free(struct rules_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_active; i++)
		free_public(&s->active[i]);
	free(s->active);
	for (size_t i = 0; i < s->n_recent; i++)
		free_public(&s->recent[i]);
	free(s->recent);
	for (size_t i = 0; i < s->n_ratios; i++) {
		free(s->ratios[i].device);
		free(s->ratios[i].port);
	}
	free(s->ratios);
	memset(s, 0, sizeof *s);
}

/* The thread. */

void rules_kick(struct rules *r)
{
	/* Only the first kick after a tick takes the lock; the others
	 * only say the round goes on. */
	int64_t now = mono_ns();
	atomic_store_explicit(&r->last_kick_ns, now, memory_order_relaxed);
	if (atomic_exchange(&r->kick_pending, true))
		return;
	pthread_mutex_lock(&r->wake);
	if (!r->kicked) {
		r->kicked = true;
		r->kick_ns = now;
	}
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->wake);
}

/*
 * Ticks follow the samples: a kick (rules_kick) schedules a tick once
 * the kicks have been quiet for RULES_KICK_QUIET_NS (a round of samples
 * from many targets, or one switch's ports sent as separate
 * notifications, lands in one tick: a tick between a device's ports
 * would see half a round, old and new windows side by side), at most
 * RULES_KICK_MAX_NS after the first, but no sooner than
 * RULES_KICK_GAP_NS, nor than ten
 * times the last tick's CPU time, after the previous tick: kicked ticks
 * cost at most a tenth of a core however the targets' samples are
 * staggered. Without kicks the engine ticks every rules.tick (silence
 * must be noticed too).
 */
static void *tick_thread(void *arg)
{
	struct rules *r = arg;
	int64_t last = mono_ns();
	int64_t next = last + (int64_t)rules_tick_ns(r);
	double cpu = 0; /* the last tick's, written by this thread */
	pthread_mutex_lock(&r->wake);
	while (!r->stop) {
		int64_t due = next;
		if (r->kicked) {
			int64_t gap = (int64_t)(cpu * 10 * 1e9);
			if (gap < RULES_KICK_GAP_NS)
				gap = RULES_KICK_GAP_NS;
			int64_t k = atomic_load_explicit(&r->last_kick_ns,
							 memory_order_relaxed) +
				    RULES_KICK_QUIET_NS;
			if (k > r->kick_ns + RULES_KICK_MAX_NS)
				k = r->kick_ns + RULES_KICK_MAX_NS;
			if (k < last + gap)
				k = last + gap;
			if (k < due)
				due = k;
		}
		int64_t now = mono_ns();
		if (now < due) {
			struct timespec ts = { .tv_sec = due / NS_PER_S,
					       .tv_nsec = due % NS_PER_S };
			pthread_cond_timedwait(&r->cond, &r->wake, &ts);
			continue;
		}
		r->kicked = false;
		atomic_store(&r->kick_pending, false);
		pthread_mutex_unlock(&r->wake);
		rules_tick(r, r->real_ns(r->clock_ctx));
		uint64_t t = rules_tick_ns(r);
		pthread_mutex_lock(&r->lock);
		cpu = r->last_cpu_s;
		pthread_mutex_unlock(&r->lock);
		pthread_mutex_lock(&r->wake);
		last = now;
		/* The next periodic tick counts from this one: while
		 * samples keep arriving, kicks drive the engine. */
		next = now + (int64_t)t;
	}
	pthread_mutex_unlock(&r->wake);
	return NULL;
}

int rules_start(struct rules *r)
{
	if (r->running)
		return -EALREADY;
	r->stop = false;
	int rc = pthread_create(&r->thread, NULL, tick_thread, r);
	if (rc)
		return -rc;
	r->running = true;
	log_info("rules", "rule engine ticking every %.3g s",
		 (double)r->c.tick_ns / 1e9);
	return 0;
}

void rules_stop(struct rules *r)
{
	if (!r->running)
		return;
	pthread_mutex_lock(&r->wake);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->wake);
	pthread_join(r->thread, NULL);
	r->running = false;
}
