/* util.h: small helpers shared by refd and refctl. */
#ifndef REFD_UTIL_H
#define REFD_UTIL_H

#include <sys/queue.h>

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) && ((tvar) = TAILQ_NEXT(var, field), 1);		\
	    (var) = (tvar))
#endif

#include "briscola.h"

long long	 util_num(const char *, long long, long long, const char **);
int64_t		 util_now_ms(void);
int64_t		 util_now_us(void);
int		 util_thread(pthread_t *, void *(*)(void *), void *);
int		 util_thread_cv(pthread_t *, pthread_mutex_t *,
		    pthread_cond_t *, void *(*)(void *), void *);
int		 util_name_ok(const char *);
void		 util_hex(const uint8_t *, size_t, char *);
size_t		 util_dec(char *, long long);
void		 util_printable(char *, size_t, const char *, size_t);
int		 util_variant(const char *, enum bri_variant *, char *, size_t);
int		 util_vformat(char *, size_t, const char *, va_list)
		    __attribute__((format(printf, 3, 0)));
int		 util_format(char *, size_t, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

#endif
