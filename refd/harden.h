/*
 * harden.h: refd keeping itself to itself (harden.c).
 */
#ifndef REFD_HARDEN_H
#define REFD_HARDEN_H

#include <sys/types.h>

int	harden_self(void);
int	harden_peer_ok(int, uid_t *);
int	harden_unlink_socket(const char *);
int	harden_botlog_open(const char *);

#endif
