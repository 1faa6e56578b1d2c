/*
 * chain.c: the canonical texts of refd's log and the links over them,
 * the one definition refd writes and refctl audits by (refd-log(5)).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "chain.h"
#include "util.h"

static void	 text_add(struct chain_text *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));
static void	 text_mem(struct chain_text *, const char *, size_t);
static void	 text_str(struct chain_text *, const char *);
static void	 text_int(struct chain_text *, const char *, long long);
static void	 text_start(struct chain_text *);
static void	 text_free(struct chain_text *, const char *, const char *,
		    size_t);

/* Empty t, for a new text. */
static void
text_start(struct chain_text *t)
{
	t->buf[0] = '\0';
	t->len = 0;
	t->overflow = 0;
}

/* Append to a text, remembering if it no longer fits. */
static void
text_add(struct chain_text *t, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (t->overflow)
		return;
	va_start(ap, fmt);
	n = util_vformat(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t->buf) - t->len)
		t->overflow = 1;
	else
		t->len += (size_t)n;
}

/* Append bytes as stored (a NUL included) to a text. */
static void
text_mem(struct chain_text *t, const char *s, size_t n)
{
	if (t->overflow)
		return;
	if (n >= sizeof(t->buf) - t->len) {
		t->overflow = 1;
		return;
	}
	if (n > 0)
		memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

/* Append a string. */
static void
text_str(struct chain_text *t, const char *s)
{
	text_mem(t, s, strlen(s));
}

/*
 * Append the literal lit, then v in decimal: the texts written at every
 * play are built of these, without a format to read (text_add() took
 * two thousand instructions a play).
 */
static void
text_int(struct chain_text *t, const char *lit, long long v)
{
	char	 num[24];

	text_str(t, lit);
	text_mem(t, num, util_dec(num, v));
}

/* An empty text, for a caller that fills buf itself. */
void
chain_text_init(struct chain_text *t)
{
	text_start(t);
}

/*
 * Append " key=LEN:bytes": free text whose length comes first, so that no
 * byte of it can pass for the next field (chain_version 2).
 */
static void
text_free(struct chain_text *t, const char *key, const char *s, size_t n)
{
	text_str(t, " ");
	text_str(t, key);
	if (n > LLONG_MAX) {		/* no text is that long */
		t->overflow = 1;
		return;
	}
	text_int(t, "=", (long long)n);
	text_str(t, ":");
	text_mem(t, s, n);
}

/* Link 0: BLAKE2b-256 of CHAIN_TAG then the header text, into link. */
void
chain_link0(const struct chain_text *t, uint8_t *link)
{
	crypto_generichash_state	 st;

	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	crypto_generichash_update(&st, (const unsigned char *)CHAIN_TAG,
	    strlen(CHAIN_TAG));
	crypto_generichash_update(&st, (const unsigned char *)t->buf, t->len);
	crypto_generichash_final(&st, link, CHAIN_HASHLEN);
}

/* Link 0 of a match of chain_version version (1 or 2). */
void
chain_link0v(int version, const struct chain_text *t, uint8_t *link)
{
	crypto_generichash_state	 st;
	const char			*tag;

	tag = version == 2 ? CHAIN_TAG2 : CHAIN_TAG;
	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	crypto_generichash_update(&st, (const unsigned char *)tag,
	    strlen(tag));
	crypto_generichash_update(&st, (const unsigned char *)t->buf, t->len);
	crypto_generichash_final(&st, link, CHAIN_HASHLEN);
}

/*
 * Link n: BLAKE2b-256 of link n-1's CHAIN_HASHLEN bytes (prev) then the
 * row's text, with no separator or terminator, into link.
 */
void
chain_link(const uint8_t *prev, const struct chain_text *t, uint8_t *link)
{
	crypto_generichash_state	 st;

	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	crypto_generichash_update(&st, prev, CHAIN_HASHLEN);
	crypto_generichash_update(&st, (const unsigned char *)t->buf, t->len);
	crypto_generichash_final(&st, link, CHAIN_HASHLEN);
}

/*
 * Does the stored link (CHAIN_HEXLEN lowercase hex digits) follow from
 * prev (NULL for link 0) and the text?  Stores the recomputed link in
 * link either way; returns 1 if it does, 0 if not.
 */
int
chain_check(const uint8_t *prev, const struct chain_text *t,
    const char *stored, uint8_t *link)
{
	static const char	 hex[] = "0123456789abcdef";
	int			 i;

	if (prev == NULL)
		chain_link0(t, link);
	else
		chain_link(prev, t, link);
	if (t->overflow)
		return 0;
	for (i = 0; i < CHAIN_HASHLEN; i++)
		if (stored[2 * i] != hex[link[i] >> 4] ||
		    stored[2 * i + 1] != hex[link[i] & 15])
			return 0;
	return 1;
}

/* Is the stored hex (CHAIN_HEXLEN digits, or less) exactly link? */
int
chain_same(const uint8_t *link, const char *stored)
{
	static const char	 hex[] = "0123456789abcdef";
	int			 i;

	for (i = 0; i < CHAIN_HASHLEN; i++)
		if (stored[2 * i] != hex[link[i] >> 4] ||
		    stored[2 * i + 1] != hex[link[i] & 15])
			return 0;
	return 1;
}

/*
 * A spawned bot's identity: "argv:" then BLAKE2b-256 in hex of its argv,
 * each word followed by a NUL, into out (len bytes, at least 70).
 */
void
chain_argv(int argc, char *const *argv, char *out, size_t len)
{
	static const char		 hex[] = "0123456789abcdef";
	crypto_generichash_state	 st;
	uint8_t				 h[CHAIN_HASHLEN];
	int				 i;

	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	for (i = 0; i < argc; i++)
		crypto_generichash_update(&st, (const unsigned char *)argv[i],
		    strlen(argv[i]) + 1);
	crypto_generichash_final(&st, h, CHAIN_HASHLEN);
	if (len < 5 + CHAIN_HEXLEN + 1) {
		if (len > 0)
			out[0] = '\0';
		return;
	}
	memcpy(out, "argv:", 5);
	for (i = 0; i < CHAIN_HASHLEN; i++) {
		out[5 + 2 * i] = hex[h[i] >> 4];
		out[5 + 2 * i + 1] = hex[h[i] & 15];
	}
	out[5 + CHAIN_HEXLEN] = '\0';
}

/*
 * A match's header, hashed into link 0:
 * "match ID VARIANT OPTIONS COMMITMENT RNG" (options may be empty or
 * hold spaces; the two words after them end it).
 */
void
chain_match(struct chain_text *t, long long id, const char *variant,
    const char *options, const char *commit, const char *rng)
{
	text_start(t);
	text_add(t, "match %lld %s %s %s %s", id, variant, options, commit,
	    rng);
}

/* "deal D dealer=S trump=C removed=C|- deck=C C ..."; removed NULL: "-". */
void
chain_deal(struct chain_text *t, long long deal, long long dealer,
    const char *trump, size_t trumplen, const char *removed,
    size_t removedlen, const char *deck, size_t decklen)
{
	text_start(t);
	text_add(t, "deal %lld dealer=%lld trump=", deal, dealer);
	text_mem(t, trump, trumplen);
	text_add(t, " removed=");
	if (removed != NULL)
		text_mem(t, removed, removedlen);
	else
		text_add(t, "-");
	text_add(t, " deck=");
	text_mem(t, deck, decklen);
}

/* "play D SEQ trick=T seat=S card=C ms=MS fault=0|1". */
void
chain_play(struct chain_text *t, long long deal, long long seq,
    long long trick, long long seat, const char *card, size_t cardlen,
    long long ms, long long fault)
{
	text_start(t);
	text_int(t, "play ", deal);
	text_int(t, " ", seq);
	text_int(t, " trick=", trick);
	text_int(t, " seat=", seat);
	text_str(t, " card=");
	text_mem(t, card, cardlen);
	text_int(t, " ms=", ms);
	text_int(t, " fault=", fault);
}

/* "trick D T winner=S points=P". */
void
chain_trick(struct chain_text *t, long long deal, long long trick,
    long long winner, long long points)
{
	text_start(t);
	text_int(t, "trick ", deal);
	text_int(t, " ", trick);
	text_int(t, " winner=", winner);
	text_int(t, " points=", points);
}

/* "joker D seat=S". */
void
chain_joker(struct chain_text *t, long long deal, long long seat)
{
	text_start(t);
	text_add(t, "joker %lld seat=%lld", deal, seat);
}

/* "fault D seat=S kind=K ms=MS action=A evidence=TEXT". */
void
chain_fault(struct chain_text *t, long long deal, long long seat,
    const char *kind, size_t kindlen, long long ms, const char *action,
    size_t actionlen, const char *evidence, size_t evidencelen)
{
	text_start(t);
	text_add(t, "fault %lld seat=%lld kind=", deal, seat);
	text_mem(t, kind, kindlen);
	text_add(t, " ms=%lld action=", ms);
	text_mem(t, action, actionlen);
	text_add(t, " evidence=");
	text_mem(t, evidence, evidencelen);
}

/* "dealend D result=R winner=W points=P,P,.. mpoints=M,M,..". */
void
chain_dealend(struct chain_text *t, long long deal, const char *result,
    size_t resultlen, long long winner, const char *points, size_t pointslen,
    const char *mpoints, size_t mpointslen)
{
	text_start(t);
	text_add(t, "dealend %lld result=", deal);
	text_mem(t, result, resultlen);
	text_add(t, " winner=%lld points=", winner);
	text_mem(t, points, pointslen);
	text_add(t, " mpoints=");
	text_mem(t, mpoints, mpointslen);
}

/* "matchend result=R mpoints=M,M,.. reason=TEXT". */
void
chain_matchend(struct chain_text *t, const char *result, size_t resultlen,
    const char *mpoints, size_t mpointslen, const char *reason,
    size_t reasonlen)
{
	text_start(t);
	text_add(t, "matchend result=");
	text_mem(t, result, resultlen);
	text_add(t, " mpoints=");
	text_mem(t, mpoints, mpointslen);
	text_add(t, " reason=");
	text_mem(t, reason, reasonlen);
}

/*
 * chain_version 2's header, hashed after CHAIN_TAG2 into link 0: "match
 * ID VARIANT COMMITMENT RNG prev=HEX started=T move_ms=N bank_ms=N
 * startup_ms=N policy=P max_faults=N tournament=T slot=S seats=L:B,L:B,..
 * options=OPTIONS" (the options last: they may hold spaces).
 */
void
chain_match2(struct chain_text *t, const struct chain_header *h)
{
	text_start(t);
	text_add(t, "match %lld %s %s %s prev=%s started=%s move_ms=%lld "
	    "bank_ms=%lld startup_ms=%lld policy=%s max_faults=%lld "
	    "tournament=%lld slot=%lld seats=%s options=%s", h->id,
	    h->variant, h->commit, h->rng, h->prev, h->started, h->move_ms,
	    h->bank_ms, h->startup_ms, h->policy, h->max_faults,
	    h->tournament, h->slot, h->seats, h->options);
}

/*
 * A seat once its bot answered name and version: "seat S bot=B kind=K
 * identity=LEN:.. name=LEN:.. version=LEN:..".
 */
void
chain_seat(struct chain_text *t, long long seat, const char *bot,
    size_t botlen, const char *kind, size_t kindlen, const char *identity,
    size_t identitylen, const char *name, size_t namelen,
    const char *version, size_t versionlen)
{
	text_start(t);
	text_add(t, "seat %lld bot=", seat);
	text_mem(t, bot, botlen);
	text_add(t, " kind=");
	text_mem(t, kind, kindlen);
	text_free(t, "identity", identity, identitylen);
	text_free(t, "name", name, namelen);
	text_free(t, "version", version, versionlen);
}

/*
 * chain_version 2's play: "play D SEQ trick=T seat=S card=C ms=MS
 * fault=0|1 at=TIME limit=MS answer=LEN:..".
 */
void
chain_play2(struct chain_text *t, long long deal, long long seq,
    long long trick, long long seat, const char *card, size_t cardlen,
    long long ms, long long fault, const char *at, size_t atlen,
    long long limit, const char *answer, size_t answerlen)
{
	chain_play(t, deal, seq, trick, seat, card, cardlen, ms, fault);
	text_str(t, " at=");
	text_mem(t, at, atlen);
	text_int(t, " limit=", limit);
	text_free(t, "answer", answer, answerlen);
}

/*
 * A call of chiamata5's auction (schema 4): "bid D SEQ seat=S
 * call=pass|R ms=MS fault=0|1 at=TIME limit=MS answer=LEN:..".
 */
void
chain_bid(struct chain_text *t, long long deal, long long seq,
    long long seat, const char *call, size_t calllen, long long ms,
    long long fault, const char *at, size_t atlen, long long limit,
    const char *answer, size_t answerlen)
{
	text_start(t);
	text_add(t, "bid %lld %lld seat=%lld call=", deal, seq, seat);
	text_mem(t, call, calllen);
	text_add(t, " ms=%lld fault=%lld at=", ms, fault);
	text_mem(t, at, atlen);
	text_add(t, " limit=%lld", limit);
	text_free(t, "answer", answer, answerlen);
}

/*
 * The caller's suit, as the called card and its holder (schema 4):
 * "called D SEQ seat=S card=C partner=P ms=MS fault=0|1 at=TIME
 * limit=MS answer=LEN:..".
 */
void
chain_called(struct chain_text *t, long long deal, long long seq,
    long long seat, const char *card, size_t cardlen, long long partner,
    long long ms, long long fault, const char *at, size_t atlen,
    long long limit, const char *answer, size_t answerlen)
{
	text_start(t);
	text_add(t, "called %lld %lld seat=%lld card=", deal, seq, seat);
	text_mem(t, card, cardlen);
	text_add(t, " partner=%lld ms=%lld fault=%lld at=", partner, ms,
	    fault);
	text_mem(t, at, atlen);
	text_add(t, " limit=%lld", limit);
	text_free(t, "answer", answer, answerlen);
}

/*
 * chain_version 2's fault: "fault D seat=S kind=K ms=MS at=TIME
 * limit=MS action=LEN:.. evidence=LEN:..".
 */
void
chain_fault2(struct chain_text *t, long long deal, long long seat,
    const char *kind, size_t kindlen, long long ms, const char *action,
    size_t actionlen, const char *evidence, size_t evidencelen,
    const char *at, size_t atlen, long long limit)
{
	text_start(t);
	text_add(t, "fault %lld seat=%lld kind=", deal, seat);
	text_mem(t, kind, kindlen);
	text_add(t, " ms=%lld at=", ms);
	text_mem(t, at, atlen);
	text_add(t, " limit=%lld", limit);
	text_free(t, "action", action, actionlen);
	text_free(t, "evidence", evidence, evidencelen);
}

/*
 * An answer no move holds (schema 7): "answer D seat=S line=L kind=K
 * ms=MS at=TIME answer=LEN:..", late to a move or to a notification.
 */
void
chain_answer(struct chain_text *t, long long deal, long long seat,
    long long line, const char *kind, size_t kindlen, long long ms,
    const char *at, size_t atlen, const char *answer, size_t answerlen)
{
	text_start(t);
	text_add(t, "answer %lld seat=%lld line=%lld kind=", deal, seat, line);
	text_mem(t, kind, kindlen);
	text_add(t, " ms=%lld at=", ms);
	text_mem(t, at, atlen);
	text_free(t, "answer", answer, answerlen);
}

/*
 * chain_version 2's end: "matchend result=R mpoints=M,.. ended=TIME
 * reason=LEN:..".
 */
void
chain_matchend2(struct chain_text *t, const char *result, size_t resultlen,
    const char *mpoints, size_t mpointslen, const char *ended,
    size_t endedlen, const char *reason, size_t reasonlen)
{
	text_start(t);
	text_add(t, "matchend result=");
	text_mem(t, result, resultlen);
	text_add(t, " mpoints=");
	text_mem(t, mpoints, mpointslen);
	text_add(t, " ended=");
	text_mem(t, ended, endedlen);
	text_free(t, "reason", reason, reasonlen);
}

/* A text of the log chain (log_chain.text), from refd's own words. */
void
chain_log(struct chain_text *t, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	text_start(t);
	va_start(ap, fmt);
	n = vsnprintf(t->buf, sizeof(t->buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t->buf))
		t->overflow = 1;
	else
		t->len = (size_t)n;
}

/* A text of the log chain as stored, for the audit to compare. */
void
chain_log_text(struct chain_text *t, const char *s, size_t n)
{
	text_start(t);
	text_mem(t, s, n);
}

/*
 * A link of the log chain: BLAKE2b-256 of "refd-log-v1", the link before
 * (NULL for the first: 32 zero bytes) and the event's text.
 */
void
chain_log_link(const uint8_t *prev, const struct chain_text *t,
    uint8_t *link)
{
	static const uint8_t		 zero[CHAIN_HASHLEN];
	crypto_generichash_state	 st;

	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	crypto_generichash_update(&st, (const unsigned char *)"refd-log-v1",
	    11);
	crypto_generichash_update(&st, prev != NULL ? prev : zero,
	    CHAIN_HASHLEN);
	crypto_generichash_update(&st, (const unsigned char *)t->buf, t->len);
	crypto_generichash_final(&st, link, CHAIN_HASHLEN);
}

/* An empty transcript hash. */
void
chain_tx_init(struct chain_tx *t)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, CHAIN_HASHLEN);
	memcpy(t->st, &st, sizeof(t->st));
	t->n = 0;
}

/* One more line of a transcript: its bytes, then a newline. */
void
chain_tx_line(struct chain_tx *t, const char *s, size_t n)
{
	crypto_generichash_state st;

	memcpy(&st, t->st, sizeof(st));
	crypto_generichash_update(&st, (const unsigned char *)s, n);
	crypto_generichash_update(&st, (const unsigned char *)"\n", 1);
	memcpy(t->st, &st, sizeof(t->st));
	t->n++;
}

/*
 * k more lines of a transcript, each with its newline, as they are in
 * memory (s, n bytes): hashed in one update, as the same lines one by
 * one would be.  k is given, not counted: an answer of several lines is
 * one line of the transcript, its lines joined by newlines.
 */
void
chain_tx_bytes(struct chain_tx *t, const char *s, size_t n, long long k)
{
	crypto_generichash_state st;

	memcpy(&st, t->st, sizeof(st));
	crypto_generichash_update(&st, (const unsigned char *)s, n);
	memcpy(t->st, &st, sizeof(t->st));
	t->n += k;
}

/*
 * Lines as a seat writes them to its bot, "ID TEXT\n" each: the TEXT and
 * newline of each are hashed, as chain_tx_line() would, the ids left
 * out; the state is copied in and out once for them all.
 */
void
chain_tx_sent(struct chain_tx *t, const char *s, size_t n)
{
	crypto_generichash_state st;
	const char		*p = s, *e = s + n, *nl, *sp;

	memcpy(&st, t->st, sizeof(st));
	for (; p < e && (nl = memchr(p, '\n', (size_t)(e - p))) != NULL;
	    p = nl + 1) {
		if ((sp = memchr(p, ' ', (size_t)(nl - p))) != NULL)
			p = sp + 1;
		crypto_generichash_update(&st, (const unsigned char *)p,
		    (size_t)(nl + 1 - p));
		t->n++;
	}
	memcpy(t->st, &st, sizeof(t->st));
}

/* The hash of the lines so far, hex, into hex (CHAIN_HEXLEN + 1). */
void
chain_tx_hex(const struct chain_tx *t, char *hex)
{
	crypto_generichash_state st;		/* t goes on */
	uint8_t			 h[CHAIN_HASHLEN];

	memcpy(&st, t->st, sizeof(st));
	crypto_generichash_final(&st, h, sizeof(h));
	sodium_bin2hex(hex, CHAIN_HEXLEN + 1, h, sizeof(h));
}

/*
 * A seat's two transcript hashes as the receipt and the log carry them:
 * "N:SENT:K:ANSWERED", into buf (CHAIN_TXMAX bytes).
 */
void
chain_tx_text(const struct chain_tx *sent, const struct chain_tx *ans,
    char *buf, size_t len)
{
	char	 sh[CHAIN_HEXLEN + 1], ah[CHAIN_HEXLEN + 1];

	chain_tx_hex(sent, sh);
	chain_tx_hex(ans, ah);
	snprintf(buf, len, "%lld:%s:%lld:%s", sent->n, sh, ans->n, ah);
}

/* Is s, n bytes, one seat's "N:SENT:K:ANSWERED", or "-"? */
static int
tx_entry_ok(const char *s, size_t n)
{
	const char	*p = s, *e = s + n, *q;
	size_t		 k;
	int		 part;

	if (n == 1 && *s == '-')
		return 1;
	for (part = 0; part < 4; part++, p = q + 1) {
		for (q = p; q < e && *q != ':'; q++)
			continue;
		k = (size_t)(q - p);
		if (part % 2 == 0 && (k == 0 || k > 18 ||
		    strspn(p, "0123456789") < k))
			return 0;
		if (part % 2 == 1 && (k != CHAIN_HEXLEN ||
		    strspn(p, "0123456789abcdef") < k))
			return 0;
		if ((part < 3) != (q < e))
			return 0;
	}
	return 1;
}

/*
 * The transcript hashes of seat in a match's "end" event text, copied
 * into buf (seat -1: only checked): 1 when found, 0 when the event has
 * none (written before refd kept them), -1 when the word is malformed or
 * names fewer seats.
 */
int
chain_tx_find(const char *text, int seat, char *buf, size_t len)
{
	const char	*p, *q;
	int		 i, found = seat < 0;

	if ((p = strstr(text, CHAIN_TXWORD)) == NULL)
		return 0;
	p += strlen(CHAIN_TXWORD);
	if (strchr(p, ' ') != NULL)
		return -1;
	for (i = 0; ; i++, p = q + 1) {
		q = p + strcspn(p, ",");
		if (!tx_entry_ok(p, (size_t)(q - p)))
			return -1;
		if (i == seat) {
			if ((size_t)(q - p) >= len)
				return -1;
			memcpy(buf, p, (size_t)(q - p));
			buf[q - p] = '\0';
			found = 1;
		}
		if (*q == '\0')
			break;
	}
	return found ? 1 : -1;
}
