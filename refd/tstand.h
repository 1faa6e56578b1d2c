/*
 * tstand.h: a tournament's results read back from the log, and the
 * standings printed as text, CSV or JSON.  Shared by refd (live status)
 * and refctl (offline, from the log alone).
 */
#ifndef REFD_TSTAND_H
#define REFD_TSTAND_H

#include <stdint.h>
#include <stdio.h>

#include "standings.h"
#include "tdef.h"

struct sqlite3;

#define TSTAND_RECMAX	65536	/* a match's record (tstand_record()) */
#define TSTAND_TIMESMAX	65536	/* its thinking times (tstand_times_record()) */

enum tstand_fmt { TSTAND_TEXT, TSTAND_CSV, TSTAND_JSON };

/* A bot's thinking time over a tournament's moves, in milliseconds. */
struct tstand_time {
	int		 moves;		/* cards it chose itself */
	double		 mean;
	int		 p99, max;	/* nearest-rank 99th percentile */
	int		 timeouts;	/* time-out faults */
};

/*
 * n moves of ms milliseconds each (ms -1: n time-outs) of bot in slot:
 * a match's thinking times as a cluster's row carries them
 * (tstand_add_times()), summed by tstand_times().
 */
struct tstand_tv {
	int		 slot, bot, ms, n;
};

/* What the log says of the tournament itself. */
struct tstand_meta {
	int64_t		 id;
	char		 name[40];
	char		 seed[65];
	char		 started[32], ended[32];	/* UTC, ISO 8601 */
	char		 state[16];
};

/* A tournament's finished matches, in schedule order. */
struct tstand {
	int		 n;		/* matches */
	struct st_match	*m;
	struct st_deal	*deals;		/* every match's deals, in one array */
	int64_t		*id;		/* each match's id in the log */
	int		*slot;		/* and its slot in the schedule */
	int		 upto;		/* only slots below it count, 0:
					   all (tstand_sprt_prefix()) */
	int		 capm, capd, nd;	/* tstand_add_record()'s room */
	struct tstand_tv *tv;		/* tstand_add_times()'s figures */
	int		 ntv, captv;
	int		 timed;		/* matches given their times */
	int		 have_extra;	/* tstand_extra() filled these: */
	struct tstand_meta meta;
	struct tstand_time time[TDEF_MAXBOTS];	/* by bot index */
};

int	tstand_load(struct sqlite3 *, int64_t, const struct tdef *, int,
	    struct tstand *, char *, size_t);
int	tstand_load_match(struct sqlite3 *, int64_t, const struct tdef *,
	    int, struct tstand *, char *, size_t);
int	tstand_record(const struct tstand *, int, char *, size_t);
int	tstand_add_record(struct tstand *, const struct tdef *, int,
	    int64_t, const char *, char *, size_t);
int	tstand_times_record(struct sqlite3 *, int64_t, int, char *, size_t,
	    char *, size_t);
int	tstand_add_times(struct tstand *, int, const char *, char *, size_t);
int	tstand_times(struct tstand *, int);
int	tstand_times_diff(const char *, const char *, int, char *, size_t);
void	tstand_times_print(FILE *, const struct tdef *, const struct tstand *,
	    const struct st_table *);
int	tstand_report(FILE *, const struct tdef *, struct tstand *,
	    enum tstand_fmt);
int	tstand_extra(struct sqlite3 *, int64_t, const struct tdef *,
	    struct tstand *, char *, size_t);
void	tstand_free(struct tstand *);
void	tstand_print(FILE *, const struct tdef *, const struct tstand *,
	    const struct st_table *, const struct st_sprt *, enum tstand_fmt);
void	tstand_sprt_print(FILE *, const struct tdef *,
	    const struct st_sprt *);
int	tstand_results(FILE *, struct sqlite3 *, int64_t, enum tstand_fmt,
	    char *, size_t);
int	tstand_sprt(const struct tdef *, const struct tslot *, int,
	    const struct tstand *, struct st_sprt *);
int	tstand_sprt_prefix(const struct tdef *, const struct tslot *, int,
	    struct tstand *, struct st_sprt *);
void	tstand_sprt_begin(const struct tdef *, struct st_sprt *);
int	tstand_sprt_more(const struct tdef *, const struct tslot *, int,
	    const struct tstand *, struct st_sprt *, int);
const char *tstand_sprt_state(const struct st_sprt *);
void	tstand_sprt_reason(const struct tdef *, const struct st_sprt *,
	    char *, size_t);
int	*tstand_units(const struct tdef *, const struct tslot *, int,
	    const struct tstand *);
void	tstand_json_str(FILE *, const char *);
int	tstand_fmt_parse(const char *, enum tstand_fmt *);
int	tstand_seed_secret(struct sqlite3 *, int64_t);
int	tstand_def(struct sqlite3 *, int64_t, struct tdef *, char *, size_t);
int	tstand_log_report(FILE *, struct sqlite3 *, int64_t, enum tstand_fmt,
	    char *, size_t);
int	tstand_sprt_path(FILE *, struct sqlite3 *, int64_t, char *, size_t);

#endif
