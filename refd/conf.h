/*
 * conf.h: refd's settings, from the command line and the configuration
 * file (refd.conf(5)).  conf.c needs no libevent and no SQLite, so the
 * fuzzer (tests/fuzz/fuzz_conf.c) runs the parser refd runs.
 */
#ifndef REFD_CONF_H
#define REFD_CONF_H

#include <stddef.h>
#include <stdio.h>

/* Daemon-wide settings. */
struct refd_conf {
	char		 db_path[1024];	/* the SQLite log */
	char		 ctl_path[1024];/* the control socket */
	char		 listen_host[64];/* the bot listener, "" for none */
	int		 listen_port;
	char		 botlog_dir[1024]; /* per-bot stderr logs */
	int		 botlog_max_mb;	/* their total, 0: no cap */
	int		 move_ms;	/* default clocks (mset.h) */
	int		 bank_ms;
	int		 startup_ms;
	int		 max_conns;	/* bot connections, spawned or remote */
	int		 auth_ms;	/* a remote bot's time to authenticate */
	int		 bot_cpu_s;	/* RLIMIT_CPU of spawned bots, 0: none */
	int		 bot_mem_mb;	/* RLIMIT_AS of spawned bots, 0: none */
	int		 sandbox_none;	/* "sandbox none": bots unsandboxed */
	int		 max_unauth;	/* remote connections not yet authed */
	int		 max_per_addr;	/* of those, from one address */
	int		 ctl_idle_ms;	/* a silent control client goes */
	int		 commit_ms;	/* rows may wait this long to commit */
	int		 ckpt_pages;	/* WAL pages between checkpoints */
	int		 keep_matches;	/* finished matches still listed */
	char		 bot_user[64];	/* who bots run as when refd is root */
	char		 http_host[64];	/* the web site, "" when off */
	int		 http_port;
	char		 http_token[128]; /* asked of every request, or "" */
	int		 http_max_conns; /* the site's connections at once */
	int		 http_max_per_addr; /* of those, from one address */
	char		 cluster[1024];	/* a cluster's CONNINFO, or "" */
	char		 worker[64];	/* this refd's name as its worker */
	int		 cluster_batch_ms; /* a lease's batch lasts about this */
};

int		 conf_parse(struct refd_conf *, FILE *, const char *, char *,
		    size_t);
int		 conf_listen(struct refd_conf *, const char *, char *, size_t);
int		 conf_http(struct refd_conf *, const char *, char *, size_t);
int		 conf_default(struct refd_conf *, int, long long);

#endif /* REFD_CONF_H */
