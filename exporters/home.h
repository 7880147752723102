/*
 * home: the small HTML page fabmond serves at "/", so that a person who
 * opens the listen address in a browser sees what runs there (name,
 * version, source revision) and gets links to /metrics, /healthz and
 * the JSON API.
 *
 * Pure function of compile-time facts, no state: any thread.
 */
#ifndef FABMON_HOME_H
#define FABMON_HOME_H

#include "buf.h"

#define HOME_CONTENT_TYPE "text/html; charset=utf-8"

/*
 * Appends the page (HTML5, UTF-8) to out. The links are relative
 * ("metrics", "api/v1/ports"), so they still lead to the right place
 * behind a reverse proxy that serves fabmond under a path prefix.
 * 0 or -ENOMEM.
 */
int home_render(struct buf *out);

#endif
