/*
 * replay.h: the web site's data read back from the log (refd-http(7)):
 * a finished match's replay and verdict through the audit's walker, as
 * refctl show reads it, the lines one seat was sent, and a tournament's
 * standings as refctl tournament standings gives them.
 */
#ifndef REFD_REPLAY_H
#define REFD_REPLAY_H

#include <stdio.h>

/* What a tournament's JSON was read at (replay_tournament()). */
struct replay_tinfo {
	int	 done;		/* its matches done in the log */
	char	 state[32];	/* running, stopped, done, cancelled */
};

int	 replay_match(FILE *, const char *, long long, int, const char *,
	    char *, size_t);
int	 replay_seat(FILE *, const char *, long long, int, char *, size_t);
int	 replay_revealed(const char *, long long);
int	 replay_tournaments(FILE *, const char *, char *, size_t);
int	 replay_tournament(FILE *, const char *, long long,
	    struct replay_tinfo *, char *, size_t);

#endif /* REFD_REPLAY_H */
