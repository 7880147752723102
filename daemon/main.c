/*
 * fabmond: command line. Everything else lives in libfabmon (fabmond.c
 * for the lifecycle), which the tests link too.
 */
#include "config.h"

#include "fabmond.h"
#include "log.h"
#include "mem.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabmond [-c FILE] [-f] [-D SUBSYSTEM]... "
		"[--check-config] [--version]\n"
		"\n"
		"Watch a lossless RoCE v2 fabric and serve what it sees as "
		"Prometheus metrics.\n"
		"\n"
		"  -c, --config FILE   configuration file (default %s)\n"
		"  -f, --foreground    stay in the foreground (as under "
		"systemd)\n"
		"  -D, --debug SUBSYS  debug output of a subsystem; repeat or "
		"separate with\n"
		"                      commas; \"all\" for every one\n"
		"      --check-config  validate the configuration and exit 0 "
		"or 1\n"
		"  -V, --version       print the version and exit\n"
		"  -h, --help          print this help and exit\n"
		"\n"
		"Subsystems:",
		fabmond_default_config());
	for (int i = 0; log_subsystems[i]; i++)
		fprintf(f, " %s", log_subsystems[i]);
	fprintf(f, "\n\nSee fabmond(8) and fabmon.yaml(5).\n");
}

/* Forks into the background; the parent exits once the child is
 * serving (0) or has failed to start (its status). Returns the write
 * end of the readiness pipe in the child. */
static int daemonize(void)
{
	int fds[2];
	if (pipe(fds) < 0) {
		perror("fabmond: pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fabmond: fork");
		exit(1);
	}
	if (pid > 0) {
		close(fds[1]);
		char c;
		if (read(fds[0], &c, 1) == 1)
			exit(0);
		int st = 0;
		waitpid(pid, &st, 0);
		exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	close(fds[0]);
	if (setsid() < 0)
		perror("fabmond: setsid");
	if (chdir("/") < 0)
		perror("fabmond: chdir");
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	return fds[1];
}

int main(int argc, char **argv)
{
	enum { OPT_CHECK = 256 };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", required_argument, NULL, 'D' },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fabmond_opts o = { .ready_fd = -1 };
	bool foreground = false, check = false;
	char **debug = NULL;
	size_t n_debug = 0;
	int c;

	while ((c = getopt_long(argc, argv, "c:fD:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.config_path = optarg;
			break;
		case 'f':
			foreground = true;
			break;
		case 'D': {
			char *save = NULL, *copy = xstrdup(optarg);
			for (char *tok = strtok_r(copy, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (log_enable_debug(tok) < 0) {
					fprintf(stderr,
						"fabmond: unknown debug "
						"subsystem \"%s\" (see "
						"--help)\n",
						tok);
					return 2;
				}
				debug = xreallocarray(debug, n_debug + 1,
						      sizeof *debug);
				debug[n_debug++] = xstrdup(tok);
			}
			free(copy);
			break;
		}
		case OPT_CHECK:
			check = true;
			break;
		case 'V':
			printf("fabmond %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fabmond: unexpected argument \"%s\"\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}

	int status;
	if (check) {
		status = fabmond_check_config(o.config_path);
	} else {
		o.debug = (const char *const *)debug;
		o.n_debug = n_debug;
		/* In the background the daemon changes to / and reloads
		 * later: keep an absolute path to the config. */
		char *abs = !foreground && o.config_path
				? realpath(o.config_path, NULL)
				: NULL;
		if (abs)
			o.config_path = abs;
		if (!foreground)
			o.ready_fd = daemonize();
		status = fabmond_run(&o);
		free(abs);
	}
	for (size_t i = 0; i < n_debug; i++)
		free(debug[i]);
	free(debug);
	return status;
}
