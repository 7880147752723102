/*
 * fabtop: a live terminal view of the fabric, a client of fabmond's HTTP
 * API. Parses the command line and runs one of three front ends: the
 * interactive curses view (ui.c), batch mode (plain text frames on
 * stdout, like top -b) or --report (the rule engine's validation
 * report, printed once).
 */
#include "config.h"

#include "app.h"
#include "fetch.h"
#include "fabtop_model.h"
#include "rfile.h"
#include "ui.h"
#include "view.h"

#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_URL "http://127.0.0.1:" FABMON_DEFAULT_PORT

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: fabtop [-u URL] [-d DELAY] [-b] [-n COUNT] [-N PORTS]\n"
		"              [--ascii] [--no-colour]\n"
		"       fabtop [-u URL] --report FROM TO\n"
		"A live view of the fabric from fabmond's HTTP API.\n"
		"\n"
		"  -u, --url URL      fabmond's address (default $FABMON_URL "
		"or %s)\n"
		"  -d, --delay SECS   seconds between refreshes (default 1, "
		"at least 0.1)\n"
		"  -b, --batch        print plain text frames, like top -b\n"
		"  -n, --count N      frames to print in batch mode, then exit "
		"(default: until killed)\n"
		"  -N, --ports N      ports to ask for per refresh (default "
		"2000)\n"
		"      --ascii        ASCII lines and sparklines only\n"
		"      --no-colour    no colours (bold, underline and reverse "
		"instead)\n"
		"      --cacert FILE  CAs for fabmond's HTTPS certificate\n"
		"      --cert FILE    client certificate (PEM), --key FILE "
		"its key\n"
		"  -k, --insecure     do not verify fabmond's certificate\n"
		"      --user USER    basic auth user, with --password-file "
		"FILE\n"
		"      --report FROM TO  print the rule engine's validation "
		"report between two\n"
		"                     times (as fabmond accepts them: epoch "
		"seconds or RFC 3339);\n"
		"                     exit 3 on a fail verdict\n"
		"  -h, --help         this help\n"
		"  -V, --version      the version\n"
		"\nKeys: 1-5 views, Enter drill down, Esc back, s/F6 sort, / "
		"filter, p pause, h help, q quit.\n",
		DEFAULT_URL);
}

static double now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int batch_width(void)
{
	const char *c = getenv("COLUMNS");
	long w = c ? strtol(c, NULL, 10) : 0;
	return w >= 40 && w <= 1000 ? (int)w : 120;
}

static int run_batch(struct view_state *st, struct fetch *f, double delay,
		     long count, int port_limit, bool ascii)
{
	int width = batch_width();
	int ok = 0;
	for (long i = 0; count <= 0 || i < count; i++) {
		if (i > 0)
			sleep_seconds(delay);
		if (app_refresh(st, f, port_limit, now_real()) == 0 &&
		    !st->error)
			ok++;
		st->now = now_real();
		/* Tall enough for every incident tree, 20 ports, the NICs
		 * and every target. */
		size_t rows = 64 + st->targets.n + st->ports.n;
		for (size_t k = 0; k < st->incidents.n_active; k++)
			rows += st->incidents.active[k].n_tree + 4;
		rows += st->incidents.n_recent;
		if (rows > 200000)
			rows = 200000;
		struct canvas *c = canvas_new((int)rows, width, ascii);
		view_draw_batch(st, c, 20);
		char *line = malloc((size_t)width * 4 + 1);
		if (!line) {
			canvas_free(c);
			return 1;
		}
		for (int r = 0; r < c->used; r++) {
			canvas_line(c, r, line, (size_t)width * 4 + 1);
			puts(line);
		}
		putchar('\n');
		free(line);
		canvas_free(c);
		if (fflush(stdout) == EOF)
			return 1;
	}
	return ok ? 0 : 1;
}

static int run_report(struct fetch *f, const char *from, const char *to)
{
	char *ef = fetch_escape(from), *et = fetch_escape(to);
	size_t n = strlen(ef) + strlen(et) + 64;
	char *path = malloc(n);
	if (!path) {
		free(ef);
		free(et);
		return 1;
	}
	snprintf(path, n, "/api/v1/report?from=%s&to=%s", ef, et);
	free(ef);
	free(et);
	const char *body;
	size_t len;
	int code = fetch_get(f, path, &body, &len);
	free(path);
	if (code < 0) {
		fprintf(stderr, "fabtop: %s: %s\n", fetch_base(f),
			fetch_error(f));
		return 1;
	}
	if (code == 404) {
		fprintf(stderr,
			"fabtop: this fabmond has no report endpoint "
			"(%s/api/v1/report: 404)\n",
			fetch_base(f));
		return 1;
	}
	if (code != 200) {
		char *e = model_parse_error(body, len);
		fprintf(stderr, "fabtop: /api/v1/report: HTTP %d%s%s\n", code,
			e ? ": " : "", e ? e : "");
		free(e);
		return 1;
	}
	enum model_verdict verdict;
	char *text = model_format_report(body, len, &verdict);
	if (!text)
		text = model_format_json(body, len);
	if (!text) {
		fprintf(stderr, "fabtop: /api/v1/report: the answer is not "
				"JSON\n");
		return 1;
	}
	fputs(text, stdout);
	free(text);
	if (fflush(stdout) == EOF)
		return 1;
	return verdict == MODEL_VERDICT_FAIL ? 3 : 0;
}

/* The command line. */
struct opts {
	const char *url;
	double delay;
	long count, port_limit;
	bool batch, ascii, colour;
	const char *report_from, *report_to;
	struct fetch_auth auth;
	const char *password_file;
};

enum {
	OPT_ASCII = 256,
	OPT_NO_COLOUR,
	OPT_REPORT,
	OPT_CACERT,
	OPT_CERT,
	OPT_KEY,
	OPT_USER,
	OPT_PASSWORD_FILE
};

/* The HTTPS and basic auth options. */
static void set_auth_opt(int c, const char *arg, struct opts *o)
{
	switch (c) {
	case OPT_CACERT:
		o->auth.ca_file = arg;
		break;
	case OPT_CERT:
		o->auth.client_cert = arg;
		break;
	case OPT_KEY:
		o->auth.client_key = arg;
		break;
	case 'k':
		o->auth.insecure = true;
		break;
	case OPT_USER:
		o->auth.user = arg;
		break;
	default:
		o->password_file = arg;
		break;
	}
}

/*
 * The password of --password-file (a regular file, its one line without
 * the newline), so that it never shows on the command line; NULL after
 * a message.
 */
static char *read_password(const char *path)
{
	char err[160];
	size_t len = 0;
	char *pw = rfile_load(path, 4096, &len, err, sizeof err, NULL);
	if (!pw) {
		fprintf(stderr, "fabtop: --password-file %s: %s\n", path, err);
		return NULL;
	}
	if (len > 0 && pw[len - 1] == '\n')
		pw[--len] = '\0';
	if (len > 0 && pw[len - 1] == '\r')
		pw[--len] = '\0';
	return pw;
}

/* -d, -n or -N's argument: 0, or the exit status 2 after a message. */
static int parse_number(int c, const char *arg, struct opts *o)
{
	char *end;
	errno = 0;
	switch (c) {
	case 'd':
		o->delay = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->delay >= 0.1) ||
		    o->delay > 86400) {
			fprintf(stderr,
				"fabtop: -d: '%s' is not a number of "
				"seconds from 0.1 to 86400\n",
				arg);
			return 2;
		}
		break;
	case 'n':
		o->count = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->count < 1) {
			fprintf(stderr,
				"fabtop: -n: '%s' is not a positive "
				"integer\n",
				arg);
			return 2;
		}
		break;
	default:
		o->port_limit = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->port_limit < 1 ||
		    o->port_limit > 100000) {
			fprintf(stderr,
				"fabtop: -N: '%s' is not an integer "
				"from 1 to 100000\n",
				arg);
			return 2;
		}
		break;
	}
	return 0;
}

/* Reads the command line into o: -1 to go on, else the exit status. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "delay", required_argument, NULL, 'd' },
		{ "batch", no_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' },
		{ "ports", required_argument, NULL, 'N' },
		{ "ascii", no_argument, NULL, OPT_ASCII },
		{ "no-colour", no_argument, NULL, OPT_NO_COLOUR },
		{ "no-color", no_argument, NULL, OPT_NO_COLOUR },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "cacert", required_argument, NULL, OPT_CACERT },
		{ "cert", required_argument, NULL, OPT_CERT },
		{ "key", required_argument, NULL, OPT_KEY },
		{ "insecure", no_argument, NULL, 'k' },
		{ "user", required_argument, NULL, OPT_USER },
		{ "password-file", required_argument, NULL, OPT_PASSWORD_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof *o);
	o->url = getenv("FABMON_URL");
	if (!o->url || !*o->url)
		o->url = DEFAULT_URL;
	o->delay = 1;
	o->port_limit = 2000;
	o->colour = true;
	int c;
	while ((c = getopt_long(argc, argv, "u:d:bn:N:khV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'u':
			o->url = optarg;
			break;
		case 'd':
		case 'n':
		case 'N':
			if (parse_number(c, optarg, o))
				return 2;
			break;
		case 'b':
			o->batch = true;
			break;
		case OPT_ASCII:
			o->ascii = true;
			break;
		case OPT_CACERT:
		case OPT_CERT:
		case OPT_KEY:
		case 'k':
		case OPT_USER:
		case OPT_PASSWORD_FILE:
			set_auth_opt(c, optarg, o);
			break;
		case OPT_NO_COLOUR:
			o->colour = false;
			break;
		case OPT_REPORT:
			o->report_from = optarg;
			if (optind >= argc) {
				fprintf(stderr, "fabtop: --report needs FROM "
						"and TO\n");
				return 2;
			}
			o->report_to = argv[optind++];
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("fabtop %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fabtop: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!o->auth.user != !o->password_file) {
		fprintf(stderr, "fabtop: --user and --password-file go "
				"together\n");
		return 2;
	}
	if (strncmp(o->url, "http://", 7) != 0 &&
	    strncmp(o->url, "https://", 8) != 0) {
		fprintf(stderr,
			"fabtop: -u: '%s' is not an http:// or https:// URL\n",
			o->url);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc = parse_args(&o, argc, argv);
	if (rc >= 0)
		return rc;

	setlocale(LC_ALL, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		o.ascii = true;

	long timeout_ms = (long)(o.delay * 1000);
	if (timeout_ms < 1000)
		timeout_ms = 1000;
	if (timeout_ms > 5000)
		timeout_ms = 5000;
	char *password = NULL;
	if (o.password_file && !(password = read_password(o.password_file)))
		return 2;
	o.auth.password = password;
	struct fetch *f = fetch_new(o.url, timeout_ms);
	rc = f ? fetch_set_auth(f, &o.auth) : -1;
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
	if (rc < 0) {
		fprintf(stderr, "fabtop: cannot set up libcurl%s%s\n",
			f ? ": " : "", f ? fetch_error(f) : "");
		fetch_free(f);
		return 1;
	}
	if (o.report_from) {
		rc = run_report(f, o.report_from, o.report_to);
	} else {
		struct view_state st;
		view_init(&st, fetch_base(f));
		if (o.batch) {
			rc = run_batch(&st, f, o.delay, o.count,
				       (int)o.port_limit, o.ascii);
		} else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "fabtop: not a terminal; use -b for "
					"batch mode\n");
			rc = 2;
		} else {
			struct ui_opts uo = { o.delay, (int)o.port_limit,
					      o.ascii, o.colour };
			rc = ui_run(&st, f, &uo);
		}
		view_fini(&st);
	}
	fetch_free(f);
	return rc;
}
