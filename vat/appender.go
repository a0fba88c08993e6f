package vat

import (
	"context"

	"sharevat"
	"sharevat/schema"
	"sharevat/wire"
)

// appenderServer is the Appender capability for one grant.
type appenderServer struct{ f *facet }

var _ schema.Appender_Server = (*appenderServer)(nil)

// Append applies one batch with the semantics of DESIGN.md §5 and answers
// only once it is durable. It keeps E-order: batches sent on one Appender
// commit in the order they were sent.
func (a *appenderServer) Append(ctx context.Context, call schema.Appender_append) error {
	return a.f.vat.guard(ctx, "Appender.append", func() error {
		if _, _, err := a.f.check(ctx, sharevat.ScopeAppend); err != nil {
			return err
		}
		src, err := call.Args().Batch()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed batch")
		}
		batch, err := wire.ReadBatch(src)
		if err != nil {
			return err
		}
		ack, err := a.f.vat.store.Append(ctx, sharevat.AppendRequest{
			Share: a.f.share, Batch: batch, Limits: a.f.vat.cfg.Limits, Now: a.f.vat.now(),
		})
		if err != nil {
			return err
		}
		return setAck(call, ack)
	})
}

func setAck(call schema.Appender_append, ack sharevat.Ack) error {
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	dst, err := res.NewAck()
	if err != nil {
		return err
	}
	return wire.SetAck(dst, ack)
}

// Save mints a token for this facet (a later release).
func (a *appenderServer) Save(ctx context.Context, call schema.Appender_save) error {
	return unimplemented("Appender.save")
}
