-- schema/cluster/1.sql: the cluster's coordinator in PostgreSQL
-- (refd-cluster(7)).  Everything lives in schema refd.  A worker's role
-- is a member of refd_worker and may only call the functions granted to
-- it below, each SECURITY DEFINER: it reads no table, learns a slot's
-- seed only by leasing it, and writes results only of its own current
-- leases.  A result is keyed by its slot and fenced by its lease: it is
-- taken only while that lease is current, and a report resent after a
-- lost answer is taken once.

CREATE SCHEMA refd;
REVOKE ALL ON SCHEMA refd FROM PUBLIC;

CREATE TABLE refd.meta (version integer NOT NULL);
INSERT INTO refd.meta VALUES (0);

CREATE TABLE refd.workers (
	name		text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.-]{1,32}$'),
	role		name UNIQUE NOT NULL,
	pubkey		text CHECK (pubkey ~ '^[0-9a-f]{64}$'),
	added		timestamptz NOT NULL DEFAULT now(),
	heard		timestamptz
);

-- A tournament as submitted: its definition without its seed lines, the
-- master seed's commitment, and the seed itself once it has ended.
CREATE TABLE refd.tournaments (
	id		bigserial PRIMARY KEY,
	name		text UNIQUE NOT NULL,
	definition	text NOT NULL,
	commitment	text NOT NULL,
	seed		text,
	nslots		integer NOT NULL CHECK (nslots > 0),
	lease_ms	integer NOT NULL CHECK (lease_ms BETWEEN 400 AND 3600000),
	state		text NOT NULL DEFAULT 'running'
			    CHECK (state IN ('running', 'done', 'stopped')),
	reason		text,
	submitted	timestamptz NOT NULL DEFAULT now(),
	ended		timestamptz
);
CREATE TABLE refd.secrets (
	tid		bigint PRIMARY KEY REFERENCES refd.tournaments,
	seed		text NOT NULL
);
-- Each participant's identity: its argv's hash and its program's.
CREATE TABLE refd.bots (
	tid		bigint REFERENCES refd.tournaments,
	idx		integer,
	name		text NOT NULL,
	ident		text NOT NULL,
	PRIMARY KEY (tid, idx)
);
-- Every slot of the schedule; a unit (a duplicate set, else the slot
-- alone) is leased whole.
CREATE TABLE refd.slots (
	tid		bigint REFERENCES refd.tournaments,
	slot		integer,
	unit		integer NOT NULL,
	bots		text NOT NULL,
	seed		text NOT NULL,
	lease		bigint,
	done		boolean NOT NULL DEFAULT false,
	PRIMARY KEY (tid, slot)
);
CREATE INDEX slots_free ON refd.slots (tid, unit) WHERE NOT done;
CREATE INDEX slots_lease ON refd.slots (lease) WHERE lease IS NOT NULL;
CREATE TABLE refd.leases (
	id		bigserial PRIMARY KEY,
	tid		bigint NOT NULL REFERENCES refd.tournaments,
	worker		text NOT NULL REFERENCES refd.workers,
	state		text NOT NULL DEFAULT 'active' CHECK (state IN
			    ('active', 'done', 'expired', 'cancelled')),
	taken		timestamptz NOT NULL DEFAULT now(),
	expires		timestamptz NOT NULL
);
CREATE INDEX leases_active ON refd.leases (tid, expires)
    WHERE state = 'active';
CREATE TABLE refd.results (
	tid		bigint,
	slot		integer,
	lease		bigint NOT NULL REFERENCES refd.leases,
	worker		text NOT NULL REFERENCES refd.workers,
	match_id	bigint NOT NULL CHECK (match_id > 0),
	record		text NOT NULL,
	head_no		bigint NOT NULL,
	head		text NOT NULL CHECK (head ~ '^[0-9a-f]{64}$'),
	sig		text NOT NULL CHECK (sig ~ '^[0-9a-f]{128}$'),
	reported	timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tid, slot),
	FOREIGN KEY (tid, slot) REFERENCES refd.slots
);
-- Reports refused, and why: a late lease, a slot played already.
CREATE TABLE refd.refused (
	id		bigserial PRIMARY KEY,
	tid		bigint,
	slot		integer,
	lease		bigint,
	worker		text,
	why		text NOT NULL,
	at		timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'refd_worker')
	THEN
		CREATE ROLE refd_worker NOLOGIN;
	END IF;
END
$$;
GRANT USAGE ON SCHEMA refd TO refd_worker;

-- The worker calling: the one whose role logged in.
CREATE FUNCTION refd.me() RETURNS text LANGUAGE plpgsql STABLE
SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	w	text;
BEGIN
	SELECT name INTO w FROM refd.workers WHERE role = session_user;
	IF w IS NULL THEN
		RAISE EXCEPTION 'role % is no refd worker', session_user;
	END IF;
	RETURN w;
END
$$;

-- A worker says who it is, and registers its key the first time.
CREATE FUNCTION refd.hello(p_name text, p_key text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	w	refd.workers;
BEGIN
	SELECT * INTO w FROM refd.workers WHERE role = session_user
	    FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'role % is no refd worker', session_user;
	END IF;
	IF w.name <> p_name THEN
		RAISE EXCEPTION 'this role is worker %, not %', w.name, p_name;
	END IF;
	IF p_key IS NULL OR p_key !~ '^[0-9a-f]{64}$' THEN
		RAISE EXCEPTION 'a key is 64 hex digits';
	END IF;
	IF w.pubkey IS NOT NULL AND w.pubkey <> p_key THEN
		RAISE EXCEPTION 'worker % registered another key', w.name;
	END IF;
	UPDATE refd.workers SET pubkey = p_key, heard = now()
	    WHERE name = w.name;
	RETURN w.name;
END
$$;

-- The running tournaments: definition (no seed), lease time, and the
-- participants' identities, "name=ident ..." in participant order.
CREATE FUNCTION refd.work() RETURNS TABLE (w_tid bigint, w_def text,
    w_lease_ms integer, w_idents text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = refd, pg_temp
AS $$
BEGIN
	PERFORM refd.me();
	RETURN QUERY SELECT t.id, t.definition, t.lease_ms,
	    (SELECT string_agg(b.name || '=' || b.ident, ' ' ORDER BY b.idx)
	    FROM refd.bots b WHERE b.tid = t.id)
	    FROM refd.tournaments t WHERE t.state = 'running' ORDER BY t.id;
END
$$;

-- Free the slots of tid's leases past their time.  A lease is taken
-- back only while it is still the expired one: the lease row is locked
-- by a report or a heartbeat under way, and re-read after.
CREATE FUNCTION refd.reclaim(p_tid bigint) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	lid	bigint;
	n	integer := 0;
BEGIN
	FOR lid IN UPDATE refd.leases SET state = 'expired'
	    WHERE tid = p_tid AND state = 'active'
	    AND expires < clock_timestamp() RETURNING id LOOP
		UPDATE refd.slots SET lease = NULL
		    WHERE tid = p_tid AND lease = lid AND NOT done;
		n := n + 1;
	END LOOP;
	RETURN n;
END
$$;

-- Lease up to p_max slots of tid (whole units, at least one), if the
-- worker's bots are the submission's.  Returns each slot with its seed
-- and its participants by seat.
CREATE FUNCTION refd.lease(p_tid bigint, p_idents text, p_max integer)
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

-- The worker is alive: its current leases last lease_ms more.  Returns
-- each lease asked about with its state: active (extended), or expired,
-- cancelled or done, when its matches are to stop.
CREATE FUNCTION refd.heartbeat(p_leases bigint[])
RETURNS TABLE (h_lease bigint, h_state text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
BEGIN
	UPDATE refd.workers SET heard = now() WHERE name = me;
	UPDATE refd.leases l SET expires = clock_timestamp() +
	    t.lease_ms * interval '1 millisecond' FROM refd.tournaments t
	    WHERE l.id = ANY (p_leases) AND l.worker = me AND
	    l.state = 'active' AND l.expires > clock_timestamp() AND
	    t.id = l.tid AND t.state = 'running';
	RETURN QUERY SELECT l.id, CASE WHEN l.state = 'active' AND
	    l.expires <= clock_timestamp() THEN 'expired' ELSE l.state END
	    FROM refd.leases l WHERE l.id = ANY (p_leases) AND l.worker = me
	    ORDER BY l.id;
END
$$;

-- A slot's result under its lease.  'ok' when taken, or when the same
-- report was taken before (an answer lost, the report resent); else
-- 'refused: why', and the refusal is kept.
CREATE FUNCTION refd.report(p_lease bigint, p_slot integer,
    p_match bigint, p_record text, p_head_no bigint, p_head text,
    p_sig text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = refd, pg_temp AS $$
DECLARE
	me	text := refd.me();
	l	refd.leases;
	r	refd.results;
	s	refd.slots;
	why	text;
BEGIN
	SELECT * INTO l FROM refd.leases WHERE id = p_lease FOR UPDATE;
	IF NOT FOUND OR l.worker <> me THEN
		RAISE EXCEPTION 'worker % holds no lease %', me, p_lease;
	END IF;
	IF length(p_record) > 65536 THEN
		RAISE EXCEPTION 'a record is at most 65536 bytes';
	END IF;
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
		END IF;
	END IF;
	IF why IS NOT NULL THEN
		INSERT INTO refd.refused (tid, slot, lease, worker, why)
		    VALUES (l.tid, p_slot, p_lease, me, why);
		RETURN 'refused: ' || why;
	END IF;
	INSERT INTO refd.results (tid, slot, lease, worker, match_id, record,
	    head_no, head, sig) VALUES (l.tid, p_slot, p_lease, me, p_match,
	    p_record, p_head_no, p_head, p_sig);
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

REVOKE ALL ON ALL TABLES IN SCHEMA refd FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA refd FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA refd FROM PUBLIC;
GRANT EXECUTE ON FUNCTION refd.hello(text, text), refd.work(),
    refd.lease(bigint, text, integer), refd.heartbeat(bigint[]),
    refd.report(bigint, integer, bigint, text, bigint, text, text)
    TO refd_worker;
