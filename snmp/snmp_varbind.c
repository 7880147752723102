/*
 * snmp_varbind: varbind -> value, sample and row (see snmp_varbind.h).
 */
#include "config.h"

#include "snmp_varbind.h"

#include <errno.h>
#include <string.h>

bool snmp_vb_is_exception(enum snmp_vb_kind k)
{
	return k == SNMP_VB_NOSUCHOBJECT || k == SNMP_VB_NOSUCHINSTANCE ||
	       k == SNMP_VB_ENDOFMIBVIEW;
}

static int decode_c64(const netsnmp_variable_list *vb, uint64_t *out)
{
	if (!vb->val.counter64 || vb->val_len < sizeof(struct counter64))
		return -EINVAL;
	/* u_long halves; the library keeps each within 32 bits. */
	*out = ((uint64_t)(vb->val.counter64->high & 0xffffffffUL) << 32) |
	       (uint64_t)(vb->val.counter64->low & 0xffffffffUL);
	return 0;
}

int snmp_vb_decode(const netsnmp_variable_list *vb, struct snmp_vb_value *out)
{
	memset(out, 0, sizeof *out);
	switch (vb->type) {
	case ASN_COUNTER:
	case ASN_GAUGE: /* also ASN_UNSIGNED */
	case ASN_TIMETICKS:
		if (!vb->val.integer || vb->val_len < sizeof(long))
			return -EINVAL;
		out->kind = vb->type == ASN_COUNTER ? SNMP_VB_COUNTER32
			    : vb->type == ASN_GAUGE ? SNMP_VB_GAUGE32
						    : SNMP_VB_TIMETICKS;
		out->u = (uint32_t)*vb->val.integer;
		return 0;
	case ASN_INTEGER:
		if (!vb->val.integer || vb->val_len < sizeof(long))
			return -EINVAL;
		out->kind = SNMP_VB_INTEGER;
		/* INTEGER is 32-bit signed on the wire. */
		out->i = (int32_t)*vb->val.integer;
		out->u = out->i >= 0 ? (uint64_t)out->i : 0;
		return 0;
	case ASN_COUNTER64:
		out->kind = SNMP_VB_COUNTER64;
		return decode_c64(vb, &out->u);
#ifdef ASN_OPAQUE_U64
	case ASN_OPAQUE_U64:
	case ASN_OPAQUE_COUNTER64:
		out->kind = SNMP_VB_UNSIGNED64;
		return decode_c64(vb, &out->u);
#endif
	case ASN_OCTET_STR:
		out->kind = SNMP_VB_STRING;
		if (vb->val_len && !vb->val.string)
			return -EINVAL;
		out->str = vb->val.string;
		out->len = vb->val_len;
		return 0;
	case ASN_OBJECT_ID:
		out->kind = SNMP_VB_OID;
		return 0;
	case ASN_IPADDRESS:
		out->kind = SNMP_VB_IPADDRESS;
		return 0;
	case ASN_NULL:
		out->kind = SNMP_VB_NULL;
		return 0;
	case SNMP_NOSUCHOBJECT:
		out->kind = SNMP_VB_NOSUCHOBJECT;
		return 0;
	case SNMP_NOSUCHINSTANCE:
		out->kind = SNMP_VB_NOSUCHINSTANCE;
		return 0;
	case SNMP_ENDOFMIBVIEW:
		out->kind = SNMP_VB_ENDOFMIBVIEW;
		return 0;
	default:
		out->kind = SNMP_VB_OTHER;
		return 0;
	}
}

static bool numeric(const struct snmp_vb_value *v, double *d)
{
	switch (v->kind) {
	case SNMP_VB_COUNTER32:
	case SNMP_VB_COUNTER64:
	case SNMP_VB_GAUGE32:
	case SNMP_VB_TIMETICKS:
	case SNMP_VB_UNSIGNED64:
		*d = (double)v->u;
		return true;
	case SNMP_VB_INTEGER:
		*d = (double)v->i;
		return true;
	default:
		return false;
	}
}

int snmp_vb_sample(const struct snmp_vb_value *v, enum snmp_vb_sample_kind kind,
		   const struct snmp_vb_map *map, struct snmp_vb_sample *out)
{
	memset(out, 0, sizeof *out);
	if (kind == SNMP_SAMPLE_GAUGE) {
		double d;
		if (!numeric(v, &d))
			return -EINVAL;
		if (map && map->n) {
			int64_t key =
			    v->kind == SNMP_VB_INTEGER ? v->i : (int64_t)v->u;
			if (v->kind != SNMP_VB_INTEGER && v->u > INT64_MAX)
				return -EINVAL;
			for (size_t i = 0; i < map->n; i++) {
				if (map->from[i] == key) {
					out->gauge = map->to[i];
					return 0;
				}
			}
			return -EINVAL;
		}
		out->gauge = d;
		return 0;
	}
	switch (v->kind) {
	case SNMP_VB_COUNTER32:
	case SNMP_VB_GAUGE32:
	case SNMP_VB_TIMETICKS:
		out->raw = v->u;
		out->width = 32;
		return 0;
	case SNMP_VB_INTEGER:
		/* Some MIBs count in Integer32 (ARISTA-PFC-MIB watchdog);
		 * a negative count is a broken agent, not a value. */
		if (v->i < 0)
			return -EINVAL;
		out->raw = (uint64_t)v->i;
		out->width = 32;
		return 0;
	case SNMP_VB_COUNTER64:
	case SNMP_VB_UNSIGNED64:
		out->raw = v->u;
		out->width = 64;
		return 0;
	default:
		return -EINVAL;
	}
}

int snmp_vb_check_width(const struct snmp_vb_sample *s, uint8_t width)
{
	return width && s->width != width ? -EPROTO : 0;
}

int snmp_vb_row(const oid *col, size_t col_len, const oid *name,
		size_t name_len, const struct snmp_vb_index *idx,
		struct snmp_vb_row *row)
{
	row->ifindex = 0;
	row->priority = -1;
	if (name_len <= col_len || memcmp(col, name, col_len * sizeof *col))
		return -ENOENT;
	const oid *sub = name + col_len;
	size_t n = name_len - col_len;
	if (n != idx->n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (sub[i] > UINT32_MAX)
			return -EINVAL;
		uint32_t s = (uint32_t)sub[i];
		switch (idx->el[i]) {
		case SNMP_IDX_PORT:
			if (s == 0)
				return -EINVAL;
			row->ifindex = s;
			break;
		case SNMP_IDX_PRIORITY:
			if (s < idx->priority_base ||
			    s - idx->priority_base > 7)
				return -EINVAL;
			row->priority = (int)(s - idx->priority_base);
			break;
		case SNMP_IDX_ANY:
			break;
		case SNMP_IDX_FIXED:
			if (s != idx->fixed[i])
				return -EINVAL;
			break;
		}
	}
	return 0;
}
