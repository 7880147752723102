/*
 * http_auth: basic authentication with a cache of successes (see
 * http_auth.h).
 *
 * Threading: cache_lock guards the table and the counters; crypt_lock
 * serialises the bcrypts (each on the checker's one crypt_data, which
 * is large and so not on a thread's stack).
 */
#include "config.h"

#include "http_auth.h"

#include "mem.h"
#include "webcfg.h"

#include <crypt.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DIGEST_LEN 32 /* SHA-256 */

struct http_auth {
	const struct webcfg *w;
	pthread_mutex_t cache_lock;
	uint8_t cache[HTTP_AUTH_CACHE][DIGEST_LEN];
	size_t n_cache, next; /* entries used, the next to replace */
	unsigned long bcrypts, hits;
	pthread_mutex_t crypt_lock;
	struct crypt_data cd;
};

struct http_auth *http_auth_new(const struct webcfg *w)
{
	if (!w || w->n_users == 0)
		return NULL;
	struct http_auth *a = xcalloc(1, sizeof *a);
	a->w = w;
	pthread_mutex_init(&a->cache_lock, NULL);
	pthread_mutex_init(&a->crypt_lock, NULL);
	return a;
}

/* Equal in time that depends on the lengths only. */
static bool same_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
	const uint8_t *x = a, *y = b;
	size_t n = alen > blen ? alen : blen;
	uint8_t diff = alen != blen;
	for (size_t i = 0; i < n; i++)
		diff |=
		    (uint8_t)((i < alen ? x[i] : 0) ^ (i < blen ? y[i] : 0));
	return diff == 0;
}

/* SHA-256 of user NUL hash NUL pass; false if GnuTLS fails. */
static bool digest_of(const char *user, const char *hash, const char *pass,
		      uint8_t out[DIGEST_LEN])
{
	size_t lu = strlen(user), lh = strlen(hash), lp = strlen(pass);
	size_t len = lu + lh + lp + 2;
	char *buf = malloc(len);
	if (!buf)
		return false;
	memcpy(buf, user, lu + 1);
	memcpy(buf + lu + 1, hash, lh + 1);
	memcpy(buf + lu + lh + 2, pass, lp);
	int g = gnutls_hash_fast(GNUTLS_DIG_SHA256, buf, len, out);
	explicit_bzero(buf, len);
	free(buf);
	return g == 0;
}

static bool cache_has(struct http_auth *a, const uint8_t d[DIGEST_LEN])
{
	bool found = false;
	pthread_mutex_lock(&a->cache_lock);
	/* Every entry is compared: the time tells nothing of which. */
	for (size_t i = 0; i < a->n_cache; i++)
		found |= same_bytes(a->cache[i], DIGEST_LEN, d, DIGEST_LEN);
	if (found)
		a->hits++;
	pthread_mutex_unlock(&a->cache_lock);
	return found;
}

static void cache_put(struct http_auth *a, const uint8_t d[DIGEST_LEN])
{
	pthread_mutex_lock(&a->cache_lock);
	memcpy(a->cache[a->next], d, DIGEST_LEN);
	a->next = (a->next + 1) % HTTP_AUTH_CACHE;
	if (a->n_cache < HTTP_AUTH_CACHE)
		a->n_cache++;
	pthread_mutex_unlock(&a->cache_lock);
}

/* True if bcrypt(pass, hash) is hash. */
static bool bcrypt_matches(struct http_auth *a, const char *hash,
			   const char *pass)
{
	pthread_mutex_lock(&a->crypt_lock);
	const char *out = crypt_rn(pass, hash, &a->cd, sizeof a->cd);
	bool ok = out && same_bytes(out, strlen(out), hash, strlen(hash));
	explicit_bzero(&a->cd, sizeof a->cd);
	pthread_mutex_lock(&a->cache_lock);
	a->bcrypts++;
	pthread_mutex_unlock(&a->cache_lock);
	pthread_mutex_unlock(&a->crypt_lock);
	return ok;
}

bool http_auth_check(struct http_auth *a, const char *user, const char *pass)
{
	if (!a)
		return true;
	if (!user || !pass)
		return false;
	const char *hash = NULL;
	for (size_t i = 0; i < a->w->n_users; i++)
		if (strcmp(a->w->users[i].name, user) == 0)
			hash = a->w->users[i].value;
	if (!hash) {
		/* As long as a known user's check. */
		(void)bcrypt_matches(a, a->w->users[0].value, pass);
		return false;
	}
	uint8_t d[DIGEST_LEN];
	bool have_digest = digest_of(user, hash, pass, d);
	if (have_digest && cache_has(a, d))
		return true;
	if (!bcrypt_matches(a, hash, pass))
		return false;
	if (have_digest)
		cache_put(a, d);
	return true;
}

void http_auth_counts(struct http_auth *a, unsigned long *bcrypts,
		      unsigned long *hits)
{
	pthread_mutex_lock(&a->cache_lock);
	*bcrypts = a->bcrypts;
	*hits = a->hits;
	pthread_mutex_unlock(&a->cache_lock);
}

void http_auth_free(struct http_auth *a)
{
	if (!a)
		return;
	explicit_bzero(a->cache, sizeof a->cache);
	pthread_mutex_destroy(&a->cache_lock);
	pthread_mutex_destroy(&a->crypt_lock);
	free(a);
}
