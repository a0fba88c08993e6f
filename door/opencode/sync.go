package opencode

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/sharevat/sharevat"
)

// syncAnswer is what a sync answers: the ops the vat applied, the items
// it already had, and those skipped as older than the stored ones.
type syncAnswer struct {
	OK         bool `json:"ok"`
	Applied    int  `json:"applied"`
	Duplicates int  `json:"duplicates"`
	Older      int  `json:"older"`
	Redacted   int  `json:"redacted"`
}

// sync serves POST …/api/share/<id>/sync: the items become ops appended
// through the share's own Appender, after the whole body passed every
// check (so a bad item writes nothing).
func (d *Door) sync(w http.ResponseWriter, r *http.Request, id sharevat.ShareID) error {
	var in syncBody
	h := d.hold() // the items and the ops made of them, beside the body
	defer h.release()
	if err := d.readBodyWith(r, func(b []byte) (err error) {
		if in, err = parseSync(b); err != nil {
			return err
		}
		return h.take(2 * in.dataBytes())
	}); err != nil {
		return err
	}
	data := in.items
	sh, err := d.passed(r, id) // the secret the gate redeemed
	if err != nil {
		return err
	}
	defer sh.release()
	e, ok, err := d.idx.byShare(r.Context(), id)
	if err != nil {
		return err
	}
	session := sessionOf(sh.info.Meta.Title)
	if ok {
		session = e.Session
	}
	ops, err := d.toOps(data, session)
	if err != nil {
		return err
	}
	ans, title, err := d.apply(r.Context(), sh, ops)
	if err != nil {
		return err
	}
	if ok { // a share the index names its session of: its title may change
		d.followTitle(r.Context(), sh, title)
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}

// toOps maps every item, checking each against the vat's limits, so that
// nothing is appended unless all of them pass.
func (d *Door) toOps(items []item, session string) ([]mapped, error) {
	ops := make([]mapped, 0, len(items))
	lim := d.o.Limits
	for i, it := range items {
		m, err := toOp(it, session)
		if err != nil {
			return nil, err
		}
		op := &m.op
		switch {
		case len(op.Body) > lim.MaxBodyBytes:
			return nil, fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("tooLarge: item %d's data is over the limit of %d bytes", i, lim.MaxBodyBytes))
		case len(op.Key) > lim.MaxKeyLen || len(op.OpID) > lim.MaxOpIDLen:
			return nil, fail(http.StatusBadRequest, fmt.Sprintf("invalid: item %d's ids are longer than the vat's limits", i))
		}
		ops = append(ops, m)
	}
	return ops, nil
}

// sessionOf is the opencode session id of a share the door titled
// "opencode <session id>".
func sessionOf(title string) string {
	const p = "opencode "
	if len(title) > len(p) && title[:len(p)] == p {
		return title[len(p):]
	}
	return title
}

// apply appends the ops newer than what the share holds (order.go), in
// batches within the vat's limits, holding the share's state so that two
// syncs of one share never interleave their checks; and the title of the
// newest session item the share holds ("" for none).
func (d *Door) apply(ctx context.Context, sh *restored, ops []mapped) (ans syncAnswer, title string, err error) {
	st := d.states.get(sh.info.ID)
	defer d.states.done(st)
	defer func() { title = st.title }()
	if err := d.catchUp(ctx, sh, st); err != nil {
		return syncAnswer{}, "", err
	}
	fresh, _ := st.filter(ops)
	ans = syncAnswer{OK: true, Older: len(ops) - len(fresh)}
	// The share's bytes-per-share quota is the vat's (vat/sharebytes.go):
	// a batch past it is refused whole with tooLarge, which the door
	// answers 413 naming the limit (reply.go, classify).
	for _, part := range d.batches(fresh) {
		b := &sharevat.Batch{BatchID: "opencode-" + part[0].op.OpID, Epoch: sh.access.Epoch}
		if len(b.BatchID) > d.o.Limits.MaxOpIDLen {
			b.BatchID = b.BatchID[:d.o.Limits.MaxOpIDLen]
		}
		for i := range part {
			op := part[i].op
			op.Seq = uint32(i)
			b.Ops = append(b.Ops, op)
		}
		ack, err := appendBatch(ctx, sh.share, b)
		if err != nil {
			st.loaded = false // what the vat holds is known again from a snapshot
			return syncAnswer{}, "", err
		}
		ans.Applied += ack.Applied
		ans.Duplicates += ack.Duplicates
		ans.Redacted += ack.Redacted
		if ack.Rejected > 0 {
			st.loaded = false
			return syncAnswer{}, "", rejected(ack)
		}
		st.applied(appliedOf(part, ack)) // uncached: only the title
	}
	return ans, "", nil
}

// catchUp brings st up to the share's log: its state read page by page
// when st is not loaded, then the ops appended after st.head, by the
// door itself or by any other writer of the share (the opencode plugin
// appends over /capnweb), so that an older version opencode sends late
// never lands after a newer one another writer stored. The pages of a
// load are each consistent, not with each other: what changed during
// it is read again from the log after the first page's head, and seen
// keeps the newest version of each key.
func (d *Door) catchUp(ctx context.Context, sh *restored, st *shareState) error {
	if st.uncached {
		return nil
	}
	if st.loaded {
		if err := d.readOn(ctx, sh, st); err == nil {
			return nil
		}
		st.loaded = false // e.g. the log was trimmed past st.head: load again
	}
	if err := d.load(ctx, sh, st); err != nil {
		return err
	}
	return d.readOn(ctx, sh, st)
}

// load fills st from the share's state, holding one page at a time
// (counted in the budget); st keeps only the items' versions, and none
// when they are over the door's StateBytes (st is uncached).
func (d *Door) load(ctx context.Context, sh *restored, st *shareState) error {
	h := d.hold()
	defer h.release()
	rfut, rel := sh.share.Reader(ctx, nil)
	defer rel()
	st.reset()
	head, err := walkState(ctx, rfut.Reader(), h, func(ents []sharevat.Entity) error {
		if st.add(ents); st.mem > d.states.maxBytes {
			return errUncached
		}
		return nil
	})
	if err == errUncached {
		st.drop() // synced unfiltered from now on
		return nil
	}
	if err != nil {
		return err
	}
	st.head, st.loaded = head, true
	return nil
}

// errUncached stops the load of a state over the door's StateBytes.
var errUncached = errors.New("opencode door: the share's state is over the door's state bytes")

// readOn folds into st the share's log after st.head.
func (d *Door) readOn(ctx context.Context, sh *restored, st *shareState) error {
	rfut, rel := sh.share.Reader(ctx, nil)
	defer rel()
	head, err := readAfter(ctx, rfut.Reader(), st.head, func(e sharevat.Entry) error { st.seen(e); return nil })
	if err != nil {
		return err
	}
	st.head = head
	return nil
}

// rejected is the error of a batch the vat refused ops of.
func rejected(ack sharevat.Ack) error {
	for _, r := range ack.Results {
		if r.Status != sharevat.StatusApplied && r.Status != sharevat.StatusDuplicate {
			return fail(http.StatusBadRequest, fmt.Sprintf("invalid: the vat refused an item (%s)", r.Reason))
		}
	}
	return fail(http.StatusBadRequest, "invalid: the vat refused an item")
}

// batches splits ms into runs within MaxOpsPerBatch and MaxBatchBytes.
func (d *Door) batches(ms []mapped) [][]mapped {
	var out [][]mapped
	start, size := 0, 0
	for i := range ms {
		n := ms[i].op.Size()
		if i > start && (i-start >= d.o.Limits.MaxOpsPerBatch || size+n > d.o.Limits.MaxBatchBytes-256) {
			out = append(out, ms[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(ms) {
		out = append(out, ms[start:])
	}
	return out
}

// appliedOf is the ops of part the vat applied: a duplicate (an item
// sent again with content the share had before) changed nothing.
func appliedOf(part []mapped, ack sharevat.Ack) []mapped {
	if len(ack.Results) != len(part) {
		return part
	}
	var out []mapped
	for i, r := range ack.Results {
		if r.Status == sharevat.StatusApplied {
			out = append(out, part[i])
		}
	}
	return out
}
