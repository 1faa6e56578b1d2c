/*
 * site.c: the web site's pages and data (refd-http(7)).
 *
 * The pages are files compiled into refd (refd/site/, made into
 * site.inc by scripts/site2c); everything else is JSON made here, from
 * what the public may see and nothing more.  A live match is heard
 * through the match observers the control socket uses: each event
 * line is turned into a JSON event by a table of the words it may
 * carry (an unknown word or key is dropped, never passed on), with the
 * table's state from libbriscola's view for no seat (bri_view_build()
 * with BRI_NOSEAT: no hand, no stock, no hidden partner).  A match's
 * events are kept (sse.c), as they were sent, while it plays and for
 * the last SITE_KEEP finished matches, so that a client that reconnects
 * with Last-Event-ID gets exactly what it missed.  An event's id is the
 * match's last link in the log when the event left ("L"), and
 * "L.k" for the k-th further event at that same link.
 */
#include "config.h"

#include <sys/queue.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <event2/http.h>

#include "refd.h"
#include "ctl.h"
#include "db.h"
#include "gtp.h"
#include "http.h"
#include "log.h"
#include "match.h"
#include "replay.h"
#include "site.h"
#include "sse.h"
#include "tstream.h"
#include "util.h"

/* The compiled-in files: name, type, bytes. */
struct site_file {
	const char	*name;
	const char	*type;
	const char	*data;
	size_t		 len;
};
#include "refd/site.inc"

#define SITE_BUCKETS	1024
#define SITE_KEEP	64	/* finished matches whose events are kept */
#define SITE_EVMAX	4096	/* the longest event */
#define SITE_FLUSH_MS	20	/* events of a busy match wait for each
				   other this long, at most */

/* What the site keeps of one match: every event it sent. */
struct site_match {
	LIST_ENTRY(site_match) hash;
	TAILQ_ENTRY(site_match) done;	/* finished, the oldest first */
	TAILQ_ENTRY(site_match) dirty;	/* events its clients await */
	int64_t		 id;
	int		 over;		/* its end event is sent */
	int		 isdirty;	/* on site_dirty */
	int64_t		 flushed_ms;	/* when its clients last got some */
	struct sse	*kept;		/* its events and their clients */
};

static LIST_HEAD(, site_match) site_hash[SITE_BUCKETS];
static TAILQ_HEAD(, site_match) site_dirty =
			    TAILQ_HEAD_INITIALIZER(site_dirty);
static struct event	*flush_ev;	/* site_flush_all() */
static TAILQ_HEAD(, site_match) site_done =
			    TAILQ_HEAD_INITIALIZER(site_done);
static int		 site_ndone;

static int		 site_on;	/* between site_start() and site_stop() */

static void	site_flush_soon(struct site_match *);

/*
 * The words of the event lines the site passes on (match.c makes
 * them), each with the names of its arguments in order; a word with
 * '=' is a key that may appear as key=value.  Sorted by word.
 */
static const struct site_evdef {
	const char	*word;
	const char	*arg[4];
} site_evdefs[] = {
	{ "bid",	{ "seat", "rank" } },
	{ "called",	{ "card", "seat" } },
	{ "deal",	{ "deal", "dealer=", "trump=" } },
	{ "dealend",	{ "deal", "result" } },
	/* action= keeps its first word: a fallback's card is not yet played */
	{ "fault",	{ "seat=", "kind=", "action=" } },
	{ "joker",	{ "seat" } },
	{ "partner",	{ "seat" } },
	{ "play",	{ "seat", "card" } },
	{ "trick",	{ "winner", "points" } },
};

/* A bounded text being built; an overflow truncates and is seen. */
struct site_buf {
	char	*p;
	size_t	 len, cap;
	int	 full;
};

/* Add printf-formatted text to b. */
static void
site_cat(struct site_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
site_cat(struct site_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->full = 1;
		b->p[b->len] = '\0';
		return;
	}
	b->len += (size_t)n;
}

/* Add s to b as a JSON string, quoted and escaped. */
static void
site_str(struct site_buf *b, const char *s)
{
	site_cat(b, "\"");
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			site_cat(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == '<' || *s == '>' ||
		    *s == '&' || (unsigned char)*s >= 0x7f)
			site_cat(b, "\\u%04x", (unsigned char)*s);
		else
			site_cat(b, "%c", *s);
	}
	site_cat(b, "\"");
}

/* Add a word as a JSON number if it is one, else as a string. */
static void
site_word(struct site_buf *b, const char *w)
{
	const char	*errstr;

	util_num(w, -1000000, 1000000, &errstr);
	if (errstr == NULL && w[0] != '+' && !(w[0] == '0' && w[1] != '\0'))
		site_cat(b, "%s", w);
	else
		site_str(b, w);
}

/* Add a card, or null for none. */
static void
site_card(struct site_buf *b, bri_card c)
{
	char	 cs[BRI_CARD_STRLEN];

	if (c == BRI_NOCARD)
		site_cat(b, "null");
	else
		site_cat(b, "\"%s\"", bri_card_format(c, cs));
}

/* Add an array of n ints. */
static void
site_ints(struct site_buf *b, const int *v, int n)
{
	int	 i;

	site_cat(b, "[");
	for (i = 0; i < n; i++)
		site_cat(b, "%s%d", i ? "," : "", v[i]);
	site_cat(b, "]");
}

/* The phase's name. */
static const char *
site_phase(int phase)
{
	switch (phase) {
	case BRI_PHASE_AUCTION:	return "auction";
	case BRI_PHASE_CALL:	return "call";
	case BRI_PHASE_OVER:	return "over";
	}
	return "play";
}

/*
 * m's table as the public may see it now, from libbriscola's view for
 * no seat, and its clocks.
 */
static void
site_state(struct site_buf *b, const struct match *m, const char *key)
{
	struct bri_view	 v;
	int		 pts[BRI_MAXSEATS], i, first, limit;

	site_cat(b, "\"%s\":{\"state\":\"%s\"", key,
	    match_state_name(m->state));
	if (m->bm.ndeals == 0 ||
	    bri_view_build(&m->bm, BRI_NOSEAT, &v) != BRI_OK) {
		site_cat(b, "}");
		return;
	}
	site_cat(b, ",\"deal\":%d,\"phase\":\"%s\",\"dealer\":%d,\"trump\":",
	    v.deal_no, site_phase(v.phase), v.dealer);
	site_card(b, v.trump);
	site_cat(b, ",\"trumpsuit\":");
	if (v.trumpsuit == BRI_NOSUIT)
		site_cat(b, "null");
	else
		site_cat(b, "\"%c\"", bri_suit_letter(v.trumpsuit));
	site_cat(b, ",\"stock\":%d,\"turn\":%d,\"leader\":%d,\"tricks\":%d",
	    v.stock, v.turn, v.leader, v.trick);
	/* the cards of the trick on the table */
	site_cat(b, ",\"table\":[");
	first = v.trick * v.nseats;
	for (i = first; i < v.nplays; i++) {
		site_cat(b, "%s[%d,", i > first ? "," : "", v.playseat[i]);
		site_card(b, v.plays[i]);
		site_cat(b, "]");
	}
	/* and of the last trick taken, with its winner */
	site_cat(b, "],\"last\":[");
	for (i = first - v.nseats; v.trick > 0 && i < first; i++) {
		site_cat(b, "%s[%d,", i > first - v.nseats ? "," : "",
		    v.playseat[i]);
		site_card(b, v.plays[i]);
		site_cat(b, "]");
	}
	site_cat(b, "],\"last_winner\":%d",
	    v.trick > 0 ? v.winners[v.trick - 1] : -1);
	for (i = 0; i < v.nseats; i++)
		pts[i] = v.points[i];
	site_cat(b, ",\"points\":");
	site_ints(b, pts, v.nseats);
	site_cat(b, ",\"mpoints\":");
	site_ints(b, v.mpoints, v.nseats);
	site_cat(b, ",\"deals_won\":");
	site_ints(b, m->bm.deals_won, v.nseats);
	site_cat(b, ",\"joker\":%d,\"partner\":%d", v.joker,
	    v.variant == BRI_CHIAMATA5 ? v.partner : -1);
	if (v.variant == BRI_CHIAMATA5) {
		site_cat(b, ",\"caller\":%d,\"called\":", v.caller);
		site_card(b, v.called);
		site_cat(b, ",\"calls\":[");
		for (i = 0; i < v.ncalls; i++)
			site_cat(b, "%s[%d,%d]", i ? "," : "", v.callseat[i],
			    v.calls[i]);
		site_cat(b, "]");
	}
	/* the clocks: the move's limit, what is left of each bank */
	limit = m->conf.move_ms;
	if (m->conf.bank_ms > 0 && m->bank_us[v.turn] / 1000 < limit)
		limit = (int)(m->bank_us[v.turn] / 1000);
	site_cat(b, ",\"limit_ms\":%d,\"bank_ms\":[", limit);
	for (i = 0; i < v.nseats; i++)
		site_cat(b, "%s%lld", i ? "," : "", m->conf.bank_ms > 0 ?
		    (long long)(m->bank_us[i] / 1000) : -1LL);
	site_cat(b, "]}");
}

/* The kept record of match id; made when make is set.  NULL if none. */
static struct site_match *
site_get(int64_t id, int make)
{
	struct site_match *sm;
	unsigned	 h = (unsigned)((uint64_t)id % SITE_BUCKETS);

	LIST_FOREACH(sm, &site_hash[h], hash)
		if (sm->id == id)
			return sm;
	if (!make || (sm = calloc(1, sizeof(*sm))) == NULL)
		return NULL;
	if ((sm->kept = sse_new(0)) == NULL) {
		free(sm);
		return NULL;
	}
	sm->id = id;
	LIST_INSERT_HEAD(&site_hash[h], sm, hash);
	return sm;
}

/* Let go of a kept match; its clients are gone. */
static void
site_forget(struct site_match *sm)
{
	LIST_REMOVE(sm, hash);
	if (sm->isdirty)
		TAILQ_REMOVE(&site_dirty, sm, dirty);
	if (sm->over) {
		TAILQ_REMOVE(&site_done, sm, done);
		site_ndone--;
	}
	sse_free(sm->kept);
	free(sm);
}

/*
 * Send each client of sm what it has not had yet, in one chunk
 * (sse_flush()).
 */
static void
site_flush(struct site_match *sm)
{
	if (sm->isdirty) {
		TAILQ_REMOVE(&site_dirty, sm, dirty);
		sm->isdirty = 0;
	}
	sm->flushed_ms = util_now_ms();
	sse_flush(sm->kept);
}

/* The flush timer: every match whose clients wait. */
static void
site_flush_all(evutil_socket_t fd, short what, void *arg)
{
	struct site_match *sm;
	struct timeval	 tv = { 0, SITE_FLUSH_MS * 1000 };
	int64_t		 now = util_now_ms(), next = -1;

	(void)fd;
	(void)what;
	(void)arg;
	for (sm = TAILQ_FIRST(&site_dirty); sm != NULL; ) {
		struct site_match *nx = TAILQ_NEXT(sm, dirty);

		if (now - sm->flushed_ms >= SITE_FLUSH_MS)
			site_flush(sm);
		else if (next == -1 || sm->flushed_ms + SITE_FLUSH_MS < next)
			next = sm->flushed_ms + SITE_FLUSH_MS;
		sm = nx;
	}
	if (next != -1) {
		tv.tv_usec = (suseconds_t)((next - now) * 1000);
		evtimer_add(flush_ev, &tv);
	}
}

/*
 * sm has events its clients have not had.  A match quiet for
 * SITE_FLUSH_MS sends at once, at the end of this loop pass (a slow
 * match's every move); a busy one gathers its events for up to
 * SITE_FLUSH_MS and sends them in one chunk to each client: the cost
 * of a spectator is then a write per client per SITE_FLUSH_MS, not per
 * event.
 */
static void
site_flush_soon(struct site_match *sm)
{
	struct timeval	 tv = { 0, 0 };
	int64_t		 wait = SITE_FLUSH_MS - (util_now_ms() - sm->flushed_ms);

	if (sm->isdirty)
		return;
	TAILQ_INSERT_TAIL(&site_dirty, sm, dirty);
	sm->isdirty = 1;
	if (wait > 0)
		tv.tv_usec = (suseconds_t)(wait * 1000);
	if (!evtimer_pending(flush_ev, NULL) || wait <= 0)
		evtimer_add(flush_ev, &tv);
}

/*
 * Keep one event of sm, json (n bytes), under the match's link now; its
 * clients get it at the next flush (site_flush_soon()).
 */
static void
site_emit(struct site_match *sm, long long link, const char *json, size_t n)
{
	if (sse_emit(sm->kept, link, json, n) == -1)
		log_warnx("site: match %lld: an event lost: out of memory",
		    (long long)sm->id);
	else if (sse_clients(sm->kept) > 0)
		site_flush_soon(sm);
}

/* The definition of an event word, or NULL. */
static const struct site_evdef *
site_evdef(const char *w)
{
	size_t	 i;

	for (i = 0; i < sizeof(site_evdefs) / sizeof(site_evdefs[0]); i++)
		if (strcmp(site_evdefs[i].word, w) == 0)
			return &site_evdefs[i];
	return NULL;
}

/*
 * An event line of match m (match_observe()): as JSON, its known words
 * only, with the public state, to its clients and its kept events.
 */
void
site_match_event(struct match *m, const char *line)
{
	const struct site_evdef *d;
	struct site_match *sm;
	struct site_buf	 b;
	char		 copy[GTP_MAXLINE], *w[GTP_MAXARGS], out[SITE_EVMAX];
	const char	*eq;
	size_t		 kl;
	int		 n, i, k, pos = 0;

	if (!site_on)
		return;
	snprintf(copy, sizeof(copy), "%s", line);
	if ((n = gtp_split(copy, w, GTP_MAXARGS)) < 1 ||
	    (d = site_evdef(w[0])) == NULL ||
	    (sm = site_get(m->id, 1)) == NULL)
		return;
	b.p = out;
	b.cap = sizeof(out);
	b.len = 0;
	b.full = 0;
	site_cat(&b, "{\"type\":\"%s\"", d->word);
	for (i = 1; i < n; i++) {
		if ((eq = strchr(w[i], '=')) != NULL) {
			kl = (size_t)(eq - w[i]) + 1;
			for (k = 0; k < 4 && d->arg[k] != NULL; k++)
				if (strlen(d->arg[k]) == kl &&
				    strncmp(d->arg[k], w[i], kl) == 0)
					break;
			if (k == 4 || d->arg[k] == NULL)
				continue;	/* not the public's */
			site_cat(&b, ",\"%.*s\":", (int)kl - 1, w[i]);
			site_word(&b, eq + 1);
			continue;
		}
		/* a positional word, or one more of a key's value: dropped */
		if (i > 1 && strchr(w[i - 1], '=') != NULL)
			continue;
		if (pos >= 4 || d->arg[pos] == NULL ||
		    strchr(d->arg[pos], '=') != NULL)
			continue;
		site_cat(&b, ",\"%s\":", d->arg[pos++]);
		site_word(&b, w[i]);
	}
	site_cat(&b, ",");
	site_state(&b, m, "state");
	site_cat(&b, "}");
	if (b.full) {
		log_warnx("site: match %lld: an event too long for the site",
		    (long long)m->id);
		return;
	}
	site_emit(sm, (long long)m->dbm.links, out, b.len);
}

/*
 * A reason for the public: refd's own words, without the bot's text
 * that a fault's reason ends with ("seat 1 (bot): kind: evidence").
 */
static void
site_reason(char *dst, size_t len, const char *reason)
{
	const char	*p;

	snprintf(dst, len, "%s", reason);
	if ((p = strstr(reason, "): ")) != NULL &&
	    (p = strstr(p + 3, ": ")) != NULL && (size_t)(p - reason) < len)
		dst[p - reason] = '\0';
}

/* m ended, its end logged: the end to its clients, their streams end. */
void
site_match_done(struct match *m)
{
	struct site_match *sm, *old;
	struct site_buf	 b;
	char		 out[SITE_EVMAX], why[256];

	if (!site_on || (sm = site_get(m->id, 1)) == NULL || sm->over)
		return;
	b.p = out;
	b.cap = sizeof(out);
	b.len = 0;
	b.full = 0;
	site_reason(why, sizeof(why), m->reason);
	site_cat(&b, "{\"type\":\"end\",\"result\":");
	site_str(&b, m->result);
	site_cat(&b, ",\"reason\":");
	site_str(&b, why);
	site_cat(&b, ",\"mpoints\":");
	site_ints(&b, m->bm.mpoints, m->nseats);
	site_cat(&b, ",\"state\":{\"state\":\"%s\"}}",
	    match_state_name(m->state));
	site_emit(sm, (long long)m->dbm.links, out, b.len);
	site_flush(sm);
	sse_close(sm->kept);
	sm->over = 1;
	TAILQ_INSERT_TAIL(&site_done, sm, done);
	if (++site_ndone > SITE_KEEP) {
		old = TAILQ_FIRST(&site_done);
		site_forget(old);
	}
}

/* A compiled-in file by name, or NULL. */
static const struct site_file *
site_file(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(site_files) / sizeof(site_files[0]); i++)
		if (strcmp(site_files[i].name, name) == 0)
			return &site_files[i];
	return NULL;
}

/* Answer with a compiled-in file. */
static void
site_send_file(struct evhttp_request *req, const char *name)
{
	const struct site_file *f;

	if ((f = site_file(name)) == NULL) {
		http_error(req, 404, "no such file");
		return;
	}
	http_reply(req, 200, f->type, f->data, f->len);
}

/* Answer with b's JSON, or an error if it did not fit. */
static void
site_send_json(struct evhttp_request *req, struct site_buf *b)
{
	if (b->full) {
		http_error(req, 503, "too much to say");
		return;
	}
	site_cat(b, "\n");
	http_reply(req, 200, "application/json", b->p, b->len);
}

/* A match's summary for lists: id, variant, state, bots, result. */
static void
site_match_json(struct site_buf *b, const struct match *m)
{
	int	 i;

	site_cat(b, "{\"id\":%lld,\"variant\":\"%s\",\"state\":\"%s\","
	    "\"tournament\":%lld,\"bots\":[", (long long)m->id,
	    bri_variant_name(m->conf.opt.variant), match_state_name(m->state),
	    (long long)m->conf.tournament);
	for (i = 0; i < m->nseats; i++) {
		site_cat(b, "%s", i ? "," : "");
		site_str(b, m->conf.bots[i]);
	}
	site_cat(b, "],\"result\":");
	site_str(b, match_over(m) ? m->result : "");
	site_cat(b, "}");
}

/* GET /api/v1/status: the fields of refctl status. */
static void
site_api_status(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	struct site_buf	 b;
	char		 text[4096], *line, *sp, *save = NULL;
	int		 first = 1;

	(void)id;
	(void)last;
	ctl_status_text(text, sizeof(text));
	if ((b.p = malloc(8192)) == NULL) {
		http_error(req, 503, "out of memory");
		return;
	}
	b.cap = 8192;
	b.len = 0;
	b.full = 0;
	site_cat(&b, "{\"api\":1");
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp = '\0';
		site_cat(&b, ",");
		site_str(&b, line);
		site_cat(&b, ":");
		site_word(&b, sp + 1);
		first = 0;
	}
	(void)first;
	site_cat(&b, ",\"http_connections\":%d,\"http_streams\":%d}",
	    http_conns(), http_streams());
	site_send_json(req, &b);
	free(b.p);
}

/* GET /api/v1/matches: the matches refd holds, running and recent. */
static void
site_api_matches(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	struct match	*m;
	struct site_buf	 b;
	size_t		 cap = 256;
	int		 first = 1;

	(void)id;
	(void)last;
	TAILQ_FOREACH(m, &matches, entry)
		cap += 512;
	if ((b.p = malloc(cap)) == NULL) {
		http_error(req, 503, "out of memory");
		return;
	}
	b.cap = cap;
	b.len = 0;
	b.full = 0;
	site_cat(&b, "{\"api\":1,\"matches\":[");
	TAILQ_FOREACH(m, &matches, entry) {
		site_cat(&b, "%s", first ? "" : ",");
		site_match_json(&b, m);
		first = 0;
	}
	site_cat(&b, "]}");
	site_send_json(req, &b);
	free(b.p);
}

/* GET /api/v1/matches/ID: one match, its settings and its state. */
static void
site_api_match(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	struct match	*m;
	struct site_buf	 b;
	char		 out[8192], why[256];
	int		 i;

	(void)last;
	if ((m = match_find(id)) == NULL) {
		http_error(req, 404, "no such match");
		return;
	}
	b.p = out;
	b.cap = sizeof(out);
	b.len = 0;
	b.full = 0;
	site_cat(&b, "{\"api\":1,\"match\":");
	site_match_json(&b, m);
	b.len--;	/* reopen the object */
	site_cat(&b, ",\"options\":");
	site_str(&b, m->options);
	site_cat(&b, ",\"commitment\":\"%s\",\"move_ms\":%d,\"bank_ms\":%d,"
	    "\"seats\":%d,\"names\":[", m->commit, m->conf.move_ms,
	    m->conf.bank_ms, m->nseats);
	for (i = 0; i < m->nseats; i++) {
		site_cat(&b, "%s", i ? "," : "");
		site_str(&b, m->conf.bots[i]);
	}
	site_reason(why, sizeof(why), match_over(m) ? m->reason : "");
	site_cat(&b, "],\"reason\":");
	site_str(&b, why);
	site_cat(&b, ",");
	site_state(&b, m, "table");
	site_cat(&b, ",\"events\":\"/api/v1/matches/%lld/events\"}}",
	    (long long)id);
	site_send_json(req, &b);
}

/*
 * GET /api/v1/matches/ID/events: the match's events, from the first or
 * after Last-Event-ID, then each as it happens; the stream ends with
 * the match's end.
 */
static void
site_api_events(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	struct site_match *sm;
	struct match	*m;
	long long	 link = -1;
	int		 sub = 0;

	if (last != NULL && sse_id_parse(last, &link, &sub) == -1) {
		http_error(req, 400, "Last-Event-ID: not an event id");
		return;
	}
	if ((sm = site_get(id, 0)) == NULL) {
		if ((m = match_find(id)) == NULL) {
			http_error(req, 404, "no such match");
			return;
		}
		if (match_over(m)) {
			http_error(req, 410, "its events are no longer kept");
			return;
		}
		if ((sm = site_get(id, 1)) == NULL) {
			http_error(req, 503, "out of memory");
			return;
		}
	}
	(void)sse_open(sm->kept, req, sse_after(sm->kept, link, sub));
}

/* What a request reads back from the log: one of replay.c's writers. */
enum site_read {
	SITE_OWN,		/* none: the route's own function answers */
	SITE_REPLAY,		/* replay_match(), API 1 */
	SITE_REPLAY2,		/* replay_match(), API 2 */
	SITE_SEAT,		/* replay_seat() */
	SITE_TOURNAMENTS,	/* replay_tournaments() */
	SITE_TOURNAMENT		/* replay_tournament() */
};

/*
 * Answer with what the writer of replay.c that what names puts in a
 * memory stream for id (and seat), or with its error status:
 * GET /api/v1/matches/ID/replay, a finished match from the log, every
 * move checked by the audit's walker, and its verdict (/api/v2/: the
 * hands only where a client cannot derive them);
 * GET /api/v1/matches/ID/seat/S, what refctl show --seat S prints once
 * the match's seed may be revealed; GET /api/v1/tournaments, the log's
 * tournaments, the latest first; GET /api/v1/tournaments/ID, progress,
 * standings as refctl tournament standings gives them, the SPRT's path
 * and every match.
 */
static void
site_send_read(struct evhttp_request *req, enum site_read what, int64_t id,
    int seat)
{
	char	*buf = NULL, err[256], key[2 * DB_HASHLEN + 1];
	size_t	 len = 0;
	FILE	*f;
	int	 code = 0;

	if (what == SITE_SEAT && (seat < 0 || seat >= BRI_MAXSEATS)) {
		http_error(req, 404, "no such seat");
		return;
	}
	if ((f = open_memstream(&buf, &len)) == NULL) {
		http_error(req, 503, "out of memory");
		return;
	}
	switch (what) {
	case SITE_OWN:
		break;
	case SITE_REPLAY:
	case SITE_REPLAY2:
		/* the end signed with refd's own key, not one the log names */
		code = replay_match(f, conf.db_path, id, what == SITE_REPLAY2 ?
		    2 : 1, db_public_key(logdb, key, sizeof(key)) == 0 ? key :
		    NULL, err, sizeof(err));
		break;
	case SITE_SEAT:
		code = replay_seat(f, conf.db_path, id, seat, err,
		    sizeof(err));
		break;
	case SITE_TOURNAMENTS:
		code = replay_tournaments(f, conf.db_path, err, sizeof(err));
		break;
	case SITE_TOURNAMENT:
		code = replay_tournament(f, conf.db_path, id, NULL, err,
		    sizeof(err));
		break;
	}
	if (fclose(f) != 0 && code == 0) {
		code = 503;
		snprintf(err, sizeof(err), "out of memory");
	}
	if (code != 0)
		http_error(req, code, err);
	else
		http_reply(req, 200, what == SITE_SEAT ?
		    "text/plain; charset=utf-8" : "application/json", buf,
		    len);
	free(buf);
}

/* GET /api/v1/tournaments/ID/events: tstream.c's. */
static void
site_api_tevents(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	tstream_events(req, id, last);
}

/* GET /, /match/ID, /tournament/ID: the one page, which asks the API. */
static void
site_page(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	(void)last;
	(void)id;
	site_send_file(req, "index.html");
}

/* GET /match/ID: the page, if the match is known. */
static void
site_page_match(struct evhttp_request *req, int64_t id, int arg,
    const char *last)
{
	(void)arg;
	if (match_find(id) == NULL && site_get(id, 0) == NULL &&
	    replay_revealed(conf.db_path, id) == -1) {
		http_error(req, 404, "no such match");
		return;
	}
	site_page(req, id, 0, last);
}

/*
 * The site's paths: exact, or a prefix followed by a number and then
 * tail exactly, or tail and a second number.  The first that fits
 * answers.
 */
static const struct site_route {
	const char	*path;
	int		 id;		/* a number follows path */
	const char	*tail;		/* what follows the number */
	int		 arg;		/* a second number follows tail */
	void		(*fn)(struct evhttp_request *, int64_t, int,
			    const char *);	/* or NULL: */
	enum site_read	 read;		/* what site_send_read() reads */
} site_routes[] = {
	{ "/", 0, NULL, 0, site_page, SITE_OWN },
	{ "/match/", 1, "", 0, site_page_match, SITE_OWN },
	{ "/api/v1/status", 0, NULL, 0, site_api_status, SITE_OWN },
	{ "/api/v1/matches", 0, NULL, 0, site_api_matches, SITE_OWN },
	{ "/api/v1/matches/", 1, "", 0, site_api_match, SITE_OWN },
	{ "/api/v1/matches/", 1, "/events", 0, site_api_events, SITE_OWN },
	{ "/api/v1/matches/", 1, "/replay", 0, NULL, SITE_REPLAY },
	{ "/api/v2/matches/", 1, "/replay", 0, NULL, SITE_REPLAY2 },
	{ "/api/v1/matches/", 1, "/seat/", 1, NULL, SITE_SEAT },
	{ "/api/v1/tournaments", 0, NULL, 0, NULL, SITE_TOURNAMENTS },
	{ "/api/v1/tournaments/", 1, "", 0, NULL, SITE_TOURNAMENT },
	{ "/api/v1/tournaments/", 1, "/events", 0, site_api_tevents,
	    SITE_OWN },
	{ "/tournament/", 1, "", 0, site_page, SITE_OWN },
};

/* Answer req by route r, with the numbers its path held. */
static void
site_answer(const struct site_route *r, struct evhttp_request *req,
    int64_t id, int arg, const char *last)
{
	if (r->fn != NULL)
		r->fn(req, id, arg, last);
	else
		site_send_read(req, r->read, id, arg);
}

/* Every checked request (http.c): a route, a file, or 404. */
static void
site_route(struct evhttp_request *req, const char *path, const char *last)
{
	const struct site_route *r;
	const char	*errstr, *p, *q;
	char		 num[24];
	size_t		 i, n, pl, tl;
	long long	 id, arg = 0;

	if (strncmp(path, "/static/", 8) == 0) {
		site_send_file(req, path + 8);
		return;
	}
	for (i = 0; i < sizeof(site_routes) / sizeof(site_routes[0]); i++) {
		r = &site_routes[i];
		pl = strlen(r->path);
		if (!r->id) {
			if (strcmp(path, r->path) == 0) {
				site_answer(r, req, 0, 0, last);
				return;
			}
			continue;
		}
		if (strncmp(path, r->path, pl) != 0)
			continue;
		p = path + pl;
		n = strspn(p, "0123456789");
		tl = strlen(r->tail);
		if (n == 0 || n >= sizeof(num) || (r->arg ?
		    strncmp(p + n, r->tail, tl) != 0 :
		    strcmp(p + n, r->tail) != 0))
			continue;
		if (r->arg) {
			q = p + n + tl;
			if (strspn(q, "0123456789") != strlen(q) ||
			    strlen(q) == 0 || strlen(q) > 3)
				continue;
			arg = util_num(q, 0, 999, &errstr);
		}
		memcpy(num, p, n);
		num[n] = '\0';
		id = util_num(num, 1, INT64_MAX, &errstr);
		if (errstr != NULL) {
			http_error(req, 404, "no such id");
			return;
		}
		site_answer(r, req, id, (int)arg, last);
		return;
	}
	http_error(req, 404, "no such page");
}

/*
 * Start the site on the address of refd's settings, and hear of every
 * match.  Returns 0, or -1 with the reason in err.
 */
int
site_start(char *err, size_t errlen)
{
	if (http_listen(conf.http_host, conf.http_port, conf.http_token,
	    conf.http_max_conns, conf.http_max_per_addr, site_route, err,
	    errlen) == -1)
		return -1;
	if ((flush_ev = evtimer_new(base, site_flush_all, NULL)) == NULL) {
		snprintf(err, errlen, "site: out of memory");
		return -1;
	}
	match_observe(site_match_event, site_match_done);
	match_observe_all();
	if (tstream_start() == -1) {
		snprintf(err, errlen, "site: too many observers");
		return -1;
	}
	site_on = 1;
	return 0;
}

/* Close the site and let go of what it kept. */
void
site_stop(void)
{
	struct site_match *sm;
	int		 i;

	site_on = 0;
	http_close();	/* every stream's client told: none left */
	tstream_stop();
	for (i = 0; i < SITE_BUCKETS; i++)
		while ((sm = LIST_FIRST(&site_hash[i])) != NULL)
			site_forget(sm);
	if (flush_ev != NULL)
		event_free(flush_ev);
	flush_ev = NULL;
}
