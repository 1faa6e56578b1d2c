/*
 * pqdl.h: libpq for refctl, loaded when a cluster command first needs
 * it.  Linked in, libpq and the twenty-odd libraries it needs (TLS,
 * Kerberos, LDAP) tripled the start of every refctl, cluster or not.
 */
#ifndef REFD_PQDL_H
#define REFD_PQDL_H

#include <stddef.h>

#include <libpq-fe.h>

/* The libpq calls refctl makes, named as in libpq without "PQ". */
struct pqdl {
	PGconn		*(*connectdb)(const char *);
	ConnStatusType	 (*status)(const PGconn *);
	char		*(*errorMessage)(const PGconn *);
	void		 (*finish)(PGconn *);
	PGresult	*(*exec)(PGconn *, const char *);
	PGresult	*(*execParams)(PGconn *, const char *, int, const Oid *,
			    const char *const *, const int *, const int *, int);
	ExecStatusType	 (*resultStatus)(const PGresult *);
	int		 (*ntuples)(const PGresult *);
	char		*(*getvalue)(const PGresult *, int, int);
	int		 (*getisnull)(const PGresult *, int, int);
	void		 (*clear)(PGresult *);
	char		*(*escapeLiteral)(PGconn *, const char *, size_t);
	char		*(*escapeIdentifier)(PGconn *, const char *, size_t);
	void		 (*freemem)(void *);
};

extern struct pqdl pq;

int	pqdl_load(char *, size_t);

#endif
