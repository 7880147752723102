/*
 * nic_map: the mlx5 name tables (see nic_map.h). Names, units and
 * widths follow the kernel's (reference/domain.md §1.2-1.4): the IB
 * counters are 64-bit (error counters saturate rather than wrap), the
 * q-counters of hw_counters are 32-bit hardware values that wrap, the
 * congestion counters 64-bit; ethtool values are 64-bit and pause
 * durations are microseconds.
 */
#include "config.h"

#include "nic_map.h"

#include "counters.h"

#include <errno.h>
#include <string.h>

struct row {
	const char *name;
	enum fm_counter counter;
	uint8_t width;
	double scale;
	enum nic_map_ceiling ceiling;
	bool no_ethtool;
};

static const struct row ib_rows[] = {
	{ "port_xmit_data", FM_C_BYTES_TX, 64, 4, NIC_MAP_CEIL_WORDS, false },
	{ "port_rcv_data", FM_C_BYTES_RX, 64, 4, NIC_MAP_CEIL_WORDS, false },
	{ "port_xmit_packets", FM_C_PACKETS_TX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "port_rcv_packets", FM_C_PACKETS_RX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "port_rcv_errors", FM_C_ERRORS_RX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "port_xmit_discards", FM_C_DISCARDS_TX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  true },
	{ "link_downed", FM_C_LINK_DOWN_EVENTS, 64, 1, NIC_MAP_CEIL_NONE,
	  true },
};

static const struct row hw_rows[] = {
	/* q-counters: 32-bit in hardware */
	{ "out_of_buffer", FM_C_NIC_OUT_OF_BUFFER, 32, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "out_of_sequence", FM_C_RDMA_OUT_OF_SEQUENCE, 32, 1,
	  NIC_MAP_CEIL_PACKETS, false },
	{ "packet_seq_err", FM_C_RDMA_SEQ_ERRORS, 32, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "local_ack_timeout_err", FM_C_RDMA_ACK_TIMEOUTS, 32, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "roce_adp_retrans", FM_C_RDMA_ADAPTIVE_RETRANS, 32, 1,
	  NIC_MAP_CEIL_NONE, false },
	/* congestion counters: 64-bit */
	{ "np_ecn_marked_roce_packets", FM_C_ROCE_CE_RECEIVED, 64, 1,
	  NIC_MAP_CEIL_PACKETS, false },
	{ "np_cnp_sent", FM_C_CNP_SENT, 64, 1, NIC_MAP_CEIL_PACKETS, false },
	{ "rp_cnp_handled", FM_C_CNP_HANDLED, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "rp_cnp_ignored", FM_C_CNP_IGNORED, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
};

/* Whole ethtool names (port-wide). */
static const struct row eth_rows[] = {
	{ "rx_discards_phy", FM_C_DISCARDS_RX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "tx_discards_phy", FM_C_DISCARDS_TX, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "tx_errors_phy", FM_C_ERRORS_TX, 64, 1, NIC_MAP_CEIL_PACKETS, false },
	{ "rx_buffer_passed_thres_phy", FM_C_NIC_BUFFER_THRESHOLD, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "tx_pause_storm_warning_events", FM_C_NIC_STORM_WARNINGS, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "tx_pause_storm_error_events", FM_C_NIC_STORM_ERRORS, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "link_down_events_phy", FM_C_LINK_DOWN_EVENTS, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "rx_pause_ctrl_phy", FM_C_PAUSE_RX_FRAMES, 64, 1,
	  NIC_MAP_CEIL_PACKETS, false },
	{ "tx_pause_ctrl_phy", FM_C_PAUSE_TX_FRAMES, 64, 1,
	  NIC_MAP_CEIL_PACKETS, false },
	{ "rx_ecn_mark", FM_C_NIC_ECN_MARKED, 64, 1, NIC_MAP_CEIL_PACKETS,
	  false },
	{ "outbound_pci_buffer_overflow", FM_C_NIC_PCIE_OVERFLOW, 64, 1,
	  NIC_MAP_CEIL_PACKETS, false },
	{ "outbound_pci_stalled_wr_events", FM_C_NIC_PCIE_STALLED_RX, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
	{ "outbound_pci_stalled_rd_events", FM_C_NIC_PCIE_STALLED_TX, 64, 1,
	  NIC_MAP_CEIL_NONE, false },
};

/* Per-priority ethtool names: "<dir>_prio<p><suffix>". */
struct prio_row {
	const char *suffix;
	enum fm_counter rx, tx; /* FM_C_NONE: no such direction */
	double scale;
	enum nic_map_ceiling ceiling;
};

static const struct prio_row prio_rows[] = {
	{ "_pause", FM_C_PFC_RX_FRAMES, FM_C_PFC_TX_FRAMES, 1,
	  NIC_MAP_CEIL_PACKETS },
	{ "_pause_duration", FM_C_PFC_RX_PAUSE, FM_C_PFC_TX_PAUSE, 1e-6,
	  NIC_MAP_CEIL_USEC },
	{ "_pause_transition", FM_C_PFC_RX_TRANSITIONS, FM_C_NONE, 1,
	  NIC_MAP_CEIL_PACKETS },
	{ "_discards", FM_C_PRIO_DISCARDS_RX, FM_C_NONE, 1,
	  NIC_MAP_CEIL_PACKETS },
	{ "_bytes", FM_C_PRIO_BYTES_RX, FM_C_PRIO_BYTES_TX, 1,
	  NIC_MAP_CEIL_BYTES },
	{ "_packets", FM_C_PRIO_PACKETS_RX, FM_C_PRIO_PACKETS_TX, 1,
	  NIC_MAP_CEIL_PACKETS },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void fill(struct nic_map *out, const struct row *r)
{
	*out = (struct nic_map){
		.counter = (uint16_t)r->counter,
		.width = r->width,
		.scale = r->scale,
		.ceiling = r->ceiling,
		.no_ethtool = r->no_ethtool,
	};
}

static int find(const struct row *rows, size_t n, const char *name, size_t len,
		struct nic_map *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i].name) == len &&
		    memcmp(rows[i].name, name, len) == 0) {
			fill(out, &rows[i]);
			return 0;
		}
	}
	return -ENOENT;
}

int nic_map_sysfs(const char *name, bool hw, struct nic_map *out)
{
	if (hw)
		return find(hw_rows, N(hw_rows), name, strlen(name), out);
	return find(ib_rows, N(ib_rows), name, strlen(name), out);
}

int nic_map_ethtool(const char *name, size_t len, struct nic_map *out)
{
	/* rx_prio<p>... / tx_prio<p>...: one digit 0..7 */
	if (len > 8 && (memcmp(name, "rx_prio", 7) == 0 ||
			memcmp(name, "tx_prio", 7) == 0)) {
		bool rx = name[0] == 'r';
		char d = name[7];
		if (d < '0' || d > '7')
			return -ENOENT;
		const char *suf = name + 8;
		size_t slen = len - 8;
		for (size_t i = 0; i < N(prio_rows); i++) {
			const struct prio_row *p = &prio_rows[i];
			enum fm_counter c = rx ? p->rx : p->tx;
			if (c == FM_C_NONE || strlen(p->suffix) != slen ||
			    memcmp(p->suffix, suf, slen) != 0)
				continue;
			*out = (struct nic_map){
				.counter = (uint16_t)c,
				.prio = (uint8_t)(d - '0'),
				.width = 64,
				.scale = p->scale,
				.ceiling = p->ceiling,
			};
			return 0;
		}
		return -ENOENT;
	}
	return find(eth_rows, N(eth_rows), name, len, out);
}

double nic_map_max_rate(const struct nic_map *m, double gbps)
{
	double bytes = gbps * 1e9 / 8;
	switch (m->ceiling) {
	case NIC_MAP_CEIL_NONE:
		return 0;
	case NIC_MAP_CEIL_USEC:
		return 1e6;
	case NIC_MAP_CEIL_BYTES:
		return bytes;
	case NIC_MAP_CEIL_WORDS:
		return bytes / 4;
	case NIC_MAP_CEIL_PACKETS:
		/* 64-byte frames plus preamble and gap: 84 bytes a frame */
		return bytes / 84;
	}
	return 0;
}
