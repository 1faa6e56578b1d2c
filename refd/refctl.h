/*
 * refctl.h: refctl's subcommands that live in files of their own.  Each
 * takes the subcommand's words (argv[0] is its name) and returns the
 * exit status: 0 all good, 1 a failure or discrepancy found, 2 usage or
 * an error that stopped the work.
 */
#ifndef REFCTL_H
#define REFCTL_H

#include <stdio.h>

#define REFCTL_USAGE	(-1)	/* a subcommand's wrong usage: main says */
#define REFCTL_MAXUSE	4	/* synopses of one subcommand */

/* A subcommand: refctl.c and refctl-tourney.c each have a table. */
struct refctl_cmd {
	const char	*name;
	int		(*fn)(int, char **);	/* or NULL: */
	const char	*ctl;		/* this control command, */
	int		 min, max;	/* with min to max words as they are */
	int		 offline;	/* needs no refd */
	const char	*use[REFCTL_MAXUSE][2];	/* synopsis, what it does */
};

extern const struct refctl_cmd refctl_tourney_cmds[];	/* refctl-tourney.c */
extern const struct refctl_cmd refctl_cluster_cmds[];	/* refctl-cluster.c */

int	cmd_checkbot(int, char **);	/* refctl-checkbot.c */
int	cmd_audit(int, char **);	/* refctl-audit.c */
int	cmd_show(int, char **);		/* refctl-show.c */
int	cmd_export(int, char **);	/* refctl-export.c */
int	cmd_verify_receipt(int, char **); /* refctl-receipt.c */
struct au;
int	receipt_rebuild(struct au *, long long); /* refctl-receipt.c */
int	receipt_lost(const struct au *);		 /* refctl-receipt.c */
int	cmd_bridge(int, char **);	/* refctl-bridge.c */
int	cmd_tournament(int, char **);	/* refctl-tourney.c */
int	cmd_cluster(int, char **);	/* refctl-cluster.c */
int	cmd_backup(int, char **);	/* refctl-backup.c */
int	backup_make(const char *, const char *, char *, size_t);
int	backup_tmp(const char *, const char *, char *, size_t, char *,
	    size_t);
int	backup_syncdir(const char *);
int	cmd_archive(int, char **);	/* refctl-archive.c */

/* refctl-ctl.c: the control socket; each answer line goes to cb. */
void	refctl_socket(const char *);
int	refctl_command(int, char **, void (*)(const char *, void *), void *);

#endif
