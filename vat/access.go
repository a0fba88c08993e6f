package vat

import (
	"context"

	"github.com/sharevat/sharevat"
)

// facet is the authority behind one live capability: a live grant on a
// share, as seen from one peer, narrowed to rights (the grant's scope for
// a Share; append or read alone for an Appender or Reader). Capabilities
// a facet hands out carry the same live grant, so revoking it cuts them
// all.
type facet struct {
	vat    *Vat
	lg     *liveGrant
	rights sharevat.Scope
	peer   string    // the connection's address (conn.addr), for grants and audit
	conn   *peerConn // the connection the facet's capabilities are handed to
}

// maxGrantDepth bounds a delegation chain; a deeper one is refused at
// mint and treated as corrupt at load.
const maxGrantDepth = 64

func (f *facet) share() sharevat.ShareID { return f.lg.g.ShareID }

// narrow returns a facet on the same grant and connection with fewer
// rights.
func (f *facet) narrow(rights sharevat.Scope) *facet {
	n := *f
	n.rights = rights & f.lg.g.Scope
	return &n
}

// run is guard for facet calls: it checks validity and rights before the
// call, and runs fn with a context that is cancelled the moment the grant
// dies, so a revoke cancels in-flight calls too. A call cut short that
// way answers revoked.
func (f *facet) run(ctx context.Context, method string, need sharevat.Scope, fn func(context.Context) error) error {
	return f.vat.guard(ctx, method, func() error {
		if err := f.check(need); err != nil {
			return err
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(f.lg.ctx, func() { cancel(errDead) })
		defer stop()
		err := fn(ctx)
		if err != nil && f.lg.ctx.Err() != nil {
			return errDead
		}
		return err
	})
}

// check re-validates the grant and requires the rights in need. A dead
// grant is ERevoked; a live one without the rights EPermissionDenied.
func (f *facet) check(need sharevat.Scope) error {
	now := f.vat.now()
	if !f.lg.alive(now) {
		return errDead
	}
	if !f.rights.Has(need) {
		return sharevat.Errorf(sharevat.EPermissionDenied, "needs %s; this capability has %s", need, f.rights)
	}
	f.lg.touch(now)
	return nil
}

// access describes the facet's own rights for the wire.
func (f *facet) access() sharevat.Access {
	g := &f.lg.g
	return sharevat.Access{GrantID: g.ID, Scope: f.rights, Epoch: g.Epoch, ExpiresAt: f.lg.expires}
}
