/*
 * mset.h: the one table of a match's settings (refd(8) MATCH SETTINGS):
 * each key's type, range, default and the variants it applies to.
 * refd's -m and -s, refd.conf, match_start, tournament files, the options
 * text of the log, the audit's reading of it and refctl checkbot all ask
 * here, so that a setting is spelt, bounded and refused alike by each.
 * Nothing here needs libevent or SQLite.
 */
#ifndef REFD_MSET_H
#define REFD_MSET_H

#include <stddef.h>

#include "briscola.h"
#include "policy.h"

/* The settings, in the order the options text of the log holds them. */
enum mset_key {
	MSET_SEED = 0,		/* the match's seed (a column of its own) */
	MSET_TARGET,
	MSET_DEALS_TO_WIN,
	MSET_DEAL_CAP,
	MSET_REMOVED_TWO,
	MSET_DEALS,
	MSET_MOVE_MS,
	MSET_BANK_MS,
	MSET_STARTUP_MS,
	MSET_POLICY,
	MSET_MAX_FAULTS,
	MSET_NOTIFY,
	MSET_NKEYS
};

/*
 * When a seat hears of notifications (MSET_NOTIFY, refd-protocol(7)):
 * the default is 0, so that a zeroed match_conf is a usual match.
 */
enum notify_mode {
	NOTIFY_LAZY = 0,	/* held for the seat's next command */
	NOTIFY_EAGER		/* each written at once */
};

/* One match's settings, as given to any entry point. */
struct mset {
	long long	 val[MSET_NKEYS];	/* the seed's is unused */
	int		 given[MSET_NKEYS];	/* where (a line, or 1), 0: not */
	struct bri_seed	 seed;
};

int		 mset_find(const char *);
const char	*mset_name(enum mset_key);
int		 mset_daemon(enum mset_key);
long long	 mset_default(enum mset_key);
int		 mset_applies(enum mset_key, enum bri_variant);
void		 mset_init(struct mset *);
int		 mset_value(enum mset_key, const char *, long long *,
		    struct bri_seed *, char *, size_t);
int		 mset_set(struct mset *, const char *, const char *, int, char *,
		    size_t);
int		 mset_check(const struct mset *, enum bri_variant, int *, char *,
		    size_t);
void		 mset_options(const struct mset *, enum bri_variant,
		    struct bri_options *);
void		 mset_of(struct mset *, const struct bri_options *, int, int,
		    int, enum fault_policy, int);
void		 mset_format(const struct mset *, enum mset_key, char *, size_t);
int		 mset_text(const struct mset *, enum bri_variant, char *,
		    size_t);
int		 mset_read(struct mset *, enum bri_variant, const char *, char *,
		    size_t);

#endif /* REFD_MSET_H */
