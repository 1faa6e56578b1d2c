/*
 * refd.h: the daemon's shared types.  Data flows one way: a seat frames
 * a bot's lines, a match applies them through libbriscola and the log,
 * and every line to a bot is built by botproto from a per-seat view.
 */
#ifndef REFD_H
#define REFD_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>

#include <event2/event.h>
#include <event2/bufferevent.h>

#include "botproto.h"
#include "briscola.h"
#include "db.h"
#include "frame.h"
#include "gtp.h"
#include "spawn.h"

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) && ((tvar) = TAILQ_NEXT(var, field), 1);		\
	    (var) = (tvar))
#endif

#define REFD_VERSION		PACKAGE_VERSION
#define REFD_NAMELEN		32
#define REFD_MAXARGV		32	/* words of a spawned bot's command */
#define REFD_ARGLEN		1024	/* bytes of one such word */
#define SEAT_MAXPEND		256	/* unanswered commands to one bot */
#define SEAT_MINPEND		16	/* room a seat starts with for them */
#define SEAT_MAXOUT		(256 * 1024) /* unread output to one bot */
#define SEAT_STDERR_CAP		(1024 * 1024) /* per-bot stderr log */

/*
 * Event priorities, lowest first served.  The flush (seat.c), which
 * commits the log and then writes to the bots, runs first once it is
 * due; libevent gives any other new event PRI_COUNT / 2, PRI_CTL: the
 * control socket, the listeners, timers and signals.  The bots' input
 * is served last, for at most REFD_CHUNK_MS at a time, so that neither
 * an operator nor the flush ever waits behind thousands of them.
 */
enum { PRI_FLUSH, PRI_CTL, PRI_SEAT, PRI_COUNT };
#define REFD_CHUNK_MS		5

struct match;
struct seat;
struct ctl_conn;

/* Daemon-wide settings, from the command line and the config file. */
struct refd_conf {
	char		 db_path[1024];	/* the SQLite log */
	char		 ctl_path[1024];/* the control socket */
	char		 listen_host[64];/* the bot listener, "" for none */
	int		 listen_port;
	char		 botlog_dir[1024]; /* per-bot stderr logs */
	int		 move_ms;	/* default clocks */
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
	char		 bot_user[64];	/* who bots run as when refd is root */
};

extern struct refd_conf	 conf;
extern struct event_base *base;
extern struct db	*logdb;

/* bots.c: the registry of bots an operator has added. */
enum bot_kind { BOT_SPAWN, BOT_REMOTE };
struct bot {
	TAILQ_ENTRY(bot)  entry;
	char		  name[REFD_NAMELEN + 1];
	enum bot_kind	  kind;
	int		  argc;			/* spawn: the command */
	char		**argv;			/* NULL-terminated */
	uint8_t		  token[32];		/* remote: BLAKE2b of token */
	TAILQ_HEAD(, seat) idle;		/* remote: connected, free */
};
int		 bots_add(const char *, enum bot_kind, int, char **, char *,
		    size_t);
struct bot	*bots_find(const char *);
struct bot	*bots_first(void);
struct bot	*bots_next(struct bot *);
int		 bots_auth(const char *, const char *);
void		 bots_free(void);

/* seat.c: one bot connection, spawned or remote. */
enum seat_state {
	SEAT_AUTH,		/* remote: waiting for "auth NAME TOKEN" */
	SEAT_IDLE,		/* remote: authenticated, in its bot's pool */
	SEAT_PLAYING,		/* driven by a match */
	SEAT_CLOSING,		/* quit sent, waiting for the end */
	SEAT_DEAD		/* gone; freed when its process is reaped */
};
enum pend_kind { PEND_NOTE, PEND_NAME, PEND_VERSION, PEND_GENPLAY, PEND_QUIT };
struct seat_pend {
	unsigned	 id;		/* command id sent */
	enum pend_kind	 kind;
	int64_t		 sent_us;	/* when it was sent */
	int64_t		 deadline_us;	/* when its answer is late */
	int		 abandoned;	/* late: swallow its answer */
};
struct seat {
	TAILQ_ENTRY(seat) entry;	/* in all seats, or a bot's pool */
	TAILQ_ENTRY(seat) pool;
	enum seat_state	 state;
	struct bot	*bot;
	struct match	*match;		/* while playing */
	int		 index;		/* seat number at its table */
	int		 fd;
	struct bufferevent *bev;
	struct evbuffer	*out;		/* lines queued, not yet written */
	int		 unsent;	/* commands of them in pend */
	TAILQ_ENTRY(seat) dirty;	/* out holds lines: flush is due */
	int		 isdirty;	/* on that list */
	pid_t		 pid;		/* spawn: the bot's process group */
	int		 errfd;		/* spawn: stderr pipe */
	struct event	*errev;
	int		 logfd;		/* spawn: stderr log file */
	size_t		 logged;	/* bytes written to it */
	unsigned	 next_id;
	struct seat_pend *pend;		/* ring of unanswered, npcap long */
	int		 npcap;		/* grows to SEAT_MAXPEND as needed */
	int		 phead, npend;
	struct event	*timer;		/* deadline of the oldest pending */
	int64_t		 armed_us;	/* when timer fires, 0: not for pend */
	struct event	*killtimer;	/* closing: TERM then KILL */
	int		 killstep;
	struct frame	 fr;		/* the answer being read */
	char		 peer[64];	/* remote address, or "pid N" */
	char		 name[64];	/* what the bot answered to name */
	char		 version[64];
	int		 broken;	/* framing lost: cannot be reused */
	int		 freeing;	/* free is scheduled */
	int		 auth_refused;	/* the refusal is due at the timer */
};
struct seat	*seat_spawn(struct bot *, const char *, char *, size_t);
struct seat	*seat_accept(int, const char *);
int		 seat_send(struct seat *, enum pend_kind, int, const char *,
		    ...) __attribute__((format(printf, 4, 5)));
void		 seat_release(struct seat *);
void		 seat_reap(pid_t, int);
int		 seat_count(void);
int		 seat_unauth(const char *, int *);
void		 seat_shutdown_all(void);
void		 seat_flush_soon(void);
void		 seat_drop_unsent(struct seat *);
const char	*seat_state_name(enum seat_state);

/* match.c: one match's state machine, clocks and fault policy. */
enum match_state {
	MATCH_WAITING,		/* seats connecting and answering hello */
	MATCH_PLAYING,
	MATCH_DONE,		/* ended by the rules or a forfeit */
	MATCH_ABORTED		/* stopped by the operator or a failure */
};
enum fault_policy { POLICY_FORFEIT, POLICY_FALLBACK };
struct match_conf {
	struct bri_options opt;
	struct bri_seed	 seed;
	int		 have_seed;	/* else a new one from getrandom */
	int		 nbots;
	char		 bots[BRI_MAXSEATS][REFD_NAMELEN + 1];
	int		 move_ms;	/* per-move limit */
	int		 bank_ms;	/* time bank per match, 0 for none */
	int		 startup_ms;	/* first answer */
	enum fault_policy policy;
	int		 max_faults;	/* fallback: then forfeit */
	int64_t		 tournament;	/* 0 when not part of one */
	int		 slot;		/* its slot in the schedule */
};
struct match {
	TAILQ_ENTRY(match) entry;
	int64_t		 id;
	enum match_state state;
	struct match_conf conf;
	struct bri_match bm;
	struct db_match	 dbm;
	char		 options[256];	/* options text as logged */
	char		 commit[2 * BRI_COMMITLEN + 1];
	int		 nseats;
	struct seat	*seat[BRI_MAXSEATS];
	int		 hello;		/* seats that answered name/version */
	int64_t		 bank_us[BRI_MAXSEATS];
	int		 faults[BRI_MAXSEATS];
	int		 nplays;	/* plays in the current deal */
	int64_t		 ask_us;	/* when genplay was sent */
	struct event	*wait_timer;	/* remote seats' start-up limit */
	char		 result[16];	/* "seat1", "draw", "forfeit2" */
	char		 reason[256];
	TAILQ_HEAD(, ctl_conn) watchers;
	TAILQ_HEAD(, ctl_conn) waiters;
};
TAILQ_HEAD(matchlist, match);
extern struct matchlist	 matches;
struct match	*match_start(const struct match_conf *, char *, size_t);
struct match	*match_find(int64_t);
void		 match_stop(struct match *, const char *);
void		 match_seat_answer(struct match *, struct seat *,
		    enum pend_kind, int, const char *, int64_t);
void		 match_seat_fault(struct match *, struct seat *, const char *,
		    const char *);
void		 match_remote_ready(struct bot *);
const char	*match_state_name(enum match_state);
int		 match_running(void);
void		 match_free(struct match *);
void		 match_log_lost(struct db_match *);

/* tourney.c: tournaments run by this refd. */
int64_t		 tourney_start(const char *, char *, size_t);
int		 tourney_resume(int64_t, char *, size_t);
void		 tourney_resume_all(void);
int		 tourney_stop(int64_t, char *, size_t);
void		 tourney_list(FILE *);
int		 tourney_status(int64_t, FILE *, char *, size_t);
int		 tourney_over(int64_t, const char **, const char **);
void		 tourney_match_done(struct match *);
void		 tourney_free_all(void);

/* conf.c: the config file, refd.conf(5). */
int		 conf_parse(struct refd_conf *, FILE *, const char *, char *,
		    size_t);
int		 conf_listen(struct refd_conf *, const char *, char *, size_t);

/* ctlopt.c: match_start's words, checked into a match_conf. */
int		 ctlopt_match(struct match_conf *, const struct refd_conf *,
		    int, char **, char *, size_t);

/* ctl.c: the control socket. */
int		 ctl_listen(const char *);
void		 ctl_close(void);
void		 ctl_match_event(struct match *, const char *);
void		 ctl_match_done(struct match *);
void		 ctl_forget(struct match *);
void		 ctl_tourney_done(int64_t, const char *, const char *);

/* refd.c */
void		 refd_shutdown(void);
int		 refd_stopping(void);
int64_t		 refd_loop_lag_max(void);

#endif /* REFD_H */
