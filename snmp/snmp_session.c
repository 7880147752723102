/*
 * snmp_session: the SNMP collector's net-snmp sessions (see
 * snmp_int.h): the library's one-time set-up, opening a target's
 * single-session-API session (v2c, or v3 with its USM keys from the
 * poller's key cache), sending a request and the session callback that
 * routes each answer to the phase in flight.
 *
 * Threads: the loop thread only (net-snmp is used without locking);
 * snmp_lib_init() may be called from any thread, it runs once.
 */
#include "config.h"

#include "snmp_int.h"

#include "log.h"
#include "snmp_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>

/*
 * net-snmp initialisation: once per process, never undone (a second
 * init_snmp() is a no-op and the library's globals outlive any one
 * collector). No config files are read (snmp.conf could change
 * timeouts, MIB loading or the persistent directory behind our back),
 * no MIBs are loaded (every OID here is numeric), nothing persistent is
 * loaded or saved, and the persistent directory is one that cannot
 * exist: init_snmp() still creates <dir>/cert_indexes (with parents,
 * even as root), and nothing can be created under /dev/null.
 */
static pthread_once_t snmp_once = PTHREAD_ONCE_INIT;

static int snmp_log_cb(int major, int minor, void *server, void *client)
{
	(void)major;
	(void)minor;
	(void)client;
	const struct snmp_log_message *m = server;
	if (m && m->msg) {
		size_t n = strlen(m->msg);
		while (n && (m->msg[n - 1] == '\n' || m->msg[n - 1] == '\r'))
			n--;
		log_debug("snmp", "net-snmp: %.*s", (int)n, m->msg);
	}
	return 0;
}

static void snmp_init_once(void)
{
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
			       NETSNMP_DS_LIB_QUICK_PRINT, 1);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID,
			      NETSNMP_DS_LIB_PERSISTENT_DIR,
			      "/dev/null/fabmon-snmp");
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS,
			      "/nonexistent");
	/* The library's own messages (MIB modules it cannot find, socket
	 * errors) go to our log at debug, never to stderr. */
	snmp_disable_log();
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_DEBUG);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING,
			       snmp_log_cb, NULL);
	init_snmp("fabmon");
	/* 1,000 targets are 1,000 sockets: lift the soft limit. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

void snmp_lib_init(void)
{
	pthread_once(&snmp_once, snmp_init_once);
}

void snmp_target_close(struct starget *t)
{
	if (!t->sess)
		return;
	epoll_ctl(t->p->ep, EPOLL_CTL_DEL, t->fd, NULL);
	snmp_sess_close(t->sess);
	t->sess = NULL;
	t->fd = -1;
	t->reqid = 0;
}

static int sess_cb(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu,
		   void *magic);

/*
 * Sets the USM authentication and privacy protocols and keys of a v3
 * session from the target's config (the level stays noAuthNoPriv
 * without them). ku is the caller's scratch for the key, which it
 * wipes. 0, or -EINVAL with t->err set and the keys in s wiped.
 */
static int set_usm_keys(struct starget *t, netsnmp_session *s, uint8_t *ku)
{
	const struct cfg_snmp *c = t->cfg;
	size_t kl;
	if (c->auth != CFG_SNMP_AUTH_NONE) {
		if (snmp_keys_get(t->p->keys, c->auth, c->auth_key, ku, &kl,
				  t->err, sizeof t->err) < 0)
			return -EINVAL;
		switch (c->auth) {
		case CFG_SNMP_AUTH_SHA256:
			s->securityAuthProto = usmHMAC192SHA256AuthProtocol;
			s->securityAuthProtoLen =
			    OLEN(usmHMAC192SHA256AuthProtocol);
			break;
		case CFG_SNMP_AUTH_SHA512:
			s->securityAuthProto = usmHMAC384SHA512AuthProtocol;
			s->securityAuthProtoLen =
			    OLEN(usmHMAC384SHA512AuthProtocol);
			break;
		default:
			s->securityAuthProto = usmHMACSHA1AuthProtocol;
			s->securityAuthProtoLen = OLEN(usmHMACSHA1AuthProtocol);
			break;
		}
		memcpy(s->securityAuthKey, ku, kl);
		s->securityAuthKeyLen = kl;
		s->securityLevel = SNMP_SEC_LEVEL_AUTHNOPRIV;
	}
	if (c->priv != CFG_SNMP_PRIV_NONE) {
		/* The privacy Ku uses the auth hash too. */
		if (snmp_keys_get(t->p->keys, c->auth, c->priv_key, ku, &kl,
				  t->err, sizeof t->err) < 0) {
			explicit_bzero(ku, SNMP_KEYS_KU_MAX);
			explicit_bzero(s->securityAuthKey,
				       sizeof s->securityAuthKey);
			return -EINVAL;
		}
		if (c->priv == CFG_SNMP_PRIV_AES256) {
			s->securityPrivProto = usmAES256PrivProtocol;
			s->securityPrivProtoLen = OLEN(usmAES256PrivProtocol);
		} else {
			s->securityPrivProto = usmAESPrivProtocol;
			s->securityPrivProtoLen = OLEN(usmAESPrivProtocol);
		}
		if (kl > sizeof s->securityPrivKey)
			kl = sizeof s->securityPrivKey;
		memcpy(s->securityPrivKey, ku, kl);
		s->securityPrivKeyLen = kl;
		s->securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
	}
	return 0;
}

/* Opens the target's session (or its v3 discovery session). */
int snmp_target_open(struct starget *t, bool discovery)
{
	netsnmp_session s;
	const struct cfg_snmp *c = t->cfg;
	uint8_t ku[SNMP_KEYS_KU_MAX];
	snmp_sess_init(&s);
	s.peername = c->address;
	s.timeout = (long)(c->timeout_ns ? c->timeout_ns / 1000 : 1000000);
	s.retries = (int)c->retries;
	s.callback = sess_cb;
	s.callback_magic = t;
	if (c->version != 3) {
		s.version = SNMP_VERSION_2c;
		s.community =
		    (u_char *)(c->community ? c->community : "public");
		s.community_len = strlen((char *)s.community);
	} else {
		s.version = SNMP_VERSION_3;
		s.securityName = c->user;
		s.securityNameLen = strlen(c->user);
		s.securityModel = SNMP_SEC_MODEL_USM;
		if (discovery) {
			s.securityLevel = SNMP_SEC_LEVEL_NOAUTH;
		} else {
			s.securityEngineID = t->engine;
			s.securityEngineIDLen = t->engine_len;
			s.securityLevel = SNMP_SEC_LEVEL_NOAUTH;
			if (set_usm_keys(t, &s, ku) < 0)
				return -EINVAL;
		}
	}
	t->sess = snmp_sess_open(&s);
	explicit_bzero(ku, sizeof ku);
	explicit_bzero(s.securityAuthKey, sizeof s.securityAuthKey);
	explicit_bzero(s.securityPrivKey, sizeof s.securityPrivKey);
	if (!t->sess) {
		char *msg = NULL;
		int cerr, serr;
		snmp_error(&s, &cerr, &serr, &msg);
		snprintf(t->err, sizeof t->err,
			 "cannot open a session to %s: %s", c->address,
			 msg ? msg : "unknown error");
		free(msg);
		return -EINVAL;
	}
	if (discovery)
		snmp_sess_session(t->sess)->flags |= SNMP_FLAGS_DONT_PROBE;
	netsnmp_transport *tr = snmp_sess_transport(t->sess);
	t->fd = tr ? tr->sock : -1;
	if (t->fd < 0) {
		snprintf(t->err, sizeof t->err, "%s: no socket", c->address);
		snmp_sess_close(t->sess);
		t->sess = NULL;
		return -EINVAL;
	}
	/* A stray wake-up must never block the loop in recvfrom. */
	int fl = fcntl(t->fd, F_GETFL);
	if (fl >= 0)
		fcntl(t->fd, F_SETFL, fl | O_NONBLOCK);
	if ((unsigned)t->fd >= t->p->lfds.lfs_setsize)
		netsnmp_large_fd_set_resize(&t->p->lfds, t->fd + 1);
	struct epoll_event ev = { .events = EPOLLIN };
	ev.data.u64 = ((uint64_t)t->slot << 32) | (uint32_t)t->fd;
	epoll_ctl(t->p->ep, EPOLL_CTL_ADD, t->fd, &ev);
	return 0;
}

/* The phase ended; the loop moves the target on. Idempotent. */
void snmp_phase_end(struct starget *t, bool ok, const char *fmt, ...)
{
	if (t->result)
		return;
	t->reqid = 0;
	t->result = ok ? 1 : -1;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->err, sizeof t->err, fmt, ap);
		va_end(ap);
	}
}

/* Sends pdu; 0, or -1 with the phase ended as failed (pdu freed). */
int snmp_send_pdu(struct starget *t, netsnmp_pdu *pdu)
{
	t->in_send = true;
	t->send_cb_op = 0;
	int id = snmp_sess_async_send(t->sess, pdu, sess_cb, t);
	t->in_send = false;
	if (id == 0) {
		snmp_free_pdu(pdu);
		int e = snmp_sess_session(t->sess)->s_snmp_errno;
		t->timed_out = t->send_cb_op == NETSNMP_CALLBACK_OP_TIMED_OUT;
		snmp_phase_end(t, false, "send failed: %s",
			       snmp_api_errstring(e));
		return -1;
	}
	t->reqid = id;
	return 0;
}

static int sess_cb(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu,
		   void *magic)
{
	(void)sp;
	struct starget *t = magic;
	if (t->in_send) {
		/* Called from inside a failing snmp_sess_async_send. */
		t->send_cb_op = op;
		return 1;
	}
	if (!t->reqid || t->result)
		return 1;
	bool report = op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && pdu &&
		      pdu->command == SNMP_MSG_REPORT;
	if (t->phase == PH_DISCOVER &&
	    (report || op == NETSNMP_CALLBACK_OP_SEC_ERROR) && pdu &&
	    pdu->securityEngineIDLen > 0) {
		/* The engine answered: its ID is all we wanted. */
		size_t n = pdu->securityEngineIDLen;
		if (n > sizeof t->engine)
			n = sizeof t->engine;
		memcpy(t->engine, pdu->securityEngineID, n);
		t->engine_len = n;
		snmp_phase_end(t, true, NULL);
		return 1;
	}
	/* The library re-sends by itself after notInTimeWindow. */
	if (report && snmpv3_get_report_type(pdu) == SNMPERR_NOT_IN_TIME_WINDOW)
		return 1;
	if ((report || op == NETSNMP_CALLBACK_OP_SEC_ERROR) &&
	    (reqid == t->reqid || reqid == 0)) {
		const char *what =
		    pdu ? snmp_api_errstring(snmpv3_get_report_type(pdu))
			: "security error";
		snmp_phase_end(t, false, "SNMPv3: %s", what);
		return 1;
	}
	if (reqid != t->reqid)
		return 1;
	switch (op) {
	case NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE:
		atomic_fetch_add(&t->p->pdus, 1);
		if (pdu->errstat == SNMP_ERR_TOOBIG && t->max_rep > 1) {
			t->max_rep /= 2;
			if (t->phase == PH_INDEX || t->phase == PH_POLL)
				snmp_walk_send(t);
			else
				snmp_phase_end(t, false, "answer too big");
			return 1;
		}
		if (pdu->errstat != SNMP_ERR_NOERROR) {
			snmp_phase_end(t, false, "agent error: %s (index %ld)",
				       snmp_errstring((int)pdu->errstat),
				       pdu->errindex);
			return 1;
		}
		if (t->phase == PH_IDENT)
			snmp_ident_response(t, pdu);
		else if (t->phase == PH_INDEX || t->phase == PH_POLL)
			snmp_walk_response(t, pdu);
		else
			snmp_phase_end(t, false, "unexpected answer");
		return 1;
	case NETSNMP_CALLBACK_OP_TIMED_OUT:
		t->timed_out = true;
		snmp_phase_end(t, false, "no answer (timeout %.3gs x %u tries)",
			       (double)(t->cfg->timeout_ns ? t->cfg->timeout_ns
							   : NS_PER_S) /
				   1e9,
			       t->cfg->retries + 1);
		return 1;
	case NETSNMP_CALLBACK_OP_SEND_FAILED:
		snmp_phase_end(t, false, "send failed");
		return 1;
	default: /* RESEND and the rest: informational */
		return 1;
	}
}
