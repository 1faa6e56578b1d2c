-- schema/cluster/4.sql: a decision held to the results it says it
-- read, and leases that do not wait on one another.
--
-- refd.decide() took a worker's word for the SPRT.  The reason names
-- how many units (sets, else matches) the test read, in schedule order;
-- it is now refused unless that many units, the first ones, all have
-- their results.  Whether their results support the verdict is the
-- SPRT's own arithmetic, which refctl does from the rows (cluster status
-- and audit): the worker that decided is kept in decided_by, so that an
-- audit that finds the verdict unsupported names it.
--
-- refd.lease() took one advisory lock per tournament and held it to its
-- commit: every lease of a tournament waited for the one before it and
-- its WAL flush.  It now takes a lock per unit (a duplicate set, else
-- the slot), tried and never waited for: two workers leasing at once
-- take different units, and each commits alone.  A unit leased and
-- committed since the look began is found taken by the UPDATE, which
-- re-reads the row, and skipped.  The free units are read in order from
-- the index, without sorting them all at each call.

ALTER TABLE refd.tournaments ADD COLUMN decided_by text;

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
	UPDATE refd.tournaments SET state = 'done', reason = p_reason,
	    ended = clock_timestamp(), decided_by = me,
	    seed = (SELECT seed FROM refd.secrets WHERE tid = p_tid)
	    WHERE id = p_tid;
	UPDATE refd.leases SET state = 'cancelled'
	    WHERE tid = p_tid AND state = 'active';
	INSERT INTO refd.refused (tid, worker, why) VALUES (p_tid, me,
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
	IF n = 0 THEN
		DELETE FROM refd.leases WHERE id = lid;
		RETURN;
	END IF;
	RETURN QUERY SELECT lid, s.slot, s.seed, s.bots FROM refd.slots s
	    WHERE s.tid = p_tid AND s.lease = lid ORDER BY s.slot;
END
$$;
