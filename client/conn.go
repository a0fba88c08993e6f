package client

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Options tune a connection; nil or the zero value takes every default.
type Options struct {
	// Header holds extra headers for the WebSocket handshake (Origin,
	// User-Agent, a proxy's Authorization, …).
	Header http.Header
	// ReadLimit is the largest message accepted from the vat, in bytes;
	// default 16 MiB. A larger one closes the connection.
	ReadLimit int64
	// PingInterval is how often the vat is pinged; default 30s; negative:
	// never.
	PingInterval time.Duration
	// PongTimeout is the longest silence from the vat before the
	// connection is closed; default 60s; negative: wait forever.
	PongTimeout time.Duration
	// WriteTimeout bounds the sending of each message; default 30s.
	WriteTimeout time.Duration
	// Logger gets the transport's log; nil discards it.
	Logger *slog.Logger
}

// dialOptions converts o for the transport; nil stays nil.
func (o *Options) dialOptions() *rpc.DialOptions {
	if o == nil {
		return nil
	}
	return &rpc.DialOptions{Header: o.Header, ReadLimit: o.ReadLimit, PingInterval: o.PingInterval,
		PongTimeout: o.PongTimeout, WriteTimeout: o.WriteTimeout, Logger: o.Logger}
}

// Conn is one connection to a vat. Its capabilities die with it.
type Conn struct {
	rc    *rpc.Conn
	vault schema.Vault

	mu     sync.Mutex
	limits *sharevat.Limits // once asked
}

// Dial connects to the vat at vatURL, in any form RPCURL takes (its
// base http(s)://HOST:PORT, or the ws(s)://…/rpc that `sharevat serve`
// prints, or …/capnweb), at its /rpc endpoint, and resolves its Vault.
// ctx bounds the handshake only; the connection lives until Close or
// until it fails (Done). A URL that cannot name a vat is EInvalid; every
// failure to connect is EUnavailable, its message saying why (no
// answer, an upgrade refused).
func Dial(ctx context.Context, vatURL string, opts *Options) (*Conn, error) {
	url, err := RPCURL(vatURL)
	if err != nil {
		return nil, err
	}
	rc, err := rpc.Dial(ctx, url, opts.dialOptions())
	if err != nil {
		return nil, sharevat.Errorf(sharevat.EUnavailable, "%v", err)
	}
	boot, err := rc.BootstrapResolved(ctx)
	if err != nil {
		rc.Close()
		return nil, sharevat.Errorf(sharevat.EUnavailable, "bootstrap %s: %v", url, err)
	}
	return &Conn{rc: rc, vault: schema.Vault(boot)}, nil
}

// Close releases every capability and closes the connection.
func (c *Conn) Close() error {
	c.vault.Release()
	if c.rc == nil { // NewLocalConn
		return nil
	}
	return c.rc.Close()
}

// Done is closed when the connection ends (never, for NewLocalConn).
func (c *Conn) Done() <-chan struct{} {
	if c.rc == nil {
		return nil
	}
	return c.rc.Done()
}

// Redeem redeems a share token (Vault.restore) into a Share narrowed to
// the token's grant. Surrounding whitespace is ignored (see cleanToken).
// Every failure to redeem is sharevat.ErrUnauthorized, whatever its cause.
func (c *Conn) Redeem(ctx context.Context, token string) (*Share, error) {
	token = cleanToken(token)
	for attempt := 0; ; attempt++ {
		s, err := c.restore(ctx, token)
		if !isNullClient(err) || attempt == 2 {
			return s, err
		}
	}
}

func (c *Conn) restore(ctx context.Context, token string) (*Share, error) {
	fut, release := c.vault.Restore(ctx, func(p schema.Vault_restore_Params) error { return p.SetToken(token) })
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, fromWire(err)
	}
	s := &Share{cap: res.Share().AddRef()}
	if err := readAccessInfo(res.Access, res.Info, &s.Access, &s.Info); err != nil {
		s.Release()
		return nil, err
	}
	return s, nil
}

// RedeemAdmin redeems the server's admin token (Vault.restoreAdmin), as
// read from <data>/admin.token, into an Admin: Redeem's counterpart for
// the one token that is not a share's. Surrounding whitespace, such as
// the file's trailing newline, is ignored (see cleanToken). Every failure
// to redeem is sharevat.ErrUnauthorized, whatever its cause.
func (c *Conn) RedeemAdmin(ctx context.Context, token string) (*Admin, error) {
	token = cleanToken(token)
	fut, release := c.vault.RestoreAdmin(ctx, func(p schema.Vault_restoreAdmin_Params) error { return p.SetToken(token) })
	defer release()
	if _, err := fut.Struct(); err != nil {
		return nil, fromWire(err)
	}
	return &Admin{cap: fut.Admin().AddRef()}, nil
}

// cleanToken drops the whitespace around a token — the newline of a
// token file, the spaces of a paste — as the CLI does. No token holds
// whitespace, so nothing valid is changed; without this, such a token
// would fail as unauthorized with no hint why.
func cleanToken(token string) string { return strings.TrimSpace(token) }

// OpenAdmin asks a server started with --open for a create-only Admin,
// without a token (Vault.openAdmin): it can create shares and nothing
// else. Other servers answer EPermissionDenied.
func (c *Conn) OpenAdmin(ctx context.Context) (*Admin, error) {
	fut, release := c.vault.OpenAdmin(ctx, nil)
	defer release()
	if _, err := fut.Struct(); err != nil {
		return nil, fromWire(err)
	}
	return &Admin{cap: fut.Admin().AddRef()}, nil
}

// readAccessInfo decodes the (access, info) result pair.
func readAccessInfo(acc func() (schema.Access, error), info func() (schema.ShareInfo, error),
	a *sharevat.Access, s *sharevat.Share) error {
	src, err := acc()
	if err == nil {
		*a, err = wire.ReadAccess(src)
	}
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	si, err := info()
	if err == nil {
		*s, err = wire.ReadShareInfo(si)
	}
	return err
}

// Ping makes the cheapest possible call: a round trip to the vat.
func (c *Conn) Ping(ctx context.Context) error {
	fut, release := c.vault.Ping(ctx, nil)
	defer release()
	_, err := fut.Struct()
	return fromWire(err)
}

// Limits returns the append limits the vat enforces (its serve flags),
// asked once per connection (an error is not kept: the next call asks
// again). A vat older than the limits call answers an error.
func (c *Conn) Limits(ctx context.Context) (sharevat.Limits, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limits != nil {
		return *c.limits, nil
	}
	fut, release := c.vault.Limits(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Limits{}, fromWire(err)
	}
	lim, err := res.Limits()
	if err != nil {
		return sharevat.Limits{}, fromWire(err)
	}
	l := wire.ReadLimits(lim)
	c.limits = &l
	return l, nil
}
