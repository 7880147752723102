/*
 * home: the index page at "/" (see home.h). The endpoint list comes
 * from api.c's table, so a new API endpoint shows here without an edit.
 */
#include "config.h"

#include "home.h"

#include "api.h"
#include "fabmon_revision.h"

#include <string.h>

/* s with HTML's special characters as entities. */
static void put_html(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			buf_puts(b, "&amp;");
			break;
		case '<':
			buf_puts(b, "&lt;");
			break;
		case '>':
			buf_puts(b, "&gt;");
			break;
		case '"':
			buf_puts(b, "&quot;");
			break;
		case '\'':
			buf_puts(b, "&#39;");
			break;
		default:
			buf_putc(b, *s);
		}
	}
}

/* One list item: a relative link to path ("/metrics" -> "metrics"),
 * shown as the path, then what it is. */
static void put_link(struct buf *b, const char *path, const char *what)
{
	buf_puts(b, "<li><a href=\"");
	put_html(b, path + 1);
	buf_puts(b, "\"><code>");
	put_html(b, path);
	buf_puts(b, "</code></a>");
	if (what) {
		buf_puts(b, ": ");
		put_html(b, what);
	}
	buf_puts(b, "</li>\n");
}

int home_render(struct buf *out)
{
	buf_puts(out, "<!DOCTYPE html>\n"
		      "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<title>fabmond</title>\n</head>\n<body>\n"
		      "<h1>fabmond</h1>\n<p>");
	put_html(out, PACKAGE_NAME);
	buf_putc(out, ' ');
	put_html(out, PACKAGE_VERSION);
	buf_puts(out, " (revision <code>");
	put_html(out, FABMON_REVISION);
	buf_puts(out, "</code>): lossless RoCE v2 fabric telemetry.</p>\n"
		      "<ul>\n");
	put_link(out, "/metrics",
		 "Prometheus metrics (text format 0.0.4, or OpenMetrics "
		 "when asked)");
	put_link(out, "/healthz", "liveness probe");
	for (size_t i = 0; api_path_at(i); i++)
		put_link(out, api_path_at(i), NULL);
	buf_puts(out, "</ul>\n<p>The endpoints are described in "
		      "fabmond(8) and doc/api.md.</p>\n</body>\n</html>\n");
	return buf_error(out);
}
