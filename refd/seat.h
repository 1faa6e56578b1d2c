/*
 * seat.h: one bot connection, spawned or remote.  A seat frames a bot's
 * lines into answers, keeps their deadlines and knows nothing of cards;
 * struct seat is seat.c's alone.  A match takes a seat with
 * seat_attach(), giving it the callbacks it reports through, and gives
 * it back with seat_release().
 */
#ifndef REFD_SEAT_H
#define REFD_SEAT_H

#include <sys/types.h>

#include <stdint.h>

struct bot;
struct seat;

/* What an awaited answer answers. */
enum pend_kind { PEND_NOTE, PEND_NAME, PEND_VERSION, PEND_GENPLAY, PEND_QUIT,
	PEND_GENBID, PEND_GENCALL, PEND_KNOWN, PEND_PROBE };

/* A move asked for (a card, a call, a suit): its timeout is a fault the
   policy may forgive, not a broken connection. */
#define PEND_MOVE(k)	((k) == PEND_GENPLAY || (k) == PEND_GENBID || \
			    (k) == PEND_GENCALL)

/*
 * How a seat reports to the match that holds it, as a bufferevent does
 * to its owner.  answer: a whole answer (ok for "=", its text) to a
 * command of kind, and the bot's time for it in microseconds.  fault: a
 * fault of kind with its evidence, and the bot's time in microseconds
 * when the seat knows it (a timeout), else -1; it comes at the loop's
 * next step after the seat met it, never from inside seat_send().
 */
struct seat_cb {
	void	(*answer)(void *, struct seat *, enum pend_kind, int,
		    const char *, int64_t);
	void	(*fault)(void *, struct seat *, const char *, const char *,
		    int64_t);
	void	(*late)(void *, struct seat *, enum pend_kind, int,
		    const char *, int64_t);	/* an answer after its
						   time-out, hashed */
};

struct seat	*seat_spawn(struct bot *, const char *, int64_t, int, char *,
		    size_t);
struct seat	*seat_accept(int, const char *);
struct seat	*seat_take_idle(struct bot *);
int		 seat_idle_count(struct bot *);
void		 seat_drop_idle(struct bot *);
void		 seat_attach(struct seat *, int, const struct seat_cb *,
		    void *);
void		 seat_on_ready(void (*)(struct bot *));
void		 seat_on_free(void (*)(void));
int		 seat_send(struct seat *, enum pend_kind, int, const char *,
		    ...) __attribute__((format(printf, 4, 5)));
void		 seat_release(struct seat *);
void		 seat_drop_unsent(struct seat *);
void		 seat_push(struct seat *);
void		 seat_lazy(struct seat *, int);
void		 seat_transcript_begin(struct seat *);
void		 seat_transcript(struct seat *, char *, size_t);

void		*seat_owner(const struct seat *);
int		 seat_index(const struct seat *);
int		 seat_broken(const struct seat *);
int		 seat_usable(const struct seat *);
const char	*seat_peer(const struct seat *);
const char	*seat_name(const struct seat *);
const char	*seat_version(const struct seat *);
long long	 seat_answer_line(const struct seat *);

void		 seat_reap(pid_t, int);
int		 seat_count(void);
int		 seat_unauth(const char *, int *);
int		 seat_unauth_evict(const char *, int);
void		 seat_shutdown_all(void);
void		 seat_flush_soon(void);

#endif /* REFD_SEAT_H */
