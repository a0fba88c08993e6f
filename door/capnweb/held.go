package capnweb

import (
	"context"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// heldCopies is how many times its results' size an answer that carries
// op bodies holds while it is converted: the Cap'n Proto message (kept
// until the conversion ends) and the values it becomes (which the
// session charges itself once they are returned).
const heldCopies = 2

// results is what every Cap'n Proto results struct can answer.
type results interface{ Message() *capnp.Message }

// awaitHeld is await for results that may be large (a read's page, a
// snapshot): the vat charges the answer it builds only while building
// it, so once the results arrive their size, times heldCopies, is
// charged to the session's budget (capnweb.SessionMeter of ctx) until
// they are converted and released. Many pipelined reads then cannot hold
// more than the budget between the vat and the session; when the charge
// does not fit, the session is being closed for memory and the results
// are dropped at once.
func awaitHeld[R results](ctx context.Context, get func() (R, error), release capnp.ReleaseFunc, conv func(R) (capnweb.Value, error)) capnweb.Answer {
	meter := capnweb.SessionMeter(ctx)
	return func() (capnweb.Value, error) {
		r, err := get()
		if err != nil {
			release()
			return nil, webError(err)
		}
		held := heldSize(r) * heldCopies
		if meter != nil {
			if meter.Charge(held) != nil {
				release()
				return nil, webError(sharevat.Errorf(sharevat.ETooLarge, "this session is over its memory budget"))
			}
			defer meter.Release(held)
		}
		v, err := conv(r)
		release()
		if err != nil {
			return nil, webError(err)
		}
		return v, nil
	}
}

// heldSize is the bytes of r's message.
func heldSize(r results) int64 {
	m := r.Message()
	if m == nil {
		return 0
	}
	n, err := m.TotalSize()
	if err != nil {
		return 0
	}
	return int64(n)
}

// entriesFrom converts a page of log entries straight from the results'
// message: the bodies are decoded from the message's bytes, not copied
// out of it first (wire.ReadEntries would).
func entriesFrom(get func() (schema.LogEntry_List, error)) ([]capnweb.Value, error) {
	l, err := get()
	if err != nil {
		return nil, err
	}
	out := make([]capnweb.Value, l.Len())
	for i := range out {
		v, err := entryFrom(l.At(i))
		if err != nil {
			return nil, sharevat.Errorf(sharevat.EInvalid, "malformed log entries")
		}
		out[i] = v
	}
	return out, nil
}

// entryFrom is one LogEntry as entriesValue makes it.
func entryFrom(src schema.LogEntry) (capnweb.Value, error) {
	var first error
	text := func(get func() (string, error)) string {
		s, err := get()
		if first == nil {
			first = err
		}
		return s
	}
	opID, batchID, kind, key := text(src.OpId), text(src.BatchId), text(src.Kind), text(src.Key)
	body, err := src.Body()
	if err != nil {
		return nil, err
	}
	return capnweb.NewObject().
		Set("cursor", src.Cursor()).
		Set("opId", opID).
		Set("batchId", batchID).
		Set("seq", src.Seq()).
		Set("kind", kind).
		Set("key", key).
		Set("body", decodeBodyView(body)).
		Set("delete", src.Delete()).
		Set("at", timeValue(wire.Time(src.At()))), first
}
