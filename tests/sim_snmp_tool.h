/*
 * sim_snmp_tool.h: runs a net-snmp command-line tool against the
 * simulated SNMP agent of a test (check_sim_snmp, check_sim_snmp_faults),
 * serving the agent from the test's own thread while the tool runs.
 *
 * Header-only (static functions), for test programs: the agent is
 * polled with sim_snmp_poll() until the tool exits, so the test needs
 * no agent thread; the tool's stdout and stderr land in the caller's
 * buffer, NUL-terminated (truncated to its size - 1).
 */
#ifndef FABMON_SIM_SNMP_TOOL_H
#define FABMON_SIM_SNMP_TOOL_H

#include "snmp_agent.h"

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Runs the command line fmt (words separated by single spaces, no
 * quoting) while serving agent s; its output goes to out (outsz bytes).
 * Returns the tool's exit status (127: could not be run, 128: killed).
 */
static int sim_snmp_tool(struct sim_snmp *s, char *out, size_t outsz,
			 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int sim_snmp_tool(struct sim_snmp *s, char *out, size_t outsz,
			 const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	char *argv[64];
	int argc = 0;
	for (char *tok = strtok(cmd, " "); tok && argc < 63;
	     tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	size_t len = 0;
	int status = 0;
	for (;;) {
		ck_assert_int_ge(sim_snmp_poll(s, 2000000), 0);
		ssize_t r;
		while ((r = read(pfd[0], out + len, outsz - 1 - len)) > 0)
			len += (size_t)r;
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	fcntl(pfd[0], F_SETFL, 0);
	ssize_t r;
	while ((r = read(pfd[0], out + len, outsz - 1 - len)) > 0)
		len += (size_t)r;
	close(pfd[0]);
	out[len] = '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Makes the tools read no user or system configuration and no MIBs: a
 * fresh directory dir (dirsz bytes; named after test, under $TMPDIR or
 * /tmp) becomes their configuration, persistent and MIB directory.
 * 0, or -1 (perror'd) if the directory cannot be made.
 */
static int sim_snmp_tool_env(char *dir, size_t dirsz, const char *test)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, dirsz, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", test);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return -1;
	}
	setenv("SNMPCONFPATH", dir, 1);
	setenv("SNMP_PERSISTENT_DIR", dir, 1);
	setenv("MIBDIRS", dir, 1);
	setenv("MIBS", "", 1);
	return 0;
}

#endif
