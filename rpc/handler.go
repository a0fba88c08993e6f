package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"github.com/gorilla/websocket"
)

// HandlerOptions configures a Handler. Zero fields take their defaults.
type HandlerOptions struct {
	// Bootstrap returns the bootstrap capability for a new connection; the
	// connection owns (and releases) it. Nil: the connection offers none.
	Bootstrap func(peer Peer) capnp.Client

	ReadLimit int64 // max bytes per frame; default 16 MiB

	// AllowedOrigins: when a request carries an Origin header, it must
	// equal one of these exactly (scheme://host[:port], compared without
	// regard to ASCII case); "*" allows all. Empty: only origins whose
	// host equals the request's Host.
	AllowedOrigins []string

	PingInterval time.Duration // default 30s; negative disables pings
	PongTimeout  time.Duration // default 60s; negative disables the deadline
	WriteTimeout time.Duration // default 30s

	Logger   *slog.Logger // nil: discard. Frame contents are never logged.
	MaxConns int          // 0: unlimited; beyond it, HTTP 503 before upgrading
	// MaxConnsPerIP caps the connections from one remote IP address; 0:
	// unlimited; beyond it, HTTP 503 before upgrading.
	MaxConnsPerIP int
	// LoopbackExempt exempts loopback addresses from MaxConnsPerIP: every
	// local client (the CLI, a page, a proxy on the same machine) shares
	// one address, so one local peer's idle connections would lock the
	// others out. MaxConns and the memory budget still count them.
	LoopbackExempt bool

	// MaxInflightCalls caps, per connection, the calls the client has
	// sent and the server has not answered yet; 0: 1024
	// (DefaultMaxInflightCalls); negative: unlimited. The call one over
	// the cap closes that connection with 1008 (policy violation).
	MaxInflightCalls int

	// ConnMemory, Pool, MaxCapsPerMessage, AssembleTimeout and OnLimit
	// are passed to each connection's Codec
	// (see CodecOptions). OnLimit is also called with LimitConns and
	// LimitConnsPerIP when a connection is refused.
	ConnMemory        int64
	Pool              *MemoryPool
	MaxCapsPerMessage int
	AssembleTimeout   time.Duration
	OnLimit           func(limit string)
}

// Peer describes the remote end of a new connection.
type Peer struct {
	RemoteAddr string
	Origin     string
	UserAgent  string
	// Meter counts memory the application holds for this connection
	// (e.g. an answer being built) against the connection's budget.
	Meter Meter
}

// Meter counts bytes against one connection's memory budget: an answer
// being built. Charge fails, and closes the connection, when the bytes do
// not fit. Every successful Charge must be matched by a Release of the
// same bytes.
type Meter interface {
	Charge(n int64) error
	Release(n int64)
}

// Handler serves Cap'n Proto RPC over WebSocket. Mount it on a net/http
// server (e.g. at /rpc). Each accepted connection gets its own
// engine.Conn (package rpc/engine); Close shuts them all down, which http.Server.Shutdown does not
// do for hijacked connections.
type Handler struct {
	opts     HandlerOptions
	log      *slog.Logger
	upgrader websocket.Upgrader

	mu     sync.Mutex
	closed bool
	conns  map[*serverConn]struct{}
	perIP  map[string]int // live connections by remote IP
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns a Handler ready to serve.
func NewHandler(opts HandlerOptions) *Handler {
	h := &Handler{
		opts:  opts,
		log:   orDiscard(opts.Logger),
		conns: make(map[*serverConn]struct{}),
		perIP: make(map[string]int),
	}
	if h.opts.OnLimit == nil {
		h.opts.OnLimit = func(string) {}
	}
	h.upgrader = websocket.Upgrader{
		CheckOrigin:     func(*http.Request) bool { return true }, // checked in ServeHTTP
		Error:           upgradeError,
		WriteBufferPool: &sync.Pool{},
	}
	return h
}

const msgNotWebSocket = "sharevat: this endpoint speaks Cap'n Proto RPC over WebSocket " +
	"(one message per binary frame); connect with a WebSocket client\n"

// ServeHTTP upgrades the request to a WebSocket and serves RPC on it until
// the connection ends.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		http.Error(w, msgNotWebSocket, http.StatusUpgradeRequired)
		return
	}
	peer := peerOf(r)
	if !h.originAllowed(r) {
		// Not the Origin itself: a peer's string may carry a token.
		h.log.Info("sharevat/rpc: origin refused", "remote", peer.RemoteAddr, "origin_bytes", len(peer.Origin))
		http.Error(w, "sharevat: origin not allowed", http.StatusForbidden)
		return
	}
	sc, refusal := h.reserve(peer)
	if sc == nil {
		h.log.Info("sharevat/rpc: connection refused", "remote", peer.RemoteAddr, "reason", refusal)
		http.Error(w, refusal, http.StatusServiceUnavailable)
		return
	}
	defer h.release(sc)
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		h.log.Debug("sharevat/rpc: upgrade failed", "remote", peer.RemoteAddr, "err", err)
		return
	}
	h.serve(sc, ws)
}

// Close refuses new connections (HTTP 503), closes every live connection
// with close code 1001 "server shutting down", and waits until each has
// finished or ctx is done.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	conns := make([]*serverConn, 0, len(h.conns))
	for sc := range h.conns {
		conns = append(conns, sc)
	}
	h.mu.Unlock()
	for _, sc := range conns {
		sc.kick()
	}
	for _, sc := range conns {
		select {
		case <-sc.done:
		case <-ctx.Done():
			return fmt.Errorf("sharevat/rpc: close: %w", ctx.Err())
		}
	}
	return nil
}

// Admit counts a connection that another handler of the same server
// serves (the Cap'n Web door) against this Handler's connection limits
// (MaxConns, MaxConnsPerIP), so that one limit bounds the connections of
// both. It answers the refusal text ("" when admitted) and, when
// admitted, the func to call once that connection has ended. Close waits
// for admitted connections as for its own, so the other handler must be
// closed first.
func (h *Handler) Admit(r *http.Request) (done func(), refusal string) {
	sc, refusal := h.reserve(peerOf(r))
	if sc == nil {
		return nil, refusal
	}
	return sync.OnceFunc(func() { h.release(sc) }), ""
}

// Pool returns the server-wide memory budget (HandlerOptions.Pool; nil:
// none), for another handler of the same server to count against.
func (h *Handler) Pool() *MemoryPool { return h.opts.Pool }

// Conns returns the number of live connections (including ones being
// upgraded).
func (h *Handler) Conns() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// reserve admits one more connection, or returns why not.
func (h *Handler) reserve(peer Peer) (*serverConn, string) {
	ip := remoteIP(peer.RemoteAddr)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, "sharevat: server shutting down"
	case h.opts.MaxConns > 0 && len(h.conns) >= h.opts.MaxConns:
		h.opts.OnLimit(LimitConns)
		return nil, "sharevat: too many connections, try again later"
	case h.opts.MaxConnsPerIP > 0 && h.perIP[ip] >= h.opts.MaxConnsPerIP && !h.exempt(ip):
		h.opts.OnLimit(LimitConnsPerIP)
		return nil, fmt.Sprintf("sharevat: too many connections from %s (limit %d), try again later", ip, h.opts.MaxConnsPerIP)
	}
	sc := newServerConn(peer)
	h.conns[sc] = struct{}{}
	h.perIP[ip]++
	return sc, ""
}

// exempt reports whether ip escapes MaxConnsPerIP (LoopbackExempt).
func (h *Handler) exempt(ip string) bool {
	if !h.opts.LoopbackExempt {
		return false
	}
	addr := net.ParseIP(ip)
	return addr != nil && addr.IsLoopback()
}

func (h *Handler) release(sc *serverConn) {
	ip := remoteIP(sc.peer.RemoteAddr)
	h.mu.Lock()
	delete(h.conns, sc)
	if h.perIP[ip]--; h.perIP[ip] <= 0 {
		delete(h.perIP, ip)
	}
	h.mu.Unlock()
	close(sc.done)
}

// remoteIP is the host part of a RemoteAddr ("ip:port").
func remoteIP(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// originAllowed applies AllowedOrigins (OriginAllowed).
func (h *Handler) originAllowed(r *http.Request) bool { return OriginAllowed(h.opts.AllowedOrigins, r) }

// OriginAllowed is the Origin rule of HandlerOptions.AllowedOrigins,
// exported so that the vat's other browser-facing endpoints (/capnweb)
// apply the same one: a request without Origin (a non-browser client) is
// always allowed; with an empty list, only an origin whose host is the
// request's Host; otherwise an origin on the list ("*": any).
func OriginAllowed(allowed []string, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if len(allowed) == 0 {
		u, err := url.Parse(origin)
		return err == nil && strings.EqualFold(u.Host, r.Host)
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	return false
}

func peerOf(r *http.Request) Peer {
	return Peer{RemoteAddr: r.RemoteAddr, Origin: r.Header.Get("Origin"), UserAgent: r.UserAgent()}
}

func upgradeError(w http.ResponseWriter, _ *http.Request, status int, reason error) {
	w.Header().Set("Sec-Websocket-Version", "13")
	http.Error(w, "sharevat: WebSocket upgrade failed: "+reason.Error(), status)
}
