package opencode

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// pageBytes bounds one page of a share's state the door reads
// (Reader.snapshotPage's maxBytes): what a walk of the state holds at
// once, besides one entity over it (a page holds at least one).
const pageBytes = 1 << 20

// statePage is one page of a walk of a share's state.
type statePage struct {
	ents []sharevat.Entity
	head uint64
	next sharevat.StateCursor
	done bool
}

// readPage reads the page of r's state by (kind, key) after after.
func readPage(ctx context.Context, r schema.Reader, after sharevat.StateCursor) (statePage, error) {
	fut, rel := r.SnapshotPage(ctx, func(p schema.Reader_snapshotPage_Params) error {
		p.SetOrder(wire.SetStateOrder(sharevat.ByKey))
		p.SetMaxBytes(pageBytes)
		c, err := p.NewAfter()
		if err != nil {
			return err
		}
		return wire.SetStateCursor(c, after)
	})
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return statePage{}, err
	}
	pg := statePage{head: res.Head(), done: res.Done()}
	if pg.ents, err = read(res.Entities, wire.ReadEntities); err != nil {
		return statePage{}, err
	}
	if pg.next, err = read(res.Next, wire.ReadStateCursor); err != nil {
		return statePage{}, err
	}
	return pg, nil
}

// walkState calls fn with each page of r's state by (kind, key), one
// page held at a time and counted in h once read (its bytes, twice: the
// decoded entities and the message they came in; h keeps the largest
// page's count until released), and returns the head of the
// first page. Pages are each consistent, not with each other: a key that
// changes during the walk is met once, as it was when its page was read.
func walkState(ctx context.Context, r schema.Reader, h *holding, fn func([]sharevat.Entity) error) (uint64, error) {
	var after sharevat.StateCursor
	head := uint64(0)
	for first := true; ; first = false {
		pg, err := readPage(ctx, r, after)
		if err != nil {
			return 0, err
		}
		if err := h.upTo(2 * entitiesBytes(pg.ents)); err != nil {
			return 0, err
		}
		if first {
			head = pg.head
		}
		if err := fn(pg.ents); err != nil {
			return 0, err
		}
		if pg.done || len(pg.ents) == 0 {
			return head, nil
		}
		after = pg.next
	}
}

// entitiesBytes is what ents count against a page's bytes.
func entitiesBytes(ents []sharevat.Entity) int64 {
	n := int64(0)
	for i := range ents {
		n += int64(sharevat.EntitySize(&ents[i]))
	}
	return n
}
