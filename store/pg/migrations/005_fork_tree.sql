-- Schema 5: each fork records the bytes it copied (fork_bytes), charged
-- to its fork tree for sharevat.ForkQuota until it is deleted
-- (forktree.go). Forks made before this schema are charged nothing.

ALTER TABLE shares ADD COLUMN fork_bytes bigint NOT NULL DEFAULT 0;
