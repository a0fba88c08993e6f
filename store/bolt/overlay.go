package bolt

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// overlay holds what the write-ahead log has made durable and the data
// file does not hold yet: the records in LSN order, and for each share
// its tail — the entries in cursor order and their op ids. It is what
// etcd's read buffer is to its backend: every read merges it over the
// data file.
//
// Locking: publish (under walState.pubMu) and trim (under the log's
// order lock, walState.order) change it under mu; the decider, which
// holds the order lock, reads it under mu for reading, one call at a
// time; every other reader takes mu for reading, copies what it needs
// (tailView), and then opens its data-file transaction. A trim follows the data-file commit that made
// it safe, so a reader that copied the tail first and opened its
// transaction second misses nothing: the two overlap, never leave a
// gap. Entries are never changed once published.
type overlay struct {
	mu    sync.RWMutex
	recs  []*walRecord // unapplied, LSN order
	bytes int64        // their data's length
	tails map[sharevat.ShareID]*tail
}

// tail is one share's part of the overlay.
type tail struct {
	entries []*sharevat.Entry          // consecutive cursors
	ops     map[string]*sharevat.Entry // op id → entry
	updated time.Time                  // the last append's time
}

func newOverlay() *overlay { return &overlay{tails: map[sharevat.ShareID]*tail{}} }

// head is the cursor of the tail's last entry (0 if none).
func (t *tail) head() sharevat.Cursor {
	if t == nil || len(t.entries) == 0 {
		return 0
	}
	return t.entries[len(t.entries)-1].Cursor
}

// publish adds durable records, in LSN order.
func (o *overlay) publish(recs []*walRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range recs {
		o.recs = append(o.recs, r)
		o.bytes += int64(r.size)
		t := o.tails[r.share]
		if t == nil {
			t = &tail{ops: map[string]*sharevat.Entry{}}
			o.tails[r.share] = t
		}
		for i := range r.entries {
			e := &r.entries[i]
			t.entries = append(t.entries, e)
			t.ops[e.OpID] = e
		}
		if r.now.After(t.updated) {
			t.updated = r.now
		}
	}
}

// trim drops the records with an LSN at or below upTo: the data file
// holds them now.
func (o *overlay) trim(upTo uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for n < len(o.recs) && o.recs[n].lsn <= upTo {
		o.drop(o.recs[n])
		o.bytes -= int64(o.recs[n].size)
		n++
	}
	o.recs = slices.Delete(o.recs, 0, n)
	if len(o.recs) == 0 {
		o.recs = nil
	}
}

// drop removes r's entries from the front of its share's tail.
func (o *overlay) drop(r *walRecord) {
	t := o.tails[r.share]
	if t == nil {
		return
	}
	for i := range r.entries {
		e := &r.entries[i]
		delete(t.ops, e.OpID)
	}
	t.entries = t.entries[min(len(r.entries), len(t.entries)):]
	if len(t.entries) == 0 {
		delete(o.tails, r.share)
	}
}

// pending returns the unapplied records, up to about max bytes (at
// least one record).
func (o *overlay) pending(maxBytes int64) []*walRecord {
	o.mu.RLock()
	defer o.mu.RUnlock()
	var n, size int64
	for n < int64(len(o.recs)) && (n == 0 || size+int64(o.recs[n].size) <= maxBytes) {
		size += int64(o.recs[n].size)
		n++
	}
	return slices.Clone(o.recs[:n])
}

// size is how many records and data bytes are unapplied.
func (o *overlay) size() (int, int64) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return len(o.recs), o.bytes
}

// tailView is a reader's copy of one share's tail.
type tailView struct {
	entries []*sharevat.Entry
	updated time.Time
}

// view copies share id's tail.
func (o *overlay) view(id sharevat.ShareID) tailView {
	o.mu.RLock()
	defer o.mu.RUnlock()
	t := o.tails[id]
	if t == nil {
		return tailView{}
	}
	return tailView{entries: t.entries[:len(t.entries):len(t.entries)], updated: t.updated}
}

// head is the cursor of the view's last entry (0 if none).
func (v *tailView) head() sharevat.Cursor {
	if len(v.entries) == 0 {
		return 0
	}
	return v.entries[len(v.entries)-1].Cursor
}

// after returns the view's entries with cursor > c, as copies sharing
// no memory with the overlay, until out is full.
func (v *tailView) after(c sharevat.Cursor, out []sharevat.Entry) []sharevat.Entry {
	if len(v.entries) == 0 {
		return out
	}
	i := 0
	if first := v.entries[0].Cursor; c >= first {
		i = int(c - first + 1)
	}
	for ; i < len(v.entries) && len(out) < cap(out); i++ {
		e := *v.entries[i]
		e.Body = slices.Clone(e.Body)
		out = append(out, e)
	}
	return out
}

// mergeState folds the view's entries newer than the data file's head
// into state (the data file's, in (kind, key) order) by the version
// rule, as the data file will once they are applied, and returns the
// result in that order.
func (v *tailView) mergeState(state []sharevat.Entity, head sharevat.Cursor) []sharevat.Entity {
	var f *stateFold
	for _, e := range v.entries {
		if e.Cursor <= head || !sharevat.IsStateKind(e.Kind) {
			continue
		}
		if f == nil {
			f = newStateFold(state)
		}
		f.add(e)
	}
	if f == nil {
		return state
	}
	return f.result()
}

// stateFold is a snapshot's state with entries folded into it.
type stateFold struct {
	out []sharevat.Entity
	at  map[string]int // kind ‖ 0 ‖ key → index in out; -1: deleted
}

func newStateFold(state []sharevat.Entity) *stateFold {
	f := &stateFold{out: slices.Clone(state), at: make(map[string]int, len(state))}
	for i := range f.out {
		f.at[f.out[i].Kind+"\x00"+f.out[i].Key] = i
	}
	return f
}

// add folds e: a delete removes its entity, an upsert replaces it only
// if it supersedes it (apply.Supersedes).
func (f *stateFold) add(e *sharevat.Entry) {
	k := e.Kind + "\x00" + e.Key
	i, ok := f.at[k]
	has := ok && i >= 0
	switch {
	case e.Delete:
		if has {
			f.out[i].Kind = "" // dropped by result
		}
		f.at[k] = -1
	case has && apply.Supersedes(e.Body, f.out[i].Body):
		f.out[i] = entityOf(e)
	case !has:
		f.at[k] = len(f.out)
		f.out = append(f.out, entityOf(e))
	}
}

// result is the folded state in (kind, key) order.
func (f *stateFold) result() []sharevat.Entity {
	out := slices.DeleteFunc(f.out, func(e sharevat.Entity) bool { return e.Kind == "" })
	slices.SortFunc(out, func(a, b sharevat.Entity) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// entityOf is the entity e writes, with a copy of its body.
func entityOf(e *sharevat.Entry) sharevat.Entity {
	return sharevat.Entity{Kind: e.Kind, Key: e.Key, Body: slices.Clone(e.Body), Cursor: e.Cursor, At: e.At}
}

// tailView copies share id's tail from the overlay (an empty view
// without a log). Take it before opening the data-file transaction.
func (db *DB) tailView(id sharevat.ShareID) tailView {
	if db.wal == nil {
		return tailView{}
	}
	return db.wal.ov.view(id)
}

// tailHeads is tailView of every share with a tail.
func (db *DB) tailHeads() map[sharevat.ShareID]*tailView {
	out := map[sharevat.ShareID]*tailView{}
	if db.wal == nil {
		return out
	}
	o := db.wal.ov
	o.mu.RLock()
	defer o.mu.RUnlock()
	for id, t := range o.tails {
		out[id] = &tailView{entries: t.entries[:len(t.entries):len(t.entries)], updated: t.updated}
	}
	return out
}

// overShare lays the view over s as the data file has it: the head and
// the update time move with the acknowledged appends (a deleted share
// has no tail). A nil view changes nothing.
func (v *tailView) overShare(s *sharevat.Share) {
	if v == nil || s.Deleted {
		return
	}
	s.Head = max(s.Head, v.head())
	if v.updated.After(s.Meta.UpdatedAt) {
		s.Meta.UpdatedAt = v.updated
	}
}
