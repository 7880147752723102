/*
 * sim_topo's names: port names by flavour (and back), node names and
 * name patterns, and the hash index of names shared by the reader and
 * the build. Pure functions of their arguments.
 */
#include "config.h"

#include "topo_int.h"

#include "mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Hashing: FNV-1a with a final mix, for the name index and the MACs.
 */

uint64_t topo_hash_bytes(const char *s, size_t n, uint64_t salt)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ salt;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001b3);
	}
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

size_t topo_table_size(size_t n)
{
	size_t size = 16;
	while (size < 2 * n)
		size *= 2;
	return size;
}

/* An index of names[0..n) by name: slots hold position + 1. */
size_t *topo_index_new(size_t n, size_t *mask)
{
	size_t size = topo_table_size(n);
	*mask = size - 1;
	return xcalloc(size, sizeof(size_t));
}

/*
 * Finds name in the index; returns its position, or NONE with *slot set
 * to the free slot where it would go.
 */
size_t topo_index_find(const size_t *slots, size_t mask,
		       const struct spec_node *nodes, const char *name,
		       size_t len, size_t *slot)
{
	size_t i = (size_t)topo_hash_bytes(name, len, 0) & mask;
	for (; slots[i]; i = (i + 1) & mask) {
		const char *have = nodes[slots[i] - 1].name;
		if (strlen(have) == len && memcmp(have, name, len) == 0)
			return slots[i] - 1;
	}
	if (slot)
		*slot = i;
	return NONE;
}

/*
 * Port names. Names depend only on the node's flavour, its speed (for
 * SONiC's lane step) and the port's front-panel position.
 */

/* SONiC names a port after its first lane: 8 lanes per 800G cage. */
static unsigned sonic_step(unsigned node_speed)
{
	return node_speed >= 800 ? 8 : 4;
}

void topo_port_name(enum sim_flavour f, unsigned node_speed, unsigned i,
		    char *buf, size_t len)
{
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		snprintf(buf, len, "Ethernet%u", i * sonic_step(node_speed));
		break;
	case SIM_FLAVOUR_ARISTA:
		snprintf(buf, len, "Ethernet%u/1", i + 1);
		break;
	case SIM_FLAVOUR_OPENCONFIG:
		snprintf(buf, len, "eth%u", i + 1);
		break;
	case SIM_FLAVOUR_MLX5:
		snprintf(buf, len, "mlx5_%u", i);
		break;
	}
}

/* Reads a canonical decimal (no sign, no leading zero) and advances. */
static bool read_dec(const char **s, unsigned *v)
{
	const char *p = *s;
	unsigned long n = 0;
	if (!isdigit((unsigned char)*p) ||
	    (p[0] == '0' && isdigit((unsigned char)p[1])))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > 100000)
			return false;
	}
	*v = (unsigned)n;
	*s = p;
	return true;
}

/* The front-panel position of port name s, or false. */
bool topo_parse_port_name(enum sim_flavour f, unsigned node_speed,
			  const char *s, unsigned *index)
{
	unsigned v;
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		if (strncmp(s, "Ethernet", 8) != 0)
			return false;
		s += 8;
		if (!read_dec(&s, &v) || *s || v % sonic_step(node_speed))
			return false;
		*index = v / sonic_step(node_speed);
		return true;
	case SIM_FLAVOUR_ARISTA:
		if (strncmp(s, "Ethernet", 8) != 0)
			return false;
		s += 8;
		if (!read_dec(&s, &v) || v == 0 || strcmp(s, "/1") != 0)
			return false;
		*index = v - 1;
		return true;
	case SIM_FLAVOUR_OPENCONFIG:
		if (strncmp(s, "eth", 3) != 0)
			return false;
		s += 3;
		if (!read_dec(&s, &v) || v == 0 || *s)
			return false;
		*index = v - 1;
		return true;
	case SIM_FLAVOUR_MLX5:
		if (strncmp(s, "mlx5_", 5) == 0) {
			s += 5;
			if (!read_dec(&s, &v) || *s)
				return false;
		} else if (strncmp(s, "ens", 3) == 0) {
			s += 3;
			if (!read_dec(&s, &v) || strcmp(s, "np0") != 0)
				return false;
		} else {
			return false;
		}
		*index = v;
		return true;
	}
	return false;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

bool topo_valid_name(const char *s, size_t len)
{
	if (len == 0 || len > SIM_TOPO_NAME_MAX || strlen(s) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

/*
 * A name pattern: name characters around one "%d" or "%0<w>d" (w 1..9).
 * Returns the length of the part before it, the width and the suffix.
 */
bool topo_pattern_split(const char *pat, size_t *pre, unsigned *width,
			const char **suffix)
{
	const char *pct = strchr(pat, '%');
	if (!pct)
		return false;
	*pre = (size_t)(pct - pat);
	const char *p = pct + 1;
	*width = 0;
	if (p[0] == '0' && p[1] >= '1' && p[1] <= '9') {
		*width = (unsigned)(p[1] - '0');
		p += 2;
	}
	if (*p != 'd')
		return false;
	*suffix = p + 1;
	for (const char *q = pat; *q; q++)
		if ((q < pct || q >= *suffix) && !name_char(*q))
			return false;
	return true;
}

void topo_pattern_expand(const char *pat, unsigned num, char *buf, size_t len)
{
	size_t pre;
	unsigned width;
	const char *suffix;
	if (!topo_pattern_split(pat, &pre, &width, &suffix)) {
		snprintf(buf, len, "%s", pat);
		return;
	}
	snprintf(buf, len, "%.*s%0*u%s", (int)pre, pat, (int)width, num,
		 suffix);
}
