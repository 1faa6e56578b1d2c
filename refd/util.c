/* util.c: small helpers shared by refd and refctl. */
#include "config.h"

#include <sys/time.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
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

/*
 * Start fn(arg) on a thread of its own, with every signal blocked: the
 * signals stay the event loop's.  Returns 0, or pthread_create()'s error.
 */
int
util_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t	 all, old;
	int		 e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

/*
 * Start fn(arg) as util_thread() does, with the mutex and condition
 * variable it shares with its owner made first, and undone again if it
 * cannot start.  Returns 0, or pthread_create()'s error.
 */
int
util_thread_cv(pthread_t *t, pthread_mutex_t *mu, pthread_cond_t *cv,
    void *(*fn)(void *), void *arg)
{
	int	 e;

	pthread_mutex_init(mu, NULL);
	pthread_cond_init(cv, NULL);
	if ((e = util_thread(t, fn, arg)) != 0) {
		pthread_cond_destroy(cv);
		pthread_mutex_destroy(mu);
	}
	return e;
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

/* Bytes s[0..n) at *at of buf (len bytes), as far as they fit. */
static void
util_put(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	size_t	 room;

	if (len > 0 && *at < len - 1) {
		room = len - 1 - *at;
		memcpy(buf + *at, s, n < room ? n : room);
	}
	*at += n;
}

/* The decimal digits of v into num (at least 21 bytes); its length. */
size_t
util_dec(char *num, long long v)
{
	unsigned long long	 mag;
	char			 d[20];
	size_t			 n = 0, i = 0;

	mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do
		d[n++] = (char)('0' + mag % 10);
	while ((mag /= 10) != 0);
	if (v < 0)
		num[i++] = '-';
	while (n > 0)
		num[i++] = d[--n];
	return i;
}

/*
 * vsnprintf(3), for what the lines to bots and the chained texts of the
 * log are made of: %s, %d, %lld, %zu, %c and %%, with no flag, width or
 * precision, written without the printf machinery, which took about a
 * quarter of refd's instructions per play.  A format with any other
 * conversion goes to vsnprintf() whole.  The same bytes, the same
 * truncation to len - 1 and NUL, the same return value: the length of
 * the whole text.
 */
int
util_vformat(char *buf, size_t len, const char *fmt, va_list ap)
{
	va_list		 ap0;
	const char	*f, *s;
	char		 num[24], c;
	size_t		 at = 0, n;
	int		 r;

	/* one pass: a conversion of another kind starts again, whole */
	va_copy(ap0, ap);
	for (f = fmt; *f != '\0'; f++) {
		for (n = 0; f[n] != '\0' && f[n] != '%'; n++)
			;
		if (n > 0) {
			util_put(buf, len, &at, f, n);
			f += n - 1;
			continue;
		}
		switch (*++f) {
		case 's':
			if ((s = va_arg(ap, const char *)) == NULL)
				s = "(null)";
			util_put(buf, len, &at, s, strlen(s));
			continue;
		case 'd':
			util_put(buf, len, &at, num,
			    util_dec(num, va_arg(ap, int)));
			continue;
		case 'l':
			if (f[1] != 'l' || f[2] != 'd')
				break;
			f += 2;
			util_put(buf, len, &at, num,
			    util_dec(num, va_arg(ap, long long)));
			continue;
		case 'z':
			if (f[1] != 'u')
				break;
			f++;
			n = va_arg(ap, size_t);
			util_put(buf, len, &at, num, n > LLONG_MAX ?
			    (size_t)snprintf(num, sizeof(num), "%zu", n) :
			    util_dec(num, (long long)n));
			continue;
		case 'c':
			c = (char)va_arg(ap, int);
			util_put(buf, len, &at, &c, 1);
			continue;
		case '%':
			util_put(buf, len, &at, "%", 1);
			continue;
		}
		r = vsnprintf(buf, len, fmt, ap0);
		va_end(ap0);
		return r;
	}
	va_end(ap0);
	if (len > 0)
		buf[at < len ? at : len - 1] = '\0';
	return at > INT_MAX ? -1 : (int)at;
}

/* snprintf(3) by util_vformat(). */
int
util_format(char *buf, size_t len, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = util_vformat(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
