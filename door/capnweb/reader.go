package capnweb

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// readerTarget is a Reader.
//
// Methods: read(fromCursor, limit) → {ops, head}; snapshot() →
// {entities, cursor}; snapshotPage(order, after, maxEntities, maxBytes) →
// {entities, next, done, head} (statepage.go); subscribe(fromCursor, sink) → Subscription (sink:
// an object with push(ops) and optionally end(code, detail), or a
// function; see sink.go); save(ttlSeconds, label) → Minted.
type readerTarget struct{ capTarget[schema.Reader] }

func newReader(c schema.Reader) *readerTarget { return &readerTarget{capTarget[schema.Reader]{c: c}} }

// Call implements capnweb.Target.
func (t *readerTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	c := newCall(ctx, "Reader", method, args)
	switch method {
	case "read":
		return t.read(c)
	case "snapshot":
		fut, rel := t.c.Snapshot(c.ctx, nil)
		return awaitHeld(c.ctx, fut.Struct, rel, func(r schema.Reader_snapshot_Results) (capnweb.Value, error) {
			ents, err := read(r.Entities, wire.ReadEntities)
			if err != nil {
				return nil, err
			}
			return capnweb.NewObject().Set("entities", entitiesValue(ents)).Set("cursor", r.Cursor()), nil
		})
	case "snapshotPage":
		return t.snapshotPage(c)
	case "subscribe":
		return t.subscribe(c)
	case "save":
		return t.save(c)
	}
	return notFunction(method)
}

func (t *readerTarget) read(c *call) capnweb.Answer {
	from, limit := c.u64(c.arg(0), "fromCursor", math.MaxUint64), c.u32(c.arg(1), "limit")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Read(c.ctx, func(p schema.Reader_read_Params) error {
		p.SetFromCursor(from)
		p.SetLimit(limit)
		return nil
	})
	return awaitHeld(c.ctx, fut.Struct, rel, func(r schema.Reader_read_Results) (capnweb.Value, error) {
		ops, err := entriesFrom(r.Ops)
		if err != nil {
			return nil, err
		}
		return capnweb.NewObject().Set("ops", ops).Set("head", r.Head()), nil
	})
}

// subscribe serves a local OpSink for the peer's sink stub (which it
// keeps until the subscription ends) and subscribes it.
func (t *readerTarget) subscribe(c *call) capnweb.Answer {
	from := c.u64(c.arg(0), "fromCursor", math.MaxUint64)
	stub, ok := c.arg(1).(*capnweb.Stub)
	if c.err == nil && !ok {
		c.err = sharevat.Errorf(sharevat.EInvalid, "%s: sink must be an object with push(ops) or a function", c.method)
	}
	if c.err != nil {
		return failed(c.err)
	}
	k := newSink(stub.Keep())
	var placed atomic.Bool
	fut, rel := t.c.Subscribe(c.ctx, func(p schema.Reader_subscribe_Params) error {
		placed.Store(true)
		p.SetFromCursor(from)
		return p.SetSink(schema.OpSink_ServerToClient(k))
	})
	return await(func() (schema.Reader_subscribe_Results, error) {
		r, err := fut.Struct()
		if !placed.Load() { // the call never took the sink: nothing will release it
			k.Shutdown()
		}
		return r, err
	}, rel, func(r schema.Reader_subscribe_Results) (capnweb.Value, error) {
		return newSubscription(r.Subscription().AddRef()), nil
	})
}

func (t *readerTarget) save(c *call) capnweb.Answer {
	ttl, label := c.i64(c.arg(0), "ttlSeconds"), c.text(c.arg(1), "label")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Save(c.ctx, func(p schema.Reader_save_Params) error {
		p.SetTtlSeconds(ttl)
		return p.SetLabel(label)
	})
	return await(fut.Struct, rel, func(r schema.Reader_save_Results) (capnweb.Value, error) {
		return mintedResult(r.Minted)
	})
}

// subscriptionTarget is a Subscription. Releasing it (the peer disposing
// of its stub, or the session ending) ends the subscription.
//
// Methods: cursor() → number, the last cursor pushed.
type subscriptionTarget struct{ capTarget[schema.Subscription] }

func newSubscription(c schema.Subscription) *subscriptionTarget {
	return &subscriptionTarget{capTarget[schema.Subscription]{c: c}}
}

// Call implements capnweb.Target.
func (t *subscriptionTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	if method != "cursor" {
		return notFunction(method)
	}
	fut, rel := t.c.Cursor(ctx, nil)
	return await(fut.Struct, rel, func(r schema.Subscription_cursor_Results) (capnweb.Value, error) {
		return r.Cursor(), nil
	})
}
