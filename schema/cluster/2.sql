-- schema/cluster/2.sql: a gauntlet's SPRT over the cluster, and no new
-- slots for a worker not heard for two heartbeats.
--
-- refd.records() gives any worker the results so far, in schedule
-- order, so that it carries the SPRT as one refd does (tstand.c); a
-- worker that sees it decide calls refd.decide(), which ends the
-- tournament, reveals its seed and cancels every lease still active:
-- their workers hear it at their next heartbeat and stop.  The verdict
-- is the workers' word: refctl cluster status and audit recompute it
-- from the rows, and say so if it differs.
--
-- refd.lease() refuses a worker whose current lease has gone two
-- heartbeats (half its time) without one: it is heard again first (a
-- heartbeat renews it), or the lease runs out and is taken back.

CREATE FUNCTION refd.records(p_tid bigint, p_from integer)
RETURNS TABLE (r_slot integer, r_record text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = refd, pg_temp
AS $$
BEGIN
	PERFORM refd.me();
	RETURN QUERY SELECT r.slot, r.record FROM refd.results r
	    WHERE r.tid = p_tid AND r.slot >= p_from ORDER BY r.slot;
END
$$;

CREATE FUNCTION refd.decide(p_tid bigint, p_reason text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	n	integer;
BEGIN
	IF p_reason IS NULL OR p_reason !~ '^SPRT: ' OR
	    length(p_reason) > 400 THEN
		RAISE EXCEPTION 'a decision is the SPRT''s';
	END IF;
	UPDATE refd.tournaments SET state = 'done', reason = p_reason,
	    ended = now(),
	    seed = (SELECT seed FROM refd.secrets WHERE tid = p_tid)
	    WHERE id = p_tid AND state = 'running' AND definition ~
	    '(^|\n)[ \t]*sprt[ \t]';
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 0 THEN
		RETURN 'over already';
	END IF;
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
	k	integer;
	n	integer := 0;
BEGIN
	PERFORM pg_advisory_xact_lock(p_tid);
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
	FOR u IN SELECT DISTINCT s.unit FROM refd.slots s WHERE s.tid = p_tid
	    AND NOT s.done AND s.lease IS NULL ORDER BY s.unit
	    LIMIT greatest(p_max, 1) LOOP
		EXIT WHEN n >= greatest(p_max, 1);
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

REVOKE EXECUTE ON FUNCTION refd.records(bigint, integer),
    refd.decide(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION refd.records(bigint, integer),
    refd.decide(bigint, text) TO refd_worker;
