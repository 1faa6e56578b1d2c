/*
 * bench.c: what every benchmark program needs, written once: a number
 * from the command line, checked, and seconds on the monotonic clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

/* Parse s as a decimal number in [min, max], or exit 2 naming prog. */
long
bench_number(const char *prog, const char *s, const char *what, long min,
    long max)
{
	char	*end;
	long	 l;

	errno = 0;
	l = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || l < min || l > max) {
		fprintf(stderr, "%s: %s: %s must be %ld to %ld\n", prog, s,
		    what, min, max);
		exit(2);
	}
	return l;
}

/* Seconds on the monotonic clock. */
double
bench_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
