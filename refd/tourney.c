/*
 * tourney.c: running tournaments inside refd.
 *
 * A tournament is its definition, the schedule that the definition
 * generates, and the log.  Each slot of the schedule becomes a match with
 * the slot's seed; a slot is done when the log holds its finished match.
 * Nothing else is kept, so after a crash the tournament resumes from the
 * log alone: done slots stay done, interrupted ones are played again
 * from their seeds.
 *
 * A seed is worth nothing once a bot knows it, so a tournament's bots
 * never hear one: their match_end says "-", the master seed is only
 * committed (its hash logged and shown) until the tournament ends, and
 * matches that share a seed (a duplicate set's arrangements) never run
 * at once with a bot in common.  Bots that could carry what they saw
 * from one arrangement to the next (remote ones, spawned ones with a
 * directory of their own) play duplicate deals only if the definition
 * says they are trusted.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <sqlite3.h>

#include "refd.h"
#include "bots.h"
#include "db.h"
#include "gtp.h"
#include "log.h"
#include "match.h"
#include "sandbox.h"
#include "spawn.h"
#include "tourney.h"
#include "tstand.h"
#include "util.h"

#define TOURNEY_MAXFILE		(256 * 1024)	/* a definition's size */
#define TOURNEY_RETRIES		3	/* aborts of one slot before stopping */

enum slot_state { SLOT_TODO, SLOT_RUNNING, SLOT_DONE };

struct tourney {
	TAILQ_ENTRY(tourney) entry;
	int64_t		 id;
	struct tdef	 def;
	struct tslot	*slots;
	int		 nslots;
	uint8_t		*state;		/* enum slot_state per slot */
	uint8_t		*aborts;	/* aborted attempts per slot */
	int		 next;		/* lowest slot that may be to do */
	int		 ndone, nrunning;
	int		 done_here;	/* slots finished since this refd started */
	int64_t		 started_ms;	/* when this refd took it up */
	int64_t		 ended_ms;	/* and when it ended, if over */
	int		 over;		/* done, stopped or cancelled */
	char		 commit[2 * BRI_COMMITLEN + 1]; /* of the master seed */
	char		 state_name[16];
	char		 reason[256];
	/* a gauntlet's SPRT, carried from one match's end to the next */
	struct st_sprt	 sprt;
	int		 sprt_pos;	/* slots it has read */
	/* the standings tourney_status() last drew (tourney_standings()) */
	char		*st_text;
	size_t		 st_len;
	int		 st_done;	/* matches done when drawn */
	int64_t		 st_at;		/* when, in us */
	int64_t		 st_cost;	/* and how long it took, in us */
	char		 st_err[256];	/* why the last drawing failed, */
	int		 st_errdone;	/* with that many matches done */
	struct tdraw	*draw;		/* the drawing under way, or NULL */
};

/*
 * Drawing the standings reads every finished match from the log and
 * resamples them: 70 ms at 6,000 matches, in proportion beyond.  It is
 * done on a thread of its own, with a read-only connection to the log
 * (db_reader()), so that the loop goes on; whoever asked is answered
 * when it is done.  The standings are drawn again only when a match
 * has ended since and STANDINGS_SHARE times as long as the last drawing
 * took has passed, so that whoever asks, as often as they like, keeps
 * drawing to a tenth of a core.
 */
#define STANDINGS_SHARE	10

/*
 * A drawing under way.  The thread reads only what it holds here, all
 * of it copied or owned, writes only text, len and err, and then hands
 * the job back to the loop through draw_pipe (tourney_drawn()).
 */
struct tdraw {
	TAILQ_ENTRY(tdraw) entry;	/* every drawing under way */
	struct tourney	*t;		/* NULL once t is freed */
	pthread_t	 thread;
	sqlite3		*h;		/* the thread's reader */
	int64_t		 tid;
	struct tdef	 def;		/* t's, without its bot lines */
	struct tslot	*slots;		/* t's; the job's once t is freed */
	int		 nslots;
	int		 own_slots;
	struct st_sprt	 sprt;
	int		 done;		/* t's matches done when it began */
	int64_t		 began;		/* us */
	char		*text;		/* the standings, or NULL: */
	size_t		 len;
	char		 err[256];	/* why not */
};

static TAILQ_HEAD(, tdraw) draws = TAILQ_HEAD_INITIALIZER(draws);
static int		 draw_pipe[2] = { -1, -1 };
static struct event	*draw_ev;
/* Told when a drawing ends (tourney_observe_drawn()). */
static void		(*drawn_cb)(int64_t);

static TAILQ_HEAD(, tourney) tourneys = TAILQ_HEAD_INITIALIZER(tourneys);

/*
 * A tournament the log shows running that this refd could not take up,
 * most often for bots it does not know (yet): listed as waiting, taken
 * up when they are added or on the operator's word.
 */
struct twait {
	TAILQ_ENTRY(twait) entry;
	int64_t		 id;
	char		 name[TDEF_NAMELEN + 1];
	int		 ndone, total;	/* matches, as the log had them */
	char		 missing[TDEF_MAXBOTS * 8]; /* "a,b": unknown bots */
	char		 reason[300];	/* why it was not taken up */
};
static TAILQ_HEAD(, twait) waits = TAILQ_HEAD_INITIALIZER(waits);
static struct event	*sweep_ev;	/* frees finished tournament matches */

static void	tourney_fill(struct tourney *);

/* Told when a tournament ends (tourney_observe()). */
#define TOURNEY_MAXOBS	4
static void	(*end_cbs[TOURNEY_MAXOBS])(int64_t, const char *,
		    const char *);
static int	 nend_cbs;

/* Free t, out of the list. */
static void
tourney_free(struct tourney *t)
{
	TAILQ_REMOVE(&tourneys, t, entry);
	tdef_free(&t->def);
	if (t->draw != NULL) {
		/* the thread still reads the schedule: the job frees it */
		t->draw->t = NULL;
		t->draw->own_slots = 1;
	} else
		free(t->slots);
	free(t->state);
	free(t->aborts);
	free(t->st_text);
	free(t);
}

/* The tournament with id, or NULL. */
static struct tourney *
tourney_find(int64_t id)
{
	struct tourney	*t;

	TAILQ_FOREACH(t, &tourneys, entry)
		if (t->id == id)
			return t;
	return NULL;
}

/* Does the known bot b have the command of a "bot" line's words? */
static int
tourney_samebot(const struct bot *b, int n, char **w)
{
	int	 i;

	if (strcmp(w[1], bots_kind_name(BOT_REMOTE)) == 0)
		return n == 3 && bots_auth(w[0], w[2]);
	if (b->kind != BOT_SPAWN || b->argc != n - 2)
		return 0;
	for (i = 0; i < b->argc; i++)
		if (strcmp(b->argv[i], w[i + 2]) != 0)
			return 0;
	return 1;
}

/*
 * Register the bots a definition (from file fname) brings; a bot refd
 * already knows must have the very same command.  Then check that every
 * participant is known and, if spawned, runnable.  Errors read
 * "fname:line: reason".
 */
static int
tourney_bots_check(const struct tdef *d, const char *fname,
    struct bot **added, int *nadded, char *err, size_t errlen)
{
	char			 buf[GTP_MAXLINE + 1], *w[GTP_MAXARGS], why[256];
	struct bot		*b;
	int			 i, n;

	for (i = 0; i < d->nbotdefs; i++) {
		snprintf(buf, sizeof(buf), "%s", d->botdef[i]);
		if ((n = gtp_split(buf, w, GTP_MAXARGS)) < 1)
			continue;
		if ((b = bots_find(w[0])) != NULL) {
			if (n >= 3 && tourney_samebot(b, n, w))
				continue;
			snprintf(err, errlen, "%s:%d: bot %s is already known "
			    "with another command", fname, d->botdefline[i],
			    w[0]);
			return -1;
		}
		if (bots_define(n, w, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", fname,
			    d->botdefline[i], why);
			return -1;
		}
		added[(*nadded)++] = bots_find(w[0]);
	}
	for (i = 0; i < d->nbots; i++) {
		if ((b = bots_find(d->bots[i])) == NULL) {
			snprintf(err, errlen, "%s:%d: unknown bot %s", fname,
			    d->botline[i], d->bots[i]);
			return -1;
		}
		if (b->kind != BOT_SPAWN)
			continue;
		if (spawn_runnable(b->argv, why, sizeof(why)) == -1) {
			snprintf(err, errlen, "%s:%d: bot %s cannot start: %s",
			    fname, d->botline[i], d->bots[i], why);
			return -1;
		}
	}
	return 0;
}

/* Forget the n bots a refused definition brought: it changes nothing. */
static void
tourney_unbots(struct bot **added, int n)
{
	while (n-- > 0)
		bots_remove(added[n]);
}

/*
 * tourney_bots_check(), all or nothing: on an error the bots it brought
 * are forgotten again.  On success added holds them (*nadded), for the
 * caller to forget if it refuses the definition later.
 */
static int
tourney_bots(const struct tdef *d, const char *fname, struct bot **added,
    int *nadded, char *err, size_t errlen)
{
	*nadded = 0;
	if (tourney_bots_check(d, fname, added, nadded, err, errlen) == 0)
		return 0;
	tourney_unbots(added, *nadded);
	*nadded = 0;
	return -1;
}

/* The waiting record of tournament id, or NULL. */
static struct twait *
tourney_wait_find(int64_t id)
{
	struct twait	*w;

	TAILQ_FOREACH(w, &waits, entry)
		if (w->id == id)
			return w;
	return NULL;
}

/* Tournament id is taken up, or gone: it waits no more. */
static void
tourney_waits_not(int64_t id)
{
	struct twait	*w;

	if ((w = tourney_wait_find(id)) != NULL) {
		TAILQ_REMOVE(&waits, w, entry);
		free(w);
	}
}

/*
 * Tournament id (definition d) could not be taken up, for reason: it
 * waits, with the participants refd does not know.
 */
static void
tourney_waits(int64_t id, const struct tdef *d, const char *reason)
{
	sqlite3_stmt	*st;
	struct twait	*w;
	size_t		 at = 0;
	int		 i, j;

	if ((w = tourney_wait_find(id)) == NULL) {
		if ((w = calloc(1, sizeof(*w))) == NULL)
			return;
		TAILQ_INSERT_TAIL(&waits, w, entry);
	}
	w->id = id;
	snprintf(w->name, sizeof(w->name), "%s", d->name);
	snprintf(w->reason, sizeof(w->reason), "%s", reason);
	w->missing[0] = '\0';
	for (i = 0; i < d->nbots && at < sizeof(w->missing); i++) {
		if (bots_find(d->bots[i]) != NULL)
			continue;
		/* one its own bot lines define: the reason tells */
		for (j = 0; j < d->nbotdefs; j++)
			if (strncmp(d->botdef[j], d->bots[i],
			    strlen(d->bots[i])) == 0 &&
			    d->botdef[j][strlen(d->bots[i])] == ' ')
				break;
		if (j < d->nbotdefs)
			continue;
		at += snprintf(w->missing + at, sizeof(w->missing) - at,
		    "%s%s", at > 0 ? "," : "", d->bots[i]);
	}
	w->ndone = w->total = 0;
	if (sqlite3_prepare_v2(db_handle(logdb), "SELECT total, (SELECT "
	    "count(*) FROM matches WHERE tournament = ?1 AND state = 'done') "
	    "FROM tournaments WHERE id = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			w->total = sqlite3_column_int(st, 0);
			w->ndone = sqlite3_column_int(st, 1);
		}
	}
	sqlite3_finalize(st);
	log_warnx("tournament %lld waits%s%s: %s", (long long)id,
	    w->missing[0] ? " for bots " : "", w->missing, reason);
}

/*
 * A bot was added: take up every waiting tournament that waited for no
 * other bot.
 */
void
tourney_bot_added(void)
{
	struct twait	*w, *tw;
	char		 err[400];
	char		*p, *q, names[sizeof(w->missing)];

	TAILQ_FOREACH_SAFE(w, &waits, entry, tw) {
		snprintf(names, sizeof(names), "%s", w->missing);
		for (p = names; p != NULL && *p != '\0'; p = q) {
			if ((q = strchr(p, ',')) != NULL)
				*q++ = '\0';
			if (bots_find(p) == NULL)
				break;
		}
		if (w->missing[0] == '\0' || (p != NULL && *p != '\0'))
			continue;
		if (tourney_resume(w->id, err, sizeof(err)) == -1)
			log_warnx("tournament %lld not resumed: %s",
			    (long long)w->id, err);
	}
}

/* The running tournament that plays bot name, or 0. */
int64_t
tourney_uses_bot(const char *name)
{
	struct tourney	*t;
	int		 i;

	TAILQ_FOREACH(t, &tourneys, entry) {
		if (t->over)
			continue;
		for (i = 0; i < t->def.nbots; i++)
			if (strcmp(t->def.bots[i], name) == 0)
				return t->id;
	}
	return 0;
}

/*
 * Duplicate deals: every arrangement of a table plays one seed, so a bot
 * that remembers one arrangement knows the next one's cards.  A spawned
 * bot forgets (a fresh sandbox each match) unless it has a directory of
 * its own (--dir), the host's network (--net: two copies can talk,
 * or one can keep what it saw on another machine) or real file locks
 * (--locks: two copies at once signal through a lock on a file both
 * see); a remote bot is out
 * of refd's reach.  Each is refused unless the definition trusts them,
 * when a tournament starts and again whenever it is resumed, since the
 * bots of those names may have been defined again meanwhile.
 */
static int
tourney_trust(const struct tdef *d, char *err, size_t errlen)
{
	struct sandbox_opts	 o;
	struct bot		*b;
	char			 why[128];
	int			 i;

	if (!d->duplicate || d->trust_remote)
		return 0;
	for (i = 0; i < d->nbots; i++) {
		if ((b = bots_find(d->bots[i])) == NULL)
			continue;
		if (b->kind == BOT_REMOTE) {
			snprintf(err, errlen, "line %d: duplicate deals with "
			    "remote bot %s, which refd cannot stop from "
			    "remembering them: say \"trust_remote yes\" if it "
			    "is trusted", d->botline[i], b->name);
			return -1;
		}
		if (sandbox_opts_parse(b->argv, &o, why, sizeof(why)) == -1)
			continue;	/* refused when it is started */
		if (o.dir != NULL) {
			snprintf(err, errlen, "line %d: duplicate deals with "
			    "bot %s, which keeps a directory (--dir) from match "
			    "to match: say \"trust_remote yes\" if it is "
			    "trusted", d->botline[i], b->name);
			return -1;
		}
		if (o.net) {
			snprintf(err, errlen, "line %d: duplicate deals with "
			    "bot %s, which has the network (--net) to pass on "
			    "what it saw: say \"trust_remote yes\" if it is "
			    "trusted", d->botline[i], b->name);
			return -1;
		}
		if (o.locks) {
			snprintf(err, errlen, "line %d: duplicate deals with "
			    "bot %s, which takes real file locks (--locks) that "
			    "another copy can see: say \"trust_remote yes\" if "
			    "it is trusted", d->botline[i], b->name);
			return -1;
		}
	}
	return 0;
}

/* Take a parsed definition up: schedule it and mark what the log has. */
static struct tourney *
tourney_new(int64_t id, struct tdef *d, char *err, size_t errlen)
{
	struct tourney	*t;
	sqlite3_stmt	*st;
	int		 slot;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->id = id;
	t->def = *d;
	{
		uint8_t	 c[BRI_COMMITLEN];

		bri_seed_commit(&d->seed, c);
		util_hex(c, sizeof(c), t->commit);
	}
	if (tdef_schedule(d, &t->slots, &t->nslots, err, errlen) == -1) {
		free(t);
		return NULL;
	}
	t->state = calloc(t->nslots, 1);
	t->aborts = calloc(t->nslots, 1);
	if (t->state == NULL || t->aborts == NULL) {
		snprintf(err, errlen, "out of memory");
		free(t->state);
		free(t->aborts);
		free(t->slots);
		free(t);
		return NULL;
	}
	if (id > 0 && sqlite3_prepare_v2(db_handle(logdb), "SELECT DISTINCT "
	    "slot FROM matches WHERE tournament = ? AND state = 'done'", -1,
	    &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			slot = sqlite3_column_int(st, 0);
			if (slot >= 0 && slot < t->nslots &&
			    t->state[slot] != SLOT_DONE) {
				t->state[slot] = SLOT_DONE;
				t->ndone++;
			}
		}
		sqlite3_finalize(st);
	}
	if (d->sprt)
		tstand_sprt_begin(d, &t->sprt);
	t->started_ms = util_now_ms();
	snprintf(t->state_name, sizeof(t->state_name), "running");
	TAILQ_INSERT_TAIL(&tourneys, t, entry);
	return t;
}

/* Stop the matches of t still running: they end aborted. */
static void
tourney_halt(struct tourney *t, const char *why)
{
	struct match	*m, *next;

	for (m = TAILQ_FIRST(&matches); m != NULL; m = next) {
		next = TAILQ_NEXT(m, entry);
		if (m->conf.tournament == t->id && !match_over(m))
			match_stop(m, why);
	}
}

/*
 * End a tournament: log its state, answer whoever waits.  Only a
 * tournament over for good (done, cancelled) has its seed revealed; a
 * stopped one may deal from it again.  A stopped one may still be
 * cancelled, which ends it a second time.
 */
static void
tourney_end(struct tourney *t, const char *state, const char *reason)
{
	char	 seed[BRI_SEED_STRLEN];
	int	 i;

	if (t->over && (strcmp(t->state_name, "stopped") != 0 ||
	    strcmp(state, "cancelled") != 0))
		return;
	t->over = 1;
	t->ended_ms = util_now_ms();
	snprintf(t->state_name, sizeof(t->state_name), "%s", state);
	snprintf(t->reason, sizeof(t->reason), "%s", reason);
	if (db_tourney_state(logdb, t->id, state, reason) == -1)
		log_warnx("tournament %lld: state not logged: %s",
		    (long long)t->id, db_error(logdb));
	log_info("tournament %lld: %s (%s)", (long long)t->id, state, reason);
	if (tdef_over(state))
		log_info("tournament %lld: master seed %s revealed "
		    "(commitment %s)", (long long)t->id,
		    bri_seed_format(&t->def.seed, seed), t->commit);
	for (i = 0; i < nend_cbs; i++)
		end_cbs[i](t->id, t->state_name, t->reason);
}

/*
 * fn hears of every tournament that ends (stopped, done or cancelled),
 * once its state is logged: its id, state and reason.  Returns 0, or
 * -1 when there are too many observers.
 */
int
tourney_observe(void (*fn)(int64_t, const char *, const char *))
{
	if (nend_cbs == TOURNEY_MAXOBS)
		return -1;
	end_cbs[nend_cbs++] = fn;
	return 0;
}

/* Fill t's free places at the loop's next step (tourney_match_done()). */
static void
tourney_fill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tourney	*t;

	(void)fd;
	(void)what;
	if ((t = tourney_find((int64_t)(intptr_t)arg)) != NULL)
		tourney_fill(t);
}

/*
 * Bring t's SPRT up to the matches finished, in schedule order
 * (tstand_sprt_more()).  It goes on from the slot where it stopped, so
 * that a match's end reads the matches since, not the whole log; a
 * resumed tournament reads them all once.  When every match has been
 * played and it has not decided, tourney_sprt()'s reason says so, with
 * the LLR where it stopped.
 */
static void
tourney_sprt_read(struct tourney *t)
{
	struct tstand	 ts;
	char		 err[256];

	if (!t->def.sprt || t->sprt.decided != 0)
		return;
	if (tstand_load(db_handle(logdb), t->id, &t->def, t->sprt_pos, &ts,
	    err, sizeof(err)) == -1) {
		log_warnx("tournament %lld: SPRT: %s", (long long)t->id, err);
		return;
	}
	t->sprt_pos = tstand_sprt_more(&t->def, t->slots, t->nslots, &ts,
	    &t->sprt, t->sprt_pos);
	tstand_free(&ts);
}

/* Stop t if its SPRT has decided, or ends undecided; returns 1 if so. */
static int
tourney_sprt(struct tourney *t)
{
	struct st_sprt	*s = &t->sprt;
	char		 why[256];

	if (!t->def.sprt)
		return 0;
	tourney_sprt_read(t);
	if (s->decided == 0 && t->ndone < t->nslots)
		return 0;
	tstand_sprt_reason(&t->def, s, why, sizeof(why));
	tourney_end(t, "done", why);
	return 1;
}

/*
 * Free the finished matches of tournaments.  Their results are in the
 * log (match_finish() committed them) and the tournament has taken
 * them into account, so nothing needs them in memory: a tournament of
 * a million matches must not keep a million of them.  One whose end the
 * log refused stays until match_log_ends() has written it.  Run from the
 * event loop, after the callers of match_finish() are done with them.
 */
static void
tourney_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct match	*m, *next;

	(void)fd;
	(void)what;
	(void)arg;
	for (m = TAILQ_FIRST(&matches); m != NULL; m = next) {
		next = TAILQ_NEXT(m, entry);
		if (m->conf.tournament > 0 && !m->end_unlogged &&
		    (m->state == MATCH_DONE || m->state == MATCH_ABORTED))
			match_free(m);
	}
}

/* Sweep at the next turn of the event loop. */
static void
tourney_sweep_soon(void)
{
	struct timeval	 now = { 0, 0 };

	if (sweep_ev == NULL &&
	    (sweep_ev = evtimer_new(base, tourney_sweep, NULL)) == NULL)
		return;		/* kept until exit: memory, not correctness */
	if (!evtimer_pending(sweep_ev, NULL))
		evtimer_add(sweep_ev, &now);
}

/* A match of a tournament ended: its slot is done, or to do again. */
void
tourney_match_done(struct match *m)
{
	struct tourney	*t;
	struct timeval	 now = { 0, 0 };
	char		 why[400];
	int		 s = m->conf.slot, i;

	if (m->conf.tournament <= 0 ||
	    (t = tourney_find(m->conf.tournament)) == NULL)
		return;
	tourney_sweep_soon();
	if (s < 0 || s >= t->nslots || t->state[s] != SLOT_RUNNING)
		return;
	t->nrunning--;
	if (m->state == MATCH_DONE && m->bm.ndeals == 0 &&
	    strncmp(m->result, "forfeit", 7) == 0) {
		/* a bot failed before the first deal: it will again */
		i = atoi(m->result + 7);
		snprintf(why, sizeof(why), "bot %s cannot start: %.300s",
		    i >= 0 && i < m->nseats ? m->conf.bots[i] : "?", m->reason);
		t->state[s] = SLOT_DONE;
		t->ndone++;
		tourney_end(t, "stopped", why);
		tourney_halt(t, "tournament stopped: a bot cannot start");
		return;
	}
	if (m->state == MATCH_DONE) {	/* else aborted: played again */
		t->state[s] = SLOT_DONE;
		t->ndone++;
		t->done_here++;
	} else {
		t->state[s] = SLOT_TODO;
		if (s < t->next)
			t->next = s;
		if (!refd_stopping() && ++t->aborts[s] >= TOURNEY_RETRIES) {
			snprintf(why, sizeof(why), "slot %d aborted %d times, "
			    "last: %s", s, TOURNEY_RETRIES, m->reason);
			tourney_end(t, "stopped", why);
		}
	}
	if (t->over || refd_stopping())
		return;
	if (tourney_sprt(t))
		return;
	if (t->ndone == t->nslots) {
		tourney_end(t, "done", "every match played");
		return;
	}
	/* a match's end is no place to start others */
	if (event_base_once(base, -1, EV_TIMEOUT, tourney_fill_cb,
	    (void *)(intptr_t)t->id, &now) == -1)
		tourney_end(t, "stopped", "out of memory");
}

/*
 * Would slot j share a seed and a bot with a running match?  Then one
 * bot would play the same cards in two seats at once, and could tell
 * itself the hands.
 */
static int
tourney_clash(const struct tourney *t, int j)
{
	const struct tslot	*a = &t->slots[j], *b;
	const struct match	*m;
	int			 k, x, y, n = bri_variant_seats(t->def.opt.variant);

	/* the running ones are few: at most the concurrency */
	TAILQ_FOREACH(m, &matches, entry) {
		k = m->conf.slot;
		if (m->conf.tournament != t->id || k < 0 || k >= t->nslots ||
		    t->state[k] != SLOT_RUNNING)
			continue;
		b = &t->slots[k];
		if (memcmp(&a->seed, &b->seed, sizeof(a->seed)) != 0)
			continue;
		for (x = 0; x < n; x++)
			for (y = 0; y < n; y++)
				if (a->bot[x] == b->bot[y])
					return 1;
	}
	return 0;
}

/*
 * The settings of the match that slot sl of d plays, with refd's
 * defaults where d leaves them: a tournament's match and a cluster's
 * slot (worker.c) play alike.  Not of a tournament of this refd yet:
 * mc's tournament is 0 and its seed is not to be told.
 */
void
tourney_slot_conf(const struct tdef *d, const struct tslot *sl,
    struct match_conf *mc)
{
	int	 i;

	memset(mc, 0, sizeof(*mc));
	mc->opt = d->opt;
	mc->seed = sl->seed;
	mc->have_seed = 1;
	mc->hide_seed = 1;
	mc->nbots = bri_variant_seats(d->opt.variant);
	for (i = 0; i < mc->nbots; i++)
		snprintf(mc->bots[i], sizeof(mc->bots[i]), "%s",
		    d->bots[sl->bot[i]]);
	mc->move_ms = d->move_ms > 0 ? d->move_ms : conf.move_ms;
	mc->bank_ms = d->bank_ms >= 0 ? d->bank_ms : conf.bank_ms;
	mc->startup_ms = d->startup_ms > 0 ? d->startup_ms : conf.startup_ms;
	mc->policy = d->policy == POLICY_DEFAULT ?
	    (enum fault_policy)mset_default(MSET_POLICY) : d->policy;
	mc->max_faults = d->max_faults > 0 ? d->max_faults :
	    (int)mset_default(MSET_MAX_FAULTS);
	mc->notify = (enum notify_mode)d->set.val[MSET_NOTIFY];
	mc->slot = -1;
}

/*
 * Take up the bots definition d (from fname) brings and check that each
 * participant can play, and may play duplicate deals: what a tournament
 * checks before its first match, and a cluster's worker before it leases
 * a slot.  Returns 0, or -1 with "fname:line: reason" in err.
 */
int
tourney_take_bots(const struct tdef *d, const char *fname, char *err,
    size_t errlen)
{
	struct bot	*added[TDEF_MAXBOTS];
	char		 why[300];
	int		 nadded = 0;

	if (tourney_bots(d, fname, added, &nadded, err, errlen) == -1)
		return -1;
	if (tourney_trust(d, why, sizeof(why)) == -1) {
		tourney_unbots(added, nadded);
		snprintf(err, errlen, "%s:%s", fname, why);
		return -1;
	}
	return 0;
}

/* Start matches until the concurrency is reached or nothing is left. */
static void
tourney_fill(struct tourney *t)
{
	struct match_conf mc;
	struct tslot	*sl;
	struct match	*m;
	char		 err[256], why[400];
	int		 j;

	while (!t->over && !refd_stopping() &&
	    t->nrunning < t->def.concurrency) {
		while (t->next < t->nslots && t->state[t->next] != SLOT_TODO)
			t->next++;
		for (j = t->next; j < t->nslots; j++)
			if (t->state[j] == SLOT_TODO && !tourney_clash(t, j))
				break;
		if (j == t->nslots)
			return;		/* the next match to end calls again */
		sl = &t->slots[j];
		tourney_slot_conf(&t->def, sl, &mc);
		mc.tournament = t->id;
		mc.slot = j;
		t->state[j] = SLOT_RUNNING;
		t->nrunning++;
		if ((m = match_start(&mc, err, sizeof(err))) == NULL) {
			t->state[j] = SLOT_TODO;
			t->nrunning--;
			snprintf(why, sizeof(why), "cannot start slot %d: %s",
			    j, err);
			tourney_end(t, "stopped", why);
			return;
		}
		/* a match that ended at once has already called back */
	}
}

/* Read a definition file whole, bounded. */
static char *
tourney_read(const char *path, char *err, size_t errlen)
{
	FILE		*fp;
	struct stat	 sb;
	char		*text;
	size_t		 n;

	if ((fp = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(fp), &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > TOURNEY_MAXFILE) {
		snprintf(err, errlen, "%s: not a regular file of at most %d "
		    "bytes", path, TOURNEY_MAXFILE);
		fclose(fp);
		return NULL;
	}
	if ((text = malloc(sb.st_size + 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		fclose(fp);
		return NULL;
	}
	n = fread(text, 1, sb.st_size, fp);
	text[n] = '\0';
	fclose(fp);
	if (memchr(text, '\0', n) != NULL) {
		snprintf(err, errlen, "%s: not a text file", path);
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Start the tournament defined in the file at path.  Returns its id, or
 * -1 with "path:line: reason" in err.  The definition is logged whole,
 * with its master seed, before the first match starts.
 */
int64_t
tourney_start(const char *path, char *err, size_t errlen)
{
	struct tdef	 d;
	struct tourney	*t;
	char		*text, seed[BRI_SEED_STRLEN], why[300];
	int64_t		 id;
	struct tslot	*slots;
	struct bot	*added[TDEF_MAXBOTS];
	int		 n, nadded = 0;

	if (refd_stopping()) {
		snprintf(err, errlen, "refd is shutting down");
		return -1;
	}
	if ((text = tourney_read(path, err, errlen)) == NULL)
		return -1;
	if (tdef_parse(text, path, &d, err, errlen) == -1) {
		free(text);
		return -1;
	}
	if (tourney_bots(&d, path, added, &nadded, err, errlen) == -1)
		goto fail;
	if (tourney_trust(&d, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s:%s", path, why);
		goto fail;
	}
	if (!d.have_seed && bri_seed_new(&d.seed) != BRI_OK) {
		snprintf(err, errlen, "no entropy for a seed");
		goto fail;
	}
	if (tdef_schedule(&d, &slots, &n, err, errlen) == -1)
		goto fail;
	free(slots);
	if (!db_writable(logdb) || db_tourney_begin(logdb, d.name, text,
	    bri_seed_format(&d.seed, seed), n, &id) == -1) {
		snprintf(err, errlen, "the log cannot be written: %s",
		    db_error(logdb));
		goto fail;
	}
	free(text);
	if ((t = tourney_new(id, &d, err, errlen)) == NULL) {
		tdef_free(&d);
		return -1;
	}
	tourney_waits_not(id);
	log_info("tournament %lld: %s, %d matches, master seed commitment "
	    "%s", (long long)id, d.name, t->nslots, t->commit);
	tourney_fill(t);
	return id;
fail:
	tourney_unbots(added, nadded);
	free(text);
	tdef_free(&d);
	return -1;
}

/*
 * Take up again a tournament the log shows unfinished: at start-up for
 * those still running, or on the operator's word for a stopped one.
 */
int
tourney_resume(int64_t id, char *err, size_t errlen)
{
	sqlite3_stmt	*st;
	struct tdef	 d;
	struct tourney	*t;
	char		 name[64], why[300];
	const char	*text, *seed, *state;
	struct bot	*added[TDEF_MAXBOTS];
	int		 rc = -1, nadded;

	if ((t = tourney_find(id)) != NULL && !t->over) {
		snprintf(err, errlen, "tournament %lld is running",
		    (long long)id);
		return -1;
	}
	if (sqlite3_prepare_v2(db_handle(logdb), "SELECT definition, seed, "
	    "state FROM tournaments WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "log: %s",
		    sqlite3_errmsg(db_handle(logdb)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no tournament %lld in the log",
		    (long long)id);
		goto out;
	}
	text = (const char *)sqlite3_column_text(st, 0);
	seed = (const char *)sqlite3_column_text(st, 1);
	state = (const char *)sqlite3_column_text(st, 2);
	if (tdef_over(state)) {
		snprintf(err, errlen, "tournament %lld is %s: it cannot be "
		    "resumed", (long long)id, state);
		goto out;
	}
	snprintf(name, sizeof(name), "tournament %lld", (long long)id);
	if (text == NULL || tdef_parse(text, name, &d, err, errlen) == -1)
		goto out;
	if (seed == NULL || bri_seed_parse(seed, &d.seed) != BRI_OK) {
		snprintf(err, errlen, "tournament %lld: bad seed in the log",
		    (long long)id);
		tdef_free(&d);
		goto out;
	}
	d.have_seed = 1;
	if (tourney_bots(&d, name, added, &nadded, err, errlen) == -1) {
		tourney_waits(id, &d, err);
		tdef_free(&d);
		goto out;
	}
	if (tourney_trust(&d, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s: not resumed: %s", name, why);
		tourney_unbots(added, nadded);
		tourney_waits(id, &d, err);
		tdef_free(&d);
		goto out;
	}
	tourney_waits_not(id);
	if (t != NULL)
		tourney_free(t);
	if ((t = tourney_new(id, &d, err, errlen)) == NULL) {
		tdef_free(&d);
		goto out;
	}
	db_tourney_state(logdb, id, "running", NULL);
	log_info("tournament %lld resumed: %d of %d matches done",
	    (long long)id, t->ndone, t->nslots);
	if (tourney_sprt(t))
		;	/* decided before this refd went down */
	else if (t->ndone == t->nslots)
		tourney_end(t, "done", "every match played");
	else
		tourney_fill(t);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* At start-up: resume every tournament the log shows running. */
void
tourney_resume_all(void)
{
	sqlite3_stmt	*st;
	int64_t		 ids[256];
	char		 err[400];
	int		 n = 0, i;

	if (sqlite3_prepare_v2(db_handle(logdb), "SELECT id FROM tournaments "
	    "WHERE state = 'running' ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return;
	while (n < 256 && sqlite3_step(st) == SQLITE_ROW)
		ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (i = 0; i < n; i++)
		if (tourney_resume(ids[i], err, sizeof(err)) == -1)
			log_warnx("tournament %lld not resumed: %s",
			    (long long)ids[i], err);
}

/* Stop a tournament: running matches end aborted, the rest wait. */
int
tourney_stop(int64_t id, char *err, size_t errlen)
{
	struct tourney	*t = tourney_find(id);

	if (t == NULL || t->over) {
		snprintf(err, errlen, "no running tournament %lld",
		    (long long)id);
		return -1;
	}
	tourney_end(t, "stopped", "stopped by the operator");
	tourney_halt(t, "tournament stopped");
	return 0;
}

/*
 * Cancel a tournament for good: running or stopped, in this refd or only
 * in the log (one a restart did not resume).  Its running matches end
 * aborted, "cancelled" is logged, and its master seed, used up now, is
 * revealed: written into seed (BRI_SEED_STRLEN bytes).  It can never be
 * resumed.  Returns 0, or -1 with the reason in err.
 */
int
tourney_cancel(int64_t id, char *seed, char *err, size_t errlen)
{
	struct tourney	*t = tourney_find(id);
	sqlite3_stmt	*st;
	const char	*state, *hex;
	int		 rc = -1;

	if (t != NULL && !tdef_over(t->state_name)) {
		tourney_end(t, "cancelled", "cancelled by the operator");
		tourney_halt(t, "tournament cancelled");
		bri_seed_format(&t->def.seed, seed);
		return 0;
	}
	if (t != NULL) {
		snprintf(err, errlen, "tournament %lld is %s already",
		    (long long)id, t->state_name);
		return -1;
	}
	if (sqlite3_prepare_v2(db_handle(logdb), "SELECT state, seed FROM "
	    "tournaments WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "log: %s",
		    sqlite3_errmsg(db_handle(logdb)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no tournament %lld in the log",
		    (long long)id);
		goto out;
	}
	state = (const char *)sqlite3_column_text(st, 0);
	hex = (const char *)sqlite3_column_text(st, 1);
	if (tdef_over(state)) {
		snprintf(err, errlen, "tournament %lld is %s already",
		    (long long)id, state);
		goto out;
	}
	snprintf(seed, BRI_SEED_STRLEN, "%s", hex != NULL ? hex : "-");
	if (!db_writable(logdb) || db_tourney_state(logdb, id, "cancelled",
	    "cancelled by the operator") == -1) {
		snprintf(err, errlen, "the log cannot be written: %s",
		    db_error(logdb));
		goto out;
	}
	tourney_waits_not(id);
	log_info("tournament %lld: cancelled (cancelled by the operator)",
	    (long long)id);
	log_info("tournament %lld: master seed %s revealed", (long long)id,
	    seed);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* One line per tournament this refd knows. */
void
tourney_list(FILE *f)
{
	struct tourney	*t;
	struct twait	*w;

	TAILQ_FOREACH(t, &tourneys, entry)
		fprintf(f, "%lld %s %s %d/%d running=%d\n", (long long)t->id,
		    t->def.name, t->state_name, t->ndone, t->nslots,
		    t->nrunning);
	TAILQ_FOREACH(w, &waits, entry) {
		fprintf(f, "%lld %s waiting %d/%d running=0", (long long)w->id,
		    w->name, w->ndone, w->total);
		if (w->missing[0] != '\0')
			fprintf(f, " for=%s\n", w->missing);
		else
			fprintf(f, " why=%s\n", w->reason);
	}
}

/*
 * The standings of tournament tid drawn from the log h: a new string
 * (its length in *len), or NULL with the reason in err.  It reads
 * nothing but its arguments: it runs on a drawing's thread.
 */
static char *
tourney_draw_text(sqlite3 *h, int64_t tid, const struct tdef *d,
    const struct tslot *slots, int nslots, const struct st_sprt *sp,
    size_t *len, char *err, size_t errlen)
{
	struct tstand	 ts;
	struct st_table	*tab;
	struct st_sprt	 s;
	FILE		*f;
	char		*buf = NULL;
	int		*unit;

	*len = 0;
	if (tstand_load(h, tid, d, 0, &ts, err, errlen) == -1)
		return NULL;
	/* after the SPRT's verdict, only what it read counts */
	tstand_sprt_prefix(d, slots, nslots, &ts, &s);
	if ((tab = malloc(sizeof(*tab))) == NULL ||
	    (f = open_memstream(&buf, len)) == NULL) {
		free(tab);
		tstand_free(&ts);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	st_compute(ts.m, ts.n, d->nbots, 1, tab);
	if ((unit = tstand_units(d, slots, nslots, &ts)) != NULL)
		st_teams(ts.m, ts.n, unit, d->nbots, 1, tab);
	free(unit);
	/* no thinking times: a log in memory is drawn in the loop */
	tstand_print(f, d, &ts, tab, d->sprt ? sp : NULL, TSTAND_TEXT);
	free(tab);
	tstand_free(&ts);
	if (fclose(f) != 0) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return buf;
}

/* A drawing's thread. */
static void *
tourney_draw_run(void *arg)
{
	struct tdraw	*j = arg;
	ssize_t		 n;

	j->text = tourney_draw_text(j->h, j->tid, &j->def, j->slots,
	    j->nslots, &j->sprt, &j->len, j->err, sizeof(j->err));
	sqlite3_close(j->h);
	j->h = NULL;
	/* a pointer is less than PIPE_BUF: written whole or not at all */
	do
		n = write(draw_pipe[1], &j, sizeof(j));
	while (n == -1 && errno == EINTR);
	return NULL;
}

/* What a finished drawing leaves t: its standings, or why not. */
static void
tourney_draw_keep(struct tourney *t, char *text, size_t len, int done,
    int64_t began, const char *err)
{
	t->st_at = util_now_us();
	t->st_cost = t->st_at - began;
	if (text != NULL) {
		free(t->st_text);
		t->st_text = text;
		t->st_len = len;
		t->st_done = done;
		t->st_err[0] = '\0';
		log_debug("tournament %lld: standings of %d matches drawn in "
		    "%lld us", (long long)t->id, done, (long long)t->st_cost);
	} else {
		snprintf(t->st_err, sizeof(t->st_err), "%s", err);
		t->st_errdone = done;
		log_warnx("tournament %lld: standings: %s", (long long)t->id,
		    err);
	}
}

/* A drawing's thread is done: keep what it drew, tell whoever waits. */
static void
tourney_drawn(evutil_socket_t fd, short what, void *arg)
{
	struct tdraw	*j;
	struct tourney	*t;
	int64_t		 tid;

	(void)what;
	(void)arg;
	while (read(fd, &j, sizeof(j)) == (ssize_t)sizeof(j)) {
		pthread_join(j->thread, NULL);
		TAILQ_REMOVE(&draws, j, entry);
		tid = j->tid;
		if ((t = j->t) != NULL) {
			t->draw = NULL;
			tourney_draw_keep(t, j->text, j->len, j->done,
			    j->began, j->err);
		} else
			free(j->text);
		if (j->own_slots)
			free(j->slots);
		free(j);
		/* even for a tournament freed since (resumed): its askers
		 * are answered by the one that took its place, or told */
		if (drawn_cb != NULL)
			drawn_cb(tid);
	}
}

/* fn hears of every drawing of standings that ends: its tournament. */
void
tourney_observe_drawn(void (*fn)(int64_t))
{
	drawn_cb = fn;
}

/*
 * Start drawing t's standings on a thread.  Returns 0, or -1 with the
 * reason in err (a log in memory has no second connection).
 */
static int
tourney_draw_start(struct tourney *t, char *err, size_t errlen)
{
	struct tdraw	*j;
	int		 i;

	if (draw_ev == NULL) {
		if (pipe2(draw_pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -1;
		}
		if ((draw_ev = event_new(base, draw_pipe[0], EV_READ |
		    EV_PERSIST, tourney_drawn, NULL)) == NULL ||
		    event_add(draw_ev, NULL) == -1) {
			if (draw_ev != NULL)
				event_free(draw_ev);
			draw_ev = NULL;
			close(draw_pipe[0]);
			close(draw_pipe[1]);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((j->h = db_reader(logdb, err, errlen)) == NULL) {
		free(j);
		return -1;
	}
	j->t = t;
	j->tid = t->id;
	j->def = t->def;
	for (i = 0; i < j->def.nbotdefs; i++)
		j->def.botdef[i] = NULL;
	j->def.nbotdefs = 0;
	j->slots = t->slots;
	j->nslots = t->nslots;
	j->sprt = t->sprt;
	j->done = t->ndone;
	j->began = util_now_us();
	if ((i = util_thread(&j->thread, tourney_draw_run, j)) != 0) {
		snprintf(err, errlen, "thread: %s", strerror(i));
		sqlite3_close(j->h);
		free(j);
		return -1;
	}
	TAILQ_INSERT_TAIL(&draws, j, entry);
	t->draw = j;
	return 0;
}

/*
 * Are t's standings, as last drawn, to be shown?  Yes when no match has
 * ended since, or when the tournament runs and STANDINGS_SHARE times
 * the last drawing's time has not passed; once it is over they are
 * drawn one last time, whatever the pace.  Else a drawing is started,
 * or one under way awaited; the table shows t's SPRT as the caller
 * last read it.  Returns 0 (t->st_text stands), 1 (ask again when
 * drawn_cb hears of t), or -1 with the reason in err.
 */
static int
tourney_standings(struct tourney *t, char *err, size_t errlen)
{
	int64_t		 now = util_now_us();
	char		*text;
	size_t		 len;

	if (t->st_err[0] != '\0' && (t->st_errdone == t->ndone ||
	    (!t->over && now - t->st_at < STANDINGS_SHARE * t->st_cost))) {
		/* the last drawing failed: not again on the same matches */
		snprintf(err, errlen, "standings: %s", t->st_err);
		return -1;
	}
	if (t->st_text != NULL && (t->st_done == t->ndone || (!t->over &&
	    now - t->st_at < STANDINGS_SHARE * t->st_cost)))
		return 0;
	if (t->draw != NULL)
		return 1;
	if (db_has_file(logdb))
		return tourney_draw_start(t, err, errlen) == 0 ? 1 : -1;
	/* a log in memory: drawn here, the loop waiting */
	text = tourney_draw_text(db_handle(logdb), t->id, &t->def, t->slots,
	    t->nslots, &t->sprt, &len, err, errlen);
	tourney_draw_keep(t, text, len, t->ndone, now, err);
	return text != NULL ? 0 : -1;
}

/*
 * A tournament's progress: "progress D/T", running matches, an ETA from
 * this refd's pace, the SPRT; then, unless brief, the standings, as
 * tourney_standings() last drew them, after "standings N", the number
 * of matches done when they were.  Returns 0, -1 with the reason in
 * err, or 1 when the standings are being drawn: nothing is written
 * then, and it is to be asked again when drawn_cb hears of the
 * tournament.
 */
int
tourney_status(int64_t id, int brief, FILE *f, char *err, size_t errlen)
{
	struct tourney	*t = tourney_find(id);
	struct st_sprt	*sp;
	struct match	*m;
	char		 seed[BRI_SEED_STRLEN];
	int64_t		 el, eta = -1;
	int		 rc;

	if (t == NULL) {
		snprintf(err, errlen, "no tournament %lld in this refd",
		    (long long)id);
		return -1;
	}
	/* once, before a drawing copies it: the table shows it too */
	tourney_sprt_read(t);
	if (!brief && (rc = tourney_standings(t, err, errlen)) != 0)
		return rc;
	/* elapsed stops with the tournament */
	el = (t->over ? t->ended_ms : util_now_ms()) - t->started_ms;
	if (t->done_here > 0 && !t->over)
		eta = el * (t->nslots - t->ndone) / t->done_here / 1000;
	fprintf(f, "tournament %lld %s %s\nprogress %d/%d\nrunning %d\n"
	    "elapsed %lld\neta %lld\n", (long long)t->id, t->def.name,
	    t->state_name, t->ndone, t->nslots, t->nrunning,
	    (long long)el / 1000, (long long)eta);
	TAILQ_FOREACH(m, &matches, entry)
		if (m->conf.tournament == id && !match_over(m))
			fprintf(f, "match %lld slot %d deal %d\n",
			    (long long)m->id, m->conf.slot, m->bm.ndeals);
	if (t->reason[0])
		fprintf(f, "reason %s\n", t->reason);
	fprintf(f, "commitment %s\n", t->commit);
	if (tdef_over(t->state_name))
		fprintf(f, "seed %s\n", bri_seed_format(&t->def.seed, seed));
	if (t->def.sprt) {
		sp = &t->sprt;
		fprintf(f, "sprt llr %.4f lower %.4f upper %.4f units %d "
		    "games %d-%d-%d state %s\n", sp->llr, sp->lower, sp->upper,
		    sp->units, sp->wins, sp->draws, sp->losses,
		    tstand_sprt_state(sp));
	}
	if (brief)
		return 0;
	fprintf(f, "standings %d\n", t->st_done);
	fwrite(t->st_text, 1, t->st_len, f);
	return 0;
}

/* Is the tournament over?  Sets its state and reason for a reply. */
int
tourney_over(int64_t id, const char **state, const char **reason)
{
	struct tourney	*t = tourney_find(id);

	if (t == NULL)
		return -1;
	*state = t->state_name;
	*reason = t->reason;
	return t->over;
}

/* Free every tournament, at exit. */
void
tourney_free_all(void)
{
	struct tourney	*t;
	struct tdraw	*j;
	struct twait	*w;

	while ((w = TAILQ_FIRST(&waits)) != NULL) {
		TAILQ_REMOVE(&waits, w, entry);
		free(w);
	}

	if (sweep_ev != NULL) {
		event_free(sweep_ev);
		sweep_ev = NULL;
	}
	/* a drawing under way is waited for: it reads what is freed here */
	while ((j = TAILQ_FIRST(&draws)) != NULL) {
		TAILQ_REMOVE(&draws, j, entry);
		pthread_join(j->thread, NULL);
		if (j->t != NULL)
			j->t->draw = NULL;
		if (j->own_slots)
			free(j->slots);
		free(j->text);
		free(j);
	}
	while ((t = TAILQ_FIRST(&tourneys)) != NULL)
		tourney_free(t);
	if (draw_ev != NULL) {
		event_free(draw_ev);
		draw_ev = NULL;
		close(draw_pipe[0]);
		close(draw_pipe[1]);
		draw_pipe[0] = draw_pipe[1] = -1;
	}
}
