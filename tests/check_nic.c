/*
 * check_nic: the NIC collector's parts: the mlx5 name tables, value and
 * ethtool text parsing, the nic: config section (both forms), a host
 * read from real trees (the procfs mlx5 fixture and a RoCE tree) with
 * 32-bit wraps, resets, "N/A", name churn and files that go away, and
 * fabsim's writer read back end to end against the counter model, and
 * the NIC identity table the exporters read.
 *
 * Fixtures come from $top_srcdir/tests/data (top_srcdir defaults to
 * "."); trees that a test changes are copied to a temporary directory.
 */
#include "config.h"

#include "cfg.h"
#include "counters.h"
#include "fabmond.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "model.h"
#include "nic_cfg.h"
#include "nic_collector.h"
#include "nic_ethtool.h"
#include "nic_host.h"
#include "ident.h"
#include "nic_map.h"
#include "nic_sysfs.h"
#include "nicfs.h"
#include "store.h"
#include "topo.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char err[1024];

/* snprintf into a path buffer, which must be large enough. */
#define PATHF(buf, ...) \
	ck_assert((size_t)snprintf(buf, sizeof buf, __VA_ARGS__) < sizeof buf)

static const char *srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");
	PATHF(buf, "%s/%s", top && *top ? top : ".", rel);
	return buf;
}

static void copy_tree(const char *from, const char *to)
{
	ck_assert_int_eq(mkdir(to, 0755), 0);
	DIR *d = opendir(from);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char a[4096], b[4096];
		PATHF(a, "%s/%s", from, e->d_name);
		PATHF(b, "%s/%s", to, e->d_name);
		struct stat st;
		ck_assert_int_eq(stat(a, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			copy_tree(a, b);
			continue;
		}
		char buf[65536];
		int in = open(a, O_RDONLY),
		    out = open(b, O_WRONLY | O_CREAT, 0644);
		ck_assert_int_ge(in, 0);
		ck_assert_int_ge(out, 0);
		ssize_t n;
		while ((n = read(in, buf, sizeof buf)) > 0)
			ck_assert_int_eq(write(out, buf, (size_t)n), n);
		close(in);
		close(out);
	}
	closedir(d);
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char a[4096];
		PATHF(a, "%s/%s", path, e->d_name);
		struct stat st;
		if (lstat(a, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(a);
		else
			unlink(a);
	}
	closedir(d);
	rmdir(path);
}

static char tmpdir[4096];

static void make_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");
	PATHF(tmpdir, "%s/check_nic.XXXXXX", dir && *dir ? dir : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* Rewrites a file in place as the kernel shows it ("123\n"). */
static void put(const char *rel, const char *text)
{
	char path[4096];
	PATHF(path, "%s/%s", tmpdir, rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

/* A series' sample; fails the test if it does not exist. */
static struct store_sample get(struct store *st, const char *dev,
			       const char *port, enum fm_counter c,
			       uint32_t sub)
{
	struct store_key k = {
		.device = store_intern(st, dev),
		.port = store_intern(st, port),
		.sub = sub,
		.counter = (uint16_t)c,
	};
	store_handle h = store_lookup(st, &k);
	ck_assert_msg(h != 0, "no series %s %s %s/%u", dev, port,
		      fm_counter_info(c)->name, sub);
	struct store_sample s;
	ck_assert_int_eq(store_read(st, store_handle_slot(h), &s), 0);
	return s;
}

static bool has(struct store *st, const char *dev, const char *port,
		enum fm_counter c, uint32_t sub)
{
	struct store_key k = {
		.device = store_intern(st, dev),
		.port = store_intern(st, port),
		.sub = sub,
		.counter = (uint16_t)c,
	};
	return store_lookup(st, &k) != 0;
}

static uint64_t resets(struct store *st)
{
	struct store_stats s;
	store_get_stats(st, &s);
	return s.resets_total;
}

/*
 * Name tables.
 */

START_TEST(test_map_units_and_widths)
{
	struct nic_map m;
	ck_assert_int_eq(nic_map_sysfs("port_xmit_data", false, &m), 0);
	ck_assert_int_eq(m.counter, FM_C_BYTES_TX);
	ck_assert(m.scale == 4);
	ck_assert_int_eq(m.width, 64);
	ck_assert_int_eq(nic_map_sysfs("out_of_buffer", true, &m), 0);
	ck_assert_int_eq(m.counter, FM_C_NIC_OUT_OF_BUFFER);
	ck_assert_int_eq(m.width, 32);
	ck_assert_int_eq(nic_map_sysfs("local_ack_timeout_err", true, &m), 0);
	ck_assert_int_eq(m.width, 32);
	ck_assert_int_eq(nic_map_sysfs("np_cnp_sent", true, &m), 0);
	ck_assert_int_eq(m.counter, FM_C_CNP_SENT);
	ck_assert_int_eq(m.width, 64);
	ck_assert_int_eq(nic_map_sysfs("rp_cnp_ignored", true, &m), 0);
	ck_assert_int_eq(m.counter, FM_C_CNP_IGNORED);
	/* hw names are not IB counter names and the reverse */
	ck_assert_int_eq(nic_map_sysfs("np_cnp_sent", false, &m), -ENOENT);
	ck_assert_int_eq(nic_map_sysfs("port_xmit_data", true, &m), -ENOENT);
	ck_assert_int_eq(nic_map_sysfs("lifespan", true, &m), -ENOENT);

	const char *n = "rx_prio3_pause_duration";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), 0);
	ck_assert_int_eq(m.counter, FM_C_PFC_RX_PAUSE);
	ck_assert_int_eq(m.prio, 3);
	ck_assert(m.scale == 1e-6);
	n = "tx_prio7_pause";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), 0);
	ck_assert_int_eq(m.counter, FM_C_PFC_TX_FRAMES);
	ck_assert_int_eq(m.prio, 7);
	n = "rx_prio0_pause_transition";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), 0);
	ck_assert_int_eq(m.counter, FM_C_PFC_RX_TRANSITIONS);
	/* mlx5 has no tx transition counter, and priorities end at 7 */
	n = "tx_prio0_pause_transition";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), -ENOENT);
	n = "rx_prio8_pause";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), -ENOENT);
	n = "tx_pause_storm_error_events";
	ck_assert_int_eq(nic_map_ethtool(n, strlen(n), &m), 0);
	ck_assert_int_eq(m.counter, FM_C_NIC_STORM_ERRORS);
	/* the length bounds the name: a prefix is not a match */
	ck_assert_int_eq(nic_map_ethtool("rx_discards_phy_x", 15, &m), 0);
	ck_assert_int_eq(m.counter, FM_C_DISCARDS_RX);
	ck_assert_int_eq(nic_map_ethtool("rx_discards_ph", 14, &m), -ENOENT);

	ck_assert_int_eq(nic_map_ethtool("rx_prio3_pause_duration", 23, &m), 0);
	ck_assert(nic_map_max_rate(&m, 400) == 1e6);
	ck_assert_int_eq(nic_map_sysfs("port_rcv_data", false, &m), 0);
	ck_assert(nic_map_max_rate(&m, 400) == 400e9 / 8 / 4);
	ck_assert(nic_map_max_rate(&m, 0) == 0);
}
END_TEST

START_TEST(test_value_parsing)
{
	uint64_t v;
	ck_assert_int_eq(nic_sysfs_parse_value("123\n", 4, &v), 0);
	ck_assert_uint_eq(v, 123);
	ck_assert_int_eq(nic_sysfs_parse_value("                 42\n", 20, &v),
			 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(
	    nic_sysfs_parse_value("18446744073709551615\n", 21, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(
	    nic_sysfs_parse_value("18446744073709551616\n", 21, &v), -ERANGE);
	ck_assert_int_eq(nic_sysfs_parse_value("N/A (no PMA)\n", 13, &v),
			 -ENODATA);
	ck_assert_int_eq(nic_sysfs_parse_value("", 0, &v), -EINVAL);
	ck_assert_int_eq(nic_sysfs_parse_value("12x\n", 4, &v), -EINVAL);
	ck_assert_int_eq(nic_sysfs_parse_value("-1\n", 3, &v), -EINVAL);

	unsigned s;
	ck_assert_int_eq(nic_sysfs_parse_state("4: ACTIVE\n", 10, &s), 0);
	ck_assert_uint_eq(s, 4);
	ck_assert_int_eq(nic_sysfs_parse_state("ACTIVE\n", 7, &s), -EINVAL);
	double g;
	ck_assert_int_eq(nic_sysfs_parse_rate("400 Gb/sec (4X NDR)\n", 20, &g),
			 0);
	ck_assert(g == 400);
	ck_assert_int_eq(nic_sysfs_parse_rate("2.5 Gb/sec (1X SDR)", 19, &g),
			 0);
	ck_assert(g == 2.5);
	ck_assert_int_eq(nic_sysfs_parse_rate("fast", 4, &g), -EINVAL);
}
END_TEST

START_TEST(test_ethtool_text_trims_and_tracks_names)
{
	struct nic_ethtool *e = nic_ethtool_new_text();
	const char *a = "NIC statistics:\n"
			"     rx_packets: 1\n"
			"     tx_pause_storm_warning_events : 7\n"
			"     garbage line\n"
			"     rx_prio3_pause: 18446744073709551615\n";
	ck_assert_int_eq(nic_ethtool_parse(e, a, strlen(a)), 0);
	ck_assert_uint_eq(nic_ethtool_count(e), 3);
	ck_assert_str_eq(nic_ethtool_name(e, 1),
			 "tx_pause_storm_warning_events");
	ck_assert_uint_eq(nic_ethtool_name_len(e, 1), 29);
	ck_assert_uint_eq(nic_ethtool_value(e, 1), 7);
	ck_assert_uint_eq(nic_ethtool_value(e, 2), UINT64_MAX);
	uint64_t g = nic_ethtool_names_gen(e);

	/* the same names with new values: same generation */
	const char *b = "NIC statistics:\n"
			"     rx_packets: 2\n"
			"     tx_pause_storm_warning_events: 8\n"
			"     rx_prio3_pause: 5\n";
	ck_assert_int_eq(nic_ethtool_parse(e, b, strlen(b)), 0);
	ck_assert_uint_eq(nic_ethtool_names_gen(e), g);
	ck_assert_uint_eq(nic_ethtool_value(e, 0), 2);

	/* a priority more (PFC enabled on 4): a new generation */
	const char *c = "NIC statistics:\n"
			"     rx_packets: 3\n"
			"     tx_pause_storm_warning_events: 8\n"
			"     rx_prio3_pause: 6\n"
			"     rx_prio4_pause: 1\n";
	ck_assert_int_eq(nic_ethtool_parse(e, c, strlen(c)), 0);
	ck_assert_uint_ne(nic_ethtool_names_gen(e), g);
	g = nic_ethtool_names_gen(e);
	ck_assert_uint_eq(nic_ethtool_count(e), 4);
	/* and one fewer */
	ck_assert_int_eq(nic_ethtool_parse(e, b, strlen(b)), 0);
	ck_assert_uint_ne(nic_ethtool_names_gen(e), g);
	ck_assert_uint_eq(nic_ethtool_count(e), 3);

	ck_assert_int_eq(nic_ethtool_parse(e, "rx: 1\n", 6), -EINVAL);
	nic_ethtool_free(e);
	nic_ethtool_free(NULL);
}
END_TEST

START_TEST(test_ethtool_file_missing_is_an_error)
{
	struct nic_ethtool *e = nic_ethtool_new_file("/nonexistent/ens0");
	ck_assert_int_eq(nic_ethtool_read(e), -ENOENT);
	ck_assert_uint_eq(nic_ethtool_count(e), 0);
	nic_ethtool_free(e);
	e = nic_ethtool_new_ioctl("fabmon-no-such-if0");
	int rc = nic_ethtool_read(e);
	ck_assert_msg(rc == -ENODEV, "rc %d", rc);
	nic_ethtool_free(e);
}
END_TEST

/*
 * Config.
 */

static struct cfg *load(const char *yaml)
{
	return cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", yaml,
			       strlen(yaml), err, sizeof err);
}

START_TEST(test_cfg_hosts_form)
{
	struct cfg *c = load("nic:\n"
			     "  interval: 100ms\n"
			     "  hosts:\n"
			     "    - device: h1\n"
			     "      sysfs_root: /d/h1/sys\n"
			     "      ethtool_dir: /d/h1/ethtool\n"
			     "    - {device: h2, sysfs_root: /d/h2/sys}\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert(nic_cfg_of(c)->enabled);
	ck_assert_uint_eq(nic_cfg_of(c)->interval_ns, 100000000);
	ck_assert_uint_eq(nic_cfg_of(c)->n_hosts, 2);
	ck_assert_str_eq(nic_cfg_of(c)->hosts[0].device, "h1");
	ck_assert_str_eq(nic_cfg_of(c)->hosts[0].sysfs_root, "/d/h1/sys");
	ck_assert_str_eq(nic_cfg_of(c)->hosts[0].ethtool_dir, "/d/h1/ethtool");
	ck_assert_str_eq(nic_cfg_of(c)->hosts[1].device, "h2");
	ck_assert_ptr_null(nic_cfg_of(c)->hosts[1].ethtool_dir);
	cfg_free(c);

	c = load("nic: {enabled: false, hosts: [{device: a, sysfs_root: /s}]}"
		 "\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert(!nic_cfg_of(c)->enabled);
	ck_assert_uint_eq(nic_cfg_of(c)->n_hosts, 1);
	cfg_free(c);

	/* the single-host form stays as it was */
	c = load("nic: {enabled: true, device: me, sysfs_root: /x}\n");
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(nic_cfg_of(c)->n_hosts, 0);
	ck_assert_str_eq(nic_cfg_of(c)->device, "me");
	cfg_free(c);
}
END_TEST

static const struct {
	const char *yaml, *msg;
} bad_cfg[] = {
	{ "nic:\n  hosts:\n    - device: h1\n",
	  "t.yaml:3:7: nic.hosts[0]: missing required key \"sysfs_root\"" },
	{ "nic:\n  hosts:\n    - sysfs_root: /s\n",
	  "t.yaml:3:7: nic.hosts[0]: missing required key \"device\"" },
	{ "nic:\n  hosts:\n    - {device: h1, sysfs_root: /a}\n"
	  "    - {device: h1, sysfs_root: /b}\n",
	  "t.yaml:4:16: nic.hosts[1].device: duplicate nic host \"h1\" (first "
	  "at 3:16)" },
	{ "nic:\n  hosts: []\n",
	  "t.yaml:2:10: nic.hosts: needs at least one host" },
	{ "nic:\n  hosts: {device: h1}\n",
	  "t.yaml:2:10: nic.hosts: expected a list" },
	{ "nic:\n  sysfs_root: /s\n  hosts: [{device: h1, sysfs_root: /a}]\n",
	  "t.yaml:2:15: nic.sysfs_root: not allowed with hosts (set it per "
	  "host)" },
	{ "nic:\n  hosts: [{device: 'h 1', sysfs_root: /a}]\n",
	  "t.yaml:2:20: nic.hosts[0].device: \"h 1\" is not a valid name (1 to "
	  "64 characters of A-Z a-z 0-9 . _ : -)" },
	{ "nic:\n  hosts: [{device: h1, sysfs_root: ''}]\n",
	  "t.yaml:2:36: nic.hosts[0].sysfs_root: must not be empty" },
	{ "nic:\n  hosts: [{device: h1, sysfs_root: /a, ethtool: /e}]\n",
	  "t.yaml:2:40: nic.hosts[0].ethtool: unknown key" },
};

START_TEST(test_cfg_hosts_errors)
{
	struct cfg *c = load(bad_cfg[_i].yaml);
	ck_assert_msg(c == NULL, "loaded: %s", bad_cfg[_i].yaml);
	ck_assert_str_eq(err, bad_cfg[_i].msg);
}
END_TEST

/*
 * A host read from trees.
 */

struct fx {
	struct store *st;
	struct health *hl;
	struct ident_table *id;
	struct nic_host *h;
};

/* The link table hosts opened next report their MACs to (NULL: none). */
static struct links *fx_links;

static void fx_open(struct fx *f, const char *device, const char *root,
		    const char *ethtool)
{
	f->st = store_new(NULL);
	f->hl = health_new();
	f->id = ident_table_new();
	struct nic_host_opts o = {
		.store = f->st,
		.health = health_target(f->hl, device, "nic"),
		.device = device,
		.sysfs_root = root,
		.ethtool_dir = ethtool,
		.links = fx_links,
		.ident = f->id,
		.interval_ms = 100,
	};
	f->h = nic_host_new(&o);
}

static void fx_close(struct fx *f)
{
	nic_host_free(f->h);
	/* The host withdrew its identities. */
	struct ident_port *l;
	ck_assert_uint_eq(ident_list(f->id, &l), 0);
	ident_table_free(f->id);
	health_free(f->hl);
	store_free(f->st);
}

static struct health_target_info *health_of(struct fx *f, size_t *n)
{
	struct health_target_info *v;
	*n = health_snapshot(f->hl, &v);
	ck_assert_uint_eq(*n, 1);
	return v;
}

START_TEST(test_procfs_fixture_values_and_units)
{
	struct fx f;
	fx_open(&f, "ib1", srcpath("tests/data/nic-procfs-mlx5/sys"), NULL);
	ck_assert_int_gt(nic_host_poll(f.h), 0);
	ck_assert_uint_eq(nic_host_n_ports(f.h), 1);
	ck_assert_str_eq(nic_host_port_label(f.h, 0), "mlx5_0");
	ck_assert_str_eq(nic_host_port_netdev(f.h, 0), "");
	/* 4-byte words to bytes */
	struct store_sample s = get(f.st, "ib1", "mlx5_0", FM_C_BYTES_TX, 0);
	ck_assert(s.value == 2880761508848.0 * 4);
	ck_assert_uint_eq(s.raw, 2880761508848);
	s = get(f.st, "ib1", "mlx5_0", FM_C_BYTES_RX, 0);
	ck_assert(s.value == 18126345378.0 * 4);
	s = get(f.st, "ib1", "mlx5_0", FM_C_PACKETS_TX, 0);
	ck_assert(s.value == 10907922116.0);
	s = get(f.st, "ib1", "mlx5_0", FM_C_RDMA_ACK_TIMEOUTS, 0);
	ck_assert(s.value == 131);
	s = get(f.st, "ib1", "mlx5_0", FM_C_RDMA_ADAPTIVE_RETRANS, 0);
	ck_assert(s.value == 99);
	s = get(f.st, "ib1", "mlx5_0", FM_C_LINK_UP, 0);
	ck_assert(s.value == 1);
	s = get(f.st, "ib1", "mlx5_0", FM_C_LINK_SPEED, 0);
	ck_assert(s.value == 25e9 / 8);
	/* an IB port without ethtool: the PMA discard and link counters */
	ck_assert(has(f.st, "ib1", "mlx5_0", FM_C_DISCARDS_TX, 0));
	ck_assert(has(f.st, "ib1", "mlx5_0", FM_C_LINK_DOWN_EVENTS, 0));
	/* no congestion counters in this fixture */
	ck_assert(!has(f.st, "ib1", "mlx5_0", FM_C_CNP_SENT, 0));
	size_t n;
	struct health_target_info *v = health_of(&f, &n);
	ck_assert(v[0].up);
	ck_assert_str_eq(v[0].protocol, "nic");
	ck_assert_uint_gt(v[0].counters[HEALTH_C_UPDATES], 10);
	ck_assert_uint_gt(v[0].counters[HEALTH_C_UNMAPPED], 0);
	ck_assert_uint_eq(v[0].counters[HEALTH_C_ERRORS], 0);
	health_snapshot_free(v, n);
	fx_close(&f);
}
END_TEST

static struct fx roce;

static void roce_setup(void)
{
	make_tmpdir();
	char to[4200];
	PATHF(to, "%s/t", tmpdir);
	copy_tree(srcpath("tests/data/nic-roce"), to);
	snprintf(tmpdir + strlen(tmpdir), sizeof tmpdir - strlen(tmpdir), "/t");
	char root[4200], eth[4200];
	PATHF(root, "%s/sys", tmpdir);
	PATHF(eth, "%s/ethtool", tmpdir);
	fx_open(&roce, "h1", root, eth);
}

static void roce_teardown(void)
{
	fx_close(&roce);
	*strrchr(tmpdir, '/') = '\0';
	remove_tree(tmpdir);
}

#define M0 "sys/class/infiniband/mlx5_0/ports/1/"

START_TEST(test_roce_tree_ports_and_values)
{
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert_uint_eq(nic_host_n_ports(roce.h), 3);
	ck_assert_str_eq(nic_host_port_label(roce.h, 0), "mlx5_0");
	ck_assert_str_eq(nic_host_port_netdev(roce.h, 0), "ens1f0np0");
	/* netdev from the device's net/ directory */
	ck_assert_str_eq(nic_host_port_netdev(roce.h, 1), "ens1f1np1");
	ck_assert_str_eq(nic_host_port_label(roce.h, 2), "rxe0");
	/* The same identities reach the exporters' table. */
	struct ident_port *ids;
	size_t n_ids = ident_list(roce.id, &ids);
	const struct ident_port *id = ident_find(ids, n_ids, "h1", "mlx5_1");
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(id->netdev, "ens1f1np1");
	ck_assert_str_eq(id->rdma_device, "mlx5_1");
	ck_assert_uint_eq(id->rdma_port, 1);
	ck_assert_str_eq(id->link_layer, "Ethernet");
	ident_list_free(ids, n_ids);

	ck_assert(get(st, "h1", "mlx5_0", FM_C_CNP_SENT, 0).value == 800);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_CNP_HANDLED, 0).value == 700);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_CNP_IGNORED, 0).value == 3);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_ROCE_CE_RECEIVED, 0).value ==
		  900);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_RX_PAUSE, 3).value == 2.5);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_TX_PAUSE, 3).value == 0.75);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_RX_FRAMES, 3).value == 21);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_RX_TRANSITIONS, 3).value ==
		  23);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PRIO_DISCARDS_RX, 3).value ==
		  19);
	/* the trailing-space name of old kernels */
	ck_assert(get(st, "h1", "mlx5_0", FM_C_NIC_STORM_WARNINGS, 0).value ==
		  24);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_NIC_STORM_ERRORS, 0).value ==
		  25);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_NIC_BUFFER_THRESHOLD, 0).value ==
		  15);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_NIC_PCIE_STALLED_RX, 0).value ==
		  18);
	/* RoCE: discards and link events come from ethtool, not the PMA */
	ck_assert(get(st, "h1", "mlx5_0", FM_C_DISCARDS_TX, 0).value == 14);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_LINK_DOWN_EVENTS, 0).value == 2);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_BYTES_TX, 0).value == 4e6);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_LINK_SPEED, 0).value == 5e10);
	/* down port, "N/A (no PMA)" counters: no series, no error */
	ck_assert(get(st, "h1", "mlx5_1", FM_C_LINK_UP, 0).value == 0);
	ck_assert(!has(st, "h1", "mlx5_1", FM_C_BYTES_TX, 0));
	ck_assert(has(st, "h1", "mlx5_1", FM_C_PFC_RX_PAUSE, 4));
	/* non-mlx5 (rxe): link state only, nothing fails */
	ck_assert(get(st, "h1", "rxe0", FM_C_LINK_UP, 0).value == 1);
	size_t n;
	struct health_target_info *v = health_of(&roce, &n);
	ck_assert(v[0].up);
	ck_assert_uint_eq(v[0].counters[HEALTH_C_ERRORS], 0);
	ck_assert_uint_eq(v[0].counters[HEALTH_C_DECODE_ERRORS], 0);
	health_snapshot_free(v, n);
}
END_TEST

START_TEST(test_q_counter_wraps_without_spike)
{
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	struct store_sample a =
	    get(st, "h1", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0);
	ck_assert(a.value == 4294967000.0);
	pause_ms(20);
	/* 4294967000 + 396 wraps to 100 in a 32-bit q-counter */
	put(M0 "hw_counters/out_of_buffer", "100\n");
	uint64_t r0 = resets(st);
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	struct store_sample b =
	    get(st, "h1", "mlx5_0", FM_C_NIC_OUT_OF_BUFFER, 0);
	ck_assert_msg(b.value == a.value + 396, "%f", b.value);
	ck_assert(b.has_rate);
	ck_assert(b.rate > 0 && b.rate < 396 / 0.019);
	ck_assert_uint_eq(resets(st), r0);
}
END_TEST

START_TEST(test_reset_gives_no_spike)
{
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	pause_ms(20);
	put(M0 "hw_counters/np_cnp_sent", "850\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	struct store_sample a = get(st, "h1", "mlx5_0", FM_C_CNP_SENT, 0);
	ck_assert(a.value == 850);
	ck_assert(a.has_rate && a.rate > 0);
	/* the driver was reloaded: the 64-bit counter starts again */
	pause_ms(20);
	uint64_t r0 = resets(st);
	put(M0 "hw_counters/np_cnp_sent", "5\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	struct store_sample b = get(st, "h1", "mlx5_0", FM_C_CNP_SENT, 0);
	ck_assert(b.value == 850);
	ck_assert(!b.has_rate);
	ck_assert_uint_eq(resets(st), r0 + 1);
	/* then it counts on from the new base */
	pause_ms(20);
	put(M0 "hw_counters/np_cnp_sent", "15\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	b = get(st, "h1", "mlx5_0", FM_C_CNP_SENT, 0);
	ck_assert(b.value == 860);
}
END_TEST

START_TEST(test_implausible_jump_is_not_a_rate)
{
	/* A pause duration cannot grow faster than 1 s per second. */
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	pause_ms(20);
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);
	char path[4200];
	PATHF(path, "%s/ethtool/ens1f0np0", tmpdir);
	FILE *in = fopen(path, "r");
	char line[256];
	while (fgets(line, sizeof line, in)) {
		if (strstr(line, "rx_prio3_pause_duration:"))
			fputs("     rx_prio3_pause_duration: 99999999999\n",
			      mf);
		else
			fputs(line, mf);
	}
	fclose(in);
	fclose(mf);
	put("ethtool/ens1f0np0", text);
	free(text);
	uint64_t r0 = resets(st);
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	struct store_sample s = get(st, "h1", "mlx5_0", FM_C_PFC_RX_PAUSE, 3);
	ck_assert(s.value == 2.5);
	ck_assert(!s.has_rate);
	ck_assert_uint_eq(resets(st), r0 + 1);
}
END_TEST

START_TEST(test_ethtool_name_churn)
{
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert(!has(st, "h1", "mlx5_0", FM_C_PFC_RX_PAUSE, 5));
	pause_ms(20);
	/* PFC enabled on priority 5: its lines come first, every index
	   after them moves */
	put("ethtool/ens1f0np0", "NIC statistics:\n"
				 "     rx_prio5_pause: 1\n"
				 "     rx_prio5_pause_duration: 1000\n"
				 "     tx_prio5_pause: 0\n"
				 "     tx_prio5_pause_duration: 0\n"
				 "     rx_prio5_pause_transition: 1\n"
				 "     rx_prio3_pause: 31\n"
				 "     rx_prio3_pause_duration: 2510000\n"
				 "     tx_prio3_pause: 22\n"
				 "     tx_prio3_pause_duration: 750000\n"
				 "     rx_prio3_pause_transition: 33\n"
				 "     tx_discards_phy: 14\n");
	uint64_t r0 = resets(st);
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_RX_PAUSE, 5).value == 0.001);
	struct store_sample s = get(st, "h1", "mlx5_0", FM_C_PFC_RX_PAUSE, 3);
	ck_assert_msg(s.value > 2.509 && s.value < 2.511, "%f", s.value);
	ck_assert(s.has_rate);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_PFC_RX_FRAMES, 3).value == 31);
	ck_assert(get(st, "h1", "mlx5_0", FM_C_DISCARDS_TX, 0).value == 14);
	ck_assert_uint_eq(resets(st), r0);
}
END_TEST

START_TEST(test_na_then_value_and_removed_file)
{
	struct store *st = roce.st;
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	size_t files = nic_host_n_files(roce.h);
	put("sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_data",
	    "N/A (no PMA)\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert(!has(st, "h1", "mlx5_1", FM_C_BYTES_TX, 0));
	put("sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_data",
	    "10\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert(get(st, "h1", "mlx5_1", FM_C_BYTES_TX, 0).value == 40);

	/* A file that goes away is dropped at the next scan; the ethtool
	   file going away is an error, counted, and the rest reads on. */
	char path[4200];
	PATHF(path, "%s/" M0 "hw_counters/np_cnp_sent", tmpdir);
	ck_assert_int_eq(unlink(path), 0);
	PATHF(path, "%s/ethtool/ens1f0np0", tmpdir);
	ck_assert_int_eq(unlink(path), 0);
	nic_host_rescan(roce.h);
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert_uint_eq(nic_host_n_files(roce.h), files - 1);
	size_t n;
	struct health_target_info *v = health_of(&roce, &n);
	ck_assert(v[0].up);
	ck_assert_uint_eq(v[0].counters[HEALTH_C_ERRORS], 1);
	health_snapshot_free(v, n);
}
END_TEST

START_TEST(test_multi_port_device_names_its_ports)
{
	/* mlx5_1 grows a second port: both are named with their number,
	   and the MAC of a port is known from its netdev */
	char path[4200];
	PATHF(path, "%s/sys/class/infiniband/mlx5_1/ports/2", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	put("sys/class/infiniband/mlx5_1/ports/2/state", "4: ACTIVE\n");
	ck_assert_int_gt(nic_host_poll(roce.h), 0);
	ck_assert_uint_eq(nic_host_n_ports(roce.h), 4);
	ck_assert_str_eq(nic_host_port_label(roce.h, 0), "mlx5_0");
	ck_assert_str_eq(nic_host_port_mac(roce.h, 0), "b8:3f:d2:a0:00:01");
	ck_assert_str_eq(nic_host_port_label(roce.h, 1), "mlx5_1/1");
	ck_assert_str_eq(nic_host_port_label(roce.h, 2), "mlx5_1/2");
	ck_assert_str_eq(nic_host_port_mac(roce.h, 3), "");
	ck_assert(get(roce.st, "h1", "mlx5_1/2", FM_C_LINK_UP, 0).value == 1);
	ck_assert(get(roce.st, "h1", "mlx5_1/1", FM_C_LINK_UP, 0).value == 0);
}
END_TEST

START_TEST(test_no_rdma_devices_idles_with_one_line)
{
	make_tmpdir();
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	log_set_fd(fds[1]);
	struct fx f;
	fx_open(&f, "bare", tmpdir, NULL);
	for (int i = 0; i < 3; i++) {
		nic_host_rescan(f.h);
		ck_assert_int_eq(nic_host_poll(f.h), 0);
	}
	log_set_fd(-1);
	char buf[4096];
	ssize_t r = read(fds[0], buf, sizeof buf - 1);
	ck_assert_int_gt(r, 0);
	buf[r] = '\0';
	const char *p = strstr(buf, "no RDMA devices under");
	ck_assert_msg(p != NULL, "%s", buf);
	ck_assert_ptr_null(strstr(p + 1, "no RDMA devices under"));
	size_t n;
	struct health_target_info *v = health_of(&f, &n);
	ck_assert(!v[0].up);
	ck_assert_str_eq(v[0].last_error, "no RDMA devices");
	health_snapshot_free(v, n);
	fx_close(&f);
	close(fds[0]);
	close(fds[1]);
	rmdir(tmpdir);
}
END_TEST

/*
 * The collector: its thread, reload and stop, in process.
 */

/* Waits (a bound, not a timing check) until the series exists. */
static bool appears(struct store *st, const char *dev, const char *port,
		    enum fm_counter c)
{
	for (int i = 0; i < 200; i++) {
		if (has(st, dev, port, c, 0))
			return true;
		pause_ms(25);
	}
	return false;
}

static size_t health_entries(struct health *hl, const char *target)
{
	struct health_target_info *v;
	size_t n = health_snapshot(hl, &v), k = 0;
	for (size_t i = 0; i < n; i++)
		k += strcmp(v[i].target, target) == 0;
	health_snapshot_free(v, n);
	return k;
}

START_TEST(test_collector_reload_converges)
{
	char yaml[8192];
	const char *procfs = srcpath("tests/data/nic-procfs-mlx5/sys");
	char procfs_copy[4096];
	snprintf(procfs_copy, sizeof procfs_copy, "%s", procfs);
	PATHF(yaml,
	      "nic:\n  interval: 100ms\n  hosts:\n"
	      "    - {device: h1, sysfs_root: '%s/sys', ethtool_dir: "
	      "'%s/ethtool'}\n"
	      "    - {device: ib1, sysfs_root: '%s'}\n",
	      tmpdir, tmpdir, procfs_copy);
	struct cfg *c1 = load(yaml);
	ck_assert_msg(c1 != NULL, "%s", err);
	struct ident_table *ids = ident_table_new();
	struct collector_env env = { .store = roce.st,
				     .health = roce.hl,
				     .ident = ids };
	void *state = NULL;
	ck_assert_int_eq(nic_collector_ops.start(&env, c1, &state), 0);
	ck_assert(appears(roce.st, "ib1", "mlx5_0", FM_C_BYTES_RX));
	/* The collector's hosts publish into the table it was given, not
	 * into the fixture's. */
	struct ident_port *l;
	size_t n = ident_list(ids, &l);
	ck_assert_ptr_nonnull(ident_find(l, n, "ib1", "mlx5_0"));
	ck_assert_ptr_nonnull(ident_find(l, n, "h1", "mlx5_1"));
	ident_list_free(l, n);
	n = ident_list(roce.id, &l);
	ck_assert_ptr_null(ident_find(l, n, "ib1", "mlx5_0"));
	ident_list_free(l, n);
	ck_assert(appears(roce.st, "h1", "mlx5_0", FM_C_CNP_SENT));
	ck_assert_uint_eq(health_entries(roce.hl, "ib1"), 1);

	/* ib1 leaves, h2 comes (the same tree under another label) */
	PATHF(yaml,
	      "nic:\n  interval: 100ms\n  hosts:\n"
	      "    - {device: h1, sysfs_root: '%s/sys', ethtool_dir: "
	      "'%s/ethtool'}\n"
	      "    - {device: h2, sysfs_root: '%s/sys'}\n",
	      tmpdir, tmpdir, tmpdir);
	struct cfg *c2 = load(yaml);
	ck_assert_msg(c2 != NULL, "%s", err);
	ck_assert_int_eq(nic_collector_ops.reload(state, c2), 0);
	ck_assert(!has(roce.st, "ib1", "mlx5_0", FM_C_BYTES_RX, 0));
	ck_assert_uint_eq(health_entries(roce.hl, "ib1"), 0);
	ck_assert(appears(roce.st, "h2", "mlx5_0", FM_C_CNP_SENT));
	ck_assert_uint_eq(health_entries(roce.hl, "h2"), 1);

	/* disabled: every host goes */
	struct cfg *c3 = load("nic: {enabled: false}\n");
	ck_assert_msg(c3 != NULL, "%s", err);
	ck_assert_int_eq(nic_collector_ops.reload(state, c3), 0);
	ck_assert(!has(roce.st, "h2", "mlx5_0", FM_C_CNP_SENT, 0));
	ck_assert_uint_eq(health_entries(roce.hl, "h1"), 0);
	/* Hosts that left withdrew their identities. */
	ck_assert_uint_eq(ident_list(ids, &l), 0);
	nic_collector_ops.stop(state);
	ident_table_free(ids);
	cfg_free(c1);
	cfg_free(c2);
	cfg_free(c3);
}
END_TEST

/*
 * fabsim's writer, read back.
 */

START_TEST(test_nicfs_hosts_argument)
{
	struct sim_topo_gen g = {
		.spines = 1, .leaves = 2, .hosts = 4, .nics = 1
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	make_tmpdir();
	struct sim_nicfs *w =
	    sim_nicfs_new(t, tmpdir, "host2,host0", err, sizeof err);
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_uint_eq(sim_nicfs_n_hosts(w), 2);
	ck_assert_str_eq(sim_nicfs_host(w, 0)->name, "host0");
	ck_assert_str_eq(sim_nicfs_host(w, 1)->name, "host2");
	ck_assert_ptr_null(sim_nicfs_host(w, 2));
	sim_nicfs_free(w);
	w = sim_nicfs_new(t, tmpdir, "none", err, sizeof err);
	ck_assert_uint_eq(sim_nicfs_n_hosts(w), 0);
	sim_nicfs_free(w);
	w = sim_nicfs_new(t, tmpdir, NULL, err, sizeof err);
	ck_assert_uint_eq(sim_nicfs_n_hosts(w), 4);
	sim_nicfs_free(w);
	ck_assert_ptr_null(sim_nicfs_new(t, tmpdir, "leaf0", err, sizeof err));
	ck_assert_str_eq(err, "nic hosts: leaf0 is not a host (it is a "
			      "switch)");
	ck_assert_ptr_null(sim_nicfs_new(t, tmpdir, "hostX", err, sizeof err));
	ck_assert_str_eq(err, "nic hosts: hostX is not a node of the "
			      "topology");
	sim_nicfs_free(NULL);
	remove_tree(tmpdir);
	sim_topo_free(t);
}
END_TEST

/* The store's total of a series equals the model's counter. */
static void expect_value(struct store *st, const char *host, const char *port,
			 enum fm_counter c, unsigned sub, double want)
{
	struct store_sample s = get(st, host, port, c, sub);
	/* totals add scaled deltas: equal up to rounding */
	double tol = fabs(want) * 1e-12;
	ck_assert_msg(fabs(s.value - want) <= tol, "%s %s %s/%u: %.9g != %.9g",
		      host, port, fm_counter_info(c)->name, sub, s.value, want);
}

START_TEST(test_nicfs_tree_reads_back_as_the_model)
{
	/* host0..3 on leaf0, host4..7 on leaf1: three senders into one
	   receiver whose drain is slow: ECN, CNPs and PFC from its NIC. */
	struct sim_topo_gen g = {
		.spines = 2, .leaves = 2, .hosts = 8, .nics = 1
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(t != NULL, "%s", err);
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	size_t dst = sim_topo_tier_node(t, SIM_NODE_HOST, 4)->ports[0].id;
	for (size_t h = 0; h < 3; h++) {
		struct sim_model_flow f = {
			sim_topo_tier_node(t, SIM_NODE_HOST, h)->ports[0].id,
			dst,
			3,
			400,
			NULL,
			0
		};
		ck_assert_int_ge(sim_model_add_flow(m, &f), 0);
	}
	struct sim_model_nic_cfg nc;
	ck_assert_int_eq(sim_model_get_nic_cfg(m, dst, &nc), 0);
	nc.rx_drain = 0.5;
	ck_assert_int_eq(sim_model_set_nic_cfg(m, dst, &nc), 0);

	make_tmpdir();
	struct sim_nicfs *w =
	    sim_nicfs_new(t, tmpdir, "host0,host4", err, sizeof err);
	ck_assert_msg(w != NULL, "%s", err);
	struct fx f0, f4;
	struct links *links = links_new(NULL, NULL);
	char root[4200], eth[4200];
	PATHF(root, "%s/host0/sys", tmpdir);
	PATHF(eth, "%s/host0/ethtool", tmpdir);
	fx_open(&f0, "host0", root, eth);
	PATHF(root, "%s/host4/sys", tmpdir);
	PATHF(eth, "%s/host4/ethtool", tmpdir);
	fx_links = links;
	fx_open(&f4, "host4", root, eth);
	fx_links = NULL;

	/* Model time must not run ahead of the wall clock: the store caps
	   rates at line rate, as fabsim's real-time ticks keep them. */
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 10; i++)
			ck_assert_int_eq(sim_model_step(m, 1000000), 0);
		ck_assert_int_eq(sim_nicfs_write(w, m), 0);
		ck_assert_int_gt(nic_host_poll(f0.h), 0);
		ck_assert_int_gt(nic_host_poll(f4.h), 0);
		pause_ms(12);
	}
	ck_assert_uint_eq(nic_host_n_ports(f4.h), 1);
	ck_assert_str_eq(
	    nic_host_port_netdev(f4.h, 0),
	    sim_topo_tier_node(t, SIM_NODE_HOST, 4)->ports[0].netdev);
	struct sim_model_nic_port s, r;
	size_t src = sim_topo_tier_node(t, SIM_NODE_HOST, 0)->ports[0].id;
	ck_assert_int_eq(sim_model_read_nic_port(m, src, &s), 0);
	ck_assert_int_eq(sim_model_read_nic_port(m, dst, &r), 0);
	const char *P = "mlx5_0";
	/* the scenario did what it should, so the checks below mean
	   something */
	ck_assert_uint_gt(s.port_xmit_data, 0);
	ck_assert_uint_gt(s.rp_cnp_handled, 0);
	ck_assert_uint_gt(r.np_cnp_sent, 0);
	ck_assert_uint_gt(r.tx_prio_pause_duration[3], 0);

	expect_value(f0.st, "host0", P, FM_C_BYTES_TX, 0,
		     (double)s.port_xmit_data * 4);
	expect_value(f0.st, "host0", P, FM_C_PACKETS_TX, 0,
		     (double)s.port_xmit_packets);
	expect_value(f0.st, "host0", P, FM_C_CNP_HANDLED, 0,
		     (double)s.rp_cnp_handled);
	expect_value(f0.st, "host0", P, FM_C_PRIO_BYTES_TX, 3,
		     (double)s.tx_prio_bytes[3]);
	expect_value(f0.st, "host0", P, FM_C_PFC_RX_PAUSE, 3,
		     (double)s.rx_prio_pause_duration[3] * 1e-6);
	expect_value(f0.st, "host0", P, FM_C_PFC_RX_FRAMES, 3,
		     (double)s.rx_prio_pause[3]);
	expect_value(f4.st, "host4", P, FM_C_BYTES_RX, 0,
		     (double)r.port_rcv_data * 4);
	expect_value(f4.st, "host4", P, FM_C_CNP_SENT, 0,
		     (double)r.np_cnp_sent);
	expect_value(f4.st, "host4", P, FM_C_ROCE_CE_RECEIVED, 0,
		     (double)r.np_ecn_marked_roce_packets);
	expect_value(f4.st, "host4", P, FM_C_PFC_TX_PAUSE, 3,
		     (double)r.tx_prio_pause_duration[3] * 1e-6);
	expect_value(f4.st, "host4", P, FM_C_PFC_TX_FRAMES, 3,
		     (double)r.tx_prio_pause[3]);
	expect_value(f4.st, "host4", P, FM_C_PRIO_BYTES_RX, 3,
		     (double)r.rx_prio_bytes[3]);
	expect_value(f4.st, "host4", P, FM_C_NIC_OUT_OF_BUFFER, 0,
		     (double)r.out_of_buffer);
	expect_value(f4.st, "host4", P, FM_C_LINK_UP, 0, 1);
	expect_value(f4.st, "host4", P, FM_C_LINK_SPEED, 0, 400e9 / 8);
	/* rates came out of the deltas */
	ck_assert(get(f4.st, "host4", P, FM_C_PFC_TX_PAUSE, 3).has_rate);

	/* The NIC's MAC went to the link table: the leaf's LLDP neighbour,
	   which a NIC announces by MAC, resolves to host4:mlx5_0. */
	const struct sim_port *np =
	    &sim_topo_tier_node(t, SIM_NODE_HOST, 4)->ports[0];
	char mac[32], pd[64], pp[64];
	snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", np->mac[0],
		 np->mac[1], np->mac[2], np->mac[3], np->mac[4], np->mac[5]);
	ck_assert_str_eq(nic_host_port_mac(f4.h, 0), mac);
	ck_assert_int_eq(links_report_lldp(links, np->peer->node->name,
					   np->peer->name, "host4", mac,
					   LINKS_LLDP_PORT_MAC, np->netdev,
					   "test", 0),
			 0);
	ck_assert(links_peer(links, np->peer->node->name, np->peer->name, pd,
			     sizeof pd, pp, sizeof pp));
	ck_assert_str_eq(pd, "host4");
	ck_assert_str_eq(pp, "mlx5_0");

	/* a link going down shows in the state file */
	ck_assert_int_eq(sim_model_set_link(m, dst, false), 0);
	ck_assert_int_eq(sim_model_step(m, 1000000), 0);
	ck_assert_int_eq(sim_nicfs_write(w, m), 0);
	ck_assert_int_gt(nic_host_poll(f4.h), 0);
	expect_value(f4.st, "host4", P, FM_C_LINK_UP, 0, 0);

	fx_close(&f0);
	fx_close(&f4);
	links_free(links);
	sim_nicfs_free(w);
	remove_tree(tmpdir);
	sim_model_free(m);
	sim_topo_free(t);
}
END_TEST

START_TEST(test_ident_table_publish_replace_withdraw)
{
	int a = 0, b = 0; /* owner tokens: their addresses */
	struct ident_port pa[] = {
		{ "hostb", "mlx5_1", "mlx5_1", 1, "ens1f1np1", "Ethernet" },
		{ "hostb", "mlx5_0", "mlx5_0", 1, "ens1f0np0", "Ethernet" },
	};
	struct ident_port pb[] = {
		{ "hosta", "mlx5_0/2", "mlx5_0", 2, "", "InfiniBand" },
		/* the same key as one of a's: listed once */
		{ "hostb", "mlx5_0", "mlx5_0", 1, "other", "Ethernet" },
	};
	struct ident_table *t = ident_table_new();
	struct ident_port *l;
	ident_publish(t, &a, pa, 2);
	ident_publish(t, &b, pb, 2);
	size_t n = ident_list(t, &l);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(l[0].device, "hosta");
	ck_assert_str_eq(l[0].port, "mlx5_0/2");
	ck_assert_uint_eq(l[0].rdma_port, 2);
	ck_assert_str_eq(l[1].port, "mlx5_0");
	ck_assert_str_eq(l[2].port, "mlx5_1");
	const struct ident_port *f = ident_find(l, n, "hostb", "mlx5_1");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->netdev, "ens1f1np1");
	ck_assert_ptr_null(ident_find(l, n, "hostb", "mlx5_2"));
	ck_assert_ptr_null(ident_find(l, n, "hostc", "mlx5_0"));
	ident_list_free(l, n);

	/* A rescan replaces a's entries: mlx5_1 went. */
	ident_publish(t, &a, pa + 1, 1);
	n = ident_list(t, &l);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_null(ident_find(l, n, "hostb", "mlx5_1"));
	ck_assert_ptr_nonnull(ident_find(l, n, "hostb", "mlx5_0"));
	ident_list_free(l, n);

	/* Withdrawing b leaves a's alone, even for a shared key. */
	ident_withdraw(t, &b);
	n = ident_list(t, &l);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].netdev, "ens1f0np0");
	ident_list_free(l, n);
	ident_withdraw(t, &a);
	ck_assert_uint_eq(ident_list(t, &l), 0);
	ck_assert_ptr_null(l);
	ident_table_free(t);
	/* No table: nothing to list. */
	ck_assert_uint_eq(ident_list(NULL, &l), 0);
	ck_assert_ptr_null(l);
	ident_table_free(NULL);
}
END_TEST

/* Two tables share nothing: the same owner publishes into both, and
 * withdrawing from one, or freeing it with entries in it, leaves the
 * other whole. */
START_TEST(test_ident_tables_are_independent)
{
	int owner = 0;
	struct ident_port p1[] = {
		{ "h1", "mlx5_0", "mlx5_0", 1, "eth0", "Ethernet" },
	};
	struct ident_port p2[] = {
		{ "h2", "mlx5_0", "mlx5_0", 1, "eth9", "Ethernet" },
		{ "h2", "mlx5_1", "mlx5_1", 1, "eth8", "InfiniBand" },
	};
	struct ident_table *t1 = ident_table_new();
	struct ident_table *t2 = ident_table_new();
	ident_publish(t1, &owner, p1, 1);
	ident_publish(t2, &owner, p2, 2);
	struct ident_port *l;
	size_t n = ident_list(t1, &l);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].netdev, "eth0");
	ident_list_free(l, n);
	n = ident_list(t2, &l);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_null(ident_find(l, n, "h1", "mlx5_0"));
	ident_list_free(l, n);

	ident_withdraw(t1, &owner);
	ck_assert_uint_eq(ident_list(t1, &l), 0);
	n = ident_list(t2, &l);
	ck_assert_uint_eq(n, 2);
	ident_list_free(l, n);

	/* Freed with entries in it (its own copies go with it). */
	ident_publish(t1, &owner, p1, 1);
	ident_table_free(t1);
	n = ident_list(t2, &l);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(l[1].link_layer, "InfiniBand");
	ident_list_free(l, n);
	ident_table_free(t2);
}
END_TEST

static Suite *nic_suite(void)
{
	Suite *s = suite_create("nic");
	TCase *tc = tcase_create("parsing");
	tcase_add_test(tc, test_map_units_and_widths);
	tcase_add_test(tc, test_value_parsing);
	tcase_add_test(tc, test_ethtool_text_trims_and_tracks_names);
	tcase_add_test(tc, test_ethtool_file_missing_is_an_error);
	tcase_add_test(tc, test_ident_table_publish_replace_withdraw);
	tcase_add_test(tc, test_ident_tables_are_independent);
	suite_add_tcase(s, tc);

	tc = tcase_create("cfg");
	tcase_add_test(tc, test_cfg_hosts_form);
	tcase_add_loop_test(tc, test_cfg_hosts_errors, 0,
			    (int)(sizeof bad_cfg / sizeof bad_cfg[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("trees");
	tcase_add_test(tc, test_procfs_fixture_values_and_units);
	tcase_add_test(tc, test_no_rdma_devices_idles_with_one_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("roce");
	tcase_add_checked_fixture(tc, roce_setup, roce_teardown);
	tcase_add_test(tc, test_roce_tree_ports_and_values);
	tcase_add_test(tc, test_q_counter_wraps_without_spike);
	tcase_add_test(tc, test_reset_gives_no_spike);
	tcase_add_test(tc, test_implausible_jump_is_not_a_rate);
	tcase_add_test(tc, test_ethtool_name_churn);
	tcase_add_test(tc, test_na_then_value_and_removed_file);
	tcase_add_test(tc, test_multi_port_device_names_its_ports);
	tcase_add_test(tc, test_collector_reload_converges);
	suite_add_tcase(s, tc);

	tc = tcase_create("nicfs");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_nicfs_hosts_argument);
	tcase_add_test(tc, test_nicfs_tree_reads_back_as_the_model);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nic_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
