/*
 * refctl-cluster.c: refctl cluster, the organiser's side of a cluster
 * (refd-cluster(7)): the schema in PostgreSQL and its migrations, the
 * workers' roles, tournaments submitted as one row per slot, and their
 * progress and standings computed from the database's rows with the
 * standings code of one machine (tstand_report()).  A command-line tool:
 * libpq's blocking calls are right here.
 */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "audit.h"
#include "auditlog.h"
#include "bots.h"
#include "gtp.h"
#include "pqdl.h"
#include "refctl.h"
#include "tdef.h"
#include "tstand.h"
#include "util.h"

#include "refd/cluster-schema.inc"

#define CL_SCHEMA	((int)(sizeof(cl_migrations) / \
			    sizeof(cl_migrations[0])))
#define CL_MAXFILE	(256 * 1024)
#define CL_LOCK		"7265666463"	/* the migrations' advisory lock */
#define CL_LEASE_MS	60000		/* a lease's default time */
/* UTC in ISO 8601, as the log writes its dates */
#define CL_ISO		"'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'"

/* Connect, or say why not. */
static PGconn *
cl_connect(const char *conninfo)
{
	PGconn	*c;
	char	 err[256];

	if (pqdl_load(err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: cluster: %s\n", err);
		return NULL;
	}
	if ((c = pq.connectdb(conninfo)) == NULL ||
	    pq.status(c) != CONNECTION_OK) {
		fprintf(stderr, "refctl: cluster: %s", c != NULL ?
		    pq.errorMessage(c) : "out of memory\n");
		pq.finish(c);
		return NULL;
	}
	return c;
}

/* Run sql with its text parameters; NULL (said why) unless it worked. */
static PGresult *
cl_exec(PGconn *c, const char *sql, int n, const char *const *v)
{
	PGresult	*r = pq.execParams(c, sql, n, NULL, v, NULL, NULL, 0);
	ExecStatusType	 st = pq.resultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		fprintf(stderr, "refctl: cluster: %s", pq.errorMessage(c));
		pq.clear(r);
		return NULL;
	}
	return r;
}

/* Run sql, statements without parameters, no rows wanted; 0 or -1. */
static int
cl_run(PGconn *c, const char *sql)
{
	PGresult	*r = pq.exec(c, sql);
	ExecStatusType	 st = pq.resultStatus(r);

	pq.clear(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		fprintf(stderr, "refctl: cluster: %s", pq.errorMessage(c));
		return -1;
	}
	return 0;
}

/* init CONNINFO: create or migrate the schema. */
static int
cl_init(int argc, char **argv)
{
	PGconn		*c;
	PGresult	*r;
	char		 v[16];
	const char	*vv[1] = { v };
	int		 have, from, i;

	if (argc != 3)
		return REFCTL_USAGE;
	if ((c = cl_connect(argv[2])) == NULL)
		return 2;
	if (cl_run(c, "BEGIN") == -1 ||
	    cl_run(c, "SELECT pg_advisory_xact_lock(" CL_LOCK ")") == -1 ||
	    (r = cl_exec(c, "SELECT to_regclass('refd.meta') IS NOT NULL", 0,
	    NULL)) == NULL)
		goto fail;
	have = strcmp(pq.getvalue(r, 0, 0), "t") == 0;
	pq.clear(r);
	from = 0;
	if (have) {
		if ((r = cl_exec(c, "SELECT version FROM refd.meta", 0,
		    NULL)) == NULL)
			goto fail;
		from = atoi(pq.getvalue(r, 0, 0));
		pq.clear(r);
	}
	if (from > CL_SCHEMA) {
		fprintf(stderr, "refctl: cluster: the schema is at version %d, "
		    "newer than this refctl's %d\n", from, CL_SCHEMA);
		goto fail;
	}
	for (i = from; i < CL_SCHEMA; i++) {
		if (cl_run(c, cl_migrations[i]) == -1)
			goto fail;
		snprintf(v, sizeof(v), "%d", i + 1);
		if ((r = cl_exec(c, "UPDATE refd.meta SET version = $1", 1,
		    vv)) == NULL)
			goto fail;
		pq.clear(r);
	}
	if (cl_run(c, "COMMIT") == -1)
		goto fail;
	printf("cluster schema at version %d%s\n", CL_SCHEMA, from ==
	    CL_SCHEMA ? " already" : "");
	pq.finish(c);
	return 0;
fail:
	pq.finish(c);
	return 1;
}

/*
 * The SCRAM-SHA-256 verifier of password pw, as PostgreSQL stores it
 * (RFC 5802, 7677): "SCRAM-SHA-256$ITER:SALT$STOREDKEY:SERVERKEY".  A
 * worker's password is 192 random bits, which no guessing reaches, so
 * that PBKDF2's iterations protect nothing here; they would cost every
 * connection of the worker that much work inside its event loop
 * (tens of milliseconds at 4096 on a busy machine).  Hence CL_SCRAM_ITER.
 */
#define CL_SCRAM_ITER	16

static int
cl_scram(const char *pw, char *out, size_t len)
{
	uint8_t		 salt[16], u[32], t[32], ck[32], sk[32], stored[32];
	uint8_t		 blk[sizeof(salt) + 4];
	char		 b64s[64], b64a[64], b64b[64];
	crypto_auth_hmacsha256_state st;
	int		 i, j;

	randombytes_buf(salt, sizeof(salt));
	/* PBKDF2-HMAC-SHA-256, one block */
	memcpy(blk, salt, sizeof(salt));
	memcpy(blk + sizeof(salt), "\0\0\0\1", 4);
	crypto_auth_hmacsha256_init(&st, (const uint8_t *)pw, strlen(pw));
	crypto_auth_hmacsha256_update(&st, blk, sizeof(blk));
	crypto_auth_hmacsha256_final(&st, u);
	memcpy(t, u, sizeof(t));
	for (i = 1; i < CL_SCRAM_ITER; i++) {
		crypto_auth_hmacsha256_init(&st, (const uint8_t *)pw,
		    strlen(pw));
		crypto_auth_hmacsha256_update(&st, u, sizeof(u));
		crypto_auth_hmacsha256_final(&st, u);
		for (j = 0; j < 32; j++)
			t[j] ^= u[j];
	}
	crypto_auth_hmacsha256_init(&st, t, sizeof(t));
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)"Client Key", 10);
	crypto_auth_hmacsha256_final(&st, ck);
	crypto_hash_sha256(stored, ck, sizeof(ck));
	crypto_auth_hmacsha256_init(&st, t, sizeof(t));
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)"Server Key", 10);
	crypto_auth_hmacsha256_final(&st, sk);
	sodium_memzero(t, sizeof(t));
	sodium_memzero(u, sizeof(u));
	sodium_bin2base64(b64s, sizeof(b64s), salt, sizeof(salt),
	    sodium_base64_VARIANT_ORIGINAL);
	sodium_bin2base64(b64a, sizeof(b64a), stored, sizeof(stored),
	    sodium_base64_VARIANT_ORIGINAL);
	sodium_bin2base64(b64b, sizeof(b64b), sk, sizeof(sk),
	    sodium_base64_VARIANT_ORIGINAL);
	return (size_t)snprintf(out, len, "SCRAM-SHA-256$%d:%s$%s:%s",
	    CL_SCRAM_ITER, b64s, b64a, b64b) < len ? 0 : -1;
}

/* add-worker CONNINFO NAME: its role, its password printed once. */
static int
cl_add_worker(int argc, char **argv)
{
	PGconn		*c;
	PGresult	*r;
	uint8_t		 raw[24];
	char		 pw[2 * sizeof(raw) + 1], role[64], hash[256];
	char		*id = NULL, *lit = NULL, *sql = NULL;
	const char	*v[2];
	int		 rc = 1;

	if (argc != 4)
		return REFCTL_USAGE;
	if (!util_name_ok(argv[3])) {
		fprintf(stderr, "refctl: cluster: a worker's name is 1 to 32 "
		    "letters, digits, _ . or -\n");
		return 2;
	}
	if ((c = cl_connect(argv[2])) == NULL)
		return 2;
	snprintf(role, sizeof(role), "refd_w_%s", argv[3]);
	randombytes_buf(raw, sizeof(raw));
	util_hex(raw, sizeof(raw), pw);
	/* only the password's SCRAM verifier reaches the server */
	if (cl_scram(pw, hash, sizeof(hash)) == -1 ||
	    (id = pq.escapeIdentifier(c, role, strlen(role))) == NULL ||
	    (lit = pq.escapeLiteral(c, hash, strlen(hash))) == NULL ||
	    asprintf(&sql, "CREATE ROLE %s LOGIN PASSWORD %s IN ROLE "
	    "refd_worker", id, lit) == -1) {
		fprintf(stderr, "refctl: cluster: %s", pq.errorMessage(c));
		sql = NULL;
		goto out;
	}
	v[0] = argv[3];
	v[1] = role;
	if (cl_run(c, "BEGIN") == -1 || cl_run(c, sql) == -1 ||
	    (r = cl_exec(c, "INSERT INTO refd.workers (name, role) VALUES "
	    "($1, $2)", 2, v)) == NULL)
		goto out;
	pq.clear(r);
	if (cl_run(c, "COMMIT") == -1)
		goto out;
	printf("worker %s\nuser %s\npassword %s\n", argv[3], role, pw);
	rc = 0;
out:
	sodium_memzero(pw, sizeof(pw));
	free(sql);
	sodium_memzero(hash, sizeof(hash));
	pq.freemem(id);
	pq.freemem(lit);
	pq.finish(c);
	return rc;
}

/* A definition file, whole and bounded; NULL (said why) if not. */
static char *
cl_read(const char *path)
{
	FILE		*fp;
	struct stat	 sb;
	char		*text;
	size_t		 n;

	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, "refctl: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(fp), &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > CL_MAXFILE || (text = malloc(sb.st_size + 1)) ==
	    NULL) {
		fprintf(stderr, "refctl: %s: not a regular file of at most "
		    "%d bytes\n", path, CL_MAXFILE);
		fclose(fp);
		return NULL;
	}
	n = fread(text, 1, sb.st_size, fp);
	text[n] = '\0';
	fclose(fp);
	if (memchr(text, '\0', n) != NULL) {
		fprintf(stderr, "refctl: %s: not a text file\n", path);
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The definition text without its seed lines, each made a comment so
 * that the lines keep their numbers: what workers read.
 */
static char *
cl_public(const char *text)
{
	char		*out, *o;
	const char	*p, *e;

	if ((out = malloc(strlen(text) * 2 + 64)) == NULL)
		return NULL;
	for (p = text, o = out; *p != '\0'; p = e) {
		e = p + strcspn(p, "\n");
		if (*e == '\n')
			e++;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (strncmp(p, "seed", 4) == 0 && (p[4] == ' ' ||
		    p[4] == '\t' || p[4] == '\n' || p[4] == '\0')) {
			o += sprintf(o, "# seed withheld until the end\n");
			continue;
		}
		memcpy(o, p, e - p);
		o += e - p;
	}
	*o = '\0';
	return out;
}

/* The words of d's bot line for participant name, or -1. */
static int
cl_botdef(const struct tdef *d, const char *name, char *buf, size_t len,
    char **w)
{
	int	 i, n;

	for (i = 0; i < d->nbotdefs; i++) {
		snprintf(buf, len, "%s", d->botdef[i]);
		if ((n = gtp_split(buf, w, GTP_MAXARGS)) >= 3 &&
		    strcmp(w[0], name) == 0)
			return n;
	}
	return -1;
}

/* submit CONNINFO FILE [--lease-ms N]: a tournament, a row per slot. */
static int
cl_submit(int argc, char **argv)
{
	struct tdef	 d;
	struct tslot	*slots = NULL;
	PGconn		*c = NULL;
	PGresult	*r;
	FILE		*f[4] = { NULL, NULL, NULL, NULL };
	char		*buf[4] = { NULL, NULL, NULL, NULL };
	size_t		 blen[4];
	char		*text, *pub = NULL, err[512], line[GTP_MAXLINE + 1];
	char		*w[GTP_MAXARGS], ident[BOTS_IDENTLEN];
	char		 seed[BRI_SEED_STRLEN], commit[2 * BRI_COMMITLEN + 1];
	char		 tid[24], idx[16], num[2][16];
	uint8_t		 cm[BRI_COMMITLEN];
	const char	*v[6], *errstr;
	long long	 lease_ms = CL_LEASE_MS;
	int		 nslots, i, k, n, rc = 1;

	if (argc == 6 && strcmp(argv[4], "--lease-ms") == 0) {
		lease_ms = util_num(argv[5], 400, 3600000, &errstr);
		if (errstr != NULL) {
			fprintf(stderr, "refctl: --lease-ms: %s (400 to "
			    "3600000)\n", errstr);
			return 2;
		}
	} else if (argc != 4)
		return REFCTL_USAGE;
	if ((text = cl_read(argv[3])) == NULL)
		return 2;
	if (tdef_parse(text, argv[3], &d, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		free(text);
		return 1;
	}
	if (!d.have_seed && bri_seed_new(&d.seed) != BRI_OK) {
		fprintf(stderr, "refctl: no entropy for a seed\n");
		goto out;
	}
	if (tdef_schedule(&d, &slots, &nslots, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: %s\n", err);
		goto out;
	}
	if ((pub = cl_public(text)) == NULL)
		goto out;
	bri_seed_commit(&d.seed, cm);
	util_hex(cm, sizeof(cm), commit);
	if ((c = cl_connect(argv[2])) == NULL) {
		rc = 2;
		goto out;
	}
	snprintf(num[0], sizeof(num[0]), "%d", nslots);
	snprintf(num[1], sizeof(num[1]), "%lld", lease_ms);
	v[0] = d.name;
	v[1] = pub;
	v[2] = commit;
	v[3] = num[0];
	v[4] = num[1];
	if (cl_run(c, "BEGIN") == -1 || (r = cl_exec(c, "INSERT INTO "
	    "refd.tournaments (name, definition, commitment, nslots, "
	    "lease_ms) VALUES ($1, $2, $3, $4, $5) RETURNING id", 5, v)) ==
	    NULL)
		goto out;
	snprintf(tid, sizeof(tid), "%s", pq.getvalue(r, 0, 0));
	pq.clear(r);
	v[0] = tid;
	v[1] = bri_seed_format(&d.seed, seed);
	if ((r = cl_exec(c, "INSERT INTO refd.secrets (tid, seed) VALUES "
	    "($1, $2)", 2, v)) == NULL)
		goto out;
	pq.clear(r);
	/* each participant's identity: its words and its program */
	for (i = 0; i < d.nbots; i++) {
		if ((n = cl_botdef(&d, d.bots[i], line, sizeof(line), w)) ==
		    -1 || strcmp(w[1], "spawn") != 0) {
			fprintf(stderr, "refctl: %s: bot %s: a cluster's "
			    "tournament defines each of its bots in the file "
			    "(bot %s spawn CMD...)\n", argv[3], d.bots[i],
			    d.bots[i]);
			goto out;
		}
		if (bots_identity(n - 2, w + 2, ident, sizeof(ident), err,
		    sizeof(err)) == -1) {
			fprintf(stderr, "refctl: %s: bot %s: %s\n", argv[3],
			    d.bots[i], err);
			goto out;
		}
		snprintf(idx, sizeof(idx), "%d", i);
		v[1] = idx;
		v[2] = d.bots[i];
		v[3] = ident;
		if ((r = cl_exec(c, "INSERT INTO refd.bots (tid, idx, name, "
		    "ident) VALUES ($1, $2, $3, $4)", 4, v)) == NULL)
			goto out;
		pq.clear(r);
	}
	/* every slot a row: arrays of its columns, unnested in one go */
	for (k = 0; k < 4; k++)
		if ((f[k] = open_memstream(&buf[k], &blen[k])) == NULL)
			goto out;
	for (i = 0; i < nslots; i++) {
		fprintf(f[0], "%s%d", i ? "," : "{", i);
		fprintf(f[1], "%s%d", i ? "," : "{", d.duplicate ?
		    slots[i].block : i);
		fprintf(f[2], "%s\"", i ? "," : "{");
		for (k = 0; k < bri_variant_seats(d.opt.variant); k++)
			fprintf(f[2], "%s%d", k ? "," : "", slots[i].bot[k]);
		fprintf(f[2], "\"");
		fprintf(f[3], "%s%s", i ? "," : "{",
		    bri_seed_format(&slots[i].seed, seed));
	}
	for (k = 0; k < 4; k++) {
		fputc('}', f[k]);
		if (fclose(f[k]) != 0) {
			f[k] = NULL;
			goto out;
		}
		f[k] = NULL;
		v[k + 1] = buf[k];
	}
	if ((r = cl_exec(c, "INSERT INTO refd.slots (tid, slot, unit, bots, "
	    "seed) SELECT $1, unnest($2::int[]), unnest($3::int[]), "
	    "unnest($4::text[]), unnest($5::text[])", 5, v)) == NULL)
		goto out;
	pq.clear(r);
	if (cl_run(c, "COMMIT") == -1)
		goto out;
	/*
	 * The slots' statistics now: before autovacuum's, the planner
	 * takes the new rows for a handful, and every lease() sorted all
	 * the free slots of the tournament (90 ms of 200,000, against 2).
	 */
	if (cl_run(c, "ANALYZE refd.slots") == -1)
		goto out;
	printf("tournament %s %s: %d slots, leases of %lld ms, master seed "
	    "commitment %s\n", tid, d.name, nslots, lease_ms, commit);
	rc = 0;
out:
	for (k = 0; k < 4; k++) {
		if (f[k] != NULL)
			fclose(f[k]);
		free(buf[k]);
	}
	sodium_memzero(&d.seed, sizeof(d.seed));
	free(slots);
	free(pub);
	free(text);
	tdef_free(&d);
	pq.finish(c);
	return rc;
}

/*
 * Tournament name of the cluster c: its id, and its definition parsed
 * (with its seed once revealed) into d.  0, or -1 (said why).
 */
static int
cl_tournament(PGconn *c, const char *name, int64_t *id, struct tdef *d,
    PGresult **row)
{
	PGresult	*r;
	const char	*v[1] = { name };
	char		 err[512], fname[64];

	if ((r = cl_exec(c, "SELECT id, definition, commitment, "
	    "coalesce(seed, ''), nslots, state, coalesce(reason, ''), "
	    "lease_ms, coalesce(decided_by, ''), to_char(submitted AT TIME "
	    "ZONE 'UTC', " CL_ISO "), coalesce(to_char(ended AT TIME ZONE "
	    "'UTC', " CL_ISO "), '') FROM refd.tournaments WHERE name = $1",
	    1, v)) == NULL)
		return -1;
	if (pq.ntuples(r) != 1) {
		fprintf(stderr, "refctl: cluster: no tournament %s\n", name);
		pq.clear(r);
		return -1;
	}
	*id = strtoll(pq.getvalue(r, 0, 0), NULL, 10);
	snprintf(fname, sizeof(fname), "tournament %s", name);
	if (tdef_parse(pq.getvalue(r, 0, 1), fname, d, err, sizeof(err)) ==
	    -1) {
		fprintf(stderr, "refctl: cluster: %s\n", err);
		pq.clear(r);
		return -1;
	}
	if (pq.getvalue(r, 0, 3)[0] != '\0' &&
	    bri_seed_parse(pq.getvalue(r, 0, 3), &d->seed) == BRI_OK)
		d->have_seed = 1;
	*row = r;
	return 0;
}

/*
 * Connect to conninfo and read tournament name (cl_tournament()): the
 * opening of every subcommand that reads one.  The connection, or NULL
 * with nothing left open and the exit status in *rc: 2 (no connection)
 * or 1 (no such tournament), said why.
 */
static PGconn *
cl_open(const char *conninfo, const char *name, int64_t *id,
    struct tdef *d, PGresult **row, int *rc)
{
	PGconn	*c;

	if ((c = cl_connect(conninfo)) == NULL) {
		*rc = 2;
		return NULL;
	}
	if (cl_tournament(c, name, id, d, row) == -1) {
		pq.finish(c);
		*rc = 1;
		return NULL;
	}
	return c;
}

/*
 * The results of tournament id, in schedule order, into ts: each
 * record read back, its seats checked against the schedule's, and its
 * thinking times taken (tstand_add_times()).  With row, the
 * tournament's (cl_tournament()), the time report is ts's when every
 * result carries its times (tstand_report() prints them), with the
 * tournament's name, id, seed once revealed, dates and state.
 */
static int
cl_results(PGconn *c, int64_t id, const struct tdef *d, struct tstand *ts,
    const PGresult *row)
{
	PGresult	*r;
	char		 tid[24], err[256], seats[64];
	const char	*v[1] = { tid };
	int		 i, k, n, slot;

	memset(ts, 0, sizeof(*ts));
	snprintf(tid, sizeof(tid), "%" PRId64, id);
	if ((r = cl_exec(c, "SELECT r.slot, r.match_id, r.record, s.bots, "
	    "r.times FROM refd.results r JOIN refd.slots s ON s.tid = r.tid "
	    "AND s.slot = r.slot WHERE r.tid = $1 ORDER BY r.slot", 1, v)) ==
	    NULL)
		return -1;
	for (i = 0; i < pq.ntuples(r); i++) {
		slot = atoi(pq.getvalue(r, i, 0));
		if (tstand_add_record(ts, d, slot, strtoll(pq.getvalue(r, i, 1),
		    NULL, 10), pq.getvalue(r, i, 2), err, sizeof(err)) == -1) {
			fprintf(stderr, "refctl: cluster: %s\n", err);
			goto fail;
		}
		n = 0;
		for (k = 0; k < ts->m[ts->n - 1].nseats; k++)
			n += snprintf(seats + n, sizeof(seats) - n, "%s%d",
			    k ? "," : "", ts->m[ts->n - 1].bot[k]);
		if (strcmp(seats, pq.getvalue(r, i, 3)) != 0) {
			fprintf(stderr, "refctl: cluster: slot %d: its seats "
			    "%s are not the schedule's %s\n", slot, seats,
			    pq.getvalue(r, i, 3));
			goto fail;
		}
		if (!pq.getisnull(r, i, 4) && tstand_add_times(ts, ts->n - 1,
		    pq.getvalue(r, i, 4), err, sizeof(err)) == -1) {
			fprintf(stderr, "refctl: cluster: %s\n", err);
			goto fail;
		}
	}
	pq.clear(r);
	if (row != NULL && ts->timed == ts->n) {
		ts->have_extra = 1;
		ts->meta.id = id;
		snprintf(ts->meta.name, sizeof(ts->meta.name), "%s", d->name);
		snprintf(ts->meta.seed, sizeof(ts->meta.seed), "%s",
		    pq.getvalue(row, 0, 3)[0] != '\0' ? pq.getvalue(row, 0, 3) :
		    "-");
		snprintf(ts->meta.started, sizeof(ts->meta.started), "%s",
		    pq.getvalue(row, 0, 9));
		snprintf(ts->meta.ended, sizeof(ts->meta.ended), "%s",
		    pq.getvalue(row, 0, 10));
		snprintf(ts->meta.state, sizeof(ts->meta.state), "%s",
		    pq.getvalue(row, 0, 5));
	}
	return 0;
fail:
	pq.clear(r);
	tstand_free(ts);
	return -1;
}

/*
 * Does reason, the end a worker's refd.decide() gave gauntlet d, follow
 * from the results ts?  The SPRT run again over them (slots, the
 * schedule): 1 if it decides with that very reason, else 0 with what
 * it says in why (len bytes).
 */
static int
cl_decision_ok(const struct tdef *d, const struct tslot *slots, int nslots,
    const struct tstand *ts, const char *reason, char *why, size_t len)
{
	struct st_sprt	 sp;

	tstand_sprt(d, slots, nslots, ts, &sp);
	tstand_sprt_reason(d, &sp, why, len);
	return sp.decided != 0 && strcmp(why, reason) == 0;
}

/* standings CONNINFO NAME [--format F]: from the database's rows. */
static int
cl_standings(int argc, char **argv)
{
	enum tstand_fmt	 fmt = TSTAND_TEXT;
	struct tdef	 d;
	struct tstand	 ts;
	PGconn		*c;
	PGresult	*row;
	int64_t		 id;
	int		 rc = 1;

	if (argc == 6 && strcmp(argv[4], "--format") == 0) {
		if (tstand_fmt_parse(argv[5], &fmt) == -1) {
			fprintf(stderr, "refctl: format: text, csv or json\n");
			return 2;
		}
	} else if (argc != 4)
		return REFCTL_USAGE;
	if ((c = cl_open(argv[2], argv[3], &id, &d, &row, &rc)) == NULL)
		return rc;
	if (cl_results(c, id, &d, &ts, row) == 0) {
		rc = tstand_report(stdout, &d, &ts, fmt) == 0 ? 0 : 1;
		tstand_free(&ts);
	}
	pq.clear(row);
	tdef_free(&d);
	pq.finish(c);
	return rc;
}

/* status CONNINFO NAME: progress, leases, workers, the SPRT. */
static int
cl_status(int argc, char **argv)
{
	struct tdef	 d;
	struct tstand	 ts;
	struct st_sprt	 sp;
	struct tslot	*slots;
	PGconn		*c;
	PGresult	*row, *r;
	char		 tid[24], err[256];
	const char	*v[1] = { tid };
	int64_t		 id;
	int		 i, nslots, rc = 1;

	if (argc != 4)
		return REFCTL_USAGE;
	if ((c = cl_open(argv[2], argv[3], &id, &d, &row, &rc)) == NULL)
		return rc;
	snprintf(tid, sizeof(tid), "%" PRId64, id);
	if ((r = cl_exec(c, "SELECT (SELECT count(*) FROM refd.slots WHERE "
	    "tid = $1 AND done), (SELECT count(*) FROM refd.slots WHERE "
	    "tid = $1 AND lease IS NOT NULL AND NOT done), (SELECT count(*) "
	    "FROM refd.refused WHERE tid = $1)", 1, v)) == NULL)
		goto out;
	printf("tournament %s %s %s\nprogress %s/%s\nleased %s\nrefused %s\n"
	    "lease_ms %s\n", tid, d.name, pq.getvalue(row, 0, 5),
	    pq.getvalue(r, 0, 0), pq.getvalue(row, 0, 4), pq.getvalue(r, 0, 1),
	    pq.getvalue(r, 0, 2), pq.getvalue(row, 0, 7));
	pq.clear(r);
	if (pq.getvalue(row, 0, 6)[0] != '\0')
		printf("reason %s\n", pq.getvalue(row, 0, 6));
	if (pq.getvalue(row, 0, 8)[0] != '\0')
		printf("decided_by %s\n", pq.getvalue(row, 0, 8));
	/* verdicts proposed by one worker, awaiting a second's */
	if ((r = cl_exec(c, "SELECT worker, reason FROM refd.proposals "
	    "WHERE tid = $1 ORDER BY made", 1, v)) == NULL)
		goto out;
	for (i = 0; i < pq.ntuples(r); i++)
		printf("proposal %s %s\n", pq.getvalue(r, i, 0),
		    pq.getvalue(r, i, 1));
	pq.clear(r);
	printf("commitment %s\n", pq.getvalue(row, 0, 2));
	if (pq.getvalue(row, 0, 3)[0] != '\0')
		printf("seed %s\n", pq.getvalue(row, 0, 3));
	if ((r = cl_exec(c, "SELECT w.name, coalesce(extract(epoch FROM "
	    "now() - w.heard)::int::text, '-'), w.pubkey IS NOT NULL, "
	    "(SELECT count(*) FROM refd.leases l WHERE l.worker = w.name AND "
	    "l.tid = $1 AND l.state = 'active'), (SELECT count(*) FROM "
	    "refd.results x WHERE x.worker = w.name AND x.tid = $1) FROM "
	    "refd.workers w ORDER BY w.name", 1, v)) == NULL)
		goto out;
	for (i = 0; i < pq.ntuples(r); i++)
		printf("worker %s heard %s key %s leases %s results %s\n",
		    pq.getvalue(r, i, 0), pq.getvalue(r, i, 1),
		    strcmp(pq.getvalue(r, i, 2), "t") == 0 ? "yes" : "no",
		    pq.getvalue(r, i, 3), pq.getvalue(r, i, 4));
	pq.clear(r);
	/* the rows' figures: a malformed one is named, the rest stands */
	rc = 0;
	if (cl_results(c, id, &d, &ts, row) == -1)
		goto out;
	if (d.sprt &&
	    tdef_schedule(&d, &slots, &nslots, err, sizeof(err)) == 0) {
		tstand_sprt(&d, slots, nslots, &ts, &sp);
		printf("sprt llr %.4f lower %.4f upper %.4f units %d games "
		    "%d-%d-%d state %s\n", sp.llr, sp.lower, sp.upper, sp.units,
		    sp.wins, sp.draws, sp.losses, tstand_sprt_state(&sp));
		/* a worker's word ended it: is it the rows'? */
		if (pq.getvalue(row, 0, 8)[0] != '\0' && !cl_decision_ok(&d,
		    slots, nslots, &ts, pq.getvalue(row, 0, 6), err,
		    sizeof(err)))
			printf("decision unsupported: worker %s ended it, the "
			    "results say \"%s\"\n", pq.getvalue(row, 0, 8), err);
		/* the time report counts what the standings count */
		tstand_sprt_prefix(&d, slots, nslots, &ts, &sp);
		free(slots);
	}
	/* the time report, by tstand_extra()'s figures, in d's order */
	if (!ts.have_extra)
		printf("times %d of %d results carry no thinking times\n",
		    ts.n - ts.timed, ts.n);
	else if (tstand_times(&ts, d.nbots) == 0)
		tstand_times_print(stdout, &d, &ts, NULL);
	tstand_free(&ts);
out:
	pq.clear(row);
	tdef_free(&d);
	pq.finish(c);
	return rc;
}

/* A worker's log, given to audit. */
struct cl_log {
	char		 worker[64];
	const char	*path;
	struct au	*a;		/* its walker, its handle open */
};

/* The last key a log says it signs with ("key HEX"), into hex. */
static int
cl_log_key(sqlite3 *h, char *hex, size_t len)
{
	sqlite3_stmt	*st;
	const char	*t;
	int		 rc = -1;

	if (sqlite3_prepare_v2(h, "SELECT text FROM log_chain WHERE kind = "
	    "'key' ORDER BY no DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (t = (const char *)sqlite3_column_text(st, 0)) != NULL &&
	    strncmp(t, "key ", 4) == 0 && strlen(t + 4) == 64) {
		snprintf(hex, len, "%s", t + 4);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Is link no of log h the end of match mid, with that link and that
 * signature (what the worker reported)?
 */
static int
cl_head_ok(sqlite3 *h, long long no, long long mid, const char *link,
    const char *sig)
{
	sqlite3_stmt	*st;
	int		 ok = 0;

	if (sqlite3_prepare_v2(h, "SELECT 1 FROM log_chain WHERE no = ? AND "
	    "kind = 'end' AND match_id = ? AND link = ? AND sig = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, no);
	sqlite3_bind_int64(st, 2, mid);
	sqlite3_bind_text(st, 3, link, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, sig, -1, SQLITE_STATIC);
	ok = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return ok;
}

/* The standings of ts as text, a new string; NULL if memory runs out. */
static char *
cl_standings_text(const struct tdef *d, struct tstand *ts)
{
	char	*buf = NULL;
	size_t	 len;
	FILE	*f;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return NULL;
	tstand_report(f, d, ts, TSTAND_TEXT);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Each worker's results against the others' (as fishtest does): for
 * each participant, its wins in that worker's matches against what its
 * win rate over all the matches predicts, where at least 5 wins and 5
 * other results are expected (else the chi-square's approximation does
 * not hold); the chi-square over participants, and its residual
 * (chi2 - df) / sqrt(2 df).  A warning for a residual over 4, never a
 * verdict.
 */
static void
cl_chi2(const struct tdef *d, const struct tstand *ts, char **who,
    const char *const *names, int nw)
{
	double	 chi2, e, rate, df, z;
	int	 w, b, i, k, n, mine, played, won, oplayed, owon;

	for (w = 0; w < nw; w++) {
		chi2 = 0;
		df = 0;
		n = 0;
		for (b = 0; b < d->nbots; b++) {
			played = won = oplayed = owon = 0;
			for (i = 0; i < ts->n; i++) {
				mine = strcmp(who[i], names[w]) == 0;
				for (k = 0; k < ts->m[i].nseats; k++) {
					if (ts->m[i].bot[k] != b)
						continue;
					if (mine) {
						played++;
						won += ts->m[i].winner == k;
					} else {
						oplayed++;
						owon += ts->m[i].winner == k;
					}
				}
			}
			if (played == 0 || oplayed == 0)
				continue;
			rate = (double)(won + owon) / (played + oplayed);
			e = played * rate;
			if (e < 5 || played - e < 5)
				continue;
			/* wins and losses, each cell of the 2 x 1 table */
			chi2 += (won - e) * (won - e) / e +
			    (won - e) * (won - e) / (played - e);
			df++;
		}
		for (i = 0; i < ts->n; i++)
			n += strcmp(who[i], names[w]) == 0;
		if (df == 0) {
			printf("worker %s: %d matches, no residual (nothing to "
			    "compare)\n", names[w], n);
			continue;
		}
		z = (chi2 - df) / sqrt(2 * df);
		printf("worker %s: %d matches, chi-square %.2f on %.0f df, "
		    "residual %.2f%s\n", names[w], n, chi2, df, z, z > 4 ?
		    " WARNING: its results differ from the others'" : "");
	}
}

/*
 * audit CONNINFO NAME LOG...: every slot played once, by the match of
 * the worker's log the database names; that match audits clean, its
 * seed and seats are the slot's, its end is the signed head reported,
 * signed by the key registered for that worker; the standings recounted
 * from the logs equal the database's.
 */
static int
cl_audit(int argc, char **argv)
{
	struct tdef	 d;
	struct tslot	*slots = NULL;
	struct tstand	 tdb, tlog, one;
	struct cl_log	*logs = NULL;
	PGconn		*c;
	PGresult	*row = NULL, *rw = NULL, *rr = NULL;
	char		 tid[24], key[65], err[512], *rec = NULL, *sa, *sb;
	char		*times = NULL;
	char		**who = NULL;
	const char	*names[TDEF_MAXBOTS * 4], *v[1] = { tid };
	const char	*w, *reason;
	int64_t		 id;
	long long	 mid, head_no;
	int		 nlogs = argc - 4, i, j, k, nslots, slot;
	int		 bad = 0, ok = 0;
	int		 rc = 2, nw = 0, sprt_end;

	if (argc < 5)
		return REFCTL_USAGE;
	memset(&tdb, 0, sizeof(tdb));
	memset(&tlog, 0, sizeof(tlog));
	if ((c = cl_open(argv[2], argv[3], &id, &d, &row, &rc)) == NULL)
		return rc;
	if (!d.have_seed) {
		printf("tournament %s FAILED: not over, its master seed not "
		    "revealed: nothing can be checked against its schedule\n",
		    argv[3]);
		rc = 1;
		goto out;
	}
	reason = pq.getvalue(row, 0, 6);
	sprt_end = strncmp(reason, "SPRT: ", 6) == 0;
	if (tdef_schedule(&d, &slots, &nslots, err, sizeof(err)) == -1) {
		fprintf(stderr, "refctl: cluster: %s\n", err);
		goto out;
	}
	snprintf(tid, sizeof(tid), "%" PRId64, id);
	if ((rw = cl_exec(c, "SELECT name, coalesce(pubkey, '') FROM "
	    "refd.workers ORDER BY name", 0, NULL)) == NULL ||
	    (rr = cl_exec(c, "SELECT slot, worker, match_id, record, "
	    "head_no, head, sig, times FROM refd.results WHERE tid = $1 "
	    "ORDER BY slot", 1, v)) == NULL)
		goto out;
	if ((logs = calloc(nlogs, sizeof(*logs))) == NULL ||
	    (rec = malloc(TSTAND_RECMAX + 1)) == NULL ||
	    (times = malloc(TSTAND_TIMESMAX + 1)) == NULL ||
	    (who = calloc(pq.ntuples(rr) + 1, sizeof(*who))) == NULL)
		goto out;
	/* each log, by its key, to the worker that registered it */
	for (i = 0; i < nlogs; i++) {
		logs[i].path = argv[4 + i];
		if ((logs[i].a = calloc(1, sizeof(*logs[i].a))) == NULL)
			goto out;
		if (au_open(logs[i].path, &logs[i].a->h) == -1) {
			printf("log %s FAILED: cannot be opened\n",
			    logs[i].path);
			bad++;
			continue;
		}
		logs[i].a->mode = AU_AUDIT;
		logs[i].a->out = stdout;
		if (cl_log_key(logs[i].a->h, key, sizeof(key)) == -1) {
			printf("log %s FAILED: it names no signing key\n",
			    logs[i].path);
			bad++;
			continue;
		}
		for (j = 0; j < pq.ntuples(rw); j++)
			if (strcmp(pq.getvalue(rw, j, 1), key) == 0)
				snprintf(logs[i].worker, sizeof(logs[i].worker),
				    "%s", pq.getvalue(rw, j, 0));
		if (logs[i].worker[0] == '\0') {
			printf("log %s FAILED: its key %.16s... is no "
			    "registered worker's\n", logs[i].path, key);
			bad++;
			continue;
		}
		/* its chain and signed heads, by the key registered */
		printf("log %s: worker %s\n", logs[i].path, logs[i].worker);
		bad += al_log(logs[i].a->h, key, stdout);
	}
	/* every slot once, by the match its worker's log holds */
	for (i = 0, k = 0; i < nslots; i++) {
		if (k < pq.ntuples(rr) && atoi(pq.getvalue(rr, k, 0)) == i) {
			k++;
			continue;
		}
		if (!sprt_end) {
			printf("slot %d FAILED: no result\n", i);
			bad++;
		}
	}
	for (k = 0; k < pq.ntuples(rr); k++) {
		slot = atoi(pq.getvalue(rr, k, 0));
		w = pq.getvalue(rr, k, 1);
		mid = strtoll(pq.getvalue(rr, k, 2), NULL, 10);
		head_no = strtoll(pq.getvalue(rr, k, 4), NULL, 10);
		who[k] = pq.getvalue(rr, k, 1);
		if (tstand_add_record(&tdb, &d, slot, mid, pq.getvalue(rr, k, 3),
		    err, sizeof(err)) == -1) {
			printf("slot %d FAILED: %s\n", slot, err);
			bad++;
			continue;
		}
		if (!pq.getisnull(rr, k, 7) && tstand_add_times(&tdb, tdb.n - 1,
		    pq.getvalue(rr, k, 7), err, sizeof(err)) == -1) {
			printf("slot %d FAILED: %s\n", slot, err);
			bad++;
			continue;
		}
		for (i = 0; i < nlogs; i++)
			if (strcmp(logs[i].worker, w) == 0)
				break;
		if (slot < 0 || slot >= nslots) {
			printf("slot %d FAILED: not in the schedule\n", slot);
			bad++;
			continue;
		}
		if (i == nlogs) {
			printf("slot %d FAILED: played by worker %s, whose log "
			    "was not given\n", slot, w);
			bad++;
			continue;
		}
		for (j = 0; j < k; j++)
			if (strcmp(pq.getvalue(rr, j, 1), w) == 0 &&
			    strtoll(pq.getvalue(rr, j, 2), NULL, 10) == mid) {
				printf("slot %d FAILED: match %lld of worker %s "
				    "is slot %s's too\n", slot, mid, w,
				    pq.getvalue(rr, j, 0));
				bad++;
			}
		if (au_match(logs[i].a, mid) != 0) {
			printf("slot %d FAILED: match %lld of worker %s: %s\n",
			    slot, mid, w, logs[i].a->err[0] ?
			    logs[i].a->err : "not ended, or not in its log");
			bad++;
			continue;
		}
		if (memcmp(&logs[i].a->seed, &slots[slot].seed,
		    sizeof(slots[slot].seed)) != 0) {
			printf("slot %d FAILED: match %lld of worker %s was "
			    "not dealt from the slot's seed\n", slot, mid, w);
			bad++;
			continue;
		}
		for (j = 0; j < bri_variant_seats(d.opt.variant); j++)
			if (strcmp(logs[i].a->seat[j].bot,
			    d.bots[slots[slot].bot[j]]) != 0)
				break;
		if (j < bri_variant_seats(d.opt.variant)) {
			printf("slot %d FAILED: match %lld of worker %s: seat "
			    "%d is %s, the schedule's %s\n", slot, mid, w, j,
			    logs[i].a->seat[j].bot,
			    d.bots[slots[slot].bot[j]]);
			bad++;
			continue;
		}
		if (!cl_head_ok(logs[i].a->h, head_no, mid,
		    pq.getvalue(rr, k, 5), pq.getvalue(rr, k, 6))) {
			printf("slot %d FAILED: match %lld of worker %s: the "
			    "head reported (link %lld) is not its signed end "
			    "in the log\n", slot, mid, w, head_no);
			bad++;
			continue;
		}
		if (tstand_load_match(logs[i].a->h, NULL, mid, &d, slot, &one,
		    err, sizeof(err)) == -1 || tstand_record(&one, 0, rec,
		    TSTAND_RECMAX + 1) == -1) {
			printf("slot %d FAILED: match %lld of worker %s: %s\n",
			    slot, mid, w, err);
			bad++;
			continue;
		}
		tstand_free(&one);
		if (strcmp(rec, pq.getvalue(rr, k, 3)) != 0) {
			printf("slot %d FAILED: match %lld of worker %s: the "
			    "result reported is not the log's\n", slot, mid, w);
			bad++;
			continue;
		}
		/* its thinking times, each figure the log's */
		if (tstand_times_record(logs[i].a->h, NULL, mid,
		    bri_variant_seats(d.opt.variant), NULL, 0, times,
		    TSTAND_TIMESMAX + 1, err, sizeof(err)) == -1) {
			printf("slot %d FAILED: match %lld of worker %s: %s\n",
			    slot, mid, w, err);
			bad++;
			continue;
		}
		if (pq.getisnull(rr, k, 7)) {
			printf("slot %d FAILED: match %lld of worker %s: no "
			    "thinking times reported\n", slot, mid, w);
			bad++;
			continue;
		}
		if (tstand_times_diff(pq.getvalue(rr, k, 7), times,
		    bri_variant_seats(d.opt.variant), err, sizeof(err)) != -1) {
			printf("slot %d FAILED: match %lld of worker %s: %s\n",
			    slot, mid, w, err);
			bad++;
			continue;
		}
		if (tstand_add_record(&tlog, &d, slot, mid, rec, err,
		    sizeof(err)) == -1 || tstand_add_times(&tlog, tlog.n - 1,
		    times, err, sizeof(err)) == -1) {
			printf("slot %d FAILED: %s\n", slot, err);
			bad++;
			continue;
		}
		ok++;
	}
	/* a worker's word ended it: the verdict must be the rows' */
	if (d.sprt && sprt_end && !cl_decision_ok(&d, slots, nslots, &tdb,
	    reason, err, sizeof(err))) {
		printf("tournament %s FAILED: worker %s ended it with \"%s\", "
		    "the results say \"%s\"\n", argv[3],
		    pq.getvalue(row, 0, 8)[0] != '\0' ? pq.getvalue(row, 0, 8) :
		    "-", reason, err);
		bad++;
	}
	/* the standings and time report recounted from the logs */
	tdb.have_extra = tdb.timed == tdb.n;
	tlog.have_extra = tlog.timed == tlog.n;
	sa = cl_standings_text(&d, &tdb);
	sb = cl_standings_text(&d, &tlog);
	if (sa == NULL || sb == NULL || strcmp(sa, sb) != 0) {
		printf("tournament %s FAILED: the standings recounted from the "
		    "logs differ from the database's\n", argv[3]);
		bad++;
	} else
		printf("tournament %s: the standings recounted from the logs "
		    "equal the database's\n", argv[3]);
	free(sa);
	free(sb);
	for (j = 0; j < pq.ntuples(rw) && nw < (int)(sizeof(names) /
	    sizeof(names[0])); j++)
		names[nw++] = pq.getvalue(rw, j, 0);
	cl_chi2(&d, &tdb, who, names, nw);
	printf("%d slot%s verified, %d failed\n", ok, ok == 1 ? "" : "s",
	    bad);
	rc = bad > 0 ? 1 : 0;
out:
	for (i = 0; logs != NULL && i < nlogs; i++)
		if (logs[i].a != NULL) {
			if (logs[i].a->h != NULL)
				sqlite3_close(logs[i].a->h);
			free(logs[i].a);
		}
	free(logs);
	free(who);
	free(rec);
	free(times);
	free(slots);
	tstand_free(&tdb);
	tstand_free(&tlog);
	pq.clear(rw);
	pq.clear(rr);
	pq.clear(row);
	tdef_free(&d);
	pq.finish(c);
	return rc;
}

/* export CONNINFO NAME: the whole tournament as one JSON object. */
static int
cl_export(int argc, char **argv)
{
	struct tdef	 d;
	struct tstand	 ts;
	PGconn		*c;
	PGresult	*row, *r = NULL, *rw = NULL;
	char		 tid[24];
	const char	*v[1] = { tid };
	int64_t		 id;
	int		 i, rc = 1;

	if (argc != 4)
		return REFCTL_USAGE;
	if ((c = cl_open(argv[2], argv[3], &id, &d, &row, &rc)) == NULL)
		return rc;
	snprintf(tid, sizeof(tid), "%" PRId64, id);
	if (cl_results(c, id, &d, &ts, row) == -1)
		goto out;
	if ((r = cl_exec(c, "SELECT slot, worker, match_id, lease, record, "
	    "head_no, head, sig, coalesce(times, '') FROM refd.results WHERE "
	    "tid = $1 ORDER BY slot", 1, v)) == NULL || (rw = cl_exec(c, "SELECT name, "
	    "coalesce(pubkey, '') FROM refd.workers ORDER BY name", 0,
	    NULL)) == NULL) {
		tstand_free(&ts);
		goto out;
	}
	printf("{\"format\": \"refd-cluster-export-1\",\n\"tournament\": ");
	tstand_json_str(stdout, d.name);
	printf(", \"id\": %s, \"state\": ", tid);
	tstand_json_str(stdout, pq.getvalue(row, 0, 5));
	printf(",\n\"definition\": ");
	tstand_json_str(stdout, pq.getvalue(row, 0, 1));
	printf(",\n\"reason\": ");
	tstand_json_str(stdout, pq.getvalue(row, 0, 6));
	printf(", \"commitment\": \"%s\", \"seed\": ", pq.getvalue(row, 0, 2));
	if (pq.getvalue(row, 0, 3)[0] != '\0')
		printf("\"%s\"", pq.getvalue(row, 0, 3));
	else
		printf("null");
	printf(",\n\"workers\": [");
	for (i = 0; i < pq.ntuples(rw); i++) {
		printf("%s\n  {\"name\": ", i ? "," : "");
		tstand_json_str(stdout, pq.getvalue(rw, i, 0));
		printf(", \"key\": ");
		tstand_json_str(stdout, pq.getvalue(rw, i, 1));
		printf("}");
	}
	printf("\n],\n\"standings\": ");
	rc = tstand_report(stdout, &d, &ts, TSTAND_JSON) == 0 ? 0 : 1;
	printf(",\n\"slots\": [");
	for (i = 0; i < pq.ntuples(r); i++) {
		printf("%s\n  {\"slot\": %s, \"worker\": ", i ? "," : "",
		    pq.getvalue(r, i, 0));
		tstand_json_str(stdout, pq.getvalue(r, i, 1));
		printf(", \"match\": %s, \"lease\": %s, \"record\": ",
		    pq.getvalue(r, i, 2), pq.getvalue(r, i, 3));
		tstand_json_str(stdout, pq.getvalue(r, i, 4));
		printf(", \"head_no\": %s, \"head\": \"%s\", \"sig\": \"%s\", "
		    "\"times\": ", pq.getvalue(r, i, 5), pq.getvalue(r, i, 6),
		    pq.getvalue(r, i, 7));
		tstand_json_str(stdout, pq.getvalue(r, i, 8));
		printf("}");
	}
	printf("\n]}\n");
	tstand_free(&ts);
out:
	pq.clear(r);
	pq.clear(rw);
	pq.clear(row);
	tdef_free(&d);
	pq.finish(c);
	return rc;
}

/* The subcommands of refctl cluster: dispatch and usage. */
const struct refctl_cmd refctl_cluster_cmds[] = {
	{ "init", cl_init, NULL, 0, 0, 1,
	    { { "CONNINFO", "create or migrate the schema" } } },
	{ "add-worker", cl_add_worker, NULL, 0, 0, 1,
	    { { "CONNINFO NAME", "a worker's role; its password, once" } } },
	{ "submit", cl_submit, NULL, 0, 0, 1,
	    { { "CONNINFO FILE [--lease-ms N]",
	    "a tournament, a row a slot" } } },
	{ "status", cl_status, NULL, 0, 0, 1,
	    { { "CONNINFO NAME", "progress, leases, workers, SPRT" } } },
	{ "standings", cl_standings, NULL, 0, 0, 1,
	    { { "CONNINFO NAME [--format F]", "from the database's rows" } } },
	{ "export", cl_export, NULL, 0, 0, 1,
	    { { "CONNINFO NAME", "all of it as one JSON object" } } },
	{ "audit", cl_audit, NULL, 0, 0, 1,
	    { { "CONNINFO NAME LOG...", "every slot against the workers' "
	    "logs" } } },
	{ NULL, NULL, NULL, 0, 0, 0, { { NULL, NULL } } }
};

/* refctl cluster SUBCOMMAND ...: dispatch on the second word. */
int
cmd_cluster(int argc, char **argv)
{
	const struct refctl_cmd	*c;

	if (argc < 2)
		return REFCTL_USAGE;
	for (c = refctl_cluster_cmds; c->name != NULL; c++)
		if (strcmp(c->name, argv[1]) == 0)
			return c->fn(argc, argv);
	return REFCTL_USAGE;
}
