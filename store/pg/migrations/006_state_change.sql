-- Schema 6: an index of each share's state by cursor, for StatePage's
-- ByChange order (newest change first) as a keyset query.

CREATE INDEX state_change ON state (share, cursor);
