-- schema/cluster/4.sql: a decision held to the results it says it
-- read.
--
-- refd.decide() took a worker's word for the SPRT.  The reason names
-- how many units (sets, else matches) the test read, in schedule order;
-- it is now refused unless that many units, the first ones, all have
-- their results.  Whether their results support the verdict is the
-- SPRT's own arithmetic, which refctl does from the rows (cluster status
-- and audit): the worker that decided is kept in decided_by, so that an
-- audit that finds the verdict unsupported names it.

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
