/*
 * replay.c: the web site's data read back from the log (refd-http(7)).
 *
 * A finished match is replayed from the log alone, through the audit's
 * walker (audit.c) as refctl show does: every row checked against
 * libbriscola and the chain, each move written as JSON with its time,
 * its limit, the time bank left and the table after it, and at the end
 * the walker's verdict, the failing row named when it fails.  The hands
 * are written only once the match's seed may be revealed: at once for a
 * lone match, once its tournament is over for good for a tournament's
 * (tstand_seed_secret()); before that a replay shows what the
 * live page showed, and no seat's lines.  API 1 writes every seat's
 * hand on every row; API 2 only where a client cannot derive them from
 * the row before and the card played (replay_hands()).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "audit.h"
#include "auditlog.h"
#include "replay.h"
#include "tstand.h"
#include "util.h"

#define REPLAY_HANDLEN	(BRI_MAXHAND * BRI_CARD_STRLEN + 1)

/* What the walk of a replay keeps beside the walker. */
struct replay {
	FILE		*out;
	int		 api;		/* 1 or 2: the format's version */
	int		 held;		/* hand holds a client's hands */
	char		 hand[BRI_MAXSEATS][REPLAY_HANDLEN];
	int		 revealed;	/* hands and partner may be shown */
	int		 started;	/* the header is written */
	int		 nrows;
	long long	 bank[BRI_MAXSEATS];	/* ms left, or -1 */
};

/*
 * May match id's hands be shown?  1 once its seed may be revealed, 0
 * before, -1 if the log cannot tell.
 */
static int
replay_reveal(sqlite3 *h, long long id)
{
	sqlite3_stmt	*st;
	const char	*ms;
	long long	 tid = 0;
	int		 r = -1;

	if (sqlite3_prepare_v2(h, "SELECT state, coalesce(tournament, 0) FROM "
	    "matches WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		ms = (const char *)sqlite3_column_text(st, 0);
		tid = sqlite3_column_int64(st, 1);
		r = ms != NULL && strcmp(ms, "running") != 0;
	}
	sqlite3_finalize(st);
	/* a tournament's seeds, as tstand.c keeps them, until it is over */
	if (r == 1 && tstand_seed_secret(h, tid))
		r = 0;
	return r;
}

/* Take card (its first 3 bytes, as a play row names it) out of hand. */
static void
replay_take(char *hand, const char *card)
{
	size_t	 n = strnlen(card, 3), len;
	char	*p = hand;

	while (*p != '\0') {
		len = strcspn(p, " ");
		if (len == n && strncmp(p, card, n) == 0) {
			if (p[len] == ' ')
				memmove(p, p + len + 1, strlen(p + len + 1) + 1);
			else if (p != hand)
				p[-1] = '\0';	/* the last: its space too */
			else
				*p = '\0';
			return;
		}
		p += len;
		if (*p == ' ')
			p++;
	}
}

/*
 * The hands of every seat after row r, as "3C 10D" strings, if they may
 * show.  API 1 writes them on every row.  API 2 writes them only where
 * the client's (rp->hand) would be wrong: the first row, and a row whose
 * hands are not the row before's less the card a play row names, such
 * as a deal or a trick's last play, after which the seats draw.
 */
static void
replay_hands(struct replay *rp, const struct au *a, const struct au_row *r)
{
	const struct bri_deal *d = &a->bm.deal;
	char		 now[BRI_MAXSEATS][REPLAY_HANDLEN];
	int		 i, seat;

	if (!rp->revealed)
		return;
	for (i = 0; i < a->nseats; i++)
		au_cards(d->hand[i], d->nhand[i], now[i], sizeof(now[i]));
	if (rp->api >= 2 && rp->held) {
		seat = (int)r->v[2];
		if (r->kind == AU_PLAY && seat >= 0 && seat < a->nseats)
			replay_take(rp->hand[seat], r->s[0]);
		for (i = 0; i < a->nseats; i++)
			if (strcmp(rp->hand[i], now[i]) != 0)
				break;
		if (i == a->nseats)
			return;
	}
	fprintf(rp->out, ",\"h\":[");
	for (i = 0; i < a->nseats; i++)
		fprintf(rp->out, "%s\"%s\"", i ? "," : "", now[i]);
	fprintf(rp->out, "]");
	memcpy(rp->hand, now, sizeof(now));
	rp->held = 1;
}

/* The table after row r: points, match points, stock, whose turn. */
static void
replay_state(struct replay *rp, const struct au *a, const struct au_row *r)
{
	const struct bri_deal *d = &a->bm.deal;
	int		 i;

	fprintf(rp->out, ",\"pts\":[");
	for (i = 0; i < a->nseats; i++)
		fprintf(rp->out, "%s%d", i ? "," : "", d->points[i]);
	fprintf(rp->out, "],\"mp\":[");
	for (i = 0; i < a->nseats; i++)
		fprintf(rp->out, "%s%d", i ? "," : "", a->bm.mpoints[i]);
	fprintf(rp->out, "],\"stock\":%d,\"turn\":%d", d->nstock,
	    d->over ? -1 : d->turn);
	replay_hands(rp, a, r);
}

/* The header, checked: the match as the log has it. */
static void
replay_start(struct au *a)
{
	struct replay	*rp = a->arg;
	int		 i;

	rp->started = 1;
	fprintf(rp->out, "{\"api\":%d,\"match\":{\"id\":%lld,\"variant\":",
	    rp->api, a->id);
	tstand_json_str(rp->out, a->variant);
	fprintf(rp->out, ",\"options\":");
	tstand_json_str(rp->out, a->options);
	fprintf(rp->out, ",\"commitment\":\"%s\",\"seed\":", a->commit);
	if (rp->revealed)
		fprintf(rp->out, "\"%s\"", a->seedhex);
	else
		fprintf(rp->out, "null");
	fprintf(rp->out, ",\"move_ms\":%lld,\"bank_ms\":%lld,\"tournament\":"
	    "%lld,\"started\":", a->move_ms, a->bank_ms, a->tournament > 0 ?
	    a->tournament : 0);
	tstand_json_str(rp->out, a->started);
	fprintf(rp->out, ",\"ended\":");
	tstand_json_str(rp->out, a->ended);
	fprintf(rp->out, ",\"state\":");
	tstand_json_str(rp->out, a->state);
	fprintf(rp->out, ",\"result\":");
	tstand_json_str(rp->out, a->result);
	fprintf(rp->out, ",\"revealed\":%s,\"seats\":%d,\"names\":[",
	    rp->revealed ? "true" : "false", a->nseats);
	for (i = 0; i < a->nseats; i++) {
		fprintf(rp->out, "%s", i ? "," : "");
		tstand_json_str(rp->out, a->seat[i].bot);
		rp->bank[i] = a->bank > 0 ? a->bank : -1;
	}
	fprintf(rp->out, "]},\"rows\":[");
}

/* One row, checked and chained: as JSON, with the table after it. */
static void
replay_row(struct au *a, const struct au_row *r)
{
	struct replay	*rp = a->arg;
	FILE		*f = rp->out;
	int		 seat;

	switch (r->kind) {
	case AU_DEAL:
		fprintf(f, "%s{\"k\":\"deal\",\"d\":%lld,\"dealer\":%lld,"
		    "\"trump\":", rp->nrows++ ? "," : "", r->deal, r->v[0]);
		tstand_json_str(f, r->s[2] != NULL ? r->s[2] : "");
		break;
	case AU_PLAY:
		seat = (int)r->v[2];
		if (seat >= 0 && seat < a->nseats && rp->bank[seat] >= 0)
			rp->bank[seat] -= r->v[3];
		fprintf(f, ",{\"k\":\"play\",\"d\":%lld,\"t\":%lld,\"p\":%lld,"
		    "\"seat\":%d,\"card\":\"%.3s\",\"ms\":%lld,\"limit\":%lld,"
		    "\"fault\":%lld,\"bank\":%lld,\"at\":", r->deal, r->v[1],
		    r->v[0] % a->nseats, seat, r->s[0], r->v[3], r->v[5],
		    r->v[4], seat >= 0 && seat < a->nseats ? rp->bank[seat] :
		    -1);
		/* the time of day: the date is the match's (started) */
		tstand_json_str(f, r->s[1] != NULL && r->slen[1] > 11 ?
		    r->s[1] + 11 : "");
		break;
	case AU_JOKER:
		fprintf(f, ",{\"k\":\"joker\",\"d\":%lld,\"seat\":%lld",
		    r->deal, r->v[0]);
		break;
	case AU_TRICK:
		fprintf(f, ",{\"k\":\"trick\",\"d\":%lld,\"t\":%lld,"
		    "\"winner\":%lld,\"points\":%lld", r->deal, r->v[0],
		    r->v[1], r->v[2]);
		break;
	case AU_FAULT:
		fprintf(f, ",{\"k\":\"fault\",\"d\":%lld,\"seat\":%lld,"
		    "\"ms\":%lld,\"kind\":", r->deal, r->v[0], r->v[1]);
		tstand_json_str(f, r->s[0] != NULL ? r->s[0] : "");
		fprintf(f, ",\"action\":");
		/* a fallback's card shows as its play: the first word only */
		fprintf(f, "\"%s\"", r->s[2] != NULL &&
		    strncmp(r->s[2], "fallback", 8) == 0 ? "fallback" :
		    "forfeit");
		break;
	case AU_DEALEND:
		fprintf(f, ",{\"k\":\"dealend\",\"d\":%lld,\"result\":",
		    r->deal);
		tstand_json_str(f, r->s[0] != NULL ? r->s[0] : "");
		break;
	case AU_BID:
		fprintf(f, ",{\"k\":\"bid\",\"d\":%lld,\"seat\":%lld,"
		    "\"ms\":%lld,\"call\":", r->deal, r->v[1], r->v[2]);
		tstand_json_str(f, r->s[0] != NULL ? r->s[0] : "");
		break;
	case AU_CALLED:
		fprintf(f, ",{\"k\":\"called\",\"d\":%lld,\"seat\":%lld,"
		    "\"ms\":%lld,\"card\":", r->deal, r->v[1], r->v[2]);
		tstand_json_str(f, r->s[0] != NULL ? r->s[0] : "");
		break;
	case AU_MATCHEND:
		fprintf(f, ",{\"k\":\"end\",\"result\":");
		tstand_json_str(f, r->s[0] != NULL ? r->s[0] : "");
		break;
	default:
		return;		/* a seat's answer: not a move */
	}
	replay_state(rp, a, r);
	fprintf(f, "}");
}

/* One part of a verdict: ok true, false or null (not known), and why. */
static void
replay_part(FILE *out, const char *name, int ok, const char *text)
{
	fprintf(out, ",\"%s\":{\"ok\":%s,\"text\":", name, ok == 1 ? "true" :
	    ok == 0 ? "false" : "null");
	tstand_json_str(out, text);
	fprintf(out, "}");
}

/*
 * The audit's verdict on match id, walked by a with result r
 * (au_match()), in three parts: the rules (libbriscola's replay), the
 * chain (every row's link up to the final one) and the signature of
 * its end in the log chain (al_end(), with key, refd's own public key,
 * or the log's when NULL).  The walker stops at the first discrepancy,
 * which names its row: the part it belongs to fails, the other says
 * how far it held.
 */
static void
replay_verdict(FILE *out, struct au *a, int r, long long id,
    const char *key)
{
	char	 v[AU_ERRMAX + 128], *sig = NULL, *p;
	size_t	 siglen = 0;
	FILE	*f;
	int	 sok = -1, n;

	if ((f = open_memstream(&sig, &siglen)) != NULL) {
		n = al_end(a->h, id, key, f);
		sok = n == 0 ? 1 : n > 0 ? 0 : -1;
		if (fclose(f) != 0)
			sok = -1;
	}
	/* the first line says it: the failing link, or the key */
	if (sig != NULL && (p = strchr(sig, '\n')) != NULL)
		*p = '\0';
	fprintf(out, "],\"verdict\":{\"ok\":%s,\"text\":",
	    r == 0 && sok != 0 ? "true" : "false");
	if (r == 0) {
		snprintf(v, sizeof(v), "verified: %d complete deal%s, %lld "
		    "plays, rules replayed and chain ok to link %lld%s",
		    a->ndone, a->ndone == 1 ? "" : "s", a->nplays, a->links,
		    sok == 1 ? ", its end signed" : sok == 0 ?
		    "; but its signature FAILED" : "");
		tstand_json_str(out, v);
	} else
		tstand_json_str(out, a->err);
	if (r == 0 || a->err_chain) {
		snprintf(v, sizeof(v), "%d complete deal%s, %lld plays "
		    "replayed by libbriscola%s", a->ndone, a->ndone == 1 ? "" :
		    "s", a->nplays, r == 0 ? "" : ", up to the chain's break");
		replay_part(out, "rules", r == 0 ? 1 : -1, v);
	} else
		replay_part(out, "rules", 0, a->err);
	if (r == 0 || !a->err_chain) {
		snprintf(v, sizeof(v), "links 1 to %lld follow each other%s",
		    a->links, r == 0 ? " and the final link" : ", then the walk "
		    "stopped at the rules' discrepancy");
		replay_part(out, "chain", r == 0 ? 1 : -1, v);
	} else
		replay_part(out, "chain", 0, a->err);
	replay_part(out, "signature", sok, sig != NULL ? sig :
	    "out of memory");
	fprintf(out, "}}\n");
	free(sig);
}

/* A walker of the log at path, opened read-only, or NULL with err. */
static struct au *
replay_walker(const char *path, char *err, size_t errlen)
{
	struct au	*a;

	if ((a = calloc(1, sizeof(*a))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		snprintf(err, errlen, "the log cannot be read");
		return NULL;
	}
	return a;
}

/*
 * Write match id's replay from the log at path to out, as JSON of API
 * version api (1 or 2: replay_hands()): the match, every move with the
 * table after it, and the audit's verdict (replay_verdict()).
 * Returns 0, or an HTTP status with the reason in err: 404 for no such
 * match, 409 for one still running, 503 when the log cannot be read.
 */
int
replay_match(FILE *out, const char *path, long long id, int api,
    const char *key, char *err, size_t errlen)
{
	struct replay	 rp;
	struct au	*a;
	int		 r;

	memset(&rp, 0, sizeof(rp));
	rp.out = out;
	rp.api = api;
	if ((a = replay_walker(path, err, errlen)) == NULL)
		return 503;
	if ((rp.revealed = replay_reveal(a->h, id)) == -1) {
		sqlite3_close(a->h);
		free(a);
		snprintf(err, errlen, "no such match");
		return 404;
	}
	a->mode = AU_SHOW;
	a->on_start = replay_start;
	a->on_row = replay_row;
	a->arg = &rp;
	a->out = out;
	r = au_match(a, id);
	if (r == 3 || r == 2) {
		sqlite3_close(a->h);
		free(a);
		snprintf(err, errlen, r == 3 ? "no such match" :
		    "the match is still playing");
		return r == 3 ? 404 : 409;
	}
	if (!rp.started) {	/* failed before its header was read */
		fprintf(out, "{\"api\":%d,\"match\":{\"id\":%lld},"
		    "\"rows\":[", api, id);
	}
	replay_verdict(out, a, r, id, key);
	sqlite3_close(a->h);
	free(a);
	return 0;
}

/*
 * Write exactly what refctl show --seat prints: the lines refd sent
 * seat of match id, rebuilt from its view.  Returns 0, or an HTTP
 * status with the reason in err: 403 while the match's hands may not
 * be shown, 404, 409, 503 as replay_match().
 */
int
replay_seat(FILE *out, const char *path, long long id, int seat, char *err,
    size_t errlen)
{
	struct au	*a;
	int		 r, rev;

	if ((a = replay_walker(path, err, errlen)) == NULL)
		return 503;
	rev = replay_reveal(a->h, id);
	if (rev != 1) {
		sqlite3_close(a->h);
		free(a);
		snprintf(err, errlen, rev == -1 ? "no such match" :
		    "its seed may not be revealed yet: no seat's lines");
		return rev == -1 ? 404 : 403;
	}
	a->mode = AU_VIEW;
	a->on_row = show_seat_row;
	a->vseat = seat;
	a->out = out;
	r = au_match(a, id);
	sqlite3_close(a->h);
	if (r == 1 && a->noseat) {
		snprintf(err, errlen, "no such seat");
		free(a);
		return 404;
	}
	free(a);
	if (r == 3) {
		snprintf(err, errlen, "no such match");
		return 404;
	}
	return 0;
}

/* May match id's hands be shown now?  1 yes, 0 no, -1 unknown. */
int
replay_revealed(const char *path, long long id)
{
	sqlite3	*h;
	int	 r;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(h);
		return -1;
	}
	r = replay_reveal(h, id);
	sqlite3_close(h);
	return r;
}

/* Open the log at path read-only; NULL with err when it cannot be. */
static sqlite3 *
replay_open(const char *path, char *err, size_t errlen)
{
	sqlite3	*h;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "the log cannot be read");
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 1000);
	return h;
}

/* A text column, or "". */
static const char *
replay_col(sqlite3_stmt *st, int i)
{
	const char	*s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

/*
 * The tournaments of the log at path, the latest first, as JSON:
 * id, name, state, total, done, started, ended.  Returns 0, or an HTTP
 * status with the reason in err.
 */
int
replay_tournaments(FILE *out, const char *path, char *err, size_t errlen)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	int		 n = 0;

	if ((h = replay_open(path, err, errlen)) == NULL)
		return 503;
	if (sqlite3_prepare_v2(h, "SELECT t.id, t.name, t.state, t.total, "
	    "(SELECT count(*) FROM matches m WHERE m.tournament = t.id AND "
	    "m.state = 'done'), t.started, coalesce(t.ended, '') FROM "
	    "tournaments t ORDER BY t.id DESC LIMIT 200", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		sqlite3_close(h);
		return 503;
	}
	fprintf(out, "{\"api\":1,\"tournaments\":[");
	while (sqlite3_step(st) == SQLITE_ROW) {
		fprintf(out, "%s{\"id\":%lld,\"name\":", n++ ? "," : "",
		    (long long)sqlite3_column_int64(st, 0));
		tstand_json_str(out, replay_col(st, 1));
		fprintf(out, ",\"state\":");
		tstand_json_str(out, replay_col(st, 2));
		fprintf(out, ",\"total\":%d,\"done\":%d,\"started\":",
		    sqlite3_column_int(st, 3), sqlite3_column_int(st, 4));
		tstand_json_str(out, replay_col(st, 5));
		fprintf(out, ",\"ended\":");
		tstand_json_str(out, replay_col(st, 6));
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
	sqlite3_finalize(st);
	sqlite3_close(h);
	return 0;
}

/*
 * Tournament tid from the log at path, as JSON: its progress with an
 * estimate of the time left, the standings as refctl tournament
 * standings --format json gives them (the seed hidden until the end),
 * the SPRT's LLR after each observation, and every match, all read in
 * one transaction: one state of the log.  Its matches done and its
 * state go to ti unless it is NULL.  Returns 0, or an HTTP status with
 * the reason in err.
 */
int
replay_tournament(FILE *out, const char *path, long long tid,
    struct replay_tinfo *ti, char *err, size_t errlen)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	double		 elapsed;
	int		 total, done, running, n = 0, code = 503;

	if ((h = replay_open(path, err, errlen)) == NULL)
		return 503;
	/* one snapshot of the log: the counts are the standings' */
	if (sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		goto out;
	}
	if (sqlite3_prepare_v2(h, "SELECT t.name, t.state, t.total, "
	    "(SELECT count(*) FROM matches m WHERE m.tournament = t.id AND "
	    "m.state = 'done'), (SELECT count(*) FROM matches m WHERE "
	    "m.tournament = t.id AND m.state = 'running'), t.started, "
	    "coalesce(t.ended, ''), (julianday(coalesce(t.ended, "
	    "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) - julianday(t.started)) "
	    "* 86400, coalesce(t.reason, '') FROM tournaments t WHERE t.id = "
	    "?1", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no such tournament");
		sqlite3_finalize(st);
		code = 404;
		goto out;
	}
	total = sqlite3_column_int(st, 2);
	done = sqlite3_column_int(st, 3);
	running = sqlite3_column_int(st, 4);
	elapsed = sqlite3_column_double(st, 7);
	if (ti != NULL) {
		ti->done = done;
		snprintf(ti->state, sizeof(ti->state), "%s",
		    replay_col(st, 1));
	}
	fprintf(out, "{\"api\":1,\"tournament\":{\"id\":%lld,\"name\":",
	    tid);
	tstand_json_str(out, replay_col(st, 0));
	fprintf(out, ",\"state\":");
	tstand_json_str(out, replay_col(st, 1));
	fprintf(out, ",\"total\":%d,\"done\":%d,\"running\":%d,"
	    "\"started\":", total, done, running);
	tstand_json_str(out, replay_col(st, 5));
	fprintf(out, ",\"ended\":");
	tstand_json_str(out, replay_col(st, 6));
	fprintf(out, ",\"reason\":");
	tstand_json_str(out, replay_col(st, 8));
	fprintf(out, ",\"elapsed_s\":%.0f,\"eta_s\":", elapsed);
	if (done > 0 && strcmp(replay_col(st, 1), "running") == 0)
		fprintf(out, "%.0f", elapsed / done * (total - done));
	else
		fprintf(out, "null");
	fprintf(out, "},\n\"standings\":");
	sqlite3_finalize(st);
	if (tstand_log_report(out, h, tid, TSTAND_JSON, err, errlen) == -1)
		fprintf(out, "null");
	fprintf(out, ",\n\"sprt\":");
	if (tstand_sprt_path(out, h, tid, err, errlen) == -1)
		fprintf(out, "null");
	fprintf(out, ",\n\"matches\":[");
	if (sqlite3_prepare_v2(h, "SELECT id, coalesce(slot, -1), state, "
	    "coalesce(result, '') FROM matches WHERE tournament = ?1 ORDER "
	    "BY id", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tid);
		while (sqlite3_step(st) == SQLITE_ROW) {
			fprintf(out, "%s{\"id\":%lld,\"slot\":%d,\"state\":",
			    n++ ? "," : "",
			    (long long)sqlite3_column_int64(st, 0),
			    sqlite3_column_int(st, 1));
			tstand_json_str(out, replay_col(st, 2));
			fprintf(out, ",\"result\":");
			tstand_json_str(out, replay_col(st, 3));
			fprintf(out, "}");
		}
		sqlite3_finalize(st);
	}
	fprintf(out, "]}\n");
	code = 0;
out:
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);	/* none is fine */
	sqlite3_close(h);
	return code;
}
