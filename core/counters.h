/*
 * counters: the canonical counter vocabulary, one table for the whole
 * program.
 *
 * Collectors translate what a source calls a value (a gNMI path, an SNMP
 * OID, an mlx5 counter file or ethtool string) into one of these ids;
 * the store keeps series by id; the exporters name them; the rules read
 * them. Each entry says which Prometheus family it belongs to, whether
 * it is a counter or a gauge, its canonical unit (values are converted
 * to it once, at the collector edge), which extra label it carries
 * (priority, queue or none) and its direction (rx/tx), if any.
 *
 * Several ids share a family when they differ only by direction, so
 * that "PFC frames received" and "PFC frames sent" are one family with
 * direction="rx"/"tx".
 */
#ifndef FABMON_COUNTERS_H
#define FABMON_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

enum fm_counter {
	FM_C_NONE = 0,
	/* PFC, per priority */
	FM_C_PFC_RX_FRAMES,	 /* PFC frames received: we were paused */
	FM_C_PFC_TX_FRAMES,	 /* PFC frames sent: we paused the peer */
	FM_C_PFC_RX_PAUSE,	 /* seconds our transmit was paused */
	FM_C_PFC_TX_PAUSE,	 /* seconds we kept the peer paused */
	FM_C_PFC_RX_TRANSITIONS, /* XOFF->XON transitions received */
	FM_C_PFC_WD_STORMS,	 /* switch watchdog storm detections */
	FM_C_PFC_WD_RESTORES,	 /* switch watchdog restorations */
	FM_C_PFC_WD_STORMED,	 /* gauge: watchdog says stormed now (0/1) */
	FM_C_PFC_WD_DROPS_RX,	 /* packets dropped by watchdog action */
	FM_C_PFC_WD_DROPS_TX,
	/* Link-wide 802.3x pause, per port */
	FM_C_PAUSE_RX_FRAMES,
	FM_C_PAUSE_TX_FRAMES,
	/* PFC frames of all priorities together, per port (MIBs that count
	 * per interface only: IEEE8021-PFC-MIB) */
	FM_C_PFC_PORT_RX_FRAMES,
	FM_C_PFC_PORT_TX_FRAMES,
	/* NIC pause-storm prevention (mlx5), per port */
	FM_C_NIC_STORM_WARNINGS,
	FM_C_NIC_STORM_ERRORS,
	/* ECN / DCQCN */
	FM_C_ECN_MARKED,       /* queue: packets marked CE */
	FM_C_NIC_ECN_MARKED,   /* NIC: rx packets with CE (non-RDMA) */
	FM_C_ROCE_CE_RECEIVED, /* NIC notification point: CE RoCE pkts */
	FM_C_CNP_SENT,
	FM_C_CNP_HANDLED,
	FM_C_CNP_IGNORED,
	/* Drops and errors */
	FM_C_DISCARDS_RX,
	FM_C_DISCARDS_TX,
	FM_C_ERRORS_RX,
	FM_C_ERRORS_TX,
	FM_C_QUEUE_DROPS,	   /* queue: dropped packets */
	FM_C_PRIO_DISCARDS_RX,	   /* priority: rx discards (buffers) */
	FM_C_PG_DROPS,		   /* priority group: ingress drops */
	FM_C_NIC_OUT_OF_BUFFER,	   /* NIC: no receive WQE / buffer */
	FM_C_NIC_BUFFER_THRESHOLD, /* NIC: rx buffer passed 85% events */
	FM_C_NIC_PCIE_OVERFLOW,	   /* NIC: outbound PCIe buffer overflow */
	FM_C_NIC_PCIE_STALLED_RX,  /* NIC: seconds PCIe writes stalled >30% */
	FM_C_NIC_PCIE_STALLED_TX,  /* NIC: seconds PCIe reads stalled >30% */
	/* Traffic */
	FM_C_BYTES_RX,
	FM_C_BYTES_TX,
	FM_C_PACKETS_RX,
	FM_C_PACKETS_TX,
	FM_C_PRIO_BYTES_RX,
	FM_C_PRIO_BYTES_TX,
	FM_C_PRIO_PACKETS_RX,
	FM_C_PRIO_PACKETS_TX,
	FM_C_QUEUE_TX_PACKETS,
	FM_C_QUEUE_TX_BYTES,
	/* RDMA transport symptoms of loss, per NIC port */
	FM_C_RDMA_ACK_TIMEOUTS,
	FM_C_RDMA_SEQ_ERRORS,
	FM_C_RDMA_OUT_OF_SEQUENCE,
	FM_C_RDMA_ADAPTIVE_RETRANS,
	/* Physical */
	FM_C_LINK_UP,	       /* gauge 0/1 */
	FM_C_LINK_SPEED,       /* gauge, bytes per second */
	FM_C_LINK_DOWN_EVENTS, /* counter */
	/* Buffers, per queue (gauges) */
	FM_C_QUEUE_OCCUPANCY,
	FM_C_QUEUE_WATERMARK,
	FM_C__COUNT
};

enum fm_kind { FM_KIND_COUNTER, FM_KIND_GAUGE };
enum fm_sub { FM_SUB_NONE, FM_SUB_PRIORITY, FM_SUB_QUEUE };
enum fm_dir { FM_DIR_NONE, FM_DIR_RX, FM_DIR_TX };
/* What the port's line rate bounds in a counter (see fm_counter_line). */
enum fm_line { FM_LINE_NONE, FM_LINE_BYTES, FM_LINE_FRAMES };

/* Bytes a frame takes on the wire at least: a 64-byte frame, its 8 bytes
 * of preamble and start delimiter, 12 of inter-frame gap. */
#define FM_LINE_MIN_FRAME 84

struct fm_counter_info {
	enum fm_counter id;
	const char *name; /* canonical name used in profiles: "pfc_rx_frames" */
	const char *family; /* Prometheus family: "fabmon_pfc_frames_total" */
	const char *unit;   /* canonical unit: "frames", "seconds", "bytes" */
	enum fm_kind kind;
	enum fm_sub sub;
	enum fm_dir dir;
	const char
	    *help; /* HELP text of the family (same for every id in it) */
};

/* The entry for id, or NULL if id is out of range or FM_C_NONE. */
const struct fm_counter_info *fm_counter_info(enum fm_counter id);
/* The id whose canonical name is name, or FM_C_NONE. */
enum fm_counter fm_counter_by_name(const char *name);
/*
 * What the line rate of the counter's port bounds: FM_LINE_BYTES for
 * bytes that crossed the port's wire (at most speed bytes a second),
 * FM_LINE_FRAMES for frames that did (at most speed / FM_LINE_MIN_FRAME
 * a second), FM_LINE_NONE when the port's speed does not bound the
 * counter: events, seconds, and the drops of an egress (discards_tx,
 * queue drops, watchdog tx drops), which many ingress ports can feed at
 * once. FM_LINE_NONE for an invalid id.
 */
enum fm_line fm_counter_line(enum fm_counter id);
/* "rx", "tx" or NULL. */
const char *fm_dir_name(enum fm_dir dir);

#endif
