/*
 * seat.h: one bot connection, spawned or remote.  A seat frames a bot's
 * lines into answers, keeps their deadlines and knows nothing of cards;
 * struct seat is seat.c's alone.  A match takes a seat with
 * seat_attach() and gives it back with seat_release().
 */
#ifndef REFD_SEAT_H
#define REFD_SEAT_H

#include <sys/types.h>

struct bot;
struct match;
struct seat;

/* What an awaited answer answers. */
enum pend_kind { PEND_NOTE, PEND_NAME, PEND_VERSION, PEND_GENPLAY, PEND_QUIT };

struct seat	*seat_spawn(struct bot *, const char *, char *, size_t);
struct seat	*seat_accept(int, const char *);
struct seat	*seat_take_idle(struct bot *);
int		 seat_idle_count(struct bot *);
void		 seat_attach(struct seat *, struct match *, int);
int		 seat_send(struct seat *, enum pend_kind, int, const char *,
		    ...) __attribute__((format(printf, 4, 5)));
void		 seat_release(struct seat *);
void		 seat_drop_unsent(struct seat *);

struct match	*seat_match(const struct seat *);
int		 seat_index(const struct seat *);
int		 seat_broken(const struct seat *);
int		 seat_usable(const struct seat *);
const char	*seat_peer(const struct seat *);
const char	*seat_name(const struct seat *);
const char	*seat_version(const struct seat *);

void		 seat_reap(pid_t, int);
int		 seat_count(void);
void		 seat_shutdown_all(void);
void		 seat_flush_soon(void);

#endif /* REFD_SEAT_H */
