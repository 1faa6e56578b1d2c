/*
 * match.c: one match's state machine, its clocks and its fault policy.
 *
 * A match asks libbriscola what is legal and what happened, writes each
 * event to the log before anyone hears of it, and then tells every seat
 * what its own view allows.  Nothing here blocks: a bot's silence is a
 * deadline in seat.c, and the log is written before anyone hears of
 * what it holds (db_group_mode(): one transaction per loop pass).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "refd.h"
#include "botproto.h"
#include "chain.h"
#include "log.h"
#include "match.h"
#include "mset.h"
#include "spawn.h"
#include "util.h"

struct matchlist	 matches = TAILQ_HEAD_INITIALIZER(matches);
static int		 nplaying;	/* matches in MATCH_PLAYING */

static void	match_hello_done(struct match *);
static void	match_deal(struct match *);
static void	match_ask(struct match *);
static void	match_apply(struct match *, int, bri_card, int64_t, int);
static void	match_bid(struct match *, int, int, int64_t, int);
static void	match_call(struct match *, int, int, int64_t, int);
static void	match_deal_over(struct match *, const struct bri_event *);
struct match_end;
static void	match_announce(struct match *, const struct match_end *);
static void	match_end_go(struct match *);
static void	match_end_lost(struct match *);
static void	match_finish(struct match *, enum match_state, const char *,
		    const char *);
static void	match_answer(void *, struct seat *, enum pend_kind, int,
		    const char *, int64_t);
static void	match_fault(void *, struct seat *, const char *, const char *,
		    int64_t);

/* What a seat of a match reports through. */
static void	match_late(void *, struct seat *, enum pend_kind, int,
		    const char *, int64_t);
static int	match_log_answer(struct match *, struct seat *, const char *,
		    int, const char *, int64_t);
static const struct seat_cb match_seat_cb = { match_answer, match_fault,
    match_late };

/* Who hears of matches' events and ends (match_observe()). */
#define MATCH_MAXOBS	8
static struct match_observer {
	void	(*event)(struct match *, const char *);
	void	(*end)(struct match *);
} observers[MATCH_MAXOBS];
static int		 nobservers;
static int		 observe_all;	/* every match's events, not only
					   the watched ones' */

/* Notifications are due within this long when no move is asked. */
#define NOTE_MS(m)	((m)->conf.move_ms > 1000 ? (m)->conf.move_ms : 1000)

/* Send seat s deal message k, built from its own view v. */
static int
match_tell(struct match *m, struct seat *s, enum botmsg k,
    const struct bri_view *v)
{
	char	 buf[BOTPROTO_MAXLINE];

	botproto_format(k, v, 0, buf, sizeof(buf));
	return seat_send(s, PEND_NOTE, NOTE_MS(m), "%s", buf);
}

/* Name of a match state, for listings and the debug log. */
const char *
match_state_name(enum match_state s)
{
	switch (s) {
	case MATCH_WAITING:	return "waiting";
	case MATCH_PLAYING:	return "playing";
	case MATCH_ENDING:	return "playing";	/* until on the disk */
	case MATCH_DONE:	return "done";
	case MATCH_ABORTED:	return "aborted";
	}
	return "?";
}

/* Every state change passes here, so the debug log tells the story. */
static void
match_enter(struct match *m, enum match_state st)
{
	log_debug("match %lld: %s -> %s", (long long)m->id,
	    match_state_name(m->state), match_state_name(st));
	nplaying += (st == MATCH_PLAYING) - (m->state == MATCH_PLAYING);
	m->state = st;
}

/*
 * event hears every event line of a match someone watches, end every
 * match that ends, once it is logged; either may be NULL.  Returns 0,
 * or -1 when there are too many observers.
 */
int
match_observe(void (*event)(struct match *, const char *),
    void (*end)(struct match *))
{
	if (nobservers == MATCH_MAXOBS)
		return -1;
	observers[nobservers].event = event;
	observers[nobservers++].end = end;
	return 0;
}

/*
 * From now on the observers hear the events of every match, watched on
 * the control socket or not (the web site).
 */
void
match_observe_all(void)
{
	observe_all = 1;
}

/* Is m over, done or aborted?  Its result and reason are then final. */
int
match_over(const struct match *m)
{
	return m->state == MATCH_DONE || m->state == MATCH_ABORTED;
}

/*
 * Has m ended, its result logged but the sync that keeps it still under
 * way?  It is over, and says so, once that is done.
 */
int
match_ending(const struct match *m)
{
	return m->state == MATCH_ENDING;
}

/* Matches playing now (not starting, not over). */
int
match_playing(void)
{
	return nplaying;
}

/* Matches not yet over. */
int
match_running(void)
{
	struct match	*m;
	int		 n = 0;

	TAILQ_FOREACH(m, &matches, entry)
		if (!match_over(m))
			n++;
	return n;
}

/* The match with id, or NULL. */
struct match *
match_find(int64_t id)
{
	struct match	*m;

	TAILQ_FOREACH(m, &matches, entry)
		if (m->id == id)
			return m;
	return NULL;
}

/* Give the operator's watchers one event line, now. */
static void
match_event(struct match *m, const char *line)
{
	int	 i;

	for (i = 0; i < nobservers; i++)
		if (observers[i].event != NULL)
			observers[i].event(m, line);
}

/* Tell the operator's watchers one event line. */
static void
match_emit(struct match *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
match_emit(struct match *m, const char *fmt, ...)
{
	va_list	 ap;
	char	 line[512];

	if (TAILQ_EMPTY(&m->watchers) && !observe_all)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	match_event(m, line);
}

/*
 * m's match points as the log has them (a lost deal's end is not in
 * them) and its faults, for the operator (match_show).
 */
void
match_shown(struct match *m, const int **mpoints, const int **faults)
{
	*mpoints = m->dbm.mpoints;
	*faults = m->faults;
}

/* The log refused a write: the match cannot go on unlogged. */
static void
match_logfail(struct match *m)
{
	char	 why[256];

	snprintf(why, sizeof(why), "log failure: %s", db_error(logdb));
	log_warnx("match %lld: %s", (long long)m->id, why);
	match_finish(m, MATCH_ABORTED, "aborted", why);
}

/* Give seat i its bot: spawn it, or take a connected remote one. */
static int
match_seat_up(struct match *m, int i, char *err, size_t errlen)
{
	struct bot	*b = bots_find(m->conf.bots[i]);
	struct seat	*s;
	char		 path[1200];
	int		 k;

	if (b->kind == BOT_SPAWN) {
		snprintf(path, sizeof(path), "%s/match%lld-seat%d-%s.log",
		    conf.botlog_dir, (long long)m->id, i, b->name);
		if ((s = seat_spawn(b, conf.botlog_dir[0] ? path : NULL, m->id,
		    i, err, errlen)) == NULL)
			return -1;
	} else if ((s = seat_take_idle(b)) == NULL)
		return 0;	/* wait for it to connect */
	seat_attach(s, i, &match_seat_cb, m);
	seat_lazy(s, m->conf.notify == NOTIFY_LAZY);
	m->seat[i] = s;
	seat_send(s, PEND_NAME, m->conf.startup_ms, "name");
	seat_send(s, PEND_VERSION, m->conf.startup_ms, "version");
	/* only a table with an auction asks: old bots never hear of it */
	for (k = 0; k < botproto_nknown(m->conf.opt.variant); k++)
		seat_send(s, PEND_KNOWN, m->conf.startup_ms, "known_command %s",
		    botproto_known(k));
	return 0;
}

/* The seats of m that are spawned bots. */
static int
match_nspawned(const struct match *m)
{
	struct bot	*b;
	int		 i, n = 0;

	for (i = 0; i < m->nseats; i++)
		if ((b = bots_find(m->conf.bots[i])) != NULL &&
		    b->kind == BOT_SPAWN)
			n++;
	return n;
}

/*
 * Seat every seat of m, its start-up limit counted from now.  A seat
 * that cannot start aborts the match.
 */
static void
match_seat_all(struct match *m)
{
	struct timeval	 tv;
	char		 err[256], why[300];
	int		 i;

	tv.tv_sec = m->conf.startup_ms / 1000;
	tv.tv_usec = (m->conf.startup_ms % 1000) * 1000;
	evtimer_add(m->wait_timer, &tv);
	for (i = 0; i < m->nseats && !match_over(m); i++)
		if (match_seat_up(m, i, err, sizeof(err)) == -1) {
			snprintf(why, sizeof(why), "cannot start %s: %s",
			    m->conf.bots[i], err);
			match_finish(m, MATCH_ABORTED, "aborted", why);
		}
}

/*
 * A bot connection was freed: the matches that wait for room under
 * max_connections for their spawned bots start, first come first
 * served, as long as there is room for all of a match's bots at once:
 * a match half started would hold room while it waits for the rest.
 */
void
match_slot_freed(void)
{
	struct match	*m, *t;

	TAILQ_FOREACH_SAFE(m, &matches, entry, t) {
		if (!m->slot_wait || match_over(m))
			continue;
		if (seat_count() + match_nspawned(m) > conf.max_conns)
			return;
		m->slot_wait = 0;
		log_debug("match %lld: room for its bots", (long long)m->id);
		match_seat_all(m);
	}
}

/* A remote bot of b connected or came free: seat it where awaited. */
void
match_remote_ready(struct bot *b)
{
	struct match	*m, *t;
	char		 err[256];
	int		 i;

	TAILQ_FOREACH_SAFE(m, &matches, entry, t) {
		if (m->state != MATCH_WAITING)
			continue;
		for (i = 0; i < m->nseats && seat_idle_count(b) > 0; i++)
			if (m->seat[i] == NULL &&
			    strcmp(m->conf.bots[i], b->name) == 0)
				match_seat_up(m, i, err, sizeof(err));
	}
}

/* Remote bots did not come in time. */
static void
match_wait_expired(evutil_socket_t fd, short what, void *arg)
{
	struct match	*m = arg;
	char		 why[128];
	int		 i;

	(void)fd;
	(void)what;
	for (i = 0; i < m->nseats; i++)
		if (m->seat[i] == NULL)
			break;
	if (m->state != MATCH_WAITING || i == m->nseats || m->slot_wait)
		return;		/* waiting for room has no limit */
	snprintf(why, sizeof(why), "remote bot %s did not connect in time",
	    m->conf.bots[i]);
	match_finish(m, MATCH_ABORTED, "aborted", why);
}

/*
 * Log the ends the log refused when they came (a full disk): such a
 * match ended aborted, and the log must say so before it holds anything
 * newer.  Returns 0, or -1 if one still cannot be written.
 */
static int
match_log_ends(void)
{
	struct match	*m;

	TAILQ_FOREACH(m, &matches, entry) {
		if (!m->end_unlogged)
			continue;
		if (db_match_end(logdb, &m->dbm, m->result, m->reason,
		    m->dbm.mpoints, m->nseats) == -1)
			return -1;
		m->end_unlogged = 0;
		log_info("match %lld: its end is logged at last",
		    (long long)m->id);
	}
	return 0;
}

/*
 * Start a match: check it, log it, start its seats.  Returns the match,
 * or NULL with the reason in err; a match is never started unlogged.
 */
struct match *
match_start(const struct match_conf *mc, char *err, size_t errlen)
{
	struct match	*m;
	struct db_seat	 ds[BRI_MAXSEATS];
	struct bot	*b;
	char		 seed[BRI_SEED_STRLEN], ident[BRI_MAXSEATS][256];
	struct mset	 ms;
	uint8_t		 commit[BRI_COMMITLEN];
	int		 i, n, nspawn = 0;

	if (refd_stopping()) {
		snprintf(err, errlen, "refd is shutting down");
		return NULL;
	}
	n = bri_variant_seats(mc->opt.variant);
	if (mc->nbots != n) {
		snprintf(err, errlen, "%s needs %d bots, %d given",
		    bri_variant_name(mc->opt.variant), n, mc->nbots);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if ((b = bots_find(mc->bots[i])) == NULL) {
			snprintf(err, errlen, "unknown bot %s", mc->bots[i]);
			return NULL;
		} else if (b->kind == BOT_SPAWN)
			nspawn++;
	if (nspawn > conf.max_conns) {
		snprintf(err, errlen, "%d spawned bots at once, but "
		    "max_connections is %d", nspawn, conf.max_conns);
		return NULL;
	}
	if (bri_options_check(&mc->opt) != BRI_OK) {
		snprintf(err, errlen, "bad match options");
		return NULL;
	}
	if (!db_writable(logdb) || match_log_ends() == -1) {
		snprintf(err, errlen, "the log cannot be written: %s",
		    db_error(logdb));
		return NULL;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->conf = *mc;
	m->nseats = n;
	TAILQ_INIT(&m->watchers);
	TAILQ_INIT(&m->waiters);
	if (!mc->have_seed && bri_seed_new(&m->conf.seed) != BRI_OK) {
		snprintf(err, errlen, "no entropy for a seed");
		free(m);
		return NULL;
	}
	bri_match_init(&m->bm, &m->conf.opt, &m->conf.seed);
	bri_seed_commit(&m->conf.seed, commit);
	util_hex(commit, sizeof(commit), m->commit);
	/* the options text, by the one table of settings (mset.c) */
	mset_of(&ms, &mc->opt, mc->move_ms, mc->bank_ms, mc->startup_ms,
	    mc->policy, mc->max_faults);
	ms.val[MSET_NOTIFY] = mc->notify;
	mset_text(&ms, mc->opt.variant, m->options, sizeof(m->options));
	if (mc->tournament != 0 || mc->hide_seed) /* it may serve others */
		snprintf(m->options + strlen(m->options), sizeof(m->options) -
		    strlen(m->options), " seed_reveal=tournament");
	if (spawn_mode() == SANDBOX_NONE)	/* said in the header, forever */
		snprintf(m->options + strlen(m->options), sizeof(m->options) -
		    strlen(m->options), " sandbox=none");
	else if (spawn_memcg_missing() != NULL)	/* bot_memory_mb half kept */
		snprintf(m->options + strlen(m->options), sizeof(m->options) -
		    strlen(m->options), " memcg=none");

	m->dbm.variant = bri_variant_name(mc->opt.variant);
	m->dbm.options = m->options;
	m->dbm.seed_hex = bri_seed_format(&m->conf.seed, seed);
	m->dbm.commit_hex = m->commit;
	m->dbm.rng = BRI_RNG_NAME "/1";
	m->dbm.move_ms = mc->move_ms;
	m->dbm.bank_ms = mc->bank_ms;
	m->dbm.startup_ms = mc->startup_ms;
	m->dbm.policy = policy_name(mc->policy);
	m->dbm.max_faults = mc->max_faults;
	m->dbm.tournament = mc->tournament;
	m->dbm.slot = mc->slot;
	for (i = 0; i < n; i++) {
		b = bots_find(mc->bots[i]);
		ds[i].seat = i;
		ds[i].bot = b->name;
		ds[i].version = "";
		ds[i].kind = bots_kind_name(b->kind);
		/* a remote bot's peer is known once it answers */
		ident[i][0] = '\0';
		if (b->kind == BOT_SPAWN)
			chain_argv(b->argc, b->argv, ident[i],
			    sizeof(ident[i]));
		ds[i].identity = ident[i];
	}
	if (db_match_begin(logdb, &m->dbm, ds, n) == -1) {
		snprintf(err, errlen, "the log refused the match: %s",
		    db_error(logdb));
		free(m);
		return NULL;
	}
	m->id = m->dbm.id;
	for (i = 0; i < n; i++)
		m->bank_us[i] = (int64_t)mc->bank_ms * 1000;
	/* calloc: m->state is MATCH_WAITING */
	TAILQ_INSERT_TAIL(&matches, m, entry);
	log_info("match %lld: %s started", (long long)m->id,
	    bri_variant_name(mc->opt.variant));

	m->wait_timer = evtimer_new(base, match_wait_expired, m);
	/*
	 * Its spawned bots start only when max_connections has room for all
	 * of them, after every match that waited before it: until then it
	 * waits, however long, rather than fail.
	 */
	m->slot_wait = 1;
	match_slot_freed();
	if (m->slot_wait)
		log_info("match %lld: waits for room for %d bots "
		    "(max_connections %d, %d connections)", (long long)m->id,
		    match_nspawned(m), conf.max_conns, seat_count());
	return m;
}

/* Every seat answered name and version: the match begins. */
static void
match_hello_done(struct match *m)
{
	const char	*names[BRI_MAXSEATS];
	char		 buf[BOTPROTO_MAXLINE];
	int		 i;

	evtimer_del(m->wait_timer);
	for (i = 0; i < m->nseats; i++)
		if (db_seat_version(logdb, &m->dbm, i, seat_name(m->seat[i]),
		    seat_version(m->seat[i]),
		    bots_find(m->conf.bots[i])->kind == BOT_REMOTE ?
		    seat_peer(m->seat[i]) : NULL) == -1) {
			match_logfail(m);
			return;
		}
	match_enter(m, MATCH_PLAYING);
	for (i = 0; i < m->nseats; i++)
		names[i] = m->conf.bots[i];
	for (i = 0; i < m->nseats; i++) {
		seat_transcript_begin(m->seat[i]);
		seat_send(m->seat[i], PEND_NOTE, NOTE_MS(m), "%s",
		    botproto_match_start_text(buf, sizeof(buf),
		    (long long)m->id, bri_variant_name(m->conf.opt.variant), i,
		    names, m->nseats, m->commit, m->options));
	}
	match_deal(m);
}

/* Deal the next deal and tell each seat its hand. */
static void
match_deal(struct match *m)
{
	struct bri_view	 v;
	char		 t[BRI_CARD_STRLEN];
	int		 i;

	if (bri_match_deal(&m->bm) != BRI_OK) {
		match_finish(m, MATCH_ABORTED, "aborted", "cannot deal");
		return;
	}
	m->nplays = 0;
	if (db_deal(logdb, &m->dbm, &m->bm.deal, m->bm.ndeals) == -1) {
		match_logfail(m);
		return;
	}
	match_emit(m, "deal %d dealer=%d trump=%s", m->bm.ndeals,
	    m->bm.deal.dealer, m->bm.deal.trump == BRI_NOCARD ? "-" :
	    bri_card_format(m->bm.deal.trump, t));
	for (i = 0; i < m->nseats; i++) {
		bri_view_build(&m->bm, i, &v);
		match_tell(m, m->seat[i], BOTMSG_DEAL_START, &v);
	}
	match_ask(m);
}

/*
 * The limit of seat t's next move, in ms: move_ms, or what is left of
 * its bank when less; 0 or less when the bank is spent.
 */
static int
match_limit_ms(const struct match *m, int t)
{
	int	 ms = m->conf.move_ms;

	if (m->conf.bank_ms > 0 && m->bank_us[t] / 1000 < ms)
		ms = (int)(m->bank_us[t] / 1000);
	return ms;
}

/*
 * Ask the seat whose turn it is for its move: a call in the auction
 * (genbid), the caller's suit (gencall) or a card (genplay), each under
 * the same per-move limit and time bank.
 */
static void
match_ask(struct match *m)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];
	int		 t = m->bm.deal.turn, ms;
	enum botmsg	 k = BOTMSG_GENPLAY;
	enum pend_kind	 pk = PEND_GENPLAY;

	if (m->state != MATCH_PLAYING)
		return;
	if (m->bm.deal.phase == BRI_PHASE_AUCTION) {
		k = BOTMSG_GENBID;
		pk = PEND_GENBID;
	} else if (m->bm.deal.phase == BRI_PHASE_CALL) {
		k = BOTMSG_GENCALL;
		pk = PEND_GENCALL;
	}
	ms = match_limit_ms(m, t);
	m->dbm.limit_ms = ms > 0 ? ms : 0;	/* chained with the move */
	if (ms <= 0) {
		match_fault(m, m->seat[t], "timeout", "time bank exhausted", 0);
		return;
	}
	bri_view_build(&m->bm, t, &v);
	m->ask_us = util_now_us();
	seat_send(m->seat[t], pk, ms, "%s",
	    botproto_format(k, &v, ms, buf, sizeof(buf)));
}

/* The phase of a deal in which a move of kind k is asked for. */
static int
match_phase_of(enum pend_kind k)
{
	switch (k) {
	case PEND_GENBID:	return BRI_PHASE_AUCTION;
	case PEND_GENCALL:	return BRI_PHASE_CALL;
	default:		return BRI_PHASE_PLAY;
	}
}

/*
 * A call (genbid) or a suit (gencall) from the seat whose move it is:
 * made, or a fault with the bot's words as evidence.
 */
static void
match_answer_auction(struct match *m, struct seat *s, enum pend_kind kind,
    int ok, const char *text, size_t len, int64_t us)
{
	char	 ev[160];
	int	 i = seat_index(s), v, e;

	if (!ok) {
		snprintf(ev, sizeof(ev), "refused to %s: ?%.100s",
		    kind == PEND_GENBID ? "bid" : "call", text);
		match_fault(m, s, "refused", ev, us);
	} else if (kind == PEND_GENBID &&
	    botproto_parse_bid(text, len, &v) == -1) {
		snprintf(ev, sizeof(ev), "not a call: =%.100s", text);
		match_fault(m, s, "illegal", ev, us);
	} else if (kind == PEND_GENCALL &&
	    botproto_parse_suit(text, len, &v) == -1) {
		snprintf(ev, sizeof(ev), "not a suit: =%.100s", text);
		match_fault(m, s, "illegal", ev, us);
	} else if ((e = kind == PEND_GENBID ?
	    bri_deal_bid_check(&m->bm.deal, i, v) :
	    bri_deal_call_check(&m->bm.deal, i, v)) != BRI_OK) {
		snprintf(ev, sizeof(ev), "%s: =%.100s", bri_strerror(e), text);
		match_fault(m, s, "illegal", ev, us);
	} else if (kind == PEND_GENBID)
		match_bid(m, i, v, us / 1000, 0);
	else
		match_call(m, i, v, us / 1000, 0);
}

/*
 * Log an answer of seat s that its receipt's hash counts and no move row
 * will hold (refd-log(5), answers): kind "late" (after its move's
 * time-out), "note" (to a notification, other than a bare '='), "move"
 * (to a move that becomes none: it forfeited, or came out of turn).
 * Only while the match plays, and only for a line of its transcript.
 * 0, or -1 when the log failed (and the match is aborted).
 */
static int
match_log_answer(struct match *m, struct seat *s, const char *kind, int ok,
    const char *text, int64_t us)
{
	char		 raw[BOTPROTO_MAXLINE + 2];
	long long	 line = seat_answer_line(s);

	if (m->state != MATCH_PLAYING || line < 1)
		return 0;
	util_format(raw, sizeof(raw), "%c%s", ok ? '=' : '?', text);
	if (db_answer(logdb, &m->dbm, m->bm.ndeals, seat_index(s), line, kind,
	    raw, (int)(us / 1000)) == -1) {
		match_logfail(m);
		return -1;
	}
	return 0;
}

/* An answer to a move read after its time-out: chained, never played. */
static void
match_late(void *arg, struct seat *s, enum pend_kind kind, int ok,
    const char *text, int64_t us)
{
	(void)kind;
	(void)match_log_answer(arg, s, "late", ok, text, us);
}

/* An answer from a seat: hello, a move, or an acknowledged note. */
static void
match_answer(void *arg, struct seat *s, enum pend_kind kind, int ok,
    const char *text, int64_t us)
{
	struct match	*m = arg;
	char		 ev[160], raw[BOTPROTO_MAXLINE + 2];
	bri_card	 c;
	size_t		 len;
	int		 e;

	switch (kind) {
	case PEND_KNOWN:
		if (m->state == MATCH_WAITING && botproto_known_refused(raw,
		    sizeof(raw), ok, text, seat_index(s),
		    m->conf.bots[seat_index(s)], m->conf.opt.variant) !=
		    NULL) {
			match_finish(m, MATCH_ABORTED, "aborted", raw);
			return;
		}
		/* FALLTHROUGH */
	case PEND_NAME:
	case PEND_VERSION:
		if (m->state == MATCH_WAITING && ++m->hello ==
		    (2 + botproto_nknown(m->conf.opt.variant)) * m->nseats)
			match_hello_done(m);
		return;
	case PEND_GENPLAY:
	case PEND_GENBID:
	case PEND_GENCALL:
		break;
	default:
		/* '=' or '?' to a note is never a fault; not bare, logged */
		if (!ok || text[0] != '\0')
			(void)match_log_answer(m, s, "note", ok, text, us);
		return;
	}
	if (m->state != MATCH_PLAYING || seat_index(s) != m->bm.deal.turn ||
	    m->bm.deal.phase != match_phase_of(kind)) {
		(void)match_log_answer(m, s, "move", ok, text, us);
		return;
	}
	if (m->conf.bank_ms > 0)
		m->bank_us[seat_index(s)] -= us;
	len = strcspn(text, " \n");
	/* the answer as the bot gave it, chained with what it led to */
	util_format(raw, sizeof(raw), "%c%s", ok ? '=' : '?', text);
	m->dbm.answer = raw;
	if (kind != PEND_GENPLAY)
		match_answer_auction(m, s, kind, ok, text, len, us);
	else if (!ok) {
		snprintf(ev, sizeof(ev), "refused to play: ?%.100s", text);
		match_fault(m, s, "refused", ev, us);
	} else if (bri_card_parse(text, len, &c) != BRI_OK) {
		snprintf(ev, sizeof(ev), "not a card: =%.100s", text);
		match_fault(m, s, "illegal", ev, us);
	} else if ((e = bri_deal_check(&m->bm.deal, seat_index(s), c)) !=
	    BRI_OK) {
		snprintf(ev, sizeof(ev), "%s: =%.100s", bri_strerror(e), text);
		match_fault(m, s, "illegal", ev, us);
	} else
		match_apply(m, seat_index(s), c, us / 1000, 0);
	m->dbm.answer = NULL;
}


/*
 * A seat faulted, its time us (-1: the time since the move was asked).
 * Under "fallback" a move fault of a seat that can still be spoken to
 * costs a fallback card, until max_faults; anything else forfeits the
 * match.  The fault is logged first, with its evidence.
 */
static void
match_fault(void *arg, struct seat *s, const char *kind,
    const char *evidence, int64_t us)
{
	struct match	*m = arg;
	char		 action[32], res[16], why[300], cs[BRI_CARD_STRLEN];
	char		 ev[160];
	bri_card	 c = BRI_NOCARD;
	int		 i = seat_index(s), ms, fallback, phase, suit = 0;

	/* the end is logged: nothing of the seats' counts any more */
	if (m->state == MATCH_ENDING)
		return;
	ms = (int)((us >= 0 ? us : util_now_us() - m->ask_us) / 1000);
	m->faults[i]++;
	fallback = m->conf.policy == POLICY_FALLBACK && !seat_broken(s) &&
	    m->state == MATCH_PLAYING && i == m->bm.deal.turn &&
	    m->faults[i] < m->conf.max_faults;
	phase = m->bm.deal.phase;
	if (fallback && phase == BRI_PHASE_AUCTION)
		snprintf(action, sizeof(action), "fallback pass");
	else if (fallback && phase == BRI_PHASE_CALL) {
		suit = botproto_fallback_suit(&m->bm.deal, i);
		snprintf(action, sizeof(action), "fallback suit %c",
		    bri_suit_letter(suit));
	} else if (fallback) {
		c = botproto_fallback(&m->bm.deal, i);
		snprintf(action, sizeof(action), "fallback %s",
		    bri_card_format(c, cs));
	} else
		snprintf(action, sizeof(action), "forfeit");
	util_printable(ev, sizeof(ev), evidence, strlen(evidence));
	/* a move answer that forfeits is held by no move row */
	if (!fallback && m->dbm.answer != NULL && match_log_answer(m, s,
	    "move", m->dbm.answer[0] == '=', m->dbm.answer + 1,
	    us >= 0 ? us : 0) == -1)
		return;
	if (db_fault(logdb, &m->dbm, m->bm.ndeals, i, kind, ev, ms,
	    action) == -1) {
		match_logfail(m);
		return;
	}
	match_emit(m, "fault seat=%d kind=%s action=%s evidence=%s", i, kind,
	    action, ev);
	if (fallback) {
		if (phase == BRI_PHASE_AUCTION)
			match_bid(m, i, BRI_PASS, ms, 1);
		else if (phase == BRI_PHASE_CALL)
			match_call(m, i, suit, ms, 1);
		else
			match_apply(m, i, c, ms, 1);
		return;
	}
	snprintf(res, sizeof(res), "forfeit%d", i);
	snprintf(why, sizeof(why), "seat %d (%s): %s: %s", i, m->conf.bots[i],
	    kind, ev);
	match_finish(m, MATCH_DONE, res, why);
}

/*
 * Log seat's play of c and what follows from it (a Joker, a trick, the
 * deal's end), all standing or falling together: one savepoint in the
 * loop pass's transaction.  A play
 * that leads to nothing more is one row, which stands or falls alone.
 * Returns 0, or -1 with nothing of it logged.
 */
static int
match_log_play(struct match *m, int seat, bri_card c, int trick,
    int64_t ms, int fault, const struct bri_event *ev)
{
	int64_t	*t;

	/* what a worker reports, without reading the plays back */
	if (m->conf.keep_times && !fault && m->ntimes >= 0) {
		if (m->ntimes == m->captimes && (t = reallocarray(m->times,
		    m->captimes ? 2 * m->captimes : 64, sizeof(*t))) != NULL) {
			m->times = t;
			m->captimes = m->captimes ? 2 * m->captimes : 64;
		}
		if (m->ntimes < m->captimes)
			m->times[m->ntimes++] = (int64_t)seat << 32 | (int)ms;
		else
			m->ntimes = -1;
	}
	if (ev->joker == BRI_NOSEAT && !ev->trick_done && !ev->deal_over)
		return db_play(logdb, &m->dbm, m->bm.ndeals, m->nplays++,
		    trick, seat, c, (int)ms, fault);
	if (db_begin(logdb, &m->dbm) == -1 ||
	    db_play(logdb, &m->dbm, m->bm.ndeals, m->nplays++, trick, seat, c,
	    (int)ms, fault) == -1 ||
	    (ev->joker != BRI_NOSEAT &&
	    db_joker(logdb, &m->dbm, m->bm.ndeals, ev->joker) == -1) ||
	    (ev->trick_done && db_trick(logdb, &m->dbm, m->bm.ndeals, trick,
	    ev->trick_winner, ev->trick_points) == -1) ||
	    (ev->deal_over && db_deal_end(logdb, &m->dbm, &m->bm) == -1) ||
	    db_commit(logdb) == -1) {
		db_rollback(logdb);
		return -1;
	}
	return 0;
}

/*
 * Play card c for seat: apply, log, then tell every seat.  When this is
 * the only match playing, a play that ends no deal, comes of no fault
 * and leads to a plain genplay is logged once that genplay is written
 * (seat_push()), so that the next bot thinks while refd logs.  Not
 * beside other matches: a write in the middle of a loop pass wakes its
 * bot while refd still works, and 64 concurrent matches ran 14% slower
 * so, where the pass's writes at its end let refd work in one go.  The
 * row is in the same group of writes as ever, committed as the
 * durability policy says, and lines leave before their rows are
 * committed anyway when a group spans passes (not with commit_ms 0): a
 * failure to log it aborts the match, as a lost group does.  A deal's
 * end is logged before any line of it leaves.
 */
static void
match_apply(struct match *m, int seat, bri_card c, int64_t ms, int fault)
{
	struct bri_event ev;
	struct bri_view	 v;
	struct bri_deal	*d = &m->bm.deal;
	char		 cs[BRI_CARD_STRLEN], pl[BOTPROTO_MAXLINE];
	char		 jk[BOTPROTO_MAXLINE], tr[BOTPROTO_MAXLINE];
	int		 i, later, limit, next, own, trick = d->trick;
	int		 showpartner =
			    bri_variant_info(m->conf.opt.variant)->showpartner;

	if (bri_match_play(&m->bm, seat, c, &ev) != BRI_OK) {
		match_finish(m, MATCH_ABORTED, "aborted", "internal error");
		return;
	}
	later = nplaying == 1 && !ev.deal_over && !fault &&
	    d->phase == BRI_PHASE_PLAY && match_limit_ms(m, d->turn) > 0 &&
	    db_group_spans(logdb);
	if (!later && match_log_play(m, seat, c, trick, ms, fault,
	    &ev) == -1) {
		match_logfail(m);
		return;
	}
	match_emit(m, "play %d %s", seat, bri_card_format(c, cs));
	if (ev.joker != BRI_NOSEAT)
		match_emit(m, "joker %d", ev.joker);
	if (ev.partner != BRI_NOSEAT)
		match_emit(m, "partner %d", ev.partner);
	if (ev.trick_done)
		match_emit(m, "trick %d %d", ev.trick_winner, ev.trick_points);
	/*
	 * The play, the Joker and the trick are the same line to every
	 * seat: made once, from any seat's view.  A seat's own view is
	 * built only for what differs from seat to seat.
	 */
	own = ev.partner != BRI_NOSEAT || ev.ndraws > 0 ||
	    (ev.stock_empty && showpartner) || ev.deal_over;
	bri_view_build(&m->bm, 0, &v);
	botproto_format(BOTMSG_PLAY, &v, 0, pl, sizeof(pl));
	if (ev.joker != BRI_NOSEAT)
		botproto_format(BOTMSG_JOKER, &v, 0, jk, sizeof(jk));
	if (ev.trick_done)
		botproto_format(BOTMSG_TRICK, &v, 0, tr, sizeof(tr));
	for (i = 0; i < m->nseats; i++) {
		struct seat *s = m->seat[i];

		if (own)
			bri_view_build(&m->bm, i, &v);
		seat_send(s, PEND_NOTE, NOTE_MS(m), "%s", pl);
		/* the same line to all, the holder too, in the same place */
		if (ev.partner != BRI_NOSEAT)
			match_tell(m, s, BOTMSG_PARTNER_IS, &v);
		if (ev.joker != BRI_NOSEAT)
			seat_send(s, PEND_NOTE, NOTE_MS(m), "%s", jk);
		if (ev.trick_done)
			seat_send(s, PEND_NOTE, NOTE_MS(m), "%s", tr);
		if (ev.ndraws > 0)
			match_tell(m, s, BOTMSG_DRAW, &v);
		if (ev.stock_empty && showpartner)
			match_tell(m, s, BOTMSG_PARTNER, &v);
		if (ev.deal_over)
			match_tell(m, s, BOTMSG_DEAL_END, &v);
	}
	if (!later) {
		match_deal_over(m, &ev);
		return;
	}
	/* the row holds this move's limit; match_ask() sets the next's */
	limit = m->dbm.limit_ms;
	match_ask(m);
	seat_push(m->seat[d->turn]);
	/*
	 * The commit that push made due may have lost the group, and the
	 * match with it, its end logged: this play is one of those lost,
	 * and logged now it would follow the end.
	 */
	if (match_over(m))
		return;
	next = m->dbm.limit_ms;
	m->dbm.limit_ms = limit;
	if (match_log_play(m, seat, c, trick, ms, fault, &ev) == -1) {
		match_logfail(m);
		return;
	}
	m->dbm.limit_ms = next;
}

/*
 * After a move: the deal's end to the watchers, then the match's end,
 * the next deal or the next move.
 */
static void
match_deal_over(struct match *m, const struct bri_event *ev)
{
	const struct bri_variant_info *vi =
			    bri_variant_info(m->conf.opt.variant);
	struct bri_view	 v;
	char		 res[16];

	if (ev->deal_over) {
		bri_view_build(&m->bm, 0, &v);
		match_emit(m, "dealend %d %s", m->bm.ndeals,
		    botproto_deal_result(&v, res, sizeof(res)));
	}
	if (ev->match_over) {
		if (m->bm.result == BRI_MATCH_DRAWN)
			snprintf(res, sizeof(res), "draw");
		else
			snprintf(res, sizeof(res), "%s%d",
			    vi->sides == BRI_SIDES_ALTERNATE ? "team" :
			    "seat", m->bm.winner);
		/* a fixed-length match (chiamata5) may end level */
		match_finish(m, MATCH_DONE, res,
		    m->bm.result == BRI_MATCH_DRAWN &&
		    vi->matchscore != BRI_MSCORE_FIXED ? "deal cap reached" :
		    "played out");
	} else if (ev->deal_over)
		match_deal(m);
	else
		match_ask(m);
}

/* The receipt of seat i: the log's signed head, then its transcript. */
static const char *
match_receipt(char *buf, size_t len, const char *receipt, int i,
    const char *tx)
{
	snprintf(buf, len, "%.399s transcript=%d:%.171s", receipt, i, tx);
	return buf;
}

/*
 * Seat makes call rank (BRI_PASS: a pass) in the auction: apply, log,
 * then tell every seat the same line.  Five passes end the deal void.
 */
static void
match_bid(struct match *m, int seat, int rank, int64_t ms, int fault)
{
	struct bri_event ev;
	struct bri_view	 v;
	int		 i, seq = m->bm.deal.ncalls;

	if (bri_match_bid(&m->bm, seat, rank, &ev) != BRI_OK) {
		match_finish(m, MATCH_ABORTED, "aborted", "internal error");
		return;
	}
	if (db_begin(logdb, &m->dbm) == -1 ||
	    db_bid(logdb, &m->dbm, m->bm.ndeals, seq, seat, rank, (int)ms,
	    fault) == -1 ||
	    (ev.deal_over && db_deal_end(logdb, &m->dbm, &m->bm) == -1) ||
	    db_commit(logdb) == -1) {
		db_rollback(logdb);
		match_logfail(m);
		return;
	}
	if (rank == BRI_PASS)
		match_emit(m, "bid %d pass", seat);
	else
		match_emit(m, "bid %d %d", seat, rank);
	for (i = 0; i < m->nseats; i++) {
		bri_view_build(&m->bm, i, &v);
		match_tell(m, m->seat[i], BOTMSG_BID, &v);
		if (ev.deal_over)
			match_tell(m, m->seat[i], BOTMSG_DEAL_END, &v);
	}
	match_deal_over(m, &ev);
}

/*
 * The caller names suit: apply, log the called card with its holder
 * (the log is the referee's, never a bot's), then tell every seat the
 * called card and caller, the same line to each: who holds it is never
 * said until it is played.
 */
static void
match_call(struct match *m, int seat, int suit, int64_t ms, int fault)
{
	struct bri_view	 v;
	char		 cs[BRI_CARD_STRLEN];
	int		 i;

	if (bri_match_call(&m->bm, seat, suit) != BRI_OK) {
		match_finish(m, MATCH_ABORTED, "aborted", "internal error");
		return;
	}
	if (db_begin(logdb, &m->dbm) == -1 ||
	    db_called(logdb, &m->dbm, m->bm.ndeals, m->bm.deal.ncalls, seat,
	    m->bm.deal.called, m->bm.deal.partner, (int)ms, fault) == -1 ||
	    db_commit(logdb) == -1) {
		db_rollback(logdb);
		match_logfail(m);
		return;
	}
	match_emit(m, "called %s %d",
	    bri_card_format(m->bm.deal.called, cs), seat);
	for (i = 0; i < m->nseats; i++) {
		bri_view_build(&m->bm, i, &v);
		match_tell(m, m->seat[i], BOTMSG_CALLED, &v);
	}
	match_ask(m);
}

/*
 * A match's end as logged: what it announces once the log holds it on
 * the disk (match_announce()).  Each seat's transcript hashes are those
 * the end chained: answers read later are outside them.
 */
struct match_end {
	enum match_state st;
	char		 result[16];
	char		 reason[256];
	char		 tx[BRI_MAXSEATS][CHAIN_TXMAX];
};

/*
 * End the match: log the result durably first, then enter the state
 * the log holds, tell the seats (with the seed and the final chain link)
 * and let them go.  A result the log refused is never announced: the
 * match ends aborted instead.  Outside a tournament, with other matches
 * playing, the end's sync runs on the log's thread (among many, after
 * the commit of the group it joined): the match is ending meanwhile,
 * hears nothing more from its seats, and is announced when the sync is
 * done (match_end_go()).  A tournament's match is synced
 * here: its standings and its SPRT are read from the log at each end.
 */
static void
match_finish(struct match *m, enum match_state st, const char *result,
    const char *reason)
{
	struct match_end here, *e = &here, *kept;
	char		 txs[BRI_MAXSEATS * (CHAIN_TXMAX + 1)];
	int		 i, rc, async;

	if (match_over(m) || m->state == MATCH_ENDING)
		return;
	/* kept while the sync runs; without the memory, synced here */
	if (m->conf.tournament == 0 && !refd_stopping() &&
	    (kept = malloc(sizeof(*kept))) != NULL)
		e = kept;
	async = e != &here;
	e->st = st;
	snprintf(e->result, sizeof(e->result), "%s", result);
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	if (m->wait_timer != NULL)
		evtimer_del(m->wait_timer);
	/*
	 * Each seat's transcript hashes up to here, chained with the end:
	 * what is sent from now on (match_end) and answers read later are
	 * outside them (refd-protocol(7), RECEIPTS).
	 */
	txs[0] = '\0';
	for (i = 0; i < m->nseats; i++) {
		if (m->seat[i] != NULL)
			seat_transcript(m->seat[i], e->tx[i],
			    sizeof(e->tx[i]));
		else
			snprintf(e->tx[i], sizeof(e->tx[i]), "-");
		snprintf(txs + strlen(txs), sizeof(txs) - strlen(txs), "%s%s",
		    i > 0 ? "," : "", e->tx[i]);
	}
	m->dbm.transcripts = txs;
	/* an aborted match ends on the match points the log holds */
	rc = (async ? db_match_end_async : db_match_end)(logdb, &m->dbm,
	    e->result, e->reason, st == MATCH_ABORTED ? m->dbm.mpoints :
	    m->bm.mpoints, m->nseats);
	m->dbm.transcripts = NULL;
	if (rc == -1) {
		/*
		 * The group this match wrote in may have been lost on the
		 * way, and match_log_lost() has ended the match already.
		 */
		if (e != &here) {
			memcpy(here.tx, e->tx, sizeof(here.tx));
			free(e);
		}
		if (match_over(m))
			return;
		log_warnx("match %lld: result not logged: %s",
		    (long long)m->id, db_error(logdb));
		snprintf(here.reason, sizeof(here.reason), "log failure at the "
		    "end (%s): %s", result, db_error(logdb));
		snprintf(here.result, sizeof(here.result), "aborted");
		m->end_unlogged = 1;	/* match_log_ends() tries again */
		here.st = MATCH_ABORTED;
		match_announce(m, &here);
		return;
	}
	if (async && db_match_unsynced(logdb, &m->dbm)) {
		m->end = e;
		match_enter(m, MATCH_ENDING);
		return;
	}
	match_announce(m, e);
	if (e != &here)
		free(e);
}

/*
 * Announce the end e that the log holds on the disk: enter its state,
 * tell the seats (with the seed and the final chain link), let them go,
 * then the watchers and the observers.
 */
static void
match_announce(struct match *m, const struct match_end *e)
{
	char	 end[BOTPROTO_MAXLINE], seed[BRI_SEED_STRLEN];
	char	 chain[2 * DB_HASHLEN + 1], head[2 * DB_HASHLEN + 1];
	char	 key[2 * DB_HASHLEN + 1], receipt[400], rs[600], line[512];
	int	 i;

	snprintf(m->result, sizeof(m->result), "%s", e->result);
	snprintf(m->reason, sizeof(m->reason), "%s", e->reason);
	match_enter(m, e->st);
	log_info("match %lld: %s (%s)", (long long)m->id, m->result,
	    m->reason);
	util_hex(m->dbm.chain, DB_HASHLEN, chain);
	/* the receipt: the log's signed head at this end, and its key */
	receipt[0] = '\0';
	if (!m->end_unlogged && m->dbm.sig[0] != '\0' &&
	    db_public_key(logdb, key, sizeof(key)) == 0) {
		util_hex(m->dbm.head, DB_HASHLEN, head);
		snprintf(receipt, sizeof(receipt), "head=%lld:%s sig=%s key=%s",
		    m->dbm.head_no, head, m->dbm.sig, key);
	}
	botproto_match_end_text(end, sizeof(end), m->result, m->bm.mpoints,
	    m->nseats, m->conf.tournament != 0 || m->conf.hide_seed ? "-" :
	    bri_seed_format(&m->bm.seed, seed), chain,
	    receipt[0] != '\0' ? receipt : NULL);
	for (i = 0; i < m->nseats; i++) {
		struct seat *s = m->seat[i];

		if (s == NULL)
			continue;
		m->seat[i] = NULL;
		/* each seat's receipt ends with its own transcript hashes */
		if (receipt[0] != '\0' && strcmp(e->tx[i], "-") != 0)
			botproto_match_end_text(end, sizeof(end), m->result,
			    m->bm.mpoints, m->nseats, m->conf.tournament != 0 ||
			    m->conf.hide_seed ?
			    "-" : bri_seed_format(&m->bm.seed, seed), chain,
			    match_receipt(rs, sizeof(rs), receipt,
			    i, e->tx[i]));
		if (seat_usable(s))
			seat_send(s, PEND_NOTE, NOTE_MS(m), "%s", end);
		seat_release(s);
	}
	if (!TAILQ_EMPTY(&m->watchers)) {
		snprintf(line, sizeof(line), "end %s %s", m->result,
		    m->reason);
		match_event(m, line);
	}
	for (i = 0; i < nobservers; i++)
		if (observers[i].end != NULL)
			observers[i].end(m);
}

/* The sync of m's end is done: announce it. */
static void
match_end_go(struct match *m)
{
	struct match_end *e = m->end;

	m->end = NULL;
	match_announce(m, e);
	free(e);
}

/*
 * The log failed while m's end was synced: the result may not be on the
 * disk, and is never announced; the match ends aborted, as when its end
 * could not be logged.
 */
static void
match_end_lost(struct match *m)
{
	struct match_end *e = m->end;
	char		 why[256];

	log_warnx("match %lld: result not synced: %s", (long long)m->id,
	    db_error(logdb));
	snprintf(why, sizeof(why), "log failure at the end (%s): %s",
	    e->result, db_error(logdb));
	snprintf(e->reason, sizeof(e->reason), "%s", why);
	snprintf(e->result, sizeof(e->result), "aborted");
	e->st = MATCH_ABORTED;
	m->end_unlogged = 1;
	match_end_go(m);
}

/*
 * refd stops: the ends whose syncs are under way are synced here and
 * announced at once, while their seats can still be told.
 */
void
match_ends_now(void)
{
	struct match	*m;
	int		 lost = 0, any = 0;

	TAILQ_FOREACH(m, &matches, entry)
		any |= m->state == MATCH_ENDING;
	if (!any)
		return;
	if (db_sync_now(logdb) == -1)
		lost = 1;
	TAILQ_FOREACH(m, &matches, entry)
		if (m->state == MATCH_ENDING) {
			if (lost)
				match_end_lost(m);
			else
				match_end_go(m);
		}
}

/* The match whose log record dm is (struct match holds it). */
static struct match *
match_of(struct db_match *dm)
{
	return (struct match *)(void *)((char *)dm -
	    offsetof(struct match, dbm));
}

/*
 * The log lost the rows this match wrote in the last loop pass (a group
 * that could not be committed, see db_group_mode()): what its seats were
 * to hear of them is dropped unsent, and the match stops as at any log
 * failure.  dm is the match's log record, inside struct match.
 */
void
match_log_lost(struct db_match *dm)
{
	struct match	*m = match_of(dm);
	int		 i;

	for (i = 0; i < m->nseats; i++)
		if (m->seat[i] != NULL)
			seat_drop_unsent(m->seat[i]);
	if (m->state == MATCH_ENDING)
		match_end_lost(m);
	else
		match_logfail(m);
}

/* The log's syncs have come further: the ends they kept are announced. */
void
match_log_synced(void)
{
	struct match	*m, *next;

	TAILQ_FOREACH_SAFE(m, &matches, entry, next)
		if (m->state == MATCH_ENDING &&
		    !db_match_unsynced(logdb, &m->dbm))
			match_end_go(m);
}

/*
 * The log failed in a way that touches every match (a sync of it): each
 * running match loses what its seats have not been sent and stops.
 */
void
match_log_lost_all(void)
{
	struct match	*m;

	TAILQ_FOREACH(m, &matches, entry)
		if (!match_over(m))
			match_log_lost(&m->dbm);
}

/* The operator stops a match: it ends aborted, with the reason given. */
void
match_stop(struct match *m, const char *why)
{
	match_finish(m, MATCH_ABORTED, "aborted", why);
}

/*
 * Free a finished match.  Its observers heard of its end, and so let go
 * of it (ctl.c's watchers and waiters among them).
 */
void
match_free(struct match *m)
{
	TAILQ_REMOVE(&matches, m, entry);
	if (m->wait_timer != NULL)
		event_free(m->wait_timer);
	free(m->end);
	free(m->times);
	free(m);
}
