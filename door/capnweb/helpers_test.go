package capnweb_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	webvat "github.com/sharevat/sharevat/door/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
)

// env is a whole vat served over both doors: the Cap'n Proto /rpc of
// vattest and a Cap'n Web /capnweb mounted on its own loopback server,
// both leading to the same vat.
type env struct {
	srv *vattest.Server
	url string // ws://127.0.0.1:port/capnweb
}

// start builds an env; the test's cleanup stops it.
func start(t *testing.T, opts vattest.Options) *env {
	t.Helper()
	srv := vattest.Start(t, opts)
	h := capnweb.NewHandler(capnweb.Options{Main: func(p capnweb.Peer) capnweb.Target {
		return webvat.NewVault(srv.Vat.BootstrapMetered(p.RemoteAddr, p.Meter))
	}})
	mux := http.NewServeMux()
	mux.Handle("/capnweb", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { // before vattest's cleanup closes the vat
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Close(ctx)
		hs.Close()
	})
	return &env{srv: srv, url: "ws" + strings.TrimPrefix(hs.URL, "http") + "/capnweb"}
}

// dial opens a Cap'n Web session and returns its main stub, the Vault.
func (e *env) dial(t *testing.T) *capnweb.Stub {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := capnweb.Dial(ctx, e.url, nil, nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c.Main()
}

// restore redeems token over Cap'n Web and returns its Share stub.
func (e *env) restore(t *testing.T, token string) *capnweb.Stub {
	t.Helper()
	return stubOf(t, get(t, must(t, e.dial(t), "restore", token), "share"))
}

// call calls method on stub, bounded by a timeout.
func call(stub *capnweb.Stub, method string, args ...capnweb.Value) (capnweb.Value, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return stub.Call(ctx, method, args...)
}

// must is call that fails the test on an error.
func must(t *testing.T, stub *capnweb.Stub, method string, args ...capnweb.Value) capnweb.Value {
	t.Helper()
	v, err := call(stub, method, args...)
	require.NoError(t, err, "%s", method)
	return v
}

// stubOf checks v is a stub and releases it at cleanup.
func stubOf(t *testing.T, v capnweb.Value) *capnweb.Stub {
	t.Helper()
	s, ok := v.(*capnweb.Stub)
	require.True(t, ok, "want a stub, got %T", v)
	t.Cleanup(s.Release)
	return s
}

// codeOf returns the code property of a rejected call's Error, and its
// message.
func codeOf(t *testing.T, err error) (code, message string) {
	t.Helper()
	var we *capnweb.Error
	require.ErrorAs(t, err, &we)
	c, _ := we.Props.Get("code")
	s, _ := c.(string)
	return s, we.Message
}

// num is an integer as a Cap'n Web number.
func num(t *testing.T, v capnweb.Value) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	require.True(t, ok, "want a number, got %T %v", v, v)
	i, err := n.Int64()
	require.NoError(t, err)
	return i
}

// sink is a subscriber's sink, served by the test's side of the session:
// an RpcTarget with push and end (function false) or a bare function
// (function true), answering as capnweb does for anything else.
type sink struct {
	function bool
	hold     chan struct{} // pushes after the first wait for it, when set
	fail     bool          // every push throws
	noEnd    bool          // an object without end

	mu      sync.Mutex
	cursors []int64
	first   int // ops in the first push
	pushes  int
	changed chan struct{} // closed and replaced at every push and end
	end     *[2]string
	gone    bool // the session released the sink
}

func newSink(function bool) *sink { return &sink{function: function, changed: make(chan struct{})} }

// Call implements capnweb.Target.
func (s *sink) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	switch {
	case s.function && method == "":
		if len(args) > 1 {
			return s.ended(args[1])
		}
		return s.push(ctx, args)
	case !s.function && method == "push":
		return s.push(ctx, args)
	case !s.function && !s.noEnd && method == "end":
		return s.ended(capnweb.NewObject().Set("code", arg(args, 0)).Set("detail", arg(args, 1)))
	}
	return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "'" + method + "' is not a function."})
}

func arg(args []capnweb.Value, i int) capnweb.Value {
	if i < len(args) {
		return args[i]
	}
	return capnweb.Undefined
}

func (s *sink) push(ctx context.Context, args []capnweb.Value) capnweb.Answer {
	ops, _ := arg(args, 0).([]capnweb.Value)
	s.mu.Lock()
	s.pushes++
	if s.pushes == 1 {
		s.first = len(ops)
	}
	for _, op := range ops {
		c, _ := op.(*capnweb.Object).Get("cursor")
		n, _ := c.(json.Number).Int64()
		s.cursors = append(s.cursors, n)
	}
	s.notify()
	hold := s.hold
	if s.pushes == 1 {
		hold = nil
	}
	s.mu.Unlock()
	if s.fail {
		return capnweb.Returning(nil, &capnweb.Error{Type: "Error", Message: "sink broke"})
	}
	return func() (capnweb.Value, error) {
		if hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return capnweb.Undefined, nil
	}
}

func (s *sink) ended(v capnweb.Value) capnweb.Answer {
	o, _ := v.(*capnweb.Object)
	code, _ := o.Get("code")
	detail, _ := o.Get("detail")
	cs, _ := code.(string)
	ds, _ := detail.(string)
	s.mu.Lock()
	s.end = &[2]string{cs, ds}
	s.notify()
	s.mu.Unlock()
	return capnweb.Returning(capnweb.Undefined, nil)
}

// Release implements capnweb.Releaser: the vat let go of the sink.
func (s *sink) Release() {
	s.mu.Lock()
	s.gone = true
	s.notify()
	s.mu.Unlock()
}

// waitReleased waits until the session released the sink.
func (s *sink) waitReleased(t *testing.T) {
	t.Helper()
	s.waitFor(t, "the sink's release", func() bool { return s.gone })
}

// releasedWithin reports whether the sink is released within d.
func (s *sink) releasedWithin(d time.Duration) bool {
	timeout := time.After(d)
	for {
		s.mu.Lock()
		gone, ch := s.gone, s.changed
		s.mu.Unlock()
		if gone {
			return true
		}
		select {
		case <-ch:
		case <-timeout:
			return false
		}
	}
}

// notify wakes waiters; s.mu is held.
func (s *sink) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor waits until cond (called with s.mu held) holds.
func (s *sink) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitCursor waits until the sink has received every cursor up to n.
func (s *sink) waitCursor(t *testing.T, n int64) []int64 {
	t.Helper()
	s.waitFor(t, "the ops", func() bool { return len(s.cursors) > 0 && s.cursors[len(s.cursors)-1] >= n })
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.cursors...)
}

// waitEnd waits for end and returns its code and detail.
func (s *sink) waitEnd(t *testing.T) [2]string {
	t.Helper()
	s.waitFor(t, "end", func() bool { return s.end != nil })
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.end
}

// get returns field name of an object value.
func get(t *testing.T, v capnweb.Value, name string) capnweb.Value {
	t.Helper()
	o, ok := v.(*capnweb.Object)
	require.True(t, ok, "want an object, got %T", v)
	f, ok := o.Get(name)
	require.True(t, ok, "object has no field %q", name)
	return f
}
