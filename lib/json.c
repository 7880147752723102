/*
 * json: jansson helpers shared by the JSON writers (see json.h).
 *
 * Pure functions: no state, any thread.
 */

#include "config.h"

#include "json.h"

#include "mem.h"
#include "rfc3339.h"

#include <math.h>
#include <stdlib.h>

json_t *json_str(const char *s)
{
	if (!s)
		s = "";
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

json_t *json_num(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == trunc(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

json_t *json_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX
						    : (json_int_t)v);
}

json_t *json_secs(int64_t ns)
{
	return json_num((double)ns / 1e9);
}

json_t *json_time(int64_t ns)
{
	char buf[RFC3339_MAX];
	return json_string(rfc3339_format(ns, buf));
}
