/*
 * fuzz_card.c: libbriscola's text notations on any bytes: a card from a
 * length-delimited word (bri_card_parse), a seed and a variant from a
 * NUL-terminated one.  Whatever parses must format to its canonical text
 * and parse back to the same value; whatever does not must leave the
 * output untouched.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "briscola.h"
#include "fuzz.h"

/* Card parse, format, parse: the same card, canonical text. */
static void
fuzz_card(const char *s, size_t len)
{
	char		 buf[BRI_CARD_STRLEN];
	bri_card	 c = 0xaa, c2 = 0xbb;
	size_t		 i;

	if (bri_card_parse(s, len, &c) != BRI_OK) {
		FUZZ_CHECK(c == 0xaa);
		return;
	}
	FUZZ_CHECK(c < BRI_NCARDS);
	bri_card_format(c, buf);
	/* the canonical text differs from the input only in the suit's case */
	FUZZ_CHECK(strlen(buf) == len);
	for (i = 0; i < len; i++)
		FUZZ_CHECK(buf[i] == (char)toupper((unsigned char)s[i]));
	FUZZ_CHECK(bri_card_parse(buf, strlen(buf), &c2) == BRI_OK && c2 == c);
	FUZZ_CHECK(bri_card_points(c) >= 0 && bri_card_points(c) <= 11);
	FUZZ_CHECK(bri_card_strength(c) >= 1 && bri_card_strength(c) <= 10);
}

/* Seed parse, format, parse: the same 32 bytes, lowercase hex. */
static void
fuzz_seed(const char *s)
{
	struct bri_seed	 seed, again;
	char		 hex[BRI_SEED_STRLEN];
	size_t		 i;

	memset(&seed, 0x5a, sizeof(seed));
	memset(&again, 0x5a, sizeof(again));
	if (bri_seed_parse(s, &seed) != BRI_OK) {
		FUZZ_CHECK(memcmp(&seed, &again, sizeof(seed)) == 0);
		return;
	}
	FUZZ_CHECK(strlen(s) == 2 * BRI_SEEDLEN);
	FUZZ_CHECK(bri_seed_format(&seed, hex) == hex);
	FUZZ_CHECK(strlen(hex) == 2 * BRI_SEEDLEN);
	for (i = 0; i < 2 * BRI_SEEDLEN; i++)
		FUZZ_CHECK(hex[i] == (char)tolower((unsigned char)s[i]));
	FUZZ_CHECK(bri_seed_parse(hex, &again) == BRI_OK);
	FUZZ_CHECK(memcmp(&seed, &again, sizeof(seed)) == 0);
}

/* Variant parse: only the exact names, which name it back. */
static void
fuzz_variant(const char *s)
{
	enum bri_variant v = BRI_NVARIANTS;
	struct bri_options o;

	if (bri_variant_parse(s, &v) != BRI_OK) {
		FUZZ_CHECK(v == BRI_NVARIANTS);
		return;
	}
	FUZZ_CHECK((unsigned)v < BRI_NVARIANTS);
	FUZZ_CHECK(strcmp(bri_variant_name(v), s) == 0);
	FUZZ_CHECK(bri_variant_seats(v) >= 2 &&
	    bri_variant_seats(v) <= BRI_MAXSEATS);
	bri_options_default(&o, v);
	FUZZ_CHECK(bri_options_check(&o) == BRI_OK);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (bri_init() != BRI_OK)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		 buf[BRI_CARD_STRLEN], *s;
	bri_card	 c;
	size_t		 i, n;

	/* the whole input as one word, then as words split at spaces */
	fuzz_card((const char *)data, size);
	for (i = 0; i < size; i += n + 1) {
		n = 0;
		while (i + n < size && data[i + n] != ' ')
			n++;
		fuzz_card((const char *)data + i, n);
	}
	/* every byte as a card code: a card formats and parses back */
	for (i = 0; i < size && i < 64; i++) {
		bri_card_format(data[i], buf);
		if (data[i] >= BRI_NCARDS) {
			FUZZ_CHECK(strcmp(buf, "?") == 0);
			continue;
		}
		FUZZ_CHECK(bri_card_parse(buf, strlen(buf), &c) == BRI_OK);
		FUZZ_CHECK(c == data[i]);
	}
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	fuzz_seed(s);
	fuzz_variant(s);
	free(s);
	return 0;
}
