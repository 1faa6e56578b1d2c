/*
 * ctl.c: the control socket, a Unix-domain socket of mode 0600 that
 * speaks GTP: "[id] command args" answered by "=id text" or "?id error"
 * and an empty line.  Commands are data: one table gives each its
 * arity, usage and handler, and list_commands, known_command, help and
 * arity checks all read it.  Handlers check everything before acting.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "refd.h"
#include "bots.h"
#include "clock.h"
#include "ctl.h"
#include "ctlopt.h"
#include "gtp.h"
#include "harden.h"
#include "http.h"
#include "log.h"
#include "match.h"
#include "seat.h"
#include "spawn.h"
#include "tourney.h"
#include "util.h"
#include "worker.h"

#define CTL_MAXCONNS	64
#define CTL_MAXOUT	(1024 * 1024)	/* a client's unread output */

struct ctl_conn {
	TAILQ_ENTRY(ctl_conn) entry;	/* all connections */
	TAILQ_ENTRY(ctl_conn) mentry;	/* a match's watchers or waiters */
	struct bufferevent *bev;
	struct match	*match;		/* watched or awaited */
	long		 id;		/* id of that streaming command */
	int		 closing;	/* close once output is flushed */
	int		 lingering;	/* write side shut: waiting for EOF */
	int		 watching;	/* following as a watcher, not a waiter */
	int64_t		 twait;		/* tournament awaited, or 0 */
	struct event	*twait_ev;	/* ends a timed wait, or NULL */
	int64_t		 tdraw;		/* tournament whose standings its
					   status awaits, or 0: its input
					   is held till then */
	int64_t		 last_ms;	/* when it last sent a line */
};

struct ctl_command {
	const char	*name;
	int		 min, max;	/* argument count */
	const char	*usage;
	int		(*fn)(struct ctl_conn *, struct gtp_cmd *, char *,
			    size_t);
};

static TAILQ_HEAD(, ctl_conn) conns = TAILQ_HEAD_INITIALIZER(conns);
static struct evconnlistener *listener;
static int		 nconns;
static char		 ctl_sockpath[sizeof(((struct sockaddr_un *)0)->sun_path)];

/*
 * Finished matches started here, in the order they ended: listed and
 * shown until keep_matches more have ended, then freed by
 * ctl_forget(), so that refd's memory stays flat however many matches
 * it referees (the log keeps them all).  A tournament's matches are
 * tourney.c's to free.
 */
static struct match	**kept;
static size_t		 kept_first, kept_n, kept_cap;
static struct event	*forget_ev;	/* runs ctl_forget() */
static int		 kept_closed;	/* ctl_close(): refd.c frees all */

static int	ctl_protocol_version(struct ctl_conn *, struct gtp_cmd *,
		    char *, size_t);
static int	ctl_name(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_version(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_known_command(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_list_commands(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_help(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_quit(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_bot_add(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_bot_remove(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_bot_list(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_match_start(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_match_list(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_stream_done(struct ctl_conn *, long, FILE *, char **,
		    size_t *, int);
static int	ctl_match_show(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_match_watch(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_match_wait(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_match_stop(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_status(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_shutdown(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_t_start(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_t_list(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_t_status(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_t_wait(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_t_stop(struct ctl_conn *, struct gtp_cmd *, char *, size_t);
static int	ctl_t_cancel(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static int	ctl_t_resume(struct ctl_conn *, struct gtp_cmd *, char *,
		    size_t);
static void	ctl_read(struct bufferevent *, void *);

/*
 * Sorted by name.  A command that takes any number of arguments has
 * GTP_MAXARGS as its "max".
 */
static const struct ctl_command ctl_commands[] = {
	{ "bot_add", 3, GTP_MAXARGS, "NAME spawn COMMAND [ARG ...] | "
	    "NAME remote TOKEN", ctl_bot_add },
	{ "bot_list", 0, 0, "", ctl_bot_list },
	{ "bot_remove", 1, 1, "NAME", ctl_bot_remove },
	{ "help", 0, 1, "[COMMAND]", ctl_help },
	{ "known_command", 1, 1, "COMMAND", ctl_known_command },
	{ "list_commands", 0, 0, "", ctl_list_commands },
	{ "match_list", 0, 0, "", ctl_match_list },
	{ "match_show", 1, 1, "ID", ctl_match_show },
	{ "match_start", 2, GTP_MAXARGS, "VARIANT BOT ... [seed=HEX] "
	    "[move_ms=N] [bank_ms=N] [startup_ms=N] [policy=forfeit|fallback] "
	    "[max_faults=N] [target=N] [deals_to_win=N] [deal_cap=N] "
	    "[removed_two=random|C|D|B|S]", ctl_match_start },
	{ "match_stop", 1, 1, "ID", ctl_match_stop },
	{ "match_wait", 1, 1, "ID", ctl_match_wait },
	{ "match_watch", 1, 1, "ID", ctl_match_watch },
	{ "name", 0, 0, "", ctl_name },
	{ "protocol_version", 0, 0, "", ctl_protocol_version },
	{ "quit", 0, 0, "", ctl_quit },
	{ "shutdown", 0, 0, "", ctl_shutdown },
	{ "status", 0, 0, "", ctl_status },
	{ "tournament_cancel", 1, 1, "ID", ctl_t_cancel },
	{ "tournament_list", 0, 0, "", ctl_t_list },
	{ "tournament_resume", 1, 1, "ID", ctl_t_resume },
	{ "tournament_start", 1, 1, "FILE (an absolute path)", ctl_t_start },
	{ "tournament_status", 1, 2, "ID [progress]", ctl_t_status },
	{ "tournament_stop", 1, 1, "ID", ctl_t_stop },
	{ "tournament_wait", 1, 2, "ID [MS]", ctl_t_wait },
	{ "version", 0, 0, "", ctl_version },
};
#define NCOMMANDS (sizeof(ctl_commands) / sizeof(ctl_commands[0]))

/*
 * The one success reply: "=id text" and the empty line.  An empty line
 * inside text would end the answer early, so each becomes a lone space.
 */
static void
ctl_reply(struct ctl_conn *c, long id, const char *text)
{
	struct evbuffer	*out = bufferevent_get_output(c->bev);
	const char	*p;

	if (id >= 0)
		evbuffer_add_printf(out, "=%ld ", id);
	else
		evbuffer_add_printf(out, "= ");
	for (p = text; *p != '\0'; p++) {
		evbuffer_add(out, p, 1);
		if (*p == '\n' && (p[1] == '\n' || p[1] == '\0'))
			evbuffer_add(out, " ", 1);
	}
	evbuffer_add(out, "\n\n", 2);
}

/* The one error reply: "?id message" and the empty line. */
static void
ctl_error(struct ctl_conn *c, long id, const char *msg)
{
	struct evbuffer	*out = bufferevent_get_output(c->bev);

	if (id >= 0)
		evbuffer_add_printf(out, "?%ld %s\n\n", id, msg);
	else
		evbuffer_add_printf(out, "? %s\n\n", msg);
}

/* The table entry of a command, or NULL. */
static const struct ctl_command *
ctl_lookup(const char *name)
{
	size_t	 i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(ctl_commands[i].name, name) == 0)
			return &ctl_commands[i];
	return NULL;
}

static int
ctl_protocol_version(struct ctl_conn *c, struct gtp_cmd *cmd, char *r,
    size_t len)
{
	(void)c;
	(void)cmd;
	snprintf(r, len, "2");
	return 0;
}

static int
ctl_name(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	(void)c;
	(void)cmd;
	snprintf(r, len, "refd");
	return 0;
}

static int
ctl_version(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	(void)c;
	(void)cmd;
	snprintf(r, len, "%s", REFD_VERSION);
	return 0;
}

static int
ctl_known_command(struct ctl_conn *c, struct gtp_cmd *cmd, char *r,
    size_t len)
{
	(void)c;
	snprintf(r, len, "%s", ctl_lookup(cmd->argv[0]) ? "true" : "false");
	return 0;
}

static int
ctl_list_commands(struct ctl_conn *c, struct gtp_cmd *cmd, char *r,
    size_t len)
{
	size_t	 i, at = 0;

	(void)c;
	(void)cmd;
	r[0] = '\0';
	for (i = 0; i < NCOMMANDS && at < len; i++)
		at += snprintf(r + at, len - at, "%s%s", i ? "\n" : "",
		    ctl_commands[i].name);
	return 0;
}

/* help [COMMAND]: the usage of one command, or of all. */
static int
ctl_help(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	const struct ctl_command *t;
	size_t			 i, at = 0;

	(void)c;
	if (cmd->argc == 1) {
		if ((t = ctl_lookup(cmd->argv[0])) == NULL) {
			snprintf(r, len, "unknown command");
			return -1;
		}
		snprintf(r, len, "%s %s", t->name, t->usage);
		return 0;
	}
	r[0] = '\0';
	for (i = 0; i < NCOMMANDS && at < len; i++)
		at += snprintf(r + at, len - at, "%s%s %s", i ? "\n" : "",
		    ctl_commands[i].name, ctl_commands[i].usage);
	return 0;
}

static int
ctl_quit(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	(void)cmd;
	(void)len;
	r[0] = '\0';
	c->closing = 1;
	return 0;
}

/* bot_add NAME spawn COMMAND [ARG...] | bot_add NAME remote TOKEN */
static int
ctl_bot_add(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct bot	*b;
	char		 why[512];

	(void)c;
	if (bots_define(cmd->argc, cmd->argv, r, len) == -1)
		return -1;
	/* a program the bot user cannot run is refused now, not in a match */
	b = bots_find(cmd->argv[0]);
	if (b->kind == BOT_SPAWN && spawn_runnable(b->argv, why,
	    sizeof(why)) == -1) {
		snprintf(r, len, "bot %s cannot start: %s", b->name, why);
		bots_remove(b);
		return -1;
	}
	/* kept beside the log, so that it outlives this refd */
	b->kept = 1;
	if (bots_save(why, sizeof(why)) == -1) {
		snprintf(r, len, "bot %s cannot be kept: %s", b->name, why);
		bots_remove(b);
		return -1;
	}
	/* a tournament may have waited for it */
	tourney_bot_added();
	snprintf(r, len, "%s", cmd->argv[0]);
	return 0;
}

/*
 * bot_remove NAME: forget a bot, and close its idle connections.  Refused
 * while it plays: in a match not over, or in a running tournament.
 */
static int
ctl_bot_remove(struct ctl_conn *c, struct gtp_cmd *cmd, char *r,
    size_t len)
{
	struct bot	*b;
	struct match	*m;
	char		 why[300];
	int64_t		 tid;
	int		 i;

	(void)c;
	if ((b = bots_find(cmd->argv[0])) == NULL) {
		snprintf(r, len, "unknown bot %s", cmd->argv[0]);
		return -1;
	}
	if ((tid = tourney_uses_bot(b->name)) != 0) {
		snprintf(r, len, "bot %s plays in tournament %lld", b->name,
		    (long long)tid);
		return -1;
	}
	TAILQ_FOREACH(m, &matches, entry) {
		if (match_over(m))
			continue;
		for (i = 0; i < m->nseats; i++)
			if (strcmp(m->conf.bots[i], b->name) == 0) {
				snprintf(r, len, "bot %s plays in match %lld",
				    b->name, (long long)m->id);
				return -1;
			}
	}
	seat_drop_idle(b);
	bots_remove(b);
	snprintf(r, len, "%s", cmd->argv[0]);
	if (b->kept && bots_save(why, sizeof(why)) == -1) {
		snprintf(r, len, "bot %s removed, but not from the bots file: "
		    "%s", cmd->argv[0], why);
		return -1;
	}
	return 0;
}

/* bot_list: one line a bot. */
static int
ctl_bot_list(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct bot	*b;
	size_t		 at = 0;
	int		 i;

	(void)c;
	(void)cmd;
	r[0] = '\0';
	for (b = bots_first(); b != NULL && at < len; b = bots_next(b)) {
		at += snprintf(r + at, len - at, "%s%s %s", at ? "\n" : "",
		    b->name, bots_kind_name(b->kind));
		if (b->kind == BOT_SPAWN)
			for (i = 0; i < b->argc && at < len; i++)
				at += snprintf(r + at, len - at, " %s",
				    b->argv[i]);
		else if (at < len)
			at += snprintf(r + at, len - at, " idle=%d",
			    seat_idle_count(b));
	}
	return 0;
}

/* match_start VARIANT BOT... [key=value...]: answers the match id. */
static int
ctl_match_start(struct ctl_conn *c, struct gtp_cmd *cmd, char *r,
    size_t len)
{
	struct match_conf mc;
	struct match	*m;

	(void)c;
	if (ctlopt_match(&mc, &conf, cmd->argc, cmd->argv, r, len) == -1)
		return -1;
	if ((m = match_start(&mc, r, len)) == NULL)
		return -1;
	snprintf(r, len, "%lld", (long long)m->id);
	return 0;
}

/* One line describing a match. */
static size_t
ctl_match_line(struct match *m, char *r, size_t len)
{
	size_t	 at;
	int	 i;

	at = snprintf(r, len, "%lld %s %s deal=%d result=%s",
	    (long long)m->id, bri_variant_name(m->conf.opt.variant),
	    match_state_name(m->state), m->bm.ndeals,
	    m->result[0] ? m->result : "-");
	for (i = 0; i < m->nseats && at < len; i++)
		at += snprintf(r + at, len - at, " %s", m->conf.bots[i]);
	return at < len ? at : len;
}

/* match_list: one line a match, however many. */
static int
ctl_match_list(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct match	*m;
	FILE		*f;
	char		*buf = NULL, line[1024];
	size_t		 blen = 0;

	if ((f = open_memstream(&buf, &blen)) == NULL) {
		snprintf(r, len, "out of memory");
		return -1;
	}
	TAILQ_FOREACH(m, &matches, entry) {
		ctl_match_line(m, line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	return ctl_stream_done(c, cmd->id, f, &buf, &blen, 0);
}

/* The match named by a command's first argument. */
static struct match *
ctl_match_arg(struct gtp_cmd *cmd, char *r, size_t len)
{
	const char	*errstr;
	struct match	*m;
	long long	 id;

	id = util_num(cmd->argv[0], 1, INT64_MAX, &errstr);
	if (errstr != NULL) {
		snprintf(r, len, "match id: %s", errstr);
		return NULL;
	}
	if ((m = match_find(id)) == NULL)
		snprintf(r, len, "no match %lld in this refd", id);
	return m;
}

/* match_show ID: the match's state in detail. */
static int
ctl_match_show(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct match	*m;
	const int	*mpoints, *faults;
	size_t		 at;
	int		 i;

	(void)c;
	if ((m = ctl_match_arg(cmd, r, len)) == NULL)
		return -1;
	at = ctl_match_line(m, r, len);
	at += snprintf(r + at, len - at, "\noptions %s\ncommit %s",
	    m->options, m->commit);
	/* as the log has them on the disk, not a sync ahead */
	match_shown(m, &mpoints, &faults);
	for (i = 0; i < m->nseats && at < len; i++)
		at += snprintf(r + at, len - at, "\nseat %d %s mpoints=%d "
		    "faults=%d", i, m->conf.bots[i], mpoints[i], faults[i]);
	if (m->reason[0] && at < len)
		snprintf(r + at, len - at, "\nreason %s", m->reason);
	return 0;
}

/* match_watch ID: events stream until the match ends. */
static int
ctl_match_watch(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct match	*m;

	if ((m = ctl_match_arg(cmd, r, len)) == NULL)
		return -1;
	if (c->match != NULL) {
		snprintf(r, len, "already following a match");
		return -1;
	}
	if (match_over(m)) {
		snprintf(r, len, "end %s %s", m->result, m->reason);
		return 0;
	}
	c->match = m;
	c->id = cmd->id;
	c->watching = 1;
	TAILQ_INSERT_TAIL(&m->watchers, c, mentry);
	if (cmd->id >= 0)
		evbuffer_add_printf(bufferevent_get_output(c->bev),
		    "=%ld watching match %lld\n", cmd->id, (long long)m->id);
	else
		evbuffer_add_printf(bufferevent_get_output(c->bev),
		    "= watching match %lld\n", (long long)m->id);
	return 1;
}

/* match_wait ID: answered when the match ends. */
static int
ctl_match_wait(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct match	*m;

	if ((m = ctl_match_arg(cmd, r, len)) == NULL)
		return -1;
	if (match_over(m)) {
		snprintf(r, len, "%s %s", m->result, m->reason);
		return 0;
	}
	if (c->match != NULL) {
		snprintf(r, len, "already following a match");
		return -1;
	}
	c->match = m;
	c->id = cmd->id;
	c->watching = 0;
	TAILQ_INSERT_TAIL(&m->waiters, c, mentry);
	return 1;
}

/* match_stop ID: end it now, as aborted. */
static int
ctl_match_stop(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	struct match	*m;

	(void)c;
	if ((m = ctl_match_arg(cmd, r, len)) == NULL)
		return -1;
	if (match_over(m) || match_ending(m)) {
		snprintf(r, len, "match %lld is already over",
		    (long long)m->id);
		return -1;
	}
	match_stop(m, "stopped by the operator");
	snprintf(r, len, "%lld aborted", (long long)m->id);
	return 0;
}

/* status: what refd is doing. */
static int
ctl_status(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	(void)c;
	(void)cmd;
	ctl_status_text(r, len);
	return 0;
}

/*
 * refd's status as "key value" lines, with no newline after the last:
 * the control socket's status and the web site's (site.c) alike.
 */
void
ctl_status_text(char *r, size_t len)
{
	struct match	*m;
	char		 key[65];
	size_t		 n;
	long long	 ck_thread, ck_loop;
	int		 done = 0;

	TAILQ_FOREACH(m, &matches, entry)
		done += match_over(m);
	if (db_public_key(logdb, key, sizeof(key)) == -1)
		snprintf(key, sizeof(key), "none");
	db_ckpt_counts(logdb, &ck_thread, &ck_loop);
	snprintf(r, len, "version %s\nmatches_running %d\nmatches_over %d\n"
	    "connections %d\ncontrol_clients %d\nloop_lag_max_us %lld\n"
	    "loop_lag_own_max_us %lld\n"
	    "log %s\nlog_key %s\nlog_commits %lld\nlog_ends_grouped %lld\n"
	    "log_checkpoints %lld\nlog_checkpoints_in_loop %lld",
	    REFD_VERSION, match_running(), done, seat_count(), nconns,
	    (long long)clock_lag_max(), (long long)clock_lag_own_max(),
	    conf.db_path, key, db_group_commits(logdb), db_group_ends(logdb),
	    ck_thread, ck_loop);
	/* with -l host:0 this is the only place the real port shows */
	if (conf.listen_host[0] != '\0') {
		n = strlen(r);
		snprintf(r + n, len - n, strchr(conf.listen_host, ':') != NULL ?
		    "\nlisten [%s]:%d" : "\nlisten %s:%d", conf.listen_host,
		    conf.listen_port);
	}
	/* and with -w host:0 the only place the site's port shows */
	if (conf.http_host[0] != '\0') {
		n = strlen(r);
		snprintf(r + n, len - n, "\nhttp %s:%d", conf.http_host,
		    http_port());
	}
	worker_status(r, len);
}

/* shutdown: stop every match as aborted, then leave the loop. */
static int
ctl_shutdown(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	(void)cmd;
	snprintf(r, len, "shutting down");
	c->closing = 1;
	refd_shutdown();
	return 0;
}

/*
 * A new command while following a match ends the following first: a
 * watch stream ends with its empty line, a wait is answered with an
 * error.  The reply to the new command then follows in order.
 */
static void
ctl_unfollow(struct ctl_conn *c)
{
	struct match	*m = c->match;

	c->match = NULL;
	if (c->watching) {
		TAILQ_REMOVE(&m->watchers, c, mentry);
		evbuffer_add_printf(bufferevent_get_output(c->bev), "\n");
	} else {
		TAILQ_REMOVE(&m->waiters, c, mentry);
		ctl_error(c, c->id, "wait interrupted by a new command");
	}
}

/* A tournament id argument. */
static int64_t
ctl_tid(struct gtp_cmd *cmd, char *r, size_t len)
{
	const char	*errstr;
	long long	 id;

	id = util_num(cmd->argv[0], 1, INT64_MAX, &errstr);
	if (errstr != NULL) {
		snprintf(r, len, "tournament id: %s", errstr);
		return -1;
	}
	return id;
}

/*
 * Text a handler wrote to a memory stream: the reply, however long (the
 * reply buffer would cut it), so the handler returns 1: answered.
 */
static int
ctl_stream_done(struct ctl_conn *c, long id, FILE *f, char **buf,
    size_t *blen, int rc)
{
	fclose(f);
	if (rc == 0) {
		while (*blen > 0 && (*buf)[*blen - 1] == '\n')
			(*buf)[--*blen] = '\0';
		ctl_reply(c, id, *buf != NULL ? *buf : "");
		rc = 1;
	}
	free(*buf);
	return rc;
}

/* tournament_start FILE: answers the tournament id. */
static int
ctl_t_start(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	int64_t	 id;

	(void)c;
	if (cmd->argv[0][0] != '/') {
		snprintf(r, len, "the file must be an absolute path");
		return -1;
	}
	if ((id = tourney_start(cmd->argv[0], r, len)) == -1)
		return -1;
	snprintf(r, len, "%lld", (long long)id);
	return 0;
}

/* tournament_list: one line per tournament this refd knows. */
static int
ctl_t_list(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 blen = 0;

	(void)c;
	(void)cmd;
	if ((f = open_memstream(&buf, &blen)) == NULL) {
		snprintf(r, len, "out of memory");
		return -1;
	}
	tourney_list(f);
	return ctl_stream_done(c, cmd->id, f, &buf, &blen, 0);
}

/*
 * tournament_status ID [progress]: progress and the standings so far,
 * or with "progress" the progress alone, which costs the loop nothing
 * whatever the tournament's size.
 */
static int
ctl_t_status(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	FILE	*f;
	char	*buf = NULL;
	size_t	 blen = 0;
	int64_t	 id;
	int	 rc, brief = cmd->argc == 2;

	(void)c;
	if ((id = ctl_tid(cmd, r, len)) == -1)
		return -1;
	if (brief && strcmp(cmd->argv[1], "progress") != 0) {
		snprintf(r, len, "expected \"progress\", not \"%.32s\"",
		    cmd->argv[1]);
		return -1;
	}
	if ((f = open_memstream(&buf, &blen)) == NULL) {
		snprintf(r, len, "out of memory");
		return -1;
	}
	rc = tourney_status(id, brief, f, r, len);
	if (rc == 1) {
		/* drawn off the loop: answered then, in order */
		fclose(f);
		free(buf);
		c->tdraw = id;
		c->id = cmd->id;
		bufferevent_disable(c->bev, EV_READ);
		return 1;
	}
	return ctl_stream_done(c, cmd->id, f, &buf, &blen, rc);
}

/*
 * A tournament's standings were drawn: answer the status commands that
 * waited for them, then read what their clients sent meanwhile.
 */
void
ctl_tourney_drawn(int64_t id)
{
	struct ctl_conn	*c, *next;
	struct gtp_cmd	 cmd;
	char		 r[512], idw[24];

	for (c = TAILQ_FIRST(&conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->tdraw != id)
			continue;
		c->tdraw = 0;
		snprintf(idw, sizeof(idw), "%lld", (long long)id);
		memset(&cmd, 0, sizeof(cmd));
		cmd.id = c->id;
		cmd.argc = 1;
		cmd.argv[0] = idw;
		r[0] = '\0';
		/* as if asked again: it may wait once more */
		if (ctl_t_status(c, &cmd, r, sizeof(r)) == -1)
			ctl_error(c, cmd.id, r);
		if (c->tdraw == 0) {
			bufferevent_enable(c->bev, EV_READ);
			ctl_read(c->bev, c);
		}
	}
}

/* A timed wait ran out: the tournament still runs. */
static void
ctl_t_waited(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_conn	*c = arg;

	(void)fd;
	(void)what;
	if (c->twait == 0)
		return;
	c->twait = 0;
	ctl_reply(c, c->id, "running");
}

/* The end of a connection's tournament wait: its timer too. */
static void
ctl_t_unwait(struct ctl_conn *c)
{
	c->twait = 0;
	if (c->twait_ev != NULL)
		evtimer_del(c->twait_ev);
}

/*
 * tournament_wait ID [MS]: answered when the tournament is done or
 * stopped, or with "running" once MS milliseconds have passed: a client
 * that shows progress waits so, and hears of the end at once.
 */
static int
ctl_t_wait(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	const char	*state, *reason, *errstr;
	struct timeval	 tv;
	long long	 ms = 0;
	int64_t		 id;
	int		 over;

	if ((id = ctl_tid(cmd, r, len)) == -1)
		return -1;
	if (cmd->argc == 2) {
		ms = util_num(cmd->argv[1], 1, 3600000, &errstr);
		if (errstr != NULL) {
			snprintf(r, len, "milliseconds: %s", errstr);
			return -1;
		}
	}
	if ((over = tourney_over(id, &state, &reason)) == -1) {
		snprintf(r, len, "no tournament %lld in this refd",
		    (long long)id);
		return -1;
	}
	if (over) {
		snprintf(r, len, "%s %s", state, reason);
		return 0;
	}
	if (ms > 0) {
		if (c->twait_ev == NULL && (c->twait_ev = evtimer_new(
		    bufferevent_get_base(c->bev), ctl_t_waited, c)) == NULL) {
			snprintf(r, len, "out of memory");
			return -1;
		}
		tv.tv_sec = (time_t)(ms / 1000);
		tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
		evtimer_add(c->twait_ev, &tv);
	}
	c->twait = id;
	c->id = cmd->id;
	return 1;
}

/* tournament_stop ID */
static int
ctl_t_stop(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	int64_t	 id;

	(void)c;
	if ((id = ctl_tid(cmd, r, len)) == -1 || tourney_stop(id, r, len) == -1)
		return -1;
	snprintf(r, len, "%lld stopped", (long long)id);
	return 0;
}

/*
 * tournament_cancel ID: end a running or stopped tournament for good;
 * answers "ID cancelled seed HEX", its master seed revealed.
 */
static int
ctl_t_cancel(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	char	 seed[BRI_SEED_STRLEN];
	int64_t	 id;

	(void)c;
	if ((id = ctl_tid(cmd, r, len)) == -1 ||
	    tourney_cancel(id, seed, r, len) == -1)
		return -1;
	snprintf(r, len, "%lld cancelled seed %s", (long long)id, seed);
	return 0;
}

/* tournament_resume ID: take up a stopped or interrupted tournament. */
static int
ctl_t_resume(struct ctl_conn *c, struct gtp_cmd *cmd, char *r, size_t len)
{
	int64_t	 id;

	(void)c;
	if ((id = ctl_tid(cmd, r, len)) == -1 ||
	    tourney_resume(id, r, len) == -1)
		return -1;
	snprintf(r, len, "%lld resumed", (long long)id);
	return 0;
}

/* A tournament ended: answer whoever waits for it. */
void
ctl_tourney_done(int64_t id, const char *state, const char *reason)
{
	struct ctl_conn	*c;
	char		 r[512];

	TAILQ_FOREACH(c, &conns, entry)
		if (c->twait == id) {
			ctl_t_unwait(c);
			snprintf(r, sizeof(r), "%s %s", state, reason);
			ctl_reply(c, c->id, r);
		}
}

/* Run one command line. */
static void
ctl_command(struct ctl_conn *c, char *line)
{
	const struct ctl_command *t;
	struct gtp_cmd		 cmd;
	char			 r[16384];
	int			 rc;

	if (gtp_clean(line))
		return;
	if (gtp_parse_command(line, &cmd) == -1) {
		ctl_error(c, -1, "syntax error");
		return;
	}
	if ((t = ctl_lookup(cmd.name)) == NULL) {
		ctl_error(c, cmd.id, "unknown command");
		return;
	}
	if (cmd.argc < t->min || cmd.argc > t->max) {
		snprintf(r, sizeof(r), "usage: %s %s", t->name, t->usage);
		ctl_error(c, cmd.id, r);
		return;
	}
	if (c->match != NULL)
		ctl_unfollow(c);
	if (c->twait != 0) {
		ctl_t_unwait(c);
		ctl_error(c, c->id, "wait interrupted by a new command");
	}
	r[0] = '\0';
	rc = t->fn(c, &cmd, r, sizeof(r));
	if (rc == 0)
		ctl_reply(c, cmd.id, r);
	else if (rc < 0)
		ctl_error(c, cmd.id, r);
}

/* Drop a control connection. */
static void
ctl_drop(struct ctl_conn *c)
{
	if (c->match != NULL) {
		if (c->watching)
			TAILQ_REMOVE(&c->match->watchers, c, mentry);
		else
			TAILQ_REMOVE(&c->match->waiters, c, mentry);
	}
	TAILQ_REMOVE(&conns, c, entry);
	nconns--;
	if (c->twait_ev != NULL)
		event_free(c->twait_ev);
	bufferevent_free(c->bev);
	free(c);
}

/*
 * A client that does not read what it is sent would make refd hold it
 * all: past CTL_MAXOUT it is dropped (and 1 is returned).
 */
static int
ctl_overfull(struct ctl_conn *c)
{
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) <= CTL_MAXOUT)
		return 0;
	log_warnx("control: a client left %d bytes unread: dropped",
	    (int)evbuffer_get_length(bufferevent_get_output(c->bev)));
	ctl_drop(c);
	return 1;
}

/* A client silent for control_idle_ms goes, unless it watches or waits. */
static void
ctl_idle_timeout(struct ctl_conn *c)
{
	struct timeval	 tv = { conf.ctl_idle_ms / 1000,
			    (conf.ctl_idle_ms % 1000) * 1000 };

	bufferevent_set_timeouts(c->bev, &tv, NULL);
}

/* All slots taken: free the one idle the longest, if any is idle. */
static void
ctl_evict_idle(void)
{
	struct ctl_conn	*c, *old = NULL;

	TAILQ_FOREACH(c, &conns, entry)
		if (c->match == NULL && c->twait == 0 && c->tdraw == 0 &&
		    (old == NULL || c->last_ms < old->last_ms))
			old = c;
	if (old != NULL) {
		log_warnx("control: all %d connections taken: the one idle "
		    "longest is closed", CTL_MAXCONNS);
		ctl_drop(old);
	}
}

/*
 * The last answer is out: shut our side and wait (two seconds at most)
 * for the peer to close.  Closing at once, with its unread input still
 * queued, would make the kernel reset the connection and could destroy
 * that last answer, typically the error that explains the close.
 */
static void
ctl_linger(struct ctl_conn *c)
{
	struct timeval	 tv = { 2, 0 };

	c->lingering = 1;
	shutdown(bufferevent_getfd(c->bev), SHUT_WR);
	bufferevent_set_timeouts(c->bev, &tv, NULL);
	bufferevent_enable(c->bev, EV_READ);
}

/* Lines from an operator. */
static void
ctl_read(struct bufferevent *bev, void *arg)
{
	struct ctl_conn	*c = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	char		*line;
	size_t		 len;

	if (c->closing) {
		/* nothing more is read, but it must not pile up either */
		evbuffer_drain(in, evbuffer_get_length(in));
		return;
	}
	c->last_ms = util_now_ms();
	while (!c->closing && c->tdraw == 0 &&
	    (line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
		if (ctl_overfull(c)) {
			free(line);
			return;
		}
		if (len > GTP_MAXLINE || memchr(line, '\0', len) != NULL)
			ctl_error(c, -1, "line too long or not text");
		else
			ctl_command(c, line);
		free(line);
	}
	if (c->tdraw == 0 && evbuffer_get_length(in) > GTP_MAXLINE) {
		ctl_error(c, -1, "line too long");
		c->closing = 1;
	}
	if (c->closing) {
		evbuffer_drain(in, evbuffer_get_length(in));
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			ctl_linger(c);
	}
}

/* Output flushed: a closing connection can go. */
static void
ctl_write(struct bufferevent *bev, void *arg)
{
	struct ctl_conn	*c = arg;

	(void)bev;
	if (c->closing && !c->lingering)
		ctl_linger(c);
}

static void
ctl_event(struct bufferevent *bev, short what, void *arg)
{
	struct ctl_conn	*c = arg;

	/* silent while it watches or waits is what it should be */
	if ((what & BEV_EVENT_TIMEOUT) && !(what & (BEV_EVENT_EOF |
	    BEV_EVENT_ERROR)) && !c->lingering && !c->closing &&
	    (c->match != NULL || c->twait != 0 || c->tdraw != 0)) {
		if (c->tdraw == 0)	/* else its input stays held */
			bufferevent_enable(bev, EV_READ);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		ctl_drop(c);
}

/* A new operator connection. */
static void
ctl_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct ctl_conn	*c;
	uid_t		 peer = (uid_t)-1;

	(void)l;
	(void)sa;
	(void)salen;
	(void)arg;
	if (!harden_peer_ok(fd, &peer)) {
		log_warnx("control: connection of uid %ld refused",
		    (long)peer);
		close(fd);
		return;
	}
	if (nconns >= CTL_MAXCONNS)
		ctl_evict_idle();	/* the operator always gets in */
	if (nconns >= CTL_MAXCONNS || (c = calloc(1, sizeof(*c))) == NULL) {
		log_warnx("control: connection refused (limit or memory)");
		close(fd);
		return;
	}
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		close(fd);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, ctl_read, ctl_write, ctl_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	ctl_idle_timeout(c);
	c->last_ms = util_now_ms();
	TAILQ_INSERT_TAIL(&conns, c, entry);
	nconns++;
}

/* A watched match produced an event line. */
void
ctl_match_event(struct match *m, const char *line)
{
	struct ctl_conn	*c, *t;

	TAILQ_FOREACH_SAFE(c, &m->watchers, mentry, t) {
		evbuffer_add_printf(bufferevent_get_output(c->bev), "%s\n",
		    line);
		ctl_overfull(c);
	}
}

/* Add m at the end of kept; -1 if there is no room for it. */
static int
ctl_keep(struct match *m)
{
	struct match	**nk;
	size_t		 cap;

	if (kept_first + kept_n == kept_cap && kept_first > 0) {
		memmove(kept, kept + kept_first, kept_n * sizeof(*kept));
		kept_first = 0;
	}
	if (kept_n == kept_cap) {
		cap = kept_cap == 0 ? 64 : 2 * kept_cap;
		if ((nk = reallocarray(kept, cap, sizeof(*kept))) == NULL)
			return -1;
		kept = nk;
		kept_cap = cap;
	}
	kept[kept_first + kept_n++] = m;
	return 0;
}

/*
 * Free the oldest finished matches beyond keep_matches, from the loop:
 * no caller of match_finish() holds them then.  One whose end the log
 * has not taken yet stays (match.c tries again): it goes to the back.
 */
static void
ctl_forget(evutil_socket_t fd, short what, void *arg)
{
	struct match	*m;
	size_t		 n, keep = (size_t)conf.keep_matches;

	(void)fd;
	(void)what;
	(void)arg;
	for (n = kept_n > keep ? kept_n - keep : 0; n > 0; n--) {
		m = kept[kept_first++];
		kept_n--;
		if (m->end_unlogged)
			(void)ctl_keep(m);	/* room: one was just taken */
		else
			match_free(m);
	}
}

/* A finished match of the control socket's: kept, and the oldest let go. */
static void
ctl_match_over(struct match *m)
{
	struct timeval	 now = { 0, 0 };

	if (kept_closed)
		return;
	if (ctl_keep(m) == -1) {
		log_warnx("match %lld: kept until exit: out of memory",
		    (long long)m->id);
		return;
	}
	if (kept_n <= (size_t)conf.keep_matches)
		return;
	if (forget_ev == NULL &&
	    (forget_ev = evtimer_new(base, ctl_forget, NULL)) == NULL)
		return;		/* kept until the next try: memory only */
	if (!evtimer_pending(forget_ev, NULL))
		evtimer_add(forget_ev, &now);
}

/* A match ended: end the watchers' streams and answer the waiters. */
void
ctl_match_done(struct match *m)
{
	struct ctl_conn	*c;
	char		 r[512];

	while ((c = TAILQ_FIRST(&m->watchers)) != NULL) {
		TAILQ_REMOVE(&m->watchers, c, mentry);
		evbuffer_add_printf(bufferevent_get_output(c->bev), "\n");
		c->match = NULL;
	}
	while ((c = TAILQ_FIRST(&m->waiters)) != NULL) {
		TAILQ_REMOVE(&m->waiters, c, mentry);
		c->match = NULL;
		snprintf(r, sizeof(r), "%s %s", m->result, m->reason);
		ctl_reply(c, c->id, r);
	}
	if (match_over(m) && m->conf.tournament == 0)
		ctl_match_over(m);
}

/* Listen on the control socket at path, mode 0600. */
int
ctl_listen(const char *path)
{
	struct sockaddr_un	 sun;
	mode_t			 old;
	int			 fd, live;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control socket path too long: %s", path);
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	snprintf(ctl_sockpath, sizeof(ctl_sockpath), "%s", path);
	/* a socket someone answers on belongs to a live refd: keep off */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1) {
		live = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
		close(fd);
		if (live) {
			log_warnx("control socket %s: another refd is running",
			    path);
			ctl_sockpath[0] = '\0';
			return -1;
		}
	}
	if (harden_unlink_socket(path) == -1) {
		log_warn("control socket %s: not replaced", path);
		ctl_sockpath[0] = '\0';
		return -1;
	}
	old = umask(0077);
	listener = evconnlistener_new_bind(base, ctl_accept, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1,
	    (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (listener == NULL) {
		log_warn("control socket %s", path);
		return -1;
	}
	chmod(path, 0600);
	return 0;
}

/* Close the control socket and every operator connection. */
void
ctl_close(void)
{
	struct ctl_conn	*c;

	if (listener != NULL) {
		evconnlistener_free(listener);
		listener = NULL;
		harden_unlink_socket(ctl_sockpath);
	}
	while ((c = TAILQ_FIRST(&conns)) != NULL) {
		if (c->match != NULL)
			ctl_match_done(c->match);
		ctl_drop(c);
	}
	/* the matches themselves are refd.c's to free at exit */
	if (forget_ev != NULL) {
		event_free(forget_ev);
		forget_ev = NULL;
	}
	free(kept);
	kept = NULL;
	kept_first = kept_n = kept_cap = 0;
	kept_closed = 1;
}
