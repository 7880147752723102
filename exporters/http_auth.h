/*
 * http_auth: HTTP basic authentication against the bcrypt hashes of a
 * web config's basic_auth_users (webcfg.h), checked with libxcrypt's
 * crypt_rn().
 *
 * A bcrypt costs tens of milliseconds of CPU by design; a scraper asks
 * every few seconds with the same credentials. As exporter-toolkit
 * does, a successful check is remembered: the SHA-256 of (user, hash,
 * password) goes into a small table (HTTP_AUTH_CACHE entries, the
 * oldest replaced), and a later request with the same triple is let in
 * on a digest match without a bcrypt. Only the digest is kept, never
 * the password. Failures are not remembered; their bcrypts run one at a
 * time, so guessing costs at most one CPU. An unknown user costs a
 * bcrypt too (against the first user's hash, result ignored), so that
 * timing does not tell which users exist. Comparisons of hashes and
 * digests take the same time whatever bytes differ.
 *
 * Threading: http_auth_check from any number of threads at once (the
 * table and the bcrypt each have a lock). Ownership: the checker
 * borrows the webcfg's user list, which must outlive it; it is dropped
 * with its web config on a reload, so the table starts empty with the
 * new users.
 */
#ifndef FABMON_HTTP_AUTH_H
#define FABMON_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

struct webcfg;

/* Successful checks remembered. */
#define HTTP_AUTH_CACHE 64

struct http_auth;

/* A checker for w's users (borrowed); NULL if w has none (no auth). */
struct http_auth *http_auth_new(const struct webcfg *w);

/* True if user (may be NULL: no credentials) and pass name a user of
 * the web config and match its hash. */
bool http_auth_check(struct http_auth *a, const char *user, const char *pass);

/* Checks that ran a bcrypt, and that the table answered (for tests). */
void http_auth_counts(struct http_auth *a, unsigned long *bcrypts,
		      unsigned long *hits);

/* Frees (zeroing the table); NULL ok. */
void http_auth_free(struct http_auth *a);

#endif
