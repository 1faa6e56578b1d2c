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
#include "auditlog.h"
#include "chain.h"
#include "refctl.h"
#include "util.h"

#define RC_LINEMAX	4096	/* a line of a transcript */

/* The receipt: the words of a match_end line. */
struct rc_receipt {
	char		 result[64], mpoints[64], seed[65], chain[65];
	long long	 head_no;
	char		 head[65], sig[129], key[65];
	int		 tx_seat;	/* transcript=: its seat, or -1 */
	long long	 nsent, nans;	/* its lines sent, answers read */
	char		 sent[65], ans[65]; /* and their hashes */
	char		 tx[CHAIN_TXMAX]; /* "N:SENT:K:ANSWERED" */
};

/* What the seat's transcript holds. */
struct rc_lines {
	char		**line;
	int		 n, cap;
};

static int	 rc_parse(const char *, struct rc_receipt *);
static int	 rc_push(struct rc_lines *, const char *, size_t);
static void	 rc_free(struct rc_lines *);
static int	 rc_head(sqlite3 *, long long, const struct rc_receipt *);
static int	 rc_transcript(struct au *, long long, int, const char *);
static int	 rc_view(struct au *, long long, int, struct rc_lines *);
static int	 rc_logtx(struct au *, long long, const struct rc_receipt *);
static int	 rc_endtx(sqlite3 *, const struct rc_receipt *);
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
	if (sscanf(p, "match_end %63s %63s %64s %64s head=%lld:%64[0-9a-f] "
	    "sig=%128[0-9a-f] key=%64[0-9a-f]%n", r->result, r->mpoints,
	    r->seed, r->chain, &r->head_no, r->head, r->sig, r->key, &n) != 8 ||
	    strlen(r->head) != 64 || strlen(r->sig) != 128 ||
	    strlen(r->key) != 64 || strlen(r->chain) != 64)
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
 * The signed head of the receipt is in the log: event head_no is the
 * match's end, with the receipt's link.
 */
static int
rc_head(sqlite3 *h, long long id, const struct rc_receipt *r)
{
	sqlite3_stmt	*st;
	const char	*kind, *link;
	long long	 mid;
	int		 ok = 0;

	if (sqlite3_prepare_v2(h, "SELECT kind, match_id, link FROM log_chain"
	    " WHERE no = ?1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, r->head_no);
	if (sqlite3_step(st) == SQLITE_ROW) {
		kind = (const char *)sqlite3_column_text(st, 0);
		mid = sqlite3_column_int64(st, 1);
		link = (const char *)sqlite3_column_text(st, 2);
		ok = kind != NULL && strcmp(kind, "end") == 0 && mid == id &&
		    link != NULL && strcmp(link, r->head) == 0;
	}
	sqlite3_finalize(st);
	return ok;
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
	fclose(mem);
	/* the stream is gone: no later walk may write to it */
	a->mode = AU_AUDIT;
	a->out = NULL;
	a->on_row = NULL;
	if (r != 0) {
		printf("receipt FAILED: match %lld: %s\n", id, r == 3 ?
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
		printf("receipt FAILED: the lines the log says seat %d was "
		    "sent do not hash to the receipt's transcript (%lld "
		    "lines, %.16s...): the log was rewritten after the bot "
		    "was told\n", r->tx_seat, r->nsent, r->sent);
	else
		rc = 0;
done:
	rc_free(&want);
	return rc;
}

/*
 * The receipt's transcript hashes are the ones the log's signed end
 * chains for its seat.
 */
static int
rc_endtx(sqlite3 *h, const struct rc_receipt *r)
{
	sqlite3_stmt	*st;
	const char	*text;
	char		 tx[CHAIN_TXMAX];
	int		 ok = 0;

	if (sqlite3_prepare_v2(h, "SELECT text FROM log_chain WHERE no = ?1",
	    -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, r->head_no);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (text = (const char *)sqlite3_column_text(st, 0)) != NULL)
		ok = chain_tx_find(text, r->tx_seat, tx, sizeof(tx)) == 1 &&
		    strcmp(tx, r->tx) == 0;
	sqlite3_finalize(st);
	return ok;
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
		printf("receipt FAILED: %s holds no match_start of match "
		    "%lld\n", path, id);
		return -1;
	}
	if (sent.n != r->nsent || strcmp(sh, r->sent) != 0) {
		printf("receipt FAILED: the %lld lines the transcript received "
		    "from match_start on do not hash to the receipt's "
		    "(%.16s...): the transcript is not what refd sent\n",
		    r->nsent, r->sent);
		return -1;
	}
	if (ans.n != r->nans || strcmp(ah, r->ans) != 0) {
		printf("receipt FAILED: the transcript's first %lld answers "
		    "from match_start on do not hash to the receipt's "
		    "(%.16s...): they are not what refd read\n", r->nans,
		    r->ans);
		return -1;
	}
	return 0;
}

/*
 * The lines the seat kept (transcript file: "ID line" as received, and
 * "> answer" for what it answered, without the id, as bots/randbot -r
 * writes it) against the lines the log says it was
 * sent, rebuilt by show --seat's code, and its answers against the
 * answers the log chained.  0, or -1 with the first difference printed.
 */
static int
rc_transcript(struct au *a, long long id, int seat, const char *path)
{
	static const char *const skip[] = { "name", "version", "quit",
	    "protocol_version", "list_commands", "known_command" };
	struct rc_lines	 got = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	struct rc_lines	 ans = { NULL, 0, 0 };
	sqlite3_stmt	*st = NULL;
	FILE		*fp;
	char		 line[RC_LINEMAX], *p;
	size_t		 i, k;
	int		 rc = -1, n, skipped, nans = 0, asked = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		printf("receipt FAILED: %s cannot be read\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "> ", 2) == 0) {
			/* only answers to moves are plays and calls */
			if (asked && rc_push(&ans, line + 2,
			    strlen(line + 2)) == -1)
				goto done;
			asked = 0;
			continue;
		}
		p = line + strspn(line, "0123456789");
		p += strspn(p, " ");
		asked = strncmp(p, "genplay ", 8) == 0 ||
		    strncmp(p, "genbid ", 7) == 0 ||
		    strncmp(p, "gencall ", 8) == 0;
		for (skipped = 0, k = 0; k < sizeof(skip) / sizeof(skip[0]);
		    k++)
			if (strncmp(p, skip[k], strlen(skip[k])) == 0 &&
			    (p[strlen(skip[k])] == '\0' ||
			    p[strlen(skip[k])] == ' '))
				skipped = 1;
		if (!skipped && *p != '\0' && rc_push(&got, p, strlen(p)) ==
		    -1)
			goto done;
	}
	fclose(fp);
	fp = NULL;
	/* the lines the log says the seat was sent */
	if (rc_view(a, id, seat, &want) == -1)
		goto done;
	for (i = 0; i < (size_t)got.n || i < (size_t)want.n; i++) {
		if (i < (size_t)got.n && i < (size_t)want.n &&
		    strcmp(got.line[i], want.line[i]) == 0)
			continue;
		util_printable(line, 200, i < (size_t)got.n ? got.line[i] :
		    "(nothing)", i < (size_t)got.n ? strlen(got.line[i]) : 9);
		printf("receipt FAILED: line %zu the seat received, '%s', is "
		    "not what the log says it was sent: ", i + 1, line);
		util_printable(line, 200, i < (size_t)want.n ?
		    want.line[i] : "(nothing)", i < (size_t)want.n ?
		    strlen(want.line[i]) : 9);
		printf("'%s'\n", line);
		goto done;
	}
	/*
	 * its answers to its moves (genplay, and chiamata5's genbid and
	 * gencall), against the answers the log chained, in link order
	 */
	if (ans.n > 0) {
		if (sqlite3_prepare_v2(a->h, "SELECT answer FROM (SELECT"
		    " chain_no, answer FROM plays WHERE match_id = ?1 AND"
		    " seat = ?2 UNION ALL SELECT chain_no, answer FROM calls"
		    " WHERE match_id = ?1 AND seat = ?2) WHERE answer IS NOT"
		    " NULL ORDER BY chain_no", -1, &st, NULL) != SQLITE_OK)
			goto done;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, seat);
		for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++) {
			p = (char *)sqlite3_column_text(st, 0);
			if (nans >= ans.n || p == NULL ||
			    strcmp(ans.line[nans], p) != 0) {
				printf("receipt FAILED: answer %d of the seat "
				    "was '%s', the log chains '%s'\n", n + 1,
				    nans < ans.n ? ans.line[nans] : "(none)",
				    p != NULL ? p : "(none)");
				goto done;
			}
			nans++;
		}
	}
	rc = 0;
done:
	if (fp != NULL)
		fclose(fp);
	sqlite3_finalize(st);
	rc_free(&got);
	rc_free(&want);
	rc_free(&ans);
	return rc;
}

/*
 * refctl verify-receipt --db FILE --match ID --receipt LINE
 * [--transcript FILE --seat S]: exit 0 if the log holds what the receipt
 * (and the transcript) say, 1 if not, 2 on usage or an unreadable log.
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
		{ NULL, 0, NULL, 0 }
	};
	struct rc_receipt rr;
	struct au	*a;
	FILE		*devnull;
	const char	*path = NULL, *line = NULL, *tpath = NULL, *errstr;
	uint8_t		 sig[crypto_sign_BYTES], link[32], pk[32];
	long long	 id = -1;
	int		 ch, seat = -1, bad = 1;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "d:m:r:t:s:", opts, NULL)) !=
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
		default:
			goto usage;
		}
	}
	if (path == NULL || id < 0 || line == NULL || optind != argc)
		goto usage;
	if (rc_parse(line, &rr) == -1) {
		fprintf(stderr, "refctl verify-receipt: not a match_end line "
		    "with a receipt (head=, sig=, key=)\n");
		return 2;
	}
	if (tpath != NULL && seat < 0 && (seat = rr.tx_seat) < 0)
		goto usage;	/* an older receipt names no seat */
	/* the receipt on its own: refd signed this head */
	if (sodium_hex2bin(sig, sizeof(sig), rr.sig, 128, NULL, NULL, NULL) !=
	    0 || sodium_hex2bin(link, sizeof(link), rr.head, 64, NULL, NULL,
	    NULL) != 0 || sodium_hex2bin(pk, sizeof(pk), rr.key, 64, NULL,
	    NULL, NULL) != 0 || crypto_sign_verify_detached(sig, link,
	    sizeof(link), pk) != 0) {
		printf("receipt FAILED: its signature does not verify with the "
		    "key it names: it is not a receipt of refd's\n");
		return 1;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return 2;
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	/* the log chain up to and past that head, with the receipt's key */
	if ((devnull = fopen("/dev/null", "w")) == NULL)
		goto done;
	if (rr.tx_seat >= 0 && rc_logtx(a, id, &rr) == -1)
		;
	else if (!rc_head(a->h, id, &rr))
		printf("receipt FAILED: the log's head %lld is not the signed "
		    "end of match %lld the receipt holds: the log was "
		    "rewritten or cut\n", rr.head_no, id);
	else if (al_log(a->h, rr.key, devnull) > 0)
		printf("receipt FAILED: the log chain does not verify with "
		    "the receipt's key (refctl audit --key %s says where)\n",
		    rr.key);
	else if ((a->mode = AU_AUDIT, au_match(a, id)) != 0)
		printf("receipt FAILED: match %lld does not audit: %s\n", id,
		    a->err[0] ? a->err : "not in the log, or running");
	else if (strcmp(a->final, rr.chain) != 0 ||
	    strcmp(a->seedhex, rr.seed) != 0 ||
	    strcmp(a->result, rr.result) != 0)
		printf("receipt FAILED: the log's match %lld ends on another "
		    "%s than the receipt: it was rewritten after the bot "
		    "heard its end\n", id, strcmp(a->final, rr.chain) != 0 ?
		    "final link" : strcmp(a->seedhex, rr.seed) != 0 ? "seed" :
		    "result");
	else if (rr.tx_seat >= 0 && !rc_endtx(a->h, &rr))
		printf("receipt FAILED: the log's signed end of match %lld "
		    "does not chain the transcript hashes of seat %d the "
		    "receipt holds\n", id, rr.tx_seat);
	else if (tpath != NULL && rr.tx_seat >= 0 && seat != rr.tx_seat)
		printf("receipt FAILED: the receipt is seat %d's, not seat "
		    "%d's\n", rr.tx_seat, seat);
	else if (tpath != NULL && rc_transcript(a, id, seat, tpath) == -1)
		;
	else if (tpath != NULL && rr.tx_seat >= 0 &&
	    rc_filetx(tpath, id, &rr) == -1)
		;
	else {
		printf("receipt verified: match %lld, %s, final link %.16s..., "
		    "signed head %lld%s\n", id, rr.result, rr.chain, rr.head_no,
		    tpath != NULL ? ", and the seat's transcript" : "");
		bad = 0;
	}
	fclose(devnull);
done:
	sqlite3_close(a->h);
	free(a);
	return bad;
usage:
	fprintf(stderr, "usage: refctl verify-receipt --db FILE --match ID "
	    "--receipt LINE [--transcript FILE [--seat S]]\n");
	return 2;
}
