package mcp

import (
	"context"
	"sync"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/client"
)

// Local is the Source of a session served in the vat's own process: its
// token redeemed on the vat's bootstrap (vat.Bootstrap), on first use,
// and kept. A failed redeem is not kept, so a store that was down is
// asked again; a revoked grant kills the kept Share, whose next call
// answers revoked, as on every door.
type Local struct {
	conn  *client.Conn
	token string

	mu sync.Mutex
	sh *client.Share
}

// NewLocal returns the Source of token on boot, the vat's bootstrap
// client for this session; Local owns boot and releases it on Close.
func NewLocal(boot capnp.Client, token string) *Local {
	return &Local{conn: client.NewLocalConn(boot), token: token}
}

// Share implements Source.
func (l *Local) Share(ctx context.Context) (*client.Share, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sh != nil {
		return l.sh, nil
	}
	sh, err := l.conn.Redeem(ctx, l.token)
	if err != nil {
		return nil, err
	}
	l.sh = sh
	return sh, nil
}

// Fail implements Source: in-process there is no connection to lose, so
// nothing is dropped.
func (l *Local) Fail(*client.Share, error) {}

// Close releases the Share and the bootstrap client.
func (l *Local) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sh != nil {
		l.sh.Release()
		l.sh = nil
	}
	l.conn.Close()
}
