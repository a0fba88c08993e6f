package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
)

// HTTPOptions configure the Streamable HTTP door.
type HTTPOptions struct {
	Options
	// Bootstrap returns the vat's bootstrap client for a new session
	// from peer (vat.Bootstrap); required.
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
	// Budget, if set, is charged SessionMemory for each live session (a
	// new one is refused 503 when it is full); nil: none.
	Budget Budget
	// SessionMemory is what a session is charged; default
	// DefaultSessionMemory.
	SessionMemory int64
	// BodyTimeout bounds the reading of a request's body (408 past it);
	// default DefaultBodyTimeout.
	BodyTimeout time.Duration
}

// tokenKey is the TokenInfo.Extra key of the request's bearer token.
const tokenKey = "sharevat-token"

// peerKey is the TokenInfo.Extra key of the request's remote address.
const peerKey = "sharevat-peer"

// NewHTTPHandler serves MCP over Streamable HTTP (the /mcp route of
// `sharevat serve`). Every request must carry "Authorization: Bearer
// <share token>" (401 without one); a session is bound to the token it
// began with (the SDK answers 403 to a request of that session with
// another). A new session is refused 503 past MaxSessions, past
// MaxSessionsPerToken of one token, or when Budget cannot take its
// SessionMemory (limit.go). The token is redeemed on the session's first tool call and
// the Share kept, so that a revoked grant fails the session's next call
// with "revoked", as a held capability does on /rpc and /capnweb.
func NewHTTPHandler(opts HTTPOptions) http.Handler {
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
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	ss := &sessions{boot: opts.Bootstrap, m: map[*mcp.ServerSession]*Local{}}
	srv := newServer(ss.source, opts.Options)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:              opts.Logger,
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxRequestBytes,
		// The server's Host and Origin guards (server/guard.go) already
		// decide which names it answers to.
		DisableLocalhostProtection: true,
	})
	lim := &limiter{srv: srv, max: opts.MaxSessions, perToken: opts.MaxSessionsPerToken,
		memory: opts.SessionMemory, budget: opts.Budget, maxBody: opts.MaxRequestBytes, byToken: map[string]int{}}
	return auth.RequireBearerToken(bearer, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(readBodies(opts.MaxRequestBytes, opts.BodyTimeout, lim.wrap(h)))
}

// bearer accepts any non-empty token: the vat decides on the first tool
// call, so that a bad token is a tool error the model can read. UserID
// is the token's digest, which binds the session to its token without
// keeping the token where the SDK might show it.
func bearer(_ context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	sum := sha256.Sum256([]byte(token))
	return &auth.TokenInfo{UserID: hex.EncodeToString(sum[:]),
		Extra: map[string]any{tokenKey: token, peerKey: r.RemoteAddr}}, nil
}

// sessions holds the Source of each live HTTP session.
type sessions struct {
	boot func(peer string) capnp.Client

	mu sync.Mutex
	m  map[*mcp.ServerSession]*Local
}

// source returns the Source of req's session, making it on the
// session's first tool call; it is closed when the session ends.
func (s *sessions) source(_ context.Context, req *mcp.CallToolRequest) (Source, error) {
	token, _ := tokenOf(req)
	if token == "" || req.Session == nil {
		return nil, sharevat.Errorf(sharevat.EUnauthorized, "no bearer token")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.m[req.Session]; l != nil {
		return l, nil
	}
	l := NewLocal(s.boot(peerOf(req)), token)
	s.m[req.Session] = l
	go s.end(req.Session)
	return l, nil
}

// end closes a session's Source once the session has ended.
func (s *sessions) end(ss *mcp.ServerSession) {
	_ = ss.Wait() // how it ended does not matter here
	s.mu.Lock()
	l := s.m[ss]
	delete(s.m, ss)
	s.mu.Unlock()
	l.Close()
}

// tokenOf returns the request's bearer token.
func tokenOf(req *mcp.CallToolRequest) (string, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return "", false
	}
	t, ok := req.Extra.TokenInfo.Extra[tokenKey].(string)
	return t, ok
}

// peerOf names a session's peer for the vat's audit and per-peer quotas:
// the remote address of the request that made its Source.
func peerOf(req *mcp.CallToolRequest) string {
	p, _ := req.Extra.TokenInfo.Extra[peerKey].(string)
	return p
}
