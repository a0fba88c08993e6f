package vat

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// SnapshotPage returns one page of the state (schema Reader.snapshotPage):
// at most the asked count (capped at sharevat.MaxPageCount) and bytes
// (capped at the read budget, which startRead charges to the
// connection), read from the store page by page, never whole.
func (r *readerServer) SnapshotPage(ctx context.Context, call schema.Reader_snapshotPage) error {
	call.Go()
	return r.f.run(ctx, "Reader.snapshotPage", sharevat.ScopeRead, func(ctx context.Context) error {
		req, err := r.f.vat.pageRequest(call.Args())
		if err != nil {
			return err
		}
		done, err := r.f.conn.startRead(ctx)
		if err != nil {
			return err
		}
		defer done()
		page, err := r.f.vat.store.StatePage(ctx, r.f.share(), req)
		if err != nil {
			return err
		}
		return setPage(call, page)
	})
}

// pageRequest translates and caps a peer's page request.
func (v *Vat) pageRequest(args schema.Reader_snapshotPage_Params) (sharevat.StatePageRequest, error) {
	order, ok := wire.StateOrder(args.Order())
	if !ok {
		return sharevat.StatePageRequest{}, sharevat.Errorf(sharevat.EInvalid, "unknown state order %d", args.Order())
	}
	req := sharevat.StatePageRequest{Order: order,
		MaxCount: min(int(args.MaxEntities()), sharevat.MaxPageCount),
		MaxBytes: min(int(args.MaxBytes()), v.cfg.ReadBudget)}
	if req.MaxBytes == 0 {
		req.MaxBytes = v.cfg.ReadBudget
	}
	if args.HasAfter() {
		after, err := args.After()
		if err != nil {
			return req, sharevat.Errorf(sharevat.EInvalid, "bad state cursor")
		}
		if req.After, err = wire.ReadStateCursor(after); err != nil {
			return req, err
		}
	}
	return req, nil
}

func setPage(call schema.Reader_snapshotPage, page sharevat.StatePage) error {
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	res.SetHead(uint64(page.Head))
	res.SetDone(page.Done)
	next, err := res.NewNext()
	if err != nil {
		return err
	}
	if err := wire.SetStateCursor(next, page.Next); err != nil {
		return err
	}
	return wire.SetEntities(res.NewEntities, page.Entities)
}

// wholeState is the state for Reader.snapshot: one ByKey page without a
// count bound that stops at the read budget, so a state over it is
// refused having read no more than the budget of it.
func (v *Vat) wholeState(ctx context.Context, share sharevat.ShareID) ([]sharevat.Entity, sharevat.Cursor, error) {
	page, err := v.store.StatePage(ctx, share, sharevat.StatePageRequest{Order: sharevat.ByKey, MaxCount: -1, MaxBytes: v.cfg.ReadBudget})
	if err != nil {
		return nil, 0, err
	}
	if !page.Done {
		return nil, 0, sharevat.Errorf(sharevat.ETooLarge, "the state is over the %d-byte answer limit; page through it with snapshotPage", v.cfg.ReadBudget)
	}
	return page.Entities, page.Head, nil
}
