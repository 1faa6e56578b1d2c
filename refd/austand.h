/*
 * austand.h: audit --all's recount of every tournament's standings from
 * the matches as the audit replayed them, compared with the standings
 * refctl tournament standings reads from the log (tstand.c), through
 * the same standings code (standings.c).
 */
#ifndef REFD_AUSTAND_H
#define REFD_AUSTAND_H

#include <stdio.h>

#include <sqlite3.h>

struct au;
struct au_row;
struct as_rec;

/* The replayed results of the tournament matches walked so far. */
struct as_count {
	struct as_rec	*rec;		/* one per match that ended */
	int		 n, cap;
	struct as_rec	*cur;		/* the match being walked */
	int		 nomem;
};

void	as_row(struct au *, const struct au_row *);
void	as_start(struct as_count *, struct au *);
void	as_done(struct as_count *, const struct au *, int);
int	as_check(struct as_count *, sqlite3 *, FILE *);
void	as_free(struct as_count *);

#endif /* REFD_AUSTAND_H */
