-- Schema 5: each fork records the bytes it copied (fork_bytes), charged
-- to its fork tree for sharevat.ForkQuota until it is deleted
-- (forktree.go); forks made before this schema are charged nothing.
-- Each share records the op bytes it may hold (max_bytes,
-- sharevat.Share.MaxBytes; 0: no limit).

ALTER TABLE shares ADD COLUMN fork_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE shares ADD COLUMN max_bytes bigint NOT NULL DEFAULT 0;
