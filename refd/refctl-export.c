/*
 * refctl-export.c: refctl export, each match of the log as one JSON
 * document, nested by deal, with every link's canonical text (chain.c),
 * for tools of one's own.  No verdict: the log as it is.  See
 * refd-audit(7).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "refctl.h"
#include "tstand.h"
#include "util.h"

static void	 json_str(FILE *, const char *, size_t);
static void	 json_col(FILE *, sqlite3_stmt *, int);
static void	 json_list(FILE *, sqlite3_stmt *, int, int);
static int	 json_rows(struct au *, sqlite3_stmt *, const char *const *,
		    const char *, int);
static int	 export_match(struct au *, long long);

/*
 * Write n bytes as a JSON string: quote, backslash and every control
 * character escaped (\u00XX), valid UTF-8 as is, and any other byte as
 * \u00XX of its value, so the document is always valid JSON.
 */
static void
json_str(FILE *fp, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i, k, len;

	fputc('"', fp);
	for (i = 0; i < n; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(fp, "\\%c", p[i]);
			continue;
		}
		if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(fp, "\\u%04x", p[i]);
			continue;
		}
		if (p[i] < 0x80) {
			fputc(p[i], fp);
			continue;
		}
		len = p[i] >= 0xc2 && p[i] <= 0xdf ? 2 : p[i] >= 0xe0 &&
		    p[i] <= 0xef ? 3 : p[i] >= 0xf0 && p[i] <= 0xf4 ? 4 : 0;
		for (k = 1; len > 0 && k < len; k++)
			if (i + k >= n || (p[i + k] & 0xc0) != 0x80)
				len = 0;
		if (len == 0) {
			fprintf(fp, "\\u%04x", p[i]);
			continue;
		}
		fwrite(p + i, 1, len, fp);
		i += len - 1;
	}
	fputc('"', fp);
}

/* A column as JSON by its storage class: number, string or null. */
static void
json_col(FILE *fp, sqlite3_stmt *st, int col)
{
	const unsigned char	*b;
	const char		*s;
	double			 d;
	int			 i, n;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		fprintf(fp, "%lld", (long long)sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		if (d == d && d - d == 0)
			fprintf(fp, "%.17g", d);
		else
			fprintf(fp, "null");
		break;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_column_text(st, col);
		json_str(fp, s, (size_t)sqlite3_column_bytes(st, col));
		break;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, col);
		n = sqlite3_column_bytes(st, col);
		fputc('"', fp);
		for (i = 0; i < n && b != NULL; i++)
			fprintf(fp, "%02x", b[i]);
		fputc('"', fp);
		break;
	default:
		fprintf(fp, "null");
		break;
	}
}

/*
 * A list column as a JSON array when it is one: sep ' ' gives strings
 * (a deck), ',' integers (points, mpoints).  Anything else, as stored.
 */
static void
json_list(FILE *fp, sqlite3_stmt *st, int col, int sep)
{
	const char	*s, *p, *q, *end;
	int		 n, ok = 1;

	if (sqlite3_column_type(st, col) != SQLITE_TEXT) {
		json_col(fp, st, col);
		return;
	}
	s = (const char *)sqlite3_column_text(st, col);
	n = sqlite3_column_bytes(st, col);
	end = s + n;
	if (sep == ',') {
		/* -?[0-9]{1,10} joined by commas, or empty */
		for (p = s; p < end && ok; p = q + 1) {
			q = p + (*p == '-');
			while (q < end && *q >= '0' && *q <= '9' &&
			    q - p < 11)
				q++;
			ok = q > p + (*p == '-') && (q == end || (*q == ',' &&
			    q + 1 < end));
		}
		if (!ok) {
			json_col(fp, st, col);
			return;
		}
	}
	fputc('[', fp);
	for (p = s; n > 0 && p <= end; p = q + 1) {
		if ((q = memchr(p, sep, (size_t)(end - p))) == NULL)
			q = end;
		if (p != s)
			fputc(',', fp);
		if (sep == ',')
			fwrite(p, 1, (size_t)(q - p), fp);
		else
			json_str(fp, p, (size_t)(q - p));
	}
	fputc(']', fp);
}

/*
 * Run st (bound by the caller) and write each row as a JSON object whose
 * keys are names[], a list type per key in types ('v' as stored, 'd' a
 * deck, 'l' integers); as an array, or the first row alone (or null)
 * when one is set.  Returns -1 on a read error (a->err).
 */
static int
json_rows(struct au *a, sqlite3_stmt *st, const char *const *names,
    const char *types, int one)
{
	FILE	*fp = a->out;
	int	 rc, i, n = 0;

	if (!one)
		fputc('[', fp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (one && n > 0)
			continue;
		fprintf(fp, "%s{", n++ > 0 ? "," : "");
		for (i = 0; names[i] != NULL; i++) {
			fprintf(fp, "%s\"%s\":", i ? "," : "", names[i]);
			if (types[i] == 'd')
				json_list(fp, st, i, ' ');
			else if (types[i] == 'l')
				json_list(fp, st, i, ',');
			else
				json_col(fp, st, i);
		}
		fputc('}', fp);
	}
	if (one && n == 0)
		fprintf(fp, "null");
	if (!one)
		fputc(']', fp);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return au_fail(a, -1, -1, -1, "the log cannot be read: %s",
		    sqlite3_errmsg(a->h));
	return 0;
}

/* Is match id's seed still secret, its tournament not over? */
static int
export_secret(sqlite3 *h, long long id)
{
	sqlite3_stmt	*st;
	int64_t		 tid = 0;

	if (sqlite3_prepare_v2(h, "SELECT tournament FROM matches WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		tid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return tstand_seed_secret(h, tid);
}

/*
 * One match as one JSON document on one line: the log as it is (no
 * verdict), nested by deal, with every link's canonical text (see
 * refd-audit(7)).  Returns 0, 1 (a->err) or 3 for no such match.
 */
static int
export_match(struct au *a, long long id)
{
	static const char *const hdr[] = { "id", "variant", "options", "seed",
	    "commitment", "rng", "move_ms", "bank_ms", "startup_ms", "policy",
	    "max_faults", "tournament", "started", "ended", "state", "result",
	    "reason", "mpoints", "chain0", "end_no", "final_chain",
	    "chain_version", "prev", "slot", NULL };
	static const char *const seats[] = { "seat", "bot", "name", "version",
	    "kind", "identity", "chain_no", "chain", NULL };
	static const char *const deal[] = { "deal_no", "dealer", "deck",
	    "removed", "trump", "chain_no", "chain", "called", "caller",
	    "partner", NULL };
	static const char *const calls[] = { "seq", "kind", "seat", "call",
	    "partner", "ms", "fault", "at", "limit_ms", "answer", "chain_no",
	    "chain", NULL };
	static const char *const plays[] = { "seq", "trick", "seat", "card",
	    "ms", "fault", "at", "limit_ms", "answer", "chain_no", "chain",
	    NULL };
	static const char *const tricks[] = { "trick", "winner", "points",
	    "chain_no", "chain", NULL };
	static const char *const joker[] = { "seat", "chain_no", "chain",
	    NULL };
	static const char *const res[] = { "result", "winner", "points",
	    "mpoints", "chain_no", "chain", NULL };
	static const char *const faults[] = { "id", "deal_no", "seat", "kind",
	    "evidence", "ms", "action", "at", "limit_ms", "chain_no", "chain",
	    NULL };
	static const char *const answers[] = { "deal_no", "seat", "line",
	    "kind", "answer", "ms", "at", "chain_no", "chain", NULL };
	static const char *const sql[] = {
	    "SELECT id, variant, options, CASE WHEN ?2 THEN NULL ELSE seed"
	    " END, commitment, rng, move_ms,"
	    " bank_ms, startup_ms, policy, max_faults, tournament, started,"
	    " ended, state, result, reason, mpoints, chain0, end_no,"
	    " final_chain, chain_version, prev, slot FROM matches"
	    " WHERE id = ?1",
	    "SELECT seat, bot, name, version, kind, identity, chain_no, chain"
	    " FROM seats WHERE match_id = ?1 ORDER BY seat",
	    "SELECT deal_no, dealer, deck, removed, trump, chain_no, chain,"
	    " called, caller, partner"
	    " FROM deals WHERE match_id = ?1 ORDER BY deal_no",
	    "SELECT seq, trick, seat, card, ms, fault, at, limit_ms, answer,"
	    " chain_no, chain FROM plays WHERE match_id = ?1 AND deal_no = ?2"
	    " ORDER BY seq",
	    "SELECT trick, winner, points, chain_no, chain FROM tricks"
	    " WHERE match_id = ?1 AND deal_no = ?2 ORDER BY trick",
	    "SELECT seat, chain_no, chain FROM jokers"
	    " WHERE match_id = ?1 AND deal_no = ?2",
	    "SELECT result, winner, points, mpoints, chain_no, chain"
	    " FROM deal_results WHERE match_id = ?1 AND deal_no = ?2",
	    "SELECT id, deal_no, seat, kind, evidence, ms, action, at,"
	    " limit_ms, chain_no, chain FROM faults WHERE match_id = ?1"
	    " ORDER BY id",
	    "SELECT seq, kind, seat, call, partner, ms, fault, at, limit_ms,"
	    " answer, chain_no, chain FROM calls WHERE match_id = ?1"
	    " AND deal_no = ?2 ORDER BY seq",
	    "SELECT deal_no, seat, line, kind, answer, ms, at, chain_no, chain"
	    " FROM answers WHERE match_id = ?1 ORDER BY chain_no",
	};
	enum { Q_HDR, Q_SEATS, Q_DEALS, Q_PLAYS, Q_TRICKS, Q_JOKER, Q_RES,
	    Q_FAULTS, Q_CALLS, Q_ANSWERS, Q_N };
	int		 auction = 0;
	enum bri_variant var;
	sqlite3_stmt	*st[Q_N] = { NULL }, *ch = NULL;
	struct au_row	 r;
	struct chain_text l;
	FILE		*fp = a->out;
	int		 i, rc, n = 0, ret = 1, version;

	memset(a->err, 0, sizeof(a->err));
	for (i = 0; i < Q_N; i++)
		if (sqlite3_prepare_v2(a->h, sql[i], -1, &st[i], NULL) !=
		    SQLITE_OK) {
			au_fail(a, -1, -1, -1, "the log's tables cannot be "
			    "read: %s", sqlite3_errmsg(a->h));
			goto done;
		}
	if (sqlite3_prepare_v2(a->h, au_stream_sql, -1, &ch, NULL) !=
	    SQLITE_OK) {
		au_fail(a, -1, -1, -1, "the log's tables cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	for (i = 0; i < Q_N; i++)
		sqlite3_bind_int64(st[i], 1, id);
	/* a tournament's seed only once it is over: null before */
	sqlite3_bind_int(st[Q_HDR], 2, export_secret(a->h, id));
	sqlite3_bind_int64(ch, 1, id);
	if ((rc = sqlite3_step(st[Q_HDR])) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			ret = 3;
		else
			au_fail(a, -1, -1, -1, "the log cannot be read: %s",
			    sqlite3_errmsg(a->h));
		goto done;
	}
	version = sqlite3_column_int(st[Q_HDR], 21);
	/* an auction's calls and called card only where there is one */
	auction = sqlite3_column_text(st[Q_HDR], 1) != NULL &&
	    bri_variant_parse((const char *)sqlite3_column_text(st[Q_HDR], 1),
	    &var) == BRI_OK && bri_variant_info(var)->auction;
	sqlite3_reset(st[Q_HDR]);
	fprintf(fp, "{\"format\":\"refd-export-1\",\"match\":");
	if (json_rows(a, st[Q_HDR], hdr, "vvvvvvvvvvvvvvvvvlvvvvvv", 1) == -1)
		goto done;
	fprintf(fp, ",\"seats\":");
	if (json_rows(a, st[Q_SEATS], seats, "vvvvvvvv", 0) == -1)
		goto done;
	fprintf(fp, ",\"deals\":[");
	while ((rc = sqlite3_step(st[Q_DEALS])) == SQLITE_ROW) {
		fprintf(fp, "%s{", n++ > 0 ? "," : "");
		for (i = 0; deal[i] != NULL && (i < 7 || auction); i++) {
			fprintf(fp, "%s\"%s\":", i ? "," : "", deal[i]);
			if (i == 2)
				json_list(fp, st[Q_DEALS], i, ' ');
			else
				json_col(fp, st[Q_DEALS], i);
		}
		for (i = Q_PLAYS; i <= Q_RES; i++)
			sqlite3_bind_value(st[i], 2,
			    sqlite3_column_value(st[Q_DEALS], 0));
		sqlite3_bind_value(st[Q_CALLS], 2,
		    sqlite3_column_value(st[Q_DEALS], 0));
		if (auction) {
			fprintf(fp, ",\"calls\":");
			if (json_rows(a, st[Q_CALLS], calls, "vvvvvvvvvvvv",
			    0) == -1)
				goto done;
		}
		fprintf(fp, ",\"plays\":");
		if (json_rows(a, st[Q_PLAYS], plays, "vvvvvvvvvvv", 0) == -1)
			goto done;
		fprintf(fp, ",\"tricks\":");
		if (json_rows(a, st[Q_TRICKS], tricks, "vvvvv", 0) == -1)
			goto done;
		fprintf(fp, ",\"joker\":");
		if (json_rows(a, st[Q_JOKER], joker, "vvv", 1) == -1)
			goto done;
		fprintf(fp, ",\"result\":");
		if (json_rows(a, st[Q_RES], res, "vvllvv", 1) == -1)
			goto done;
		fputc('}', fp);
	}
	if (rc != SQLITE_DONE) {
		au_fail(a, -1, -1, -1, "the deals cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	fprintf(fp, "],\"faults\":");
	if (json_rows(a, st[Q_FAULTS], faults, "vvvvvvvvvvv", 0) == -1)
		goto done;
	fprintf(fp, ",\"answers\":");
	if (json_rows(a, st[Q_ANSWERS], answers, "vvvvvvvvv", 0) == -1)
		goto done;
	fprintf(fp, ",\"chain\":[");
	n = 0;
	while ((rc = sqlite3_step(ch)) == SQLITE_ROW) {
		a->err[0] = '\0';
		fprintf(fp, "%s{\"no\":", n++ > 0 ? "," : "");
		json_col(fp, ch, 0);
		fprintf(fp, ",\"row\":\"%s\",\"text\":",
		    sqlite3_column_type(ch, 1) == SQLITE_INTEGER ?
		    au_kind_word(sqlite3_column_int64(ch, 1)) : "?");
		if (au_row_read(a, ch, &r) == 0 &&
		    au_text(&r, version, &l) == 0)
			json_str(fp, l.buf, l.len);
		else
			fprintf(fp, "null");
		fprintf(fp, ",\"link\":");
		json_col(fp, ch, 13);
		fputc('}', fp);
	}
	a->err[0] = '\0';
	if (rc != SQLITE_DONE) {
		au_fail(a, -1, -1, -1, "the chain cannot be read: %s",
		    sqlite3_errmsg(a->h));
		goto done;
	}
	fprintf(fp, "],\"final_chain\":");
	sqlite3_reset(st[Q_HDR]);
	if (sqlite3_step(st[Q_HDR]) == SQLITE_ROW)
		json_col(fp, st[Q_HDR], 20);
	else
		fprintf(fp, "null");
	fprintf(fp, "}\n");
	ret = 0;
done:
	if (ret != 0 && ret != 3)
		fprintf(fp, "\n");
	for (i = 0; i < Q_N; i++)
		sqlite3_finalize(st[i]);
	sqlite3_finalize(ch);
	return ret;
}

/*
 * refctl export --db FILE [--format json] [--all] MATCH ...: each match
 * as one JSON document on one line, for tools of one's own.
 */
int
cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	sqlite3_stmt	*st = NULL;
	struct au	*a;
	const char	*path = NULL;
	long long	 id;
	int		 ch, i, all = 0, bad = 0, r;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:f:a", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") != 0) {
				fprintf(stderr, "refctl export: the only "
				    "format is json\n");
				return 2;
			}
			break;
		case 'a':
			all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || (optind == argc) == !all)
		goto usage;
	for (i = optind; i < argc; i++)
		if (au_id(argv[i]) < 0)
			goto usage;
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl export: out of memory\n");
		return 2;
	}
	/* every match may take long: a copy, not the live log (audit.c) */
	if ((all ? au_open_copy("export", path, &a->h) :
	    au_open(path, &a->h)) == -1) {
		free(a);
		return 2;
	}
	a->mode = AU_LINKS;
	a->out = stdout;
	if (all && sqlite3_prepare_v2(a->h, "SELECT id FROM matches WHERE"
	    " typeof(id) = 'integer' ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "refctl export: %s\n", sqlite3_errmsg(a->h));
		bad++;
	}
	for (i = optind; bad == 0;) {
		if (all) {
			if (sqlite3_step(st) != SQLITE_ROW)
				break;
			id = (long long)sqlite3_column_int64(st, 0);
		} else if (i < argc)
			id = au_id(argv[i++]);
		else
			break;
		if ((r = export_match(a, id)) == 3) {
			fprintf(stderr, "refctl export: no match %lld in the "
			    "log\n", id);
			bad++;
		} else if (r != 0) {
			fprintf(stderr, "refctl export: match %lld: %s\n", id,
			    a->err);
			bad++;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(a->h);
	free(a);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "refctl export: cannot write the output\n");
		return 2;
	}
	return bad > 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: refctl export --db FILE [--format json] "
	    "{--all | MATCH ...}\n");
	return 2;
}
