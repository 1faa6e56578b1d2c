/*
 * clock.h: how long refd's own loop was stalled, so that no bot is ever
 * charged for it.  A heartbeat timer fires every CLOCK_TICK_MS; however
 * late it fires beyond CLOCK_SLACK_US is time during which refd served
 * nobody (a paused VM, a slow fsync, a SIGSTOP, a long pass of work).
 * Those intervals are kept, and a seat asks how much of a command's time
 * fell into them.  The slack is what a timer may be late anyway (the
 * kernel's wake-ups are whole milliseconds).
 */
#ifndef REFD_CLOCK_H
#define REFD_CLOCK_H

#include <stdint.h>

#define CLOCK_TICK_MS		10	/* the heartbeat's period */
#define CLOCK_SLACK_US		2000	/* lateness that is no stall */
#define CLOCK_MAXAGE_US		100000	/* most a wake-up time may lag now */

struct event_base;
struct event_config;

void		 clock_config(struct event_config *);
int		 clock_start(struct event_base *);
void		 clock_stop(void);
void		 clock_tick(int64_t);
int64_t		 clock_stalled(int64_t, int64_t);
int64_t		 clock_wake(void);
int64_t		 clock_lag_max(void);
int64_t		 clock_lag_own_max(void);
int64_t		 clock_runq_us(void);

#endif /* REFD_CLOCK_H */
