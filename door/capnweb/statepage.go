package capnweb

import (
	"math"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// snapshotPage serves snapshotPage(order, after, maxEntities, maxBytes)
// → {entities, next, done, head} (schema Reader.snapshotPage): order is
// "byKey" (missing) or "byChange"; after is the previous page's next,
// {kind, key, cursor}, or missing to start.
func (t *readerTarget) snapshotPage(c *call) capnweb.Answer {
	order := c.stateOrder(c.arg(0), "order")
	after := c.stateCursor(c.arg(1), "after")
	maxN, maxB := c.u32(c.arg(2), "maxEntities"), c.u32(c.arg(3), "maxBytes")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.SnapshotPage(c.ctx, func(p schema.Reader_snapshotPage_Params) error {
		p.SetOrder(order)
		p.SetMaxEntities(maxN)
		p.SetMaxBytes(maxB)
		dst, err := p.NewAfter()
		if err != nil {
			return err
		}
		return wire.SetStateCursor(dst, after)
	})
	return awaitHeld(c.ctx, fut.Struct, rel, func(r schema.Reader_snapshotPage_Results) (capnweb.Value, error) {
		ents, err := read(r.Entities, wire.ReadEntities)
		if err != nil {
			return nil, err
		}
		next, err := read(r.Next, wire.ReadStateCursor)
		if err != nil {
			return nil, err
		}
		return capnweb.NewObject().Set("entities", entitiesValue(ents)).Set("next", stateCursorValue(next)).
			Set("done", r.Done()).Set("head", r.Head()), nil
	})
}

// stateOrder decodes a StateOrder name; missing is byKey.
func (d *dec) stateOrder(v capnweb.Value, name string) schema.StateOrder {
	s := d.text(v, name)
	if s == "" {
		return schema.StateOrder_byKey
	}
	o := schema.StateOrderFromString(s)
	if o.String() != s {
		d.fail(name, `"byKey" or "byChange"`)
	}
	return o
}

// stateCursor decodes a StateCursor {kind, key, cursor}; missing is the
// start.
func (d *dec) stateCursor(v capnweb.Value, name string) sharevat.StateCursor {
	o := d.object(v, name)
	return sharevat.StateCursor{
		Kind: d.text(field(o, "kind"), name+".kind"), Key: d.text(field(o, "key"), name+".key"),
		Cursor: sharevat.Cursor(d.u64(field(o, "cursor"), name+".cursor", math.MaxUint64)),
	}
}

func stateCursorValue(c sharevat.StateCursor) capnweb.Value {
	return capnweb.NewObject().Set("kind", c.Kind).Set("key", c.Key).Set("cursor", uint64(c.Cursor))
}
