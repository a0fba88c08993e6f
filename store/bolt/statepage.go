package bolt

import (
	"bytes"
	"context"
	"maps"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// StatePage returns one page of the materialized state (see
// sharevat.LogStore). It reads the state bucket from the page's start
// and stops at the page's bound; the write-ahead log's tail not yet in
// the data file is folded in by the version rule, key by key.
//
// ByChange has no index by cursor to seek in: it scans the cursors of
// the share's state (8 bytes of each value, no body decoded) keeping the
// MaxCount newest below the start, then decodes only those. Its memory
// is the page; its time is the state's size per page.
func (db *DB) StatePage(ctx context.Context, id sharevat.ShareID, req sharevat.StatePageRequest) (page sharevat.StatePage, err error) {
	if req.Order > sharevat.ByChange {
		return page, sharevat.Errorf(sharevat.EInvalid, "unknown state order %d", req.Order)
	}
	tv := db.tailView(id)
	err = db.view(ctx, "state page", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		w := pageWalk{ctx: ctx, id: id, req: req}
		if w.state, err = shareBucket(tx, id, bucketState); err != nil {
			return err
		}
		if w.log, err = shareBucket(tx, id, bucketLog); err != nil {
			return err
		}
		if w.over, err = tv.stateOver(w.state, s.Head); err != nil {
			return core.BadRecord(id, s.Head, err)
		}
		if req.Order == sharevat.ByKey {
			page, err = w.byKey()
		} else {
			page, err = w.byChange()
		}
		page.Head = max(s.Head, tv.head())
		return err
	})
	if err != nil {
		return sharevat.StatePage{}, err
	}
	return page, nil
}

// pageWalk is one StatePage call inside its transaction.
type pageWalk struct {
	ctx   context.Context
	id    sharevat.ShareID
	req   sharevat.StatePageRequest
	state *bbolt.Bucket
	log   *bbolt.Bucket
	over  map[string]tailEntity
	page  sharevat.StatePage
	used  int
}

// add appends e to the page if it fits, and reports whether it did.
func (w *pageWalk) add(e sharevat.Entity) bool {
	size := sharevat.EntitySize(&e)
	if !w.req.Fits(len(w.page.Entities), w.used, size) {
		return false
	}
	w.used += size
	w.page.Entities = append(w.page.Entities, e)
	w.page.Next = sharevat.StateCursor{Kind: e.Kind, Key: e.Key, Cursor: e.Cursor}
	return true
}

// fileEntity decodes and verifies the data file's entity at k.
func (w *pageWalk) fileEntity(k, v []byte) (sharevat.Entity, error) {
	e, err := decodeEntity(k, v)
	if err == nil {
		err = verifyEntity(w.log, &e, v)
	}
	if err != nil {
		return e, core.BadRecord(w.id, e.Cursor, err)
	}
	return e, nil
}

// byKey walks the state bucket from after req.After merged with the
// tail's keys, in key order.
func (w *pageWalk) byKey() (sharevat.StatePage, error) {
	var after []byte
	if w.req.After.Kind != "" || w.req.After.Key != "" {
		after = stateKey(w.req.After.Kind, w.req.After.Key)
	}
	w.page.Next = w.req.After
	tail := w.tailKeys(func(k string, _ tailEntity) bool { return after == nil || k > string(after) })
	c := w.state.Cursor()
	k, v := c.First()
	if after != nil {
		if k, v = c.Seek(after); bytes.Equal(k, after) {
			k, v = c.Next()
		}
	}
	for n := 0; ; n++ {
		if n%256 == 255 && w.ctx.Err() != nil {
			return w.page, context.Cause(w.ctx)
		}
		var e sharevat.Entity
		switch {
		case len(tail) > 0 && (k == nil || tail[0] <= string(k)):
			t := w.over[tail[0]]
			if k != nil && tail[0] == string(k) {
				k, v = c.Next()
			}
			tail = tail[1:]
			if t.entry == nil {
				continue // deleted in the tail
			}
			e = t.entity()
		case k == nil:
			w.page.Done = true
			return w.page, nil
		default:
			var err error
			if e, err = w.fileEntity(k, v); err != nil {
				return w.page, err
			}
			k, v = c.Next()
		}
		if !w.add(e) {
			return w.page, nil
		}
	}
}

// tailKeys returns the keys of the tail's entities that keep passes, in
// key order.
func (w *pageWalk) tailKeys(keep func(string, tailEntity) bool) []string {
	var out []string
	for k, t := range w.over {
		if keep(k, t) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// tailEntity is the outcome of the tail's ops on one key: entry holds
// the version, or nil for a delete; file means the data file's entity
// stands.
type tailEntity struct {
	entry *sharevat.Entry
	file  bool
}

func (t tailEntity) entity() sharevat.Entity { return entityOf(t.entry) }

// stateOver folds the view's state ops newer than the data file's head,
// by the version rule, against the data file's state bucket st: for each
// key the tail changes, its entity (nil entry: deleted). Keys whose data
// file entity the tail does not supersede are left out.
func (v *tailView) stateOver(st *bbolt.Bucket, head sharevat.Cursor) (map[string]tailEntity, error) {
	out := map[string]tailEntity{}
	for _, e := range v.entries {
		if e.Cursor <= head || !sharevat.IsStateKind(e.Kind) {
			continue
		}
		k := string(stateKey(e.Kind, e.Key))
		t, ok := out[k]
		var cur []byte // the body e must supersede, if has
		has := false
		if ok && !t.file {
			if has = t.entry != nil; has {
				cur = t.entry.Body
			}
		} else if raw := st.Get([]byte(k)); raw != nil {
			body, err := entityBody(raw)
			if err != nil {
				return nil, err
			}
			cur, has = body, true
		}
		switch {
		case e.Delete:
			out[k] = tailEntity{}
		case !has || apply.Supersedes(e.Body, cur):
			out[k] = tailEntity{entry: e}
		case !ok:
			out[k] = tailEntity{file: true}
		}
	}
	maps.DeleteFunc(out, func(_ string, t tailEntity) bool { return t.file })
	return out, nil
}

// byChange returns the newest entities with cursor below req.After.Cursor
// (any, when 0), newest first.
func (w *pageWalk) byChange() (sharevat.StatePage, error) {
	before := w.req.After.Cursor
	below := func(c sharevat.Cursor) bool { return before == 0 || c < before }
	count, _ := w.req.Bounds()
	top := newestN{n: count}
	total := 0
	c := w.state.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if total%1024 == 1023 && w.ctx.Err() != nil {
			return w.page, context.Cause(w.ctx)
		}
		if _, ok := w.over[string(k)]; ok {
			continue
		}
		cur, err := entityCursor(v)
		if err != nil {
			return w.page, core.BadRecord(w.id, 0, err)
		}
		if below(cur) {
			total++
			top.offer(cur, k)
		}
	}
	for k, t := range w.over {
		if t.entry != nil && below(t.entry.Cursor) {
			total++
			top.offer(t.entry.Cursor, []byte(k))
		}
	}
	return w.fillByChange(top.sorted(), total)
}

// fillByChange adds the candidates, newest first, while they fit.
func (w *pageWalk) fillByChange(cands []candidate, total int) (sharevat.StatePage, error) {
	w.page.Next = w.req.After
	for _, c := range cands {
		var e sharevat.Entity
		if t, ok := w.over[string(c.key)]; ok {
			e = t.entity()
		} else {
			var err error
			if e, err = w.fileEntity(c.key, w.state.Get(c.key)); err != nil {
				return w.page, err
			}
		}
		if !w.add(e) {
			return w.page, nil
		}
	}
	w.page.Done = len(w.page.Entities) == total
	return w.page, nil
}
