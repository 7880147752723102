/*
 * fetch: blocking GETs with libcurl (see fetch.h).
 *
 * curl_global_init is called once, from the first fetch_new: fabtop is
 * single-threaded when it creates its client, as libcurl requires.
 */
#include "config.h"

#include "fetch.h"

#include "mem.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fetch {
	CURL *curl;
	char *base;
	char *body;
	size_t len, cap;
	bool too_big;
	char errbuf[CURL_ERROR_SIZE];
	char error[CURL_ERROR_SIZE + 64];
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *data)
{
	struct fetch *f = data;
	size_t n = size * nmemb;
	if (f->len + n + 1 > FETCH_MAX_BODY) {
		f->too_big = true;
		return 0;
	}
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 16384;
		while (cap < f->len + n + 1)
			cap *= 2;
		f->body = xrealloc(f->body, cap);
		f->cap = cap;
	}
	memcpy(f->body + f->len, ptr, n);
	f->len += n;
	f->body[f->len] = '\0';
	return n;
}

struct fetch *fetch_new(const char *base_url, long timeout_ms)
{
	static bool inited;
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return NULL;
		inited = true;
	}
	struct fetch *f = xcalloc(1, sizeof *f);
	f->curl = curl_easy_init();
	if (!f->curl) {
		free(f);
		return NULL;
	}
	f->base = xstrdup(base_url);
	size_t bl = strlen(f->base);
	while (bl > 0 && f->base[bl - 1] == '/')
		f->base[--bl] = '\0';
	CURL *c = f->curl;
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, f->errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "fabtop/" PACKAGE_VERSION);
	return f;
}

int fetch_set_auth(struct fetch *f, const struct fetch_auth *a)
{
	CURL *c = f->curl;
	CURLcode rc = CURLE_OK;
	const char *what = "";
	/* libcurl verifies the peer and its name by default; --insecure
	 * is the only way off. */
	if (a->ca_file && rc == CURLE_OK) {
		what = "CA file";
		rc = curl_easy_setopt(c, CURLOPT_CAINFO, a->ca_file);
	}
	if (a->insecure && rc == CURLE_OK) {
		what = "insecure";
		rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (a->client_cert && rc == CURLE_OK) {
		what = "client certificate";
		rc = curl_easy_setopt(c, CURLOPT_SSLCERT, a->client_cert);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_SSLKEY,
					      a->client_key ? a->client_key
							    : a->client_cert);
	}
	if (a->user && rc == CURLE_OK) {
		what = "basic auth";
		rc = curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_USERNAME, a->user);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_PASSWORD,
					      a->password ? a->password : "");
	}
	if (rc == CURLE_OK)
		return 0;
	snprintf(f->error, sizeof f->error, "%s: %s", what,
		 curl_easy_strerror(rc));
	return -1;
}

void fetch_free(struct fetch *f)
{
	if (!f)
		return;
	curl_easy_cleanup(f->curl);
	free(f->base);
	free(f->body);
	free(f);
}

int fetch_get(struct fetch *f, const char *path, const char **body, size_t *len)
{
	char *url = xasprintf("%s%s", f->base, path);
	f->len = 0;
	f->too_big = false;
	f->errbuf[0] = '\0';
	if (f->body)
		f->body[0] = '\0';
	curl_easy_setopt(f->curl, CURLOPT_URL, url);
	CURLcode rc = curl_easy_perform(f->curl);
	free(url);
	*body = f->body ? f->body : "";
	*len = f->len;
	if (f->too_big) {
		snprintf(f->error, sizeof f->error,
			 "%s: answer larger than %u MiB", path,
			 FETCH_MAX_BODY >> 20);
		return -1;
	}
	if (rc != CURLE_OK) {
		snprintf(f->error, sizeof f->error, "%s",
			 f->errbuf[0] ? f->errbuf : curl_easy_strerror(rc));
		return -1;
	}
	long code = 0;
	curl_easy_getinfo(f->curl, CURLINFO_RESPONSE_CODE, &code);
	return (int)code;
}

const char *fetch_error(const struct fetch *f)
{
	return f->error;
}

const char *fetch_base(const struct fetch *f)
{
	return f->base;
}

char *fetch_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *o = xmalloc(n * 3 + 1), *p = o;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~') {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return o;
}
