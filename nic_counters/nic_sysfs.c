/*
 * nic_sysfs: listing RDMA ports and reading attribute values (see
 * nic_sysfs.h).
 */
#include "config.h"

#include "nic_sysfs.h"

#include "fmt.h"
#include "log.h"
#include "mem.h"
#include "rfile.h"

#include <infiniband/verbs.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small text attribute whole; returns its length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = rfile_open(path, NULL, 0); /* a FIFO must not block */
	if (fd < 0)
		return fd;
	ssize_t n = pread(fd, buf, size - 1, 0);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}

/* The attribute's first line without trailing blanks. */
static bool read_line(const char *path, char *out, size_t size)
{
	char buf[256];
	if (read_small(path, buf, sizeof buf) <= 0)
		return false;
	size_t n = strcspn(buf, "\n");
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	if (n == 0 || n >= size)
		return false;
	memcpy(out, buf, n);
	out[n] = '\0';
	return true;
}

static bool plain_name(const char *s)
{
	return s[0] && s[0] != '.' && strlen(s) < NIC_SYSFS_NAME_MAX &&
	       !strchr(s, '/');
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The netdev of a port: gid_attrs/ndevs/0, else the one entry of the
 * device's net/ directory (a directory in fabsim's tree, a link into
 * the PCI device in the kernel's). */
static void find_netdev(const char *devdir, unsigned num, char *out)
{
	char path[4096];
	out[0] = '\0';
	fmt_path(path, sizeof path, "%s/ports/%u/gid_attrs/ndevs/0", devdir,
		 num);
	if (read_line(path, out, NIC_SYSFS_NAME_MAX) && plain_name(out))
		return;
	out[0] = '\0';
	fmt_path(path, sizeof path, "%s/device/net", devdir);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (plain_name(e->d_name)) {
			fmt_path(out, NIC_SYSFS_NAME_MAX, "%s", e->d_name);
			break;
		}
	}
	closedir(d);
}

static int cmp_port(const void *a, const void *b)
{
	const struct nic_sysfs_port *p = a, *q = b;
	int d = strcmp(p->dev, q->dev);
	if (d)
		return d;
	return p->num < q->num ? -1 : p->num > q->num;
}

struct plist {
	struct nic_sysfs_port *v;
	size_t n, cap;
};

static void add_port(struct plist *l, const char *dev, unsigned num, bool verbs)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	struct nic_sysfs_port *p = &l->v[l->n++];
	memset(p, 0, sizeof *p);
	snprintf(p->dev, sizeof p->dev, "%s", dev);
	p->num = num;
	p->from_verbs = verbs;
}

/* The ports of one device from its ports/ directory. */
static void list_dev_ports(struct plist *l, const char *ibdir, const char *dev)
{
	char path[4096];
	fmt_path(path, sizeof path, "%s/%s/ports", ibdir, dev);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!all_digits(e->d_name) || strlen(e->d_name) > 3)
			continue;
		unsigned num = (unsigned)atoi(e->d_name);
		if (num >= 1)
			add_port(l, dev, num, false);
	}
	closedir(d);
}

/* Devices and port counts from libibverbs: the rdma-core view. Ports
 * whose sysfs directory is missing are dropped later (no counters). */
static void list_verbs(struct plist *l)
{
	int n = 0;
	struct ibv_device **devs = ibv_get_device_list(&n);
	if (!devs)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(devs[i]);
		if (!name || !plain_name(name))
			continue;
		struct ibv_context *ctx = ibv_open_device(devs[i]);
		if (!ctx)
			continue;
		struct ibv_device_attr da;
		if (ibv_query_device(ctx, &da) == 0) {
			for (unsigned p = 1; p <= da.phys_port_cnt; p++) {
				struct ibv_port_attr pa;
				if (ibv_query_port(ctx, (uint8_t)p, &pa))
					continue;
				add_port(l, name, p, true);
				l->v[l->n - 1].ethernet =
				    pa.link_layer == IBV_LINK_LAYER_ETHERNET;
			}
		}
		ibv_close_device(ctx);
	}
	ibv_free_device_list(devs);
}

int nic_sysfs_list_ports(const char *root, bool use_verbs,
			 struct nic_sysfs_port **out)
{
	char ibdir[4096];
	struct plist l = { 0 };
	*out = NULL;
	fmt_path(ibdir, sizeof ibdir, "%s/class/infiniband", root);

	if (use_verbs)
		list_verbs(&l);
	if (l.n == 0) {
		DIR *d = opendir(ibdir);
		if (!d)
			return -errno;
		struct dirent *e;
		while ((e = readdir(d)))
			if (plain_name(e->d_name))
				list_dev_ports(&l, ibdir, e->d_name);
		closedir(d);
	}
	if (l.n == 0) {
		free(l.v);
		return 0;
	}
	qsort(l.v, l.n, sizeof *l.v, cmp_port);
	for (size_t i = 0; i < l.n; i++) {
		struct nic_sysfs_port *p = &l.v[i];
		char devdir[4096], path[4200], ll[32];
		fmt_path(devdir, sizeof devdir, "%s/%s", ibdir, p->dev);
		if (!p->from_verbs) {
			fmt_path(path, sizeof path, "%s/ports/%u/link_layer",
				 devdir, p->num);
			p->ethernet = read_line(path, ll, sizeof ll) &&
				      strcmp(ll, "Ethernet") == 0;
		}
		find_netdev(devdir, p->num, p->netdev);
		unsigned k = 0;
		for (size_t j = 0; j < l.n; j++)
			k += strcmp(l.v[j].dev, p->dev) == 0;
		p->dev_ports = k;
	}
	*out = l.v;
	return (int)l.n;
}

int nic_sysfs_parse_value(const char *buf, size_t len, uint64_t *v)
{
	size_t i = 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	if (len - i >= 3 && memcmp(buf + i, "N/A", 3) == 0)
		return -ENODATA;
	if (i == len || !isdigit((unsigned char)buf[i]))
		return -EINVAL;
	uint64_t x = 0;
	for (; i < len && isdigit((unsigned char)buf[i]); i++) {
		unsigned d = (unsigned)(buf[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	for (; i < len; i++)
		if (!isspace((unsigned char)buf[i]) && buf[i] != '\0')
			return -EINVAL;
	*v = x;
	return 0;
}

int nic_sysfs_read_value(int fd, uint64_t *v)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof buf)
		return -EINVAL;
	return nic_sysfs_parse_value(buf, (size_t)n, v);
}

int nic_sysfs_parse_state(const char *buf, size_t len, unsigned *state)
{
	size_t i = 0;
	unsigned x = 0;
	while (i < len && buf[i] == ' ')
		i++;
	size_t start = i;
	for (; i < len && isdigit((unsigned char)buf[i]) && i - start < 4; i++)
		x = x * 10 + (unsigned)(buf[i] - '0');
	if (i == start || i == len || buf[i] != ':')
		return -EINVAL;
	*state = x;
	return 0;
}

int nic_sysfs_parse_rate(const char *buf, size_t len, double *gbps)
{
	char tmp[64];
	if (len == 0 || len >= sizeof tmp)
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	char *end;
	double g = strtod(tmp, &end);
	if (end == tmp || !(g >= 0) || g > 1e6)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (strncmp(end, "Gb/sec", 6) != 0)
		return -EINVAL;
	*gbps = g;
	return 0;
}
