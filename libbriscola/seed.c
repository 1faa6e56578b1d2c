/*
 * seed.c: match seeds and the deterministic deals they expand to.
 *
 * A 32-byte seed is the key of a ChaCha20 stream (RFC 8439, IETF variant,
 * as libsodium computes it).  Each use has its own nonce: four ASCII tag
 * bytes then a 64-bit little-endian index, "DEAL" with the deal's index
 * for the deck, "DLR0" with 0 for the first
 * dealer.  The stream is read a byte at a time; a draw in [0, n), n <= 64,
 * masks a byte to the smallest all-ones width that holds n - 1 and rejects
 * values >= n, so no draw is ever biased.  libbriscola(3) gives the whole
 * procedure so that anyone can re-derive a deal.
 */
#include <sys/random.h>

#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "briscola.h"

#define RNG_BUFLEN	64	/* one ChaCha20 block */
#define RNG_ONES	0x0101010101010101ULL	/* 1 in every byte */

/*
 * A key stream being read.  The read position is not kept here but by
 * the caller, in a local variable: this struct's address goes to
 * libsodium, so a position kept in it would be stored and reloaded
 * around every draw, on the critical path of the shuffle.
 */
struct rng {
	const uint8_t	*key;		/* the seed */
	uint8_t		 nonce[crypto_stream_chacha20_ietf_NONCEBYTES];
	uint32_t	 block;		/* next block counter */
	uint8_t		 buf[RNG_BUFLEN]; /* the current block */
};

/*
 * Make the next block of the key stream; the caller reads it from 0.
 * One block at a time, when it is needed: a deal mostly fits in one.
 */
static void
rng_fill(struct rng *r)
{
	memset(r->buf, 0, sizeof(r->buf));
	crypto_stream_chacha20_ietf_xor_ic(r->buf, r->buf, sizeof(r->buf),
	    r->nonce, r->block, r->key);
	r->block++;
}

/*
 * Start the stream of seed s for the use named by tag and index, and make
 * its first block.
 */
static void
rng_init(struct rng *r, const struct bri_seed *s, const char tag[4],
    uint64_t index)
{
	int	 i;

	r->key = s->b;
	memcpy(r->nonce, tag, 4);
	for (i = 0; i < 8; i++)
		r->nonce[4 + i] = (uint8_t)(index >> (8 * i));
	r->block = 0;
	rng_fill(r);
}

/*
 * Unbiased draw in [0, n), 1 <= n <= 64, reading r from *pos on: the
 * next byte of the stream, masked to the smallest all-ones width that
 * holds n - 1 (at least 1), is the draw unless it is >= n, in which case
 * the byte is rejected and the next one tried; n == 1 reads nothing.
 * Rejections are frequent and unpredictable, so while eight bytes are
 * left in the block they are tested at once: each masked byte is below
 * 64, so adding 128 - n sets its top bit exactly when it is rejected, and
 * the first byte, in stream order, whose top bit stays clear is the draw.
 * The bytes consumed and the value drawn are those of the byte-at-a-time
 * loop below.
 */
static inline unsigned
rng_uniform(struct rng *r, unsigned *pos, unsigned n)
{
	uint64_t	 w, ok;
	unsigned	 mask, v, at, p = *pos;

	if (n <= 1)
		return 0;
	mask = ~0u >> __builtin_clz(n - 1);
	for (;;) {
		if (p + 8 <= RNG_BUFLEN) {
			memcpy(&w, r->buf + p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			w = __builtin_bswap64(w);	/* first byte lowest */
#endif
			w &= mask * RNG_ONES;
			ok = ~(w + (128 - n) * RNG_ONES) &
			    0x8080808080808080ULL;
			if (ok != 0) {
				at = (unsigned)__builtin_ctzll(ok) / 8;
				*pos = p + at + 1;
				return (unsigned)(w >> (8 * at)) & 0xff;
			}
			p += 8;
			continue;
		}
		if (p == RNG_BUFLEN) {
			rng_fill(r);
			p = 0;
			continue;
		}
		v = r->buf[p++] & mask;
		if (v < n) {
			*pos = p;
			return v;
		}
	}
}

/*
 * Fill *s with 32 bytes from getrandom(2).  Returns BRI_OK, or
 * BRI_ENOENTROPY if the kernel will not give them.
 */
int
bri_seed_new(struct bri_seed *s)
{
	size_t	 got = 0;
	ssize_t	 n;

	while (got < sizeof(s->b)) {
		n = getrandom(s->b + got, sizeof(s->b) - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return BRI_ENOENTROPY;
		}
		got += (size_t)n;
	}
	return BRI_OK;
}

/* Parse exactly 64 hex digits, either case; BRI_OK or BRI_ESEED. */
int
bri_seed_parse(const char *t, struct bri_seed *s)
{
	struct bri_seed	 tmp;
	int		 i, hi, lo;

	if (t == NULL || strlen(t) != 2 * BRI_SEEDLEN)
		return BRI_ESEED;
	for (i = 0; i < BRI_SEEDLEN; i++) {
		hi = t[2 * i];
		lo = t[2 * i + 1];
#define HEXVAL(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : \
	(c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : \
	(c) >= 'A' && (c) <= 'F' ? (c) - 'A' + 10 : -1)
		hi = HEXVAL(hi);
		lo = HEXVAL(lo);
#undef HEXVAL
		if (hi < 0 || lo < 0)
			return BRI_ESEED;
		tmp.b[i] = (uint8_t)(hi << 4 | lo);
	}
	*s = tmp;
	return BRI_OK;
}

/* Lowercase hex text of a seed into buf; returns buf. */
const char *
bri_seed_format(const struct bri_seed *s, char buf[BRI_SEED_STRLEN])
{
	return sodium_bin2hex(buf, BRI_SEED_STRLEN, s->b, sizeof(s->b));
}

/*
 * The commitment to a seed, published before the match: BLAKE2b-256 of
 * the ASCII tag "refd-seed-v1" followed by the 32 seed bytes.
 */
void
bri_seed_commit(const struct bri_seed *s, uint8_t out[BRI_COMMITLEN])
{
	static const char	 tag[] = "refd-seed-v1";
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, BRI_COMMITLEN);
	crypto_generichash_update(&st, (const uint8_t *)tag, sizeof(tag) - 1);
	crypto_generichash_update(&st, s->b, sizeof(s->b));
	crypto_generichash_final(&st, out, BRI_COMMITLEN);
}

/*
 * The deck of deal number index (0-based) of a match with seed s and
 * options o: for joker3 (and classic3 with a random 2) a draw in [0, 4)
 * picks the suit of the removed 2; classic6 leaves out the four 2s; the
 * remaining cards, in ascending code order, are shuffled by Fisher-Yates
 * from the last position down.
 * Writes the order to deck and the removed card (or BRI_NOCARD) to
 * *removed; returns the number of cards, or BRI_EINVAL.
 */
int
bri_shuffle(const struct bri_seed *s, const struct bri_options *o,
    int index, bri_card deck[BRI_NCARDS], bri_card *removed)
{
	const struct bri_variant_info *vi;
	struct rng	 r;
	bri_card	 gone = BRI_NOCARD, t;
	unsigned	 pos = 0;
	int		 n = 0, i, j, c, twos;

	if (bri_options_check(o) != BRI_OK || index < 0)
		return BRI_EINVAL;
	vi = bri_variant_info(o->variant);
	rng_init(&r, s, "DEAL", (uint64_t)index);
	if (vi->removal == BRI_REMOVE_ONE_TWO && o->removed_two < 0)
		gone = BRI_CARD(2, rng_uniform(&r, &pos, 4));
	else if (vi->removal == BRI_REMOVE_ONE_TWO)
		gone = BRI_CARD(2, o->removed_two);
	twos = vi->removal != BRI_REMOVE_ALL_TWOS;
	for (c = 0; c < BRI_NCARDS; c++)
		if (c != gone && (twos || BRI_CARD_RANK(c) != 2))
			deck[n++] = (bri_card)c;
	for (i = n - 1; i > 0; i--) {
		j = (int)rng_uniform(&r, &pos, (unsigned)i + 1);
		t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
	*removed = gone;
	return n;
}

/* The first dealer of a match of nseats seats with seed s, or BRI_EINVAL. */
int
bri_first_dealer(const struct bri_seed *s, int nseats)
{
	struct rng	 r;
	unsigned	 pos = 0;

	if (nseats < 2 || nseats > BRI_MAXSEATS)
		return BRI_EINVAL;
	rng_init(&r, s, "DLR0", 0);
	return (int)rng_uniform(&r, &pos, (unsigned)nseats);
}
