package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/door/gate"
)

// HTTPOptions configure the Streamable HTTP door.
type HTTPOptions struct {
	Options
	// Bootstrap returns the vat's bootstrap client for a peer
	// (vat.Bootstrap); required.
	Bootstrap func(peer string) capnp.Client
	// MaxRequestBytes bounds each request's body; default 4 MiB.
	MaxRequestBytes int64
	// SessionTimeout closes a session idle this long; default 30m.
	SessionTimeout time.Duration
	// Logger gets the transport's log (never a token); nil discards it.
	Logger *slog.Logger
	// MaxSessions bounds the live sessions; default DefaultMaxSessions.
	MaxSessions int
	// MaxSessionsPerToken bounds the live sessions of one bearer token;
	// default DefaultMaxSessionsPerToken.
	MaxSessionsPerToken int
	// Budget, if set, is the server's one memory budget: each request's
	// body is charged to it by the gate (door/gate) before it is read,
	// and each live session SessionMemory (a new one is refused 503 when
	// it is full); nil: none.
	Budget Budget
	// CallerShare is the most of Budget the bodies of one grant may hold
	// at once (gate.Options.CallerShare); <= 0: no bound but Budget.
	CallerShare int64
	// Expansion is what each body byte is charged to Budget; default
	// DefaultExpansion.
	Expansion int64
	// SessionMemory is what a session is charged; default
	// DefaultSessionMemory.
	SessionMemory int64
	// BodyTimeout bounds the reading of a request's body (408 past it);
	// default DefaultBodyTimeout.
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is the default HTTPOptions.BodyTimeout.
const DefaultBodyTimeout = gate.DefaultBodyTimeout

// DefaultExpansion is the default HTTPOptions.Expansion: what a request
// of the door holds per byte of its body while it is served, measured
// (hostilerss mcp-valid-appends: ~110 MiB of RSS per ~7 MiB append_ops)
// — the body, the SDK's copy of its params, the generic values of its
// schema check, the tool's arguments, the batch sent to the vat, and the
// garbage collector's headroom on all of them.
const DefaultExpansion = 16

// Challenge is the WWW-Authenticate header of the door's 401 (RFC 6750).
const Challenge = `Bearer realm="sharevat"`

// passKey is the TokenInfo.Extra key of the request's gate.Pass.
const passKey = "sharevat-pass"

// NewHTTPHandler serves MCP over Streamable HTTP (the /mcp route of
// `sharevat serve`) behind the gate (door/gate): every request's body is
// bounded, its "Authorization: Bearer <share token>" redeemed on the vat
// before a byte of the body is read (401 with WWW-Authenticate for any
// failure of the token), and the body charged to Budget. A session is
// bound to the token it began with (the SDK answers 403 to a request of
// that session with another); a new session is refused 503 past
// MaxSessions, past MaxSessionsPerToken of one token, or when Budget
// cannot take its SessionMemory (limit.go). Each tool call acts on the
// Share its own request redeemed, so a revoked grant fails the session's
// next request.
func NewHTTPHandler(opts HTTPOptions) http.Handler {
	opts = withDefaults(opts)
	srv := newServer(passSource, opts.Options)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:              opts.Logger,
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxRequestBytes,
		// The server's Host and Origin guards (server/guard.go) already
		// decide which names it answers to.
		DisableLocalhostProtection: true,
	})
	lim := &limiter{srv: srv, max: opts.MaxSessions, perToken: opts.MaxSessionsPerToken,
		memory: opts.SessionMemory, budget: opts.Budget, byToken: map[string]int{}}
	door := auth.RequireBearerToken(bearer, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(lim.wrap(boundOps(opts.Limits.MaxOpsPerBatch, h)))
	return gate.New(gate.Options{Door: "mcp", Vault: gate.NewVault(opts.Bootstrap), Token: gate.Bearer,
		Challenge: Challenge, MaxBody: opts.MaxRequestBytes, BodyTimeout: opts.BodyTimeout,
		Budget: opts.Budget, CallerShare: opts.CallerShare, Expansion: opts.Expansion}, door)
}

// withDefaults fills in the zero fields of opts.
func withDefaults(opts HTTPOptions) HTTPOptions {
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = mcp.DefaultMaxRequestBodyBytes
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerToken <= 0 {
		opts.MaxSessionsPerToken = DefaultMaxSessionsPerToken
	}
	if opts.SessionMemory <= 0 {
		opts.SessionMemory = DefaultSessionMemory
	}
	if opts.Limits == (sharevat.Limits{}) {
		opts.Limits = sharevat.DefaultLimits()
	}
	if opts.Expansion <= 0 {
		opts.Expansion = DefaultExpansion
	}
	return opts
}

// bearer hands the SDK what the gate admitted: the token's digest as
// UserID, which binds a session to its token without keeping the token
// where the SDK might show it, and the request's Pass.
func bearer(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	p := gate.PassFrom(ctx)
	if p == nil {
		return nil, auth.ErrInvalidToken // a wiring bug: the gate is in front
	}
	sum := sha256.Sum256([]byte(token))
	return &auth.TokenInfo{UserID: hex.EncodeToString(sum[:]), Extra: map[string]any{passKey: p}}, nil
}

// passOf returns the gate's Pass of req's HTTP request.
func passOf(extra *mcp.RequestExtra) *gate.Pass {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	p, _ := extra.TokenInfo.Extra[passKey].(*gate.Pass)
	return p
}

// passSource is the Source of an HTTP tool call: the Share its request's
// token redeemed at the gate, which the gate releases when the request
// ends.
func passSource(_ context.Context, extra *mcp.RequestExtra) (Source, error) {
	p := passOf(extra)
	if p == nil || !p.Share().IsValid() {
		return nil, gate.ErrToken
	}
	return passShare{client.NewLocalShare(p.Share(), p.Access, p.Info)}, nil
}

// passShare is a Source of one request's Share; the Pass owns it.
type passShare struct{ sh *client.Share }

// Share implements Source.
func (p passShare) Share(context.Context) (*client.Share, error) { return p.sh, nil }

// Fail implements Source: in-process there is no connection to lose.
func (passShare) Fail(*client.Share, error) {}
