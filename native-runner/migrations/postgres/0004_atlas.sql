-- Version 4: the atlas. Runs their owners chose to add, reduced to what the atlas takes
-- (engine and major version, OS family, isolation, a bucket of CPUs, a native CPU's family,
-- each clock's tick, read cost and verdict), kept raw for the hub's set number of days; and
-- the cells' figures, kept. A run's transaction touches no row another sender's does (its
-- cell is looked up, its sender's row and its own rows written), so runs commit side by
-- side however popular their cell; the figures are brought up to date from a queue of new
-- runs, a batch at a time, by one instance at a time (ticklab_atlas_roll), so reading the
-- atlas never reads the raw runs.
--
-- A sender is never kept as an address: only as the SHA-256 of a secret salt (drawn here,
-- once, kept in the database) and the address (an IPv6 /64's first), and only as long as
-- the one-a-cell-a-day rule needs it.

CREATE TABLE atlas_salt (salt text NOT NULL);
INSERT INTO atlas_salt VALUES (gen_random_uuid()::text || gen_random_uuid()::text);

CREATE FUNCTION ticklab_sender(p_address inet) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT encode(sha256(convert_to((SELECT salt FROM atlas_salt) || host(p_address), 'UTF8')), 'hex')
$$;

-- A cell: '' stands for "none" in its key's text columns and 0 for no version, so that
-- the key is unique as written. Its counts change with every run, and no index names
-- them: with room left on each page (fillfactor), an update stays on its page (HOT) and
-- leaves no index entry behind. So for the figures' tables.
CREATE TABLE atlas_cell (
    id bigserial PRIMARY KEY,
    engine text NOT NULL,
    version integer NOT NULL,
    os text NOT NULL,
    isolated text NOT NULL,
    cpu_family text NOT NULL,
    senders bigint NOT NULL DEFAULT 0,
    runs bigint NOT NULL DEFAULT 0,
    UNIQUE (engine, version, os, isolated, cpu_family)
) WITH (fillfactor = 50);

-- Who counted in a cell, and the last day they did: one run a sender a cell a day.
CREATE TABLE atlas_sender (
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    sender text NOT NULL,
    last_day date NOT NULL,
    PRIMARY KEY (cell, sender)
);
CREATE INDEX atlas_sender_day ON atlas_sender (last_day);

-- A cell's figures, a row a clock and counted value.
CREATE TABLE atlas_tick (
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    clock text NOT NULL,
    tick_ns double precision NOT NULL,
    runs bigint NOT NULL,
    PRIMARY KEY (cell, clock, tick_ns)
) WITH (fillfactor = 50);
CREATE TABLE atlas_read (
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    clock text NOT NULL,
    read_ns double precision NOT NULL,
    runs bigint NOT NULL,
    PRIMARY KEY (cell, clock, read_ns)
) WITH (fillfactor = 50);
CREATE TABLE atlas_verdict (
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    clock text NOT NULL,
    verdict text NOT NULL,
    runs bigint NOT NULL,
    PRIMARY KEY (cell, clock, verdict)
) WITH (fillfactor = 50);

-- The raw runs, as the atlas took them (no sender), until the sweep deletes them.
CREATE TABLE atlas_run (
    id bigserial PRIMARY KEY,
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    received timestamptz NOT NULL DEFAULT now(),
    body jsonb NOT NULL
);
CREATE INDEX atlas_run_received ON atlas_run (received);

-- A class's row keeps its student's sender (the digest above, never the address) while the
-- class is kept, so that a class added to the atlas counts each sender once a cell a day.
ALTER TABLE run ADD COLUMN sender text;
-- When a class was added to the atlas: once only.
ALTER TABLE class ADD COLUMN atlas_at timestamptz;

DROP FUNCTION ticklab_put(bigint, text, text, text, bigint, interval);
CREATE FUNCTION ticklab_put(p_class bigint, p_student text, p_nickname text, p_digest text,
                            p_most bigint, p_open_for interval, p_address inet,
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
    INSERT INTO run (class, student, nickname, digest, received_ms, event, sender)
    VALUES (p_class, p_student, p_nickname, p_digest, received_ms, event,
            ticklab_sender(p_address))
    ON CONFLICT (class, student) DO UPDATE
        SET nickname = excluded.nickname, digest = excluded.digest,
            received_ms = excluded.received_ms, event = excluded.event,
            sender = excluded.sender;
END $$;

-- The runs not yet in their cells' figures: the queue ticklab_atlas_roll empties.
CREATE TABLE atlas_new (
    run bigint PRIMARY KEY,
    cell bigint NOT NULL,
    fresh boolean NOT NULL,
    clocks text[] NOT NULL,
    ticks double precision[] NOT NULL,
    reads double precision[] NOT NULL,
    verdicts text[] NOT NULL
);

-- Each clock's median read cost in a cell, kept by the roll for the cells it touched: the
-- lower median of the counted values (the first whose running count reaches half), the
-- rule of ticklab::atlas::median.
CREATE TABLE atlas_clock (
    cell bigint NOT NULL REFERENCES atlas_cell (id) ON DELETE CASCADE,
    clock text NOT NULL,
    read_median_ns double precision,
    PRIMARY KEY (cell, clock)
) WITH (fillfactor = 50);

-- A run into its cell, for a sender (its digest): 'counted', or 'already' when the sender
-- counted in this cell today. The clocks come as arrays, a value a clock (NaN for none);
-- the values are counted as the hub rounded them. Counted means kept: the raw run and its
-- place in the queue commit with the answer.
CREATE FUNCTION ticklab_atlas_put(p_sender text, p_engine text, p_version integer, p_os text,
                                  p_isolated text, p_cpu_family text, p_body jsonb,
                                  p_clocks text[], p_ticks double precision[],
                                  p_reads double precision[], p_verdicts text[])
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    c bigint;
    fresh boolean;
    r bigint;
BEGIN
    SELECT id INTO c FROM atlas_cell
    WHERE engine = p_engine AND version = p_version AND os = p_os
      AND isolated = p_isolated AND cpu_family = p_cpu_family;
    IF NOT FOUND THEN
        INSERT INTO atlas_cell (engine, version, os, isolated, cpu_family)
        VALUES (p_engine, p_version, p_os, p_isolated, p_cpu_family)
        ON CONFLICT (engine, version, os, isolated, cpu_family) DO NOTHING;
        SELECT id INTO c FROM atlas_cell
        WHERE engine = p_engine AND version = p_version AND os = p_os
          AND isolated = p_isolated AND cpu_family = p_cpu_family;
    END IF;
    INSERT INTO atlas_sender AS s (cell, sender, last_day)
    VALUES (c, p_sender, current_date)
    ON CONFLICT (cell, sender) DO UPDATE SET last_day = current_date
        WHERE s.last_day < current_date
    RETURNING (xmax = 0) INTO fresh;
    IF NOT FOUND THEN
        RETURN 'already';
    END IF;
    INSERT INTO atlas_run (cell, body) VALUES (c, p_body) RETURNING id INTO r;
    INSERT INTO atlas_new VALUES (r, c, fresh, p_clocks, p_ticks, p_reads, p_verdicts);
    RETURN 'counted';
END $$;

-- Up to p_most queued runs into their cells' figures, by one caller at a time (the others
-- return at once): how many. Uncommitted runs are not seen, and wait for the next roll.
CREATE FUNCTION ticklab_atlas_roll(p_most integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
    touched bigint[];
BEGIN
    -- "ATLS": one roll at a time, across every instance.
    IF NOT pg_try_advisory_xact_lock(1096043603) THEN
        RETURN 0;
    END IF;
    WITH moved AS (
        DELETE FROM atlas_new
        WHERE run IN (SELECT run FROM atlas_new ORDER BY run LIMIT p_most)
        RETURNING *
    ), cells AS (
        UPDATE atlas_cell c SET runs = c.runs + m.n, senders = c.senders + m.f
        FROM (SELECT cell, count(*) AS n, count(*) FILTER (WHERE fresh) AS f
              FROM moved GROUP BY cell) m
        WHERE c.id = m.cell
    ), ticks AS (
        INSERT INTO atlas_tick AS t (cell, clock, tick_ns, runs)
        SELECT cell, k, v, count(*) FROM moved, unnest(clocks, ticks) AS u(k, v)
        WHERE v <> 'NaN' GROUP BY 1, 2, 3
        ON CONFLICT (cell, clock, tick_ns) DO UPDATE SET runs = t.runs + excluded.runs
    ), reads AS (
        INSERT INTO atlas_read AS r (cell, clock, read_ns, runs)
        SELECT cell, k, v, count(*) FROM moved, unnest(clocks, reads) AS u(k, v)
        WHERE v <> 'NaN' GROUP BY 1, 2, 3
        ON CONFLICT (cell, clock, read_ns) DO UPDATE SET runs = r.runs + excluded.runs
    ), verdicts AS (
        INSERT INTO atlas_verdict AS d (cell, clock, verdict, runs)
        SELECT cell, k, v, count(*) FROM moved, unnest(clocks, verdicts) AS u(k, v)
        GROUP BY 1, 2, 3
        ON CONFLICT (cell, clock, verdict) DO UPDATE SET runs = d.runs + excluded.runs
    )
    SELECT count(*), array_agg(DISTINCT cell) INTO n, touched FROM moved;
    IF n = 0 THEN
        RETURN 0;
    END IF;
    -- The medians of the cells touched, from their counted read costs (seen now: a new
    -- statement sees what the one above wrote).
    INSERT INTO atlas_clock AS k (cell, clock, read_median_ns)
    SELECT DISTINCT ON (cell, clock) cell, clock, read_ns
    FROM (SELECT cell, clock, read_ns,
                 sum(runs) OVER (PARTITION BY cell, clock ORDER BY read_ns) AS below,
                 sum(runs) OVER (PARTITION BY cell, clock) AS total
          FROM atlas_read WHERE cell = ANY (touched)) q
    WHERE 2 * below >= total
    ORDER BY cell, clock, read_ns
    ON CONFLICT (cell, clock) DO UPDATE SET read_median_ns = excluded.read_median_ns;
    RETURN n;
END $$;

-- Raw runs older than `p_keep` deleted, and senders who have not counted since.
CREATE FUNCTION ticklab_atlas_sweep(p_keep interval) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    DELETE FROM atlas_run WHERE received < now() - p_keep;
    GET DIAGNOSTICS n = ROW_COUNT;
    DELETE FROM atlas_sender WHERE last_day < current_date - p_keep;
    RETURN n;
END $$;
