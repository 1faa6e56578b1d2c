/* bench.h: what every benchmark program needs: numbers from the command
 * line and the monotonic clock. */
#ifndef REFD_BENCH_H
#define REFD_BENCH_H

long	 bench_number(const char *, const char *, const char *, long, long);
double	 bench_now(void);

#endif
