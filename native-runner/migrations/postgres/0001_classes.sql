-- Version 1 of the hub's database: classes, their rows, the events the live views follow,
-- the class creations an address made (kept only while the rate limit counts them), and
-- the functions that write, each one statement so that a submission is one round trip and
-- one commit.

CREATE TABLE class (
    id bigserial PRIMARY KEY,
    code text NOT NULL UNIQUE,
    key text NOT NULL,
    created timestamptz NOT NULL DEFAULT now(),
    closed_at timestamptz
);
CREATE INDEX class_open ON class (created) WHERE closed_at IS NULL;
CREATE INDEX class_closed ON class (closed_at) WHERE closed_at IS NOT NULL;

CREATE TABLE run (
    class bigint NOT NULL REFERENCES class (id) ON DELETE CASCADE,
    student text NOT NULL,
    nickname text NOT NULL,
    digest text NOT NULL,
    received_ms bigint NOT NULL,
    event bigint NOT NULL,
    PRIMARY KEY (class, student)
);

CREATE TABLE event (
    id bigserial PRIMARY KEY,
    class bigint NOT NULL REFERENCES class (id) ON DELETE CASCADE,
    kind text NOT NULL,
    student text NOT NULL,
    at_ms bigint NOT NULL
);
CREATE INDEX event_class ON event (class, id);

CREATE TABLE creation (
    address inet NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX creation_address ON creation (address, at);

-- Every write locks its class's row first: the events of one class are then numbered in
-- the order they commit, which is the order NOTIFY tells them, so a live view that keeps
-- the last id it showed misses none.
CREATE FUNCTION ticklab_event(p_class bigint, p_kind text, p_student text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    ev bigint;
BEGIN
    INSERT INTO event (class, kind, student, at_ms)
    VALUES (p_class, p_kind, p_student, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    RETURNING id INTO ev;
    PERFORM pg_notify('ticklab_changes', p_class || ' ' || ev);
    RETURN ev;
END $$;

-- A submission: its event id and when it arrived, or why not ('closed', 'full', 'gone').
CREATE FUNCTION ticklab_put(p_class bigint, p_student text, p_nickname text, p_digest text,
                            p_most bigint, p_open_for interval,
                            OUT event bigint, OUT received_ms bigint, OUT refusal text)
LANGUAGE plpgsql AS $$
DECLARE
    c class%ROWTYPE;
BEGIN
    SELECT * INTO c FROM class WHERE id = p_class FOR UPDATE;
    IF NOT FOUND THEN
        refusal := 'gone';
        RETURN;
    END IF;
    IF c.closed_at IS NOT NULL OR c.created < now() - p_open_for THEN
        refusal := 'closed';
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM run WHERE class = p_class AND student = p_student)
       AND (SELECT count(*) FROM run WHERE class = p_class) >= p_most THEN
        refusal := 'full';
        RETURN;
    END IF;
    event := ticklab_event(p_class, 'put', p_student);
    received_ms := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    INSERT INTO run (class, student, nickname, digest, received_ms, event)
    VALUES (p_class, p_student, p_nickname, p_digest, received_ms, event)
    ON CONFLICT (class, student) DO UPDATE
        SET nickname = excluded.nickname, digest = excluded.digest,
            received_ms = excluded.received_ms, event = excluded.event;
END $$;

-- A removal: its event id, or null when the student had no row.
CREATE FUNCTION ticklab_remove(p_class bigint, p_student text) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM class WHERE id = p_class FOR UPDATE;
    DELETE FROM run WHERE class = p_class AND student = p_student;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN ticklab_event(p_class, 'remove', p_student);
END $$;

-- A close: its event id.
CREATE FUNCTION ticklab_close(p_class bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE class SET closed_at = coalesce(closed_at, now()) WHERE id = p_class;
    RETURN ticklab_event(p_class, 'close', '');
END $$;

-- A class made for an address, unless it made `p_most` within `p_window`: the class's id,
-- or null. The address's older creations are forgotten here.
CREATE FUNCTION ticklab_create(p_code text, p_key text, p_address inet, p_most bigint,
                               p_window interval) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    made bigint;
BEGIN
    -- One address's creations are counted one at a time, across every instance.
    PERFORM pg_advisory_xact_lock(hashtext(host(p_address)));
    DELETE FROM creation WHERE address = p_address AND at < now() - p_window;
    IF (SELECT count(*) FROM creation WHERE address = p_address) >= p_most THEN
        RETURN NULL;
    END IF;
    INSERT INTO creation (address) VALUES (p_address);
    INSERT INTO class (code, key) VALUES (p_code, p_key) RETURNING class.id INTO made;
    RETURN made;
END $$;

-- The day's work: classes open longer than `p_open_for` closed (their views told), those
-- closed longer than `p_keep` deleted with their rows, creations older than `p_window`
-- forgotten. How many closed and deleted.
CREATE FUNCTION ticklab_sweep(p_open_for interval, p_keep interval, p_window interval,
                              OUT closed bigint, OUT deleted bigint)
LANGUAGE plpgsql AS $$
DECLARE
    c bigint;
BEGIN
    closed := 0;
    FOR c IN SELECT id FROM class WHERE closed_at IS NULL AND created < now() - p_open_for
             FOR UPDATE SKIP LOCKED LOOP
        UPDATE class SET closed_at = now() WHERE id = c;
        PERFORM ticklab_event(c, 'close', '');
        closed := closed + 1;
    END LOOP;
    DELETE FROM class WHERE closed_at < now() - p_keep;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    DELETE FROM creation WHERE at < now() - p_window;
END $$;
