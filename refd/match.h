/*
 * match.h: one match's state machine, its clocks and its fault policy.
 * The control socket and tournaments read a match's settings, state and
 * result here; only match.c changes them.
 */
#ifndef REFD_MATCH_H
#define REFD_MATCH_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "briscola.h"
#include "bots.h"
#include "db.h"
#include "mset.h"
#include "policy.h"
#include "seat.h"

struct ctl_conn;
struct event;

enum match_state {
	MATCH_WAITING,		/* seats connecting and answering hello */
	MATCH_PLAYING,
	MATCH_ENDING,		/* its end logged, the sync of it under way;
				   to the outside it plays until that is done */
	MATCH_DONE,		/* ended by the rules or a forfeit */
	MATCH_ABORTED		/* stopped by the operator or a failure */
};

/* A match's settings, checked before it starts (ctlopt.c, tourney.c). */
struct match_conf {
	struct bri_options opt;
	struct bri_seed	 seed;
	int		 have_seed;	/* else a new one from getrandom */
	int		 hide_seed;	/* it serves other matches: never told
					   (a tournament's, a cluster's) */
	int		 nbots;
	char		 bots[BRI_MAXSEATS][REFD_NAMELEN + 1];
	int		 move_ms;	/* per-move limit */
	int		 bank_ms;	/* time bank per match, 0 for none */
	int		 startup_ms;	/* first answer */
	enum fault_policy policy;
	int		 max_faults;	/* fallback: then forfeit */
	enum notify_mode notify;	/* when seats hear of notes */
	int64_t		 tournament;	/* 0 when not part of one */
	int		 slot;		/* its slot in the schedule */
	int		 keep_times;	/* each move's time kept in memory
					   (a cluster's worker reports them) */
};

struct match {
	TAILQ_ENTRY(match) entry;
	int64_t		 id;
	enum match_state state;		/* changed by match_enter() only */
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
	int		 slot_wait;	/* waits for max_connections room
					   for its spawned bots */
	char		 result[16];	/* "seat1", "draw", "forfeit2" */
	int64_t		*times;		/* conf.keep_times: each card a seat
					   chose, logged, as seat << 32 | ms */
	int		 ntimes, captimes;	/* ntimes -1: memory ran out */
	int		 end_unlogged;	/* the log refused its end: retry */
	char		 reason[256];
	TAILQ_HEAD(, ctl_conn) watchers;
	TAILQ_HEAD(, ctl_conn) waiters;
	struct match_end *end;		/* MATCH_ENDING: what to announce */
};
TAILQ_HEAD(matchlist, match);
extern struct matchlist	 matches;

struct match	*match_start(const struct match_conf *, char *, size_t);
struct match	*match_find(int64_t);
int		 match_over(const struct match *);
int		 match_ending(const struct match *);
void		 match_ends_now(void);
void		 match_stop(struct match *, const char *);
int		 match_observe(void (*)(struct match *, const char *),
		    void (*)(struct match *));
void		 match_observe_all(void);
void		 match_remote_ready(struct bot *);
void		 match_slot_freed(void);
const char	*match_state_name(enum match_state);
int		 match_running(void);
int		 match_playing(void);
void		 match_free(struct match *);
void		 match_log_lost(struct db_match *);
void		 match_log_lost_all(void);
void		 match_log_synced(void);
void		 match_shown(struct match *, const int **, const int **);

#endif /* REFD_MATCH_H */
