-- schema/cluster/5.sql: each result carries its match's thinking times
-- (tstand_times_record()), so that status, standings and export give
-- the time report one machine gives, summed exactly from the rows: per
-- seat its time-outs and every time its chosen cards took, with how
-- many took it ("t1 TIMEOUTS/MS*N,MS*N... ..." a seat after another).
-- refd.report() takes them as its eighth argument and refuses, with an
-- exception saying why, thinking times that are too long, malformed,
-- out of order, or not one group per seat of the slot.  Results
-- reported before have none: the time report is left out while any
-- counted result lacks them.

ALTER TABLE refd.results ADD COLUMN times text
    CHECK (length(times) <= 65536);

DROP FUNCTION refd.report(bigint, integer, bigint, text, bigint, text, text);

CREATE FUNCTION refd.report(p_lease bigint, p_slot integer,
    p_match bigint, p_record text, p_head_no bigint, p_head text,
    p_sig text, p_times text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	l	refd.leases;
	r	refd.results;
	s	refd.slots;
	why	text;
	grp	text;
	pair	text;
	prev	integer;
	v	integer;
	seats	integer := 0;
BEGIN
	SELECT * INTO l FROM refd.leases WHERE id = p_lease FOR UPDATE;
	IF NOT FOUND OR l.worker <> me THEN
		RAISE EXCEPTION 'worker % holds no lease %', me, p_lease;
	END IF;
	IF length(p_record) > 65536 THEN
		RAISE EXCEPTION 'a record is at most 65536 bytes';
	END IF;
	-- the thinking times: bounded, well formed, in ascending order
	IF p_times IS NULL THEN
		RAISE EXCEPTION 'slot %: no thinking times', p_slot;
	END IF;
	IF length(p_times) > 65536 THEN
		RAISE EXCEPTION 'slot %: thinking times are at most 65536 bytes',
		    p_slot;
	END IF;
	IF p_times !~ ('^t1( [0-9]{1,7}/([0-9]{1,8}\*[0-9]{1,7}'
	    '(,[0-9]{1,8}\*[0-9]{1,7})*)?)+$') THEN
		RAISE EXCEPTION 'slot %: malformed thinking times', p_slot;
	END IF;
	FOREACH grp IN ARRAY string_to_array(substr(p_times, 4), ' ') LOOP
		seats := seats + 1;
		prev := -1;
		IF split_part(grp, '/', 2) <> '' THEN
			FOREACH pair IN ARRAY string_to_array(split_part(grp,
			    '/', 2), ',') LOOP
				v := split_part(pair, '*', 1)::integer;
				IF v <= prev OR v > 86400000 OR split_part(pair,
				    '*', 2)::integer NOT BETWEEN 1 AND 1000000
				    THEN
					RAISE EXCEPTION 'slot %: thinking times '
					    'of seat % not in ascending order, '
					    'or out of range', p_slot,
					    seats - 1;
				END IF;
				prev := v;
			END LOOP;
		END IF;
		IF split_part(grp, '/', 1)::integer > 1000000 THEN
			RAISE EXCEPTION 'slot %: malformed thinking times '
			    '(time-outs of seat %)', p_slot, seats - 1;
		END IF;
	END LOOP;
	UPDATE refd.workers SET heard = now() WHERE name = me;
	SELECT * INTO r FROM refd.results WHERE tid = l.tid AND slot = p_slot;
	IF FOUND THEN
		IF r.lease = p_lease AND r.match_id = p_match THEN
			RETURN 'ok';
		END IF;
		why := format('slot %s was played under lease %s', p_slot,
		    r.lease);
	ELSIF l.state <> 'active' THEN
		why := format('lease %s is %s', p_lease, l.state);
	ELSIF l.expires <= clock_timestamp() THEN
		why := format('lease %s expired', p_lease);
	ELSE
		SELECT * INTO s FROM refd.slots WHERE tid = l.tid AND
		    slot = p_slot FOR UPDATE;
		IF NOT FOUND OR s.lease IS DISTINCT FROM p_lease OR s.done THEN
			why := format('slot %s is not of lease %s', p_slot,
			    p_lease);
		ELSIF seats <> array_length(string_to_array(s.bots, ','), 1)
		    THEN
			RAISE EXCEPTION 'slot %: thinking times of % seats, '
			    'one per seat: %', p_slot, seats,
			    array_length(string_to_array(s.bots, ','), 1);
		END IF;
	END IF;
	IF why IS NOT NULL THEN
		INSERT INTO refd.refused (tid, slot, lease, worker, why)
		    VALUES (l.tid, p_slot, p_lease, me, why);
		RETURN 'refused: ' || why;
	END IF;
	INSERT INTO refd.results (tid, slot, lease, worker, match_id, record,
	    head_no, head, sig, times) VALUES (l.tid, p_slot, p_lease, me,
	    p_match, p_record, p_head_no, p_head, p_sig, p_times);
	UPDATE refd.slots SET done = true WHERE tid = l.tid AND slot = p_slot;
	IF NOT EXISTS (SELECT 1 FROM refd.slots WHERE lease = p_lease AND
	    NOT done) THEN
		UPDATE refd.leases SET state = 'done' WHERE id = p_lease;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM refd.slots WHERE tid = l.tid AND
	    NOT done) THEN
		UPDATE refd.tournaments SET state = 'done',
		    reason = 'every match played', ended = now(),
		    seed = (SELECT seed FROM refd.secrets WHERE tid = l.tid)
		    WHERE id = l.tid AND state = 'running';
	END IF;
	RETURN 'ok';
END
$$;

REVOKE EXECUTE ON FUNCTION refd.report(bigint, integer, bigint, text, bigint,
    text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION refd.report(bigint, integer, bigint, text, bigint,
    text, text, text) TO refd_worker;
