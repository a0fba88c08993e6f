-- Schema 1 of the sharevat PostgreSQL store (package doc: the layout).
-- Every string is bytea (a Go string may hold any bytes, which text
-- refuses); every time is bigint Unix nanoseconds, 0 for the zero time;
-- uint64 values (cursors, epochs) are stored as their int64 bits.

CREATE TABLE shares (
    id          bytea   PRIMARY KEY,
    title       bytea   NOT NULL,
    project_id  bytea   NOT NULL,
    directory   bytea   NOT NULL,
    version     bytea   NOT NULL,
    status      smallint NOT NULL,
    created_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL,
    status_at   bigint  NOT NULL,
    epoch       bigint  NOT NULL,
    head        bigint  NOT NULL,
    earliest    bigint  NOT NULL,
    deleted     boolean NOT NULL,
    deleted_at  bigint  NOT NULL,
    owner_root  bytea   NOT NULL,
    parent_id   bytea   NOT NULL,
    fork_cursor bigint  NOT NULL,
    privacy     smallint NOT NULL,
    retain_ops  bigint  NOT NULL,
    retain_for  bigint  NOT NULL
);
CREATE INDEX shares_updated ON shares (updated_at DESC, id);
CREATE INDEX shares_children ON shares (parent_id, created_at, id) WHERE parent_id <> ''::bytea;

CREATE TABLE grants (
    id          bytea    PRIMARY KEY,
    share_id    bytea    NOT NULL,
    parent      bytea    NOT NULL,
    scope       smallint NOT NULL,
    epoch       bigint   NOT NULL,
    verifier    bytea    NOT NULL,
    label       bytea    NOT NULL,
    created_by  bytea    NOT NULL,
    created_at  bigint   NOT NULL,
    expires_at  bigint   NOT NULL,
    revoked     boolean  NOT NULL,
    revoked_at  bigint   NOT NULL,
    last_used   bigint   NOT NULL
);
CREATE INDEX grants_share ON grants (share_id, created_at, id);
CREATE INDEX grants_parent ON grants (parent, created_at, id) WHERE parent <> ''::bytea;

CREATE TABLE log (
    share     bytea   NOT NULL,
    cursor    bigint  NOT NULL,
    op_id     bytea   NOT NULL,
    batch_id  bytea   NOT NULL,
    seq       bigint  NOT NULL,
    kind      bytea   NOT NULL,
    key       bytea   NOT NULL,
    body      bytea   NOT NULL,
    del       boolean NOT NULL,
    at        bigint  NOT NULL,
    digest    bytea   NOT NULL,
    PRIMARY KEY (share, cursor)
);

-- The permanent op-id index: compaction keeps every row.
CREATE TABLE ops (
    share   bytea  NOT NULL,
    op_id   bytea  NOT NULL,
    cursor  bigint NOT NULL,
    digest  bytea  NOT NULL,
    PRIMARY KEY (share, op_id)
);

-- The materialized state; base is the state at earliest-1 of the keys
-- written since (see the package doc).
CREATE TABLE state (
    share   bytea  NOT NULL,
    kind    bytea  NOT NULL,
    key     bytea  NOT NULL,
    body    bytea  NOT NULL,
    cursor  bigint NOT NULL,
    at      bigint NOT NULL,
    digest  bytea  NOT NULL,
    PRIMARY KEY (share, kind, key)
);
CREATE TABLE base (LIKE state INCLUDING ALL);

CREATE TABLE audit (
    seq       bigint   GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        bigint   NOT NULL,
    action    bytea    NOT NULL,
    share_id  bytea    NOT NULL,
    grant_id  bytea    NOT NULL,
    parent    bytea    NOT NULL,
    scope     smallint NOT NULL,
    epoch     bigint   NOT NULL,
    peer      bytea    NOT NULL,
    result    bytea    NOT NULL
);
CREATE INDEX audit_share ON audit (share_id, seq) WHERE share_id <> ''::bytea;
