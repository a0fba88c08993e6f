package capnweb

import (
	"context"
	"net/http"

	"github.com/gorilla/websocket"
)

// Client is a WebSocket session opened with Dial: the Go side of a
// Cap'n Web connection, used by tests and tools.
type Client struct {
	s *session
}

// Dial opens a WebSocket session with the server at url (ws:// or
// wss://), offering local as our main interface (nil: none). header is
// sent with the upgrade request (e.g. Origin).
func Dial(ctx context.Context, url string, local Target, header http.Header) (*Client, error) {
	return DialOptions(ctx, url, local, header, Options{})
}

// DialOptions is Dial with limits (Main and CheckOrigin are not used).
func DialOptions(ctx context.Context, url string, local Target, header http.Header, o Options) (*Client, error) {
	conn, resp, err := websocket.DefaultDialer.DialContext(ctx, url, header)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	opts := o.withDefaults()
	meter := &budget{limit: opts.ConnMemory}
	out := newWSOut(conn, meter, opts)
	s := newSession(opts, out, meter, local, false)
	meter.over = func() { s.failProto(&protoError{limit: "memory", msg: "session memory budget exceeded"}) }
	out.lost = func() { s.fail("", nil, 0) }
	go serveConn(s, conn, out)
	return &Client{s: s}, nil
}

// Main is the server's main interface. Releasing it does nothing; Close
// ends the session.
func (c *Client) Main() *Stub { return &Stub{s: c.s, id: 0} }

// Close ends the session (a normal WebSocket close) and waits for its
// goroutines.
func (c *Client) Close() error {
	c.s.fail("", nil, closeNormal)
	<-c.s.finished
	return nil
}

// Done is closed when the session ends, on either side.
func (c *Client) Done() <-chan struct{} { return c.s.done }

// Err is why the session ended (nil while it runs, or when it ended
// normally).
func (c *Client) Err() error {
	if !c.s.isDone() {
		return nil
	}
	return c.s.reason
}
