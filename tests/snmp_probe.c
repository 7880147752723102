/*
 * snmp_probe: runs the SNMP collector alone on a config for the
 * integration tests (tests/integration_snmp.sh) and prints what the
 * store and health exporters cannot show yet: the LLDP neighbours it
 * read, one per line as "lldp device|port|neighbor_device|neighbor_port",
 * and its totals. It stops once every target has completed `polls`
 * polls or after `seconds`, whichever comes first (a bound, not a
 * timing check). With WAIT, a comma-separated list of targets, it also
 * waits until each of those has stored data (its index tables, LLDP
 * included, are read before its first counters), so a slow agent is
 * not cut short by fast ones completing many polls.
 *
 * Usage: snmp_probe CONFIG POLLS SECONDS [WAIT]
 */
#include "config.h"

#include "cfg.h"
#include "collector.h"
#include "fabmond.h"
#include "health.h"
#include "log.h"
#include "snmp_cfg.h"
#include "snmp_poller.h"
#include "store.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether every target of the comma-separated list has stored data. */
static bool all_updated(struct health *h, const char *list)
{
	struct health_target_info *v;
	size_t n = health_snapshot(h, &v);
	bool all = true;
	char *copy = strdup(list), *save = NULL;
	for (char *name = strtok_r(copy, ",", &save); name && all;
	     name = strtok_r(NULL, ",", &save)) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(v[i].target, name) == 0 &&
				v[i].counters[HEALTH_C_UPDATES] > 0;
		all = found;
	}
	free(copy);
	health_snapshot_free(v, n);
	return all;
}

int main(int argc, char **argv)
{
	char err[1024];
	if (argc != 4 && argc != 5) {
		fprintf(stderr,
			"usage: snmp_probe CONFIG POLLS SECONDS [WAIT]\n");
		return 2;
	}
	log_init();
	struct cfg *cfg =
	    cfg_load(fabmond_cfg_schema(), argv[1], err, sizeof err);
	if (!cfg) {
		fprintf(stderr, "snmp_probe: %s\n", err);
		return 2;
	}
	size_t n = 0;
	for (size_t i = 0; i < cfg->n_targets; i++)
		n += snmp_cfg_of(&cfg->targets[i]) != NULL;
	unsigned long polls = strtoul(argv[2], NULL, 10);
	double seconds = strtod(argv[3], NULL);
	struct store *st = store_new(NULL);
	struct health *h = health_new();
	struct collector_env env = { .store = st, .health = h };
	void *state = NULL;
	if (snmp_collector_ops.start(&env, cfg, &state) < 0)
		return 1;
	struct snmp_poller_stats s;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	for (double waited = 0; waited < seconds; waited += 0.05) {
		snmp_poller_get_stats(state, &s);
		if (s.polls_ok >= polls * n &&
		    (argc < 5 || all_updated(h, argv[4])))
			break;
		nanosleep(&ts, NULL);
	}
	struct snmp_lldp_neighbor *nb;
	size_t nn = snmp_poller_lldp(state, &nb);
	for (size_t i = 0; i < nn; i++)
		printf("lldp %s|%s|%s|%s\n", nb[i].device, nb[i].port,
		       nb[i].neighbor_device, nb[i].neighbor_port);
	snmp_lldp_free(nb, nn);
	snmp_poller_get_stats(state, &s);
	printf("stats polls_ok=%llu polls_failed=%llu values=%llu\n",
	       (unsigned long long)s.polls_ok,
	       (unsigned long long)s.polls_failed,
	       (unsigned long long)s.values);
	snmp_collector_ops.stop(state);
	health_free(h);
	store_free(st);
	cfg_free(cfg);
	return 0;
}
