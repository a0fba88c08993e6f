package vat

import (
	"context"
	"sync/atomic"

	"github.com/sharevat/sharevat"
)

// DefaultMaxConnCapabilities is the default of Config.MaxConnCapabilities.
const DefaultMaxConnCapabilities = 10_000

// peerConn is the vat's side of one connection. Bootstrap creates it, and
// the connection's vault hands it to every Admin and facet obtained
// through it (narrow keeps it), so that per-connection limits follow the
// connection itself, not its address.
type peerConn struct {
	addr  string        // the peer's address, as recorded in grants and audit
	caps  atomic.Int64  // live capability objects handed to this connection
	push  *byteGate     // room for its subscriptions' pushes (Quotas.ConnPushWindow)
	reads chan struct{} // a slot per read/snapshot answer being built (Quotas.MaxConnReads)
	meter Meter         // the transport's count of this connection's memory; may be nil
	build int64         // bytes charged to meter per answer being built
}

// Meter counts bytes against one connection's memory budget (the
// transport's; see rpc.Meter). Charge fails, having closed the
// connection, when they do not fit.
type Meter interface {
	Charge(n int64) error
	Release(n int64)
}

func (v *Vat) newPeerConn(addr string, meter Meter) *peerConn {
	q := v.cfg.Quotas
	return &peerConn{addr: addr, push: newByteGate(q.ConnPushWindow), reads: make(chan struct{}, q.MaxConnReads),
		meter: meter, build: int64(v.cfg.ReadBudget)}
}

// startRead waits for one of conn's read slots: the answers a connection
// has built and not yet handed to the transport are bounded, however many
// reads it pipelines. The returned func frees the slot.
func (c *peerConn) startRead(ctx context.Context) (func(), error) {
	if ctx.Err() != nil { // the connection is gone: build nothing for it
		return nil, context.Cause(ctx)
	}
	select {
	case c.reads <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if c.meter == nil {
		return func() { <-c.reads }, nil
	}
	// What the read copies out of the store, up to the read budget, is
	// held until the answer is built; the answer itself the transport
	// counts once it is sent.
	if err := c.meter.Charge(c.build); err != nil {
		<-c.reads
		return nil, sharevat.Errorf(sharevat.ETooLarge, "this connection is over its memory budget")
	}
	return func() { c.meter.Release(c.build); <-c.reads }, nil
}

// maxConnCaps is Config.MaxConnCapabilities with its default applied;
// zero or less means no limit.
func (v *Vat) maxConnCaps() int64 {
	switch n := v.cfg.MaxConnCapabilities; {
	case n == 0:
		return DefaultMaxConnCapabilities
	case n < 0:
		return 0
	default:
		return int64(n)
	}
}

// reserveCap takes one of conn's capability slots. Errors: ETooLarge when
// conn already holds the maximum.
func (v *Vat) reserveCap(conn *peerConn) error {
	max := v.maxConnCaps()
	if n := conn.caps.Add(1); max > 0 && n > max {
		conn.caps.Add(-1)
		return errConnCaps(max)
	}
	return nil
}

// checkCapRoom fails with ETooLarge if conn has no capability slot left.
// createShare calls it before it stores anything, so a client at its
// limit does not create a share whose owner capability it cannot be
// given. (A client racing its own limit from another capability can
// still lose that race; the share is then created, and listed, but not
// handed out.)
func (v *Vat) checkCapRoom(conn *peerConn) error {
	if max := v.maxConnCaps(); max > 0 && conn.caps.Load() >= max {
		return errConnCaps(max)
	}
	return nil
}

func errConnCaps(max int64) error {
	return sharevat.Errorf(sharevat.ETooLarge, "this connection holds %d capabilities; release some", max)
}
