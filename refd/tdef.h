/*
 * tdef.h: a tournament's definition (refd-tournament(5)) and the
 * schedule it generates.  Shared by refd, which runs tournaments, and
 * refctl, which prints schedules and standings offline.
 */
#ifndef REFD_TDEF_H
#define REFD_TDEF_H

#include <stddef.h>

#include "briscola.h"
#include "mset.h"
#include "policy.h"

#define TDEF_MAXBOTS	64
#define TDEF_MAXSLOTS	1000000	/* matches in one tournament */
#define TDEF_NAMELEN	32

enum tdef_format { TDEF_ROUNDROBIN, TDEF_GAUNTLET };

struct tdef {
	char		 name[TDEF_NAMELEN + 1];
	struct bri_options opt;		/* variant and match options */
	enum tdef_format format;
	int		 duplicate;	/* every seat permutation per seed */
	int		 trust_remote;	/* duplicate deals with remote bots */
	int		 nbots;		/* participants; gauntlet: [0] is
					   the candidate, the rest the pool */
	char		 bots[TDEF_MAXBOTS][TDEF_NAMELEN + 1];
	int		 botline[TDEF_MAXBOTS]; /* where each was named */
	int		 matches;	/* total, 0 for one cycle */
	int		 matchesline;	/* where it was set */
	int		 concurrency;	/* matches at once */
	struct bri_seed	 seed;		/* master seed */
	int		 have_seed;
	int		 move_ms, bank_ms, startup_ms; /* -1: refd's default */
	enum fault_policy policy;	/* POLICY_DEFAULT: refd's */
	int		 max_faults;	/* -1 default */
	struct mset	 set;		/* the match settings as given, and
					   the line of each (mset.h) */
	int		 sprt;		/* stop on a decision of the SPRT */
	int		 sprtline;
	double		 elo0, elo1, alpha, beta;
	int		 nbotdefs;	/* "bot NAME spawn|remote ..." lines */
	char		*botdef[TDEF_MAXBOTS];	/* the words after "bot" */
	int		 botdefline[TDEF_MAXBOTS];
};

/* One match of the schedule. */
struct tslot {
	int		 bot[BRI_MAXSEATS];	/* participant of each seat */
	int		 block;		/* cycle * tables + table */
	int		 arrangement;	/* permutation number */
	struct bri_seed	 seed;
};

int	tdef_parse(const char *, const char *, struct tdef *, char *,
	    size_t);
int	tdef_schedule(const struct tdef *, struct tslot **, int *, char *,
	    size_t);
void	tdef_free(struct tdef *);
int	tdef_seatings(int);
const char *tdef_format_name(enum tdef_format);
int	tdef_over(const char *);

#endif
