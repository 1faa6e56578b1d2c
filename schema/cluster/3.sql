-- schema/cluster/3.sql: a decision never comes before a result it
-- raced.
--
-- refd.report() holds its lease's row while it takes a result, and it
-- started before a refd.decide() that marked the tournament over first
-- and cancelled the leases after: the result went in under a lease
-- that was still active, but with a time after the tournament's end.
-- decide() now takes the active leases first, so a report under way
-- ends before it and one that comes after finds its lease cancelled,
-- and it dates the end when it has them (clock_timestamp(), not the
-- transaction's start).

CREATE OR REPLACE FUNCTION refd.decide(p_tid bigint, p_reason text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	n	integer;
BEGIN
	IF p_reason IS NULL OR p_reason !~ '^SPRT: ' OR
	    length(p_reason) > 400 THEN
		RAISE EXCEPTION 'a decision is the SPRT''s';
	END IF;
	PERFORM 1 FROM refd.leases WHERE tid = p_tid AND state = 'active'
	    ORDER BY id FOR UPDATE;
	UPDATE refd.tournaments SET state = 'done', reason = p_reason,
	    ended = clock_timestamp(),
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
