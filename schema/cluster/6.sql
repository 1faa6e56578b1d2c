-- schema/cluster/6.sql: an SPRT's verdict needs a second worker's word
-- once more than one worker's results are in it.
--
-- refd.decide() held a decision to the units it said it read, but not
-- to the verdict: a worker that gave the right count with a false
-- verdict ended the tournament, and was only named afterwards.  A
-- worker that reported every result so far is still taken at its word:
-- its verdict can be no falser than its results.  Otherwise the
-- decision is a proposal, kept in refd.proposals, and the tournament
-- plays on until a second worker proposes the very same verdict (every
-- worker carries the SPRT over the same results in schedule order, so
-- honest ones agree word for word); a lone liar never ends it, and a
-- tournament whose other workers are gone plays to its last slot.
--
-- refd.lease() read the tournament's state without a lock: a lease made
-- while a decision was being committed outlived it, and its results
-- came in after the tournament's end.  It now takes the row FOR SHARE
-- once its slots are chosen, after refd.decide()'s commit if one is
-- under way, and gives the slots back if the tournament is over.  Last,
-- so that it takes its locks in the order report() and decide() do:
-- leases, then the tournament.

CREATE TABLE refd.proposals (
	tid	bigint NOT NULL REFERENCES refd.tournaments,
	worker	text NOT NULL REFERENCES refd.workers,
	reason	text NOT NULL CHECK (length(reason) <= 400),
	made	timestamptz NOT NULL DEFAULT clock_timestamp(),
	PRIMARY KEY (tid, worker)
);

CREATE OR REPLACE FUNCTION refd.decide(p_tid bigint, p_reason text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	m	integer;
	t	refd.tournaments;
	have	integer;
	first	integer;
	why	text;
	others	integer;
	second	text;
BEGIN
	IF p_reason IS NULL OR length(p_reason) > 400 OR p_reason !~
	    '^SPRT: H[01] accepted \(.*, [0-9]{1,9} (sets|matches), games ' THEN
		RAISE EXCEPTION 'a decision is the SPRT''s, with the units it '
		    'read';
	END IF;
	m := (regexp_match(p_reason, ', ([0-9]{1,9}) (sets|matches), '
	    'games '))[1]::integer;
	PERFORM 1 FROM refd.leases WHERE tid = p_tid AND state = 'active'
	    ORDER BY id FOR UPDATE;
	SELECT * INTO t FROM refd.tournaments WHERE id = p_tid FOR UPDATE;
	IF NOT FOUND OR t.state <> 'running' THEN
		RETURN 'over already';
	END IF;
	IF t.definition !~ '(^|\n)[ \t]*sprt[ \t]' THEN
		why := 'the tournament has no SPRT';
	ELSE
		-- the units before the first one not played: the SPRT's
		-- prefix, all it can have read
		SELECT min(s.unit) INTO first FROM refd.slots s
		    WHERE s.tid = p_tid AND NOT s.done;
		SELECT count(DISTINCT s.unit) INTO have FROM refd.slots s
		    WHERE s.tid = p_tid AND (first IS NULL OR s.unit < first);
		IF m < 1 OR have < m THEN
			why := format('the SPRT cannot have read %s units: '
			    'the results hold %s in schedule order', m, have);
		END IF;
	END IF;
	IF why IS NOT NULL THEN
		INSERT INTO refd.refused (tid, worker, why) VALUES (p_tid, me,
		    'decision of worker ' || me || ' refused: ' || why);
		RETURN 'refused: ' || why;
	END IF;
	-- results of any worker but this one: its word alone is not enough
	SELECT count(*) INTO others FROM refd.results
	    WHERE tid = p_tid AND worker <> me;
	IF others > 0 THEN
		INSERT INTO refd.proposals (tid, worker, reason)
		    VALUES (p_tid, me, p_reason)
		    ON CONFLICT (tid, worker) DO UPDATE
		    SET reason = EXCLUDED.reason, made = clock_timestamp();
		SELECT worker INTO second FROM refd.proposals
		    WHERE tid = p_tid AND worker <> me AND reason = p_reason
		    ORDER BY made LIMIT 1;
		IF second IS NULL THEN
			INSERT INTO refd.refused (tid, worker, why) VALUES
			    (p_tid, me, 'proposed by worker ' || me ||
			    ', awaiting a second worker: ' || p_reason);
			RETURN 'proposed: awaiting a second worker';
		END IF;
		me := second || ',' || me;
	END IF;
	UPDATE refd.tournaments SET state = 'done', reason = p_reason,
	    ended = clock_timestamp(), decided_by = me,
	    seed = (SELECT seed FROM refd.secrets WHERE tid = p_tid)
	    WHERE id = p_tid;
	UPDATE refd.leases SET state = 'cancelled'
	    WHERE tid = p_tid AND state = 'active';
	INSERT INTO refd.refused (tid, worker, why) VALUES (p_tid, refd.me(),
	    'decided by worker ' || me || ': ' || p_reason);
	RETURN 'ok';
END
$$;

CREATE OR REPLACE FUNCTION refd.lease(p_tid bigint, p_idents text,
    p_max integer)
RETURNS TABLE (l_lease bigint, l_slot integer, l_seed text, l_bots text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	t	refd.tournaments;
	want	text;
	lid	bigint;
	u	integer;
	last	integer;
	k	integer;
	n	integer := 0;
BEGIN
	SELECT * INTO t FROM refd.tournaments WHERE id = p_tid;
	IF NOT FOUND OR t.state <> 'running' THEN
		RETURN;
	END IF;
	SELECT string_agg(b.name || '=' || b.ident, ' ' ORDER BY b.idx)
	    INTO want FROM refd.bots b WHERE b.tid = p_tid;
	IF p_idents IS DISTINCT FROM want THEN
		RAISE EXCEPTION 'tournament %: the bots differ from the '
		    'submission''s', p_tid;
	END IF;
	IF EXISTS (SELECT 1 FROM refd.leases l JOIN refd.tournaments x ON
	    x.id = l.tid WHERE l.worker = me AND l.state = 'active' AND
	    l.expires > clock_timestamp() AND l.expires - clock_timestamp() <
	    x.lease_ms / 2 * interval '1 millisecond') THEN
		RAISE EXCEPTION 'worker % missed two heartbeats: heard again '
		    'first', me;
	END IF;
	UPDATE refd.workers SET heard = now() WHERE name = me;
	PERFORM refd.reclaim(p_tid);
	INSERT INTO refd.leases (tid, worker, expires) VALUES (p_tid, me,
	    clock_timestamp() + t.lease_ms * interval '1 millisecond')
	    RETURNING id INTO lid;
	FOR u IN SELECT s.unit FROM refd.slots s WHERE s.tid = p_tid AND
	    NOT s.done AND s.lease IS NULL ORDER BY s.unit LOOP
		EXIT WHEN n >= greatest(p_max, 1);
		CONTINUE WHEN u IS NOT DISTINCT FROM last;
		last := u;
		CONTINUE WHEN NOT pg_try_advisory_xact_lock(
		    (p_tid % 2147483647)::integer, u);
		UPDATE refd.slots s SET lease = lid WHERE s.tid = p_tid AND
		    s.unit = u AND NOT s.done AND s.lease IS NULL;
		GET DIAGNOSTICS k = ROW_COUNT;
		n := n + k;
	END LOOP;
	-- a decision committed meanwhile ends the tournament under us
	PERFORM 1 FROM refd.tournaments WHERE id = p_tid AND
	    state = 'running' FOR SHARE;
	IF n = 0 OR NOT FOUND THEN
		UPDATE refd.slots SET lease = NULL WHERE tid = p_tid AND
		    lease = lid;
		DELETE FROM refd.leases WHERE id = lid;
		RETURN;
	END IF;
	RETURN QUERY SELECT lid, s.slot, s.seed, s.bots FROM refd.slots s
	    WHERE s.tid = p_tid AND s.lease = lid ORDER BY s.slot;
END
$$;
