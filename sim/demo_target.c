/*
 * demo-target: one simulated Arista leaf that serves gNMI on loopback,
 * for the README's demo until fabsim (the simulated fabric) replaces
 * it. Four ports carry RoCE traffic on priority 3; from the tenth
 * second Ethernet4 is held paused (a NIC behind it keeps sending PFC
 * pauses), so its pause ratio climbs to about 0.98 and its PFC frame
 * rate follows the 400G refresh rate (about 11,900 frames/s).
 *
 * Usage: demo-target [PORT]   (default 57400, on 127.0.0.1)
 */
#include "config.h"

#include "target.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_PORTS	      4
#define STORM_PORT    3 /* index of Ethernet4 */
#define STORM_AFTER_S 10
#define PFC3	      "ethernet/pfc/priorities/priority[index=3]/state/"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sets leaf (a path under the interface) of port EthernetN. */
static void set(struct gnmi_target *t, int n, const char *leaf, uint64_t v)
{
	char path[256];
	snprintf(path, sizeof path, "/interfaces/interface[name=Ethernet%d]/%s",
		 n, leaf);
	gnmi_target_set_uint(t, path, v);
}

int main(int argc, char **argv)
{
	const char *port = argc > 1 ? argv[1] : "57400";
	char addr[64], err[256];
	snprintf(addr, sizeof addr, "127.0.0.1:%s", port);
	struct gnmi_target_options o;
	gnmi_target_options_init(&o);
	o.address = addr;
	struct gnmi_target *t = gnmi_target_new(NULL, &o, err, sizeof err);
	if (!t) {
		fprintf(stderr, "demo-target: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "demo-target: an Arista-like leaf on %s (gNMI)\n",
		addr);

	uint64_t octets[N_PORTS] = { 0 }, frames_rx[N_PORTS] = { 0 },
		 frames_tx[N_PORTS] = { 0 }, paused_ns[N_PORTS] = { 0 };
	for (int sec = 0; !stop; sec++) {
		for (int p = 0; p < N_PORTS; p++) {
			bool storm = p == STORM_PORT && sec >= STORM_AFTER_S;
			/* 400G at ~60% load, a few benign pauses; in the
			 * storm the port is paused 98% of the time. */
			octets[p] += storm ? 1000000000ull : 30000000000ull;
			frames_rx[p] += storm ? 11900 : 20 + (uint64_t)p * 5;
			frames_tx[p] += 3;
			paused_ns[p] += storm ? 980000000ull : 1500000ull;
			int n = p + 1;
			set(t, n, "state/counters/in-octets", octets[p]);
			set(t, n, "state/counters/out-octets", octets[p] / 2);
			set(t, n, PFC3 "in-frames", frames_rx[p]);
			set(t, n, PFC3 "out-frames", frames_tx[p]);
			set(t, n, PFC3 "pfc-on-total-rx-time", paused_ns[p]);
		}
		gnmi_target_tick(t, real_ns());
		if (sec == STORM_AFTER_S)
			fprintf(stderr, "demo-target: Ethernet4 is now held "
					"paused on priority 3\n");
		sleep(1);
	}
	gnmi_target_free(t);
	return 0;
}
