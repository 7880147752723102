/*
 * fuzz_api: the HTTP query side of the JSON API. The input is split
 * into a path and "key=value" parameters (NUL- or '&'-separated, as MHD
 * hands them over decoded) and served against a small store; the
 * Accept-Encoding parser and the Accept negotiation of /metrics get the
 * same bytes. Nothing may crash, leak or answer other than 200/400/404,
 * and the negotiation names one of the two formats.
 */
#include "config.h"

#include "api.h"
#include "buf.h"
#include "expfmt.h"
#include "health.h"
#include "http.h"
#include "store.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct store *st;
static struct health *hl;

static void setup(void)
{
	st = store_new(NULL);
	hl = health_new();
	struct store_key k = {
		.device = store_intern(st, "leaf1"),
		.port = store_intern(st, "Ethernet0"),
		.sub = 3,
		.counter = FM_C_PFC_RX_PAUSE,
	};
	struct store_series_spec spec = { .owner = k.device, .scale = 1e-6 };
	store_handle h = store_series(st, &k, &spec);
	store_update(st, h, 1000, 1000000000);
	store_update(st, h, 900000, 2000000000);
	health_target_set_up(health_target(hl, "leaf1", "gnmi"), true, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!st)
		setup();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	(void)http_accepts_gzip(text);
	enum expfmt f = expfmt_negotiate(text);
	if (f != EXPFMT_TEXT && f != EXPFMT_OPENMETRICS)
		abort();

	/* First token: the path; then parameters. */
	struct api_param params[16];
	size_t n = 0;
	char *save = NULL;
	char *path = strtok_r(text, "&", &save);
	for (char *tok = strtok_r(NULL, "&", &save); tok && n < 16;
	     tok = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		params[n].key = tok;
		params[n].value = eq;
		n++;
	}
	struct api_ctx ctx = { .st = st, .h = hl };
	struct buf b;
	buf_init(&b);
	int status =
	    api_serve(&ctx, path ? path : "/api/v1/ports", params, n, &b);
	if (status != 200 && status != 400 && status != 404 &&
	    status != -ENOMEM)
		abort();
	buf_fini(&b);
	free(text);
	return 0;
}
