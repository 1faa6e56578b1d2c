/*
 * chain.h: the hash chain of refd's log, written by refd (db.c) and
 * recomputed by refctl's audit, in one place.
 *
 * Each chained row of the log has a canonical text; a match's link 0 is
 * BLAKE2b-256 of CHAIN_TAG followed by its header text, and link n is
 * BLAKE2b-256 of link n-1's 32 bytes followed by row n's text (see
 * refd-log(5)).  The builders take each value the way the log stores it:
 * numbers as long long, texts as bytes and a length, so that the audit
 * rebuilds a text from the stored bytes (a NUL included) and refd from its
 * own strings, through the same code.  A text that does not fit in
 * CHAIN_TEXTMAX bytes is marked overflow, never cut.  No SQLite, no
 * libevent: only libsodium's BLAKE2b.
 */
#ifndef REFD_CHAIN_H
#define REFD_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#define CHAIN_HASHLEN	32		/* one link, in bytes */
#define CHAIN_HEXLEN	(2 * CHAIN_HASHLEN) /* one link, in hex */
#define CHAIN_TAG	"refd-chain-v1"	/* hashed before link 0's text */
#define CHAIN_TAG2	"refd-chain-v2"	/* the same, chain_version 2 */
#define CHAIN_TEXTMAX	4096		/* longest canonical text */

/* A canonical text being built. */
struct chain_text {
	char		 buf[CHAIN_TEXTMAX]; /* the text, NUL-terminated */
	size_t		 len;		/* its length in bytes */
	int		 overflow;	/* something did not fit */
};

void	chain_text_init(struct chain_text *);
void	chain_link0(const struct chain_text *, uint8_t *);
void	chain_link0v(int, const struct chain_text *, uint8_t *);
void	chain_link(const uint8_t *, const struct chain_text *, uint8_t *);
int	chain_check(const uint8_t *, const struct chain_text *,
	    const char *, uint8_t *);
int	chain_same(const uint8_t *, const char *);
void	chain_argv(int, char *const *, char *, size_t);

void	chain_match(struct chain_text *, long long, const char *,
	    const char *, const char *, const char *);
void	chain_deal(struct chain_text *, long long, long long, const char *,
	    size_t, const char *, size_t, const char *, size_t);
void	chain_play(struct chain_text *, long long, long long, long long,
	    long long, const char *, size_t, long long, long long);
void	chain_trick(struct chain_text *, long long, long long, long long,
	    long long);
void	chain_joker(struct chain_text *, long long, long long);
void	chain_fault(struct chain_text *, long long, long long, const char *,
	    size_t, long long, const char *, size_t, const char *, size_t);
void	chain_dealend(struct chain_text *, long long, const char *, size_t,
	    long long, const char *, size_t, const char *, size_t);
void	chain_matchend(struct chain_text *, const char *, size_t,
	    const char *, size_t, const char *, size_t);

/* chain_version 2 (schema 3): the texts that replace or add to those. */
struct chain_header {
	long long	 id;
	const char	*variant, *options, *commit, *rng;
	const char	*prev;		/* the log's head before, hex */
	const char	*started;	/* UTC ISO 8601 with ms */
	long long	 move_ms, bank_ms, startup_ms, max_faults;
	const char	*policy;
	long long	 tournament, slot; /* -1 for none */
	const char	*seats;		/* "LEN:name" of each seat's bot,
					   joined by commas */
};
void	chain_match2(struct chain_text *, const struct chain_header *);
void	chain_seat(struct chain_text *, long long, const char *, size_t,
	    const char *, size_t, const char *, size_t, const char *, size_t,
	    const char *, size_t);
void	chain_play2(struct chain_text *, long long, long long, long long,
	    long long, const char *, size_t, long long, long long,
	    const char *, size_t, long long, const char *, size_t);
void	chain_fault2(struct chain_text *, long long, long long, const char *,
	    size_t, long long, const char *, size_t, const char *, size_t,
	    const char *, size_t, long long);
void	chain_matchend2(struct chain_text *, const char *, size_t,
	    const char *, size_t, const char *, size_t, const char *, size_t);
void	chain_bid(struct chain_text *, long long, long long, long long,
	    const char *, size_t, long long, long long, const char *, size_t,
	    long long, const char *, size_t);
void	chain_answer(struct chain_text *, long long, long long, long long,
	    const char *, size_t, long long, const char *, size_t,
	    const char *, size_t);
void	chain_called(struct chain_text *, long long, long long, long long,
	    const char *, size_t, long long, long long, long long,
	    const char *, size_t, long long, const char *, size_t);
void	chain_log(struct chain_text *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
void	chain_log_text(struct chain_text *, const char *, size_t);
void	chain_log_link(const uint8_t *, const struct chain_text *,
	    uint8_t *);

/*
 * A seat's transcript hash (refd-protocol(7), RECEIPTS): BLAKE2b-256
 * over lines, each followed by one newline, and how many lines.  refd
 * keeps one over the lines it sent a seat (without their command ids)
 * and one over the answers it read (kind and text); a bot or refctl
 * verify-receipt recomputes them from a kept transcript or the log.
 */
struct chain_tx {
	/* the BLAKE2b state as bytes: crypto_generichash_state itself is
	   aligned to 64, which pads each of a seat's three to 448 bytes and
	   asks an alignment malloc() does not give; chain.c hashes in an
	   aligned copy */
	unsigned char	 st[sizeof(crypto_generichash_state)];
	long long	 n;		/* lines hashed */
};
#define CHAIN_TXMAX	(2 * (21 + CHAIN_HEXLEN + 1)) /* "N:HEX:K:HEX" */

void	chain_tx_init(struct chain_tx *);
void	chain_tx_line(struct chain_tx *, const char *, size_t);
void	chain_tx_bytes(struct chain_tx *, const char *, size_t, long long);
void	chain_tx_sent(struct chain_tx *, const char *, size_t);
void	chain_tx_hex(const struct chain_tx *, char *);
void	chain_tx_text(const struct chain_tx *, const struct chain_tx *,
	    char *, size_t);
int	chain_tx_find(const char *, int, char *, size_t);
#define CHAIN_TXWORD	" transcripts="	/* in a match's "end" */

#endif /* REFD_CHAIN_H */
