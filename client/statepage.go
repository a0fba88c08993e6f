package client

import (
	"context"
	"iter"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// SnapshotPage returns one page of the state (schema
// Reader.snapshotPage): req.Order from req.After, within req's bounds
// (0: the server's, which also caps larger ones).
func (r *Reader) SnapshotPage(ctx context.Context, req sharevat.StatePageRequest) (sharevat.StatePage, error) {
	fut, release := r.cap.SnapshotPage(ctx, func(p schema.Reader_snapshotPage_Params) error {
		p.SetOrder(wire.SetStateOrder(req.Order))
		p.SetMaxEntities(uint32(max(0, min(req.MaxCount, 1<<31))))
		p.SetMaxBytes(uint32(max(0, min(req.MaxBytes, 1<<31))))
		after, err := p.NewAfter()
		if err != nil {
			return err
		}
		return wire.SetStateCursor(after, req.After)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.StatePage{}, fromWire(err)
	}
	return readPage(res)
}

func readPage(res schema.Reader_snapshotPage_Results) (sharevat.StatePage, error) {
	page := sharevat.StatePage{Done: res.Done(), Head: sharevat.Cursor(res.Head())}
	l, err := res.Entities()
	if err != nil {
		return page, err
	}
	if page.Entities, err = wire.ReadEntities(l); err != nil {
		return page, err
	}
	next, err := res.Next()
	if err != nil {
		return page, err
	}
	page.Next, err = wire.ReadStateCursor(next)
	return page, err
}

// StatePages iterates over the pages of the state from req.After to the
// end, one call per page (a page holds at most req's bounds, so memory
// is one page whatever the share's size). It stops at the first error,
// which it yields.
func (r *Reader) StatePages(ctx context.Context, req sharevat.StatePageRequest) iter.Seq2[sharevat.StatePage, error] {
	return func(yield func(sharevat.StatePage, error) bool) {
		for {
			page, err := r.SnapshotPage(ctx, req)
			if err != nil {
				yield(page, err)
				return
			}
			if !yield(page, nil) || page.Done || len(page.Entities) == 0 {
				return
			}
			req.After = page.Next
		}
	}
}
