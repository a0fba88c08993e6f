package vat

import (
	"context"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// appenderServer is the Appender capability for one grant.
type appenderServer struct{ f *facet }

var _ schema.Appender_Server = (*appenderServer)(nil)

// Append applies one batch with the semantics of docs/design.md §5 and answers
// only once it is durable. It keeps E-order: batches sent on one Appender
// commit in the order they were sent. The share's privacy policy (its
// settings, cached by the vat: settings.go) goes with the batch to the
// store, whose append engine applies it (check 6).
func (a *appenderServer) Append(ctx context.Context, call schema.Appender_append) error {
	return a.f.run(ctx, "Appender.append", sharevat.ScopeAppend, func(ctx context.Context) error {
		src, err := call.Args().Batch()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed batch")
		}
		batch, err := wire.ReadBatch(src)
		if err != nil {
			return err
		}
		pol, err := a.f.vat.privacy(ctx, a.f.share())
		if err != nil {
			return err
		}
		start := time.Now()
		ack, err := a.f.vat.appendWithin(ctx, a.f.share(), batch, func() (sharevat.Ack, error) { // sharebytes.go
			return a.f.vat.store.Append(ctx, sharevat.AppendRequest{
				Share: a.f.share(), Batch: batch, Limits: a.f.vat.cfg.Limits, Now: a.f.vat.now(), Privacy: pol,
			})
		})
		if err != nil {
			return err
		}
		a.f.vat.hub.publish(a.f.share(), ack.Head)
		a.f.vat.obs.Appended(ack, time.Since(start))
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

// Save mints a token that redeems to append-only access; it needs
// delegate on the grant behind this Appender.
func (a *appenderServer) Save(ctx context.Context, call schema.Appender_save) error {
	return a.f.run(ctx, "Appender.save", sharevat.ScopeDelegate, func(ctx context.Context) error {
		return save(ctx, a.f, sharevat.ScopeAppend, call.Args(), call.AllocResults)
	})
}
