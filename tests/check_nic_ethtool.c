/*
 * check_nic_ethtool: the SIOCETHTOOL path of nic_ethtool on a real
 * kernel. Each test makes its own network namespace (as root, or as a
 * user through a user namespace) and a veth pair in it with `ip`;
 * veth's ethtool statistics (peer_ifindex, rx_queue_<i>_xdp_*) are
 * enough to exercise GSSET_INFO -> GSTRINGS -> GSTATS, and changing its
 * channel count with ETHTOOL_SCHANNELS changes the set of names, as PFC
 * does on mlx5. Exits 77 (skip) where namespaces or veth are not
 * available.
 */
#include "config.h"

#include "nic_ethtool.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int rc = n == (ssize_t)strlen(text) ? 0 : -errno;
	close(fd);
	return rc;
}

/* A network namespace of our own: 0, or -errno. */
static int enter_netns(void)
{
	if (unshare(CLONE_NEWNET) == 0)
		return 0;
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -errno;
	char map[64];
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	int rc = write_file("/proc/self/uid_map", map);
	if (rc == 0)
		(void)write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	if (rc == 0)
		rc = write_file("/proc/self/gid_map", map);
	return rc;
}

/* A veth pair va/vb with room for 4 queues each; 0 or -1. */
static int make_veth(void)
{
	return system("ip link add va numtxqueues 4 numrxqueues 4 type veth "
		      "peer name vb numtxqueues 4 numrxqueues 4 "
		      ">/dev/null 2>&1 && ip link set va up && "
		      "ip link set vb up") == 0
		   ? 0
		   : -1;
}

static void setup(void)
{
	ck_assert_int_eq(enter_netns(), 0);
	ck_assert_int_eq(make_veth(), 0);
}

static long find(const struct nic_ethtool *e, const char *name)
{
	for (size_t i = 0; i < nic_ethtool_count(e); i++)
		if (strcmp(nic_ethtool_name(e, i), name) == 0)
			return (long)i;
	return -1;
}

/* Sets va's rx and tx channel counts through the ioctl. */
static int set_channels(unsigned n)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "va");
	ifr.ifr_data = (void *)&ch;
	int rc = ioctl(s, SIOCETHTOOL, &ifr);
	if (rc == 0) {
		ch.cmd = ETHTOOL_SCHANNELS;
		ch.rx_count = n;
		ch.tx_count = n;
		rc = ioctl(s, SIOCETHTOOL, &ifr);
	}
	int e = errno;
	close(s);
	return rc < 0 ? -e : 0;
}

START_TEST(test_veth_statistics_by_ioctl)
{
	struct nic_ethtool *e = nic_ethtool_new_ioctl("va");
	ck_assert_int_eq(nic_ethtool_read(e), 0);
	ck_assert_uint_gt(nic_ethtool_count(e), 0);
	long i = find(e, "peer_ifindex");
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(nic_ethtool_value(e, (size_t)i),
			  if_nametoindex("vb"));
	ck_assert_int_ge(find(e, "rx_queue_0_xdp_packets"), 0);
	/* names are trimmed and NUL-terminated within their slot */
	for (size_t k = 0; k < nic_ethtool_count(e); k++) {
		const char *n = nic_ethtool_name(e, k);
		ck_assert_uint_eq(strlen(n), nic_ethtool_name_len(e, k));
		ck_assert(n[0] != ' ' && n[strlen(n) - 1] != ' ');
	}
	/* a second read reuses the names */
	uint64_t reads = nic_ethtool_string_reads(e);
	uint64_t gen = nic_ethtool_names_gen(e);
	ck_assert_int_eq(nic_ethtool_read(e), 0);
	ck_assert_uint_eq(nic_ethtool_string_reads(e), reads);
	ck_assert_uint_eq(nic_ethtool_names_gen(e), gen);
	nic_ethtool_free(e);

	e = nic_ethtool_new_ioctl("nosuchif0");
	ck_assert_int_eq(nic_ethtool_read(e), -ENODEV);
	nic_ethtool_free(e);
	e = nic_ethtool_new_ioctl("lo");
	int rc = nic_ethtool_read(e);
	ck_assert_msg(rc == -EOPNOTSUPP ||
			  (rc == 0 && nic_ethtool_count(e) == 0),
		      "lo: %d", rc);
	nic_ethtool_free(e);
}
END_TEST

START_TEST(test_veth_name_churn_rereads_names)
{
	struct nic_ethtool *e = nic_ethtool_new_ioctl("va");
	int rc = set_channels(1);
	if (rc < 0) {
		/* kernels without veth channel control: nothing to churn */
		fprintf(stderr, "# veth channels: %s, churn not tested\n",
			strerror(-rc));
		nic_ethtool_free(e);
		return;
	}
	ck_assert_int_eq(nic_ethtool_read(e), 0);
	size_t n1 = nic_ethtool_count(e);
	uint64_t gen = nic_ethtool_names_gen(e);
	uint64_t reads = nic_ethtool_string_reads(e);
	ck_assert_int_lt(find(e, "rx_queue_1_xdp_packets"), 0);

	ck_assert_int_eq(set_channels(3), 0);
	ck_assert_int_eq(nic_ethtool_read(e), 0);
	ck_assert_uint_gt(nic_ethtool_count(e), n1);
	ck_assert_uint_ne(nic_ethtool_names_gen(e), gen);
	ck_assert_uint_eq(nic_ethtool_string_reads(e), reads + 1);
	ck_assert_int_ge(find(e, "rx_queue_2_xdp_packets"), 0);
	long i = find(e, "peer_ifindex");
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(nic_ethtool_value(e, (size_t)i),
			  if_nametoindex("vb"));

	ck_assert_int_eq(set_channels(1), 0);
	ck_assert_int_eq(nic_ethtool_read(e), 0);
	ck_assert_uint_eq(nic_ethtool_count(e), n1);
	ck_assert_int_lt(find(e, "rx_queue_2_xdp_packets"), 0);
	nic_ethtool_free(e);
}
END_TEST

/* Whether this machine lets us make a namespace and a veth in it. */
static bool available(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(enter_netns() == 0 && make_veth() == 0 ? 0 : 1);
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

int main(void)
{
	if (system("command -v ip >/dev/null 2>&1") != 0) {
		printf("SKIP: ip (iproute2) is not installed\n");
		return 77;
	}
	if (!available()) {
		printf("SKIP: cannot make a network namespace with a veth "
		       "pair here (unshare or veth not permitted)\n");
		return 77;
	}
	Suite *s = suite_create("nic_ethtool");
	TCase *tc = tcase_create("veth");
	/* every test forks (CK_FORK) and gets its own namespace */
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_veth_statistics_by_ioctl);
	tcase_add_test(tc, test_veth_name_churn_rereads_names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	if (srunner_fork_status(sr) == CK_NOFORK) {
		printf("SKIP: these tests need CK_FORK (each makes a "
		       "namespace)\n");
		srunner_free(sr);
		return 77;
	}
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
