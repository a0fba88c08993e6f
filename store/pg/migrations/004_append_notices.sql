-- Schema 4: the notice of an append (kind a) is no longer sent by the
-- trigger inside the append's transaction but by the appending store
-- right after the commit (notice.go). PostgreSQL serializes the commits
-- of transactions that send notices, WAL flush included, so a notice in
-- every append transaction kept appends from sharing flushes; the
-- notices of revocations, epoch bumps, deletions and settings, rare and
-- required to arrive, stay in their transactions.

CREATE OR REPLACE FUNCTION sharevat_share_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.epoch, NEW.deleted, NEW.privacy, NEW.retain_ops, NEW.retain_for)
        IS DISTINCT FROM (OLD.epoch, OLD.deleted, OLD.privacy, OLD.retain_ops, OLD.retain_for) THEN
        PERFORM sharevat_notice('s', NEW.id, 0);
    END IF;
    RETURN NULL;
END
$$;
