package client

import "context"

// The names before the naming review of issue 9, kept only until their
// last callers (cmd/sharevat) switch; then this file goes.

// Session is the old name of Redeemer.
//
// Deprecated: use Redeemer.
type Session = Redeemer

// SessionOptions is the old name of RedeemerOptions.
//
// Deprecated: use RedeemerOptions.
type SessionOptions = RedeemerOptions

// NewSession is the old name of NewRedeemer.
//
// Deprecated: use NewRedeemer.
func NewSession(url, token string, opts *SessionOptions) *Session {
	return NewRedeemer(url, token, opts)
}

// Admin is the old name of RedeemAdmin.
//
// Deprecated: use Conn.RedeemAdmin.
func (c *Conn) Admin(ctx context.Context, token string) (*Admin, error) {
	return c.RedeemAdmin(ctx, token)
}
