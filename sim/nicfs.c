/*
 * sim_nicfs: the NIC trees of simulated hosts (see nicfs.h).
 *
 * Per NIC port the writer keeps one descriptor per counter file it
 * rewrites (the model's counters) and per state file; the files with no
 * model behind them (error counters, attributes) are written once at
 * creation. A tick costs one pread-free pwrite per file whose value
 * changed and one ethtool file (a few KB: open, write, close, rename)
 * per port whose text changed (an idle port's is kept).
 */
#include "config.h"

#include "nicfs.h"

#include "fmt.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define VALUE_WIDTH 20 /* characters of a counter value, then "\n" */
#define PATH_LEN    4096

/* Counter files rewritten each tick. */
enum nf {
	NF_XMIT_DATA,
	NF_RCV_DATA,
	NF_XMIT_PKTS,
	NF_RCV_PKTS,
	NF_UCAST_XMIT,
	NF_UCAST_RCV,
	NF_LINK_DOWNED,
	NF_NP_ECN,
	NF_NP_CNP,
	NF_RP_HANDLED,
	NF_RP_IGNORED,
	NF_OOB,
	NF_OOS,
	NF_SEQ_ERR,
	NF_ACK_TO,
	NF_ADP_RETRANS,
	NF__COUNT
};

static const struct {
	const char *name;
	bool hw;
} nf_files[NF__COUNT] = {
	[NF_XMIT_DATA] = { "port_xmit_data", false },
	[NF_RCV_DATA] = { "port_rcv_data", false },
	[NF_XMIT_PKTS] = { "port_xmit_packets", false },
	[NF_RCV_PKTS] = { "port_rcv_packets", false },
	[NF_UCAST_XMIT] = { "unicast_xmit_packets", false },
	[NF_UCAST_RCV] = { "unicast_rcv_packets", false },
	[NF_LINK_DOWNED] = { "link_downed", false },
	[NF_NP_ECN] = { "np_ecn_marked_roce_packets", true },
	[NF_NP_CNP] = { "np_cnp_sent", true },
	[NF_RP_HANDLED] = { "rp_cnp_handled", true },
	[NF_RP_IGNORED] = { "rp_cnp_ignored", true },
	[NF_OOB] = { "out_of_buffer", true },
	[NF_OOS] = { "out_of_sequence", true },
	[NF_SEQ_ERR] = { "packet_seq_err", true },
	[NF_ACK_TO] = { "local_ack_timeout_err", true },
	[NF_ADP_RETRANS] = { "roce_adp_retrans", true },
};

/* Files that exist on a real mlx5 port but that the model does not
 * drive: written once with 0. */
static const char *const static_counters[] = {
	"VL15_dropped",
	"excessive_buffer_overrun_errors",
	"link_error_recovery",
	"local_link_integrity_errors",
	"multicast_rcv_packets",
	"multicast_xmit_packets",
	"port_rcv_constraint_errors",
	"port_rcv_errors",
	"port_rcv_remote_physical_errors",
	"port_rcv_switch_relay_errors",
	"port_xmit_constraint_errors",
	"port_xmit_discards",
	"port_xmit_wait",
	"symbol_error",
};
static const char *const static_hw[] = {
	"duplicate_request",
	"implied_nak_seq_err",
	"rnr_nak_retry_err",
	"resp_local_length_error",
	"resp_cqe_error",
	"req_cqe_error",
	"req_remote_invalid_request",
	"req_remote_access_errors",
	"resp_remote_access_errors",
	"resp_cqe_flush_error",
	"req_cqe_flush_error",
	"roce_adp_retrans_to",
	"roce_slow_restart",
	"roce_slow_restart_cnps",
	"roce_slow_restart_trans",
	"rx_atomic_requests",
	"rx_dct_connect",
	"rx_read_requests",
	"rx_write_requests",
};

struct nf_port {
	const struct sim_port *port;
	int fd[NF__COUNT];
	uint64_t last[NF__COUNT];
	int fd_state, fd_phys, fd_oper, fd_carrier;
	int up;		  /* -1: not written yet */
	uint8_t pfc_seen; /* priorities that ever had pause */
	char *eth_path, *eth_tmp;
	char *eth_last; /* the text last written, to skip unchanged ones */
	size_t eth_last_len;
};

struct sim_nicfs {
	const struct sim_topo *t;
	const struct sim_node **hosts;
	size_t n_hosts;
	struct nf_port *ports;
	size_t n_ports;
	uint8_t lossless;
	char *text; /* ethtool text buffer */
	size_t text_cap;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* mkdir -p; 0 or -errno. */
static int make_dirs(const char *path)
{
	char p[PATH_LEN];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof p)
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		p[i] = c;
	}
	return 0;
}

/* Writes a whole small file (created or truncated); 0 or -errno. */
static int put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(text);
	ssize_t w = write(fd, text, len);
	int rc = w == (ssize_t)len ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

/* The fixed-width form of a value. */
static int format_value(char *buf, uint64_t v)
{
	return snprintf(buf, VALUE_WIDTH + 2, "%*" PRIu64 "\n", VALUE_WIDTH, v);
}

/* A text padded to the same width, left-aligned ("4: ACTIVE      "). */
static int format_text(char *buf, const char *s)
{
	return snprintf(buf, VALUE_WIDTH + 2, "%-*s\n", VALUE_WIDTH, s);
}

static int pwrite_all(int fd, const char *buf, int len)
{
	ssize_t w = pwrite(fd, buf, (size_t)len, 0);
	if (w == len)
		return 0;
	return w < 0 ? -errno : -EIO;
}

/* Creates a fixed-width file, keeps it open (returns the descriptor). */
static int open_fixed(const char *path, const char *initial, int *rc)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (!*rc)
			*rc = -errno;
		return -1;
	}
	int r = pwrite_all(fd, initial, (int)strlen(initial));
	if (r < 0 && !*rc)
		*rc = r;
	return fd;
}

static int put_fixed(const char *path, uint64_t v)
{
	char buf[VALUE_WIDTH + 2];
	format_value(buf, v);
	return put_file(path, buf);
}

static const char *ib_rate_name(unsigned gbps)
{
	switch (gbps) {
	case 100:
		return "100 Gb/sec (4X EDR)";
	case 200:
		return "200 Gb/sec (4X HDR)";
	case 400:
		return "400 Gb/sec (4X NDR)";
	case 800:
		return "800 Gb/sec (4X XDR)";
	}
	return NULL;
}

/* The RDMA device's directories and attributes under base (its
 * /sys/class/infiniband/<dev>); the first error goes to *rc. */
static void make_rdma_attrs(const struct sim_port *p, const char *base, int *rc)
{
	char path[PATH_LEN + 128];
	int r;

	static const char *const subdirs[] = { "ports/1/counters",
					       "ports/1/hw_counters",
					       "ports/1/gid_attrs/ndevs",
					       "ports/1/gid_attrs/types",
					       "hw_counters" };
	for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
		fmt_path(path, sizeof path, "%s/%s", base, subdirs[i]);
		if ((r = make_dirs(path)) < 0 && !*rc)
			*rc = r;
	}
	fmt_path(path, sizeof path, "%s/device/net/%s", base, p->netdev);
	if ((r = make_dirs(path)) < 0 && !*rc)
		*rc = r;

	/* Device attributes. */
	char guid[32];
	snprintf(guid, sizeof guid, "%02x%02x:%02xff:fe%02x:%02x%02x\n",
		 p->mac[0] ^ 2, p->mac[1], p->mac[2], p->mac[3], p->mac[4],
		 p->mac[5]);
	static const char *const attrs[][2] = {
		{ "fw_ver", "28.39.1002\n" },
		{ "hca_type", "MT4129\n" },
		{ "board_id", "MT_0000000838\n" },
		{ "node_type", "1: CA\n" },
		{ "hw_counters/lifespan", "10\n" },
		{ "ports/1/hw_counters/lifespan", "10\n" },
		{ "ports/1/link_layer", "Ethernet\n" },
		{ "ports/1/gid_attrs/types/0", "IB/RoCE v1\n" },
		{ "ports/1/gid_attrs/types/1", "RoCE v2\n" },
	};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		fmt_path(path, sizeof path, "%s/%s", base, attrs[i][0]);
		if ((r = put_file(path, attrs[i][1])) < 0 && !*rc)
			*rc = r;
	}
	fmt_path(path, sizeof path, "%s/node_guid", base);
	if ((r = put_file(path, guid)) < 0 && !*rc)
		*rc = r;
	char nd[96];
	snprintf(nd, sizeof nd, "%s\n", p->netdev);
	for (int i = 0; i < 2; i++) {
		fmt_path(path, sizeof path, "%s/ports/1/gid_attrs/ndevs/%d",
			 base, i);
		if ((r = put_file(path, nd)) < 0 && !*rc)
			*rc = r;
	}
	const char *rate = ib_rate_name(p->speed);
	char rbuf[64];
	if (!rate) {
		snprintf(rbuf, sizeof rbuf, "%u Gb/sec (4X)", p->speed);
		rate = rbuf;
	}
	fmt_path(path, sizeof path, "%s/ports/1/rate", base);
	snprintf(nd, sizeof nd, "%s\n", rate);
	if ((r = put_file(path, nd)) < 0 && !*rc)
		*rc = r;
}

/* The port's counter files under base, the live ones kept open in np;
 * the first error goes to *rc. */
static void make_rdma_counters(struct nf_port *np, const char *base, int *rc)
{
	char path[PATH_LEN + 128], buf[VALUE_WIDTH + 2];
	int r;

	for (size_t i = 0;
	     i < sizeof static_counters / sizeof static_counters[0]; i++) {
		fmt_path(path, sizeof path, "%s/ports/1/counters/%s", base,
			 static_counters[i]);
		if ((r = put_fixed(path, 0)) < 0 && !*rc)
			*rc = r;
	}
	for (size_t i = 0; i < sizeof static_hw / sizeof static_hw[0]; i++) {
		fmt_path(path, sizeof path, "%s/ports/1/hw_counters/%s", base,
			 static_hw[i]);
		if ((r = put_fixed(path, 0)) < 0 && !*rc)
			*rc = r;
	}
	format_value(buf, 0);
	for (int i = 0; i < NF__COUNT; i++) {
		fmt_path(path, sizeof path, "%s/ports/1/%s/%s", base,
			 nf_files[i].hw ? "hw_counters" : "counters",
			 nf_files[i].name);
		np->fd[i] = open_fixed(path, buf, rc);
		np->last[i] = 0;
	}
	fmt_path(path, sizeof path, "%s/ports/1/state", base);
	format_text(buf, "4: ACTIVE");
	np->fd_state = open_fixed(path, buf, rc);
	fmt_path(path, sizeof path, "%s/ports/1/phys_state", base);
	format_text(buf, "5: LinkUp");
	np->fd_phys = open_fixed(path, buf, rc);
}

/* The netdev's directory (in dir's host tree) and files, the live ones
 * kept open in np; the first error goes to *rc. */
static void make_netdev(struct nf_port *np, const char *dir, int *rc)
{
	const struct sim_port *p = np->port;
	char base[PATH_LEN], path[PATH_LEN + 128], buf[VALUE_WIDTH + 2];
	char nd[96];
	int r;

	fmt_path(base, sizeof base, "%s/%s/sys/class/net/%s", dir,
		 p->node->name, p->netdev);
	if ((r = make_dirs(base)) < 0 && !*rc)
		*rc = r;
	fmt_path(path, sizeof path, "%s/operstate", base);
	format_text(buf, "up");
	np->fd_oper = open_fixed(path, buf, rc);
	fmt_path(path, sizeof path, "%s/carrier", base);
	format_text(buf, "1");
	np->fd_carrier = open_fixed(path, buf, rc);
	fmt_path(path, sizeof path, "%s/speed", base);
	snprintf(nd, sizeof nd, "%u\n", p->speed * 1000);
	if ((r = put_file(path, nd)) < 0 && !*rc)
		*rc = r;
	fmt_path(path, sizeof path, "%s/mtu", base);
	if ((r = put_file(path, "4200\n")) < 0 && !*rc)
		*rc = r;
	/* the MAC the NIC announces in LLDP (its port id) */
	snprintf(nd, sizeof nd, "%02x:%02x:%02x:%02x:%02x:%02x\n", p->mac[0],
		 p->mac[1], p->mac[2], p->mac[3], p->mac[4], p->mac[5]);
	fmt_path(path, sizeof path, "%s/address", base);
	if ((r = put_file(path, nd)) < 0 && !*rc)
		*rc = r;
}

/* Builds one NIC port's tree; the first error goes to *rc. */
static void make_port(struct sim_nicfs *w, struct nf_port *np, const char *dir,
		      int *rc)
{
	const struct sim_port *p = np->port;
	const struct sim_node *h = p->node;
	char base[PATH_LEN];
	int r;

	fmt_path(base, sizeof base, "%s/%s/sys/class/infiniband/%s", dir,
		 h->name, p->rdma_dev);
	make_rdma_attrs(p, base, rc);
	make_rdma_counters(np, base, rc);
	make_netdev(np, dir, rc);

	fmt_path(base, sizeof base, "%s/%s/ethtool", dir, h->name);
	if ((r = make_dirs(base)) < 0 && !*rc)
		*rc = r;
	np->eth_path = xasprintf("%s/%s", base, p->netdev);
	np->eth_tmp = xasprintf("%s/%s.tmp", base, p->netdev);
	np->up = 1;
	(void)w;
}

/* Parses hosts ("h1,h2") into w->hosts; 0 or -EINVAL with err set. */
static int pick_hosts(struct sim_nicfs *w, const char *hosts, char *err,
		      size_t errlen)
{
	size_t n = sim_topo_n_tier(w->t, SIM_NODE_HOST);
	if (!hosts || strcmp(hosts, "all") == 0) {
		w->hosts = xcalloc(n ? n : 1, sizeof *w->hosts);
		for (size_t i = 0; i < n; i++)
			w->hosts[i] =
			    sim_topo_tier_node(w->t, SIM_NODE_HOST, i);
		w->n_hosts = n;
		return 0;
	}
	if (strcmp(hosts, "none") == 0)
		return 0;
	bool *chosen = xcalloc(sim_topo_n_nodes(w->t) + 1, sizeof *chosen);
	const char *s = hosts;
	int rc = 0;
	while (*s && rc == 0) {
		size_t len = strcspn(s, ",");
		char name[SIM_TOPO_NAME_MAX + 1];
		if (len == 0 || len > SIM_TOPO_NAME_MAX) {
			set_err(err, errlen,
				"nic hosts: \"%s\" is not a list of host "
				"names (\"all\", \"none\" or \"h1,h2\")",
				hosts);
			rc = -EINVAL;
			break;
		}
		memcpy(name, s, len);
		name[len] = '\0';
		const struct sim_node *nd = sim_topo_find_node(w->t, name);
		if (!nd || nd->kind != SIM_NODE_HOST) {
			set_err(err, errlen, "nic hosts: %s is not %s", name,
				nd ? "a host (it is a switch)"
				   : "a node of the topology");
			rc = -EINVAL;
			break;
		}
		chosen[nd->id] = true;
		s += len;
		if (*s == ',')
			s++;
	}
	if (rc == 0) {
		/* Topology order, each host once. */
		w->hosts = xcalloc(n ? n : 1, sizeof *w->hosts);
		for (size_t i = 0; i < n; i++) {
			const struct sim_node *nd =
			    sim_topo_tier_node(w->t, SIM_NODE_HOST, i);
			if (chosen[nd->id])
				w->hosts[w->n_hosts++] = nd;
		}
	}
	free(chosen);
	return rc;
}

struct sim_nicfs *sim_nicfs_new(const struct sim_topo *t, const char *dir,
				const char *hosts, char *err, size_t errlen)
{
	if (!t || !dir || !*dir) {
		set_err(err, errlen, "nic tree: no topology or directory");
		return NULL;
	}
	struct sim_nicfs *w = xcalloc(1, sizeof *w);
	w->t = t;
	w->lossless = sim_topo_lossless_mask(t);
	if (pick_hosts(w, hosts, err, errlen) < 0) {
		sim_nicfs_free(w);
		return NULL;
	}
	size_t np = 0;
	for (size_t i = 0; i < w->n_hosts; i++)
		np += w->hosts[i]->n_ports;
	w->ports = xcalloc(np ? np : 1, sizeof *w->ports);
	/* About 20 descriptors stay open per NIC: a large fabric needs more
	 * than the usual soft limit of 1024. */
	struct rlimit rl;
	rlim_t need = (rlim_t)np * (NF__COUNT + 4) + 256;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
		rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	int rc = make_dirs(dir);
	for (size_t i = 0; i < w->n_hosts && rc == 0; i++) {
		const struct sim_node *h = w->hosts[i];
		for (size_t j = 0; j < h->n_ports; j++) {
			struct nf_port *p = &w->ports[w->n_ports++];
			p->port = &h->ports[j];
			for (int k = 0; k < NF__COUNT; k++)
				p->fd[k] = -1;
			p->fd_state = p->fd_phys = p->fd_oper = -1;
			p->fd_carrier = -1;
			make_port(w, p, dir, &rc);
		}
	}
	if (rc < 0) {
		set_err(err, errlen, "nic tree: cannot write under %s: %s", dir,
			strerror(-rc));
		sim_nicfs_free(w);
		return NULL;
	}
	return w;
}

static void put_line(struct sim_nicfs *w, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put_line(struct sim_nicfs *w, size_t *len, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(w->text + *len, w->text_cap - *len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < w->text_cap - *len) {
			*len += (size_t)n;
			return;
		}
		w->text_cap = w->text_cap ? 2 * w->text_cap : 8192;
		w->text = xrealloc(w->text, w->text_cap);
	}
}

#define STAT(name, v) put_line(w, &len, "     %s: %" PRIu64 "\n", name, (v))
#define PSTAT(dir, p, suffix, v)                                              \
	put_line(w, &len, "     %s_prio%u_%s: %" PRIu64 "\n", dir, p, suffix, \
		 (v))

/* The `ethtool -S` text of one port, in mlx5's order of groups. */
static size_t ethtool_text(struct sim_nicfs *w, struct nf_port *np,
			   const struct sim_model_nic_port *c)
{
	size_t len = 0;
	if (!w->text) {
		w->text_cap = 8192;
		w->text = xmalloc(w->text_cap);
	}
	uint64_t rxp = 0, rxb = 0, txp = 0, txb = 0;
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		rxp += c->rx_prio_packets[p];
		rxb += c->rx_prio_bytes[p];
		txp += c->tx_prio_packets[p];
		txb += c->tx_prio_bytes[p];
		if (c->rx_prio_pause[p] || c->tx_prio_pause[p])
			np->pfc_seen |= (uint8_t)(1u << p);
	}
	put_line(w, &len, "NIC statistics:\n");
	/* software port: the netdev's own traffic (RDMA bypasses it) */
	STAT("rx_packets", UINT64_C(0));
	STAT("rx_bytes", UINT64_C(0));
	STAT("tx_packets", UINT64_C(0));
	STAT("tx_bytes", UINT64_C(0));
	STAT("rx_csum_unnecessary", UINT64_C(0));
	STAT("rx_csum_none", UINT64_C(0));
	STAT("rx_ecn_mark", UINT64_C(0));
	STAT("rx_out_of_buffer", UINT64_C(0));
	STAT("rx_if_down_packets", UINT64_C(0));
	/* vport: RoCE is accelerated traffic */
	STAT("rx_vport_rdma_unicast_packets", rxp);
	STAT("rx_vport_rdma_unicast_bytes", rxb);
	STAT("tx_vport_rdma_unicast_packets", txp);
	STAT("tx_vport_rdma_unicast_bytes", txb);
	/* physical port */
	STAT("rx_packets_phy", rxp);
	STAT("tx_packets_phy", txp);
	STAT("rx_bytes_phy", rxb);
	STAT("tx_bytes_phy", txb);
	STAT("rx_crc_errors_phy", c->rx_crc_errors_phy);
	STAT("rx_pause_ctrl_phy", UINT64_C(0));
	STAT("tx_pause_ctrl_phy", UINT64_C(0));
	STAT("rx_discards_phy", c->rx_discards_phy);
	STAT("tx_discards_phy", c->tx_discards_phy);
	STAT("tx_errors_phy", UINT64_C(0));
	STAT("link_down_events_phy", c->link_down_events_phy);
	STAT("rx_buffer_passed_thres_phy", c->rx_buffer_passed_thres_phy);
	/* PCIe */
	STAT("rx_pci_signal_integrity", UINT64_C(0));
	STAT("tx_pci_signal_integrity", UINT64_C(0));
	STAT("outbound_pci_buffer_overflow", UINT64_C(0));
	STAT("outbound_pci_stalled_rd", UINT64_C(0));
	STAT("outbound_pci_stalled_wr", UINT64_C(0));
	STAT("outbound_pci_stalled_rd_events", UINT64_C(0));
	STAT("outbound_pci_stalled_wr_events", UINT64_C(0));
	/* per priority: traffic always, PFC where enabled */
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		PSTAT("rx", p, "bytes", c->rx_prio_bytes[p]);
		PSTAT("rx", p, "packets", c->rx_prio_packets[p]);
		PSTAT("rx", p, "discards", c->rx_prio_discards[p]);
		PSTAT("tx", p, "bytes", c->tx_prio_bytes[p]);
		PSTAT("tx", p, "packets", c->tx_prio_packets[p]);
	}
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		if (!((w->lossless | np->pfc_seen) & (1u << p)))
			continue;
		PSTAT("rx", p, "pause", c->rx_prio_pause[p]);
		PSTAT("rx", p, "pause_duration", c->rx_prio_pause_duration[p]);
		PSTAT("tx", p, "pause", c->tx_prio_pause[p]);
		PSTAT("tx", p, "pause_duration", c->tx_prio_pause_duration[p]);
		PSTAT("rx", p, "pause_transition",
		      c->rx_prio_pause_transition[p]);
	}
	STAT("tx_pause_storm_warning_events", c->tx_pause_storm_warning_events);
	STAT("tx_pause_storm_error_events", c->tx_pause_storm_error_events);
	STAT("module_unplug", UINT64_C(0));
	STAT("module_bus_stuck", UINT64_C(0));
	return len;
}

static int write_eth(struct sim_nicfs *w, struct nf_port *np,
		     const struct sim_model_nic_port *c)
{
	size_t len = ethtool_text(w, np, c);
	if (np->eth_last && np->eth_last_len == len &&
	    memcmp(np->eth_last, w->text, len) == 0)
		return 0;
	int fd =
	    open(np->eth_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, w->text, len);
	int rc = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	if (rc == 0 && rename(np->eth_tmp, np->eth_path) < 0)
		rc = -errno;
	if (rc == 0) {
		np->eth_last = xrealloc(np->eth_last, len ? len : 1);
		memcpy(np->eth_last, w->text, len);
		np->eth_last_len = len;
	}
	return rc;
}

static int write_link(struct nf_port *np, bool up)
{
	char buf[VALUE_WIDTH + 2];
	int rc = 0, r;
	format_text(buf, up ? "4: ACTIVE" : "1: DOWN");
	if ((r = pwrite_all(np->fd_state, buf, VALUE_WIDTH + 1)) < 0)
		rc = r;
	format_text(buf, up ? "5: LinkUp" : "3: Disabled");
	if ((r = pwrite_all(np->fd_phys, buf, VALUE_WIDTH + 1)) < 0 && !rc)
		rc = r;
	format_text(buf, up ? "up" : "down");
	if ((r = pwrite_all(np->fd_oper, buf, VALUE_WIDTH + 1)) < 0 && !rc)
		rc = r;
	format_text(buf, up ? "1" : "0");
	if ((r = pwrite_all(np->fd_carrier, buf, VALUE_WIDTH + 1)) < 0 && !rc)
		rc = r;
	np->up = up;
	return rc;
}

int sim_nicfs_write(struct sim_nicfs *w, const struct sim_model *m)
{
	int rc = 0, r;
	for (size_t i = 0; i < w->n_ports; i++) {
		struct nf_port *np = &w->ports[i];
		struct sim_model_nic_port c;
		if ((r = sim_model_read_nic_port(m, np->port->id, &c)) < 0) {
			if (!rc)
				rc = r;
			continue;
		}
		const uint64_t v[NF__COUNT] = {
			[NF_XMIT_DATA] = c.port_xmit_data,
			[NF_RCV_DATA] = c.port_rcv_data,
			[NF_XMIT_PKTS] = c.port_xmit_packets,
			[NF_RCV_PKTS] = c.port_rcv_packets,
			[NF_UCAST_XMIT] = c.port_xmit_packets,
			[NF_UCAST_RCV] = c.port_rcv_packets,
			[NF_LINK_DOWNED] = c.link_down_events_phy,
			[NF_NP_ECN] = c.np_ecn_marked_roce_packets,
			[NF_NP_CNP] = c.np_cnp_sent,
			[NF_RP_HANDLED] = c.rp_cnp_handled,
			[NF_RP_IGNORED] = c.rp_cnp_ignored,
			[NF_OOB] = c.out_of_buffer,
			[NF_OOS] = c.out_of_sequence,
			[NF_SEQ_ERR] = c.packet_seq_err,
			[NF_ACK_TO] = c.local_ack_timeout_err,
			[NF_ADP_RETRANS] = c.roce_adp_retrans,
		};
		char buf[VALUE_WIDTH + 2];
		for (int k = 0; k < NF__COUNT; k++) {
			/* Unchanged values need no write: the file holds
			 * them already. */
			if (v[k] == np->last[k] || np->fd[k] < 0)
				continue;
			format_value(buf, v[k]);
			if ((r = pwrite_all(np->fd[k], buf, VALUE_WIDTH + 1)) <
			    0) {
				if (!rc)
					rc = r;
				continue;
			}
			np->last[k] = v[k];
		}
		if (np->up != (int)c.link_up && (r = write_link(np, c.link_up)))
			if (!rc)
				rc = r;
		if ((r = write_eth(w, np, &c)) < 0 && !rc)
			rc = r;
	}
	return rc;
}

size_t sim_nicfs_n_hosts(const struct sim_nicfs *w)
{
	return w->n_hosts;
}

const struct sim_node *sim_nicfs_host(const struct sim_nicfs *w, size_t i)
{
	return i < w->n_hosts ? w->hosts[i] : NULL;
}

void sim_nicfs_free(struct sim_nicfs *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_ports; i++) {
		struct nf_port *p = &w->ports[i];
		for (int k = 0; k < NF__COUNT; k++)
			if (p->fd[k] >= 0)
				close(p->fd[k]);
		int fds[] = { p->fd_state, p->fd_phys, p->fd_oper,
			      p->fd_carrier };
		for (size_t k = 0; k < sizeof fds / sizeof fds[0]; k++)
			if (fds[k] >= 0)
				close(fds[k]);
		free(p->eth_path);
		free(p->eth_tmp);
		free(p->eth_last);
	}
	free(w->ports);
	free(w->hosts);
	free(w->text);
	free(w);
}
