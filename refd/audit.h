/*
 * audit.h: the walker of refd's log that refctl's audit, show and export
 * share (audit.c).  It reads one match's chained rows in link order and
 * checks each against what refd would have written at that point of a
 * replay through libbriscola, then against the chain (chain.c); what a
 * tool does with each checked row it learns through two callbacks.
 *
 * au_open() opens a log read-only, as the tools must, and au_open_copy()
 * a copy of it, for a long walk that must not hold a live log.
 * au_match() walks one match: 0 verified, 1 failed (a->err), 2 still
 * running (and a->mode is AU_AUDIT, so it was not walked), 3 not in the
 * log.
 */
#ifndef REFD_AUDIT_H
#define REFD_AUDIT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "briscola.h"
#include "chain.h"

#define AU_HEX		CHAIN_HEXLEN	/* a link or seed in hex */
#define AU_WORDMAX	64		/* a word or refd's own phrase */
#define AU_TEXTMAX	1024		/* free text refd keeps */
#define AU_OPTMAX	1024		/* the options text */
#define AU_ERRMAX	768		/* a discrepancy, in words */
#define AU_SQLMAX	(4 << 20)	/* longest value SQLite may return */

/* What the walker does with a match besides checking it. */
enum au_mode {
	AU_AUDIT,		/* a verdict: a running match is not walked */
	AU_SHOW,		/* the transcript of the whole table */
	AU_VIEW,		/* the lines one seat was sent */
	AU_LINKS		/* the chain's texts and links, for export */
};

/* The chained rows, in the order the stream query sorts a tie. */
enum au_kind {
	AU_DEAL,
	AU_PLAY,
	AU_JOKER,
	AU_TRICK,
	AU_FAULT,
	AU_DEALEND,
	AU_MATCHEND,
	AU_SEAT,		/* chain_version 2: a seat once it answered */
	AU_BID,			/* schema 4: a call of chiamata5's auction */
	AU_CALLED,		/* schema 4: the caller's suit, called card */
	AU_ANSWER,		/* schema 7: an answer no move holds */
	AU_NKINDS
};

/* One chained row as read: bounded and typed, texts valid until a step. */
struct au_row {
	enum au_kind	 kind;
	long long	 no;		/* link number */
	long long	 deal;		/* deal_no, 0 for the match's end */
	long long	 v[6];		/* numbers, as audit.c's specs name them;
					   -1 for a NULL one may be */
	const char	*s[4];		/* texts, NULL when NULL */
	int		 slen[4];	/* their lengths */
	const char	*link;		/* the stored link */
	int		 linklen;
};

/* One seat as the seats table has it. */
struct au_seat {
	char		 bot[AU_WORDMAX + 1];	/* registered name */
	char		 name[AU_TEXTMAX + 1];	/* answer to name */
	char		 version[AU_TEXTMAX + 1];
	char		 kind[AU_WORDMAX + 1];	/* spawn or remote */
	char		 identity[AU_TEXTMAX + 1];
};

/* One match being walked: its header, the replay, the chain. */
struct au {
	sqlite3		*h;		/* the log, read-only */
	enum au_mode	 mode;
	int		 vseat;		/* AU_VIEW: whose lines */
	long long	 only_deal;	/* AU_SHOW, AU_VIEW: 0 for all */
	FILE		*out;
	void		(*on_start)(struct au *); /* header checked */
	void		(*on_row)(struct au *, const struct au_row *);
					/* a row checked and chained */
	void		*arg;		/* the callbacks' own */

	/* the header, as logged */
	long long	 id;
	char		 variant[AU_WORDMAX + 1];
	char		 options[AU_OPTMAX + 1];
	char		 seedhex[AU_HEX + 1];
	char		 commit[AU_HEX + 1];
	char		 rng[AU_WORDMAX + 1];
	char		 policy[AU_WORDMAX + 1];
	long long	 move_ms, bank_ms, startup_ms, max_faults;
	long long	 tournament;	/* -1 for none */
	char		 started[AU_WORDMAX + 1];
	char		 ended[AU_WORDMAX + 1];	/* "" while running */
	char		 state[AU_WORDMAX + 1];
	char		 result[AU_WORDMAX + 1];
	char		 reason[AU_TEXTMAX + 1];
	char		 mpoints[AU_WORDMAX + 1];
	char		 chain0[AU_HEX + 1];
	char		 final[AU_HEX + 1];	/* "" when NULL */
	long long	 end_no;	/* -1 when NULL */
	long long	 version;	/* chain_version: 1 or 2 */
	char		 prev[AU_HEX + 1];	/* 2: the log's head before */
	long long	 slot;		/* -1 for none */
	char		 receipt[600];	/* "head=N:LINK sig=SIG key=KEY
					   [transcript=...]" of its end in
					   the log chain, or "" */
	struct au_seat	 seat[BRI_MAXSEATS];

	/* what the chained options say */
	struct bri_options opt;
	struct bri_seed	 seed;
	int		 nseats;
	int		 fallback;	/* policy fallback */
	int		 faults_max;	/* max_faults in force */
	int		 move;		/* move_ms in force */
	int		 bank;		/* bank_ms in force */

	/* the replay */
	struct bri_match bm;
	struct bri_event ev;		/* of the last play */
	int		 ev_trick;	/* the trick that play was in */
	enum au_kind	 pend[3];	/* rows the last play still owes */
	int		 npend, ipend;
	int		 fb_seat;	/* a fallback fault awaits its play */
	bri_card	 fb_card;
	enum au_kind	 fb_kind;	/* the row it awaits: a play, a bid
					   (a pass) or the caller's suit */
	int		 fb_suit;	/* AU_CALLED: the suit refd names */
	int		 forfeit_seat;	/* a fault forfeited the match */
	char		 forfeit_kind[AU_WORDMAX + 1];
	int		 over;		/* the match's end was read */
	int		 nfault[BRI_MAXSEATS];
	int		 called_seen;	/* the deal's called card was read */
	int		 nlate[BRI_MAXSEATS];	/* late answers chained */
	int		 ntimeout[BRI_MAXSEATS];	/* moves timed out */
	int		 fb_charged;	/* the fault awaiting its move was an
					   answer, which the bank pays for; a
					   time-out is not (refd(8)) */
	long long	 bank_left[BRI_MAXSEATS]; /* ms, estimated: refd
					   charges microseconds */
	int		 vpend;		/* AU_VIEW: a move asked, its limit
					   read from the next row */
	int		 vpend_kind;	/* its enum botmsg */
	long long	 vpend_deal;	/* the deal it was asked in */
	long long	 vpend_est;	/* its limit as estimated */
	struct bri_view	 vpend_view;	/* the seat's view then */
	int		 ndone;		/* deals with their result */
	long long	 nplays;
	int		 told_start;	/* AU_VIEW: match_start written */
	char		 last_at[AU_WORDMAX + 1]; /* 2: the last row's time */
	int		 nseatrows;	/* 2: seats chained */
	int		 nseatrow[BRI_MAXSEATS];	/* 2: each seat's rows */

	/* the chain */
	uint8_t		 link[CHAIN_HASHLEN];
	long long	 links;		/* rows chained so far */
	int		 noseat;	/* AU_VIEW: no such seat (usage) */

	long long	 at_deal;	/* the deal of the row being read */
	char		 err[AU_ERRMAX];	/* the first discrepancy */
	int		 err_chain;	/* it is the chain's, not the rules' */
};

/* Every chained row of match ?1 in link order (see audit.c). */
extern const char au_stream_sql[];

int		 au_open(const char *, sqlite3 **);
int		 au_open_copy(const char *, const char *, sqlite3 **);
int		 au_match(struct au *, long long);
int		 au_fail(struct au *, long long, int, int, const char *, ...)
		    __attribute__((__format__(__printf__, 5, 6)));
int		 au_row_read(struct au *, sqlite3_stmt *, struct au_row *);
int		 au_text(const struct au_row *, int, struct chain_text *);
const char	*au_kind_word(long long);
int		 au_deal_active(const struct au *);
int		 au_option(const struct au *, const char *);
void		 au_untrusted(FILE *, const char *, size_t);
const char	*au_safe(const char *, size_t, char *, size_t);
const char	*au_cards(const bri_card *, int, char *, size_t);
long long	 au_id(const char *);

/* refctl-show.c: the lines refd sent a seat, for each row walked. */
void		 show_seat_row(struct au *, const struct au_row *);
void		 show_seat_flush(struct au *);

#endif /* REFD_AUDIT_H */
