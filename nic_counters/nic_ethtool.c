/*
 * nic_ethtool: ethtool statistics by ioctl or from a file (see
 * nic_ethtool.h).
 *
 * Names live in fixed slots of NAME_SLOT bytes (ETH_GSTRING_LEN is 32;
 * files may hold longer names, which are cut), values in a parallel
 * array. The ioctl buffers are sized for count + headroom and reused
 * while they fit.
 */
#include "config.h"

#include "nic_ethtool.h"

#include "mem.h"
#include "rfile.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_SLOT 64
#define ATTEMPTS  3

enum src { SRC_IOCTL, SRC_FILE, SRC_TEXT };

struct nic_ethtool {
	enum src src;
	char *where; /* ifname or path */
	int sock;    /* ioctl: an AF_INET datagram socket, -1 until used */

	char *names; /* n slots of NAME_SLOT */
	uint8_t *name_len;
	uint64_t *values;
	size_t n, cap;
	uint64_t gen;
	bool names_valid; /* ioctl: names match the last count */

	/* ioctl buffers */
	struct ethtool_gstrings *gs;
	size_t gs_cap; /* entries */
	struct ethtool_stats *st;
	size_t st_cap;
	uint64_t string_reads, zero_answers;

	char *text; /* file contents */
	size_t text_cap;
};

static struct nic_ethtool *new_reader(enum src src, const char *where)
{
	struct nic_ethtool *e = xcalloc(1, sizeof *e);
	e->src = src;
	e->where = xstrdup(where ? where : "");
	e->sock = -1;
	return e;
}

struct nic_ethtool *nic_ethtool_new_ioctl(const char *ifname)
{
	return new_reader(SRC_IOCTL, ifname);
}

struct nic_ethtool *nic_ethtool_new_file(const char *path)
{
	return new_reader(SRC_FILE, path);
}

struct nic_ethtool *nic_ethtool_new_text(void)
{
	return new_reader(SRC_TEXT, NULL);
}

void nic_ethtool_free(struct nic_ethtool *e)
{
	if (!e)
		return;
	if (e->sock >= 0)
		close(e->sock);
	free(e->where);
	free(e->names);
	free(e->name_len);
	free(e->values);
	free(e->gs);
	free(e->st);
	free(e->text);
	free(e);
}

static void reserve(struct nic_ethtool *e, size_t n)
{
	if (n <= e->cap)
		return;
	size_t cap = e->cap ? e->cap : 64;
	while (cap < n)
		cap *= 2;
	e->names = xreallocarray(e->names, cap, NAME_SLOT);
	e->name_len = xreallocarray(e->name_len, cap, 1);
	e->values = xreallocarray(e->values, cap, sizeof *e->values);
	e->cap = cap;
}

/* Stores name i (len bytes, trimmed here); returns true if it differs
 * from what slot i held. */
static bool set_name(struct nic_ethtool *e, size_t i, const char *s, size_t len)
{
	len = strnlen(s, len); /* a GSTRINGS slot is NUL-padded */
	while (len && s[0] == ' ') {
		s++;
		len--;
	}
	if (len >= NAME_SLOT)
		len = NAME_SLOT - 1;
	while (len && s[len - 1] == ' ')
		len--;
	char *slot = e->names + i * NAME_SLOT;
	bool same =
	    i < e->n && e->name_len[i] == len && memcmp(slot, s, len) == 0;
	if (!same) {
		memcpy(slot, s, len);
		slot[len] = '\0';
		e->name_len[i] = (uint8_t)len;
	}
	return !same;
}

/*
 * The ioctl source.
 */

static int ethtool_ioctl(struct nic_ethtool *e, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	if (strlen(e->where) >= sizeof ifr.ifr_name)
		return -ENODEV;
	memcpy(ifr.ifr_name, e->where, strlen(e->where));
	ifr.ifr_data = data;
	if (ioctl(e->sock, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	return 0;
}

/* The number of statistics the driver has now. */
static int stats_count(struct nic_ethtool *e, size_t *count)
{
	union {
		struct ethtool_sset_info hdr; /* data[] has one entry */
		uint8_t
		    room[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} q;
	memset(&q, 0, sizeof q);
	q.hdr.cmd = ETHTOOL_GSSET_INFO;
	q.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	int rc = ethtool_ioctl(e, &q);
	if (rc == 0) {
		*count = (q.hdr.sset_mask & (1ULL << ETH_SS_STATS))
			     ? q.hdr.data[0]
			     : 0;
		return 0;
	}
	if (rc != -EOPNOTSUPP)
		return rc;
	/* Drivers without GSSET_INFO: the legacy count of GDRVINFO. */
	struct ethtool_drvinfo di;
	memset(&di, 0, sizeof di);
	di.cmd = ETHTOOL_GDRVINFO;
	if ((rc = ethtool_ioctl(e, &di)) < 0)
		return rc;
	*count = di.n_stats;
	return 0;
}

/* Room for count plus headroom: an older kernel that ignores our size
 * writes its own current count, which may have grown meanwhile. */
static size_t with_headroom(size_t count)
{
	return count + (count < 64 ? 64 : count);
}

static int fetch_names(struct nic_ethtool *e, size_t count)
{
	size_t need = with_headroom(count);
	if (need > e->gs_cap) {
		free(e->gs);
		e->gs = xcalloc(1, sizeof *e->gs + need * ETH_GSTRING_LEN);
		e->gs_cap = need;
	}
	memset(e->gs, 0, sizeof *e->gs);
	e->gs->cmd = ETHTOOL_GSTRINGS;
	e->gs->string_set = ETH_SS_STATS;
	e->gs->len = (uint32_t)count;
	int rc = ethtool_ioctl(e, e->gs);
	if (rc < 0)
		return rc;
	e->string_reads++;
	if (e->gs->len != count) {
		if (e->gs->len == 0)
			e->zero_answers++;
		return -EAGAIN; /* the set moved under us */
	}
	reserve(e, count);
	bool changed = count != e->n;
	for (size_t i = 0; i < count; i++)
		changed |= set_name(
		    e, i, (const char *)e->gs->data + i * ETH_GSTRING_LEN,
		    ETH_GSTRING_LEN);
	e->n = count;
	if (changed)
		e->gen++;
	e->names_valid = true;
	return 0;
}

static int fetch_values(struct nic_ethtool *e, size_t count)
{
	size_t need = with_headroom(count);
	if (need > e->st_cap) {
		free(e->st);
		e->st = xcalloc(1, sizeof *e->st + need * sizeof(uint64_t));
		e->st_cap = need;
	}
	e->st->cmd = ETHTOOL_GSTATS;
	e->st->n_stats = (uint32_t)count;
	int rc = ethtool_ioctl(e, e->st);
	if (rc < 0)
		return rc;
	if (e->st->n_stats != count) {
		if (e->st->n_stats == 0)
			e->zero_answers++;
		e->names_valid = false;
		return -EAGAIN;
	}
	memcpy(e->values, e->st->data, count * sizeof(uint64_t));
	return 0;
}

static int read_ioctl(struct nic_ethtool *e)
{
	if (e->sock < 0) {
		e->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (e->sock < 0)
			return -errno;
	}
	int rc = -EAGAIN;
	for (int attempt = 0; attempt < ATTEMPTS && rc == -EAGAIN; attempt++) {
		size_t count = 0;
		if ((rc = stats_count(e, &count)) < 0)
			return rc;
		if (count > NIC_ETHTOOL_MAX_STATS)
			return -E2BIG;
		if (count == 0) {
			if (e->n)
				e->gen++;
			e->n = 0;
			e->names_valid = true;
			return 0;
		}
		if (!e->names_valid || count != e->n) {
			if ((rc = fetch_names(e, count)) < 0)
				continue;
		}
		rc = fetch_values(e, count);
	}
	return rc;
}

/*
 * The text forms.
 */

int nic_ethtool_parse(struct nic_ethtool *e, const char *buf, size_t len)
{
	static const char header[] = "NIC statistics:";
	size_t hl = sizeof header - 1;
	if (len < hl || memcmp(buf, header, hl) != 0)
		return -EINVAL;
	const char *p = buf + hl, *end = buf + len;
	size_t i = 0;
	bool changed = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *colon = NULL;
		for (const char *q = eol; q > p; q--)
			if (q[-1] == ':') {
				colon = q - 1;
				break;
			}
		if (colon && colon > p) {
			const char *v = colon + 1;
			while (v < eol && *v == ' ')
				v++;
			uint64_t x = 0;
			bool ok = v < eol && isdigit((unsigned char)*v);
			for (; ok && v < eol && isdigit((unsigned char)*v);
			     v++) {
				unsigned d = (unsigned)(*v - '0');
				if (x > (UINT64_MAX - d) / 10)
					ok = false;
				else
					x = x * 10 + d;
			}
			while (ok && v < eol && isspace((unsigned char)*v))
				v++;
			const char *ns = p;
			while (ns < colon && isspace((unsigned char)*ns))
				ns++;
			/* names are printable ASCII (a trailing space is
			   trimmed) */
			for (const char *q = ns; ok && q < colon; q++)
				ok = *q >= ' ' && *q <= '~';
			const char *ne = colon;
			while (ne > ns && ne[-1] == ' ')
				ne--;
			if (ok && v == eol && ns < ne) {
				if (i >= NIC_ETHTOOL_MAX_STATS)
					return -EINVAL;
				reserve(e, i + 1);
				changed |=
				    set_name(e, i, ns, (size_t)(colon - ns));
				e->values[i] = x;
				i++;
			}
		}
		p = eol + 1;
	}
	if (changed || i != e->n)
		e->gen++;
	e->n = i;
	return 0;
}

static int read_file(struct nic_ethtool *e)
{
	int fd = rfile_open(e->where, NULL, 0); /* a FIFO must not block */
	if (fd < 0)
		return fd;
	size_t len = 0;
	int rc = 0;
	for (;;) {
		if (len + 4096 > e->text_cap) {
			if (e->text_cap >= NIC_ETHTOOL_MAX_FILE) {
				rc = -EFBIG;
				break;
			}
			e->text_cap = e->text_cap ? 2 * e->text_cap : 16384;
			e->text = xrealloc(e->text, e->text_cap);
		}
		ssize_t r = read(fd, e->text + len, e->text_cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (rc < 0)
		return rc;
	return nic_ethtool_parse(e, e->text, len);
}

int nic_ethtool_read(struct nic_ethtool *e)
{
	switch (e->src) {
	case SRC_IOCTL:
		return read_ioctl(e);
	case SRC_FILE:
		return read_file(e);
	case SRC_TEXT:
		break;
	}
	return 0;
}

size_t nic_ethtool_count(const struct nic_ethtool *e)
{
	return e->n;
}

const char *nic_ethtool_name(const struct nic_ethtool *e, size_t i)
{
	return i < e->n ? e->names + i * NAME_SLOT : NULL;
}

size_t nic_ethtool_name_len(const struct nic_ethtool *e, size_t i)
{
	return i < e->n ? e->name_len[i] : 0;
}

uint64_t nic_ethtool_value(const struct nic_ethtool *e, size_t i)
{
	return i < e->n ? e->values[i] : 0;
}

uint64_t nic_ethtool_names_gen(const struct nic_ethtool *e)
{
	return e->gen;
}

uint64_t nic_ethtool_string_reads(const struct nic_ethtool *e)
{
	return e->string_reads;
}

uint64_t nic_ethtool_zero_answers(const struct nic_ethtool *e)
{
	return e->zero_answers;
}
