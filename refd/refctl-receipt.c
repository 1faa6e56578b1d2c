/*
 * refctl-receipt.c: refctl verify-receipt, which holds a log to the
 * receipt a bot was given in match_end (refd-protocol(7)) and, when the
 * bot kept one, to its own transcript: the lines it was sent and the
 * answers it gave.  The receipt's signature is checked with the key it
 * names, which the bot can compare with the one refd's operator
 * published; the log must hold that signed head, every link up to it,
 * the match's final link and result, and exactly the lines the seat
 * received.  A rewrite even by the key holder changes the final link
 * or a line the bot kept.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "botproto.h"
#include "auditlog.h"
#include "chain.h"
#include "refctl.h"
#include "util.h"

#define RC_LINEMAX	4096	/* a line of a transcript */

/* Exit statuses (refctl(1)): whose word fails, the log's or the bot's. */
#define RC_OK		0	/* the receipt and the log agree */
#define RC_LOG		1	/* refd's receipt, a log that disagrees */
#define RC_USAGE	2	/* usage, or no log to read */
#define RC_FORGED	3	/* the receipt or transcript is forged */
#define RC_OTHER	4	/* the receipt of another match */
#define RC_KEYS		5	/* receipt and log signed by other keys */

/* The receipt: the words of a match_end line. */
struct rc_receipt {
	char		 result[64], mpoints[64], seed[65], chain[65];
	long long	 head_no;
	char		 head[65], sig[129], key[65];
	int		 tx_seat;	/* transcript=: its seat, or -1 */
	long long	 nsent, nans;	/* its lines sent, answers read */
	char		 sent[65], ans[65]; /* and their hashes */
	char		 tx[CHAIN_TXMAX]; /* "N:SENT:K:ANSWERED" */
	int		 lost;		/* the log says it failed before the
					   end: its last rows may be lost */
};

/* What the seat's transcript holds. */
struct rc_lines {
	char		**line;
	int		 n, cap;
};

static int	 rc_parse(const char *, struct rc_receipt *);
static int	 rc_push(struct rc_lines *, const char *, size_t);
static void	 rc_free(struct rc_lines *);
static int	 rc_transcript(struct au *, long long, int, const char *,
		    const struct rc_receipt *);
/* How a failure of the log's transcripts begins: verify-receipt's, or
   the audit's "match N FAILED: " (receipt_rebuild()). */
static const char *rc_fail = "receipt FAILED: ";

static int	 rc_anstx(struct au *, long long, const struct rc_receipt *,
		    const struct rc_lines *);
static int	 rc_answers(struct au *, long long, int, struct rc_lines *);
static int	 rc_lost_say(const struct au *, struct rc_receipt *, int);
static void	 rc_word(const char *, const char *, char *, size_t);
static int	 rc_haskey(sqlite3 *, const char *);
static int	 rc_signed(sqlite3 *, long long, const char *,
		    const struct rc_receipt *, char *, size_t);
static int	 rc_view(struct au *, long long, int, struct rc_lines *);
static int	 rc_logtx(struct au *, long long, const struct rc_receipt *);
static int	 rc_filetx(const char *, long long, const struct rc_receipt *);

/* Read a match_end line, with or without a leading id, into r. */
static int
rc_parse(const char *line, struct rc_receipt *r)
{
	const char	*p = line;
	int		 n = 0;

	memset(r, 0, sizeof(*r));
	p += strspn(p, "0123456789");
	p += strspn(p, " ");
	r->tx_seat = -1;
	r->head_no = -1;
	if (sscanf(p, "match_end %63s %63s %64s %64s%n", r->result,
	    r->mpoints, r->seed, r->chain, &n) != 4 || strlen(r->chain) != 64 ||
	    strspn(r->chain, "0123456789abcdef") != 64)
		return -1;
	p += n;
	if (*p == '\0')
		return 0;	/* unsigned: told before the log held its end */
	n = 0;
	if (sscanf(p, " head=%lld:%64[0-9a-f] sig=%128[0-9a-f] "
	    "key=%64[0-9a-f]%n", &r->head_no, r->head, r->sig, r->key, &n) !=
	    4 || r->head_no < 1 || strlen(r->head) != 64 ||
	    strlen(r->sig) != 128 || strlen(r->key) != 64)
		return -1;
	p += n;
	if (*p == '\0')
		return 0;	/* a receipt of a refd before transcripts */
	n = 0;
	if (sscanf(p, " transcript=%d:%lld:%64[0-9a-f]:%lld:%64[0-9a-f]%n",
	    &r->tx_seat, &r->nsent, r->sent, &r->nans, r->ans, &n) != 5 ||
	    p[n] != '\0' || r->tx_seat < 0 || r->tx_seat >= BRI_MAXSEATS ||
	    r->nsent < 0 || r->nans < 0 || strlen(r->sent) != 64 ||
	    strlen(r->ans) != 64)
		return -1;
	snprintf(r->tx, sizeof(r->tx), "%lld:%s:%lld:%s", r->nsent, r->sent,
	    r->nans, r->ans);
	return 0;
}

/* Keep one line of the transcript. */
static int
rc_push(struct rc_lines *l, const char *s, size_t n)
{
	char	**nl;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		if ((nl = realloc(l->line, (size_t)l->cap * sizeof(*nl))) ==
		    NULL)
			return -1;
		l->line = nl;
	}
	if ((l->line[l->n] = malloc(n + 1)) == NULL)
		return -1;
	memcpy(l->line[l->n], s, n);
	l->line[l->n++][n] = '\0';
	return 0;
}

static void
rc_free(struct rc_lines *l)
{
	int	 i;

	for (i = 0; i < l->n; i++)
		free(l->line[i]);
	free(l->line);
}

/*
 * The lines the log says seat was sent in match id, rebuilt by show
 * --seat's code, into want.  0, or -1 with the reason printed.
 */
static int
rc_view(struct au *a, long long id, int seat, struct rc_lines *want)
{
	FILE	*mem;
	char	*buf = NULL, *p, *q;
	size_t	 len = 0;
	int	 r, rc = -1;

	if ((mem = open_memstream(&buf, &len)) == NULL)
		return -1;
	a->mode = AU_VIEW;
	a->vseat = seat;
	a->only_deal = 0;
	a->out = mem;
	a->on_start = NULL;
	a->on_row = show_seat_row;
	r = au_match(a, id);
	show_seat_flush(a);
	fclose(mem);
	/* the stream is gone: no later walk may write to it */
	a->mode = AU_AUDIT;
	a->out = NULL;
	a->on_row = NULL;
	if (r != 0) {
		printf("%smatch %lld: %s\n", rc_fail, id, r == 3 ?
		    "not in the log" : a->err);
		goto done;
	}
	for (p = buf; p != NULL && *p != '\0'; p = q + 1) {
		if ((q = strchr(p, '\n')) == NULL)
			q = p + strlen(p);
		if (rc_push(want, p, (size_t)(q - p)) == -1)
			goto done;
		if (*q == '\0')
			break;
	}
	rc = 0;
done:
	free(buf);
	return rc;
}

/*
 * The receipt's hash of the lines the seat was sent, against the lines
 * the log says it was sent from match_start on: a log rewritten after
 * the end, even re-signed by the key holder, no longer hashes to what
 * the bot was told.  0, or -1 with the difference printed.
 */
static int
rc_logtx(struct au *a, long long id, const struct rc_receipt *r)
{
	struct rc_lines	 want = { NULL, 0, 0 };
	struct chain_tx	 t;
	char		 hex[CHAIN_HEXLEN + 1];
	int		 i, rc = -1;

	if (rc_view(a, id, r->tx_seat, &want) == -1)
		goto done;
	chain_tx_init(&t);
	for (i = 0; i < want.n && t.n < r->nsent; i++)
		chain_tx_line(&t, want.line[i], strlen(want.line[i]));
	chain_tx_hex(&t, hex);
	if (t.n != r->nsent || strcmp(hex, r->sent) != 0 || (i < want.n &&
	    strncmp(want.line[i], "match_end ", 10) != 0))
		printf("%sthe lines the log says seat %d was sent do not "
		    "hash to the receipt's transcript (%lld lines, %.16s...): "
		    "the log was rewritten after the bot was told\n", rc_fail,
		    r->tx_seat, r->nsent, r->sent);
	else
		rc = rc_anstx(a, id, r, &want);
done:
	rc_free(&want);
	return rc;
}

/*
 * The receipt's hash of the answers the seat gave, rebuilt from the log
 * alone (refd-log(5), answers): the answer to each of the first K lines
 * it was sent (want) is the answers row of that line if there is one;
 * else, for a move, the answer chained with the move, in order; else,
 * for a notification, a bare "=".  0, or -1 with the difference printed.
 */
static int
rc_anstx(struct au *a, long long id, const struct rc_receipt *r,
    const struct rc_lines *want)
{
	struct rc_lines	 moves = { NULL, 0, 0 }, extra = { NULL, 0, 0 };
	struct chain_tx	 t;
	sqlite3_stmt	*st;
	const char	*p, *ans, *w;
	char		 hex[CHAIN_HEXLEN + 1];
	long long	*line = NULL, *nl;
	int		 i, k, im = 0, nx = 0, cap = 0, rc = -1, mv, late;

	if (rc_answers(a, id, r->tx_seat, &moves) == -1 ||
	    sqlite3_prepare_v2(a->h, "SELECT line, kind || ' ' || answer FROM"
	    " answers WHERE match_id = ?1 AND seat = ?2 ORDER BY line,"
	    " chain_no", -1, &st, NULL) != SQLITE_OK) {
		printf("%sthe log's answers cannot be read: %s\n", rc_fail,
		    sqlite3_errmsg(a->h));
		goto done;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, r->tx_seat);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if ((p = (const char *)sqlite3_column_text(st, 1)) == NULL)
			continue;
		if (nx == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nl = realloc(line, (size_t)cap * sizeof(*nl))) ==
			    NULL)
				break;
			line = nl;
		}
		if (rc_push(&extra, p, strlen(p)) == -1)
			break;
		line[nx++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	chain_tx_init(&t);
	for (i = 0, k = 0; i < want->n && t.n < r->nans; i++) {
		w = want->line[i];
		mv = strncmp(w, "genplay ", 8) == 0 ||
		    strncmp(w, "genbid ", 7) == 0 ||
		    strncmp(w, "gencall ", 8) == 0;
		while (k < nx && line[k] < i + 1)
			k++;
		if (k < nx && line[k] == i + 1) {
			/* "KIND =TEXT": a late one stands for a time-out */
			ans = strchr(extra.line[k], ' ') + 1;
			late = strncmp(extra.line[k], "late ", 5) == 0;
			if (mv && late && im < moves.n &&
			    moves.line[im][0] == '\0')
				im++;
		} else if (mv)
			ans = im < moves.n ? moves.line[im++] : "";
		else
			ans = "=";
		if (*ans == '\0')
			break;		/* timed out, and no answer after */
		chain_tx_line(&t, ans, strlen(ans));
	}
	chain_tx_hex(&t, hex);
	if (t.n != r->nans || strcmp(hex, r->ans) != 0)
		printf("%sthe answers the log holds for seat %d do not hash "
		    "to the receipt's (%lld answers, %.16s...; the log gives "
		    "%lld): the log was rewritten after the bot was told\n",
		    rc_fail, r->tx_seat, r->nans, r->ans, t.n);
	else
		rc = 0;
done:
	rc_free(&moves);
	rc_free(&extra);
	free(line);
	return rc;
}

/*
 * A bot's kept transcript (bots/randbot -r) against its receipt's
 * hashes: from the "match_start match=ID" line on, the first N lines it
 * received, without their ids, and its first K answers ("> " lines).
 * 0, or -1 with the difference printed.
 */
static int
rc_filetx(const char *path, long long id, const struct rc_receipt *r)
{
	struct chain_tx	 sent, ans;
	FILE		*fp;
	char		 line[RC_LINEMAX], start[64], sh[CHAIN_HEXLEN + 1];
	char		 ah[CHAIN_HEXLEN + 1], *p;
	int		 in = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		printf("receipt FAILED: %s cannot be read\n", path);
		return -1;
	}
	snprintf(start, sizeof(start), "match_start match=%lld ", id);
	chain_tx_init(&sent);
	chain_tx_init(&ans);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "> ", 2) == 0) {
			if (in && ans.n < r->nans)
				chain_tx_line(&ans, line + 2, strlen(line + 2));
			continue;
		}
		p = line + strspn(line, "0123456789");
		if (*p == ' ')
			p++;
		if (!in && strncmp(p, start, strlen(start)) == 0)
			in = 1;
		if (in && sent.n < r->nsent)
			chain_tx_line(&sent, p, strlen(p));
	}
	fclose(fp);
	chain_tx_hex(&sent, sh);
	chain_tx_hex(&ans, ah);
	if (!in) {
		printf("receipt FORGED: %s holds no match_start of match "
		    "%lld\n", path, id);
		return -1;
	}
	if (sent.n != r->nsent || strcmp(sh, r->sent) != 0) {
		printf("receipt FORGED: the %lld lines the transcript received "
		    "from match_start on do not hash to the receipt's "
		    "(%.16s...): the transcript is not what refd sent\n",
		    r->nsent, r->sent);
		return -1;
	}
	if (ans.n != r->nans || strcmp(ah, r->ans) != 0) {
		printf("receipt FORGED: the transcript's first %lld answers "
		    "from match_start on do not hash to the receipt's "
		    "(%.16s...): they are not what refd read\n", r->nans,
		    r->ans);
		return -1;
	}
	return 0;
}

/*
 * The seat's answers to its moves in the log, in link order, one line
 * each into l: "=ANSWER" (or "?...") as chained with the move it led
 * to, or "" for a move the seat was asked and timed out on, whose late
 * answer, if any, the log does not hold.  A move refd made for the seat
 * after a time-out is no answer of the seat's, nor is a time-out on a
 * move never asked (its bank was spent).  0, or -1.
 */
static int
rc_answers(struct au *a, long long id, int seat, struct rc_lines *l)
{
	sqlite3_stmt	*st;
	const char	*p, *kind;
	int		 rc = 0;

	if (sqlite3_prepare_v2(a->h, "SELECT kind, answer FROM ("
	    " SELECT chain_no, 'move' AS kind, answer FROM plays"
	    "  WHERE match_id = ?1 AND seat = ?2 AND answer IS NOT NULL"
	    " UNION ALL SELECT chain_no, 'move', answer FROM calls"
	    "  WHERE match_id = ?1 AND seat = ?2 AND answer IS NOT NULL"
	    " UNION ALL SELECT chain_no, 'timeout', NULL FROM faults"
	    "  WHERE match_id = ?1 AND seat = ?2 AND kind = 'timeout' AND"
	    "  evidence NOT LIKE 'time bank exhausted%')"
	    " ORDER BY chain_no", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, seat);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		kind = (const char *)sqlite3_column_text(st, 0);
		p = (const char *)sqlite3_column_text(st, 1);
		if (kind != NULL && strcmp(kind, "move") == 0 && p != NULL)
			rc = rc_push(l, p, strlen(p));
		else
			rc = rc_push(l, "", 0);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The lines the seat kept (transcript file: "ID line" as received, and
 * "> answer" for what it answered, without the id, as bots/randbot -r
 * writes it), from match id's match_start to its match_end, against the
 * lines the log says it was sent, rebuilt by show --seat's code, and its
 * answers to its moves against the answers the log chained.  Answers
 * pair with the lines they answer in order, as GTP's do.  An unsigned
 * receipt was told before the log held the match's end: its match_end
 * line is held to the log's result, points and seed only.  0, or -1 with
 * the first difference printed.
 */
static int
rc_transcript(struct au *a, long long id, int seat, const char *path,
    const struct rc_receipt *rr)
{
	static const char *const skip[] = { "name", "version", "quit",
	    "protocol_version", "list_commands", "known_command" };
	struct rc_lines	 got = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	struct rc_lines	 ans = { NULL, 0, 0 }, logged = { NULL, 0, 0 };
	FILE		*fp;
	char		 line[RC_LINEMAX], start[64], *p;
	char		*move = NULL, *nm;	/* is the i-th asked a move */
	size_t		 i, k;
	int		 rc = -1, skipped, in = 0, nasked = 0, nread = 0;
	int		 nans, done = 0, cap = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		printf("receipt FAILED: %s cannot be read\n", path);
		return -1;
	}
	snprintf(start, sizeof(start), "match_start match=%lld ", id);
	while (!done && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "> ", 2) == 0) {
			if (!in)
				continue;
			/* only answers to moves are plays and calls */
			if (nread < nasked && move[nread] && rc_push(&ans, line + 2,
			    strlen(line + 2)) == -1)
				goto done;
			nread++;
			continue;
		}
		p = line + strspn(line, "0123456789");
		p += strspn(p, " ");
		if (!in && strncmp(p, start, strlen(start)) != 0)
			continue;
		in = 1;
		if (nasked == cap) {
			cap = cap ? 2 * cap : 1024;
			if ((nm = realloc(move, (size_t)cap)) == NULL)
				goto done;
			move = nm;
		}
		move[nasked] = strncmp(p, "genplay ", 8) == 0 ||
			    strncmp(p, "genbid ", 7) == 0 ||
			    strncmp(p, "gencall ", 8) == 0;
		nasked++;
		for (skipped = 0, k = 0; k < sizeof(skip) / sizeof(skip[0]);
		    k++)
			if (strncmp(p, skip[k], strlen(skip[k])) == 0 &&
			    (p[strlen(skip[k])] == '\0' ||
			    p[strlen(skip[k])] == ' '))
				skipped = 1;
		if (!skipped && *p != '\0' && rc_push(&got, p, strlen(p)) ==
		    -1)
			goto done;
		/* the match's lines end with its match_end and its answer */
		if (strncmp(p, "match_end ", 10) == 0)
			done = 1;
	}
	/* the answer to match_end, if the bot wrote it */
	fclose(fp);
	fp = NULL;
	if (!in) {
		printf("receipt FAILED: %s holds no match_start of match "
		    "%lld\n", path, id);
		goto done;
	}
	/* the lines the log says the seat was sent */
	if (rc_view(a, id, seat, &want) == -1)
		goto done;
	/*
	 * An unsigned end was told before the log held it, and so may be
	 * what came just before it: the lines the log holds are then the
	 * first the seat received, and its match_end has the log's result,
	 * points and seed.
	 */
	if ((rr->head_no < 0 || rr->lost) && want.n > 0 && got.n > want.n &&
	    strncmp(got.line[got.n - 1], "match_end ", 10) == 0 &&
	    strncmp(want.line[want.n - 1], "match_end ", 10) == 0) {
		free(got.line[want.n - 1]);
		got.line[want.n - 1] = got.line[got.n - 1];
		for (i = want.n; i < (size_t)got.n - 1; i++)
			free(got.line[i]);
		printf("receipt: the seat was told %d line%s the log does not "
		    "hold before its end: the log refused %s\n",
		    got.n - want.n, got.n - want.n == 1 ? "" : "s",
		    got.n - want.n == 1 ? "it" : "them");
		got.n = want.n;
	}
	for (i = 0; i < (size_t)got.n || i < (size_t)want.n; i++) {
		if (i < (size_t)got.n && i < (size_t)want.n &&
		    strcmp(got.line[i], want.line[i]) == 0)
			continue;
		/* an unsigned end: its result, points and seed */
		if ((rr->head_no < 0 || rr->lost) && i + 1 == (size_t)got.n &&
		    i + 1 == (size_t)want.n &&
		    strncmp(got.line[i], "match_end ", 10) == 0 &&
		    strncmp(want.line[i], "match_end ", 10) == 0 &&
		    strncmp(got.line[i], want.line[i], 10 + strlen(rr->result) +
		    strlen(rr->mpoints) + strlen(rr->seed) + 3) == 0)
			continue;
		util_printable(line, 200, i < (size_t)got.n ? got.line[i] :
		    "(nothing)", i < (size_t)got.n ? strlen(got.line[i]) : 9);
		printf("receipt FAILED: line %zu the seat received, '%s', is "
		    "not what the log says it was sent: ", i + 1, line);
		util_printable(line, 200, i < (size_t)want.n ?
		    want.line[i] : "(nothing)", i < (size_t)want.n ?
		    strlen(want.line[i]) : 9);
		printf("'%s': the log was rewritten\n", line);
		goto done;
	}
	/*
	 * its answers to its moves (genplay, and chiamata5's genbid and
	 * gencall), against the answers the log chained, in link order;
	 * an answer the log does not hold (it came after its time-out)
	 * stands on the receipt's hash alone
	 */
	if (rc_answers(a, id, seat, &logged) == -1) {
		printf("receipt FAILED: the log's moves cannot be read: %s\n",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	for (nans = 0; nans < ans.n && nans < logged.n; nans++) {
		if (logged.line[nans][0] == '\0' ||
		    strcmp(ans.line[nans], logged.line[nans]) == 0)
			continue;
		util_printable(line, 200, ans.line[nans],
		    strlen(ans.line[nans]));
		printf("receipt FAILED: answer %d of the seat to a move was "
		    "'%s', the log chains '", nans + 1, line);
		util_printable(line, 200, logged.line[nans],
		    strlen(logged.line[nans]));
		printf("%s': the log was rewritten\n", line);
		goto done;
	}
	rc = 0;
done:
	if (fp != NULL)
		fclose(fp);
	rc_free(&got);
	rc_free(&want);
	rc_free(&ans);
	rc_free(&logged);
	free(move);
	return rc;
}

/*
 * Did match a (walked) end on a log failure?  Then refd may have told
 * its seats lines whose rows the log lost (refd(8), DURABILITY), and
 * their transcript hashes cannot be rebuilt from it.
 */
int
receipt_lost(const struct au *a)
{
	return strcmp(a->state, "aborted") == 0 &&
	    strncmp(a->reason, "log failure", 11) == 0;
}

/*
 * receipt_lost() of the match walked, kept in r and said: 1 when the seat's
 * lines after the log's last row stand on the receipt alone.
 */
static int
rc_lost_say(const struct au *a, struct rc_receipt *r, int transcript)
{
	if ((r->lost = receipt_lost(a)))
		printf("receipt: match %lld ended on a log failure, so the "
		    "lines refd sent the seat after the log's last row may "
		    "not be in it: they stand on the receipt's hashes%s\n",
		    a->id, transcript ? " and the seat's transcript" :
		    " alone");
	return r->lost;
}

/* The word after key (" result=") in an event's text, into buf. */
static void
rc_word(const char *text, const char *key, char *buf, size_t len)
{
	const char	*p;
	size_t		 n;

	buf[0] = '\0';
	if ((p = strstr(text, key)) == NULL)
		return;
	p += strlen(key);
	n = strcspn(p, " ");
	if (n < len) {
		memcpy(buf, p, n);
		buf[n] = '\0';
	}
}

/* Did the log ever sign with key (64 hex digits)? */
static int
rc_haskey(sqlite3 *h, const char *key)
{
	sqlite3_stmt	*st;
	int		 yes = 0;

	if (sqlite3_prepare_v2(h, "SELECT 1 FROM log_chain WHERE kind = 'key'"
	    " AND substr(text, 5) = ?1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/*
 * The receipt on its own, against the log's key and the log's events:
 * whether refd signed it, for which match, and with which words.  key
 * is the key refd's operator published, or NULL (then the log's own key
 * stands for it).  Returns RC_OK, or the exit status with the reason
 * printed; the log's key in force at the receipt's head goes to logkey.
 */
static int
rc_signed(sqlite3 *h, long long id, const char *key,
    const struct rc_receipt *r, char *logkey, size_t logkeylen)
{
	sqlite3_stmt	*st;
	uint8_t		 sig[crypto_sign_BYTES], link[32], pk[32];
	const char	*kind, *text, *k;
	char		 tx[CHAIN_TXMAX], res[AU_WORDMAX + 1];
	char		 fin[AU_HEX + 1];
	long long	 no = -1, mid = -1;
	int		 rc = RC_OK;

	if (sodium_hex2bin(sig, sizeof(sig), r->sig, 128, NULL, NULL, NULL) !=
	    0 || sodium_hex2bin(link, sizeof(link), r->head, 64, NULL, NULL,
	    NULL) != 0 || sodium_hex2bin(pk, sizeof(pk), r->key, 64, NULL,
	    NULL, NULL) != 0 || crypto_sign_verify_detached(sig, link,
	    sizeof(link), pk) != 0) {
		printf("receipt FORGED: its signature does not verify with "
		    "the key it names: refd never signed it\n");
		return RC_FORGED;
	}
	/* the event the signed head is the link of, and the key then */
	logkey[0] = '\0';
	if (sqlite3_prepare_v2(h, "SELECT e.no, e.kind, e.match_id, e.text,"
	    " (SELECT substr(k.text, 5) FROM log_chain AS k WHERE k.kind ="
	    " 'key' AND k.no < e.no ORDER BY k.no DESC LIMIT 1)"
	    " FROM log_chain AS e WHERE e.link = ?1 ORDER BY e.no LIMIT 1",
	    -1, &st, NULL) != SQLITE_OK) {
		printf("receipt FAILED: the log chain cannot be read: %s\n",
		    sqlite3_errmsg(h));
		return RC_LOG;
	}
	sqlite3_bind_text(st, 1, r->head, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		no = sqlite3_column_int64(st, 0);
		kind = (const char *)sqlite3_column_text(st, 1);
		mid = sqlite3_column_int64(st, 2);
		text = (const char *)sqlite3_column_text(st, 3);
		k = (const char *)sqlite3_column_text(st, 4);
		snprintf(logkey, logkeylen, "%s", k != NULL ? k : "");
		if (kind == NULL || strcmp(kind, "end") != 0 || text == NULL) {
			printf("receipt FORGED: its signed head is event %lld "
			    "of the log, which is no match's end\n", no);
			rc = RC_FORGED;
		} else if (no != r->head_no) {
			printf("receipt FORGED: its signed head is event %lld "
			    "of the log, the end of match %lld, but it says "
			    "%lld\n", no, mid, r->head_no);
			rc = RC_FORGED;
		} else if (mid != id) {
			printf("receipt OTHER MATCH: it is the receipt of "
			    "match %lld (signed head %lld), not of match "
			    "%lld\n", mid, no, id);
			rc = RC_OTHER;
		}
		/* the words the signed end commits to */
		rc_word(text, " result=", res, sizeof(res));
		rc_word(text, " final=", fin, sizeof(fin));
		if (rc == RC_OK && strcmp(res, r->result) != 0) {
			printf("receipt FORGED: it says result %s, but refd "
			    "signed the end of match %lld with result %s\n",
			    r->result, id, res);
			rc = RC_FORGED;
		} else if (rc == RC_OK && strcmp(fin, r->chain) != 0) {
			printf("receipt FORGED: its final link %.16s... is not "
			    "the one refd signed, %.16s...\n", r->chain, fin);
			rc = RC_FORGED;
		} else if (rc == RC_OK && r->tx_seat >= 0 &&
		    (chain_tx_find(text, r->tx_seat, tx, sizeof(tx)) != 1 ||
		    strcmp(tx, r->tx) != 0)) {
			printf("receipt FORGED: its transcript hashes of seat "
			    "%d are not the ones refd signed\n", r->tx_seat);
			rc = RC_FORGED;
		}
	}
	sqlite3_finalize(st);
	if (rc != RC_OK)
		return rc;
	/* whose key: the published one, else the log's own */
	if (key != NULL && strcmp(r->key, key) != 0) {
		printf("receipt FORGED: it is signed with key %.16s..., not "
		    "with the published key %.16s...\n", r->key, key);
		return RC_FORGED;
	}
	if (no < 0 && key == NULL && !rc_haskey(h, r->key)) {
		printf("receipt KEYS DIFFER: the log holds no event with its "
		    "signed head %lld:%.16s..., and never signed with its key "
		    "%.16s...: either the receipt is forged or the log was "
		    "signed again; --key with the key refd's operator "
		    "published tells which\n", r->head_no, r->head, r->key);
		return RC_KEYS;
	}
	if (no < 0) {
		printf("receipt FAILED: the log holds no event with its signed "
		    "head %lld:%.16s...: the log was rewritten or cut after "
		    "it\n", r->head_no, r->head);
		return RC_LOG;
	}
	if (strcmp(logkey, r->key) != 0) {
		if (key != NULL)
			printf("receipt FAILED: the log signs this end with "
			    "key %.16s..., not with the published key: the "
			    "log was rewritten\n", logkey);
		else
			printf("receipt KEYS DIFFER: it is signed with key "
			    "%.16s..., the log with %.16s...: either the "
			    "receipt is forged or the log was signed again; "
			    "--key with the key refd's operator published "
			    "tells which\n", r->key, logkey);
		return key != NULL ? RC_LOG : RC_KEYS;
	}
	return RC_OK;
}

/*
 * refctl verify-receipt --db FILE --match ID --receipt LINE
 * [--transcript FILE [--seat S]] [--key KEY]: 0 if the log holds what
 * the receipt (and the transcript) say, 1 if the log was rewritten, 2 on
 * usage or an unreadable log, 3 if the receipt or the transcript is
 * forged, 4 if the receipt is of another match, 5 if the receipt and the
 * log are signed with different keys and no --key says which is refd's
 * (refctl(1), EXIT STATUS).
 */
int
cmd_verify_receipt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "match", required_argument, NULL, 'm' },
		{ "receipt", required_argument, NULL, 'r' },
		{ "transcript", required_argument, NULL, 't' },
		{ "seat", required_argument, NULL, 's' },
		{ "key", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	struct rc_receipt rr;
	struct au	*a;
	FILE		*devnull;
	const char	*path = NULL, *line = NULL, *tpath = NULL, *errstr;
	const char	*key = NULL, *seed;
	char		 logkey[AU_HEX + 1], end[BOTPROTO_MAXLINE], mp[64];
	long long	 id = -1;
	int		 ch, seat = -1, bad = RC_LOG;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "d:m:r:t:s:k:", opts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'm':
			id = au_id(optarg);
			break;
		case 'r':
			line = optarg;
			break;
		case 't':
			tpath = optarg;
			break;
		case 's':
			seat = (int)util_num(optarg, 0, BRI_MAXSEATS - 1,
			    &errstr);
			if (errstr != NULL)
				goto usage;
			break;
		case 'k':
			key = optarg;
			if (strlen(key) != 64 ||
			    strspn(key, "0123456789abcdef") != 64)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || id < 0 || line == NULL || optind != argc)
		goto usage;
	if (rc_parse(line, &rr) == -1) {
		fprintf(stderr, "refctl verify-receipt: not a match_end line "
		    "(result, points, seed, final link, then head=, sig=, "
		    "key= and transcript=, if refd signed it)\n");
		return RC_USAGE;
	}
	if (tpath != NULL && seat < 0 && (seat = rr.tx_seat) < 0)
		goto usage;	/* an older receipt names no seat */
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return RC_USAGE;
	if (au_open(path, &a->h) == -1) {
		free(a);
		return RC_USAGE;
	}
	if ((devnull = fopen("/dev/null", "w")) == NULL)
		goto done;
	/* first the receipt itself: refd's, of this match, as signed */
	if (rr.head_no >= 0 && (bad = rc_signed(a->h, id, key, &rr, logkey,
	    sizeof(logkey))) != RC_OK)
		;
	else if ((bad = RC_LOG, 0))
		;
	/* then the log: the chain, the match, the seat's lines */
	else if (al_log(a->h, rr.head_no >= 0 ? logkey : key, devnull) > 0)
		printf("receipt FAILED: the log chain does not verify with "
		    "the %s key (refctl audit says where): the log was "
		    "rewritten\n", rr.head_no >= 0 ? "receipt's" : "log's");
	else if ((a->mode = AU_AUDIT, au_match(a, id)) != 0)
		printf("receipt FAILED: match %lld does not audit: %s\n", id,
		    a->err[0] ? a->err : "not in the log, or running");
	else if (rr.head_no >= 0 && strcmp(a->final, rr.chain) != 0)
		printf("receipt FAILED: the log's match %lld ends on another "
		    "final link than the one refd signed: it was rewritten\n",
		    id);
	else if (rr.head_no >= 0 && strcmp(a->result, rr.result) != 0)
		printf("receipt FAILED: the log's match %lld has result %s, "
		    "refd signed %s: it was rewritten\n", id, a->result,
		    rr.result);
	else if (seed = au_option(a, "seed_reveal=tournament") ? "-" :
	    a->seedhex, strcmp(seed, rr.seed) != 0) {
		printf("receipt %s: it says seed %.16s, match %lld was told "
		    "seed %.16s\n", rr.head_no >= 0 ? "FORGED" : "FAILED",
		    rr.seed, id, seed);
		bad = rr.head_no >= 0 ? RC_FORGED : RC_LOG;
	} else if (botproto_match_end_text(end, sizeof(end), a->result,
	    a->bm.mpoints, a->nseats, "-", a->final, NULL),
	    sscanf(end, "match_end %*s %63s", mp) != 1 ||
	    strcmp(mp, rr.mpoints) != 0) {
		printf("receipt %s: it says match points %s, the match ended "
		    "on %s\n", rr.head_no >= 0 ? "FORGED" : "FAILED",
		    rr.mpoints, mp);
		bad = rr.head_no >= 0 ? RC_FORGED : RC_LOG;
	} else if (rr.head_no < 0 && strcmp(a->result, rr.result) != 0)
		printf("receipt FAILED: the log's match %lld has result %s, "
		    "the unsigned receipt %s\n", id, a->result, rr.result);
	else if (rr.tx_seat >= 0 && !rc_lost_say(a, &rr, tpath != NULL) &&
	    rc_logtx(a, id, &rr) == -1)
		;
	else if (tpath != NULL && rr.tx_seat >= 0 && seat != rr.tx_seat) {
		printf("receipt FORGED: the receipt is seat %d's, not seat "
		    "%d's\n", rr.tx_seat, seat);
		bad = RC_FORGED;
	} else if (tpath != NULL && rr.tx_seat >= 0 &&
	    rc_filetx(tpath, id, &rr) == -1)
		bad = RC_FORGED;
	else if (tpath != NULL && rc_transcript(a, id, seat, tpath, &rr) ==
	    -1)
		;
	else {
		printf("receipt verified: match %lld", id);
		if (seat >= 0 || rr.tx_seat >= 0)
			printf(", seat %d", seat >= 0 ? seat : rr.tx_seat);
		printf(", result %s, final link %.16s...", rr.result,
		    rr.chain);
		if (rr.head_no >= 0)
			printf(", signed head %lld", rr.head_no);
		else
			printf(", unsigned: refd told this end before the log "
			    "held it (the log refused a write), so the final "
			    "link is refd's word alone");
		printf("%s\n", tpath != NULL ? ", and the seat's transcript" :
		    "");
		bad = RC_OK;
	}
	fclose(devnull);
done:
	sqlite3_close(a->h);
	free(a);
	return bad;
usage:
	fprintf(stderr, "usage: refctl verify-receipt --db FILE --match ID "
	    "--receipt LINE [--transcript FILE [--seat S]] [--key KEY]\n");
	return RC_USAGE;
}

/*
 * refctl audit's check of a match that verified: the transcript hashes
 * its signed end chains for each seat (refd-protocol(7), RECEIPTS),
 * rebuilt from the log alone, the lines each seat was sent and the
 * answers it gave (refd-log(5), answers).  a is a walker of its own on
 * the log.  0 when every seat's hashes rebuild or the end holds none;
 * -1 with "match ID FAILED: ..." printed.
 */
int
receipt_rebuild(struct au *a, long long id)
{
	struct rc_receipt r;
	sqlite3_stmt	*st;
	const char	*text;
	char		 end[CHAIN_TEXTMAX], pre[64];
	int		 seat, rc = 0, f;

	if (sqlite3_prepare_v2(a->h, "SELECT text FROM log_chain WHERE kind ="
	    " 'end' AND match_id = ?1 ORDER BY no LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;	/* the log chain's audit says why */
	sqlite3_bind_int64(st, 1, id);
	end[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (text = (const char *)sqlite3_column_text(st, 0)) != NULL)
		snprintf(end, sizeof(end), "%s", text);
	sqlite3_finalize(st);
	snprintf(pre, sizeof(pre), "match %lld FAILED: ", id);
	rc_fail = pre;
	for (seat = 0; seat < BRI_MAXSEATS && rc == 0; seat++) {
		memset(&r, 0, sizeof(r));
		if ((f = chain_tx_find(end, seat, r.tx, sizeof(r.tx))) != 1)
			break;		/* no more seats, or none kept */
		if (strcmp(r.tx, "-") == 0)
			continue;
		r.tx_seat = seat;
		if (sscanf(r.tx, "%lld:%64[0-9a-f]:%lld:%64[0-9a-f]", &r.nsent,
		    r.sent, &r.nans, r.ans) != 4)
			continue;	/* the log chain's audit says why */
		rc = rc_logtx(a, id, &r);
	}
	rc_fail = "receipt FAILED: ";
	return rc;
}
