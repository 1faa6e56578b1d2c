/*
 * pqdl.c: load libpq at run time, for refctl's cluster commands only
 * (pqdl.h says why).  refd links libpq as usual: a worker needs it
 * from its start, and a daemon starts once.
 */

#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "pqdl.h"

/* libpq's soname: its ABI has kept major version 5 since 2005 */
#define PQDL_SONAME	"libpq.so.5"

struct pqdl	 pq;

static const struct {
	const char	*name;
	size_t		 off;
} pqdl_syms[] = {
	{ "PQconnectdb",	offsetof(struct pqdl, connectdb) },
	{ "PQstatus",		offsetof(struct pqdl, status) },
	{ "PQerrorMessage",	offsetof(struct pqdl, errorMessage) },
	{ "PQfinish",		offsetof(struct pqdl, finish) },
	{ "PQexec",		offsetof(struct pqdl, exec) },
	{ "PQexecParams",	offsetof(struct pqdl, execParams) },
	{ "PQresultStatus",	offsetof(struct pqdl, resultStatus) },
	{ "PQntuples",		offsetof(struct pqdl, ntuples) },
	{ "PQgetvalue",		offsetof(struct pqdl, getvalue) },
	{ "PQgetisnull",	offsetof(struct pqdl, getisnull) },
	{ "PQclear",		offsetof(struct pqdl, clear) },
	{ "PQescapeLiteral",	offsetof(struct pqdl, escapeLiteral) },
	{ "PQescapeIdentifier",	offsetof(struct pqdl, escapeIdentifier) },
	{ "PQfreemem",		offsetof(struct pqdl, freemem) },
};

/*
 * Fill pq from libpq, once: 0, or -1 with why in err.  The library
 * stays loaded until the process ends.
 */
int
pqdl_load(char *err, size_t len)
{
	static void	*h;
	void		*f;
	size_t		 i;
	const char	*e;

	if (h != NULL)
		return 0;
	if ((h = dlopen(PQDL_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		e = dlerror();
		snprintf(err, len, "cannot load %s: %s", PQDL_SONAME,
		    e != NULL ? e : "unknown error");
		return -1;
	}
	for (i = 0; i < sizeof(pqdl_syms) / sizeof(pqdl_syms[0]); i++) {
		if ((f = dlsym(h, pqdl_syms[i].name)) == NULL) {
			snprintf(err, len, "%s has no %s", PQDL_SONAME,
			    pqdl_syms[i].name);
			dlclose(h);
			h = NULL;
			memset(&pq, 0, sizeof(pq));
			return -1;
		}
		/* POSIX: a function's address as dlsym() returns it */
		memcpy((char *)&pq + pqdl_syms[i].off, &f, sizeof(f));
	}
	return 0;
}
