/*
 * db.h: refd's SQLite log of matches, deals, plays and faults.
 *
 * Every write goes through here.  Each row that records something a match
 * did (deal, play, trick, fault, deal end, match end) also carries a link
 * of the match's hash chain: BLAKE2b-256 over the previous link and the
 * row's canonical text (see refd-log(5)).  A function returns 0 on
 * success and -1 on failure, with the reason in db_error(); after a
 * failure the caller must stop the match, never play on unlogged.
 *
 * db_open() opens (and, unless readonly, creates) the log at path and
 * brings its schema up to date; it returns NULL with the reason in err
 * (errlen bytes, may be 0) when it cannot.  The other functions:
 *
 *	db_writable	1 if a write transaction can start now, else 0
 *	db_abort_unfinished	marks every running match aborted, with a
 *			reason
 *	db_match_begin	inserts the match and its seats; sets m->id and
 *			starts m->chain
 *	db_seat_version	seat's GTP name and version, once it answered
 *	db_deal		deal deal_no (1-based) as dealt
 *	db_play		deal_no, seq (0-based within the deal), trick,
 *			seat, card, ms taken, fault (1 if refd chose it)
 *	db_trick	deal_no, trick, winner, points
 *	db_joker	deal_no, seat made Joker
 *	db_bid		chiamata5: deal_no, seq, seat, rank or pass, ms, fault
 *	db_called	chiamata5: the caller's suit, as the called card and
 *			its holder, the partner
 *	db_fault	deal_no (0 before the first deal), seat, kind,
 *			evidence, ms, action
 *	db_deal_end	the deal just over in the match
 *	db_match_end	result, reason, match points of nseats; committed
 *			and synced with every row before it
 *	db_match_end_async  the same, its sync maybe on db_group_async's
 *			thread, its commit maybe the open group's when
 *			busy: db_match_unsynced until done
 *	db_bot_event	match id (0 for none), seat (-1 for none), bot,
 *			kind, detail; not chained
 *	db_begin	opens one transaction for a match's next writes;
 *			db_commit commits it, db_rollback undoes it and
 *			the match's chain with it
 *	db_group_mode	refd's mode: the writes of one or more loop
 *			passes are one transaction, committed unsynced by
 *			db_group_commit; db_group_pending tells if one is
 *			open, db_group_due if its window is over (refd(8),
 *			DURABILITY), db_group_spans if a group may outlast
 *			its pass, db_group_commits how many were
 *			committed, db_group_ends how many ends joined
 *			one; db_group_async hands the sync of a
 *			match's end to a thread: db_sync_heard and
 *			db_sync_done say how far its syncs are done,
 *			db_sync_now syncs here
 *	db_break	after a failed sync: every later write fails
 *	db_ckpt_pages	pages of write-ahead log between checkpoints;
 *			db_ckpt_async hands them to a thread, the loop
 *			copying what it left once db_ckpt_done says so;
 *			db_ckpt_counts says how many were made where
 */
#ifndef REFD_DB_H
#define REFD_DB_H

#include <stddef.h>
#include <stdint.h>

#include "briscola.h"

#define DB_HASHLEN	32
#define DB_CKPT_PAGES	4000	/* WAL pages between checkpoints, by default */

/*
 * A match's last link so far, its number (0 for link 0) and its hex: the
 * link an "abort" or "legacy" event of the log chain names.  Shared by
 * refd and the audit, so both mean the same link.
 */
#define DB_LAST_LINK_SQL \
    "SELECT chain_no, chain FROM (SELECT chain_no, chain FROM deals" \
    " WHERE match_id = ?1 UNION ALL SELECT chain_no, chain FROM plays" \
    " WHERE match_id = ?1 UNION ALL SELECT chain_no, chain FROM tricks" \
    " WHERE match_id = ?1 UNION ALL SELECT chain_no, chain FROM jokers" \
    " WHERE match_id = ?1 UNION ALL SELECT chain_no, chain FROM faults" \
    " WHERE match_id = ?1 UNION ALL SELECT chain_no, chain FROM" \
    " deal_results WHERE match_id = ?1 UNION ALL SELECT chain_no," \
    " chain FROM seats WHERE match_id = ?1 AND chain_no IS NOT NULL" \
    " UNION ALL SELECT chain_no, chain FROM calls WHERE match_id = ?1" \
    " UNION ALL SELECT end_no, final_chain FROM matches WHERE id = ?1" \
    " AND end_no IS NOT NULL UNION ALL SELECT 0, chain0 FROM matches" \
    " WHERE id = ?1) ORDER BY chain_no DESC LIMIT 1"

struct db;

/* What a match is, as recorded when it starts. */
struct db_match {
	int64_t		 id;		/* set by db_match_begin() */
	const char	*variant;
	const char	*options;	/* "key=value ..." in force */
	const char	*seed_hex;	/* 64 hex digits */
	const char	*commit_hex;	/* 64 hex digits */
	const char	*rng;		/* "chacha20-ietf/1" */
	int		 move_ms;	/* per-move limit */
	int		 bank_ms;	/* time bank, 0 for none */
	int		 startup_ms;	/* first answer limit */
	const char	*policy;	/* "forfeit" or "fallback" */
	int		 max_faults;	/* fallback: faults before forfeit */
	int64_t		 tournament;	/* 0 when not part of one */
	int		 slot;		/* its slot in the tournament's schedule */
	int		 limit_ms;	/* the limit of the move being logged */
	const char	*answer;	/* the bot's answer being logged, or
					   NULL when refd chose the card */
	uint8_t		 chain[DB_HASHLEN]; /* running chain, kept by db.c */
	int		 links;		/* links after chain0, kept by db.c */
	int		 deals;		/* deals logged, kept by db.c: a
					   deal's rows need theirs first */
	int		 mpoints[BRI_MAXSEATS]; /* as the log holds them, by
					   db.c: the last deal end logged */
	unsigned	 group;		/* the group it wrote in, by db.c */
	uint8_t		 head[DB_HASHLEN]; /* the log's head at its end */
	long long	 head_no;	/* its number in the log chain */
	char		 sig[129];	/* that head signed, hex, or "" */
	const char	*transcripts;	/* the seats' transcript hashes
					   at the end, or NULL */
	uint64_t	 syncwait;	/* by db.c: its end waits for this
					   sync (db_match_unsynced) */
};

/* One seat as recorded when a match starts. */
struct db_seat {
	int		 seat;
	const char	*bot;		/* registered bot name */
	const char	*version;	/* as the bot answered, or "" */
	const char	*kind;		/* "spawn" or "remote" */
	const char	*identity;	/* argv joined for display, or peer */
};

struct db	*db_open(const char *, int, char *, size_t);
int		 db_own_keys(struct db *);
void		 db_close(struct db *);
const char	*db_error(struct db *);
int		 db_writable(struct db *);
int		 db_abort_unfinished(struct db *, const char *, int *);

void		 db_group_mode(struct db *, void (*)(void),
		    void (*)(struct db_match *));
int		 db_group_pending(struct db *);
int		 db_group_due(struct db *, int64_t, int64_t *);
void		 db_group_window(struct db *, int64_t);
int		 db_group_spans(struct db *);
int		 db_group_commit(struct db *);
long long	 db_group_commits(struct db *);
long long	 db_group_ends(struct db *);
void		 db_group_async(struct db *, uint64_t (*)(void *,
		    struct db_match *), void *);
void		 db_sync_heard(struct db *, uint64_t);
uint64_t	 db_sync_done(struct db *);
int		 db_match_unsynced(struct db *, const struct db_match *);
int		 db_sync_now(struct db *);
void		 db_break(struct db *, const char *);
void		 db_ckpt_pages(struct db *, int);
void		 db_ckpt_async(struct db *, void (*)(void *), void *);
void		 db_ckpt_done(struct db *);
void		 db_ckpt_counts(struct db *, long long *, long long *);
int		 db_begin(struct db *, struct db_match *);
int		 db_commit(struct db *);
void		 db_rollback(struct db *);
int		 db_match_begin(struct db *, struct db_match *,
		    const struct db_seat *, int);
int		 db_seat_version(struct db *, struct db_match *, int,
		    const char *, const char *, const char *);
int		 db_deal(struct db *, struct db_match *,
		    const struct bri_deal *, int);
int		 db_play(struct db *, struct db_match *, int, int, int, int,
		    bri_card, int, int);
int		 db_trick(struct db *, struct db_match *, int, int, int, int);
int		 db_joker(struct db *, struct db_match *, int, int);
int		 db_bid(struct db *, struct db_match *, int, int, int, int, int,
		    int);
int		 db_called(struct db *, struct db_match *, int, int, int,
		    bri_card, int, int, int);
int		 db_answer(struct db *, struct db_match *, int, int, long long,
		    const char *, const char *, int);
int		 db_fault(struct db *, struct db_match *, int, int,
		    const char *, const char *, int, const char *);
int		 db_deal_end(struct db *, struct db_match *,
		    const struct bri_match *);
int		 db_match_end(struct db *, struct db_match *, const char *,
		    const char *, const int *, int);
int		 db_match_end_async(struct db *, struct db_match *, const char *,
		    const char *, const int *, int);
int		 db_bot_event(struct db *, int64_t, int, const char *,
		    const char *, const char *);

int		 db_tourney_begin(struct db *, const char *, const char *,
		    const char *, int, int64_t *);
int		 db_tourney_state(struct db *, int64_t, const char *,
		    const char *);
int		 db_set_key(struct db *, const uint8_t *);
int		 db_public_key(struct db *, char *, size_t);
struct sqlite3	*db_handle(struct db *);
int		 db_has_file(struct db *);
struct sqlite3	*db_reader(struct db *, char *, size_t);
int		 db_schema_version(void);
int		 db_copy(const char *, const char *, char *, size_t);

#endif /* REFD_DB_H */
