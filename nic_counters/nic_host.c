/*
 * nic_host: one host's read cycles (see nic_host.h).
 *
 * A port keeps its counter files open (struct ctr: descriptor, mapping,
 * store handle) and its ethtool reader with a per-index mapping that is
 * rebuilt only when the reader says the names changed. Handles are
 * resolved when a file is opened or a name first mapped; -ESTALE (the
 * series was withdrawn) resolves again.
 */
#include "config.h"

#include "nic_host.h"

#include "cfg.h"
#include "clock.h"
#include "counters.h"
#include "fmt.h"
#include "log.h"
#include "mem.h"
#include "nic_ethtool.h"
#include "ident.h"
#include "nic_map.h"
#include "nic_sysfs.h"
#include "rfile.h"
#include "units.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_SUB "nic"

struct ctr {
	int fd;
	struct nic_map map;
	store_handle h;
	char *name; /* file name, for messages */
};

struct port {
	struct nic_sysfs_port sp;
	char label[2 * NIC_SYSFS_NAME_MAX + 8]; /* "mlx5_0", "mlx5_0/2" */
	char mac[24];				/* netdev address, or "" */
	store_label port_label;
	int fd_state, fd_rate;
	unsigned state; /* last state read; 0: unknown */
	double gbps;	/* link speed; 0: unknown */
	store_handle h_up, h_speed;
	struct ctr *ctrs;
	size_t n_ctrs;

	struct nic_ethtool *eth; /* NULL: no netdev */
	uint64_t eth_gen;	 /* names generation of eth_map */
	bool eth_mapped;
	struct nic_map *eth_map; /* per index; counter FM_C_NONE: unmapped */
	store_handle *eth_h;
	size_t eth_n;
	struct log_complaint eth_complaint;
};

struct nic_host {
	struct store *store;
	struct health_target *health;
	struct links *links;
	struct ident_table *ident; /* borrowed; NULL: nothing published */
	char *device, *root, *ethtool_dir;
	uint32_t interval_ms;
	int64_t rescan_ns;
	store_label device_label, owner;
	bool use_verbs;
	bool no_ethtool;

	struct port *ports;
	size_t n_ports;
	int64_t next_scan_ns, last_scan_ns;
	bool scan_now;
	bool scanned;	    /* a scan has run */
	bool idle_logged;   /* "no RDMA devices" said once */
	bool sysfs_counted; /* unmapped sysfs names counted once */
	struct log_complaint complaint;

	/* Files a scan could not open (EACCES, a FIFO...): counted as
	 * errors at every scan, the first one of the last scan shown as
	 * last_error, each path logged once (up to BAD_LOGGED_MAX). */
	uint64_t scan_bad;
	char bad_error[512];
	char **bad_logged;
	size_t n_bad_logged;

	/* Held around every write to the store, the health entry, the
	 * link and identity tables; detached: none may happen any more
	 * (nic_host_detach), though a poll may still be running. */
	pthread_mutex_t gate;
	bool detached;
};

#define BAD_LOGGED_MAX 256

struct nic_host *nic_host_new(const struct nic_host_opts *o)
{
	struct nic_host *h = xcalloc(1, sizeof *h);
	h->store = o->store;
	h->health = o->health;
	h->links = o->links;
	h->ident = o->ident;
	h->device = xstrdup(o->device);
	h->root = xstrdup(o->sysfs_root);
	h->ethtool_dir = o->ethtool_dir ? xstrdup(o->ethtool_dir) : NULL;
	h->interval_ms = o->interval_ms ? o->interval_ms : 1000;
	h->no_ethtool = o->no_ethtool;
	h->rescan_ns = o->rescan_ns;
	if (!h->rescan_ns) {
		h->rescan_ns = 10 * (int64_t)h->interval_ms * NS_PER_MS;
		if (h->rescan_ns < NS_PER_S)
			h->rescan_ns = NS_PER_S;
		if (h->rescan_ns > 10 * NS_PER_S)
			h->rescan_ns = 10 * NS_PER_S;
	}
	h->device_label = store_intern(h->store, h->device);
	char *owner = xasprintf("nic/%s", h->device);
	h->owner = store_intern(h->store, owner);
	free(owner);
	/* rdma-core only knows the live system's devices. */
	h->use_verbs = strcmp(h->root, "/sys") == 0;
	h->scan_now = true;
	pthread_mutex_init(&h->gate, NULL);
	return h;
}

/* Enters the gate: false (and not entered) once h is detached. */
static bool gate_in(struct nic_host *h)
{
	pthread_mutex_lock(&h->gate);
	if (!h->detached)
		return true;
	pthread_mutex_unlock(&h->gate);
	return false;
}

static void gate_out(struct nic_host *h)
{
	pthread_mutex_unlock(&h->gate);
}

void nic_host_detach(struct nic_host *h)
{
	pthread_mutex_lock(&h->gate);
	if (!h->detached && h->ident)
		ident_withdraw(h->ident, h);
	h->detached = true;
	pthread_mutex_unlock(&h->gate);
}

static void port_clear_sysfs(struct port *p)
{
	for (size_t i = 0; i < p->n_ctrs; i++) {
		close(p->ctrs[i].fd);
		free(p->ctrs[i].name);
	}
	free(p->ctrs);
	p->ctrs = NULL;
	p->n_ctrs = 0;
	if (p->fd_state >= 0)
		close(p->fd_state);
	if (p->fd_rate >= 0)
		close(p->fd_rate);
	p->fd_state = p->fd_rate = -1;
}

static void port_free(struct port *p)
{
	port_clear_sysfs(p);
	nic_ethtool_free(p->eth);
	free(p->eth_map);
	free(p->eth_h);
}

void nic_host_free(struct nic_host *h)
{
	if (!h)
		return;
	nic_host_detach(h);
	pthread_mutex_destroy(&h->gate);
	for (size_t i = 0; i < h->n_ports; i++)
		port_free(&h->ports[i]);
	free(h->ports);
	for (size_t i = 0; i < h->n_bad_logged; i++)
		free(h->bad_logged[i]);
	free(h->bad_logged);
	free(h->device);
	free(h->root);
	free(h->ethtool_dir);
	free(h);
}

static store_handle resolve(struct nic_host *h, const struct port *p,
			    const struct nic_map *m)
{
	const struct fm_counter_info *ci =
	    fm_counter_info((enum fm_counter)m->counter);
	struct store_key k = {
		.device = h->device_label,
		.port = p->port_label,
		.sub = ci && ci->sub == FM_SUB_PRIORITY ? m->prio : 0,
		.counter = m->counter,
	};
	struct store_series_spec spec = {
		.owner = h->owner,
		.width = m->width,
		.scale = m->scale,
		.max_rate = nic_map_max_rate(m, p->gbps),
		.interval_ms = h->interval_ms,
	};
	return store_series(h->store, &k, &spec);
}

static store_handle resolve_gauge(struct nic_host *h, const struct port *p,
				  enum fm_counter c)
{
	struct nic_map m = { .counter = (uint16_t)c, .width = 64, .scale = 1 };
	return resolve(h, p, &m);
}

/*
 * Scans.
 */

/* An attribute read only at scans (rate, address): not blocking on a
 * FIFO, quiet when it cannot be opened. */
static int open_attr(const char *path)
{
	return rfile_open(path, NULL, 0);
}

/* Whether path was logged as unreadable already (and notes it if not). */
static bool bad_seen(struct nic_host *h, const char *path)
{
	for (size_t i = 0; i < h->n_bad_logged; i++)
		if (strcmp(h->bad_logged[i], path) == 0)
			return true;
	if (h->n_bad_logged == BAD_LOGGED_MAX)
		return true; /* counted, no longer named */
	h->bad_logged = xreallocarray(h->bad_logged, h->n_bad_logged + 1,
				      sizeof *h->bad_logged);
	h->bad_logged[h->n_bad_logged++] = xstrdup(path);
	return false;
}

/*
 * Opens a counter or state file. One that is there but cannot be read
 * (EACCES under an unprivileged user, a FIFO or a device planted in the
 * tree) is counted as an error of this scan, becomes last_error if it
 * is the scan's first, and is logged once per path; one that went away
 * since the directory was listed is not a problem.
 */
static void note_bad(struct nic_host *h, const char *path, const char *why)
{
	h->scan_bad++;
	if (!h->bad_error[0])
		snprintf(h->bad_error, sizeof h->bad_error, "%s: %s", path,
			 why);
	if (!bad_seen(h, path))
		log_warn(LOG_SUB, "%s: %s: %s (not read, counted in errors)",
			 h->device, path, why);
}

static int open_counted(struct nic_host *h, const char *path)
{
	char why[160];
	int fd = rfile_open(path, why, sizeof why);
	if (fd >= 0 || fd == -ENOENT || fd == -EMFILE || fd == -ENFILE)
		return fd;
	note_bad(h, path, why);
	return fd;
}

static bool port_has(const struct port *p, uint16_t counter)
{
	for (size_t i = 0; i < p->n_ctrs; i++)
		if (p->ctrs[i].map.counter == counter)
			return true;
	return false;
}

/* Opens the mapped files of one directory; returns the unmapped count. */
static size_t open_dir(struct nic_host *h, struct port *p, const char *dir,
		       bool hw, bool skip_dups)
{
	DIR *d = opendir(dir);
	if (!d) {
		char why[160];
		if (errno != ENOENT && errno != ENOTDIR) {
			snprintf(why, sizeof why, "cannot list: %s",
				 strerror(errno));
			note_bad(h, dir, why);
		}
		return 0;
	}
	size_t unmapped = 0;
	struct dirent *e;
	bool has_eth = p->eth != NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "lifespan") == 0)
			continue;
		struct nic_map m;
		if (nic_map_sysfs(e->d_name, hw, &m) < 0) {
			unmapped++;
			continue;
		}
		if ((m.no_ethtool && has_eth) ||
		    (skip_dups && port_has(p, m.counter)))
			continue;
		char path[4400];
		fmt_path(path, sizeof path, "%s/%s", dir, e->d_name);
		int fd = open_counted(h, path);
		if (fd < 0) {
			if (fd == -EMFILE || fd == -ENFILE)
				log_complain(&h->complaint, LOG_LVL_WARN,
					     LOG_SUB,
					     "%s: out of file descriptors: "
					     "counters of %s not read (raise "
					     "LimitNOFILE)",
					     h->device, p->label);
			continue;
		}
		p->ctrs =
		    xreallocarray(p->ctrs, p->n_ctrs + 1, sizeof *p->ctrs);
		p->ctrs[p->n_ctrs++] = (struct ctr){
			.fd = fd,
			.map = m, /* resolved at its first value */
			.name = xstrdup(e->d_name),
		};
	}
	closedir(d);
	return unmapped;
}

static void read_rate(struct port *p)
{
	char buf[64];
	double g;
	if (p->fd_rate < 0)
		return;
	ssize_t n = pread(p->fd_rate, buf, sizeof buf - 1, 0);
	if (n > 0 && nic_sysfs_parse_rate(buf, (size_t)n, &g) == 0)
		p->gbps = g;
}

/* Opens what the port has in sysfs; returns its unmapped names. */
static size_t open_port(struct nic_host *h, struct port *p)
{
	char dir[4200];
	fmt_path(dir, sizeof dir, "%s/class/infiniband/%s/ports/%u", h->root,
		 p->sp.dev, p->sp.num);
	char path[4400];
	fmt_path(path, sizeof path, "%s/state", dir);
	p->fd_state = open_counted(h, path);
	if (p->fd_state < 0)
		p->fd_state = -1;
	fmt_path(path, sizeof path, "%s/rate", dir);
	p->fd_rate = open_attr(path);
	read_rate(p);
	/* h_up and h_speed are resolved at their first value. */

	size_t unmapped = 0;
	fmt_path(path, sizeof path, "%s/counters", dir);
	unmapped += open_dir(h, p, path, false, false);
	fmt_path(path, sizeof path, "%s/hw_counters", dir);
	unmapped += open_dir(h, p, path, true, false);
	/* Device-level counters belong to the port of a one-port device
	 * (RoCE functions have one); a name the port has wins. */
	if (p->sp.dev_ports == 1) {
		fmt_path(path, sizeof path,
			 "%s/class/infiniband/%s/hw_counters", h->root,
			 p->sp.dev);
		unmapped += open_dir(h, p, path, true, true);
	}
	return unmapped;
}

/* The netdev's MAC (class/net/<netdev>/address), told to the link table
 * so that LLDP neighbours that name this NIC by MAC resolve to it. */
static void read_mac(struct nic_host *h, struct port *p)
{
	char path[4400], buf[64];
	p->mac[0] = '\0';
	if (!p->sp.netdev[0])
		return;
	fmt_path(path, sizeof path, "%s/class/net/%s/address", h->root,
		 p->sp.netdev);
	int fd = open_attr(path);
	if (fd < 0)
		return;
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	if (n < 17)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, " \n")] = '\0';
	if (strlen(buf) != 17)
		return;
	memcpy(p->mac, buf, 18);
	if (h->links && gate_in(h)) {
		if (links_set_nic_mac(h->links, h->device, p->label, p->mac) <
		    0)
			p->mac[0] = '\0';
		gate_out(h);
	}
}

static struct nic_ethtool *new_eth(struct nic_host *h, const char *netdev)
{
	if (!h->ethtool_dir)
		return nic_ethtool_new_ioctl(netdev);
	char path[4200];
	fmt_path(path, sizeof path, "%s/%s", h->ethtool_dir, netdev);
	return nic_ethtool_new_file(path);
}

/* Whether the listed ports are the ones the host has now. */
static bool same_ports(const struct nic_host *h,
		       const struct nic_sysfs_port *sp, int n)
{
	if (n < 0 || (size_t)n != h->n_ports)
		return false;
	for (size_t i = 0; i < h->n_ports; i++)
		if (strcmp(sp[i].dev, h->ports[i].sp.dev) != 0 ||
		    sp[i].num != h->ports[i].sp.num)
			return false;
	return true;
}

/* Tells the exporters which RDMA device, port and netdev each port
 * label stands for (ports that went are withdrawn with the rest). */
static void publish_ident(struct nic_host *h)
{
	if (!h->ident)
		return;
	struct ident_port *v =
	    h->n_ports ? xcalloc(h->n_ports, sizeof *v) : NULL;
	for (size_t i = 0; i < h->n_ports; i++) {
		const struct port *p = &h->ports[i];
		v[i] = (struct ident_port){
			.device = h->device,
			.port = p->label,
			.rdma_device = p->sp.dev,
			.rdma_port = p->sp.num,
			.netdev = p->sp.netdev,
			.link_layer =
			    p->sp.ethernet ? "Ethernet" : "InfiniBand",
		};
	}
	if (gate_in(h)) {
		ident_publish(h->ident, h, v, h->n_ports);
		gate_out(h);
	}
	free(v);
}

/* Keeps the ethtool reader of a port that stays. */
static void keep_eth(struct nic_host *h, struct port *p)
{
	for (size_t j = 0; j < h->n_ports; j++) {
		struct port *o = &h->ports[j];
		if (o->eth && strcmp(o->label, p->label) == 0 &&
		    strcmp(o->sp.netdev, p->sp.netdev) == 0) {
			p->eth = o->eth;
			p->eth_gen = o->eth_gen;
			p->eth_mapped = o->eth_mapped;
			p->eth_map = o->eth_map;
			p->eth_h = o->eth_h;
			p->eth_n = o->eth_n;
			p->eth_complaint = o->eth_complaint;
			o->eth = NULL;
			o->eth_map = NULL;
			o->eth_h = NULL;
			break;
		}
	}
}

static void scan(struct nic_host *h)
{
	struct nic_sysfs_port *sp = NULL;
	int n = nic_sysfs_list_ports(h->root, false, &sp);
	/* rdma-core opens every device to ask about its ports, which costs
	 * more than a cycle: ask it when the devices seem to have changed
	 * (the first scan, or the tree lists other ports than last time). */
	if (h->use_verbs && (!h->scanned || !same_ports(h, sp, n))) {
		struct nic_sysfs_port *vp = NULL;
		int vn = nic_sysfs_list_ports(h->root, true, &vp);
		/* verbs may lack a provider for a device: then the tree,
		 * which lists every device, is the better answer */
		if (vn > 0 && vp[0].from_verbs && vn >= n) {
			free(sp);
			sp = vp;
			n = vn;
		} else {
			free(vp);
		}
	}
	struct port *np = n > 0 ? xcalloc((size_t)n, sizeof *np) : NULL;
	size_t unmapped = 0;
	h->scan_bad = 0;
	h->bad_error[0] = '\0';

	for (int i = 0; i < n; i++) {
		struct port *p = &np[i];
		p->sp = sp[i];
		p->fd_state = p->fd_rate = -1;
		/* A one-port device is its port, as the topology and the
		 * rules name it ("mlx5_0"); others say which ("mlx5_0/2"). */
		if (p->sp.dev_ports == 1)
			fmt_path(p->label, sizeof p->label, "%s", p->sp.dev);
		else
			fmt_path(p->label, sizeof p->label, "%s/%u", p->sp.dev,
				 p->sp.num);
		if (gate_in(h)) {
			p->port_label = store_intern(h->store, p->label);
			gate_out(h);
		}
		keep_eth(h, p);
		if (!p->eth && p->sp.netdev[0] && !h->no_ethtool)
			p->eth = new_eth(h, p->sp.netdev);
		read_mac(h, p);
		unmapped += open_port(h, p);
	}
	size_t old_n = h->n_ports;
	for (size_t j = 0; j < h->n_ports; j++)
		port_free(&h->ports[j]);
	free(h->ports);
	h->ports = np;
	h->n_ports = n > 0 ? (size_t)n : 0;

	if (n < 0 || n == 0) {
		if (!h->idle_logged) {
			char every[32];
			units_format_duration((uint64_t)h->rescan_ns, every,
					      sizeof every);
			log_notice(LOG_SUB,
				   "%s: no RDMA devices under "
				   "%s/class/infiniband%s%s: nothing to "
				   "collect (looking again every %s)",
				   h->device, h->root, n < 0 ? ": " : "",
				   n < 0 ? strerror(-n) : "", every);
			h->idle_logged = true;
		}
		if (h->health && gate_in(h)) {
			health_target_set_up(h->health, false,
					     "no RDMA devices");
			gate_out(h);
		}
	} else {
		/* The ports are listed at start and whenever their number
		 * changes (a device came or went). */
		if (!h->scanned || h->idle_logged || old_n != h->n_ports) {
			for (size_t i = 0; i < h->n_ports; i++) {
				const struct port *p = &h->ports[i];
				log_info(LOG_SUB,
					 "%s: %s%s%s, %s, %g Gb/s, %zu "
					 "counter files%s",
					 h->device, p->label,
					 p->sp.netdev[0] ? " netdev " : "",
					 p->sp.netdev,
					 p->sp.ethernet ? "RoCE" : "InfiniBand",
					 p->gbps, p->n_ctrs,
					 p->sp.from_verbs ? " (rdma-core)"
							  : "");
			}
		}
		h->idle_logged = false;
		if (h->health && gate_in(h)) {
			if (h->scan_bad)
				health_target_count(h->health, HEALTH_C_ERRORS,
						    h->scan_bad);
			if (!h->sysfs_counted && unmapped) {
				health_target_count(
				    h->health, HEALTH_C_UNMAPPED, unmapped);
				h->sysfs_counted = true;
			}
			gate_out(h);
		}
	}
	free(sp);
	publish_ident(h);
	h->scanned = true;
}

/*
 * Cycles.
 */

struct cycle {
	int64_t ts;
	uint64_t stored, errors, decode_errors;
	int first_error;
};

static void note_error(struct cycle *c, int rc)
{
	c->errors++;
	if (!c->first_error)
		c->first_error = rc;
}

static void put_counter_in(struct nic_host *h, struct port *p, store_handle *hp,
			   const struct nic_map *m, uint64_t raw,
			   struct cycle *c)
{
	if (!*hp)
		*hp = resolve(h, p, m);
	if (!*hp)
		return;
	int rc = store_update(h->store, *hp, raw, c->ts);
	if (rc == -ESTALE) {
		*hp = resolve(h, p, m);
		rc = *hp ? store_update(h->store, *hp, raw, c->ts) : -ESTALE;
	}
	if (rc == 0)
		c->stored++;
}

static void put_gauge_in(struct nic_host *h, struct port *p, store_handle *hp,
			 enum fm_counter id, double v, struct cycle *c)
{
	if (!*hp)
		*hp = resolve_gauge(h, p, id);
	if (!*hp)
		return;
	int rc = store_set_gauge(h->store, *hp, v, c->ts);
	if (rc == -ESTALE) {
		*hp = resolve_gauge(h, p, id);
		rc = *hp ? store_set_gauge(h->store, *hp, v, c->ts) : -ESTALE;
	}
	if (rc == 0)
		c->stored++;
}

/* The gated writes: nothing reaches the store once h is detached. */
static void put_counter(struct nic_host *h, struct port *p, store_handle *hp,
			const struct nic_map *m, uint64_t raw, struct cycle *c)
{
	if (!gate_in(h))
		return;
	put_counter_in(h, p, hp, m, raw, c);
	gate_out(h);
}

static void put_gauge(struct nic_host *h, struct port *p, store_handle *hp,
		      enum fm_counter id, double v, struct cycle *c)
{
	if (!gate_in(h))
		return;
	put_gauge_in(h, p, hp, id, v, c);
	gate_out(h);
}

static void read_state(struct nic_host *h, struct port *p, struct cycle *c)
{
	char buf[64];
	unsigned st;
	if (p->fd_state < 0)
		return;
	ssize_t n = pread(p->fd_state, buf, sizeof buf, 0);
	if (n < 0) {
		note_error(c, -errno);
		return;
	}
	if (nic_sysfs_parse_state(buf, (size_t)n, &st) < 0) {
		c->decode_errors++;
		return;
	}
	if (st != p->state) {
		/* The rate is read again only when the state moves. */
		read_rate(p);
		p->state = st;
	}
	put_gauge(h, p, &p->h_up, FM_C_LINK_UP, st == 4 ? 1 : 0, c);
	if (p->gbps > 0)
		put_gauge(h, p, &p->h_speed, FM_C_LINK_SPEED, p->gbps * 1e9 / 8,
			  c);
}

/* Rebuilds the per-index mapping after the names changed. */
static void map_eth(struct nic_host *h, struct port *p)
{
	size_t n = nic_ethtool_count(p->eth);
	free(p->eth_map);
	free(p->eth_h);
	p->eth_map = n ? xcalloc(n, sizeof *p->eth_map) : NULL;
	p->eth_h = n ? xcalloc(n, sizeof *p->eth_h) : NULL;
	p->eth_n = n;
	size_t unmapped = 0;
	for (size_t i = 0; i < n; i++) {
		if (nic_map_ethtool(nic_ethtool_name(p->eth, i),
				    nic_ethtool_name_len(p->eth, i),
				    &p->eth_map[i]) < 0) {
			p->eth_map[i].counter = FM_C_NONE;
			unmapped++;
		}
	}
	if (p->eth_mapped)
		log_debug(LOG_SUB, "%s: %s: ethtool names changed (%zu now)",
			  h->device, p->sp.netdev, n);
	if (h->health && unmapped && gate_in(h)) {
		health_target_count(h->health, HEALTH_C_UNMAPPED, unmapped);
		gate_out(h);
	}
	p->eth_gen = nic_ethtool_names_gen(p->eth);
	p->eth_mapped = true;
}

static void read_eth(struct nic_host *h, struct port *p, struct cycle *c)
{
	int rc = nic_ethtool_read(p->eth);
	if (rc < 0) {
		note_error(c, rc);
		log_complain(
		    &p->eth_complaint, LOG_LVL_WARN, LOG_SUB,
		    "%s: %s: cannot read ethtool statistics%s%s: %s", h->device,
		    p->sp.netdev, h->ethtool_dir ? " from " : "",
		    h->ethtool_dir ? h->ethtool_dir : "", strerror(-rc));
		return;
	}
	log_complain_clear(&p->eth_complaint, LOG_SUB,
			   "%s: %s: ethtool statistics readable again",
			   h->device, p->sp.netdev);
	if (!p->eth_mapped || nic_ethtool_names_gen(p->eth) != p->eth_gen)
		map_eth(h, p);
	for (size_t i = 0; i < p->eth_n; i++) {
		const struct nic_map *m = &p->eth_map[i];
		if (m->counter == FM_C_NONE)
			continue;
		put_counter(h, p, &p->eth_h[i], m, nic_ethtool_value(p->eth, i),
			    c);
	}
}

static void read_port(struct nic_host *h, struct port *p, struct cycle *c)
{
	read_state(h, p, c);
	for (size_t i = 0; i < p->n_ctrs; i++) {
		struct ctr *k = &p->ctrs[i];
		uint64_t v;
		int rc = nic_sysfs_read_value(k->fd, &v);
		if (rc == -ENODATA)
			continue; /* "N/A (no PMA)": the driver has none */
		if (rc == -EINVAL || rc == -ERANGE) {
			c->decode_errors++;
			continue;
		}
		if (rc < 0) {
			note_error(c, rc);
			continue;
		}
		put_counter(h, p, &k->h, &k->map, v, c);
	}
	if (p->eth)
		read_eth(h, p, c);
}

int nic_host_poll(struct nic_host *h)
{
	int64_t t0 = mono_ns();
	if (h->scan_now || t0 >= h->next_scan_ns) {
		scan(h);
		h->scan_now = false;
		h->last_scan_ns = t0;
		h->next_scan_ns = t0 + h->rescan_ns;
	}
	if (h->n_ports == 0)
		return 0;

	struct cycle c = { .ts = real_ns() };
	for (size_t i = 0; i < h->n_ports; i++)
		read_port(h, &h->ports[i], &c);

	/* A failed read may mean a device, port or file went away: look
	 * again soon, but not every cycle while something stays broken. */
	if (c.errors && h->next_scan_ns > h->last_scan_ns + NS_PER_S)
		h->next_scan_ns = h->last_scan_ns + NS_PER_S;
	if (h->health && gate_in(h)) {
		if (c.stored)
			health_target_updated(h->health, c.stored);
		if (c.errors)
			health_target_count(h->health, HEALTH_C_ERRORS,
					    c.errors);
		if (c.decode_errors)
			health_target_count(h->health, HEALTH_C_DECODE_ERRORS,
					    c.decode_errors);
		health_target_set_duration(h->health,
					   (double)(mono_ns() - t0) / 1e9);
		/* Up, with an unreadable file as its last error. */
		if (c.stored)
			health_target_set_up(h->health, true,
					     h->bad_error[0] ? h->bad_error
							     : NULL);
		else
			health_target_set_up(h->health, false,
					     c.first_error
						 ? strerror(-c.first_error)
						 : "no counter readable");
		gate_out(h);
	}
	if (c.stored) {
		log_complain_clear(&h->complaint, LOG_SUB,
				   "%s: NIC counters readable again",
				   h->device);
		return (int)(c.stored > INT32_MAX ? INT32_MAX : c.stored);
	}
	log_complain(&h->complaint, LOG_LVL_WARN, LOG_SUB,
		     "%s: no NIC counter readable under %s: %s", h->device,
		     h->root,
		     c.first_error ? strerror(-c.first_error) : "no values");
	return c.first_error ? c.first_error : 0;
}

size_t nic_host_n_ports(const struct nic_host *h)
{
	return h->n_ports;
}

const char *nic_host_port_label(const struct nic_host *h, size_t i)
{
	return i < h->n_ports ? h->ports[i].label : NULL;
}

const char *nic_host_port_netdev(const struct nic_host *h, size_t i)
{
	return i < h->n_ports ? h->ports[i].sp.netdev : NULL;
}

const char *nic_host_port_mac(const struct nic_host *h, size_t i)
{
	return i < h->n_ports ? h->ports[i].mac : NULL;
}

size_t nic_host_n_files(const struct nic_host *h)
{
	size_t n = 0;
	for (size_t i = 0; i < h->n_ports; i++)
		n += h->ports[i].n_ctrs + (h->ports[i].fd_state >= 0);
	return n;
}

void nic_host_rescan(struct nic_host *h)
{
	h->scan_now = true;
}
