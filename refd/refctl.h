/*
 * refctl.h: refctl's subcommands that live in files of their own.  Each
 * takes the subcommand's words (argv[0] is its name) and returns the
 * exit status: 0 all good, 1 a failure or discrepancy found, 2 usage or
 * an error that stopped the work.
 */
#ifndef REFCTL_H
#define REFCTL_H

int	cmd_checkbot(int, char **);	/* refctl-checkbot.c */
int	cmd_audit(int, char **);	/* refctl-audit.c */
int	cmd_show(int, char **);		/* refctl-show.c */
int	cmd_export(int, char **);	/* refctl-export.c */
int	cmd_verify_receipt(int, char **); /* refctl-receipt.c */
int	cmd_bridge(int, char **);	/* refctl-bridge.c */
int	cmd_tournament(int, char **);	/* refctl-tourney.c */

/* Send one control command; each answer line goes to cb (or stdout). */
int	refctl_command(int, char **, void (*)(const char *, void *), void *);

#endif
