/*
 * counters: the canonical vocabulary table (see counters.h). Adding a
 * counter means adding an enum member and a row here; the exporters, the
 * API and the profile loaders pick it up by id or name.
 */
#include "config.h"

#include "counters.h"

#include <stdint.h>
#include <string.h>

#define ROW(id_, name_, fam_, unit_, kind_, sub_, dir_, help_)                \
	[id_] = { id_,		 name_,		fam_, unit_, FM_KIND_##kind_, \
		  FM_SUB_##sub_, FM_DIR_##dir_, help_ }

static const struct fm_counter_info table[FM_C__COUNT] = {
	ROW(FM_C_PFC_RX_FRAMES, "pfc_rx_frames", "fabmon_pfc_frames_total",
	    "frames", COUNTER, PRIORITY, RX,
	    "PFC pause frames received (rx: this port was paused) or sent "
	    "(tx: this port paused its peer), per priority."),
	ROW(FM_C_PFC_TX_FRAMES, "pfc_tx_frames", "fabmon_pfc_frames_total",
	    "frames", COUNTER, PRIORITY, TX, NULL),
	ROW(FM_C_PFC_RX_PAUSE, "pfc_rx_pause", "fabmon_pfc_pause_seconds_total",
	    "seconds", COUNTER, PRIORITY, RX,
	    "Time paused by PFC: rx, this port could not transmit on the "
	    "priority; tx, this port kept its peer from transmitting."),
	ROW(FM_C_PFC_TX_PAUSE, "pfc_tx_pause", "fabmon_pfc_pause_seconds_total",
	    "seconds", COUNTER, PRIORITY, TX, NULL),
	ROW(FM_C_PFC_RX_TRANSITIONS, "pfc_rx_transitions",
	    "fabmon_pfc_pause_transitions_total", "transitions", COUNTER,
	    PRIORITY, RX, "PFC XOFF to XON transitions, per priority."),
	ROW(FM_C_PFC_WD_STORMS, "pfc_watchdog_storms",
	    "fabmon_pfc_watchdog_storms_total", "events", COUNTER, PRIORITY,
	    NONE, "PFC storms detected by the device's own watchdog."),
	ROW(FM_C_PFC_WD_RESTORES, "pfc_watchdog_restores",
	    "fabmon_pfc_watchdog_restores_total", "events", COUNTER, PRIORITY,
	    NONE, "PFC storms the device's own watchdog declared over."),
	ROW(FM_C_PFC_WD_STORMED, "pfc_watchdog_stormed",
	    "fabmon_pfc_watchdog_stormed", "boolean", GAUGE, PRIORITY, NONE,
	    "1 while the device's own PFC watchdog reports a storm."),
	ROW(FM_C_PFC_WD_DROPS_RX, "pfc_watchdog_rx_drops",
	    "fabmon_pfc_watchdog_dropped_packets_total", "packets", COUNTER,
	    PRIORITY, RX, "Packets dropped by the PFC watchdog's action."),
	ROW(FM_C_PFC_WD_DROPS_TX, "pfc_watchdog_tx_drops",
	    "fabmon_pfc_watchdog_dropped_packets_total", "packets", COUNTER,
	    PRIORITY, TX, NULL),
	ROW(FM_C_PAUSE_RX_FRAMES, "pause_rx_frames",
	    "fabmon_link_pause_frames_total", "frames", COUNTER, NONE, RX,
	    "Link-wide IEEE 802.3x PAUSE frames (not per-priority PFC)."),
	ROW(FM_C_PAUSE_TX_FRAMES, "pause_tx_frames",
	    "fabmon_link_pause_frames_total", "frames", COUNTER, NONE, TX,
	    NULL),
	ROW(FM_C_PFC_PORT_RX_FRAMES, "pfc_port_rx_frames",
	    "fabmon_port_pfc_frames_total", "frames", COUNTER, NONE, RX,
	    "PFC frames received (rx) or sent (tx) by the port, all "
	    "priorities together (sources that do not count per priority)."),
	ROW(FM_C_PFC_PORT_TX_FRAMES, "pfc_port_tx_frames",
	    "fabmon_port_pfc_frames_total", "frames", COUNTER, NONE, TX, NULL),
	ROW(FM_C_NIC_STORM_WARNINGS, "nic_pause_storm_warnings",
	    "fabmon_nic_pause_storm_warning_events_total", "events", COUNTER,
	    NONE, NONE,
	    "NIC kept sending pauses past its stall minor watermark."),
	ROW(FM_C_NIC_STORM_ERRORS, "nic_pause_storm_errors",
	    "fabmon_nic_pause_storm_error_events_total", "events", COUNTER,
	    NONE, NONE,
	    "NIC passed its stall critical watermark and stopped sending "
	    "pauses."),
	ROW(FM_C_ECN_MARKED, "ecn_marked", "fabmon_ecn_marked_packets_total",
	    "packets", COUNTER, QUEUE, NONE,
	    "Packets the switch queue marked with ECN CE."),
	ROW(FM_C_NIC_ECN_MARKED, "nic_ecn_marked",
	    "fabmon_nic_ecn_marked_packets_total", "packets", COUNTER, NONE, RX,
	    "Non-RDMA packets received with ECN CE by the NIC."),
	ROW(FM_C_ROCE_CE_RECEIVED, "roce_ce_received",
	    "fabmon_roce_ce_received_packets_total", "packets", COUNTER, NONE,
	    NONE,
	    "CE-marked RoCE packets received by the NIC (DCQCN notification "
	    "point)."),
	ROW(FM_C_CNP_SENT, "cnp_sent", "fabmon_cnp_sent_packets_total",
	    "packets", COUNTER, NONE, NONE,
	    "Congestion notification packets sent by the NIC."),
	ROW(FM_C_CNP_HANDLED, "cnp_handled", "fabmon_cnp_handled_packets_total",
	    "packets", COUNTER, NONE, NONE,
	    "CNPs the NIC's reaction point handled (cut its rate)."),
	ROW(FM_C_CNP_IGNORED, "cnp_ignored", "fabmon_cnp_ignored_packets_total",
	    "packets", COUNTER, NONE, NONE,
	    "CNPs the NIC's reaction point received and ignored."),
	ROW(FM_C_DISCARDS_RX, "discards_rx", "fabmon_discarded_packets_total",
	    "packets", COUNTER, NONE, RX,
	    "Packets discarded by the port without an error (buffers, "
	    "congestion)."),
	ROW(FM_C_DISCARDS_TX, "discards_tx", "fabmon_discarded_packets_total",
	    "packets", COUNTER, NONE, TX, NULL),
	ROW(FM_C_ERRORS_RX, "errors_rx", "fabmon_error_packets_total",
	    "packets", COUNTER, NONE, RX, "Packets in error on the port."),
	ROW(FM_C_ERRORS_TX, "errors_tx", "fabmon_error_packets_total",
	    "packets", COUNTER, NONE, TX, NULL),
	ROW(FM_C_QUEUE_DROPS, "queue_drops",
	    "fabmon_queue_dropped_packets_total", "packets", COUNTER, QUEUE,
	    NONE, "Packets dropped by an egress queue (tail drop or AQM)."),
	ROW(FM_C_PRIO_DISCARDS_RX, "priority_rx_discards",
	    "fabmon_priority_discarded_packets_total", "packets", COUNTER,
	    PRIORITY, RX,
	    "Packets of a priority discarded for lack of receive buffers."),
	ROW(FM_C_PG_DROPS, "pg_drops",
	    "fabmon_priority_group_dropped_packets_total", "packets", COUNTER,
	    PRIORITY, RX, "Packets dropped by an ingress priority group."),
	ROW(FM_C_NIC_OUT_OF_BUFFER, "nic_out_of_buffer",
	    "fabmon_nic_out_of_buffer_packets_total", "packets", COUNTER, NONE,
	    NONE, "Packets the NIC dropped for lack of a receive WQE."),
	ROW(FM_C_NIC_BUFFER_THRESHOLD, "nic_buffer_passed_threshold",
	    "fabmon_nic_buffer_threshold_events_total", "events", COUNTER, NONE,
	    NONE, "Times the NIC's receive buffer was over 85% full."),
	ROW(FM_C_NIC_PCIE_OVERFLOW, "nic_pcie_buffer_overflow",
	    "fabmon_nic_pcie_overflow_packets_total", "packets", COUNTER, NONE,
	    NONE, "Packets the NIC dropped on PCIe outbound buffer overflow."),
	ROW(FM_C_NIC_PCIE_STALLED_RX, "nic_pcie_stalled_rx",
	    "fabmon_nic_pcie_stalled_seconds_total", "seconds", COUNTER, NONE,
	    RX,
	    "Seconds in which the NIC's PCIe writes to host memory (rx: "
	    "delivering received data) or reads from it (tx: fetching data "
	    "to send) were stalled for lack of credits more than 30% of the "
	    "time."),
	ROW(FM_C_NIC_PCIE_STALLED_TX, "nic_pcie_stalled_tx",
	    "fabmon_nic_pcie_stalled_seconds_total", "seconds", COUNTER, NONE,
	    TX, NULL),
	ROW(FM_C_BYTES_RX, "bytes_rx", "fabmon_bytes_total", "bytes", COUNTER,
	    NONE, RX, "Bytes received or transmitted by the port."),
	ROW(FM_C_BYTES_TX, "bytes_tx", "fabmon_bytes_total", "bytes", COUNTER,
	    NONE, TX, NULL),
	ROW(FM_C_PACKETS_RX, "packets_rx", "fabmon_packets_total", "packets",
	    COUNTER, NONE, RX, "Packets received or transmitted by the port."),
	ROW(FM_C_PACKETS_TX, "packets_tx", "fabmon_packets_total", "packets",
	    COUNTER, NONE, TX, NULL),
	ROW(FM_C_PRIO_BYTES_RX, "priority_bytes_rx",
	    "fabmon_priority_bytes_total", "bytes", COUNTER, PRIORITY, RX,
	    "Bytes received or transmitted on a priority."),
	ROW(FM_C_PRIO_BYTES_TX, "priority_bytes_tx",
	    "fabmon_priority_bytes_total", "bytes", COUNTER, PRIORITY, TX,
	    NULL),
	ROW(FM_C_PRIO_PACKETS_RX, "priority_packets_rx",
	    "fabmon_priority_packets_total", "packets", COUNTER, PRIORITY, RX,
	    "Packets received or transmitted on a priority."),
	ROW(FM_C_PRIO_PACKETS_TX, "priority_packets_tx",
	    "fabmon_priority_packets_total", "packets", COUNTER, PRIORITY, TX,
	    NULL),
	ROW(FM_C_QUEUE_TX_PACKETS, "queue_tx_packets",
	    "fabmon_queue_transmitted_packets_total", "packets", COUNTER, QUEUE,
	    NONE, "Packets transmitted by an egress queue."),
	ROW(FM_C_QUEUE_TX_BYTES, "queue_tx_bytes",
	    "fabmon_queue_transmitted_bytes_total", "bytes", COUNTER, QUEUE,
	    NONE, "Bytes transmitted by an egress queue."),
	ROW(FM_C_RDMA_ACK_TIMEOUTS, "rdma_ack_timeouts",
	    "fabmon_rdma_ack_timeouts_total", "events", COUNTER, NONE, NONE,
	    "RDMA ACK timer expiries at the sender (transport retries)."),
	ROW(FM_C_RDMA_SEQ_ERRORS, "rdma_seq_errors",
	    "fabmon_rdma_sequence_errors_total", "events", COUNTER, NONE, NONE,
	    "RDMA NAK-sequence-error packets received."),
	ROW(FM_C_RDMA_OUT_OF_SEQUENCE, "rdma_out_of_sequence",
	    "fabmon_rdma_out_of_sequence_packets_total", "packets", COUNTER,
	    NONE, NONE, "RDMA packets received out of sequence."),
	ROW(FM_C_RDMA_ADAPTIVE_RETRANS, "rdma_adaptive_retrans",
	    "fabmon_rdma_adaptive_retransmissions_total", "events", COUNTER,
	    NONE, NONE, "RoCE adaptive retransmissions."),
	ROW(FM_C_LINK_UP, "link_up", "fabmon_link_up", "boolean", GAUGE, NONE,
	    NONE, "1 if the port's link is operationally up."),
	ROW(FM_C_LINK_SPEED, "link_speed", "fabmon_link_speed_bytes", "bytes/s",
	    GAUGE, NONE, NONE,
	    "Negotiated link speed in bytes per second (Prometheus base "
	    "unit; 400G is 5e10)."),
	ROW(FM_C_LINK_DOWN_EVENTS, "link_down_events",
	    "fabmon_link_down_events_total", "events", COUNTER, NONE, NONE,
	    "Times the port's link went down."),
	ROW(FM_C_QUEUE_OCCUPANCY, "queue_occupancy",
	    "fabmon_queue_occupancy_bytes", "bytes", GAUGE, QUEUE, NONE,
	    "Bytes held in an egress queue now."),
	ROW(FM_C_QUEUE_WATERMARK, "queue_watermark",
	    "fabmon_queue_watermark_bytes", "bytes", GAUGE, QUEUE, NONE,
	    "Peak bytes held in an egress queue since the last read."),
};

/* Frames and bytes that crossed the port's own wire, in its direction.
 * Left out: marks and drops of an egress queue (ecn_marked, queue_drops,
 * discards_tx, pfc_watchdog_tx_drops), which count what many ingress
 * ports sent towards one egress and can exceed its line rate. */
static const uint8_t line[FM_C__COUNT] = {
	[FM_C_PFC_RX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_PFC_TX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_PFC_WD_DROPS_RX] = FM_LINE_FRAMES,
	[FM_C_PAUSE_RX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_PAUSE_TX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_PFC_PORT_RX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_PFC_PORT_TX_FRAMES] = FM_LINE_FRAMES,
	[FM_C_NIC_ECN_MARKED] = FM_LINE_FRAMES,
	[FM_C_ROCE_CE_RECEIVED] = FM_LINE_FRAMES,
	[FM_C_CNP_SENT] = FM_LINE_FRAMES,
	[FM_C_CNP_HANDLED] = FM_LINE_FRAMES,
	[FM_C_CNP_IGNORED] = FM_LINE_FRAMES,
	[FM_C_DISCARDS_RX] = FM_LINE_FRAMES,
	[FM_C_ERRORS_RX] = FM_LINE_FRAMES,
	[FM_C_ERRORS_TX] = FM_LINE_FRAMES,
	[FM_C_PRIO_DISCARDS_RX] = FM_LINE_FRAMES,
	[FM_C_PG_DROPS] = FM_LINE_FRAMES,
	[FM_C_NIC_OUT_OF_BUFFER] = FM_LINE_FRAMES,
	[FM_C_BYTES_RX] = FM_LINE_BYTES,
	[FM_C_BYTES_TX] = FM_LINE_BYTES,
	[FM_C_PACKETS_RX] = FM_LINE_FRAMES,
	[FM_C_PACKETS_TX] = FM_LINE_FRAMES,
	[FM_C_PRIO_BYTES_RX] = FM_LINE_BYTES,
	[FM_C_PRIO_BYTES_TX] = FM_LINE_BYTES,
	[FM_C_PRIO_PACKETS_RX] = FM_LINE_FRAMES,
	[FM_C_PRIO_PACKETS_TX] = FM_LINE_FRAMES,
	[FM_C_QUEUE_TX_PACKETS] = FM_LINE_FRAMES,
	[FM_C_QUEUE_TX_BYTES] = FM_LINE_BYTES,
	[FM_C_RDMA_OUT_OF_SEQUENCE] = FM_LINE_FRAMES,
};

enum fm_line fm_counter_line(enum fm_counter id)
{
	if ((int)id <= FM_C_NONE || id >= FM_C__COUNT)
		return FM_LINE_NONE;
	return (enum fm_line)line[id];
}

const struct fm_counter_info *fm_counter_info(enum fm_counter id)
{
	if ((int)id <= FM_C_NONE || id >= FM_C__COUNT)
		return NULL;
	return &table[id];
}

enum fm_counter fm_counter_by_name(const char *name)
{
	for (int i = FM_C_NONE + 1; i < FM_C__COUNT; i++)
		if (strcmp(table[i].name, name) == 0)
			return (enum fm_counter)i;
	return FM_C_NONE;
}

const char *fm_dir_name(enum fm_dir dir)
{
	switch (dir) {
	case FM_DIR_RX:
		return "rx";
	case FM_DIR_TX:
		return "tx";
	case FM_DIR_NONE:
		break;
	}
	return NULL;
}
