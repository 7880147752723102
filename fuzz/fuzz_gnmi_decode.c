/*
 * fuzz_gnmi_decode: libFuzzer target for what a gNMI target sends. The
 * input is decoded as a SubscribeResponse with the arena (16 MiB
 * budget, 4 MiB size limit, as fabmond does), and a decoded update is
 * walked leaf by leaf, each leaf printed and converted.
 *
 * Besides memory errors, leaks and undefined behaviour (the build adds
 * ASan and UBSan), it checks the contracts: a result is one of the
 * enum's, a message comes back exactly on GNMI_DECODE_OK, what decodes
 * is no deeper than GNMI_DECODE_MAX_DEPTH, the arena stays within its
 * budget, views are bounded and print within the length they announce.
 * protobuf-c itself is the system library, so its own code is not
 * instrumented: the target covers our pre-scan, arena and walk.
 * Seeds: fuzz/corpus/gnmi_decode/.
 */
#include "config.h"

#include "decode.h"
#include "gnmi.pb-c.h"
#include "value.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET	 (16 * 1024 * 1024)
#define MAX_SIZE (4 * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static struct gnmi_arena *arena;

static void check_leaf(void *ctx, const struct gnmi_view *v,
		       const struct gnmi_scalar *s)
{
	size_t need, again;
	char *buf;
	uint64_t u;
	double x;

	(void)ctx;
	if (v->n > GNMI_VIEW_MAX || v->origin == NULL || v->target == NULL)
		abort();
	need = gnmi_view_format(v, NULL, 0);
	buf = malloc(need + 1);
	again = gnmi_view_format(v, buf, need + 1);
	if (again != need || strlen(buf) > need)
		abort();
	free(buf);
	if (s == NULL)
		return;
	(void)gnmi_scalar_u64(s, &u);
	(void)gnmi_scalar_double(s, &x);
	if (s->kind == GNMI_SCALAR_STRING && s->s != NULL) {
		/* len + 1 bytes always suffice */
		buf = malloc(s->len + 1);
		if (gnmi_json_unescape(s->s, s->len, buf, s->len + 1, &need) ==
		    -ENOSPC)
			abort();
		free(buf);
	}
}

static void check_delete(void *ctx, const struct gnmi_view *v)
{
	check_leaf(ctx, v, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const ProtobufCMessageDescriptor *desc =
	    &gnmi__subscribe_response__descriptor;
	ProtobufCMessage *m = (ProtobufCMessage *)&arena;
	int rc;

	if (arena == NULL)
		arena = gnmi_arena_new(BUDGET);
	gnmi_arena_reset(arena);
	rc = gnmi_decode(desc, d, n, MAX_SIZE, arena, &m);
	if (rc < GNMI_DECODE_BUDGET || rc > GNMI_DECODE_OK)
		abort();
	if ((rc == GNMI_DECODE_OK) != (m != NULL))
		abort();
	if (gnmi_arena_used(arena) > BUDGET)
		abort();
	if (rc != GNMI_DECODE_OK)
		return 0;
	rc = gnmi_decode_depth(desc, d, n, GNMI_DECODE_DEPTH_CAP);
	if (rc < 1 || rc > GNMI_DECODE_MAX_DEPTH)
		abort();

	const Gnmi__SubscribeResponse *r = (const Gnmi__SubscribeResponse *)m;
	if (r->response_case == GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE &&
	    r->update != NULL) {
		struct gnmi_walk_stats st = { 0 };

		gnmi_walk_notification(r->update, check_leaf, check_delete,
				       NULL, &st);
		if (st.deletes != r->update->n_delete_ && st.too_deep == 0 &&
		    st.unsupported == 0)
			abort();
	}
	return 0;
}
