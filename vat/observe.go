package vat

import (
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// Observer receives the vat's events for metrics. Methods are called on
// the request path: they must be cheap and must not block. Nothing a
// method receives holds a secret.
type Observer interface {
	// Redeemed reports one redeem (restore or restoreAdmin) and whether it
	// succeeded.
	Redeemed(ok bool)
	// Appended reports one append call's ack and how long the call took.
	Appended(ack sharevat.Ack, took time.Duration)
	// Revoked reports a revocation of n grants (a grant and its subtree).
	Revoked(n int)
	// EpochBumped reports an epoch bump.
	EpochBumped()
	// Capabilities reports a change in the number of live capability
	// objects (Admin, Share, Appender, Reader) the vat has handed out.
	Capabilities(delta int)
	// LimitHit reports a call refused by a quota (the Limit* names).
	LimitHit(limit string)
}

// nopObserver ignores every event.
type nopObserver struct{}

func (nopObserver) Redeemed(bool)                        {}
func (nopObserver) Appended(sharevat.Ack, time.Duration) {}
func (nopObserver) Revoked(int)                          {}
func (nopObserver) EpochBumped()                         {}
func (nopObserver) Capabilities(int)                     {}
func (nopObserver) LimitHit(string)                      {}

// liveCaps counts capability objects handed out and not yet released; it
// is the vat's own tally, reported to the Observer as it changes. Each
// connection keeps its own count too (peerConn.caps).
type liveCaps struct{ n atomic.Int64 }

// exported notes a new capability object handed to conn, or refuses it
// (ETooLarge) when conn holds Config.MaxConnCapabilities already.
func (v *Vat) exported(conn *peerConn) error {
	if err := v.reserveCap(conn); err != nil {
		return err
	}
	v.caps.n.Add(1)
	v.obs.Capabilities(1)
	return nil
}

// released notes a capability object's release (its Shutdown).
func (v *Vat) released(conn *peerConn) {
	conn.caps.Add(-1)
	v.caps.n.Add(-1)
	v.obs.Capabilities(-1)
}

// LiveCapabilities returns how many capability objects are live.
func (v *Vat) LiveCapabilities() int64 { return v.caps.n.Load() }

// The constructors below hand out capability objects and count them
// against the vat and the facet's connection; each object's Shutdown
// (called by go-capnp once its last reference is released, which a
// connection's end does for all it held) counts it back. Over the
// connection's limit they return ETooLarge and create nothing.

func (f *facet) shareClient() (schema.Share, error) {
	if err := f.vat.exported(f.conn); err != nil {
		return schema.Share{}, err
	}
	srv := &shareServer{f}
	return schema.Share(guarded(schema.Share_Methods(nil, srv), srv, f.vat.log)), nil
}

func (f *facet) appenderClient() (schema.Appender, error) {
	if err := f.vat.exported(f.conn); err != nil {
		return schema.Appender{}, err
	}
	srv := &appenderServer{f}
	return schema.Appender(guarded(schema.Appender_Methods(nil, srv), srv, f.vat.log)), nil
}

func (f *facet) readerClient() (schema.Reader, error) {
	if err := f.vat.exported(f.conn); err != nil {
		return schema.Reader{}, err
	}
	srv := &readerServer{f}
	return schema.Reader(guarded(schema.Reader_Methods(nil, srv), srv, f.vat.log)), nil
}

func (a *adminServer) client() (schema.Admin, error) {
	if err := a.vat.exported(a.conn); err != nil {
		return schema.Admin{}, err
	}
	return schema.Admin(guarded(schema.Admin_Methods(nil, a), a, a.vat.log)), nil
}

// Shutdown implements server.Shutdowner.
func (s *shareServer) Shutdown() { s.f.vat.released(s.f.conn) }

// Shutdown implements server.Shutdowner.
func (a *appenderServer) Shutdown() { a.f.vat.released(a.f.conn) }

// Shutdown implements server.Shutdowner.
func (r *readerServer) Shutdown() { r.f.vat.released(r.f.conn) }

// Shutdown implements server.Shutdowner.
func (a *adminServer) Shutdown() { a.vat.released(a.conn) }
