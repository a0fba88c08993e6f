package bolt

import (
	"errors"
	"os"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt/wal"
)

// walCheck verifies the write-ahead log beside the data file against
// it: the log reads back (a torn tail is not a problem: Open cuts it,
// and what it held was never acknowledged; damage a crash cannot leave
// is reported as serve refuses it); it holds every record past
// the checkpoint; a record the data file holds agrees with it (same op
// id and digest at each cursor still in the log); a record past the
// checkpoint decodes, each entry's content matches its digest, follows
// on from its share's head (the data file's, then the log's), and has an
// op id that neither the data file nor an earlier record holds.
func (c *checker) walCheck(tx *bbolt.Tx, dir string) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return
	}
	cp := readCheckpoint(tx)
	scan, err := wal.Scan(wal.OS{}, dir)
	var damage *wal.DamageError
	switch {
	case errors.As(err, &damage):
		c.add("", 0, "%v", walDamaged(dir, cp, err)) // the line serve refuses to start with
		return
	case err != nil:
		c.add("", 0, "write-ahead log %s: %v", dir, err)
		return
	}
	if len(scan.Segments) > 0 && scan.Segments[0] > cp+1 {
		c.add("", 0, "write-ahead log %s starts at record %d, but the data file holds only up to %d", dir, scan.Segments[0], cp)
	}
	if scan.Next <= cp && cp > 0 {
		c.add("", 0, "the data file holds write-ahead log records up to %d, but the log %s ends at %d", cp, dir, scan.Next-1)
	}
	w := walChecker{checker: c, tx: tx, heads: map[sharevat.ShareID]sharevat.Cursor{}, seen: map[string]bool{}}
	for _, r := range scan.Records {
		rec, err := decodeWALRecord(r.LSN, r.Data)
		if err != nil {
			c.add("", 0, "write-ahead log record %d: %v", r.LSN, err)
			continue
		}
		if r.LSN <= cp {
			w.applied(rec)
		} else {
			w.pending(rec)
		}
	}
}

// walChecker checks log records against one data-file transaction.
type walChecker struct {
	*checker
	tx    *bbolt.Tx
	heads map[sharevat.ShareID]sharevat.Cursor
	seen  map[string]bool // share id ‖ 0 ‖ op id of pending records
}

// applied checks a record the data file holds: each entry still in the
// share's log is there with the same op id and digest.
func (w *walChecker) applied(rec *walRecord) {
	s, err := getShare(w.tx, rec.share)
	if err != nil || s.Deleted {
		return // deleted since: its log is gone
	}
	log, err := shareBucket(w.tx, s.ID, bucketLog)
	if err != nil {
		return // reported by the share's own check
	}
	for i := range rec.entries {
		e := &rec.entries[i]
		if e.Cursor < s.Earliest {
			continue
		}
		v := log.Get(u64Key(uint64(e.Cursor)))
		got, err := decodeEntry(u64Key(uint64(e.Cursor)), v)
		if v == nil || err != nil || got.OpID != e.OpID || got.Digest != e.Digest {
			w.add(s.ID, e.Cursor, "the data file and write-ahead log record %d disagree", rec.lsn)
		}
	}
}

// pending checks a record past the checkpoint.
func (w *walChecker) pending(rec *walRecord) {
	head, ok := w.heads[rec.share]
	if !ok {
		s, err := liveShare(w.tx, rec.share)
		if err != nil {
			w.add(rec.share, 0, "write-ahead log record %d is for a share the data file does not hold live", rec.lsn)
			return
		}
		head = s.Head
	}
	ops, _ := shareBucket(w.tx, rec.share, bucketOps)
	for i := range rec.entries {
		e := &rec.entries[i]
		switch {
		case e.Cursor != head+1:
			w.add(rec.share, e.Cursor, "write-ahead log record %d puts this cursor after head %d", rec.lsn, head)
		case contentDigest(e.Kind, e.Key, e.Body, e.Delete) != e.Digest:
			w.add(rec.share, e.Cursor, "write-ahead log record %d: content does not match its digest", rec.lsn)
		case w.seen[string(rec.share)+"\x00"+e.OpID] || (ops != nil && ops.Get([]byte(e.OpID)) != nil):
			w.add(rec.share, e.Cursor, "write-ahead log record %d: its op id is already in the log", rec.lsn)
		}
		w.seen[string(rec.share)+"\x00"+e.OpID] = true
		head = e.Cursor
	}
	w.heads[rec.share] = head
}
