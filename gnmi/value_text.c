/*
 * gnmi_value text: a view printed as a gNMI path string, and a JSON
 * string's raw bytes unescaped (the contracts are in value.h). Pure
 * functions into the caller's buffer, no state: any thread.
 */
#include "config.h"

#include "value.h"
#include "value_int.h"
#include "path_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* ---- printing ---- */

size_t gnmi_view_format(const struct gnmi_view *v, char *buf, size_t len)
{
	struct gnmi_path_out o = { buf, len, 0 };
	size_t n = v->n < GNMI_VIEW_MAX ? v->n : GNMI_VIEW_MAX;

	gnmi_path_out_start(&o, v->origin, n);
	for (size_t i = 0; i < n; i++) {
		const struct gnmi_view_elem *e = &v->elem[i];

		gnmi_path_out_elem(&o, e->name, e->name_len);
		for (size_t k = 0; k < e->n_keys; k++)
			gnmi_path_out_key(&o, e->keys[k].name,
					  e->keys[k].name_len, e->keys[k].value,
					  e->keys[k].value_len);
	}
	return gnmi_path_out_end(&o);
}

/* ---- JSON strings ---- */

static size_t put_utf8(char *b, uint32_t cp)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | cp >> 18);
	b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static uint32_t hex4(const char *p)
{
	return (uint32_t)(hex_val(p[0]) << 12 | hex_val(p[1]) << 8 |
			  hex_val(p[2]) << 4 | hex_val(p[3]));
}

int gnmi_json_unescape(const char *s, size_t len, char *buf, size_t buflen,
		       size_t *outlen)
{
	size_t i = 0, n = 0;

	while (i < len) {
		char c = s[i], u8[4];
		size_t k = 1;

		if (c != '\\') {
			u8[0] = c;
			i++;
		} else if (i + 1 >= len) {
			return -EINVAL;
		} else if (s[i + 1] != 'u') {
			static const char from[] = "\"\\/bfnrt",
					  to[] = "\"\\/\b\f\n\r\t";
			const char *f = memchr(from, s[i + 1], sizeof from - 1);

			if (f == NULL)
				return -EINVAL;
			u8[0] = to[f - from];
			i += 2;
		} else {
			uint32_t cp;

			if (len - i < 6 || !is_hex4(s + i + 2))
				return -EINVAL;
			cp = hex4(s + i + 2);
			i += 6;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return -EINVAL; /* a lone low surrogate */
			if (cp >= 0xd800 && cp <= 0xdbff) {
				uint32_t lo;

				if (len - i < 6 || s[i] != '\\' ||
				    s[i + 1] != 'u' || !is_hex4(s + i + 2))
					return -EINVAL;
				lo = hex4(s + i + 2);
				if (lo < 0xdc00 || lo > 0xdfff)
					return -EINVAL;
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
				i += 6;
			}
			k = put_utf8(u8, cp);
		}
		if (n + k >= buflen)
			return -ENOSPC;
		memcpy(buf + n, u8, k);
		n += k;
	}
	if (n >= buflen)
		return -ENOSPC;
	buf[n] = '\0';
	if (outlen)
		*outlen = n;
	return 0;
}
