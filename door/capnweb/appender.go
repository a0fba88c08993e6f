package capnweb

import (
	"context"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// appenderTarget is an Appender.
//
// Methods: append(batch) → Ack (a rejected op is a result in the Ack,
// not an error); save(ttlSeconds, label) → Minted.
type appenderTarget struct{ capTarget[schema.Appender] }

func newAppender(c schema.Appender) *appenderTarget {
	return &appenderTarget{capTarget[schema.Appender]{c: c}}
}

// Call implements capnweb.Target.
func (t *appenderTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	c := newCall(ctx, "Appender", method, args)
	switch method {
	case "append":
		return t.append(c)
	case "save":
		return t.save(c)
	}
	return notFunction(method)
}

func (t *appenderTarget) append(c *call) capnweb.Answer {
	b := c.batch(c.arg(0), "batch")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Append(c.ctx, func(p schema.Appender_append_Params) error {
		dst, err := p.NewBatch()
		if err != nil {
			return err
		}
		return wire.SetBatch(dst, b)
	})
	return await(fut.Struct, rel, func(r schema.Appender_append_Results) (capnweb.Value, error) {
		ack, err := read(r.Ack, wire.ReadAck)
		return ackValue(ack), err
	})
}

func (t *appenderTarget) save(c *call) capnweb.Answer {
	ttl, label := c.i64(c.arg(0), "ttlSeconds"), c.text(c.arg(1), "label")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Save(c.ctx, func(p schema.Appender_save_Params) error {
		p.SetTtlSeconds(ttl)
		return p.SetLabel(label)
	})
	return await(fut.Struct, rel, func(r schema.Appender_save_Results) (capnweb.Value, error) {
		return mintedResult(r.Minted)
	})
}
