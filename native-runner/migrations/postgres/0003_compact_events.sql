-- A student's earlier events go with each new one of theirs: the new one says all of it (a
-- put the row as it is now, a removal that it is gone), so a class's log holds what the
-- class holds and a reconnect costs no more than that, not its history. A view that reads
-- an event gone since finds nothing there, and the newer event's notification follows.
CREATE INDEX event_student ON event (class, student);

CREATE OR REPLACE FUNCTION ticklab_event(p_class bigint, p_kind text, p_student text)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    ev bigint;
BEGIN
    INSERT INTO event (class, kind, student, at_ms)
    VALUES (p_class, p_kind, p_student, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    RETURNING id INTO ev;
    IF p_kind <> 'close' THEN
        DELETE FROM event
        WHERE class = p_class AND student = p_student AND id < ev AND kind <> 'close';
    END IF;
    PERFORM pg_notify('ticklab_changes', p_class || ' ' || ev);
    RETURN ev;
END $$;

-- The events kept so far, compacted the same way.
DELETE FROM event e
WHERE e.kind <> 'close'
  AND EXISTS (SELECT 1 FROM event n
              WHERE n.class = e.class AND n.student = e.student AND n.kind <> 'close'
                AND n.id > e.id);
