-- Schema 6: the session index (sharevat.SessionIndex) every vat on the
-- database shares: which share a door (the opencode door) made for each
-- creator and client session, so that two vats answer one session with
-- one share. entry is the sharevat.DoorSession as JSON; its tokens are
-- sealed by the door. Ids are bytea: a client's session id need not be
-- UTF-8.

CREATE TABLE door_sessions (
    creator   bytea NOT NULL,
    session   bytea NOT NULL,
    share_id  bytea NOT NULL UNIQUE,
    entry     bytea NOT NULL,
    PRIMARY KEY (creator, session)
);
