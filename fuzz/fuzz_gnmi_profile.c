/*
 * fuzz_gnmi_profile: libFuzzer target for the profile loader
 * (gnmi_profile_load_buffer()) and, for every profile it accepts, the
 * mapper that runs its patterns.
 *
 * Besides memory errors and leaks (the build adds ASan and UBSan), it
 * checks the loader's contract: a failed load leaves exactly one line of
 * message, a successful one none. An accepted profile then maps a fixed
 * SubscribeResponse (OpenConfig, Arista PFC, SONiC JSON leaves, a name
 * map with good and bad fields and an object, and a delete, read in
 * place by gnmi_wire) into a fresh store twice, with an objmap when it
 * has maps, which runs its captures, globs, value maps, scales and
 * object references against real paths.
 * Seeds: fuzz/corpus/gnmi_profile/ (the shipped profiles).
 */
#include "config.h"

#include "gnmi.pb-c.h"
#include "objmap.h"
#include "path.h"
#include "profile.h"
#include "store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static uint8_t *message;
static size_t message_len;

/* The message every accepted profile maps. */
static void build_message(void)
{
	static const struct {
		const char *path;
		const char *json; /* NULL: a uint */
	} leaves[] = {
		{ "/interfaces/interface[name=Ethernet1]/ethernet/pfc/"
		  "priorities/priority[index=3]/state/in-frames",
		  NULL },
		{ "/interfaces/interface[name=Ethernet1]/ethernet/pfc/"
		  "priorities/priority[index=3]/state/pfc-on-total-rx-time",
		  NULL },
		{ "/interfaces/interface[name=Ethernet1]/state/counters/"
		  "in-octets",
		  NULL },
		{ "/interfaces/interface[name=Ethernet1]/state/oper-status",
		  "\"UP\"" },
		{ "openconfig:/qos/interfaces/"
		  "interface[interface-id=Ethernet1]/"
		  "output/queues/queue[name=3]/state/transmit-pkts",
		  NULL },
		{ "/COUNTERS/Ethernet68",
		  "{\"SAI_PORT_STAT_PFC_3_RX_PKTS\": \"5\", "
		  "\"SAI_PORT_STAT_IF_IN_OCTETS\": \"10\", "
		  "\"PFC_WD_STATUS\": \"stormed\"}" },
		{ "/COUNTERS/Ethernet68:3",
		  "{\"SAI_QUEUE_STAT_PACKETS\": \"1\"}" },
		/* A name map (good and bad fields) and an object. */
		{ "/COUNTERS_PG_NAME_MAP",
		  "{\"Ethernet68:3\": \"oid:0x1a1\", \"Ethernet68\": "
		  "\"oid:0x1a2\", \"Ethernet68:4\": 7}" },
		{ "/COUNTERS/oid:0x1a1",
		  "{\"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS\": "
		  "\"4\"}" },
	};
	enum { N = sizeof leaves / sizeof leaves[0] };
	Gnmi__SubscribeResponse r = GNMI__SUBSCRIBE_RESPONSE__INIT;
	Gnmi__Notification no = GNMI__NOTIFICATION__INIT;
	Gnmi__Update u[N], *up[N];
	Gnmi__TypedValue tv[N];
	Gnmi__Path *del[1];
	struct gnmi_path p;
	char err[128];

	for (size_t i = 0; i < N; i++) {
		gnmi__update__init(&u[i]);
		gnmi__typed_value__init(&tv[i]);
		if (gnmi_path_parse(leaves[i].path, &p, err, sizeof err) != 0)
			abort();
		u[i].path = gnmi_path_to_pb(&p);
		gnmi_path_clear(&p);
		if (leaves[i].json) {
			tv[i].value_case =
			    GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
			tv[i].json_ietf_val.data = (uint8_t *)leaves[i].json;
			tv[i].json_ietf_val.len = strlen(leaves[i].json);
		} else {
			tv[i].value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
			tv[i].uint_val = 1000 + i;
		}
		u[i].val = &tv[i];
		up[i] = &u[i];
	}
	if (gnmi_path_parse("/interfaces/interface[name=Ethernet1]", &p, err,
			    sizeof err) != 0)
		abort();
	del[0] = gnmi_path_to_pb(&p);
	gnmi_path_clear(&p);
	no.timestamp = INT64_C(1704067200000000000);
	no.n_update = N;
	no.update = up;
	no.n_delete_ = 1;
	no.delete_ = del;
	r.response_case = GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE;
	r.update = &no;
	message_len = gnmi__subscribe_response__get_packed_size(&r);
	message = malloc(message_len);
	gnmi__subscribe_response__pack(&r, message);
	for (size_t i = 0; i < N; i++)
		gnmi_path_pb_free(u[i].path);
	gnmi_path_pb_free(del[0]);
}

static void exercise(const struct gnmi_profile *p)
{
	struct store *st = store_new(NULL);
	size_t n_maps = gnmi_profile_maps(p);
	struct gnmi_objmap *om = n_maps ? gnmi_objmap_new(n_maps) : NULL;
	struct gnmi_mapper_opts o = {
		.store = st,
		.owner = store_intern(st, "target"),
		.device = store_intern(st, "device"),
		.interval_ms = 1000,
		.objmap = om,
	};
	struct gnmi_mapper *m = gnmi_mapper_new(p, &o);
	struct gnmi_apply_stats s = { 0 };
	size_t nsubs;
	const char *target;

	(void)gnmi_profile_name(p);
	(void)gnmi_profile_subscriptions(p, &nsubs, &target);
	(void)gnmi_profile_mappings(p);
	for (int i = 0; i < 2; i++)
		if (gnmi_mapper_apply_wire(m, message, message_len, &s, NULL) !=
		    0)
			abort();
	for (size_t i = 0; i < n_maps; i++) {
		size_t n_obj;
		const char *const *ids = gnmi_objmap_objects(om, i, &n_obj);
		for (size_t k = 0; k < n_obj; k++) {
			struct gnmi_path *op =
			    gnmi_profile_map_object_path(p, i, ids[k]);
			gnmi_path_clear(op);
			free(op);
		}
	}
	gnmi_mapper_free(m);
	gnmi_objmap_unref(om);
	store_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[512];
	struct gnmi_profile *p;

	if (message == NULL)
		build_message();
	p = gnmi_profile_load_buffer("fuzz.yaml", (const char *)d, n, err,
				     sizeof err);
	if (p ? err[0] != '\0' : err[0] == '\0' || strchr(err, '\n'))
		abort();
	if (p)
		exercise(p);
	gnmi_profile_free(p);
	return 0;
}
