/*
 * test_db.c: refd's log written as a referee would write it, then read
 * back as an auditor would: row counts, the hash chain recomputed from
 * the rows alone, migrations, refusals and locks.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>
#include <sqlite3.h>

#include "briscola.h"
#include "chain.h"
#include "db.h"

#define SEED_HEX	"000102030405060708090a0b0c0d0e0f" \
			"101112131415161718191a1b1c1d1e1f"
#define NOBODY		65534		/* uid to drop to when run as root */

/* What a written match left behind, to compare with the rows. */
struct written {
	int		 deals;		/* rows expected in each table */
	int		 plays;
	int		 tricks;
	int		 jokers;
	int		 faults;
	int		 links;		/* chained rows, matchend included */
	uint8_t		 chain[DB_HASHLEN]; /* the last link */
};

/* One chained row rebuilt by the auditor. */
struct link {
	char		*text;		/* canonical text, from the columns */
	char		 chain[2 * DB_HASHLEN + 1]; /* the stored link */
};

static char	 dir[64];		/* each test's own directory */
static char	 path[128];		/* its database */

static int	 setup(void **);
static int	 teardown(void **);
static uint32_t	 rnd(uint32_t *);
static void	 rm(const char *);
static void	 write_match(struct db *, enum bri_variant, int,
		    struct db_match *, struct written *);
static int	 audit(sqlite3 *, int64_t, uint8_t *);
static int64_t	 count(sqlite3 *, const char *, int64_t);
static int	 user_version(const char *);
static void	 make_raw(const char *, const char *);

/* A fresh directory per test, so no test sees another's files. */
static int
setup(void **state)
{
	const char	*tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_db.XXXXXX",
	    tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/refd.db", dir);
	return 0;
}

/* Remove a file if it exists. */
static void
rm(const char *p)
{
	if (unlink(p) == -1 && access(p, F_OK) == 0)
		fprintf(stderr, "cannot remove %s\n", p);
}

/* Remove the database, its WAL files and the directory. */
static int
teardown(void **state)
{
	char	 p[160];

	(void)state;
	chmod(path, 0644);
	rm(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	rm(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	rm(p);
	return rmdir(dir);
}

/* xorshift32: the test's own fixed sequence of "random" choices. */
static uint32_t
rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Play a whole match of variant v from SEED_HEX as a referee would,
 * logging each event; with faults, also a fault at the start, a fault
 * play and a long, hostile fault evidence.
 */
static void
write_match(struct db *db, enum bri_variant v, int faults,
    struct db_match *m, struct written *w)
{
	struct db_seat		 seats[BRI_MAXSEATS];
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_match	 bm;
	struct bri_event	 ev;
	uint8_t			 commit[BRI_COMMITLEN];
	char			 commit_hex[2 * BRI_COMMITLEN + 1];
	char			 options[128], result[16], evidence[2000];
	char			 rng[32];
	uint32_t		 x = 12345 + v;
	int			 i, seat, seq, trick, ms, deal_no, fault;
	bri_card		 c;

	memset(w, 0, sizeof(*w));
	memset(m, 0, sizeof(*m));
	bri_options_default(&o, v);
	assert_int_equal(bri_seed_parse(SEED_HEX, &seed), BRI_OK);
	assert_int_equal(bri_match_init(&bm, &o, &seed), BRI_OK);
	bri_seed_commit(&seed, commit);
	sodium_bin2hex(commit_hex, sizeof(commit_hex), commit, sizeof(commit));
	snprintf(options, sizeof(options), "deals_to_win=%d match_target=%d "
	    "deal_cap=%d removed_two=%d", o.deals_to_win, o.match_target,
	    o.deal_cap, o.removed_two);
	snprintf(rng, sizeof(rng), "%s/%d", BRI_RNG_NAME, BRI_RNG_VERSION);
	m->variant = bri_variant_name(v);
	m->options = options;
	m->seed_hex = SEED_HEX;
	m->commit_hex = commit_hex;
	m->rng = rng;
	m->move_ms = 1000;
	m->bank_ms = 0;
	m->startup_ms = 5000;
	m->policy = faults ? "fallback" : "forfeit";
	m->max_faults = 3;
	for (i = 0; i < bm.nseats; i++) {
		seats[i].seat = i;
		seats[i].bot = i == 1 ? "Robert'); DROP TABLE seats;--" :
		    "random";
		seats[i].version = "";
		seats[i].kind = i % 2 ? "remote" : "spawn";
		seats[i].identity = i % 2 ? "127.0.0.1:4000" : "bots/random.py";
	}
	assert_int_equal(db_match_begin(db, m, seats, bm.nseats), 0);
	assert_true(m->id > 0);
	assert_int_equal(db_seat_version(db, m, 0, "random", "1.0", NULL), 0);
	assert_int_equal(db_bot_event(db, m->id, 0, "random", "spawned",
	    "pid 42"), 0);
	if (faults) {
		assert_int_equal(db_fault(db, m, 0, 1, "slow-start",
		    "", 5001, "warn"), 0);
		w->faults++;
	}

	while (bm.result == BRI_MATCH_PLAYING) {
		assert_int_equal(bri_match_deal(&bm), BRI_OK);
		deal_no = bm.ndeals;
		assert_int_equal(db_deal(db, m, &bm.deal, deal_no), 0);
		w->deals++;
		for (seq = 0; !bm.deal.over; seq++) {
			seat = bm.deal.turn;
			trick = bm.deal.trick;
			c = bm.deal.hand[seat][rnd(&x) % bm.deal.nhand[seat]];
			ms = (int)(rnd(&x) % 900);
			fault = faults && deal_no == 1 && seq == 5;
			if (fault) {
				/* quotes, SQL, a % and UTF-8 past the cap */
				memset(evidence, 'x', sizeof(evidence));
				memcpy(evidence, "'\"); DELETE FROM plays; %s",
				    26);
				for (i = 1000; i < 1030; i += 2)
					memcpy(evidence + i, "\xc3\xa8", 2);
				evidence[sizeof(evidence) - 1] = '\0';
				assert_int_equal(db_fault(db, m, deal_no,
				    seat, "timeout", evidence, 1000,
				    "fallback 3S"), 0);
				w->faults++;
			}
			assert_int_equal(bri_match_play(&bm, seat, c, &ev),
			    BRI_OK);
			assert_int_equal(db_play(db, m, deal_no, seq, trick,
			    seat, c, ms, fault), 0);
			w->plays++;
			if (ev.joker >= 0) {
				assert_int_equal(db_joker(db, m, deal_no,
				    ev.joker), 0);
				w->jokers++;
			}
			if (ev.trick_done) {
				assert_int_equal(db_trick(db, m, deal_no,
				    trick, ev.trick_winner, ev.trick_points),
				    0);
				w->tricks++;
			}
			if (ev.deal_over)
				assert_int_equal(db_deal_end(db, m, &bm), 0);
		}
	}
	if (bm.result == BRI_MATCH_WON)
		snprintf(result, sizeof(result), "%s%d",
		    v == BRI_CLASSIC4 ? "team" : "seat", bm.winner);
	else
		snprintf(result, sizeof(result), "draw");
	assert_int_equal(db_match_end(db, m, result, "reached the target",
	    bm.mpoints, bm.nseats), 0);
	w->links = w->deals * 2 + w->plays + w->tricks + w->jokers +
	    w->faults + 1 + 1;	/* seat 0's answers, the end */
	assert_int_equal(m->links, w->links);
	memcpy(w->chain, m->chain, DB_HASHLEN);
}

/* Rows of a table for one match. */
static int64_t
count(sqlite3 *h, const char *table, int64_t id)
{
	sqlite3_stmt	*st;
	char		 sql[128];
	int64_t		 n;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE "
	    "match_id = ?", table);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Column i of the current row as a C string ("" for NULL). */
#define COL(st, i)	((const char *)(sqlite3_column_text((st), (i)) ? \
			    (const char *)sqlite3_column_text((st), (i)) : ""))

/*
 * Recompute match id's chain from its rows alone, as refd-log(5) says an
 * auditor would: link 0 from the match header, then each row's text in
 * chain_no order.  Returns the number of links checked, or -1 at the
 * first one that does not match; the last link goes into last.
 */
static int
audit(sqlite3 *h, int64_t id, uint8_t *last)
{
	static const char *const q[] = {
	    "SELECT chain_no, chain, printf('deal %d dealer=%d trump=%s "
	    "removed=%s deck=%s', deal_no, dealer, trump, "
	    "coalesce(removed, '-'), deck) FROM deals WHERE match_id = ?",
	    "SELECT chain_no, chain, printf('play %d %d trick=%d seat=%d "
	    "card=%s ms=%d fault=%d at=%s limit=%d answer=%d:%s', deal_no, "
	    "seq, trick, seat, card, ms, fault, at, limit_ms, "
	    "length(CAST(coalesce(answer, '') AS BLOB)), coalesce(answer, "
	    "'')) FROM plays WHERE match_id = ?",
	    "SELECT chain_no, chain, printf('trick %d %d winner=%d "
	    "points=%d', deal_no, trick, winner, points) FROM tricks "
	    "WHERE match_id = ?",
	    "SELECT chain_no, chain, printf('joker %d seat=%d', deal_no, "
	    "seat) FROM jokers WHERE match_id = ?",
	    "SELECT chain_no, chain, CAST(printf('fault %d seat=%d kind=%s "
	    "ms=%d at=%s limit=%d action=%d:%s evidence=%d:', deal_no, seat, "
	    "kind, ms, at, limit_ms, length(CAST(action AS BLOB)), action, "
	    "length(CAST(evidence AS BLOB))) AS BLOB) || CAST(evidence AS "
	    "BLOB) FROM faults WHERE match_id = ?",
	    "SELECT chain_no, chain, printf('seat %d bot=%s kind=%s "
	    "identity=%d:%s name=%d:%s version=%d:%s', seat, bot, kind, "
	    "length(CAST(identity AS BLOB)), identity, length(CAST(name AS "
	    "BLOB)), name, length(CAST(version AS BLOB)), version) FROM "
	    "seats WHERE match_id = ? AND chain_no IS NOT NULL",
	    "SELECT chain_no, chain, printf('dealend %d result=%s winner=%d "
	    "points=%s mpoints=%s', deal_no, result, winner, points, "
	    "mpoints) FROM deal_results WHERE match_id = ?",
	    "SELECT end_no, final_chain, CAST(printf('matchend result=%s "
	    "mpoints=%s ended=%s reason=%d:', result, mpoints, ended, "
	    "length(CAST(reason AS BLOB))) AS BLOB) || CAST(reason AS BLOB) "
	    "FROM matches WHERE id = ? AND end_no IS NOT NULL",
	};
	crypto_generichash_state	 hs;
	struct link			*links = NULL;
	sqlite3_stmt			*st;
	uint8_t				 prev[DB_HASHLEN];
	char				 hex[2 * DB_HASHLEN + 1], head[512];
	const void			*b;
	size_t				 n = 0, i, k;
	int				 no, len, ok = 1;

	/* link 0 from the header (chain_version 2) */
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT printf('match %d %s "
	    "%s %s prev=%s started=%s move_ms=%d bank_ms=%d startup_ms=%d "
	    "policy=%s max_faults=%d tournament=%d slot=%d seats=%s "
	    "options=%s', id, variant, commitment, rng, prev, started, "
	    "move_ms, bank_ms, startup_ms, policy, max_faults, "
	    "coalesce(tournament, -1), coalesce(slot, -1), (SELECT "
	    "group_concat(length(CAST(bot AS BLOB)) || ':' || bot, ',') FROM "
	    "(SELECT bot FROM seats WHERE match_id = m.id ORDER BY seat)), "
	    "options), chain0 FROM matches AS m WHERE id = ?", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(head, sizeof(head), "%s", COL(st, 0));
	crypto_generichash_init(&hs, NULL, 0, DB_HASHLEN);
	crypto_generichash_update(&hs, (const unsigned char *)"refd-chain-v2",
	    13);
	crypto_generichash_update(&hs, (const unsigned char *)head,
	    strlen(head));
	crypto_generichash_final(&hs, prev, DB_HASHLEN);
	sodium_bin2hex(hex, sizeof(hex), prev, DB_HASHLEN);
	assert_string_equal(hex, COL(st, 1));
	sqlite3_finalize(st);

	/* every chained row, put in its place */
	for (k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		assert_int_equal(sqlite3_prepare_v2(h, q[k], -1, &st, NULL),
		    SQLITE_OK);
		sqlite3_bind_int64(st, 1, id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			no = sqlite3_column_int(st, 0);
			assert_true(no >= 1 && no <= 100000);
			if ((size_t)no > n) {
				links = realloc(links, no * sizeof(*links));
				assert_non_null(links);
				memset(links + n, 0, (no - n) * sizeof(*links));
				n = no;
			}
			assert_null(links[no - 1].text);   /* no duplicate */
			b = sqlite3_column_blob(st, 2);
			len = sqlite3_column_bytes(st, 2);
			links[no - 1].text = calloc(1, len + 1);
			assert_non_null(links[no - 1].text);
			memcpy(links[no - 1].text, b, len);
			snprintf(links[no - 1].chain, sizeof(links->chain),
			    "%s", COL(st, 1));
		}
		sqlite3_finalize(st);
	}

	/* walk the chain */
	for (i = 0; i < n; i++) {
		assert_non_null(links[i].text);	/* no gap */
		crypto_generichash_init(&hs, NULL, 0, DB_HASHLEN);
		crypto_generichash_update(&hs, prev, DB_HASHLEN);
		crypto_generichash_update(&hs,
		    (const unsigned char *)links[i].text,
		    strlen(links[i].text));
		crypto_generichash_final(&hs, prev, DB_HASHLEN);
		sodium_bin2hex(hex, sizeof(hex), prev, DB_HASHLEN);
		if (ok && strcmp(hex, links[i].chain) != 0)
			ok = 0;
	}
	for (i = 0; i < n; i++)
		free(links[i].text);
	free(links);
	if (last != NULL)
		memcpy(last, prev, DB_HASHLEN);
	return ok ? (int)n : -1;
}

/* The user_version of a file, read without refd. */
static int
user_version(const char *p)
{
	sqlite3		*h;
	sqlite3_stmt	*st;
	int		 v;

	assert_int_equal(sqlite3_open_v2(p, &h, SQLITE_OPEN_READONLY, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

/* Make a database file by hand with sql, as a stranger or an old refd. */
static void
make_raw(const char *p, const char *sql)
{
	sqlite3	*h;

	assert_int_equal(sqlite3_open(p, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* A whole match per variant, read back: counts, the chain, tampering. */
static void
test_whole_match(void **state)
{
	static const enum bri_variant vs[] = { BRI_JOKER3, BRI_CLASSIC4,
	    BRI_CLASSIC2 };
	struct db		*db;
	struct db_match		 m[3];
	struct written		 w[3];
	sqlite3			*h;
	sqlite3_stmt		*st;
	uint8_t			 last[DB_HASHLEN];
	char			 err[256], hex[2 * DB_HASHLEN + 1];
	size_t			 i;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(db_writable(db), 1);
	for (i = 0; i < 3; i++)
		write_match(db, vs[i], i == 0, &m[i], &w[i]);
	assert_int_equal(db_bot_event(db, 0, -1, "random", "exited",
	    "status 0"), 0);
	db_close(db);

	/* read-only through refd: opens, but never writes */
	db = db_open(path, 1, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(db_writable(db), 0);
	assert_string_not_equal(db_error(db), "no error");
	db_close(db);

	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	for (i = 0; i < 3; i++) {
		assert_int_equal(count(h, "seats", m[i].id),
		    bri_variant_seats(vs[i]));
		assert_int_equal(count(h, "deals", m[i].id), w[i].deals);
		assert_int_equal(count(h, "deal_results", m[i].id),
		    w[i].deals);
		assert_int_equal(count(h, "plays", m[i].id), w[i].plays);
		assert_int_equal(count(h, "tricks", m[i].id), w[i].tricks);
		assert_int_equal(count(h, "jokers", m[i].id), w[i].jokers);
		assert_int_equal(count(h, "faults", m[i].id), w[i].faults);
		assert_int_equal(audit(h, m[i].id, last), w[i].links);
		assert_memory_equal(last, w[i].chain, DB_HASHLEN);
		sodium_bin2hex(hex, sizeof(hex), last, sizeof(last));
		assert_int_equal(sqlite3_prepare_v2(h, "SELECT state, "
		    "final_chain, ended IS NOT NULL FROM matches WHERE id = ?",
		    -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_int64(st, 1, m[i].id);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal(COL(st, 0), "done");
		assert_string_equal(COL(st, 1), hex);
		assert_int_equal(sqlite3_column_int(st, 2), 1);
		sqlite3_finalize(st);
	}
	/* joker3 has a Joker every deal; classic ones none */
	assert_int_equal(w[0].jokers, w[0].deals);
	assert_int_equal(w[1].jokers, 0);
	/* hostile text stayed data, evidence capped whole characters */
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT length(CAST(evidence "
	    "AS BLOB)), substr(evidence, 1, 26) FROM faults WHERE "
	    "kind = 'timeout'", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1024);
	assert_string_equal(COL(st, 1), "'\"); DELETE FROM plays; %s");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT bot, name, version "
	    "FROM seats WHERE match_id = ? ORDER BY seat", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, m[0].id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(COL(st, 1), "random");
	assert_string_equal(COL(st, 2), "1.0");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(COL(st, 0), "Robert'); DROP TABLE seats;--");
	sqlite3_finalize(st);
	assert_int_equal(count(h, "bot_events", m[0].id), 1);
	sqlite3_close(h);

	/* one changed column breaks the chain */
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE plays SET ms = ms + 1 WHERE "
	    "deal_no = 1 AND seq = 3", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(audit(h, m[0].id, NULL), -1);
	sqlite3_close(h);
}

/* A failed write leaves the chain where the table has it. */
static void
test_failed_write(void **state)
{
	struct db		*db;
	struct db_match		 m;
	struct db_seat		 seats[2] = {
		{ 0, "a", "", "spawn", "a" }, { 1, "b", "", "spawn", "b" } };
	struct bri_options	 o;
	struct bri_seed		 seed;
	struct bri_match	 bm;
	uint8_t			 chain[DB_HASHLEN];
	char			 err[256];
	int			 links;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	memset(&m, 0, sizeof(m));
	m.variant = "classic2";
	m.options = "";
	m.seed_hex = SEED_HEX;
	m.commit_hex = SEED_HEX;
	m.rng = "chacha20-ietf/1";
	m.policy = "forfeit";
	/* a bad header is refused before anything is written */
	m.commit_hex = "nothex";
	assert_int_equal(db_match_begin(db, &m, seats, 2), -1);
	assert_int_equal(m.id, 0);
	m.commit_hex = SEED_HEX;
	assert_int_equal(db_match_begin(db, &m, seats, 2), 0);

	bri_options_default(&o, BRI_CLASSIC2);
	assert_int_equal(bri_seed_parse(SEED_HEX, &seed), BRI_OK);
	assert_int_equal(bri_match_init(&bm, &o, &seed), BRI_OK);
	assert_int_equal(bri_match_deal(&bm), BRI_OK);
	/* a play before its deal breaks a foreign key; refd's own
	   connection checks it without SQLite's (db_own_keys()) */
	assert_int_equal(db_play(db, &m, 1, 0, 0, 0, 0, 1, 0), -1);
	assert_int_equal(db_own_keys(db), 0);
	assert_int_equal(db_play(db, &m, 1, 0, 0, 0, 0, 1, 0), -1);
	assert_non_null(strstr(db_error(db), "deal 1 is not logged"));
	assert_int_equal(db_trick(db, &m, 1, 0, 0, 0), -1);
	assert_int_equal(db_joker(db, &m, 1, 0), -1);
	assert_int_equal(m.links, 0);
	assert_int_equal(db_deal(db, &m, &bm.deal, 1), 0);
	assert_int_equal(m.deals, 1);
	/* nor a row of a deal after the last one logged */
	assert_int_equal(db_trick(db, &m, 2, 0, 0, 0), -1);
	assert_non_null(strstr(db_error(db), "deal 2 is not logged"));
	assert_int_equal(m.links, 1);
	assert_int_equal(db_play(db, &m, 1, 0, 0, bm.deal.turn,
	    bm.deal.hand[bm.deal.turn][0], 1, 0), 0);
	memcpy(chain, m.chain, DB_HASHLEN);
	links = m.links;
	/* values the schema's CHECKs bound are refused by db.c itself, since
	   refd's own connection has SQLite skip the CHECKs (db_own_keys()) */
	assert_int_equal(db_play(db, &m, 1, 40, 0, 0, 0, 1, 0), -1);
	assert_non_null(strstr(db_error(db), "out of range"));
	assert_int_equal(db_play(db, &m, 1, 1, 20, 0, 0, 1, 0), -1);
	assert_int_equal(db_play(db, &m, 1, 1, 0, 6, 0, 1, 0), -1);
	assert_int_equal(db_play(db, &m, 1, 1, 0, -1, 0, 1, 0), -1);
	assert_int_equal(db_play(db, &m, 1, 1, 0, 0, 0, -1, 0), -1);
	assert_int_equal(db_trick(db, &m, 1, 20, 0, 0), -1);
	assert_int_equal(db_trick(db, &m, 1, 0, 6, 0), -1);
	assert_int_equal(db_trick(db, &m, 1, 0, 0, 121), -1);
	assert_int_equal(db_joker(db, &m, 1, 6), -1);
	assert_int_equal(db_bid(db, &m, 1, 17, 0, 3, 1, 0), -1);
	assert_int_equal(db_bid(db, &m, 1, 0, 6, 3, 1, 0), -1);
	assert_int_equal(db_bid(db, &m, 1, 0, 0, 3, -1, 0), -1);
	assert_int_equal(db_fault(db, &m, 1, 6, "timeout", "", 1, "forfeit"),
	    -1);
	assert_int_equal(db_fault(db, &m, 1, 0, "timeout", "", -1, "forfeit"),
	    -1);
	assert_int_equal(m.links, links);
	assert_memory_equal(m.chain, chain, DB_HASHLEN);
	/* the same seq twice */
	assert_int_equal(db_play(db, &m, 1, 0, 0, bm.deal.turn,
	    bm.deal.hand[bm.deal.turn][1], 1, 0), -1);
	assert_non_null(strstr(db_error(db), "UNIQUE"));
	assert_int_equal(m.links, links);
	assert_memory_equal(m.chain, chain, DB_HASHLEN);
	/* a deal not over has no result */
	assert_int_equal(db_deal_end(db, &m, &bm), -1);
	assert_int_equal(db_match_end(db, &m, "two words", "", NULL, 0), -1);
	assert_int_equal(db_match_end(db, &m, "aborted", "test", NULL, 0), 0);
	/* a match ends once */
	assert_int_equal(db_match_end(db, &m, "aborted", "again", NULL, 0),
	    -1);
	db_close(db);
}

/*
 * A log of schema 1, as an older refd left it, is brought to the newest
 * schema with its rows kept: migrations only ever add.
 */
static void
test_migrate_from_1(void **state)
{
	struct db	*db;
	sqlite3		*h;
	sqlite3_stmt	*st;
	FILE		*fp;
	char		 err[256], sql[16384], file[1024];
	const char	*src = getenv("top_srcdir");
	size_t		 n;

	(void)state;
	snprintf(file, sizeof(file), "%s/schema/1.sql", src ? src : ".");
	assert_non_null(fp = fopen(file, "r"));
	n = fread(sql, 1, sizeof(sql) - 1, fp);
	fclose(fp);
	sql[n] = '\0';
	make_raw(path, sql);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "INSERT INTO matches (variant, options,"
	    " seed, commitment, rng, move_ms, bank_ms, startup_ms, policy,"
	    " max_faults) VALUES ('joker3', '', printf('%064d', 0),"
	    " printf('%064d', 1), 'chacha20-ietf/1', 1, 0, 1, 'forfeit', 3)",
	    NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(user_version(path), 1);
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	db_close(db);
	assert_int_equal(user_version(path), db_schema_version());
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT variant, slot FROM "
	    "matches, (SELECT count(*) FROM tournaments)", -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "joker3");
	assert_int_equal(sqlite3_column_type(st, 1), SQLITE_NULL);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* A file with user_version 0 (new or foreign) gets the schema. */
static void
test_migrate(void **state)
{
	struct db	*db;
	sqlite3		*h;
	char		 err[256];

	(void)state;
	make_raw(path, "CREATE TABLE other (x); INSERT INTO other VALUES (7);");
	assert_int_equal(user_version(path), 0);
	/* read-only cannot migrate */
	assert_null(db_open(path, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "older"));
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	db_close(db);
	assert_int_equal(user_version(path), db_schema_version());
	assert_true(db_schema_version() >= 2);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "SELECT count(*) FROM matches, "
	    "other", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	/* and opening again changes nothing */
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	db_close(db);
	db = db_open(path, 1, err, sizeof(err));
	assert_non_null(db);
	db_close(db);
}

/* A schema newer than this refd knows is refused, both ways. */
static void
test_newer(void **state)
{
	char	 err[256];

	(void)state;
	make_raw(path, "PRAGMA user_version = 999;");
	assert_null(db_open(path, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "newer"));
	assert_null(db_open(path, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "999"));
	assert_int_equal(user_version(path), 999);
	/* a missing file is no database to read */
	rm(path);
	assert_null(db_open(path, 1, err, sizeof(err)));
}

/*
 * A file refd may not write opens, but db_writable() says no.  As root
 * permissions bind nobody, so a child drops to NOBODY, in a directory
 * it owns (for the WAL's shared memory) with a file it cannot write.
 */
static void
test_readonly_file(void **state)
{
	struct db	*db;
	char		 err[256];
	pid_t		 pid;
	int		 status;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	db_close(db);
	assert_int_equal(chmod(path, 0444), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(NOBODY) == -1 ||
		    setuid(NOBODY) == -1))
			_exit(2);
		if ((db = db_open(path, 0, err, sizeof(err))) == NULL) {
			fprintf(stderr, "%s\n", err);
			_exit(3);
		}
		if (db_writable(db) != 0)
			_exit(4);
		if (strcmp(db_error(db), "no error") == 0)
			_exit(5);
		if (db_bot_event(db, 0, -1, "b", "k", "d") != -1)
			_exit(6);
		db_close(db);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(dir, 0, 0), 0);
}

/* Another writer's lock gives an error within moments, never a wait. */
static void
test_locked(void **state)
{
	struct db	*db;
	struct timespec	 t0, t1;
	sqlite3		*h;
	char		 err[256];
	double		 s;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL),
	    SQLITE_OK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(db_writable(db), 0);
	assert_non_null(strstr(db_error(db), "locked"));
	assert_int_equal(db_bot_event(db, 0, -1, "b", "k", "d"), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(s < 1.5);
	assert_int_equal(sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(db_writable(db), 1);
	assert_int_equal(db_bot_event(db, 0, -1, "b", "k", "d"), 0);
	db_close(db);
}

/* After a restart, matches left running are aborted, and only those. */
static void
test_abort_unfinished(void **state)
{
	struct db		*db;
	struct db_match		 done, run;
	struct written		 w;
	struct db_seat		 seats[2] = {
		{ 0, "a", "", "spawn", "a" }, { 1, "b", "", "remote", "b" } };
	sqlite3			*h;
	sqlite3_stmt		*st;
	char			 err[256];
	int			 n = -1;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	write_match(db, BRI_CLASSIC2, 0, &done, &w);
	memset(&run, 0, sizeof(run));
	run.variant = "classic2";
	run.options = "";
	run.seed_hex = SEED_HEX;
	run.commit_hex = SEED_HEX;
	run.rng = "chacha20-ietf/1";
	run.policy = "forfeit";
	assert_int_equal(db_match_begin(db, &run, seats, 2), 0);
	assert_true(run.id != done.id);
	db_close(db);		/* refd died */

	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(db_abort_unfinished(db, "refd restarted", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(db_abort_unfinished(db, "refd restarted", &n), 0);
	assert_int_equal(n, 0);
	db_close(db);

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT id, state, reason, "
	    "ended IS NOT NULL FROM matches ORDER BY id", -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(COL(st, 1), "done");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), run.id);
	assert_string_equal(COL(st, 1), "aborted");
	assert_string_equal(COL(st, 2), "refd restarted");
	assert_int_equal(sqlite3_column_int(st, 3), 1);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* Group mode's bookkeeping, seen from the daemon's side. */
static int		 hook_calls;	/* groups opened */
static struct db_match	*lost_seen[4];	/* matches told of a lost group */
static int		 nlost;

static void
group_hook(void)
{
	hook_calls++;
}

static void
group_lost(struct db_match *m)
{
	if (nlost < 4)
		lost_seen[nlost] = m;
	nlost++;
}

/* Begin a classic2 match from SEED_HEX in db and deal its first deal. */
static void
begin_deal(struct db *db, struct db_match *m, struct bri_match *bm)
{
	struct db_seat		 seats[2] = {
		{ 0, "a", "", "spawn", "a" }, { 1, "b", "", "spawn", "b" } };
	struct bri_options	 o;
	struct bri_seed		 seed;

	memset(m, 0, sizeof(*m));
	m->variant = "classic2";
	m->options = "";
	m->seed_hex = SEED_HEX;
	m->commit_hex = SEED_HEX;
	m->rng = "chacha20-ietf/1";
	m->policy = "forfeit";
	assert_int_equal(db_match_begin(db, m, seats, 2), 0);
	bri_options_default(&o, BRI_CLASSIC2);
	assert_int_equal(bri_seed_parse(SEED_HEX, &seed), BRI_OK);
	assert_int_equal(bri_match_init(bm, &o, &seed), BRI_OK);
	assert_int_equal(bri_match_deal(bm), BRI_OK);
	assert_int_equal(db_deal(db, m, &bm->deal, 1), 0);
}

/* Play the first card of the hand whose turn it is, as match.c logs it. */
static void
play_one(struct db *db, struct db_match *m, struct bri_match *bm, int seq)
{
	struct bri_event ev;
	int		 seat = bm->deal.turn, trick = bm->deal.trick;
	bri_card	 c = BRI_NOCARD;
	int		 i;

	for (i = 0; c == BRI_NOCARD; i++)
		c = bm->deal.hand[seat][i];
	assert_int_equal(bri_match_play(bm, seat, c, &ev), BRI_OK);
	assert_int_equal(db_begin(db, m), 0);
	assert_int_equal(db_play(db, m, 1, seq, trick, seat, c, 5, 0), 0);
	if (ev.trick_done)
		assert_int_equal(db_trick(db, m, 1, trick, ev.trick_winner,
		    ev.trick_points), 0);
	assert_int_equal(db_commit(db), 0);
}

/*
 * refd's mode: a loop pass's writes are one transaction, opened at the
 * first write (the hook hears of it once), invisible to a reader until
 * db_group_commit(), and the chain they leave audits.  A match's end
 * commits the open group first, so the log keeps refd's order.
 */
static void
test_group_mode(void **state)
{
	struct db		*db;
	struct db_match		 m;
	struct bri_match	 bm;
	sqlite3			*h;
	char			 err[256];
	int			 seq = 0;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	hook_calls = nlost = 0;
	db_group_mode(db, group_hook, group_lost);
	begin_deal(db, &m, &bm);	/* the deal opens the first group */
	assert_int_equal(hook_calls, 1);
	assert_int_equal(db_group_pending(db), 1);
	play_one(db, &m, &bm, seq++);
	play_one(db, &m, &bm, seq++);
	assert_int_equal(hook_calls, 1);	/* one group, one hook */
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(count(h, "plays", m.id), 0);	/* not yet */
	assert_int_equal(count(h, "deals", m.id), 0);
	assert_int_equal(db_group_commit(db), 0);
	assert_int_equal(db_group_pending(db), 0);
	assert_int_equal(count(h, "plays", m.id), 2);
	assert_int_equal(count(h, "deals", m.id), 1);
	/* the next pass: a new group */
	play_one(db, &m, &bm, seq++);
	assert_int_equal(hook_calls, 2);
	assert_int_equal(count(h, "plays", m.id), 2);
	/* the end is never grouped: it commits the group, then itself */
	assert_int_equal(db_match_end(db, &m, "aborted", "test", NULL, 0), 0);
	assert_int_equal(db_group_pending(db), 0);
	assert_int_equal(count(h, "plays", m.id), 3);
	assert_int_equal(audit(h, m.id, NULL), m.links);
	assert_int_equal(nlost, 0);
	sqlite3_close(h);
	db_close(db);
}

/*
 * A group SQLite rolled back (a full disk, an I/O error) is lost whole:
 * each match that wrote in it hears of it once, its chain is back where
 * the table has it, and it can go on writing from there (as refd does,
 * to log the match aborted) with a chain that still audits.  A match
 * that did not write in the group hears nothing.
 */
static void
test_group_lost(void **state)
{
	struct db		*db;
	struct db_match		 m1, m2, m3;
	struct bri_match	 b1, b2, b3;
	sqlite3			*h;
	uint8_t			 chain1[DB_HASHLEN], chain2[DB_HASHLEN];
	char			 err[256];
	int			 links1, links2, links3;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	hook_calls = nlost = 0;
	db_group_mode(db, group_hook, group_lost);
	begin_deal(db, &m1, &b1);
	begin_deal(db, &m2, &b2);
	begin_deal(db, &m3, &b3);
	play_one(db, &m1, &b1, 0);
	assert_int_equal(db_group_commit(db), 0);
	memcpy(chain1, m1.chain, DB_HASHLEN);
	memcpy(chain2, m2.chain, DB_HASHLEN);
	links1 = m1.links;
	links2 = m2.links;
	links3 = m3.links;

	/* a pass where m1 and m2 write, m3 does not; then it is lost */
	play_one(db, &m1, &b1, 1);
	play_one(db, &m2, &b2, 0);
	play_one(db, &m2, &b2, 1);
	assert_int_not_equal(m1.links, links1);
	assert_int_equal(sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL,
	    NULL), SQLITE_OK);
	assert_int_equal(db_group_commit(db), -1);
	assert_int_equal(db_group_pending(db), 0);
	assert_int_equal(nlost, 2);
	assert_true((lost_seen[0] == &m1 && lost_seen[1] == &m2) ||
	    (lost_seen[0] == &m2 && lost_seen[1] == &m1));
	assert_memory_equal(m1.chain, chain1, DB_HASHLEN);
	assert_memory_equal(m2.chain, chain2, DB_HASHLEN);
	assert_int_equal(m1.links, links1);
	assert_int_equal(m2.links, links2);
	assert_int_equal(m3.links, links3);

	/* the matches go on from the restored chain: the log audits */
	assert_int_equal(db_match_end(db, &m1, "aborted", "log failure", NULL,
	    0), 0);
	assert_int_equal(db_match_end(db, &m2, "aborted", "log failure", NULL,
	    0), 0);
	play_one(db, &m3, &b3, 0);
	assert_int_equal(db_group_commit(db), 0);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(count(h, "plays", m1.id), 1);
	assert_int_equal(count(h, "plays", m2.id), 0);
	assert_int_equal(count(h, "plays", m3.id), 1);
	assert_int_equal(audit(h, m1.id, NULL), m1.links);
	assert_int_equal(audit(h, m2.id, NULL), m2.links);
	assert_int_equal(audit(h, m3.id, NULL), m3.links);
	sqlite3_close(h);
	db_close(db);
}

static uint64_t		 ask_ret;	/* what sync_ask() answers */
static struct db_match	*ask_seen;	/* the one match it was asked for */
static int		 ask_n;

static uint64_t
sync_ask(void *arg, struct db_match *m)
{
	(void)arg;
	ask_n++;
	ask_seen = m;
	return ask_ret;
}

/* An integer a pragma of h answers. */
static int64_t
pragma(sqlite3 *h, const char *sql)
{
	sqlite3_stmt	*st;
	int64_t		 v;

	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Bytes of the write-ahead log file: frames of 4,096 + 24 bytes. */
#define WAL_FRAMES(n)	(32 + (n) * (4096 + 24))

static off_t
wal_size(void)
{
	struct stat	 sb;
	char		 p[160];

	snprintf(p, sizeof(p), "%s-wal", path);
	assert_int_equal(stat(p, &sb), 0);
	return sb.st_size;
}

static int	 ckpt_asks;

static void
ckpt_ask(void *arg)
{
	(void)arg;
	ckpt_asks++;
}

/* One commit of its own: a bot event, a few pages of log. */
static void
one_commit(struct db *db)
{
	assert_int_equal(db_bot_event(db, 0, -1, "bot", "spawn", "x"), 0);
}

/*
 * Checkpoints every db_ckpt_pages pages (DB_CKPT_PAGES by default), the
 * log cut back to 16 MiB after one.  Made in the loop, a checkpoint
 * lets the log start again from its beginning: its file stops growing.
 * Asked of a thread (ckpt_async), the loop makes none until the thread
 * is done, or until the log holds four cycles; once it is done, the
 * loop copies what is left and the log starts again.  The thread's
 * checkpoint is made here on a second connection, as ckpt.c makes it.
 */
static void
test_checkpoints(void **state)
{
	struct db	*db;
	sqlite3		*h, *r;
	char		 err[256];
	off_t		 before, size;
	int		 i, log, copied;

	(void)state;
	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(pragma(db_handle(db), "PRAGMA journal_size_limit"),
	    16777216);

	/* cut back to nothing: the file's size is what the log holds */
	assert_int_equal(sqlite3_exec(db_handle(db), "PRAGMA "
	    "journal_size_limit = 0", NULL, NULL, NULL), SQLITE_OK);

	/* in the loop: 200 commits of a few pages each, in a log of 8 (the
	   first checkpoints the schema's pages, the second starts again) */
	db_ckpt_pages(db, 8);
	for (i = 0; i < 200; i++) {
		one_commit(db);
		assert_true(i < 2 || wal_size() <= WAL_FRAMES(16));
	}

	/* asked of a thread once; the log grows past its cycle meanwhile */
	db_ckpt_async(db, ckpt_ask, NULL);
	ckpt_asks = 0;
	for (i = 0; i < 200 && ckpt_asks == 0; i++)
		one_commit(db);
	assert_int_equal(ckpt_asks, 1);
	before = wal_size();
	for (i = 0; i < 200 && wal_size() < WAL_FRAMES(24); i++) {
		one_commit(db);
		assert_true(wal_size() >= before);	/* never restarted */
		before = wal_size();
	}
	assert_true(wal_size() >= WAL_FRAMES(24));
	assert_int_equal(ckpt_asks, 1);

	/*
	 * The thread's checkpoint leaves the pages the loop wrote while it
	 * ran: here, those a reader's older snapshot keeps it from copying.
	 */
	assert_int_equal(sqlite3_open_v2(path, &r, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(r, "BEGIN; SELECT count(*) FROM "
	    "bot_events", NULL, NULL, NULL), SQLITE_OK);
	one_commit(db);
	one_commit(db);
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE,
	    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "SELECT count(*) FROM sqlite_master",
	    NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_wal_checkpoint_v2(h, NULL,
	    SQLITE_CHECKPOINT_PASSIVE, &log, &copied), SQLITE_OK);
	assert_true(log >= 24 && copied >= 20 && copied < log);
	sqlite3_close(h);
	assert_int_equal(sqlite3_exec(r, "COMMIT", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(r);
	db_ckpt_done(db);

	/* the next commit takes the tail, and the log starts again */
	size = wal_size();
	one_commit(db);
	one_commit(db);
	assert_true(wal_size() < size && wal_size() <= WAL_FRAMES(8));

	/* a thread that never answers: the loop checkpoints at four
	   cycles, 32 pages */
	for (i = 0; i < 300; i++)
		one_commit(db);
	assert_int_equal(ckpt_asks, 2);
	assert_true(wal_size() <= WAL_FRAMES(40));
	db_close(db);
}

/* A log in group mode whose syncs are asked of sync_ask(). */
static struct db *
open_async(void)
{
	struct db	*db;
	char		 err[256];

	db = db_open(path, 0, err, sizeof(err));
	assert_non_null(db);
	hook_calls = nlost = 0;
	db_group_mode(db, group_hook, group_lost);
	db_group_async(db, sync_ask, NULL);
	return db;
}

/*
 * Only a match's end asks for a sync: a fault, a deal's end and the
 * plays before them are committed with their group, unsynced, when its
 * window is over and not before, and their match never waits for a
 * sync.  An end asked of a thread leaves its match unsynced until heard
 * of, or until the loop syncs (another end kept there).
 */
static void
test_group_unsynced(void **state)
{
	struct db		*db;
	struct db_match		 m1, m2;
	struct bri_match	 b1, b2;
	struct timespec		 ts;
	int64_t			 now, wait;
	int			 seq = 0;

	(void)state;
	db = open_async();
	db_group_window(db, 10000000);	/* 10 s: never reached by itself */
	begin_deal(db, &m1, &b1);
	begin_deal(db, &m2, &b2);
	assert_int_equal(db_group_commit(db), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* the log's clock */
	now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 + 1000000;

	/* a fault and a whole deal's end: nothing asked, nothing due */
	ask_n = 0;
	ask_ret = 7;
	assert_int_equal(db_fault(db, &m1, 1, 0, "illegal", "x", 3,
	    "fallback"), 0);
	while (!b2.deal.over)
		play_one(db, &m2, &b2, seq++);
	assert_int_equal(db_deal_end(db, &m2, &b2), 0);
	assert_false(db_match_unsynced(db, &m1));
	assert_false(db_match_unsynced(db, &m2));
	assert_int_equal(db_group_due(db, now, &wait), 0);
	assert_true(wait > 0);
	assert_int_equal(db_group_due(db, now + 10000000, &wait), 1);
	assert_int_equal(db_group_commit(db), 0);
	assert_int_equal(ask_n, 0);
	assert_false(db_match_unsynced(db, &m1));
	assert_false(db_match_unsynced(db, &m2));

	/* an end handed to a thread as request 9, never heard of: another
	   end synced in the loop frees it */
	assert_int_equal(db_match_end_async(db, &m1, "seat0", "test", NULL,
	    0), 0);
	assert_int_equal(ask_n, 1);
	assert_ptr_equal(ask_seen, &m1);
	assert_true(db_match_unsynced(db, &m1));
	assert_false(db_match_unsynced(db, &m2));
	assert_int_equal(db_match_end(db, &m2, "aborted", "test", NULL, 0),
	    0);
	assert_false(db_match_unsynced(db, &m1));
	assert_int_equal(db_sync_done(db), 7);
	assert_int_equal(nlost, 0);
	db_group_async(db, NULL, NULL);
	db_close(db);
}

/* Does the log say match id is done, as another connection reads it? */
static int
match_done(sqlite3 *h, int64_t id)
{
	sqlite3_stmt	*st;
	int		 done;

	assert_int_equal(sqlite3_prepare_v2(h, "SELECT state = 'done' FROM "
	    "matches WHERE id = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	done = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return done;
}

/*
 * A match's end committed with its sync asked of the owner's thread
 * (db_match_end_async()): the end is in the log at once, and the match
 * waits until the sync is heard of; kept in the loop (0), or with no
 * owner, it is synced before the call returns.
 */
static void
test_end_async(void **state)
{
	struct db		*db;
	struct db_match		 m1, m2, m3;
	struct bri_match	 b1, b2, b3;
	sqlite3			*h;

	(void)state;
	db = open_async();
	begin_deal(db, &m1, &b1);
	begin_deal(db, &m2, &b2);
	begin_deal(db, &m3, &b3);
	play_one(db, &m1, &b1, 0);
	play_one(db, &m2, &b2, 0);
	assert_int_equal(db_group_commit(db), 0);

	/* handed over as request 12: committed, not yet known synced */
	ask_ret = 12;
	ask_n = 0;
	assert_int_equal(db_match_end_async(db, &m1, "seat0", "played out",
	    NULL, 0), 0);
	assert_int_equal(ask_n, 1);
	assert_ptr_equal(ask_seen, &m1);
	assert_true(db_match_unsynced(db, &m1));
	assert_false(db_match_unsynced(db, &m2));
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_true(match_done(h, m1.id));
	db_sync_heard(db, 11);
	assert_true(db_match_unsynced(db, &m1));
	db_sync_heard(db, 12);
	assert_false(db_match_unsynced(db, &m1));

	/* kept in the loop: synced before it returns */
	ask_ret = 0;
	assert_int_equal(db_match_end_async(db, &m2, "seat1", "played out",
	    NULL, 0), 0);
	assert_ptr_equal(ask_seen, &m2);
	assert_false(db_match_unsynced(db, &m2));

	/* no owner: as db_match_end() */
	db_group_async(db, NULL, NULL);
	ask_n = 0;
	assert_int_equal(db_match_end_async(db, &m3, "seat2", "played out",
	    NULL, 0), 0);
	assert_int_equal(ask_n, 0);
	assert_false(db_match_unsynced(db, &m3));
	assert_true(match_done(h, m3.id));
	assert_int_equal(audit(h, m1.id, NULL), m1.links);
	assert_int_equal(audit(h, m2.id, NULL), m2.links);
	assert_int_equal(nlost, 0);
	sqlite3_close(h);
	db_close(db);
}

/*
 * Among eight matches or more writing in one group, an end handed to a
 * thread joins the group instead of committing it (db.c, db_end_joins()):
 * not in the log, and its match unsynced, until the group's commit, which
 * asks one sync for every end it holds (m NULL); the chains audit.  With
 * fewer matches the end commits at once, as before.  A group lost with
 * an end in it loses that end: its match hears so, and is still running
 * in the log.  A sync the owner leaves to the loop is made at the commit.
 */
#define NJOIN	12
static void
test_end_joins(void **state)
{
	struct db		*db;
	struct db_match		 m[NJOIN];
	struct bri_match	 b[NJOIN];
	sqlite3			*h;
	int			 i;

	(void)state;
	db = open_async();
	db_group_window(db, 10000000);	/* committed by the test alone */
	for (i = 0; i < NJOIN; i++)
		begin_deal(db, &m[i], &b[i]);
	assert_int_equal(db_group_commit(db), 0);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);

	/* seven matches in the group: the end commits it, then itself */
	for (i = 0; i < 7; i++)
		play_one(db, &m[i], &b[i], 0);
	ask_n = 0;
	ask_ret = 3;
	assert_int_equal(db_match_end_async(db, &m[0], "seat0", "played out",
	    NULL, 0), 0);
	assert_int_equal(ask_n, 1);
	assert_ptr_equal(ask_seen, &m[0]);
	assert_int_equal(db_group_pending(db), 0);
	assert_true(match_done(h, m[0].id));
	db_sync_heard(db, 3);
	assert_false(db_match_unsynced(db, &m[0]));

	/* eight or more: two ends join the group, asked for at its commit */
	for (i = 1; i < NJOIN; i++)
		play_one(db, &m[i], &b[i], 1);
	ask_n = 0;
	assert_int_equal(db_match_end_async(db, &m[1], "seat0", "played out",
	    NULL, 0), 0);
	assert_int_equal(db_match_end_async(db, &m[2], "seat1", "played out",
	    NULL, 0), 0);
	assert_int_equal(ask_n, 0);
	assert_int_equal(db_group_pending(db), 1);
	assert_true(db_match_unsynced(db, &m[1]));
	assert_true(db_match_unsynced(db, &m[2]));
	assert_false(match_done(h, m[1].id));
	ask_ret = 4;
	assert_int_equal(db_group_commit(db), 0);
	assert_int_equal(ask_n, 1);
	assert_null(ask_seen);
	assert_true(match_done(h, m[1].id) && match_done(h, m[2].id));
	assert_true(db_match_unsynced(db, &m[1]));
	db_sync_heard(db, 4);
	assert_false(db_match_unsynced(db, &m[1]));
	assert_false(db_match_unsynced(db, &m[2]));
	assert_false(db_match_unsynced(db, &m[3]));
	assert_int_equal(audit(h, m[1].id, NULL), m[1].links);
	assert_int_equal(audit(h, m[2].id, NULL), m[2].links);

	/* a joined end whose group is lost: its match hears, still running */
	for (i = 3; i < NJOIN; i++)
		play_one(db, &m[i], &b[i], 2);
	assert_int_equal(db_match_end_async(db, &m[3], "seat0", "played out",
	    NULL, 0), 0);
	assert_int_equal(sqlite3_exec(db_handle(db), "ROLLBACK", NULL, NULL,
	    NULL), SQLITE_OK);
	nlost = 0;
	assert_int_equal(db_group_commit(db), -1);
	assert_int_equal(nlost, NJOIN - 3);
	assert_true(db_match_unsynced(db, &m[3]));
	assert_false(match_done(h, m[3].id));

	/* the owner leaves the sync to the loop: made at the commit */
	for (i = 4; i < NJOIN; i++)
		play_one(db, &m[i], &b[i], 2);
	assert_int_equal(db_match_end_async(db, &m[4], "seat0", "played out",
	    NULL, 0), 0);
	assert_true(db_match_unsynced(db, &m[4]));
	ask_ret = 0;
	assert_int_equal(db_group_commit(db), 0);
	assert_false(db_match_unsynced(db, &m[4]));
	assert_true(match_done(h, m[4].id));
	assert_int_equal(audit(h, m[4].id, NULL), m[4].links);
	assert_int_equal(audit(h, m[5].id, NULL), m[5].links);
	sqlite3_close(h);
	db_group_async(db, NULL, NULL);
	db_close(db);
}

/*
 * A transcript hashed as a seat's writes leave (chain_tx_sent(): "ID
 * TEXT\n" lines, ids left out) or as answers are read (chain_tx_bytes())
 * is the one chain_tx_line() gives line by line, which refctl checks
 * receipts by.
 */
/* Two transcripts hash alike, and count n lines each. */
static void
tx_alike(const struct chain_tx *a, const struct chain_tx *b, long long n)
{
	char	 ha[CHAIN_HEXLEN + 1], hb[CHAIN_HEXLEN + 1];

	chain_tx_hex(a, ha);
	chain_tx_hex(b, hb);
	assert_string_equal(ha, hb);
	assert_int_equal(a->n, n);
	assert_int_equal(b->n, n);
}

static void
test_chain_tx(void **state)
{
	static const char sent[] = "7 match_start a b\n8 genplay\n"
	    "123 deal_end x y\n";
	static const char ans[] = "=\n=7C\n? no\n";
	struct chain_tx	 a, b;

	(void)state;
	chain_tx_init(&a);
	chain_tx_init(&b);
	chain_tx_line(&a, "match_start a b", 15);
	chain_tx_line(&a, "genplay", 7);
	chain_tx_line(&a, "deal_end x y", 12);
	chain_tx_sent(&b, sent, 18);		/* in two writes */
	chain_tx_sent(&b, sent + 18, sizeof(sent) - 1 - 18);
	tx_alike(&a, &b, 3);
	chain_tx_init(&a);
	chain_tx_init(&b);
	chain_tx_line(&a, "=", 1);
	chain_tx_line(&a, "=7C", 3);
	chain_tx_line(&a, "? no", 4);
	chain_tx_bytes(&b, ans, sizeof(ans) - 1, 3);
	tx_alike(&a, &b, 3);
	/* an answer of two lines is one answer, its lines joined */
	chain_tx_line(&a, "=a\nb", 4);
	chain_tx_bytes(&b, "=a\nb\n", 5, 1);
	tx_alike(&a, &b, 4);
	/* an id is not the text: another id, the same hash */
	chain_tx_init(&b);
	chain_tx_sent(&b, "9 match_start a b\n1 genplay\n5 deal_end x y\n",
	    43);
	chain_tx_init(&a);
	chain_tx_line(&a, "match_start a b", 15);
	chain_tx_line(&a, "genplay", 7);
	chain_tx_line(&a, "deal_end x y", 12);
	tx_alike(&a, &b, 3);
}

/*
 * chain.c's texts and links against vectors computed elsewhere (Python's
 * hashlib.blake2b), a NUL in a bot's evidence kept, and a text too long
 * for a link refused rather than cut.
 */
static void
test_chain_vectors(void **state)
{
	static const char ev[] = "pl\0ay";
	struct chain_text	 t;
	uint8_t			 l0[CHAIN_HASHLEN], l1[CHAIN_HASHLEN];
	char			 hex[CHAIN_HEXLEN + 1], big[CHAIN_TEXTMAX];

	(void)state;
	chain_match(&t, 7, "joker3", "deals_to_win=2",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "chacha20-ietf/1");
	chain_link0(&t, l0);
	sodium_bin2hex(hex, sizeof(hex), l0, sizeof(l0));
	assert_string_equal(hex, "3cc2bcb49160411c126f6c335d1546aa"
	    "d152a130c94a9e0873ba7a7d18822542");
	assert_true(chain_check(NULL, &t, hex, l1));
	chain_fault(&t, 3, 2, "illegal", 7, 12, "fallback 7C", 11, ev,
	    sizeof(ev) - 1);
	assert_int_equal(t.len, 67);
	chain_link(l0, &t, l1);
	sodium_bin2hex(hex, sizeof(hex), l1, sizeof(l1));
	assert_string_equal(hex, "ce29bf272c191a19ec6138c127b5b699"
	    "4c370f6ed7e21a0eb43a85acf0d2efc1");
	hex[5] = hex[5] == '0' ? '1' : '0';
	assert_false(chain_check(l0, &t, hex, l1));
	chain_play(&t, 3, 7, 2, 1, "3S", 2, 12, 0);
	assert_string_equal(t.buf, "play 3 7 trick=2 seat=1 card=3S ms=12 "
	    "fault=0");
	chain_deal(&t, 3, 1, "3S", 2, NULL, 0, "1C 5D", 5);
	assert_string_equal(t.buf, "deal 3 dealer=1 trump=3S removed=- "
	    "deck=1C 5D");
	chain_trick(&t, 3, 2, 0, 21);
	assert_string_equal(t.buf, "trick 3 2 winner=0 points=21");
	chain_joker(&t, 3, 1);
	assert_string_equal(t.buf, "joker 3 seat=1");
	chain_dealend(&t, 3, "allies", 6, -1, "38,4,78", 7, "1,1,0", 5);
	assert_string_equal(t.buf, "dealend 3 result=allies winner=-1 "
	    "points=38,4,78 mpoints=1,1,0");
	memset(big, 'x', sizeof(big));
	chain_matchend(&t, "seat1", 5, "2,10,4", 6, big, sizeof(big));
	assert_true(t.overflow);
	assert_false(chain_check(l0, &t, hex, l1));
	chain_matchend(&t, "seat1", 5, "2,10,4", 6, "reached", 7);
	assert_false(t.overflow);
	assert_string_equal(t.buf, "matchend result=seat1 mpoints=2,10,4 "
	    "reason=reached");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_vectors),
		cmocka_unit_test_setup_teardown(test_whole_match, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_failed_write, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_migrate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_newer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_locked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_unfinished, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_group_mode, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_group_lost, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_group_unsynced, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_end_async, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_end_joins, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints, setup,
		    teardown),
		cmocka_unit_test(test_chain_tx),
	};

	if (bri_init() != BRI_OK)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
