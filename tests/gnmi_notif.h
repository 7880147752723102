/*
 * gnmi_notif.h: gNMI notifications built in tests the way protobuf-c
 * would decode them (updates with JSON, unsigned and string values,
 * deletes, an optional prefix with a target), and freed again. Shared
 * by the mapper's and the LLDP reader's suites.
 */
#ifndef FABMON_TESTS_GNMI_NOTIF_H
#define FABMON_TESTS_GNMI_NOTIF_H

#include "gnmi.pb-c.h"
#include "path.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct notif {
	Gnmi__Notification n;
	Gnmi__Update *u[512];
	Gnmi__Path *del[16];
};

static inline Gnmi__Path *mkpath(const char *s, const char *target)
{
	struct gnmi_path gp;
	char err[128];
	const char *text = s ? s : "/"; /* no path: the root */
	ck_assert_msg(gnmi_path_parse(text, &gp, err, sizeof err) == 0,
		      "%s: %s", text, err);
	if (target)
		gp.target = strdup(target);
	Gnmi__Path *pb = gnmi_path_to_pb(&gp);
	gnmi_path_clear(&gp);
	return pb;
}

static inline struct notif *nb_new(const char *prefix, const char *target,
				   int64_t ts)
{
	struct notif *b = calloc(1, sizeof *b);
	b->n = (Gnmi__Notification)GNMI__NOTIFICATION__INIT;
	b->n.timestamp = ts;
	if (prefix || target)
		b->n.prefix = mkpath(prefix, target);
	b->n.update = b->u;
	b->n.delete_ = b->del;
	return b;
}

static inline Gnmi__TypedValue *nb_add(struct notif *b, const char *path)
{
	ck_assert_uint_lt(b->n.n_update, 512);
	Gnmi__Update *u = calloc(1, sizeof *u);
	*u = (Gnmi__Update)GNMI__UPDATE__INIT;
	u->path = mkpath(path, NULL);
	u->val = calloc(1, sizeof *u->val);
	*u->val = (Gnmi__TypedValue)GNMI__TYPED_VALUE__INIT;
	b->u[b->n.n_update++] = u;
	return u->val;
}

static inline void nb_json(struct notif *b, const char *path, const char *json)
{
	Gnmi__TypedValue *v = nb_add(b, path);
	v->value_case = GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL;
	v->json_ietf_val.len = strlen(json);
	v->json_ietf_val.data = (uint8_t *)strdup(json);
}

static inline void nb_uint(struct notif *b, const char *path, uint64_t x)
{
	Gnmi__TypedValue *v = nb_add(b, path);
	v->value_case = GNMI__TYPED_VALUE__VALUE_UINT_VAL;
	v->uint_val = x;
}

static inline void nb_str(struct notif *b, const char *path, const char *s)
{
	Gnmi__TypedValue *v = nb_add(b, path);
	v->value_case = GNMI__TYPED_VALUE__VALUE_STRING_VAL;
	v->string_val = strdup(s);
}

static inline void nb_del(struct notif *b, const char *path)
{
	b->del[b->n.n_delete_++] = mkpath(path, NULL);
}

static inline void nb_free(struct notif *b)
{
	for (size_t i = 0; i < b->n.n_update; i++) {
		Gnmi__Update *u = b->u[i];
		if (u->val->value_case ==
		    GNMI__TYPED_VALUE__VALUE_JSON_IETF_VAL)
			free(u->val->json_ietf_val.data);
		if (u->val->value_case == GNMI__TYPED_VALUE__VALUE_STRING_VAL)
			free(u->val->string_val);
		free(u->val);
		gnmi_path_pb_free(u->path);
		free(u);
	}
	for (size_t i = 0; i < b->n.n_delete_; i++)
		gnmi_path_pb_free(b->del[i]);
	gnmi_path_pb_free(b->n.prefix);
	free(b);
}

#endif
