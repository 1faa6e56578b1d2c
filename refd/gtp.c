/*
 * gtp.c: GTP version 2 syntax (gogui's and GNU Go's GTP, section 2):
 * control characters other than HT and LF are dropped, HT becomes a
 * space, everything from '#' on is a comment, and a line left empty is
 * ignored.  Shared by the bot side and the control side.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gtp.h"

/*
 * Clean a line in place as GTP asks and trim it.  Returns 1 if nothing
 * is left (a blank or comment line), 0 otherwise.
 */
int
gtp_clean(char *s)
{
	char		*r, *w;
	unsigned char	 c;

	for (r = w = s; *r != '\0'; r++) {
		c = (unsigned char)*r;
		if (c == '#')
			break;
		if (c == '\t')
			c = ' ';
		else if (c < 32 || c == 127)
			continue;
		*w++ = (char)c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
	return s[strspn(s, " ")] == '\0';
}

/*
 * Split a cleaned line on spaces, in place, into at most max words.
 * Returns the number of words, or -1 when there are more than max.
 */
int
gtp_split(char *s, char **words, int max)
{
	int	 n = 0;

	for (;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			return n;
		if (n == max)
			return -1;
		words[n++] = s;
		while (*s != '\0' && *s != ' ')
			s++;
		if (*s == ' ')
			*s++ = '\0';
	}
}

/*
 * Parse a cleaned command line "[id] name [args]" in place.  Returns 0,
 * or -1 for an empty line, a bad id or too many arguments.
 */
int
gtp_parse_command(char *s, struct gtp_cmd *c)
{
	char	*w[GTP_MAXARGS + 2], *end;
	int	 n, first = 0;
	long	 id = -1;

	n = gtp_split(s, w, GTP_MAXARGS + 2);
	if (n <= 0)
		return -1;
	if (isdigit((unsigned char)w[0][0])) {
		if (strlen(w[0]) > 9)
			return -1;
		id = strtol(w[0], &end, 10);
		if (*end != '\0')
			return -1;
		first = 1;
	}
	if (n - first < 1 || n - first - 1 > GTP_MAXARGS)
		return -1;
	c->id = id;
	c->name = w[first];
	c->argc = n - first - 1;
	memcpy(c->argv, w + first + 1, sizeof(char *) * c->argc);
	return 0;
}

/*
 * Parse the first line of an answer, "=id text" or "?id text", in place.
 * Sets *id (-1 if absent), *ok and *text (after the id and one space).
 * Returns 0, or -1 if the line is not an answer.
 */
int
gtp_parse_answer(char *s, long *id, int *ok, char **text)
{
	char	*p;
	long	 v = -1;
	int	 digits = 0;

	if (s[0] != '=' && s[0] != '?')
		return -1;
	*ok = s[0] == '=';
	p = s + 1;
	if (isdigit((unsigned char)*p)) {
		v = 0;
		while (isdigit((unsigned char)*p)) {
			if (++digits > 9)
				return -1;
			v = v * 10 + (*p++ - '0');
		}
	}
	if (*p != '\0' && *p != ' ')
		return -1;
	while (*p == ' ')
		p++;
	*id = v;
	*text = p;
	return 0;
}
