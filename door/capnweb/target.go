package capnweb

import (
	"context"
	"sync"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/capnweb"
)

// capTarget is the part every Target shares: the vat's client of the
// object, released once when the peer releases the Target.
type capTarget[C interface{ Release() }] struct {
	c    C
	once sync.Once
}

// Release implements capnweb.Releaser.
func (t *capTarget[C]) Release() { t.once.Do(t.c.Release) }

// call is one call the peer made: its context, arguments and decoder.
type call struct {
	dec
	ctx  context.Context
	args []capnweb.Value
}

func newCall(ctx context.Context, iface, method string, args []capnweb.Value) *call {
	return &call{dec: dec{method: iface + "." + method}, ctx: ctx, args: args}
}

// arg returns argument i (undefined when not sent).
func (c *call) arg(i int) capnweb.Value { return arg(c.args, i) }

// await answers a started Cap'n Proto call: it waits for the results
// (get is the future's Struct), converts them with conv, and releases
// them. A failure of either is answered as webError says.
func await[R any](get func() (R, error), release capnp.ReleaseFunc, conv func(R) (capnweb.Value, error)) capnweb.Answer {
	return func() (capnweb.Value, error) {
		defer release()
		r, err := get()
		if err != nil {
			return nil, webError(err)
		}
		v, err := conv(r)
		if err != nil {
			return nil, webError(err)
		}
		return v, nil
	}
}

// none converts the results of a method with no result: undefined.
func none[R any](R) (capnweb.Value, error) { return capnweb.Undefined, nil }

// read decodes a struct field of some results with one of package
// wire's readers.
func read[S, D any](get func() (S, error), conv func(S) (D, error)) (D, error) {
	s, err := get()
	if err != nil {
		var zero D
		return zero, err
	}
	return conv(s)
}
