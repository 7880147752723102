/*
 * nic_ethtool: a netdev's ethtool statistics (the names and values of
 * `ethtool -S`), from one of two sources:
 *
 *  - the kernel, through the SIOCETHTOOL ioctl: GSSET_INFO (how many
 *    statistics) -> GSTRINGS (their names, read again only when the
 *    count changes) -> GSTATS (the values, index i for name i). mlx5's
 *    set changes at run time (PFC enabled on another priority, channel
 *    count): a new count re-reads the names, and a kernel that answers 0
 *    statistics because the count moved between two calls (Linux since
 *    Dec 2025) gets the sequence again. Buffers keep headroom, since
 *    older kernels write the current count whatever the caller sized.
 *
 *  - a plain file holding the exact text of `ethtool -S <netdev>`
 *    ("NIC statistics:" then "     <name>: <value>" lines), which fabsim
 *    writes and replaces atomically (write then rename) every tick; it
 *    is read whole each time.
 *
 * Names are trimmed (old kernels report "tx_pause_storm_warning_events "
 * with a trailing space). names_gen() changes whenever the list of
 * names changed, so a caller can keep a per-index mapping until then.
 *
 * One reader belongs to one thread; readers share nothing.
 */
#ifndef FABMON_NIC_ETHTOOL_H
#define FABMON_NIC_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#define NIC_ETHTOOL_MAX_STATS 65536 /* larger answers are refused */
#define NIC_ETHTOOL_MAX_FILE  (4 * 1024 * 1024)

struct nic_ethtool;

/* A reader of ifname's statistics through the ioctl. Never NULL. */
struct nic_ethtool *nic_ethtool_new_ioctl(const char *ifname);
/* A reader of the plain-file form at path. Never NULL. */
struct nic_ethtool *nic_ethtool_new_file(const char *path);
/* A reader that is only fed by nic_ethtool_parse() (tests, fuzzing). */
struct nic_ethtool *nic_ethtool_new_text(void);
void nic_ethtool_free(struct nic_ethtool *e);

/*
 * Reads the statistics once. 0, or -errno: -ENODEV (no such
 * interface), -EOPNOTSUPP (the driver has no statistics), -ENOENT (no
 * file), -EAGAIN (the set kept changing during three attempts), -EINVAL
 * (a file that is not `ethtool -S` text). After an error the previous
 * names and values stay.
 */
int nic_ethtool_read(struct nic_ethtool *e);
/* Parses `ethtool -S` text into e, as a file read does. 0 or -EINVAL
 * (no "NIC statistics:" header, or more than NIC_ETHTOOL_MAX_STATS
 * lines). Lines that are not "name: number" are skipped. */
int nic_ethtool_parse(struct nic_ethtool *e, const char *buf, size_t len);

size_t nic_ethtool_count(const struct nic_ethtool *e);
/* Name i (NUL-terminated, trimmed), valid until the next read. */
const char *nic_ethtool_name(const struct nic_ethtool *e, size_t i);
size_t nic_ethtool_name_len(const struct nic_ethtool *e, size_t i);
uint64_t nic_ethtool_value(const struct nic_ethtool *e, size_t i);
/* Bumped whenever the list of names differs from the previous read. */
uint64_t nic_ethtool_names_gen(const struct nic_ethtool *e);
/* Times the names were fetched with GSTRINGS (ioctl) and answers of 0
 * statistics seen: for tests and debug logs. */
uint64_t nic_ethtool_string_reads(const struct nic_ethtool *e);
uint64_t nic_ethtool_zero_answers(const struct nic_ethtool *e);

#endif
