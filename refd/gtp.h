/*
 * gtp.h: GTP version 2 lines, for both of refd's protocols: parsing a
 * command, parsing the first line of an answer, cleaning raw input.
 */
#ifndef REFD_GTP_H
#define REFD_GTP_H

#define GTP_MAXLINE	4096	/* longest line accepted from a peer */
#define GTP_MAXARGS	64	/* most arguments of one command */

/* A command, tokenised in place in the caller's line. */
struct gtp_cmd {
	long		 id;		/* -1 when the command had none */
	char		*name;
	int		 argc;
	char		*argv[GTP_MAXARGS];
};

int	gtp_clean(char *);
int	gtp_split(char *, char **, int);
int	gtp_parse_command(char *, struct gtp_cmd *);
int	gtp_parse_answer(char *, long *, int *, char **);

#endif
