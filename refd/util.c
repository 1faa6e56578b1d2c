/* util.c: small helpers shared by refd and refctl. */
#include "config.h"

#include <sys/time.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

/*
 * Parse a whole decimal number in [min, max], strtonum(3)-style: returns
 * it, or 0 with *errstr set to "invalid", "too small" or "too large".
 */
long long
util_num(const char *s, long long min, long long max, const char **errstr)
{
	long long	 v;
	char		*end;

	*errstr = NULL;
	if (s == NULL || *s == '\0' || strlen(s) > 20) {
		*errstr = "invalid";
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || end == s) {
		*errstr = "invalid";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MIN) || v < min) {
		*errstr = "too small";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MAX) || v > max) {
		*errstr = "too large";
		return 0;
	}
	return v;
}

/* Milliseconds on the monotonic clock. */
int64_t
util_now_ms(void)
{
	return util_now_us() / 1000;
}

/* Microseconds on the monotonic clock. */
int64_t
util_now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Is s a valid bot name: 1 to 32 of [A-Za-z0-9_.-]? */
int
util_name_ok(const char *s)
{
	size_t	 n = strlen(s);

	return n >= 1 && n <= 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* Lowercase hex of len bytes into out, which holds 2 * len + 1. */
void
util_hex(const uint8_t *b, size_t len, char *out)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * len] = '\0';
}

/*
 * Copy srclen bytes of untrusted text as one printable line of at most
 * 120 characters: other bytes become \xNN and a cut ends in "...".
 * Whatever a bot sends can then never forge a line of refd's output.
 */
void
util_printable(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t	 i, j = 0;

	for (i = 0; i < srclen && j + 5 < len && j < 120; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c >= 32 && c < 127)
			dst[j++] = (char)c;
		else
			j += snprintf(dst + j, len - j, "\\x%02x", c);
	}
	if (i < srclen && j + 4 < len) {
		memcpy(dst + j, "...", 3);
		j += 3;
	}
	dst[j] = '\0';
}

/*
 * Parse the name of a variant into *v: the one place every tool
 * (match_start, tournament files, checkbot) asks, so that each refusal
 * names the same list.  Returns 0, or -1 with the reason in why.
 */
int
util_variant(const char *s, enum bri_variant *v, char *why, size_t len)
{
	enum bri_variant	 i;
	size_t			 at;

	if (bri_variant_parse(s, v) == BRI_OK)
		return 0;
	at = (size_t)snprintf(why, len, "unknown variant %.40s (", s);
	for (i = 0; i < BRI_NVARIANTS && at < len; i++)
		at += (size_t)snprintf(why + at, len - at, "%s%s",
		    i > 0 ? ", " : "", bri_variant_name(i));
	if (at < len)
		snprintf(why + at, len - at, ")");
	return -1;
}
