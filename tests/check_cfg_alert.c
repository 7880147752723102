/*
 * check_cfg_alert: the alertmanager: section's URLs, auth and TLS keys
 * (rules/cfg_alert.c). urls is a list and url its one-element alias;
 * basic_auth and authorization read their secrets from files (trimmed,
 * re-read by every load, never shown) and exclude each other; the
 * tls_config files must be regular files fabmond can open; every bad
 * value names file:line:col and key.
 *
 * Files for *_file keys are made under $TMPDIR (or /tmp) and removed.
 */
#include "config.h"

#include "alert.h"
#include "cfg.h"
#include "fabmond.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[1024];
static char dir[256];			 /* a temporary directory */
static char pass[300], tok[300];	 /* secret files */
static char ca[300], crt[300], key[300]; /* "PEM" files (any content) */
static char fifo[300];

static struct cfg *load(const char *yaml)
{
	return cfg_load_buffer(fabmond_cfg_schema(), "t.yaml", yaml,
			       strlen(yaml), err, sizeof err);
}

static void put(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/check_cfg_alert.XXXXXX",
		 t && *t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pass, sizeof pass, "%s/pass", dir);
	snprintf(tok, sizeof tok, "%s/token", dir);
	snprintf(ca, sizeof ca, "%s/ca.pem", dir);
	snprintf(crt, sizeof crt, "%s/crt.pem", dir);
	snprintf(key, sizeof key, "%s/key.pem", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	put(pass, "pa:ss word\n");
	put(tok, "t0ken\r\n");
	put(ca, "ca\n");
	put(crt, "crt\n");
	put(key, "key\n");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
}

static void teardown(void)
{
	const char *files[] = { pass, tok, ca, crt, key, fifo };
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		unlink(files[i]);
	rmdir(dir);
}

/* printf into a static buffer: a YAML text naming the temp files. */
__attribute__((format(printf, 1, 2))) static const char *yaml(const char *fmt,
							      ...)
{
	static char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

START_TEST(test_urls_list_and_url_alias)
{
	struct cfg *c = load("alertmanager:\n"
			     "  urls: [http://127.0.0.1:9093/, "
			     "'https://am2.example:9093/x//']\n");
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->alert.n_urls, 2);
	ck_assert_str_eq(c->alert.urls[0], "http://127.0.0.1:9093");
	ck_assert_str_eq(c->alert.urls[1], "https://am2.example:9093/x");
	ck_assert_ptr_null(c->alert.username);
	ck_assert_ptr_null(c->alert.auth_type);
	ck_assert_int_eq(c->alert.tls_min, CFG_ALERT_TLS_DEFAULT);
	cfg_free(c);

	c = load("alertmanager: {url: 'http://am:9093'}\n");
	ck_assert_msg(c, "%s", err);
	ck_assert_uint_eq(c->alert.n_urls, 1);
	ck_assert_str_eq(c->alert.urls[0], "http://am:9093");
	cfg_free(c);
}
END_TEST

START_TEST(test_auth_and_tls_keys_load)
{
	struct cfg *c = load(yaml("alertmanager:\n"
				  "  urls: [https://a:9093, http://b:9093]\n"
				  "  basic_auth: {username: fabmon, "
				  "password_file: '%s'}\n"
				  "  tls_config:\n"
				  "    ca_file: '%s'\n"
				  "    cert_file: '%s'\n"
				  "    key_file: '%s'\n"
				  "    server_name: am.example\n"
				  "    insecure_skip_verify: true\n"
				  "    min_version: TLS13\n",
				  pass, ca, crt, key));
	ck_assert_msg(c, "%s", err);
	ck_assert_str_eq(c->alert.username, "fabmon");
	/* One trailing newline goes; the colon and space stay. */
	ck_assert_str_eq(c->alert.password, "pa:ss word");
	ck_assert_str_eq(c->alert.ca_file, ca);
	ck_assert_str_eq(c->alert.cert_file, crt);
	ck_assert_str_eq(c->alert.key_file, key);
	ck_assert_str_eq(c->alert.server_name, "am.example");
	ck_assert(c->alert.insecure_skip_verify);
	ck_assert_int_eq(c->alert.tls_min, CFG_ALERT_TLS13);
	cfg_free(c);

	c = load(yaml("alertmanager:\n"
		      "  url: http://a:9093\n"
		      "  authorization: {credentials_file: '%s'}\n",
		      tok));
	ck_assert_msg(c, "%s", err);
	ck_assert_str_eq(c->alert.auth_type, "Bearer");
	ck_assert_str_eq(c->alert.credentials, "t0ken");
	cfg_free(c);

	c = load("alertmanager:\n"
		 "  url: http://a:9093\n"
		 "  authorization: {type: Token, credentials: abc}\n"
		 "  basic_auth: ~\n");
	ck_assert_ptr_null(c); /* basic_auth: ~ is still given */
	c = load("alertmanager:\n"
		 "  url: http://a:9093\n"
		 "  authorization: {type: Token, credentials: abc}\n");
	ck_assert_msg(c, "%s", err);
	ck_assert_str_eq(c->alert.auth_type, "Token");
	ck_assert_str_eq(c->alert.credentials, "abc");
	cfg_free(c);
}
END_TEST

/* A secret file is read by every load: a reload sees the new one and
 * the pusher is replaced (alert_cfg_equal). */
START_TEST(test_secret_files_are_reread_on_reload)
{
	const char *y = yaml("alertmanager:\n"
			     "  url: http://a:9093\n"
			     "  authorization: {credentials_file: '%s'}\n",
			     tok);
	char text[4096];
	snprintf(text, sizeof text, "%s", y);
	struct cfg *a = load(text);
	ck_assert_msg(a, "%s", err);
	struct cfg *b = load(text);
	ck_assert_msg(b, "%s", err);
	ck_assert(alert_cfg_equal(&a->alert, &b->alert));
	cfg_free(b);
	put(tok, "rotated\n");
	b = load(text);
	ck_assert_msg(b, "%s", err);
	ck_assert_str_eq(b->alert.credentials, "rotated");
	ck_assert(!alert_cfg_equal(&a->alert, &b->alert));
	cfg_free(a);
	cfg_free(b);
}
END_TEST

struct bad {
	const char *yaml; /* %s: the temp directory */
	const char *msg;  /* the message's start; %s: the temp directory */
};

static const struct bad bad[] = {
	{ "alertmanager: {resend: 1m}\n",
	  "t.yaml:1:15: alertmanager: missing required key \"urls\" (or "
	  "\"url\")" },
	{ "alertmanager:\n  url: http://a\n  urls: [http://b]\n",
	  "t.yaml:3:9: alertmanager.urls: use url or urls, not both" },
	{ "alertmanager:\n  urls: []\n",
	  "t.yaml:2:9: alertmanager.urls: needs 1 to 16 URLs, not 0" },
	{ "alertmanager:\n  urls: http://a\n",
	  "t.yaml:2:9: alertmanager.urls: " },
	{ "alertmanager:\n  urls: [http://a, 'ftp://b']\n",
	  "t.yaml:2:20: alertmanager.urls[1]: \"ftp://b\" is not an http:// or "
	  "https:// URL" },
	{ "alertmanager:\n  urls: [http://a, 'http://a/']\n",
	  "t.yaml:2:20: alertmanager.urls[1]: \"http://a/\" is listed twice" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {password: x}\n",
	  "t.yaml:3:15: alertmanager.basic_auth: missing required key "
	  "\"username\"" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: u}\n",
	  "t.yaml:3:15: alertmanager.basic_auth: needs password or "
	  "password_file" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: 'a:b', "
	  "password: x}\n",
	  "t.yaml:3:26: alertmanager.basic_auth.username: must be a non-empty "
	  "name without ':'" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: u, "
	  "password: x, password_file: %s/pass}\n",
	  "t.yaml:3:57: alertmanager.basic_auth.password_file: use password "
	  "or password_file, not both" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: u, "
	  "password_file: %s/nope}\n",
	  "t.yaml:3:44: alertmanager.basic_auth.password_file: \"%s/nope\": "
	  "cannot open: No such file or directory" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: u, "
	  "password_file: %s/fifo}\n",
	  "t.yaml:3:44: alertmanager.basic_auth.password_file: \"%s/fifo\": "
	  "not a regular file (fifo)" },
	{ "alertmanager:\n  url: http://a\n  basic_auth: {username: u, "
	  "password: x}\n  authorization: {credentials: y}\n",
	  "t.yaml:4:18: alertmanager.authorization: use basic_auth or "
	  "authorization, not both" },
	{ "alertmanager:\n  url: http://a\n  authorization: {type: Bearer}\n",
	  "t.yaml:3:18: alertmanager.authorization: needs credentials or "
	  "credentials_file" },
	{ "alertmanager:\n  url: http://a\n  authorization: {type: basic, "
	  "credentials: y}\n",
	  "t.yaml:3:25: alertmanager.authorization.type: Basic: use "
	  "basic_auth instead" },
	{ "alertmanager:\n  url: http://a\n  authorization: {type: 'Be arer', "
	  "credentials: y}\n",
	  "t.yaml:3:25: alertmanager.authorization.type: is not an HTTP auth "
	  "scheme" },
	{ "alertmanager:\n  url: http://a\n  authorization: {credentials_file: "
	  "%s}\n",
	  "t.yaml:3:37: alertmanager.authorization.credentials_file: \"%s\": "
	  "not a regular file (directory)" },
	{ "alertmanager:\n  url: http://a\n  authorization: [x]\n",
	  "t.yaml:3:18: alertmanager.authorization: expected a mapping" },
	{ "alertmanager:\n  url: https://a\n  tls_config: {ca_file: %s/no}\n",
	  "t.yaml:3:25: alertmanager.tls_config.ca_file: \"%s/no\": cannot "
	  "open: " },
	{ "alertmanager:\n  url: https://a\n  tls_config: {ca_file: %s/fifo}\n",
	  "t.yaml:3:25: alertmanager.tls_config.ca_file: \"%s/fifo\": cannot "
	  "open: not a regular file (fifo)" },
	{ "alertmanager:\n  url: https://a\n  tls_config: {cert_file: "
	  "%s/crt.pem}\n",
	  "t.yaml:3:27: alertmanager.tls_config.cert_file: needs key_file too "
	  "(they go together)" },
	{ "alertmanager:\n  url: https://a\n  tls_config: {key_file: "
	  "%s/key.pem}\n",
	  "t.yaml:3:26: alertmanager.tls_config.key_file: needs cert_file too "
	  "(they go together)" },
	{ "alertmanager:\n  url: https://a\n  tls_config: {min_version: "
	  "TLS14}\n",
	  "t.yaml:3:29: alertmanager.tls_config.min_version: " },
	{ "alertmanager:\n  url: https://a\n  tls_config: "
	  "{insecure_skip_verify: maybe}\n",
	  "t.yaml:3:38: alertmanager.tls_config.insecure_skip_verify: " },
	{ "alertmanager:\n  url: https://a\n  tls_config: {server_name: "
	  "'a/b'}\n",
	  "t.yaml:3:29: alertmanager.tls_config.server_name: is not a host "
	  "name" },
	{ "alertmanager:\n  url: http://a\n  tls_config: {server_name: b}\n",
	  "t.yaml:3:15: alertmanager.tls_config: no url is https://" },
	{ "alertmanager:\n  url: https://a\n  tls_config: {sni: b}\n",
	  "t.yaml:3:16: alertmanager.tls_config.sni: unknown key" },
};

/* tmpl with every "%s" replaced by the temp directory. */
static void fill(char *out, size_t len, const char *tmpl)
{
	size_t n = 0;
	for (const char *p = tmpl; *p && n + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 's') {
			n += (size_t)snprintf(out + n, len - n, "%s", dir);
			p++;
			continue;
		}
		out[n++] = *p;
	}
	out[n < len ? n : len - 1] = '\0';
}

START_TEST(test_bad_values_name_file_line_col_and_key)
{
	char y[1024], want[1024];
	fill(y, sizeof y, bad[_i].yaml);
	fill(want, sizeof want, bad[_i].msg);
	struct cfg *c = load(y);
	ck_assert_msg(!c, "accepted: %s", y);
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
		      "case %d: got '%s', want '%s...'", _i, err, want);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

/* No message quotes what a secret file holds. */
START_TEST(test_secrets_never_appear_in_messages)
{
	struct cfg *c = load(yaml("alertmanager:\n"
				  "  url: http://a\n"
				  "  basic_auth: {username: u, "
				  "password_file: '%s'}\n"
				  "  resend: never\n",
				  pass));
	ck_assert_ptr_null(c);
	ck_assert_ptr_nonnull(strstr(err, "alertmanager.resend"));
	ck_assert_ptr_null(strstr(err, "pa:ss"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cfg_alert");
	TCase *tc = tcase_create("cfg_alert");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_urls_list_and_url_alias);
	tcase_add_test(tc, test_auth_and_tls_keys_load);
	tcase_add_test(tc, test_secret_files_are_reread_on_reload);
	tcase_add_loop_test(tc, test_bad_values_name_file_line_col_and_key, 0,
			    (int)(sizeof bad / sizeof *bad));
	tcase_add_test(tc, test_secrets_never_appear_in_messages);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
