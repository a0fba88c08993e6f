package bolt

import (
	"context"
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// Problem is one thing Check found wrong in a data file. It names the
// share and cursor when it is about one, and never holds op contents.
type Problem struct {
	Share  sharevat.ShareID // "" for the file, its indexes or its grants
	Cursor sharevat.Cursor  // 0 when not about one cursor
	What   string
}

func (p Problem) String() string {
	switch {
	case p.Share != "" && p.Cursor != 0:
		return fmt.Sprintf("share %s, cursor %d: %s", p.Share, p.Cursor, p.What)
	case p.Share != "":
		return fmt.Sprintf("share %s: %s", p.Share, p.What)
	}
	return p.What
}

// MaxProblems bounds the problems Check lists; one more says how many
// were left out.
const MaxProblems = 1000

// Check verifies the data file at path offline, read-only, and returns
// what it found wrong (none: the file is sound):
//   - the file itself: not empty, its meta pages, every page it counts
//     present, every bucket, key and value readable (Open reads only
//     the meta pages, the freelist and the top-level roots:
//     boltutil.QuickCheck), then bbolt's own consistency check
//     (tx.Check: every page reachable or free, once);
//   - every share: its record decodes; a live share has its log, op-id
//     index and state; every log record decodes and matches its digest
//     and the op-id index (as Read checks it); the log holds every cursor
//     from the earliest to the head and nothing before the earliest; every
//     op-id index entry points at the log record that names it, or, before
//     the earliest, at a compacted cursor no other op id has; the state is
//     what the log gives: each entity written by the newest version
//     (apply.Supersedes) of its (kind, key) since its last delete, and no
//     entity a later delete removed, checked against
//     its log record, and an entity whose record was compacted against its
//     own digest (the state before the earliest cursor cannot be replayed:
//     it is taken as it is); a deleted share has no log left;
//   - the indexes: share_updated, share_status and share_children agree
//     with the share records; share_grants, grant_children and the grants
//     agree; every grant of a deleted share is revoked; the audit log
//     decodes;
//   - the write-ahead log beside it (path + ".wal"), if any, against the
//     file (walCheck).
//
// Check never panics on damage: a panic while reading is one more
// problem. The state check keeps the (kind, key) of every entity touched
// since the earliest cursor in memory, never bodies. Errors (not
// problems): a missing file; EUnavailable if a running vat holds it
// after lockTimeout; a cancelled ctx.
func Check(ctx context.Context, path string, lockTimeout time.Duration) ([]Problem, error) {
	bdb, err := openReadOnly(path, lockTimeout)
	var damaged *boltutil.DamagedError
	if errors.As(err, &damaged) {
		return []Problem{{What: damaged.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer bdb.Close()
	c := &checker{ctx: ctx}
	err = boltutil.View(bdb, func(tx *bbolt.Tx) error {
		c.bbolt(tx)
		if err := c.file(tx); err != nil {
			return err
		}
		c.walCheck(tx, path+".wal")
		return nil
	})
	var pe *boltutil.PanicError
	if errors.As(err, &pe) {
		c.add("", 0, "reading the file panicked (a damaged page?): %v", pe.Value)
		err = nil
	}
	return c.list(), err
}

// checker collects problems.
type checker struct {
	ctx      context.Context
	problems []Problem
	dropped  int
}

func (c *checker) add(share sharevat.ShareID, cur sharevat.Cursor, format string, args ...any) {
	if len(c.problems) >= MaxProblems {
		c.dropped++
		return
	}
	c.problems = append(c.problems, Problem{Share: share, Cursor: cur, What: fmt.Sprintf(format, args...)})
}

func (c *checker) list() []Problem {
	if c.dropped > 0 {
		return append(c.problems, Problem{What: fmt.Sprintf("%d more problems not listed", c.dropped)})
	}
	return c.problems
}

// bbolt runs bbolt's own consistency check.
func (c *checker) bbolt(tx *bbolt.Tx) {
	for err := range tx.Check() {
		c.add("", 0, "bbolt: %v", err)
	}
}

// file checks the format, then every share, the indexes, the grants and
// the audit log.
func (c *checker) file(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		c.add("", 0, "bucket %s is missing: not a sharevat data file", bucketMeta)
		return nil
	}
	v := meta.Get(keyFormat)
	if len(v) != 1 || v[0] < 1 || v[0] > dataFormat {
		c.add("", 0, "unknown data format %v (this build reads 1 to %d)", v, dataFormat)
		return nil
	}
	for _, name := range topBuckets {
		if tx.Bucket(name) == nil && (v[0] == dataFormat || !isShareIndex(name)) {
			c.add("", 0, "bucket %s is missing", name)
			return nil
		}
	}
	shares, err := c.shares(tx)
	if err != nil {
		return err
	}
	if v[0] == dataFormat {
		c.shareIndexes(tx, shares)
	}
	c.orphanLogs(tx, shares)
	c.grants(tx, shares)
	c.audit(tx)
	return nil
}

func isShareIndex(name []byte) bool {
	for _, n := range shareIndexes {
		if string(n) == string(name) {
			return true
		}
	}
	return false
}

// shares checks every share record and log, and returns the records
// that decode.
func (c *checker) shares(tx *bbolt.Tx) (map[sharevat.ShareID]*sharevat.Share, error) {
	out := map[sharevat.ShareID]*sharevat.Share{}
	err := tx.Bucket(bucketShares).ForEach(func(k, v []byte) error {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		s, err := decodeShare(v)
		switch {
		case err != nil:
			c.add(sharevat.ShareID(k), 0, "share record: %v", err)
			return nil
		case string(s.ID) != string(k):
			c.add(sharevat.ShareID(k), 0, "share record names share %q", s.ID)
			return nil
		}
		out[s.ID] = &s
		c.shareLog(tx, &s)
		return nil
	})
	return out, err
}
