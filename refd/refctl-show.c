/*
 * refctl-show.c: refctl show, the transcript of a match for a dispute,
 * or exactly the lines refd sent one seat, rebuilt from its bri_view by
 * botproto, the code refd runs.  Each row is shown once audit.c has
 * checked it.  See refd-audit(7).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "briscola.h"
#include "audit.h"
#include "botproto.h"
#include "refctl.h"
#include "tstand.h"
#include "util.h"

static void	 show_header(struct au *);
static int	 show_wants(const struct au *, long long);
static void	 show_row(struct au *, const struct au_row *);
static void	 view_line(struct au *, const char *);
static void	 view_genplay(struct au *);
static void	 view_pending(struct au *, const struct au_row *);
static void	 view_deal(struct au *);
static void	 view_play(struct au *);
static void	 view_bid(struct au *);
static void	 view_called(struct au *);
static void	 view_end(struct au *);

/* The header of a transcript: everything the match row and seats hold. */
static void
show_header(struct au *a)
{
	FILE	*fp = a->out;
	int	 i;

	fprintf(fp, "match %lld  %s  %s", a->id, a->variant, a->state);
	if (a->result[0] != '\0')
		fprintf(fp, "  result %s", a->result);
	fprintf(fp, "\noptions     ");
	au_untrusted(fp, a->options, strlen(a->options));
	if (au_option(a, "sandbox=none"))
		fprintf(fp, "\nsandbox     none: the bots ran unsandboxed");
	else if (au_option(a, "memcg=none"))
		fprintf(fp, "\nsandbox     no memory cgroup: bot_memory_mb "
		    "bounded each process, not the sandbox");
	/* a tournament's seed is shown only once it is over */
	fprintf(fp, "\nseed        %s\ncommitment  %s (the seed gives it)\n"
	    "rng         %s\npolicy      %s, max_faults %lld\n"
	    "clocks      move_ms %lld, bank_ms %lld, startup_ms %lld\n",
	    tstand_seed_secret(a->h, a->tournament) ? "- (its tournament is "
	    "not over)" : a->seedhex, a->commit, a->rng, a->policy,
	    a->max_faults,
	    a->move_ms, a->bank_ms, a->startup_ms);
	if (a->tournament > 0)
		fprintf(fp, "tournament  %lld\n", a->tournament);
	fprintf(fp, "started     %s\nended       %s\n", a->started,
	    a->ended[0] ? a->ended : "(running)");
	for (i = 0; i < a->nseats; i++) {
		fprintf(fp, "seat %d      %s: name \"", i, a->seat[i].bot);
		au_untrusted(fp, a->seat[i].name, strlen(a->seat[i].name));
		fprintf(fp, "\" version \"");
		au_untrusted(fp, a->seat[i].version,
		    strlen(a->seat[i].version));
		fprintf(fp, "\", %s: ", a->seat[i].kind);
		au_untrusted(fp, a->seat[i].identity,
		    strlen(a->seat[i].identity));
		fprintf(fp, "\n");
	}
	if (a->result[0] != '\0') {
		fprintf(fp, "result      %s, match points %s, reason: ",
		    a->result, a->mpoints);
		au_untrusted(fp, a->reason, strlen(a->reason));
		fprintf(fp, "\n");
	}
	fprintf(fp, "chain0      %s\nfinal_chain %s\n", a->chain0,
	    a->final[0] ? a->final : "(none)");
}

/* Does the transcript show what happens in deal (0: between deals)? */
static int
show_wants(const struct au *a, long long deal)
{
	return a->only_deal == 0 || a->only_deal == deal;
}

/* One row of the transcript, after the walker has checked it. */
static void
show_row(struct au *a, const struct au_row *r)
{
	struct bri_deal	*d = &a->bm.deal;
	FILE		*fp = a->out;
	const struct bri_variant_info *vi = bri_variant_info(a->opt.variant);
	char		 c1[BRI_CARD_STRLEN], list[BRI_NCARDS * 4];
	int		 i, s, n3 = vi->handsize * a->nseats;
	int		 nt = vi->turned != 0;

	if (r->kind == AU_MATCHEND ? a->only_deal != 0 :
	    !show_wants(a, r->deal))
		return;
	switch (r->kind) {
	case AU_SEAT:
		fprintf(fp, "seat %lld answered: %s ", r->v[0],
		    r->v[1] ? "remote" : "spawn");
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, ", name \"");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\" version \"");
		au_untrusted(fp, r->s[3], (size_t)r->slen[3]);
		fprintf(fp, "\"\n");
		break;
	case AU_DEAL:
		fprintf(fp, "\ndeal %lld  dealer %d  trump %s  removed %s\n",
		    r->deal, d->dealer, d->trump == BRI_NOCARD ? "-" :
		    bri_card_format(d->trump, c1),
		    d->removed == BRI_NOCARD ? "-" : bri_card_format(d->removed,
		    list));
		for (i = 1; i <= a->nseats; i++) {
			s = (d->dealer + i) % a->nseats;
			fprintf(fp, "  seat %d is dealt %s\n", s, au_cards(
			    d->hand[s], d->nhand[s], list, sizeof(list)));
		}
		if (d->ncards == n3)
			fprintf(fp, "  no stock\n");
		else if (nt)
			fprintf(fp, "  stock, in drawing order: %s, then the "
			    "trump %s\n", au_cards(d->deck + n3 + 1, d->ncards -
			    n3 - 1, list, sizeof(list)), bri_card_format(
			    d->trump, c1));
		else
			fprintf(fp, "  stock, in drawing order: %s; no trump\n",
			    au_cards(d->deck + n3, d->ncards - n3, list,
			    sizeof(list)));
		break;
	case AU_BID:
		fprintf(fp, "  call %2lld  seat %lld  %-4s %lld ms of %lld",
		    r->v[0], r->v[1], r->s[0], r->v[2], r->v[4]);
		if (r->s[1] != NULL) {
			fprintf(fp, "  at ");
			au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		}
		fprintf(fp, "%s\n", r->v[3] ?
		    "  (fallback: refd passed for the seat)" : "");
		if (d->phase == BRI_PHASE_CALL)
			fprintf(fp, "  seat %d wins the auction\n", d->caller);
		break;
	case AU_CALLED:
		fprintf(fp, "  seat %lld calls %s (trump %c), held by seat "
		    "%lld%s, %lld ms of %lld%s\n", r->v[1], r->s[0],
		    r->s[0][r->slen[0] - 1], r->v[5], r->v[5] == r->v[1] ?
		    ": alone" : "", r->v[2], r->v[4], r->v[3] ?
		    "  (fallback: refd named the suit)" : "");
		break;
	case AU_PLAY:
		if (r->v[0] % a->nseats == 0)
			fprintf(fp, "  trick %lld, seat %lld leads\n", r->v[1],
			    r->v[2]);
		fprintf(fp, "    play %2lld  seat %lld  %-3s  %lld ms",
		    r->v[0], r->v[2], r->s[0], r->v[3]);
		if (r->v[5] >= 0)
			fprintf(fp, " of %lld", r->v[5]);
		if (r->s[1] != NULL) {
			fprintf(fp, "  at ");
			au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		}
		fprintf(fp, "%s\n",
		    r->v[4] ? "  (fallback: refd played it for the seat)" :
		    "");
		if (a->ev.partner != BRI_NOSEAT)
			fprintf(fp, "    the called card is played: seat %d is "
			    "the partner%s\n", a->ev.partner, a->ev.partner ==
			    d->caller ? " (the caller, alone)" : "");
		break;
	case AU_JOKER:
		fprintf(fp, "    seat %lld becomes the Joker\n", r->v[0]);
		break;
	case AU_ANSWER:
		fprintf(fp, "  seat %lld answered its line %lld (%.*s) after "
		    "%lld ms at ", r->v[0], r->v[1], r->slen[0], r->s[0],
		    r->v[2]);
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, ": ");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\n");
		break;
	case AU_TRICK:
		fprintf(fp, "    seat %lld wins trick %lld: %lld points\n",
		    r->v[1], r->v[0], r->v[2]);
		if (a->ev.ndraws > 0) {
			fprintf(fp, "    draws:");
			for (i = 0; i < a->ev.ndraws; i++)
				fprintf(fp, "%s seat %d %s", i ? "," : "",
				    a->ev.draw_seat[i], bri_card_format(
				    a->ev.draw_card[i], c1));
			fprintf(fp, "%s\n", a->ev.stock_empty ?
			    "; the stock is empty" : "");
		}
		break;
	case AU_FAULT:
		fprintf(fp, "  FAULT of seat %lld: ", r->v[0]);
		au_untrusted(fp, r->s[0], (size_t)r->slen[0]);
		fprintf(fp, " after %lld ms; action: ", r->v[1]);
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		if (au_deal_active(a))
			fprintf(fp, "; seat %lld held %s", r->v[0], au_cards(
			    d->hand[r->v[0]], d->nhand[r->v[0]], list,
			    sizeof(list)));
		fprintf(fp, "; evidence: ");
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "\n");
		break;
	case AU_DEALEND:
		fprintf(fp, "  deal %lld ends: %s, winner %lld; card points ",
		    r->deal, r->s[0], r->v[0]);
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "; match points ");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\n");
		break;
	default:
		fprintf(fp, "\nmatch end: ");
		au_untrusted(fp, r->s[0], (size_t)r->slen[0]);
		fprintf(fp, "; match points ");
		au_untrusted(fp, r->s[1], (size_t)r->slen[1]);
		fprintf(fp, "; reason: ");
		au_untrusted(fp, r->s[2], (size_t)r->slen[2]);
		fprintf(fp, "\n");
		break;
	}
}

/*
 * What the seat being viewed was sent because of a checked row (an
 * on_row of the walker in AU_VIEW mode; refctl verify-receipt uses it
 * too).
 */
void
show_seat_row(struct au *a, const struct au_row *r)
{
	view_pending(a, r);
	if (r->kind == AU_DEAL)
		view_deal(a);
	else if (r->kind == AU_PLAY)
		view_play(a);
	else if (r->kind == AU_BID)
		view_bid(a);
	else if (r->kind == AU_CALLED)
		view_called(a);
	else if (r->kind == AU_MATCHEND)
		view_end(a);
}

/* One protocol line of the seat being viewed, if its deal is shown. */
static void
view_line(struct au *a, const char *line)
{
	if (show_wants(a, a->bm.ndeals))
		fprintf(a->out, "%s\n", line);
}

/*
 * The move refd asks of the seat whose turn it is (genbid, gencall or
 * genplay, by the deal's phase): move_ms, or what is left of its time
 * bank (estimated from the logged milliseconds) when smaller.
 */
static void
view_genplay(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];
	long long	 ms = a->move;
	enum botmsg	 k = a->bm.deal.phase == BRI_PHASE_AUCTION ?
			    BOTMSG_GENBID : a->bm.deal.phase == BRI_PHASE_CALL ?
			    BOTMSG_GENCALL : BOTMSG_GENPLAY;

	if (a->bm.deal.over || a->bm.deal.turn != a->vseat)
		return;
	if (a->bank > 0 && a->bank_left[a->vseat] < ms)
		ms = a->bank_left[a->vseat];
	bri_view_build(&a->bm, a->vseat, &v);
	if (a->bank > 0 && a->version == 2) {
		/* its limit is chained with the move or fault that follows */
		a->vpend = 1;
		a->vpend_kind = k;
		a->vpend_deal = a->bm.ndeals;
		a->vpend_est = ms;
		a->vpend_view = v;
		return;
	}
	if (ms <= 0)
		return;		/* refd faults the seat unasked */
	view_line(a, botproto_format(k, &v, (int)ms, buf, sizeof(buf)));
}

/*
 * The move asked of the seat, once the row after it is read: refd
 * charges its bank in microseconds, the log in milliseconds, so the
 * limit refd sent is the one it chained with the seat's move or fault
 * (limit_ms); only a match's end (a stop, a failure) or the end of the
 * log leaves the estimate.  A limit of 0 was never sent: the seat's
 * bank was spent and refd faulted it unasked.
 */
static void
view_pending(struct au *a, const struct au_row *r)
{
	char		 buf[BOTPROTO_MAXLINE];
	long long	 ms = a->vpend_est;

	if (!a->vpend || (r != NULL && (r->kind == AU_JOKER ||
	    r->kind == AU_TRICK || r->kind == AU_SEAT ||
	    r->kind == AU_ANSWER)))
		return;		/* rows of what was sent before it */
	a->vpend = 0;
	if (r == NULL || r->deal != a->vpend_deal)
		;
	else if (r->kind == AU_PLAY && r->v[2] == a->vseat && r->v[5] >= 0)
		ms = r->v[5];
	else if ((r->kind == AU_BID || r->kind == AU_CALLED) &&
	    r->v[1] == a->vseat && r->v[4] >= 0)
		ms = r->v[4];
	else if (r->kind == AU_FAULT && r->v[0] == a->vseat && r->v[2] >= 0)
		ms = r->v[2];
	if (ms <= 0 || !show_wants(a, a->vpend_deal))
		return;
	fprintf(a->out, "%s\n", botproto_format(a->vpend_kind,
	    &a->vpend_view, (int)ms, buf, sizeof(buf)));
}

/* The walk is over: a move still asked was the seat's last line. */
void
show_seat_flush(struct au *a)
{
	if (a->out != NULL)
		view_pending(a, NULL);
}

/* What the seat is sent when a deal is dealt (after match_start once). */
static void
view_deal(struct au *a)
{
	struct bri_view	 v;
	const char	*names[BRI_MAXSEATS];
	char		 buf[BOTPROTO_MAXLINE];
	int		 i;

	if (!a->told_start) {
		for (i = 0; i < a->nseats; i++)
			names[i] = a->seat[i].bot;
		if (a->only_deal == 0)
			fprintf(a->out, "%s\n", botproto_match_start_text(buf,
			    sizeof(buf), a->id, a->variant, a->vseat, names,
			    a->nseats, a->commit, a->options));
		a->told_start = 1;
	}
	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_DEAL_START, &v, 0, buf,
	    sizeof(buf)));
	view_genplay(a);
}

/* What the seat is sent after a play, in refd's order, then genplay. */
static void
view_play(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_PLAY, &v, 0, buf, sizeof(buf)));
	if (a->ev.partner != BRI_NOSEAT)
		view_line(a, botproto_format(BOTMSG_PARTNER_IS, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.joker != BRI_NOSEAT)
		view_line(a, botproto_format(BOTMSG_JOKER, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.trick_done)
		view_line(a, botproto_format(BOTMSG_TRICK, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.ndraws > 0)
		view_line(a, botproto_format(BOTMSG_DRAW, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.stock_empty && bri_variant_info(a->opt.variant)->showpartner)
		view_line(a, botproto_format(BOTMSG_PARTNER, &v, 0, buf,
		    sizeof(buf)));
	if (a->ev.deal_over)
		view_line(a, botproto_format(BOTMSG_DEAL_END, &v, 0, buf,
		    sizeof(buf)));
	else
		view_genplay(a);
}

/* What the seat is sent after a call of the auction, then the next ask. */
static void
view_bid(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_BID, &v, 0, buf, sizeof(buf)));
	if (a->ev.deal_over)
		view_line(a, botproto_format(BOTMSG_DEAL_END, &v, 0, buf,
		    sizeof(buf)));
	else
		view_genplay(a);
}

/* What the seat is sent once the caller named the suit, then genplay. */
static void
view_called(struct au *a)
{
	struct bri_view	 v;
	char		 buf[BOTPROTO_MAXLINE];

	bri_view_build(&a->bm, a->vseat, &v);
	view_line(a, botproto_format(BOTMSG_CALLED, &v, 0, buf, sizeof(buf)));
	view_genplay(a);
}

/*
 * match_end, with the seed and the final link, unless the seat is the
 * one whose fault broke its connection (refd writes nothing more to it).
 */
static void
view_end(struct au *a)
{
	char	 buf[BOTPROTO_MAXLINE];

	if (a->only_deal != 0 || (a->forfeit_seat == a->vseat &&
	    strcmp(a->forfeit_kind, "timeout") != 0 &&
	    strcmp(a->forfeit_kind, "illegal") != 0 &&
	    strcmp(a->forfeit_kind, "refused") != 0))
		return;
	fprintf(a->out, "%s\n", botproto_match_end_text(buf, sizeof(buf),
	    a->result, a->bm.mpoints, a->nseats, au_option(a,
	    "seed_reveal=tournament") ? "-" : a->seedhex, a->final,
	    a->receipt[0] != '\0' ? a->receipt : NULL));
}

/*
 * refctl show --db FILE MATCH [--deal N] [--seat S]: the transcript of a
 * match for a dispute, or with --seat exactly the lines refd sent that
 * seat, rebuilt from its bri_view by botproto; exit 1 if the log fails
 * its audit on the way (the transcript stops there).
 */
int
cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "deal", required_argument, NULL, 'n' },
		{ "seat", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct au	*a;
	const char	*path = NULL, *errstr;
	long long	 id, deal = 0;
	int		 ch, seat = -1, r;

	optind = 0;	/* glibc: start afresh, permuting again */
	while ((ch = getopt_long(argc, argv, "d:n:s:", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			path = optarg;
			break;
		case 'n':
			if ((deal = au_id(optarg)) < 0)
				goto usage;
			break;
		case 's':
			seat = (int)util_num(optarg, 0, BRI_MAXSEATS - 1,
			    &errstr);
			if (errstr != NULL)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (path == NULL || optind != argc - 1 || (id = au_id(argv[optind])) <
	    0)
		goto usage;
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		fprintf(stderr, "refctl show: out of memory\n");
		return 2;
	}
	if (au_open(path, &a->h) == -1) {
		free(a);
		return 2;
	}
	a->mode = seat >= 0 ? AU_VIEW : AU_SHOW;
	if (seat >= 0)
		a->on_row = show_seat_row;
	else {
		a->on_start = show_header;
		a->on_row = show_row;
	}
	a->vseat = seat;
	a->only_deal = deal;
	a->out = stdout;
	r = au_match(a, id);
	if (a->mode == AU_VIEW)
		show_seat_flush(a);
	if (r == 1 && a->noseat) {
		fprintf(stderr, "refctl show: %s\n", a->err);
		r = 4;
	} else if (r == 0 && a->mode == AU_SHOW)
		printf("\naudit: verified, %d complete deal%s, %lld plays, "
		    "chain ok to link %lld\n", a->ndone, a->ndone == 1 ? "" :
		    "s", a->nplays, a->links);
	else if (r == 1) {
		fflush(stdout);
		if (a->mode == AU_SHOW)
			printf("\naudit: match %lld FAILED: %s\n", id, a->err);
		else
			fprintf(stderr, "refctl show: match %lld FAILED: %s\n",
			    id, a->err);
	} else if (r == 3)
		fprintf(stderr, "refctl show: no match %lld in the log\n", id);
	sqlite3_close(a->h);
	free(a);
	/* as the other offline tools: a match not in the log is 1 */
	return r == 0 ? 0 : r == 1 || r == 3 ? 1 : 2;
usage:
	fprintf(stderr, "usage: refctl show --db FILE MATCH [--deal N] "
	    "[--seat S]\n");
	return 2;
}
