/*
 * standings.h: tournament standings, ratings with confidence intervals,
 * head-to-head tables and the sequential test, computed from match
 * records alone.  Pure computation: no I/O, no globals; the same records
 * in the same order always give the same numbers, to the last bit.
 */
#ifndef REFD_STANDINGS_H
#define REFD_STANDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "briscola.h"

#define ST_MAXBOTS	64

/* One deal of a match, as logged. */
struct st_deal {
	int		 result;	/* enum bri_deal_result */
	int		 winner;	/* BRI_DEAL_WON: seat or team, else -1 */
	int		 joker;		/* joker3: the Joker's seat, else -1 */
	int		 caller;	/* chiamata5: the caller's seat, else -1
					   (read only in chiamata5) */
	int		 partner;	/* chiamata5: the called card's holder,
					   the caller when alone, else -1 */
	int		 mpoints[BRI_MAXSEATS];	/* match points gained */
};

/* One finished match. */
struct st_match {
	int		 variant;	/* enum bri_variant */
	int		 nseats;
	int		 bot[BRI_MAXSEATS];	/* bot index of each seat */
	int		 mpoints[BRI_MAXSEATS];	/* final match points */
	int		 winner;	/* seat (or classic4 team) that won, or -1 */
	int		 forfeit;	/* seat that forfeited, or -1 */
	int		 aborted;	/* 1: no result, counted nowhere */
	int		 faults[BRI_MAXSEATS];
	int		 ndeals;
	const struct st_deal *deals;
};

/* A bot's line of the standings. */
struct st_row {
	int		 bot;
	int		 played, won, drawn, lost;	/* matches */
	int		 deals;				/* deals played */
	int		 deals_won, deals_lost, deals_void;
	int		 joker_deals, joker_won, joker_lost;	/* as Joker */
	int		 ally_deals, ally_won, ally_lost;	/* as ally */
	/* chiamata5's roles, by the deals played in each */
	int		 caller_deals, caller_won, caller_lost;	/* with a partner */
	int		 partner_deals, partner_won, partner_lost;
	int		 alone_deals, alone_won, alone_lost;	/* called alone */
	int		 defender_deals, defender_won, defender_lost;
	double		 joker_rate;	/* joker_deals / deals (joker3) */
	double		 mpoints_per_deal;
	int		 faults;
	double		 score;		/* pairwise score fraction, 0..1 */
	double		 elo, elo_lo, elo_hi;	/* rating and 95% interval */
	double		 telo, telo_lo, telo_hi; /* the role-aware rating */
};

/* Pairwise results of bot a against bot b, from matches they shared. */
struct st_h2h {
	int		 wins, draws, losses;
};

struct st_table {
	int		 nbots;
	struct st_row	 row[ST_MAXBOTS];	/* by rating, best first */
	struct st_h2h	 h2h[ST_MAXBOTS][ST_MAXBOTS]; /* by bot index */
	int		 resamples;	/* bootstrap resamples used */
	int		 tdeals;	/* deals the role-aware rating used */
	int		 tresamples;	/* and its resamples, of whole units */
	double		 joker, joker_lo, joker_hi;	/* joker3: the Joker
					   role's advantage, on the Elo scale */
};

#define ST_SPRT_MAXCAT	256	/* distinct scores of an observation */

/*
 * The sequential probability ratio test of a candidate against a
 * baseline, observation by observation: an observation is a match, or
 * with duplicate deals a whole set of one seed's permutations.
 */
struct st_sprt {
	double		 elo0, elo1;	/* hypotheses H0: elo0, H1: elo1 */
	double		 alpha, beta;	/* error rates */
	int		 valid;		/* the four above make a test */
	double		 llr;		/* log-likelihood ratio so far */
	double		 lower, upper;	/* its bounds */
	int		 units;		/* observations counted */
	int		 wins, draws, losses;	/* their pairwise games */
	int		 decided;	/* 0 running, 1 H1 accepted, -1 H0 */
	int		 ncat;		/* distinct observed scores */
	double		 cat[ST_SPRT_MAXCAT];	/* each score, 0..1 */
	int		 catn[ST_SPRT_MAXCAT];	/* and how often seen */
};

int	 st_compute(const struct st_match *, int, int, uint64_t,
	    struct st_table *);
int	 st_sprt_valid(double, double, double, double);
void	 st_sprt_begin(struct st_sprt *);
int	 st_sprt_add(struct st_sprt *, const struct st_match *, int, int,
	    int);
double	 st_sprt_llr(const struct st_sprt *);
void	 st_sprt(const struct st_match *, int, const int *, int, int,
	    struct st_sprt *);
int	 st_pairwise(const struct st_match *, int, int, int);
int	 st_teams(const struct st_match *, int, const int *, int, uint64_t,
	    struct st_table *);

#endif /* REFD_STANDINGS_H */
