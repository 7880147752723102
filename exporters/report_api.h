/*
 * report_api: GET /api/v1/report (doc/api.md), the fabric validation
 * report: parses the query parameters, asks the report's history
 * (rules/report.h) for the figures of the range, judges them (pass,
 * warn, fail, with the reasons) and writes the JSON.
 *
 * Threads: any number at once, from any thread; the history is locked
 * only while report_query() copies the range.
 */
#ifndef FABMON_REPORT_API_H
#define FABMON_REPORT_API_H

#include "api.h"
#include "buf.h"

#include <stddef.h>
#include <stdint.h>

struct report;

/* /api/v1/report's top: stragglers listed by default and at most. */
#define REPORT_API_TOP_DEFAULT 10
#define REPORT_API_TOP_MAX     1000

/*
 * GET /api/v1/report at wall-clock now_ns: parameters from, to (RFC 3339
 * or epoch seconds) and top. Returns 200, 400 with {"error": ...}, or
 * -ENOMEM. rep NULL: a report of nothing (every figure 0, coverage
 * empty).
 */
int report_api_serve(struct report *rep, const struct api_param *params,
		     size_t n_params, struct buf *out, int64_t now_ns);

#endif
