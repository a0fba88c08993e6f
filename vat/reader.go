package vat

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// readerServer is the Reader capability for one grant.
type readerServer struct{ f *facet }

var _ schema.Reader_Server = (*readerServer)(nil)

// readChunk is how many entries read asks the store for at a time while
// filling its byte budget.
const readChunk = 64

// Read returns ops after fromCursor: at most limit (0 or more than the
// server's cap means the cap) and at most the read budget in bytes, but
// always at least one op when there is one.
func (r *readerServer) Read(ctx context.Context, call schema.Reader_read) error {
	call.Go()
	return r.f.run(ctx, "Reader.read", sharevat.ScopeRead, func(ctx context.Context) error {
		done, err := r.f.conn.startRead(ctx)
		if err != nil {
			return err
		}
		defer done()
		args := call.Args()
		entries, head, err := r.f.vat.readPage(ctx, r.f.share(), sharevat.Cursor(args.FromCursor()), int(args.Limit()))
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		res.SetHead(uint64(head))
		return wire.SetEntries(res.NewOps, entries)
	})
}

// readPage reads up to limit entries after from within the byte budget.
func (v *Vat) readPage(ctx context.Context, share sharevat.ShareID, from sharevat.Cursor, limit int) ([]sharevat.Entry, sharevat.Cursor, error) {
	if limit <= 0 || limit > v.cfg.MaxReadOps {
		limit = v.cfg.MaxReadOps
	}
	var out []sharevat.Entry
	var head sharevat.Cursor
	for budget := v.cfg.ReadBudget; len(out) < limit && budget > 0; {
		if ctx.Err() != nil {
			return nil, 0, context.Cause(ctx)
		}
		chunk, h, err := v.store.Read(ctx, share, from, min(readChunk, limit-len(out)))
		if err != nil {
			return nil, 0, err
		}
		head = h
		n := fitBudget(chunk, &budget, len(out) == 0)
		out = append(out, chunk[:n]...)
		if n < len(chunk) || len(chunk) == 0 {
			break
		}
		from = chunk[n-1].Cursor
	}
	return out, head, nil
}

// fitBudget returns how many entries of chunk fit in *budget (at least
// one when first), and charges them.
func fitBudget(chunk []sharevat.Entry, budget *int, first bool) int {
	for i := range chunk {
		size := entrySize(&chunk[i])
		if size > *budget && !(first && i == 0) {
			return i
		}
		*budget -= size
	}
	return len(chunk)
}

func entrySize(e *sharevat.Entry) int {
	return len(e.OpID) + len(e.BatchID) + len(e.Kind) + len(e.Key) + len(e.Body) + 64
}

// Snapshot returns the materialized state: the newest version of every
// (kind, key), deletes applied. A state larger than the read budget is
// ETooLarge (found having read no more than the budget of it): page
// through it with SnapshotPage instead.
func (r *readerServer) Snapshot(ctx context.Context, call schema.Reader_snapshot) error {
	call.Go()
	return r.f.run(ctx, "Reader.snapshot", sharevat.ScopeRead, func(ctx context.Context) error {
		done, err := r.f.conn.startRead(ctx)
		if err != nil {
			return err
		}
		defer done()
		ents, cur, err := r.f.vat.wholeState(ctx, r.f.share())
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		res.SetCursor(uint64(cur))
		return wire.SetEntities(res.NewEntities, ents)
	})
}

// Save mints a token that redeems to read-only access; it needs delegate
// on the grant behind this Reader.
func (r *readerServer) Save(ctx context.Context, call schema.Reader_save) error {
	return r.f.run(ctx, "Reader.save", sharevat.ScopeDelegate, func(ctx context.Context) error {
		return save(ctx, r.f, sharevat.ScopeRead, call.Args(), call.AllocResults)
	})
}
