/*
 * mset.c: the one table of a match's settings, and everything that reads
 * or writes them by it: a value checked against its key's type and
 * range, a key refused for a variant it does not apply to, the options
 * text of the log and its reading back.  Every entry point (refd's -m
 * and -s, refd.conf, match_start, tournament files, the audit, refctl
 * checkbot) says the same words because they are said here only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mset.h"
#include "util.h"

/* Which variants a setting applies to, read from the variant's row. */
enum mset_scope {
	MSET_ALL = 0,		/* every variant */
	MSET_BYTARGET,		/* a match to a target of match points */
	MSET_BYDEALS,		/* a match to a number of won deals */
	MSET_UNFIXED,		/* any match that is not a fixed number of
				   deals, so that a tie can go on */
	MSET_ONETWO,		/* one 2 removed from the deck, its suit
				   the rules' to choose */
	MSET_FIXED		/* a fixed number of deals */
};

enum mset_type { MSET_NUMBER, MSET_SUIT, MSET_WORD, MSET_HEX };

#define MSET_DAEMON	0x1	/* refd.conf sets refd's default of it */
#define MSET_LEGACY	0x2	/* logged for the first four variants
				   whether it applies or not, as ever */
#define MSET_UNLOGGED	0x4	/* not in the options text */
#define MSET_UNUSUAL	0x8	/* in it only when not at its default */

/* The words of a setting of type MSET_WORD but the policy (policy.c). */
static const char *const mset_notify_words[] = { "lazy", "eager", NULL };

static const struct mset_info {
	const char	*key;
	enum mset_type	 type;
	long long	 min, max, dflt;
	enum mset_scope	 scope;
	unsigned	 flags;
	const char *const *words;	/* MSET_WORD: by value; NULL: policy */
} mset_table[MSET_NKEYS] = {
	[MSET_SEED] = { "seed", MSET_HEX, 0, 0, 0, MSET_ALL,
	    MSET_UNLOGGED },
	[MSET_TARGET] = { "target", MSET_NUMBER, 1, 1000, 10,
	    MSET_BYTARGET, MSET_LEGACY },
	[MSET_DEALS_TO_WIN] = { "deals_to_win", MSET_NUMBER, 1, 1000, 2,
	    MSET_BYDEALS, MSET_LEGACY },
	[MSET_DEAL_CAP] = { "deal_cap", MSET_NUMBER, 1, 100000, 100,
	    MSET_UNFIXED, MSET_LEGACY },
	[MSET_REMOVED_TWO] = { "removed_two", MSET_SUIT, -1, 3, -1,
	    MSET_ONETWO, MSET_LEGACY },
	[MSET_DEALS] = { "deals", MSET_NUMBER, 1, 1000, 5, MSET_FIXED, 0 },
	[MSET_MOVE_MS] = { "move_ms", MSET_NUMBER, 1, 3600000, 5000,
	    MSET_ALL, MSET_DAEMON },
	[MSET_BANK_MS] = { "bank_ms", MSET_NUMBER, 0, 86400000, 0,
	    MSET_ALL, MSET_DAEMON },
	[MSET_STARTUP_MS] = { "startup_ms", MSET_NUMBER, 1, 600000, 10000,
	    MSET_ALL, MSET_DAEMON },
	[MSET_POLICY] = { "policy", MSET_WORD, POLICY_FORFEIT,
	    POLICY_FALLBACK, POLICY_FORFEIT, MSET_ALL, 0 },
	[MSET_MAX_FAULTS] = { "max_faults", MSET_NUMBER, 1, 1000, 3,
	    MSET_ALL, 0 },
	/* the default, lazy, is not written, so that the options text of
	 * a match is what it was before the setting came */
	[MSET_NOTIFY] = { "notify", MSET_WORD, NOTIFY_LAZY, NOTIFY_EAGER,
	    NOTIFY_LAZY, MSET_ALL, MSET_UNUSUAL, mset_notify_words },
};

/* The variants whose options text predates this table (MSET_LEGACY). */
#define MSET_OLDVARIANTS	((1u << BRI_JOKER3) | (1u << BRI_CLASSIC2) | \
	    (1u << BRI_CLASSIC3) | (1u << BRI_CLASSIC4))

/* The key named s, or -1. */
int
mset_find(const char *s)
{
	int	 k;

	for (k = 0; k < MSET_NKEYS; k++)
		if (strcmp(s, mset_table[k].key) == 0)
			return k;
	return -1;
}

const char *
mset_name(enum mset_key k)
{
	return mset_table[k].key;
}

/* Does refd.conf (and refd's -m, -s) set refd's default of k? */
int
mset_daemon(enum mset_key k)
{
	return (mset_table[k].flags & MSET_DAEMON) != 0;
}

long long
mset_default(enum mset_key k)
{
	return mset_table[k].dflt;
}

/* Does setting k apply to variant v?  Read from v's row of the rules. */
int
mset_applies(enum mset_key k, enum bri_variant v)
{
	const struct bri_variant_info *vi = bri_variant_info(v);
	struct bri_options o;

	switch (mset_table[k].scope) {
	case MSET_BYTARGET:
		return vi->matchscore == BRI_MSCORE_TARGET;
	case MSET_BYDEALS:
		return vi->matchscore == BRI_MSCORE_DEALS;
	case MSET_UNFIXED:
		return vi->matchscore != BRI_MSCORE_FIXED;
	case MSET_ONETWO:
		/* joker3 too removes a 2, but the rules draw it always */
		bri_options_default(&o, v);
		o.removed_two = BRI_SPADE;
		return vi->removal == BRI_REMOVE_ONE_TWO &&
		    bri_options_check(&o) == BRI_OK;
	case MSET_FIXED:
		return vi->matchscore == BRI_MSCORE_FIXED;
	default:
		return 1;
	}
}

/* Every setting at the table's default, none given. */
void
mset_init(struct mset *ms)
{
	int	 k;

	memset(ms, 0, sizeof(*ms));
	for (k = 0; k < MSET_NKEYS; k++)
		ms->val[k] = mset_table[k].dflt;
}

/*
 * Parse text s as a value of setting k into *n (or *seed).  Returns 0,
 * or -1 with the reason, the same from every entry point, in err.
 */
int
mset_value(enum mset_key k, const char *s, long long *n,
    struct bri_seed *seed, char *err, size_t errlen)
{
	const struct mset_info *t = &mset_table[k];
	enum fault_policy p;
	const char	*errstr;
	int		 i;

	switch (t->type) {
	case MSET_HEX:
		if (bri_seed_parse(s, seed) != BRI_OK) {
			snprintf(err, errlen, "%s: 64 hex digits expected",
			    t->key);
			return -1;
		}
		return 0;
	case MSET_SUIT:
		if (strcmp(s, "random") == 0)
			*n = -1;
		else if (strlen(s) == 1 && bri_suit_parse(s[0]) != -1)
			*n = bri_suit_parse(s[0]);
		else {
			snprintf(err, errlen, "%s: random, C, D, B or S",
			    t->key);
			return -1;
		}
		return 0;
	case MSET_WORD:
		for (i = 0; t->words != NULL && t->words[i] != NULL; i++)
			if (strcmp(s, t->words[i]) == 0) {
				*n = i;
				return 0;
			}
		if (t->words != NULL) {
			snprintf(err, errlen, "%s: %s or %s", t->key,
			    t->words[0], t->words[1]);
			return -1;
		}
		if (policy_parse(s, &p) == -1) {
			snprintf(err, errlen, "%s: forfeit or fallback", t->key);
			return -1;
		}
		*n = p;
		return 0;
	default:
		*n = util_num(s, t->min, t->max, &errstr);
		if (errstr != NULL) {
			snprintf(err, errlen, "%s: %s (%lld to %lld)", t->key,
			    errstr, t->min, t->max);
			return -1;
		}
		return 0;
	}
}

/*
 * Give setting key the value s at where (a line number, or 1).  Whether
 * it applies is mset_check()'s to say, once the variant is known.
 * Returns 0, or -1 with the reason in err.
 */
int
mset_set(struct mset *ms, const char *key, const char *s, int where,
    char *err, size_t errlen)
{
	int	 k;

	if ((k = mset_find(key)) == -1) {
		snprintf(err, errlen, "unknown option %.40s", key);
		return -1;
	}
	if (mset_value(k, s, &ms->val[k], &ms->seed, err, errlen) == -1)
		return -1;
	ms->given[k] = where > 0 ? where : 1;
	return 0;
}

/* The variants setting k applies to, "a, b and c", into buf. */
static void
mset_where(enum mset_key k, char *buf, size_t len)
{
	int	 v, n = 0, left = 0;
	size_t	 at = 0;

	for (v = 0; v < BRI_NVARIANTS; v++)
		left += mset_applies(k, v);
	buf[0] = '\0';
	for (v = 0; v < BRI_NVARIANTS && at < len; v++) {
		if (!mset_applies(k, v))
			continue;
		n++;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		    n == 1 ? "" : n == left ? " and " : ", ",
		    bri_variant_name(v));
	}
}

/* The refusal of setting k for variant v, in err. */
static void
mset_refuse(enum mset_key k, enum bri_variant v, char *err, size_t errlen)
{
	char	 where[160];

	mset_where(k, where, sizeof(where));
	snprintf(err, errlen, "option %s= does not apply to %s (only to %s)",
	    mset_table[k].key, bri_variant_name(v), where);
}

/*
 * Refuse a setting given for variant v that does not apply to it: never
 * silently ignored.  Returns 0, or -1 with the reason in err and where it
 * was given in *where (if not NULL).
 */
int
mset_check(const struct mset *ms, enum bri_variant v, int *where, char *err,
    size_t errlen)
{
	int	 k;

	for (k = 0; k < MSET_NKEYS; k++)
		if (ms->given[k] && !mset_applies(k, v)) {
			mset_refuse(k, v, err, errlen);
			if (where != NULL)
				*where = ms->given[k];
			return -1;
		}
	return 0;
}

/* The rules' options of variant v: the settings that apply to it. */
void
mset_options(const struct mset *ms, enum bri_variant v, struct bri_options *o)
{
	bri_options_default(o, v);
	if (mset_applies(MSET_TARGET, v))
		o->match_target = (int)ms->val[MSET_TARGET];
	if (mset_applies(MSET_DEALS_TO_WIN, v))
		o->deals_to_win = (int)ms->val[MSET_DEALS_TO_WIN];
	if (mset_applies(MSET_DEAL_CAP, v))
		o->deal_cap = (int)ms->val[MSET_DEAL_CAP];
	if (mset_applies(MSET_REMOVED_TWO, v))
		o->removed_two = (int)ms->val[MSET_REMOVED_TWO];
	if (mset_applies(MSET_DEALS, v))
		o->deals = (int)ms->val[MSET_DEALS];
}

/* The settings of a match from its rules' options, clocks and policy. */
void
mset_of(struct mset *ms, const struct bri_options *o, int move_ms,
    int bank_ms, int startup_ms, enum fault_policy policy, int max_faults)
{
	mset_init(ms);
	ms->val[MSET_TARGET] = o->match_target;
	ms->val[MSET_DEALS_TO_WIN] = o->deals_to_win;
	ms->val[MSET_DEAL_CAP] = o->deal_cap;
	ms->val[MSET_REMOVED_TWO] = o->removed_two;
	ms->val[MSET_DEALS] = o->deals;
	ms->val[MSET_MOVE_MS] = move_ms;
	ms->val[MSET_BANK_MS] = bank_ms;
	ms->val[MSET_STARTUP_MS] = startup_ms;
	ms->val[MSET_POLICY] = policy;
	ms->val[MSET_MAX_FAULTS] = max_faults;
}

/* The value of setting k as it is written: "random", "C", "fallback", "5". */
void
mset_format(const struct mset *ms, enum mset_key k, char *buf, size_t len)
{
	const struct mset_info *t = &mset_table[k];

	char		 hex[BRI_SEED_STRLEN];

	if (t->type == MSET_HEX)
		snprintf(buf, len, "%s", bri_seed_format(&ms->seed, hex));
	else if (t->type == MSET_SUIT && ms->val[k] < 0)
		snprintf(buf, len, "random");
	else if (t->type == MSET_SUIT)
		snprintf(buf, len, "%c", bri_suit_letter((int)ms->val[k]));
	else if (t->type == MSET_WORD && t->words != NULL)
		snprintf(buf, len, "%s", t->words[ms->val[k]]);
	else if (t->type == MSET_WORD)
		snprintf(buf, len, "%s",
		    policy_name((enum fault_policy)ms->val[k]));
	else
		snprintf(buf, len, "%lld", ms->val[k]);
}

/* Is setting k in variant v's options text? */
static int
mset_logged(enum mset_key k, enum bri_variant v)
{
	if (mset_table[k].flags & MSET_UNLOGGED)
		return 0;
	if ((mset_table[k].flags & MSET_LEGACY) &&
	    (MSET_OLDVARIANTS & (1u << v)))
		return 1;
	return mset_applies(k, v);
}

/*
 * The options text of the log ("target=10 deals_to_win=2 ..."): every
 * setting that applies to v, in the table's order (notify only when it
 * is not lazy), and for the first
 * four variants the four rule options as refd has always written them,
 * so that the text, chained and signed in old logs, stays byte for byte.
 * Returns 0, or -1 if len is too short.
 */
int
mset_text(const struct mset *ms, enum bri_variant v, char *buf, size_t len)
{
	size_t		 at = 0;
	int		 k, n;
	char		 val[24];

	if (len == 0)
		return -1;
	buf[0] = '\0';
	for (k = 0; k < MSET_NKEYS; k++) {
		if (!mset_logged(k, v) || ((mset_table[k].flags &
		    MSET_UNUSUAL) && ms->val[k] == mset_table[k].dflt))
			continue;
		mset_format(ms, k, val, sizeof(val));
		n = snprintf(buf + at, len - at, "%s%s=%s", at > 0 ? " " : "",
		    mset_table[k].key, val);
		if (n < 0 || (size_t)n >= len - at)
			return -1;
		at += (size_t)n;
	}
	return 0;
}

/*
 * Read an options text of the log back into *ms, for variant v: each
 * key=value by the table.  A key this table does not know is a later
 * refd's fact (seed_reveal=tournament, sandbox=none) and left to the
 * caller.  A key that does not apply to v is refused, unless it is one
 * of the rule options refd logged for every one of the first four
 * variants, where it played no part.  Older logs spelt target as
 * match_target and a suit as -1 or 0 to 3: both are read.  Returns 0,
 * or -1 with the reason in err.
 */
int
mset_read(struct mset *ms, enum bri_variant v, const char *text, char *err,
    size_t errlen)
{
	char		 buf[1100], *w, *next, *eq;
	int		 k;

	mset_init(ms);
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "longer than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	for (w = buf; w != NULL && *w != '\0'; w = next) {
		if ((next = strchr(w, ' ')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(w, '=')) == NULL) {
			snprintf(err, errlen, "'%.40s' is not key=value", w);
			return -1;
		}
		*eq++ = '\0';
		k = strcmp(w, "match_target") == 0 ? MSET_TARGET : mset_find(w);
		if (k == -1)
			continue;
		if (k == MSET_SEED || ms->given[k]) {
			snprintf(err, errlen, "%s= %s", w, k == MSET_SEED ?
			    "is no option of the text" : "given twice");
			return -1;
		}
		if (k == MSET_REMOVED_TWO && (strcmp(eq, "-1") == 0 ||
		    (strlen(eq) == 1 && eq[0] >= '0' && eq[0] <= '3')))
			ms->val[k] = atoi(eq);
		else if (mset_value(k, eq, &ms->val[k], &ms->seed, err,
		    errlen) == -1)
			return -1;
		ms->given[k] = 1;
		if (!mset_applies(k, v) && !((mset_table[k].flags &
		    MSET_LEGACY) && (MSET_OLDVARIANTS & (1u << v)))) {
			mset_refuse(k, v, err, errlen);
			return -1;
		}
	}
	return 0;
}
