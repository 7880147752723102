/*
 * fuzz_fabtop_json: fabtop's JSON model. The first byte picks the
 * parser (ports, targets, status, incidents, an error body, the report
 * formatter); the rest is the answer's body. Each parsed model is then
 * drawn by every view on a small canvas, in both glyph sets, so that
 * whatever the parsers let through is also safe to show.
 */
#include "config.h"

#include "canvas.h"
#include "fabtop_model.h"
#include "view.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static void draw_all(struct view_state *st, bool ascii)
{
	struct canvas *c = canvas_new(24, 80, ascii);
	for (int v = VIEW_OVERVIEW; v <= VIEW_TARGETS; v++) {
		st->view = (enum view_id)v;
		view_draw(st, c);
	}
	view_action(st, VA_VIEW1);
	view_action(st, VA_ENTER);
	view_draw(st, c);
	canvas_free(c);
	struct canvas *b = canvas_new(300, 100, ascii);
	view_draw_batch(st, b, 20);
	canvas_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	const char *body = (const char *)d + 1;
	size_t len = n - 1;
	char err[256];
	struct view_state st;
	view_init(&st, "http://127.0.0.1:9465");
	st.now = 1795985000;
	switch (d[0] % 6) {
	case 0:
		if (model_parse_ports(body, len, &st.ports, err, sizeof err) ==
		    0)
			st.have_ports = true;
		break;
	case 1:
		if (model_parse_targets(body, len, &st.targets, err,
					sizeof err) == 0)
			st.have_targets = true;
		break;
	case 2:
		if (model_parse_status(body, len, &st.status, err,
				       sizeof err) == 0)
			st.have_status = true;
		break;
	case 3:
		if (model_parse_incidents(body, len, &st.incidents, err,
					  sizeof err) == 0)
			st.incidents_http = 200;
		view_record_history(&st);
		break;
	case 4:
		free(model_parse_error(body, len));
		break;
	case 5:
		free(model_format_json(body, len));
		break;
	}
	draw_all(&st, d[0] & 0x80);
	view_fini(&st);
	return 0;
}
