/*
 * web_pki: test certificates and bcrypt hashes for the web config and
 * HTTPS tests, made at run time with the real tools: openssl (a CA, a
 * server certificate for IP 127.0.0.1 and a client certificate it
 * signs, a second CA with its own server certificate, and a self-signed
 * "rogue" client) and htpasswd -nbBC 10 (apache2-utils) for the users'
 * hashes. Everything goes into a fresh directory under TMPDIR, removed
 * by web_pki_remove. Header-only: each test program includes it once.
 */
#ifndef FABMON_TEST_WEB_PKI_H
#define FABMON_TEST_WEB_PKI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct web_pki {
	char dir[256];
	char alice[128]; /* bcrypt of "alice-pw" */
	char bob[128];	 /* bcrypt of "bob-pw" */
};

/* The bcrypt hash htpasswd makes for user:pass, into out. 0 or -1. */
static int web_pki_htpasswd(const char *user, const char *pass, char *out,
			    size_t len)
{
	char cmd[256], line[256];
	snprintf(cmd, sizeof cmd, "htpasswd -nbBC 10 '%s' '%s'", user, pass);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char *got = fgets(line, sizeof line, p);
	int rc = pclose(p);
	const char *colon = got ? strchr(line, ':') : NULL;
	if (rc != 0 || !colon)
		return -1;
	snprintf(out, len, "%s", colon + 1);
	out[strcspn(out, "\r\n")] = '\0';
	return 0;
}

/* 0, or -1 (with the reason on stderr) if a tool is missing or fails. */
static int web_pki_make(struct web_pki *p)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(p->dir, sizeof p->dir, "%s/fabmon-pki-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir))
		return -1;
	char path[300], cmd[700];
	snprintf(path, sizeof path, "%s/make.sh", p->dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(
	    "set -e\n"
	    "ec='-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes'\n"
	    "for ca in ca ca2; do\n"
	    "  openssl req -x509 $ec -keyout $ca.key -out $ca.crt -days 2 \\\n"
	    "    -subj /CN=fabmon-test-$ca\n"
	    "done\n"
	    "printf 'subjectAltName=IP:127.0.0.1\\n' >san.ext\n"
	    "sign() {\n"
	    "  openssl req $ec -keyout $1.key -out $1.csr -subj /CN=$1\n"
	    "  openssl x509 -req -in $1.csr -CA $2.crt -CAkey $2.key \\\n"
	    "    -CAcreateserial -out $1.crt -days 2 $3\n"
	    "}\n"
	    "sign server ca '-extfile san.ext'\n"
	    "sign server2 ca2 '-extfile san.ext'\n"
	    "sign client ca ''\n"
	    "openssl req -x509 $ec -keyout rogue.key -out rogue.crt -days 2 "
	    "\\\n"
	    "  -subj /CN=rogue\n",
	    f);
	if (fclose(f) != 0)
		return -1;
	snprintf(cmd, sizeof cmd, "cd '%s' && sh make.sh >openssl.log 2>&1",
		 p->dir);
	if (system(cmd) != 0) {
		fprintf(stderr,
			"web_pki: openssl failed (see %s/openssl.log)\n",
			p->dir);
		return -1;
	}
	if (web_pki_htpasswd("alice", "alice-pw", p->alice, sizeof p->alice) ||
	    web_pki_htpasswd("bob", "bob-pw", p->bob, sizeof p->bob)) {
		fprintf(stderr, "web_pki: htpasswd failed (apache2-utils)\n");
		return -1;
	}
	return 0;
}

static void web_pki_remove(const struct web_pki *p)
{
	char cmd[512];
	if (!p->dir[0])
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "web_pki: cannot remove %s\n", p->dir);
}

#endif
