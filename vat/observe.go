package vat

import (
	"sync/atomic"
	"time"

	"sharevat"
	"sharevat/schema"
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
}

// nopObserver ignores every event.
type nopObserver struct{}

func (nopObserver) Redeemed(bool)                        {}
func (nopObserver) Appended(sharevat.Ack, time.Duration) {}
func (nopObserver) Revoked(int)                          {}
func (nopObserver) EpochBumped()                         {}
func (nopObserver) Capabilities(int)                     {}

// liveCaps counts capability objects handed out and not yet released; it
// is the vat's own tally, reported to the Observer as it changes.
type liveCaps struct{ n atomic.Int64 }

// exported notes a new capability object.
func (v *Vat) exported() { v.caps.n.Add(1); v.obs.Capabilities(1) }

// released notes a capability object's release (its Shutdown).
func (v *Vat) released() { v.caps.n.Add(-1); v.obs.Capabilities(-1) }

// LiveCapabilities returns how many capability objects are live.
func (v *Vat) LiveCapabilities() int64 { return v.caps.n.Load() }

// The constructors below hand out capability objects and count them; each
// object's Shutdown (called by go-capnp once its last reference is
// released) counts it back.

func (f *facet) shareClient() schema.Share {
	f.vat.exported()
	return schema.Share_ServerToClient(&shareServer{f})
}

func (f *facet) appenderClient() schema.Appender {
	f.vat.exported()
	return schema.Appender_ServerToClient(&appenderServer{f})
}

func (f *facet) readerClient() schema.Reader {
	f.vat.exported()
	return schema.Reader_ServerToClient(&readerServer{f})
}

func (a *adminServer) client() schema.Admin {
	a.vat.exported()
	return schema.Admin_ServerToClient(a)
}

// Shutdown implements server.Shutdowner.
func (s *shareServer) Shutdown() { s.f.vat.released() }

// Shutdown implements server.Shutdowner.
func (a *appenderServer) Shutdown() { a.f.vat.released() }

// Shutdown implements server.Shutdowner.
func (r *readerServer) Shutdown() { r.f.vat.released() }

// Shutdown implements server.Shutdowner.
func (a *adminServer) Shutdown() { a.vat.released() }
