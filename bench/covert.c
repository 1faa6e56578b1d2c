/*
 * covert.c: one end of the channel two colluding bots still have when
 * they run at the same time: CPU contention.  The sandbox and its
 * filter close every shared file, lock, page-cache probe and process;
 * they cannot close the CPU two bots share.  bench/covert.py runs a
 * sender and a receiver, each in a bwrap sandbox like a bot's, and
 * works out the bits per second that get through.
 *
 *	covert send T0 SLOT_US NBITS SEED CPU
 *	covert recv T0 SLOT_US NBITS SEED CPU
 *
 * T0 is a CLOCK_REALTIME start in nanoseconds (no namespace moves that
 * clock), each bit a slot of SLOT_US microseconds.  The sender spins
 * through a slot for a 1 and sleeps through it for a 0, its bits drawn
 * from SEED; the receiver spins through every slot counting how far it
 * got, and prints one count a line: fewer when the sender spun.  CPU,
 * if not -1, pins the end to that CPU first, as colluders would
 * (sched_setaffinity is a call no bot can be refused: runtimes use it).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep until CLOCK_REALTIME t (ns). */
static void
until(uint64_t t)
{
	struct timespec	 ts;

	ts.tv_sec = (time_t)(t / 1000000000u);
	ts.tv_nsec = (long)(t % 1000000000u);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

/* The seed's next bit: xorshift64. */
static int
bit(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (int)(*s >> 63);
}

int
main(int argc, char *argv[])
{
	volatile uint64_t	 sink = 0;
	uint64_t		 t0, slot, seed, end, count;
	cpu_set_t		 set;
	long			 i, n;
	int			 cpu, j;

	if (argc != 7 || (strcmp(argv[1], "send") != 0 &&
	    strcmp(argv[1], "recv") != 0)) {
		fprintf(stderr, "usage: covert send|recv T0 SLOT_US NBITS SEED "
		    "CPU\n");
		return 2;
	}
	t0 = strtoull(argv[2], NULL, 10);
	slot = strtoull(argv[3], NULL, 10) * 1000u;
	n = strtol(argv[4], NULL, 10);
	seed = strtoull(argv[5], NULL, 10) | 1;
	cpu = atoi(argv[6]);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	until(t0);
	for (i = 0; i < n; i++) {
		end = t0 + (uint64_t)(i + 1) * slot;
		if (argv[1][0] == 's') {
			if (!bit(&seed)) {
				until(end);
				continue;
			}
			while (now() < end)
				for (j = 0; j < 64; j++)
					sink += (uint64_t)j;
			continue;
		}
		for (count = 0; now() < end; count++)
			for (j = 0; j < 64; j++)
				sink += (uint64_t)j;
		printf("%llu\n", (unsigned long long)count);
	}
	return 0;
}
