/*
 * worker.c: the lease loop of a cluster's worker (refd-cluster(7)).
 *
 * A worker says who it is (its key is registered the first time), looks
 * for a tournament whose bots it runs as the submission names them,
 * leases a batch of its slots (whole duplicate sets, sized to last about
 * cluster_batch_ms at the pace its matches have had), plays them as
 * matches of its own log under its own sandbox and clocks, and reports
 * each result, the match's record (tstand_record()) with its signed end
 * head, fenced by the lease's number.  It heartbeats at a quarter of the
 * lease's time.  A lease the database says is over, or one not renewed
 * for its whole time, stops its matches: their results would be
 * refused.  A report whose answer is lost is sent again: the database
 * takes it once.  A worker not heard for two heartbeats takes no new
 * slot until a heartbeat is answered.
 *
 * Everything goes through one connection (pgconn.c), one query at a
 * time, chosen at each tick by what is most urgent: a report, then a
 * heartbeat, then a lease.  Matches' ends come through the observers
 * (match_observe()), and the next matches start at the next tick.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <libpq-fe.h>
#include <sodium.h>

#include "refd.h"
#include "bots.h"
#include "db.h"
#include "log.h"
#include "match.h"
#include "pgconn.h"
#include "tdef.h"
#include "tourney.h"
#include "tstand.h"
#include "util.h"
#include "worker.h"

#define WORKER_TICK_MS		100
#define WORKER_POLL_MS		1000	/* between looks when idle */
#define WORKER_RETRIES		3	/* aborts of a slot before it is
					   left to its lease's expiry */
#define WORKER_MAXBATCH		10000
#define WORKER_MAXREFUSED	64
#define WORKER_IDENTS		(TDEF_MAXBOTS * (REFD_NAMELEN + \
				    BOTS_IDENTLEN + 2))

enum wslot_state { WS_TODO, WS_RUNNING, WS_PLAYED, WS_DONE };

/* A leased slot. */
struct wslot {
	int		 slot;
	int64_t		 lease;
	struct tslot	 ts;		/* its seats and seed */
	enum wslot_state state;
	int64_t		 match;		/* its match in this refd's log */
	int		 tries;
	int64_t		 started_us;
	char		*record;	/* WS_PLAYED: what is reported */
	char		*times;		/* and its thinking times */
	long long	 head_no;
	char		 head[2 * DB_HASHLEN + 1];
	char		 sig[129];
};

enum wquery { WQ_NONE, WQ_HELLO, WQ_WORK, WQ_LEASE, WQ_BEAT, WQ_REPORT,
    WQ_RECORDS, WQ_DECIDE };

static struct worker {
	struct pgconn	*pg;
	char		 name[REFD_NAMELEN + 1];
	char		 key[2 * 32 + 1];
	int		 hello;		/* said on this connection */
	int64_t		 heard_us;	/* the database's last answer */
	int64_t		 beat_us;	/* the last heartbeat answered */
	int64_t		 poll_us;	/* the last look for work */
	int64_t		 wait_us;	/* nothing asked before this */
	/* the tournament played, or tid 0 */
	int64_t		 tid;
	struct tdef	 def;
	int		 lease_ms;
	char		 idents[WORKER_IDENTS];
	int64_t		 refused[WORKER_MAXREFUSED];	/* bots differ */
	int		 nrefused;
	struct wslot	*slots;
	int		 nslots;
	int		 nrunning;
	struct wslot	*starting;	/* its match_start() under way */
	int64_t		 leases[16];
	int		 nleases;
	/* a gauntlet's SPRT, carried over the results so far */
	struct tslot	*sched;		/* the schedule's shape */
	int		 nsched;
	struct st_sprt	 sprt;
	int		 sprt_pos;	/* slots it has read */
	int		 sprt_dirty;	/* results since it read them */
	char		 verdict[400];	/* decided: to tell the database */
	double		 pace_ms;	/* a match's mean time */
	int		 paced;
	int		 reported, refusedn;	/* counts, for status */
	struct tstand_cache stmts;	/* each match read back from the log */
	enum wquery	 q;		/* under way */
	int64_t		 qlease;	/* WQ_REPORT: its lease and slot */
	int		 qslot;
	struct event	*tick;
} w;

static void	worker_tick(evutil_socket_t, short, void *);

/* Tick at the next step. */
static void
worker_soon(void)
{
	if (w.tick != NULL)
		event_active(w.tick, EV_TIMEOUT, 1);
}

/* The query deadline: a quarter of the lease, within reason. */
static int
worker_timeout(void)
{
	int	 ms = w.lease_ms > 0 ? w.lease_ms / 4 : 5000;

	return ms < 1000 ? 1000 : ms > 10000 ? 10000 : ms;
}

/* Has tid been refused here? */
static int
worker_refused(int64_t tid)
{
	int	 i;

	for (i = 0; i < w.nrefused; i++)
		if (w.refused[i] == tid)
			return 1;
	return 0;
}

/* Refuse tid for good (its bots are not the submission's). */
static void
worker_refuse(int64_t tid)
{
	if (w.nrefused < WORKER_MAXREFUSED)
		w.refused[w.nrefused++] = tid;
}

/* Drop the slot state of the tournament played, stopping its matches. */
static void
worker_drop(const char *why)
{
	struct match	*m;
	int		 i;

	for (i = 0; i < w.nslots; i++) {
		if (w.slots[i].state == WS_RUNNING &&
		    (m = match_find(w.slots[i].match)) != NULL &&
		    !match_over(m))
			match_stop(m, why);
	}
	for (i = 0; i < w.nslots; i++) {
		free(w.slots[i].record);
		free(w.slots[i].times);
	}
	free(w.slots);
	w.slots = NULL;
	w.nslots = w.nrunning = 0;
	w.nleases = 0;
	if (w.tid != 0)
		tdef_free(&w.def);
	free(w.sched);
	w.sched = NULL;
	w.nsched = w.sprt_pos = w.sprt_dirty = 0;
	w.verdict[0] = '\0';
	w.tid = 0;
}

/* Forget lease l: stop its matches; its played slots are still told. */
static void
worker_lease_over(int64_t l, const char *why)
{
	struct match	*m;
	int		 i;

	for (i = 0; i < w.nleases; i++)
		if (w.leases[i] == l) {
			w.leases[i] = w.leases[--w.nleases];
			break;
		}
	for (i = 0; i < w.nslots; i++) {
		if (w.slots[i].lease != l)
			continue;
		if (w.slots[i].state == WS_TODO)
			w.slots[i].state = WS_DONE;
		else if (w.slots[i].state == WS_RUNNING &&
		    (m = match_find(w.slots[i].match)) != NULL &&
		    !match_over(m))
			match_stop(m, why);
	}
	log_info("cluster: lease %" PRId64 " over: %s", l, why);
}

/* Free the batch once every slot of it is done with. */
static void
worker_compact(void)
{
	int	 i, j;

	for (i = j = 0; i < w.nslots; i++) {
		if (w.slots[i].state == WS_DONE && w.starting != &w.slots[i]) {
			free(w.slots[i].record);
			free(w.slots[i].times);
			continue;
		}
		w.slots[j++] = w.slots[i];
	}
	w.nslots = j;
	/* a lease with no slot left here is over for this worker */
	for (i = 0; i < w.nleases; ) {
		for (j = 0; j < w.nslots; j++)
			if (w.slots[j].lease == w.leases[i])
				break;
		if (j == w.nslots)
			w.leases[i] = w.leases[--w.nleases];
		else
			i++;
	}
}

/* Start the batch's matches up to the tournament's concurrency. */
static void
worker_fill(void)
{
	struct match_conf mc;
	struct wslot	*s;
	struct match	*m;
	char		 err[256];
	int		 i, j, clash;

	for (i = 0; i < w.nslots && w.nrunning < w.def.concurrency &&
	    !refd_stopping(); i++) {
		s = &w.slots[i];
		if (s->state != WS_TODO)
			continue;
		/* one seed at a time: a duplicate set's arrangements */
		for (j = 0, clash = 0; j < w.nslots; j++)
			if (w.slots[j].state == WS_RUNNING &&
			    memcmp(&w.slots[j].ts.seed, &s->ts.seed,
			    sizeof(s->ts.seed)) == 0)
				clash = 1;
		if (clash)
			continue;
		tourney_slot_conf(&w.def, &s->ts, &mc);
		mc.keep_times = 1;	/* reported without reading them back */
		s->state = WS_RUNNING;
		s->match = 0;
		s->started_us = util_now_us();
		w.nrunning++;
		w.starting = s;
		m = match_start(&mc, err, sizeof(err));
		w.starting = NULL;
		if (m == NULL) {
			log_warnx("cluster: slot %d: %s", s->slot, err);
			if (s->state == WS_RUNNING) {
				w.nrunning--;
				s->state = ++s->tries >= WORKER_RETRIES ?
				    WS_DONE : WS_TODO;
			}
			return;
		}
		if (s->state == WS_RUNNING)
			s->match = m->id;
		log_debug("cluster: slot %d of lease %" PRId64 ": match %lld",
		    s->slot, s->lease, (long long)m->id);
	}
}

/* A match ended: the slot it played is to be reported, or replayed. */
void
worker_match_done(struct match *m)
{
	struct wslot	*s = NULL;
	struct tstand	 ts;
	char		 err[256], *rec, *times;
	double		 ms;
	int		 i;

	if (w.pg == NULL || m->conf.tournament != 0)
		return;
	if (w.starting != NULL && w.starting->match == 0)
		s = w.starting;
	for (i = 0; s == NULL && i < w.nslots; i++)
		if (w.slots[i].state == WS_RUNNING &&
		    w.slots[i].match == m->id)
			s = &w.slots[i];
	if (s == NULL || s->state != WS_RUNNING)
		return;
	s->match = m->id;
	w.nrunning--;
	worker_soon();
	if (m->state != MATCH_DONE || m->end_unlogged ||
	    m->dbm.sig[0] == '\0') {
		s->state = ++s->tries >= WORKER_RETRIES ? WS_DONE : WS_TODO;
		if (s->state == WS_DONE)
			log_warnx("cluster: slot %d aborted %d times, left to "
			    "its lease's expiry: %s", s->slot, s->tries,
			    m->reason);
		return;
	}
	if ((rec = malloc(TSTAND_RECMAX + 1)) == NULL ||
	    tstand_load_match(db_handle(logdb), &w.stmts, m->id, &w.def,
	    s->slot, &ts, err, sizeof(err)) == -1) {
		log_warnx("cluster: slot %d: match %lld: %s", s->slot,
		    (long long)m->id, rec == NULL ? "out of memory" : err);
		free(rec);
		s->state = WS_DONE;
		return;
	}
	if (tstand_record(&ts, 0, rec, TSTAND_RECMAX + 1) == -1) {
		log_warnx("cluster: slot %d: record too long", s->slot);
		tstand_free(&ts);
		free(rec);
		s->state = WS_DONE;
		return;
	}
	tstand_free(&ts);
	/* the time report's figures, summed exactly by refctl cluster */
	if ((times = malloc(TSTAND_TIMESMAX + 1)) == NULL ||
	    tstand_times_record(db_handle(logdb), &w.stmts, m->id,
	    bri_variant_seats(w.def.opt.variant), m->ntimes >= 0 ? m->times :
	    NULL, m->ntimes, times, TSTAND_TIMESMAX + 1, err, sizeof(err)) ==
	    -1) {
		log_warnx("cluster: slot %d: %s", s->slot, times == NULL ?
		    "out of memory" : err);
		free(times);
		free(rec);
		s->state = WS_DONE;
		return;
	}
	s->record = rec;
	s->times = times;
	s->head_no = m->dbm.head_no;
	util_hex(m->dbm.head, DB_HASHLEN, s->head);
	snprintf(s->sig, sizeof(s->sig), "%s", m->dbm.sig);
	s->state = WS_PLAYED;
	ms = (util_now_us() - s->started_us) / 1000.0;
	w.pace_ms = w.paced ? 0.8 * w.pace_ms + 0.2 * ms : ms;
	w.paced = 1;
}

/* The text of row r, column c of res, or "". */
static const char *
worker_val(const PGresult *res, int r, int c)
{
	return PQgetisnull(res, r, c) ? "" : PQgetvalue(res, r, c);
}

/*
 * Is res the answer to the query asked, by its first column's name?  A
 * wire that duplicated a request can hand one query another's answer:
 * the connection is then dropped (it comes back), and the query is
 * asked again, as after a lost answer.
 */
static int
worker_shape(const PGresult *res, const char *col)
{
	if (res == NULL)
		return 1;
	if (PQnfields(res) >= 1 && strcmp(PQfname(res, 0), col) == 0)
		return 1;
	log_warnx("cluster: an answer out of place (%s for %s): connecting "
	    "again", PQnfields(res) >= 1 ? PQfname(res, 0) : "-", col);
	pgconn_drop(w.pg, "an answer out of place");
	return 0;
}

static void
worker_hello_cb(void *arg, const PGresult *res, const char *err)
{
	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	if (!worker_shape(res, "hello"))
		return;
	if (res == NULL) {
		log_warnx("cluster: hello: %s", err);
		w.wait_us = util_now_us() + 1000 * WORKER_POLL_MS;
		return;
	}
	w.hello = 1;
	w.heard_us = util_now_us();
	log_info("cluster: worker %s, key %.16s... registered", w.name, w.key);
}

/*
 * Take up tournament tid (definition text, lease time, the submission's
 * identities): its bots must be this refd's, with the same words and
 * the same programs.  Returns 0, or -1 (refused, and said why).
 */
static int
worker_take(int64_t tid, const char *text, int lease_ms, const char *want)
{
	struct tdef	 d;
	struct bot	*b;
	char		 name[64], err[512], id[BOTS_IDENTLEN];
	char		 mine[WORKER_IDENTS];
	const char	*p, *q;
	size_t		 n = 0;
	int		 i;

	snprintf(name, sizeof(name), "cluster tournament %" PRId64, tid);
	if (tdef_parse(text, name, &d, err, sizeof(err)) == -1) {
		log_warnx("cluster: %s", err);
		return -1;
	}
	if (tourney_take_bots(&d, name, err, sizeof(err)) == -1) {
		log_warnx("cluster: %s", err);
		tdef_free(&d);
		return -1;
	}
	mine[0] = '\0';
	for (i = 0; i < d.nbots; i++) {
		b = bots_find(d.bots[i]);
		if (b == NULL || b->kind != BOT_SPAWN || bots_identity(b->argc,
		    b->argv, id, sizeof(id), err, sizeof(err)) == -1) {
			log_warnx("cluster: %s: bot %s: %s", name, d.bots[i],
			    b == NULL ? "unknown" : b->kind != BOT_SPAWN ?
			    "not a spawned bot" : err);
			tdef_free(&d);
			return -1;
		}
		n += snprintf(mine + n, sizeof(mine) - n, "%s%s=%s",
		    i ? " " : "", d.bots[i], id);
		if (n >= sizeof(mine)) {
			tdef_free(&d);
			return -1;
		}
		/* the submission's identity of this bot */
		for (p = want; p != NULL && *p != '\0'; p = q) {
			q = strchr(p, ' ');
			if (strncmp(p, d.bots[i], strlen(d.bots[i])) == 0 &&
			    p[strlen(d.bots[i])] == '=')
				break;
			if (q != NULL)
				q++;
		}
		if (p == NULL || *p == '\0' ||
		    strncmp(p + strlen(d.bots[i]) + 1, id, strlen(id)) != 0 ||
		    (p[strlen(d.bots[i]) + 1 + strlen(id)] != ' ' &&
		    p[strlen(d.bots[i]) + 1 + strlen(id)] != '\0')) {
			log_warnx("cluster: %s: bot %s differs from the "
			    "submission's: here %s, submitted %.*s", name,
			    d.bots[i], id, p == NULL || *p == '\0' ? 1 :
			    (int)strcspn(p + strlen(d.bots[i]) + 1, " "),
			    p == NULL || *p == '\0' ? "-" :
			    p + strlen(d.bots[i]) + 1);
			tdef_free(&d);
			return -1;
		}
	}
	if (strcmp(mine, want) != 0) {
		log_warnx("cluster: %s: the bots differ from the submission's",
		    name);
		tdef_free(&d);
		return -1;
	}
	if (d.sprt) {
		/* its blocks, for the SPRT's sets; the seeds play no part */
		if (tdef_schedule(&d, &w.sched, &w.nsched, err,
		    sizeof(err)) == -1) {
			log_warnx("cluster: %s: %s", name, err);
			tdef_free(&d);
			return -1;
		}
		tstand_sprt_begin(&d, &w.sprt);
		w.sprt_pos = 0;
		w.sprt_dirty = 1;
	}
	w.tid = tid;
	w.def = d;
	w.lease_ms = lease_ms;
	snprintf(w.idents, sizeof(w.idents), "%s", mine);
	log_info("cluster: playing tournament %" PRId64 " (%s), leases of "
	    "%d ms", tid, d.name, lease_ms);
	return 0;
}

static void
worker_work_cb(void *arg, const PGresult *res, const char *err)
{
	const char	*errstr;
	int64_t		 tid;
	int		 i, found = 0;

	(void)arg;
	w.q = WQ_NONE;
	w.poll_us = util_now_us();
	worker_soon();
	if (!worker_shape(res, "w_tid"))
		return;
	if (res == NULL) {
		log_warnx("cluster: looking for work: %s", err);
		return;
	}
	w.heard_us = util_now_us();
	for (i = 0; i < PQntuples(res); i++) {
		tid = util_num(worker_val(res, i, 0), 1, INT64_MAX, &errstr);
		if (errstr != NULL)
			continue;
		if (tid == w.tid) {
			found = 1;
			break;
		}
	}
	if (w.tid != 0 && !found) {
		log_info("cluster: tournament %" PRId64 " is over", w.tid);
		worker_drop("the tournament is over");
	}
	if (w.tid != 0)
		return;
	for (i = 0; i < PQntuples(res); i++) {
		tid = util_num(worker_val(res, i, 0), 1, INT64_MAX, &errstr);
		if (errstr != NULL || worker_refused(tid))
			continue;
		if (worker_take(tid, worker_val(res, i, 1),
		    (int)util_num(worker_val(res, i, 2), 400, 3600000,
		    &errstr), worker_val(res, i, 3)) == 0)
			return;
		worker_refuse(tid);
	}
}

static void
worker_lease_cb(void *arg, const PGresult *res, const char *err)
{
	struct wslot	*s;
	const char	*errstr;
	char		 bots[256], *p, *e;
	int64_t		 l;
	int		 i, k, n;

	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	if (!worker_shape(res, "l_lease"))
		return;
	if (res == NULL) {
		log_warnx("cluster: lease: %s", err);
		w.wait_us = util_now_us() + 1000 * WORKER_POLL_MS;
		/* refused for its bots, or the database's own failure */
		if (pgconn_up(w.pg) && w.tid != 0 &&
		    strstr(err, "bots differ") != NULL) {
			worker_refuse(w.tid);
			worker_drop("its bots differ");
		}
		return;
	}
	w.heard_us = util_now_us();
	n = PQntuples(res);
	if (n == 0 || w.tid == 0) {
		/* nothing free now: look again later */
		w.wait_us = util_now_us() + 1000 * WORKER_POLL_MS;
		w.poll_us = 0;
		return;
	}
	if ((s = reallocarray(w.slots, w.nslots + n, sizeof(*s))) == NULL) {
		log_warnx("cluster: lease: out of memory");
		return;	/* it expires; others play it */
	}
	w.slots = s;
	l = util_num(worker_val(res, 0, 0), 1, INT64_MAX, &errstr);
	for (i = 0; i < n && errstr == NULL; i++) {
		s = &w.slots[w.nslots];
		memset(s, 0, sizeof(*s));
		s->lease = l;
		s->slot = (int)util_num(worker_val(res, i, 1), 0,
		    TDEF_MAXSLOTS - 1, &errstr);
		if (errstr != NULL || bri_seed_parse(worker_val(res, i, 2),
		    &s->ts.seed) != BRI_OK)
			break;
		snprintf(bots, sizeof(bots), "%s", worker_val(res, i, 3));
		for (k = 0, p = bots; k < bri_variant_seats(
		    w.def.opt.variant); k++, p = e + 1) {
			s->ts.bot[k] = (int)strtol(p, &e, 10);
			if (e == p || s->ts.bot[k] < 0 ||
			    s->ts.bot[k] >= w.def.nbots || (*e != ',' &&
			    *e != '\0'))
				break;
			if (*e == '\0') {
				k++;
				break;
			}
		}
		if (k != bri_variant_seats(w.def.opt.variant))
			break;
		s->state = WS_TODO;
		w.nslots++;
	}
	if (i < n)
		log_warnx("cluster: lease %" PRId64 ": a malformed slot", l);
	if (w.nleases < (int)(sizeof(w.leases) / sizeof(w.leases[0])))
		w.leases[w.nleases++] = l;
	w.beat_us = util_now_us();
	log_info("cluster: lease %" PRId64 ": %d slots of tournament %"
	    PRId64, l, i, w.tid);
	worker_fill();
}

static void
worker_beat_cb(void *arg, const PGresult *res, const char *err)
{
	const char	*errstr, *st;
	int64_t		 l;
	int		 i;

	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	if (!worker_shape(res, "h_lease"))
		return;
	if (res == NULL) {
		log_warnx("cluster: heartbeat: %s", err);
		return;
	}
	w.heard_us = w.beat_us = util_now_us();
	w.sprt_dirty = 1;	/* others have reported meanwhile */
	for (i = 0; i < PQntuples(res); i++) {
		l = util_num(worker_val(res, i, 0), 1, INT64_MAX, &errstr);
		st = worker_val(res, i, 1);
		if (errstr == NULL && strcmp(st, "active") != 0)
			worker_lease_over(l, st);
	}
}

static void
worker_report_cb(void *arg, const PGresult *res, const char *err)
{
	struct wslot	*s;
	const char	*a;

	int		 i;

	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	for (i = 0, s = NULL; i < w.nslots && s == NULL; i++)
		if (w.slots[i].lease == w.qlease && w.slots[i].slot == w.qslot &&
		    w.slots[i].state == WS_PLAYED)
			s = &w.slots[i];
	if (s == NULL || !worker_shape(res, "report"))
		return;
	/* the answer names its lease and slot: not another report's */
	if (res != NULL && (PQntuples(res) != 1 || PQnfields(res) != 3 ||
	    strtoll(worker_val(res, 0, 1), NULL, 10) != s->lease ||
	    atoi(worker_val(res, 0, 2)) != s->slot)) {
		log_warnx("cluster: an answer out of place for slot %d: "
		    "connecting again", s->slot);
		pgconn_drop(w.pg, "an answer out of place");
		return;
	}
	if (res == NULL) {
		log_warnx("cluster: report of slot %d: %s", s->slot, err);
		/* the answer lost: sent again, taken once; else given up */
		if (pgconn_up(w.pg))
			s->state = WS_DONE;
		return;
	}
	w.heard_us = util_now_us();
	a = worker_val(res, 0, 0);
	if (strcmp(a, "ok") != 0 && strncmp(a, "refused: ", 9) != 0) {
		log_warnx("cluster: slot %d: an answer out of place: %s",
		    s->slot, a);
		pgconn_drop(w.pg, "an answer out of place");
		return;
	}
	if (strcmp(a, "ok") == 0) {
		w.reported++;
		w.sprt_dirty = 1;
		log_info("cluster: slot %d reported (match %lld)", s->slot,
		    (long long)s->match);
	} else {
		w.refusedn++;
		log_warnx("cluster: slot %d (match %lld): %s", s->slot,
		    (long long)s->match, a);
	}
	s->state = WS_DONE;
	worker_compact();
}

/* The results since the SPRT last read: carry it on, in slot order. */
static void
worker_records_cb(void *arg, const PGresult *res, const char *err)
{
	struct tstand	 ts;
	char		 why[256];
	int		 i;

	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	if (!worker_shape(res, "r_slot"))
		return;
	if (res == NULL) {
		log_warnx("cluster: results: %s", err);
		w.sprt_dirty = 1;
		return;
	}
	if (w.tid == 0 || !w.def.sprt || w.sprt.decided != 0)
		return;
	memset(&ts, 0, sizeof(ts));
	for (i = 0; i < PQntuples(res); i++)
		if (tstand_add_record(&ts, &w.def, atoi(worker_val(res, i, 0)),
		    0, worker_val(res, i, 1), why, sizeof(why)) == -1) {
			log_warnx("cluster: results: %s", why);
			break;
		}
	w.sprt_pos = tstand_sprt_more(&w.def, w.sched, w.nsched, &ts,
	    &w.sprt, w.sprt_pos);
	tstand_free(&ts);
	if (w.sprt.decided != 0) {
		tstand_sprt_reason(&w.def, &w.sprt, w.verdict,
		    sizeof(w.verdict));
		log_info("cluster: tournament %" PRId64 ": %s", w.tid,
		    w.verdict);
	}
}

static void
worker_decide_cb(void *arg, const PGresult *res, const char *err)
{
	(void)arg;
	w.q = WQ_NONE;
	worker_soon();
	if (!worker_shape(res, "decide"))
		return;
	if (res == NULL) {
		log_warnx("cluster: decision: %s", err);
		return;
	}
	w.verdict[0] = '\0';
	if (strncmp(worker_val(res, 0, 0), "refused", 7) == 0) {
		/* the results it read are not all the database's yet */
		log_warnx("cluster: tournament %" PRId64 ": decision %s",
		    w.tid, worker_val(res, 0, 0));
		return;
	}
	if (strncmp(worker_val(res, 0, 0), "proposed", 8) == 0) {
		/*
		 * other workers' results are in it: the verdict stands once
		 * another proposes it too.  Play on meanwhile, so that a
		 * tournament whose others are gone still ends, at its last
		 * slot.
		 */
		log_info("cluster: tournament %" PRId64 ": decision %s",
		    w.tid, worker_val(res, 0, 0));
		return;
	}
	log_info("cluster: tournament %" PRId64 " decided: %s", w.tid,
	    worker_val(res, 0, 0));
	worker_drop("the SPRT has decided");
}

/* Ask the most urgent thing the database is to hear. */
static void
worker_ask(void)
{
	char		 a[8][64], beat[16 * 24 + 3];
	const char	*v[8];
	int64_t		 now = util_now_us(), period;
	int		 i, n, busy, nmax;

	if (!pgconn_idle(w.pg) || w.q != WQ_NONE)
		return;
	if (!w.hello) {
		if (now < w.wait_us)
			return;
		v[0] = w.name;
		v[1] = w.key;
		if (pgconn_query(w.pg, "SELECT refd.hello($1, $2) AS hello",
		    2, v, worker_timeout(), worker_hello_cb, NULL) == 0)
			w.q = WQ_HELLO;
		return;
	}
	for (i = 0; i < w.nslots; i++) {
		if (w.slots[i].state != WS_PLAYED)
			continue;
		snprintf(a[0], sizeof(a[0]), "%" PRId64, w.slots[i].lease);
		snprintf(a[1], sizeof(a[1]), "%d", w.slots[i].slot);
		snprintf(a[2], sizeof(a[2]), "%lld",
		    (long long)w.slots[i].match);
		snprintf(a[4], sizeof(a[4]), "%lld", w.slots[i].head_no);
		v[0] = a[0];
		v[1] = a[1];
		v[2] = a[2];
		v[3] = w.slots[i].record;
		v[4] = a[4];
		v[5] = w.slots[i].head;
		v[6] = w.slots[i].sig;
		v[7] = w.slots[i].times;
		w.qlease = w.slots[i].lease;
		w.qslot = w.slots[i].slot;
		if (pgconn_query(w.pg, "SELECT refd.report($1, $2, $3, $4, $5, "
		    "$6, $7, $8) AS report, $1::bigint, $2::integer", 8, v,
		    worker_timeout(), worker_report_cb, NULL) == 0)
			w.q = WQ_REPORT;
		return;
	}
	period = 1000LL * (w.lease_ms > 0 ? w.lease_ms : 4000) / 4;
	/* not heard for two heartbeats: heard again before any lease */
	busy = w.nleases > 0;
	if ((busy && now - w.beat_us >= period) ||
	    (w.tid != 0 && now - w.heard_us > 2 * period)) {
		n = snprintf(beat, sizeof(beat), "{");
		for (i = 0; i < w.nleases; i++)
			n += snprintf(beat + n, sizeof(beat) - n, "%s%" PRId64,
			    i ? "," : "", w.leases[i]);
		snprintf(beat + n, sizeof(beat) - n, "}");
		v[0] = beat;
		if (pgconn_query(w.pg, "SELECT * FROM refd.heartbeat($1)", 1,
		    v, worker_timeout(), worker_beat_cb, NULL) == 0)
			w.q = WQ_BEAT;
		return;
	}
	if (w.tid != 0 && w.verdict[0] != '\0') {
		snprintf(a[0], sizeof(a[0]), "%" PRId64, w.tid);
		v[0] = a[0];
		v[1] = w.verdict;
		if (pgconn_query(w.pg, "SELECT refd.decide($1, $2) AS decide",
		    2, v, worker_timeout(), worker_decide_cb, NULL) == 0)
			w.q = WQ_DECIDE;
		return;
	}
	if (w.tid != 0 && w.def.sprt && w.sprt_dirty &&
	    w.sprt.decided == 0) {
		w.sprt_dirty = 0;
		snprintf(a[0], sizeof(a[0]), "%" PRId64, w.tid);
		snprintf(a[1], sizeof(a[1]), "%d", w.sprt_pos);
		v[0] = a[0];
		v[1] = a[1];
		if (pgconn_query(w.pg, "SELECT * FROM refd.records($1, $2)", 2,
		    v, worker_timeout(), worker_records_cb, NULL) == 0)
			w.q = WQ_RECORDS;
		return;
	}
	if (refd_stopping() || now < w.wait_us)
		return;
	if (w.tid == 0 || (w.nslots == 0 &&
	    now - w.poll_us >= 1000LL * WORKER_POLL_MS)) {
		/* what runs: the first, a tournament's end, a new one */
		if (now - w.poll_us >= 1000LL * WORKER_POLL_MS &&
		    pgconn_query(w.pg, "SELECT * FROM refd.work()", 0, NULL,
		    worker_timeout(), worker_work_cb, NULL) == 0)
			w.q = WQ_WORK;
		return;
	}
	/* the next batch once a seat would go idle: none left to start */
	for (i = 0; i < w.nslots; i++)
		if (w.slots[i].state == WS_TODO)
			return;
	if (w.nrunning >= w.def.concurrency || w.nleases >=
	    (int)(sizeof(w.leases) / sizeof(w.leases[0])))
		return;
	nmax = w.def.concurrency;
	if (w.paced && w.pace_ms > 0)
		nmax = (int)(conf.cluster_batch_ms * (double)w.def.concurrency /
		    w.pace_ms + 0.5);
	nmax = nmax < 1 ? 1 : nmax > WORKER_MAXBATCH ? WORKER_MAXBATCH : nmax;
	snprintf(a[0], sizeof(a[0]), "%" PRId64, w.tid);
	snprintf(a[2], sizeof(a[2]), "%d", nmax);
	v[0] = a[0];
	v[1] = w.idents;
	v[2] = a[2];
	if (pgconn_query(w.pg, "SELECT * FROM refd.lease($1, $2, $3)", 3, v,
	    worker_timeout(), worker_lease_cb, NULL) == 0)
		w.q = WQ_LEASE;
}

/* The loop's turn: leases not renewed in time end, then what to ask. */
static void
worker_tick(evutil_socket_t fd, short what, void *arg)
{
	int64_t	 now = util_now_us();

	(void)fd;
	(void)what;
	(void)arg;
	/* not renewed for its whole time: the database took it back */
	while (w.nleases > 0 && now - w.beat_us > 1000LL * w.lease_ms)
		worker_lease_over(w.leases[0], "not renewed in time");
	worker_compact();
	if (!refd_stopping())
		worker_fill();
	if (w.pg != NULL)
		worker_ask();
}

/* The connection came up or went down. */
static void
worker_updown(void *arg, int up, const char *why)
{
	(void)arg;
	(void)why;
	if (!up)
		w.hello = 0;
	worker_soon();
}

/*
 * Become a worker of the cluster at conninfo under name.  Returns 0, or
 * -1 with the reason in err.
 */
int
worker_start(const char *conninfo, const char *name, char *err,
    size_t errlen)
{
	struct timeval	 tv = { 0, WORKER_TICK_MS * 1000 };

	if (!util_name_ok(name) || strlen(name) > REFD_NAMELEN) {
		snprintf(err, errlen, "worker: a name of 1 to %d letters, "
		    "digits, _ . or -", REFD_NAMELEN);
		return -1;
	}
	snprintf(w.name, sizeof(w.name), "%s", name);
	if (db_public_key(logdb, w.key, sizeof(w.key)) == -1) {
		snprintf(err, errlen, "worker: the log has no key");
		return -1;
	}
	if ((w.tick = event_new(base, -1, EV_PERSIST, worker_tick, NULL)) ==
	    NULL || event_add(w.tick, &tv) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((w.pg = pgconn_new(base, conninfo, worker_updown, NULL)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	log_info("cluster: worker %s started", name);
	return 0;
}

/*
 * What the worker is doing, for the control socket's status: lines
 * "cluster_KEY VALUE" appended to buf (len bytes), or nothing.
 */
void
worker_status(char *buf, size_t len)
{
	size_t		 n = strlen(buf);
	int64_t		 wall, cpu, own, p99;
	long long	 nq;

	if (w.pg == NULL || n >= len)
		return;
	wall = pgconn_delay_max(w.pg, &cpu, &own);
	nq = pgconn_queries(w.pg, &p99);
	snprintf(buf + n, len - n, "\ncluster_worker %s\ncluster_connected %d"
	    "\ncluster_tournament %" PRId64 "\ncluster_leases %d\n"
	    "cluster_slots %d\ncluster_running %d\ncluster_reported %d\n"
	    "cluster_refused %d\ncluster_libpq_max_us %lld\n"
	    "cluster_libpq_cpu_max_us %lld\ncluster_libpq_own_max_us %lld\n"
	    "cluster_queries %lld\n"
	    "cluster_query_p99_us %lld", w.name, pgconn_up(w.pg), w.tid,
	    w.nleases, w.nslots, w.nrunning, w.reported, w.refusedn,
	    (long long)wall, (long long)cpu, (long long)own, nq,
	    (long long)p99);
}

/* At exit. */
void
worker_free(void)
{
	if (w.pg == NULL)
		return;
	worker_drop("refd stops");
	pgconn_free(w.pg);
	w.pg = NULL;
	if (w.tick != NULL)
		event_free(w.tick);
	w.tick = NULL;
	tstand_cache_free(&w.stmts);
}
