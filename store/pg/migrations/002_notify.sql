-- Schema 2: notices of committed changes on the channel sharevat_changes,
-- which every vat on the database LISTENs to (listen.go). PostgreSQL
-- delivers a notice only when its transaction commits. The payload is
-- "<kind> <id in hex> <head> <time>": kind a (a share's head moved), s
-- (a share's epoch, deletion or settings changed) or g (a grant was
-- revoked); head the new head for a, else 0; time the trigger's clock in
-- Unix microseconds, for the notification lag.

CREATE FUNCTION sharevat_notice(kind text, id bytea, head bigint) RETURNS void
LANGUAGE sql AS $$
    SELECT pg_notify('sharevat_changes', kind || ' ' || encode(id, 'hex') || ' ' || head || ' '
        || (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
$$;

CREATE FUNCTION sharevat_share_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.head <> OLD.head THEN
        PERFORM sharevat_notice('a', NEW.id, NEW.head);
    END IF;
    IF (NEW.epoch, NEW.deleted, NEW.privacy, NEW.retain_ops, NEW.retain_for)
        IS DISTINCT FROM (OLD.epoch, OLD.deleted, OLD.privacy, OLD.retain_ops, OLD.retain_for) THEN
        PERFORM sharevat_notice('s', NEW.id, 0);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER shares_changed AFTER UPDATE ON shares
    FOR EACH ROW EXECUTE FUNCTION sharevat_share_changed();

CREATE FUNCTION sharevat_grant_revoked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM sharevat_notice('g', NEW.id, 0);
    RETURN NULL;
END
$$;

CREATE TRIGGER grants_revoked AFTER UPDATE OF revoked ON grants
    FOR EACH ROW WHEN (NEW.revoked AND NOT OLD.revoked) EXECUTE FUNCTION sharevat_grant_revoked();
