/*
 * tourney.h: tournaments run by this refd (refd-tournament(5)): slots
 * of a schedule turned into matches, results read back, resume.
 */
#ifndef REFD_TOURNEY_H
#define REFD_TOURNEY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct match;
struct match_conf;
struct tdef;
struct tslot;

int64_t		 tourney_start(const char *, char *, size_t);
int		 tourney_resume(int64_t, char *, size_t);
void		 tourney_resume_all(void);
int		 tourney_stop(int64_t, char *, size_t);
int		 tourney_cancel(int64_t, char *, char *, size_t);
void		 tourney_list(FILE *);
void		 tourney_bot_added(void);
int64_t		 tourney_uses_bot(const char *);
int		 tourney_status(int64_t, int, FILE *, char *, size_t);
int		 tourney_over(int64_t, const char **, const char **);
void		 tourney_match_done(struct match *);
int		 tourney_observe(void (*)(int64_t, const char *,
		    const char *));
void		 tourney_observe_drawn(void (*)(int64_t));
void		 tourney_free_all(void);
void		 tourney_slot_conf(const struct tdef *, const struct tslot *,
		    struct match_conf *);
int		 tourney_take_bots(const struct tdef *, const char *, char *,
		    size_t);

#endif /* REFD_TOURNEY_H */
