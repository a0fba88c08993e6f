package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc/engine"
)

// DialOptions configures Dial. A nil *DialOptions means all defaults.
type DialOptions struct {
	Header       http.Header // extra handshake headers (Origin, User-Agent, ...)
	ReadLimit    int64       // max bytes per frame; default 16 MiB
	PingInterval time.Duration
	PongTimeout  time.Duration
	WriteTimeout time.Duration
	Logger       *slog.Logger // nil: discard
	// Bootstrap is what we offer the server, usually the zero Client.
	// Dial takes its own reference; the caller keeps (and releases) its own.
	Bootstrap capnp.Client
}

// clientWriteBuffer is the client's WebSocket write buffer. gorilla splits a
// client message larger than this into continuation frames (a server
// message is always one frame); every WebSocket implementation reassembles
// them into the one message they carry.
const clientWriteBuffer = 64 << 10

// Conn is a client connection to a sharevat server.
type Conn struct {
	rpc        *engine.Conn
	codec      *Codec
	closedByUs atomic.Bool // Close was called while the connection was up
}

// DialError reports a failed dial. StatusCode and Status are set when the
// server answered the handshake with an HTTP status instead of upgrading.
type DialError struct {
	URL        string // with any password redacted
	StatusCode int
	Status     string
	Body       string // first line of the server's answer, if any
	Err        error
}

func (e *DialError) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("sharevat: dial %s: %v", e.URL, e.Err)
	}
	msg := fmt.Sprintf("sharevat: dial %s: server refused the WebSocket upgrade: HTTP %s", e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

func (e *DialError) Unwrap() error { return e.Err }

// handshakeTimeout bounds the TCP, TLS and WebSocket handshake when ctx
// allows longer.
const handshakeTimeout = 30 * time.Second

// Dial connects to a sharevat server at a ws:// or wss:// URL. ctx bounds
// the handshake only (its cancellation as well as its deadline, and at
// most 30s); the connection lives until Close or until it fails.
func Dial(ctx context.Context, rawURL string, opts *DialOptions) (*Conn, error) {
	if opts == nil {
		opts = &DialOptions{}
	}
	shown, err := checkURL(rawURL)
	if err != nil {
		return nil, &DialError{URL: shown, Err: err}
	}
	guard := &handshakeGuard{ctx: ctx}
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: handshakeTimeout,
		WriteBufferSize:  clientWriteBuffer,
		NetDialContext:   guard.dial,
	}
	ws, resp, err := d.DialContext(ctx, rawURL, opts.Header)
	if err := guard.done(ws, err); err != nil {
		return nil, dialError(shown, resp, err)
	}
	return newConn(ws, opts), nil
}

// handshakeGuard makes the handshake honour ctx's cancellation. gorilla's
// DialContext passes ctx to the TCP dial and copies its deadline onto the
// socket, but the HTTP upgrade itself only sees that deadline: a server
// that accepts the connection and never answers would hold a cancelled
// caller until HandshakeTimeout. The guard closes the socket the moment
// ctx is done, until done disarms it.
type handshakeGuard struct {
	ctx    context.Context
	dialer net.Dialer
	stop   func() bool // disarms the AfterFunc; nil until the socket exists
}

// dial is the Dialer's NetDialContext. Its ctx is gorilla's, which ends
// when DialContext returns, so the guard watches the caller's ctx instead.
func (g *handshakeGuard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := g.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	g.stop = context.AfterFunc(g.ctx, func() { _ = conn.Close() })
	return conn, nil
}

// done disarms the guard once DialContext has returned. If ctx ended
// first, the handshake's own error (a closed socket, an i/o timeout) is
// replaced by ctx's, and a connection that got through anyway is closed.
func (g *handshakeGuard) done(ws *websocket.Conn, err error) error {
	interrupted := g.stop != nil && !g.stop()
	cause := g.ctxErr()
	if !interrupted && (err == nil || cause == nil) {
		return err
	}
	if ws != nil {
		_ = ws.Close()
	}
	return fmt.Errorf("handshake interrupted: %w", cause)
}

// ctxErr says why the caller's ctx is done, or nil. A deadline that has
// passed counts even before ctx's own timer fires: the socket deadline
// gorilla copied from ctx may expire first.
func (g *handshakeGuard) ctxErr() error {
	if err := context.Cause(g.ctx); err != nil {
		return err
	}
	if d, ok := g.ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

func newConn(ws *websocket.Conn, opts *DialOptions) *Conn {
	log := orDiscard(opts.Logger).With("server", ws.RemoteAddr().String())
	codec := NewCodec(ws, CodecOptions{
		ReadLimit:    opts.ReadLimit,
		PingInterval: opts.PingInterval,
		PongTimeout:  opts.PongTimeout,
		WriteTimeout: opts.WriteTimeout,
		Logger:       log,
		// The server's calls to us (pushes to a subscriber's sink) are
		// bounded by flow control; a client does not police its server.
		MaxInflightCalls: -1,
	})
	c := &Conn{codec: codec}
	c.rpc = startEngine(codec, opts.Bootstrap.AddRef(), log)
	return c
}

// checkURL accepts ws:// and wss:// URLs and returns the URL fit to show.
func checkURL(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)", err
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return u.Redacted(), fmt.Errorf("URL scheme %q: want ws or wss", u.Scheme)
	}
	return u.Redacted(), nil
}

func dialError(shown string, resp *http.Response, err error) error {
	de := &DialError{URL: shown, Err: err}
	if resp != nil {
		de.StatusCode, de.Status = resp.StatusCode, resp.Status
		de.Body = firstLine(resp)
	}
	return de
}

// firstLine returns the first line of the refusal body, at most 200 bytes.
func firstLine(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	return truncateReason(strings.TrimSpace(line))
}

// Bootstrap returns the server's bootstrap capability, resolved. On error it
// returns a capability whose every call fails with that error. The caller
// releases the result.
func (c *Conn) Bootstrap(ctx context.Context) capnp.Client {
	boot, err := c.BootstrapResolved(ctx)
	if err != nil {
		return capnp.ErrorClient(err)
	}
	return boot
}

// BootstrapResolved asks for the server's bootstrap capability and waits
// until the answer has arrived, so that a server that answers with an
// exception or a null capability is reported here, as a dial-time error,
// rather than by the first call.
func (c *Conn) BootstrapResolved(ctx context.Context) (capnp.Client, error) {
	boot := c.rpc.Bootstrap(ctx)
	if err := boot.Resolve(ctx); err != nil {
		boot.Release()
		return capnp.Client{}, fmt.Errorf("sharevat: bootstrap: %w", err)
	}
	if err := brokenErr(boot); err != nil {
		boot.Release()
		return capnp.Client{}, fmt.Errorf("sharevat: bootstrap: %w", c.orEnd(err))
	}
	return boot, nil
}

// brokenErr returns why a resolved client cannot be called, or nil.
func brokenErr(client capnp.Client) error {
	if !client.IsValid() {
		return errors.New("server returned a null capability")
	}
	snap := client.Snapshot()
	defer snap.Release()
	if err, ok := snap.Brand().Value.(error); ok {
		return err
	}
	return nil
}

// orEnd prefers the reason the connection ended over err.
func (c *Conn) orEnd(err error) error {
	if end := c.Err(); end != nil {
		return end
	}
	return err
}

// Close sends the engine's Abort and a normal close frame, waits briefly for
// the server's close frame, and releases everything the connection held.
func (c *Conn) Close() error {
	select {
	case <-c.Done():
	default:
		c.closedByUs.Store(true)
	}
	if err := c.rpc.Close(); err != nil {
		return fmt.Errorf("sharevat: close: %w", err)
	}
	return nil
}

// Done is closed once the connection has shut down.
func (c *Conn) Done() <-chan struct{} { return c.rpc.Done() }

// Err reports why the connection ended: nil while it is open or after our
// own Close; the server's close frame ("server closed the connection:
// sharevat: frame larger than 16777216 bytes (websocket close 1009)"), a
// keepalive timeout or a network error otherwise. errors.As finds a
// *CloseError for the first two.
func (c *Conn) Err() error {
	select {
	case <-c.Done():
	default:
		return nil
	}
	if c.closedByUs.Load() {
		return nil
	}
	if ce := c.codec.PeerClose(); ce != nil {
		return fmt.Errorf("server closed the connection: %w", ce)
	}
	return c.codec.Err()
}
