package capnweb_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/capnweb"
)

// server is a test server with a testMain per session.
type server struct {
	*httptest.Server
	h      *capnweb.Handler
	mu     sync.Mutex
	mains  []*testMain
	limits chan string
}

// mustServe starts a Handler on 127.0.0.1; o.Main is set when nil.
func mustServe(tb testing.TB, o capnweb.Options) *server {
	tb.Helper()
	s := &server{limits: make(chan string, 16)}
	if o.Main == nil {
		o.Main = func(p capnweb.Peer) capnweb.Target {
			m := newTestMain()
			s.mu.Lock()
			s.mains = append(s.mains, m)
			s.mu.Unlock()
			return m
		}
	}
	o.OnLimit = func(l string) { s.limits <- l }
	s.h = capnweb.NewHandler(o)
	s.Server = httptest.NewServer(s.h)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.h.Close(ctx); err != nil {
			tb.Errorf("Handler.Close: %v", err)
		}
		s.Close()
	})
	return s
}

func (s *server) wsURL() string { return "ws" + strings.TrimPrefix(s.URL, "http") }

func (s *server) main(i int) *testMain {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mains[i]
}

// mustDial opens a Client on s.
func mustDial(tb testing.TB, s *server, local capnweb.Target) *capnweb.Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := capnweb.Dial(ctx, s.wsURL(), local, nil)
	if err != nil {
		tb.Fatalf("Dial: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

// rawConn is a gorilla client speaking the wire protocol by hand.
type rawConn struct {
	tb testing.TB
	*websocket.Conn
}

func mustDialRaw(tb testing.TB, s *server) *rawConn {
	tb.Helper()
	c, _, err := websocket.DefaultDialer.Dial(s.wsURL(), nil)
	if err != nil {
		tb.Fatalf("dial: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return &rawConn{tb: tb, Conn: c}
}

func (c *rawConn) send(msgs ...string) {
	c.tb.Helper()
	for _, m := range msgs {
		if err := c.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			c.tb.Fatalf("write %s: %v", m, err)
		}
	}
}

// read returns the next message, failing after 5s.
func (c *rawConn) read() string {
	c.tb.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		c.tb.Fatalf("read: %v", err)
	}
	return string(data)
}

// readN reads n messages (answers come in the order they are ready).
func (c *rawConn) readN(n int) map[string]bool {
	c.tb.Helper()
	got := map[string]bool{}
	for range n {
		got[c.read()] = true
	}
	return got
}

func expectAll(tb testing.TB, got map[string]bool, want ...string) {
	tb.Helper()
	for _, w := range want {
		if !got[w] {
			tb.Errorf("no %s among %v", w, got)
		}
	}
}

// closeCode reads until the connection closes and returns the close code
// and the messages read before it.
func (c *rawConn) closeCode() (int, []string) {
	c.tb.Helper()
	var msgs []string
	for {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, data, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, msgs
			}
			c.tb.Fatalf("read: %v, want a close frame", err)
		}
		msgs = append(msgs, string(data))
	}
}

// testMain is the server's main interface in tests.
type testMain struct {
	mu       sync.Mutex
	log      []string
	kept     []*capnweb.Stub
	counters []*counter
	gate     chan struct{}
	released releases
}

func newTestMain() *testMain { return &testMain{gate: make(chan struct{})} }

func (m *testMain) Release() { m.released.add() }

func (m *testMain) newCounter() *counter {
	c := &counter{}
	m.mu.Lock()
	m.counters = append(m.counters, c)
	m.mu.Unlock()
	return c
}

func (m *testMain) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	m.mu.Lock()
	m.log = append(m.log, method)
	m.mu.Unlock()
	switch method {
	case "echo":
		return capnweb.Returning(args, nil)
	case "first":
		return capnweb.Returning(args[0], nil)
	case "fail":
		return capnweb.Returning(nil, &capnweb.Error{Type: "RangeError", Message: "revoked: capability revoked",
			Props: capnweb.NewObject().Set("code", "revoked")})
	case "plainFail":
		return capnweb.Returning(nil, errors.New("boom"))
	case "counter":
		return capnweb.Returning(m.newCounter(), nil)
	case "nest":
		c := m.newCounter()
		return capnweb.Returning(capnweb.NewObject().Set("inner", c).Set("list", []capnweb.Value{c}), nil)
	case "callBack":
		st, _ := args[0].(*capnweb.Stub)
		return func() (capnweb.Value, error) {
			if st == nil {
				return nil, errors.New("want a stub")
			}
			return st.Call(ctx, "", "hello")
		}
	case "keep":
		st := args[0].(*capnweb.Stub).Keep()
		m.mu.Lock()
		m.kept = append(m.kept, st)
		m.mu.Unlock()
		return capnweb.Returning(capnweb.Undefined, nil)
	case "callKept":
		m.mu.Lock()
		st := m.kept[0]
		m.mu.Unlock()
		return func() (capnweb.Value, error) { return st.Call(ctx, "ping") }
	case "dropKept":
		m.mu.Lock()
		for _, st := range m.kept {
			st.Release()
		}
		m.kept = nil
		m.mu.Unlock()
		return capnweb.Returning(capnweb.Undefined, nil)
	case "wait":
		return func() (capnweb.Value, error) {
			select {
			case <-m.gate:
				return "opened", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	case "open":
		close(m.gate)
		return capnweb.Returning(capnweb.Undefined, nil)
	case "big":
		return capnweb.Returning(strings.Repeat("x", int(args[0].(json.Number).String()[0]-'0')<<20), nil)
	}
	return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "no method " + method})
}

// counter is a Target with state that counts its Releases.
type counter struct {
	n        atomic.Int64
	released releases
}

func (c *counter) Call(_ context.Context, method string, args []capnweb.Value) capnweb.Answer {
	switch method {
	case "inc":
		return capnweb.Returning(c.n.Add(1), nil)
	case "self":
		return capnweb.Returning(c, nil)
	case "add":
		n, _ := args[0].(json.Number).Int64()
		return capnweb.Returning(c.n.Add(n), nil)
	}
	return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "no method " + method})
}

func (c *counter) Release() { c.released.add() }

// funcTarget is a Target made of a function, called for method "".
type funcTarget struct {
	f func(args []capnweb.Value) (capnweb.Value, error)
}

func (t *funcTarget) Call(_ context.Context, method string, args []capnweb.Value) capnweb.Answer {
	if method != "" && method != "ping" {
		return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "not a function"})
	}
	return func() (capnweb.Value, error) { return t.f(args) }
}

// releases counts a Target's Releases and signals each one, so a test
// waits for a release on a channel.
type releases struct {
	n    atomic.Int32
	once sync.Once
	ch   chan struct{}
}

func (r *releases) signals() chan struct{} {
	r.once.Do(func() { r.ch = make(chan struct{}, 64) })
	return r.ch
}

func (r *releases) add() {
	r.n.Add(1)
	select {
	case r.signals() <- struct{}{}:
	default: // 64 unread: the count says it
	}
}

// Load is the number of Releases so far.
func (r *releases) Load() int32 { return r.n.Load() }

// wait blocks until there were n Releases, or fails tb after 5 s; more
// than n fail it too.
func (r *releases) wait(tb testing.TB, what string, n int32) {
	tb.Helper()
	timeout := time.After(5 * time.Second)
	for r.Load() < n {
		select {
		case <-r.signals():
		case <-timeout:
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
	if got := r.Load(); got != n {
		tb.Errorf("%s: %d releases, want %d", what, got, n)
	}
}
