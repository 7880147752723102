/*
 * fuzz_snmp_varbind: libFuzzer target for what the SNMP collector does
 * with a response from the network: net-snmp's BER parse of the PDU
 * (snmp_pdu_parse, the call its session layer makes on every datagram),
 * then, for every varbind, the collector's own conversions
 * (snmp_vb_decode, snmp_vb_sample as a counter and as a gauge with and
 * without a value map, snmp_vb_row under a row-index shape).
 *
 * Input: byte 0 picks the row-index shape the instances are read with
 * (ifIndex; ifIndex.priority with base 0 or 1; a fixed element then
 * ifIndex); the rest is a PDU as it follows the community in an SNMPv2c
 * message (tag 0xa2 for a Response).
 *
 * Contract checked besides memory errors: a decoded string lies inside
 * the varbind's buffer; a counter sample is 32 or 64 bits wide and a
 * 32-bit one fits in 32 bits; a row found has a priority in 0..7 (or -1)
 * and a non-zero ifIndex when the shape has a port.
 * Seeds: fuzz/corpus/snmp_varbind/ (see SOURCE there).
 */
#include "config.h"

#include "snmp_varbind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

/* IF-MIB ifHCInOctets, the column the instances are read under. */
static const oid column[] = { 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6 };
#define COLUMN_LEN (sizeof(column) / sizeof(column[0]))

static void pick_index(uint8_t sel, struct snmp_vb_index *idx)
{
	memset(idx, 0, sizeof(*idx));
	switch (sel % 4) {
	case 0:
		idx->el[0] = SNMP_IDX_PORT;
		idx->n = 1;
		break;
	case 1:
	case 2:
		idx->el[0] = SNMP_IDX_PORT;
		idx->el[1] = SNMP_IDX_PRIORITY;
		idx->n = 2;
		idx->priority_base = sel % 4 == 2 ? 1 : 0;
		break;
	default:
		idx->el[0] = SNMP_IDX_FIXED;
		idx->fixed[0] = 1;
		idx->el[1] = SNMP_IDX_PORT;
		idx->el[2] = SNMP_IDX_ANY;
		idx->n = 3;
		break;
	}
}

static void check_value(const netsnmp_variable_list *vb,
			const struct snmp_vb_value *v)
{
	if (v->kind == SNMP_VB_STRING && v->len > 0) {
		const uint8_t *b = vb->val.string;
		if (!b || v->str < b || v->str + v->len > b + vb->val_len)
			abort();
	}
	static const int64_t from[] = { 1, 2, 3 };
	static const double to[] = { 1.0, 0.0, 0.5 };
	const struct snmp_vb_map none = { NULL, NULL, 0 };
	const struct snmp_vb_map map = { from, to, 3 };
	struct snmp_vb_sample s;
	if (snmp_vb_sample(v, SNMP_SAMPLE_COUNTER, &none, &s) == 0) {
		if (s.width != 32 && s.width != 64)
			abort();
		if (s.width == 32 && s.raw > UINT32_MAX)
			abort();
	}
	(void)snmp_vb_sample(v, SNMP_SAMPLE_GAUGE, &none, &s);
	(void)snmp_vb_sample(v, SNMP_SAMPLE_GAUGE, &map, &s);
	(void)snmp_vb_is_exception(v->kind);
}

static void check_row(const netsnmp_variable_list *vb,
		      const struct snmp_vb_index *idx)
{
	struct snmp_vb_row row;
	if (snmp_vb_row(column, COLUMN_LEN, vb->name, vb->name_length, idx,
			&row) != 0)
		return;
	if (row.priority < -1 || row.priority > 7)
		abort();
	bool has_port = false;
	for (size_t i = 0; i < idx->n; i++)
		has_port |= idx->el[i] == SNMP_IDX_PORT;
	if (has_port && row.ifindex == 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	struct snmp_vb_index idx;
	pick_index(d[0], &idx);

	/* snmp_pdu_parse takes a writable buffer and its length. */
	size_t len = n - 1;
	u_char *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, d + 1, len);
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	if (pdu && snmp_pdu_parse(pdu, buf, &len) == 0) {
		for (const netsnmp_variable_list *vb = pdu->variables; vb;
		     vb = vb->next_variable) {
			struct snmp_vb_value v;
			if (snmp_vb_decode(vb, &v) == 0)
				check_value(vb, &v);
			check_row(vb, &idx);
		}
	}
	if (pdu)
		snmp_free_pdu(pdu);
	free(buf);
	return 0;
}
