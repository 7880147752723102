/*
 * check_sim_faults: fabsim's target faults as a bare gNMI client
 * (tests/gnmi_sub.h, real gRPC on 127.0.0.1) sees them on a switch
 * served by sim_serve_gnmi: reset (the open stream ends with
 * UNAVAILABLE, a new one is accepted and ended in its turn after its
 * sync), garbage (the stream stays open and carries bytes that do not
 * decode as a SubscribeResponse, the same bytes for the same seed),
 * drop_after_sync (every new stream ends with UNAVAILABLE right after
 * its sync_response), wrong_types (counters written as "n/a" from the
 * next publish); ok brings normal streams back after each. And the
 * scenario events that set them.
 *
 * Waits are bounded (a hang guard of WAIT_S, not a timing check): the
 * tests assert the order of what arrives, never how soon.
 */
#include "config.h"

#include "gnmi_sub.h"
#include "grpc_down.h"
#include "model.h"
#include "scenario.h"
#include "serve_gnmi.h"
#include "topo.h"
#include "units.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_S 30
#define IV     (NS_PER_S / 5) /* the SAMPLE interval subscribed */

static struct sim_topo *topo;
static struct sim_model *model;
static struct sim_serve_gnmi *srv;
static const struct sim_node *sw;
static const struct sim_port *port; /* sw's port to host0 */
static char path[256];

/* One OpenConfig spine, two leaves, two hosts, a flow from host0, a
 * second of model time: the switch is host0's leaf, its port to host0
 * receives the flow. */
static void setup(void)
{
	static const enum sim_flavour oc[] = { SIM_FLAVOUR_OPENCONFIG };
	char err[512];
	struct sim_topo_gen g = { .spines = 1,
				  .leaves = 2,
				  .hosts = 2,
				  .nics = 1,
				  .flavours = oc,
				  .n_flavours = 1 };
	topo = sim_topo_generate(&g, err, sizeof err);
	ck_assert_msg(topo != NULL, "%s", err);
	model = sim_model_new(topo, 1, err, sizeof err);
	ck_assert_msg(model != NULL, "%s", err);
	const struct sim_node *h0 = sim_topo_tier_node(topo, SIM_NODE_HOST, 0);
	const struct sim_node *h1 = sim_topo_tier_node(topo, SIM_NODE_HOST, 1);
	struct sim_model_flow f = {
		h0->ports[0].id, h1->ports[0].id, 3, 100, NULL, 0
	};
	ck_assert_int_ge(sim_model_add_flow(model, &f), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(sim_model_step(model, 100000000ull), 0);
	port = h0->ports[0].peer;
	sw = port->node;
	snprintf(path, sizeof path, "/interfaces/interface[name=%s]/state",
		 port->name);
}

static void teardown(void)
{
	sim_serve_gnmi_free(srv);
	srv = NULL;
	sim_model_free(model);
	sim_topo_free(topo);
	ck_assert_msg(test_grpc_wait_down(20000), "gRPC still up");
}

static void serve(uint64_t seed)
{
	char err[512];
	struct sim_serve_gnmi_options o;
	sim_serve_gnmi_options_init(&o);
	o.seed = seed;
	srv = sim_serve_gnmi_new(topo, &o, err, sizeof err);
	ck_assert_msg(srv != NULL, "%s", err);
	/* Every switch's leaves exist and hold the model's counters. */
	ck_assert_uint_gt(sim_serve_gnmi_publish(srv, model, 0, true), 0);
}

static void set_fault(enum sim_scenario_target f)
{
	ck_assert_int_eq(sim_serve_gnmi_set_fault(srv, sw->id, f), 0);
	ck_assert_int_eq(sim_serve_gnmi_fault(srv, sw->id), f);
}

/* A stream on the switch, SAMPLE every IV. */
static void open_stream(struct gsub *g)
{
	gsub_open(g, sim_serve_gnmi_port(srv, sw->id), NULL, path, IV, false);
}

/* The next message's bytes (caller unrefs), or false once the stream
 * has ended (g->ended); fails on the hang guard. */
static bool next_raw(struct gsub *g, grpc_slice *out)
{
	if (!g->recv_pending) {
		grpc_op op;
		memset(&op, 0, sizeof op);
		op.op = GRPC_OP_RECV_MESSAGE;
		op.data.recv_message.recv_message = &g->rbb;
		ck_assert_int_eq(
		    grpc_call_start_batch(g->call, &op, 1, &g->tag_recv, NULL),
		    GRPC_CALL_OK);
		g->recv_pending = true;
	}
	grpc_event ev = grpc_completion_queue_pluck(
	    g->cq, &g->tag_recv, gsub_deadline(WAIT_S * 1000), NULL);
	ck_assert_msg(ev.type == GRPC_OP_COMPLETE, "nothing within %d s",
		      WAIT_S);
	g->recv_pending = false;
	if (!ev.success || !g->rbb) {
		g->ended = true;
		return false;
	}
	grpc_byte_buffer_reader r;
	ck_assert(grpc_byte_buffer_reader_init(&r, g->rbb));
	*out = grpc_byte_buffer_reader_readall(&r);
	grpc_byte_buffer_reader_destroy(&r);
	grpc_byte_buffer_destroy(g->rbb);
	g->rbb = NULL;
	return true;
}

/* What the next message is. */
enum msg {
	MSG_END,     /* the stream ended */
	MSG_UPDATE,  /* a notification */
	MSG_SYNC,    /* sync_response */
	MSG_GARBAGE, /* bytes that do not decode */
};

static enum msg next_msg(struct gsub *g)
{
	grpc_slice sl;
	if (!next_raw(g, &sl))
		return MSG_END;
	Gnmi__SubscribeResponse *r = gnmi__subscribe_response__unpack(
	    NULL, GRPC_SLICE_LENGTH(sl), GRPC_SLICE_START_PTR(sl));
	grpc_slice_unref(sl);
	if (!r)
		return MSG_GARBAGE;
	enum msg m =
	    r->response_case == GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE
		? MSG_SYNC
		: MSG_UPDATE;
	ck_assert(m == MSG_SYNC ||
		  r->response_case ==
		      GNMI__SUBSCRIBE_RESPONSE__RESPONSE_UPDATE);
	gnmi__subscribe_response__free_unpacked(r, NULL);
	return m;
}

/* The status an ended stream ended with; the stream is freed. */
static grpc_status_code close_ended(struct gsub *g)
{
	ck_assert(g->ended);
	grpc_event ev = grpc_completion_queue_pluck(
	    g->cq, &g->tag_status, gsub_deadline(WAIT_S * 1000), NULL);
	ck_assert_int_eq(ev.type, GRPC_OP_COMPLETE);
	grpc_status_code code = g->status;
	grpc_byte_buffer_destroy(g->sbb);
	grpc_slice_unref(g->details);
	grpc_metadata_array_destroy(&g->imd);
	grpc_metadata_array_destroy(&g->tmd);
	grpc_call_unref(g->call);
	grpc_channel_destroy(g->ch);
	grpc_completion_queue_shutdown(g->cq);
	grpc_completion_queue_destroy(g->cq);
	return code;
}

/* Reads messages up to the end of the stream; returns its status. */
static grpc_status_code read_to_end(struct gsub *g)
{
	for (int i = 0; i < 10000; i++)
		if (next_msg(g) == MSG_END)
			return close_ended(g);
	ck_abort_msg("the stream did not end");
	return GRPC_STATUS_OK;
}

/* A normal stream: updates, sync_response, then samples (two of them)
 * without the stream ending. */
static void expect_normal_stream(void)
{
	struct gsub g;
	open_stream(&g);
	enum msg m;
	size_t updates = 0;
	while ((m = next_msg(&g)) == MSG_UPDATE)
		updates++;
	ck_assert_int_eq(m, MSG_SYNC);
	ck_assert_uint_gt(updates, 0);
	ck_assert_int_eq(next_msg(&g), MSG_UPDATE);
	ck_assert_int_eq(next_msg(&g), MSG_UPDATE);
	gsub_close(&g);
}

/* Reset: the open stream ends with UNAVAILABLE at once; a new one is
 * accepted, synchronises and then ends with UNAVAILABLE in its turn
 * (about SIM_SERVE_GNMI_RESET_NS later: samples may come before);
 * ok: streams last again. */
START_TEST(test_reset_ends_every_stream_soon_after_it_opens)
{
	serve(1);
	struct gsub g;
	open_stream(&g);
	while (next_msg(&g) != MSG_SYNC)
		;
	set_fault(SIM_SCENARIO_TARGET_RESET);
	ck_assert_int_eq(read_to_end(&g), GRPC_STATUS_UNAVAILABLE);

	for (int round = 0; round < 2; round++) {
		open_stream(&g);
		enum msg m;
		while ((m = next_msg(&g)) == MSG_UPDATE)
			;
		ck_assert_int_eq(m, MSG_SYNC);
		ck_assert_int_eq(read_to_end(&g), GRPC_STATUS_UNAVAILABLE);
	}
	set_fault(SIM_SCENARIO_TARGET_OK);
	expect_normal_stream();
}
END_TEST

/* The bytes of the first message a new stream gets under garbage on a
 * fresh server seeded seed (caller frees). */
static uint8_t *first_garbage(uint64_t seed, size_t *len)
{
	serve(seed);
	set_fault(SIM_SCENARIO_TARGET_GARBAGE);
	struct gsub g;
	open_stream(&g);
	grpc_slice sl;
	ck_assert(next_raw(&g, &sl));
	*len = GRPC_SLICE_LENGTH(sl);
	uint8_t *b = malloc(*len + 1);
	memcpy(b, GRPC_SLICE_START_PTR(sl), *len);
	grpc_slice_unref(sl);
	gsub_close(&g);
	sim_serve_gnmi_free(srv);
	srv = NULL;
	return b;
}

/* Garbage: the open stream goes on, every notification replaced by
 * bytes protobuf-c cannot unpack; a new stream gets garbage for its
 * dump and a valid sync_response; the same seed gives the same bytes;
 * ok: decodable samples again on the same stream. */
START_TEST(test_garbage_streams_undecodable_messages)
{
	serve(7);
	struct gsub g;
	open_stream(&g);
	while (next_msg(&g) != MSG_SYNC)
		;
	set_fault(SIM_SCENARIO_TARGET_GARBAGE);
	/* Samples queued before the switch may still decode. */
	enum msg m;
	int skipped = 0;
	while ((m = next_msg(&g)) == MSG_UPDATE)
		ck_assert_int_lt(++skipped, 100);
	ck_assert_int_eq(m, MSG_GARBAGE);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(next_msg(&g), MSG_GARBAGE);
	ck_assert_uint_eq(sim_serve_gnmi_streams(srv, sw->id), 1);

	struct gsub g2;
	open_stream(&g2);
	ck_assert_int_eq(next_msg(&g2), MSG_GARBAGE);
	ck_assert_int_eq(next_msg(&g2), MSG_SYNC);
	ck_assert_int_eq(next_msg(&g2), MSG_GARBAGE);
	gsub_close(&g2);

	set_fault(SIM_SCENARIO_TARGET_OK);
	skipped = 0;
	while ((m = next_msg(&g)) == MSG_GARBAGE)
		ck_assert_int_lt(++skipped, 100);
	ck_assert_int_eq(m, MSG_UPDATE);
	ck_assert_int_eq(next_msg(&g), MSG_UPDATE);
	gsub_close(&g);
	sim_serve_gnmi_free(srv);
	srv = NULL;

	size_t la, lb, lc;
	uint8_t *a = first_garbage(42, &la);
	uint8_t *b = first_garbage(42, &lb);
	uint8_t *c = first_garbage(43, &lc);
	ck_assert_uint_eq(la, lb);
	ck_assert_mem_eq(a, b, la);
	ck_assert(lc != la || memcmp(a, c, la) != 0);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* Drop after sync: the open stream ends at once; every new one sends
 * its dump and sync_response and then ends with UNAVAILABLE, nothing
 * after the sync; ok: streams last again. */
START_TEST(test_drop_after_sync_ends_each_stream_at_its_sync)
{
	serve(1);
	struct gsub g;
	open_stream(&g);
	while (next_msg(&g) != MSG_SYNC)
		;
	set_fault(SIM_SCENARIO_TARGET_DROP_AFTER_SYNC);
	ck_assert_int_eq(read_to_end(&g), GRPC_STATUS_UNAVAILABLE);
	for (int round = 0; round < 3; round++) {
		open_stream(&g);
		enum msg m;
		size_t updates = 0;
		while ((m = next_msg(&g)) == MSG_UPDATE)
			updates++;
		ck_assert_int_eq(m, MSG_SYNC);
		ck_assert_uint_gt(updates, 0);
		ck_assert_int_eq(next_msg(&g), MSG_END);
		ck_assert_int_eq(close_ended(&g), GRPC_STATUS_UNAVAILABLE);
	}
	set_fault(SIM_SCENARIO_TARGET_OK);
	expect_normal_stream();
}
END_TEST

/* The JSON text of the counters container of sw's port to host0, as a
 * ONCE subscription gets it (caller frees). */
static char *counters_json(void)
{
	char p[256];
	snprintf(p, sizeof p, "/interfaces/interface[name=%s]/state/counters",
		 port->name);
	struct gsub g;
	gsub_open(&g, sim_serve_gnmi_port(srv, sw->id), NULL, p, 0, true);
	char *text = NULL;
	for (;;) {
		Gnmi__SubscribeResponse *r = gsub_next(&g, WAIT_S * 1000);
		ck_assert_msg(r != NULL, "no sync_response");
		if (r->response_case ==
		    GNMI__SUBSCRIBE_RESPONSE__RESPONSE_SYNC_RESPONSE) {
			gnmi__subscribe_response__free_unpacked(r, NULL);
			break;
		}
		for (size_t i = 0; i < r->update->n_update; i++) {
			const Gnmi__TypedValue *v = r->update->update[i]->val;
			ck_assert_int_eq(
			    v->value_case,
			    GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL);
			free(text);
			text = strndup((const char *)v->json_ietf_val.data,
				       v->json_ietf_val.len);
		}
		gnmi__subscribe_response__free_unpacked(r, NULL);
	}
	gsub_close(&g);
	ck_assert_ptr_nonnull(text);
	return text;
}

/* Whether every member of the JSON object text is "name":"n/a". */
static bool all_na(const char *text)
{
	size_t members = 0;
	for (const char *p = strstr(text, "\":\""); p;
	     p = strstr(p + 1, "\":\"")) {
		if (strncmp(p + 3, "n/a\"", 4) != 0)
			return false;
		members++;
	}
	return members >= 10;
}

/* Wrong types: from the next publish every counter of the switch is
 * the string "n/a" (no number in its place); ok and a publish bring
 * the numbers back, equal to the model's. */
START_TEST(test_wrong_types_writes_counters_as_text)
{
	serve(1);
	char *t = counters_json();
	ck_assert(!all_na(t));
	ck_assert_ptr_nonnull(strstr(t, "\"in-octets\":\""));
	free(t);
	set_fault(SIM_SCENARIO_TARGET_WRONG_TYPES);
	ck_assert_uint_gt(sim_serve_gnmi_publish(srv, model, 0, true), 0);
	t = counters_json();
	ck_assert_msg(all_na(t), "%s", t);
	ck_assert_ptr_nonnull(strstr(t, "\"in-octets\":\"n/a\""));
	free(t);
	set_fault(SIM_SCENARIO_TARGET_OK);
	ck_assert_uint_gt(sim_serve_gnmi_publish(srv, model, 0, true), 0);
	t = counters_json();
	struct sim_model_switch_port c;
	ck_assert_int_eq(sim_model_read_switch_port(model, port->id, &c), 0);
	char want[64];
	snprintf(want, sizeof want, "\"in-octets\":\"%llu\"",
		 (unsigned long long)c.in_octets);
	ck_assert_msg(strstr(t, want) != NULL, "%s lacks %s", t, want);
	ck_assert_uint_gt(c.in_octets, 0);
	free(t);
}
END_TEST

/* Silent (a stall at run time) and back, then each fault straight
 * into another: the switch serves again after ok. */
START_TEST(test_faults_chain_and_ok_restores)
{
	serve(1);
	for (int f = 1; f < SIM_SCENARIO_TARGETS; f++)
		set_fault((enum sim_scenario_target)f);
	set_fault(SIM_SCENARIO_TARGET_OK);
	expect_normal_stream();
	ck_assert_int_eq(
	    sim_serve_gnmi_set_fault(srv, sw->id, SIM_SCENARIO_TARGETS),
	    -EINVAL);
}
END_TEST

/* The names the control endpoint and the events use. */
START_TEST(test_fault_names_round_trip)
{
	static const char *const names[] = {
		"ok",	   "silent",	      "refuse",	     "reset",
		"garbage", "drop_after_sync", "wrong_types", "slow",
	};
	ck_assert_uint_eq(sizeof names / sizeof names[0], SIM_SCENARIO_TARGETS);
	for (int i = 0; i < SIM_SCENARIO_TARGETS; i++) {
		ck_assert_str_eq(
		    sim_scenario_target_name((enum sim_scenario_target)i),
		    names[i]);
		ck_assert_int_eq(sim_scenario_target_parse(names[i]), i);
	}
	ck_assert_int_eq(sim_scenario_target_parse("stall"), -1);
	ck_assert_str_eq(sim_scenario_target_name(SIM_SCENARIO_TARGETS), "?");
}
END_TEST

/* target_reset, target_garbage, target_drop_after_sync and
 * target_wrong_types as live events: each sets the switch's fault, stopping it
 * gives the switch back to the timeline (ok). */
START_TEST(test_fault_events_set_and_stop)
{
	char err[512];
	struct sim_scenario *scn = sim_scenario_new_empty(topo, 1);
	topo = NULL; /* the scenario owns it now */
	struct sim_scenario_live *l = sim_scenario_live_new(scn);
	static const struct {
		const char *ev;
		enum sim_scenario_target f;
	} cases[] = {
		{ "target_reset", SIM_SCENARIO_TARGET_RESET },
		{ "target_garbage", SIM_SCENARIO_TARGET_GARBAGE },
		{ "target_drop_after_sync",
		  SIM_SCENARIO_TARGET_DROP_AFTER_SYNC },
		{ "target_wrong_types", SIM_SCENARIO_TARGET_WRONG_TYPES },
		{ "target_slow", SIM_SCENARIO_TARGET_SLOW },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[128];
		snprintf(text, sizeof text, "{do: %s, node: %s}", cases[i].ev,
			 sw->name);
		int id = sim_scenario_live_apply(l, model, "event", text,
						 strlen(text), err, sizeof err);
		ck_assert_msg(id > 0, "%s", err);
		ck_assert_int_eq(sim_scenario_live_target(l, sw->id, 0),
				 cases[i].f);
		ck_assert_int_eq(
		    sim_scenario_live_stop(l, model, id, err, sizeof err), 0);
		ck_assert_int_eq(sim_scenario_live_target(l, sw->id, 0),
				 SIM_SCENARIO_TARGET_OK);
	}
	/* A host is not a target. */
	const struct sim_node *h =
	    sim_topo_tier_node(sim_scenario_topo(scn), SIM_NODE_HOST, 0);
	char text[128];
	snprintf(text, sizeof text, "{do: target_garbage, node: %s}", h->name);
	ck_assert_int_lt(sim_scenario_live_apply(l, model, "event", text,
						 strlen(text), err, sizeof err),
			 0);
	sim_scenario_live_free(l);
	/* The model borrows the topology: free it first. */
	sim_model_free(model);
	model = NULL;
	sim_scenario_free(scn);
}
END_TEST

static Suite *sim_faults_suite(void)
{
	Suite *s = suite_create("sim_faults");
	TCase *tc = tcase_create("gnmi");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_reset_ends_every_stream_soon_after_it_opens);
	tcase_add_test(tc, test_garbage_streams_undecodable_messages);
	tcase_add_test(tc, test_drop_after_sync_ends_each_stream_at_its_sync);
	tcase_add_test(tc, test_wrong_types_writes_counters_as_text);
	tcase_add_test(tc, test_faults_chain_and_ok_restores);
	tcase_add_test(tc, test_fault_names_round_trip);
	tcase_add_test(tc, test_fault_events_set_and_stop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sim_faults_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
