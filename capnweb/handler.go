package capnweb

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// Handler serves Cap'n Web: a WebSocket session per GET with an upgrade,
// an HTTP batch per POST.
type Handler struct {
	o        *Options
	upgrader websocket.Upgrader

	mu       sync.Mutex
	closed   bool
	sessions map[*session]struct{}
	wg       sync.WaitGroup
}

// NewHandler returns a Handler serving o.Main.
func NewHandler(o Options) *Handler {
	h := &Handler{o: o.withDefaults(), sessions: map[*session]struct{}{}}
	h.upgrader = websocket.Upgrader{
		CheckOrigin:     func(*http.Request) bool { return true }, // checked in ServeHTTP
		ReadBufferSize:  16 << 10,
		WriteBufferSize: 16 << 10,
	}
	return h
}

// ServeHTTP serves one request: GET with a WebSocket upgrade starts a
// session, POST runs an HTTP batch, anything else answers 405. A request
// whose Origin is not allowed answers 403.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.originAllowed(r) {
		http.Error(w, "capnweb: origin not allowed", http.StatusForbidden)
		return
	}
	switch {
	case r.Method == http.MethodGet && websocket.IsWebSocketUpgrade(r):
		h.serveWebSocket(w, r)
	case r.Method == http.MethodPost:
		h.serveBatch(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "capnweb: use a WebSocket (GET with an upgrade) or an HTTP batch (POST)", http.StatusMethodNotAllowed)
	}
}

func (h *Handler) originAllowed(r *http.Request) bool {
	if h.o.CheckOrigin != nil {
		return h.o.CheckOrigin(r)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

func peerOf(r *http.Request) Peer {
	return Peer{RemoteAddr: r.RemoteAddr, Origin: r.Header.Get("Origin"), UserAgent: r.UserAgent()}
}

func (h *Handler) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		http.Error(w, "capnweb: server shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.wg.Done()
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	meter := &budget{limit: h.o.ConnMemory, pool: h.o.Pool}
	defer meter.close()
	out := newWSOut(conn, meter, h.o)
	peer := peerOf(r)
	peer.Meter = meter
	s := newSession(h.o, out, meter, h.main(peer), false)
	meter.over = func() { s.failProto(&protoError{limit: "memory", msg: "session memory budget exceeded"}) }
	meter.join(func() { s.fail("server-memory", errEvicted, closeTryAgain) })
	out.lost = func() { s.fail("", nil, 0) }
	if !h.track(s) {
		s.fail("", nil, closeGoingAway)
	}
	defer h.untrack(s)
	h.o.Logger.Debug("capnweb: session", "remote", r.RemoteAddr)
	serveConn(s, conn, out)
}

// main builds a session's main interface, recovering a panic of Main.
func (h *Handler) main(p Peer) (t Target) {
	defer func() {
		if r := recover(); r != nil {
			h.o.Logger.Error("capnweb: Options.Main panicked")
			t = nil
		}
	}()
	if h.o.Main == nil {
		return nil
	}
	return h.o.Main(p)
}

// enter counts a request in, unless the Handler is closed.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	return true
}

func (h *Handler) track(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessions[s] = struct{}{}
	return !h.closed
}

func (h *Handler) untrack(s *session) {
	h.mu.Lock()
	delete(h.sessions, s)
	h.mu.Unlock()
}

// Close closes every WebSocket session with 1001 (going away) and waits
// for them to end, or for ctx. Later requests answer 503.
func (h *Handler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	for s := range h.sessions {
		s.fail("", errors.New("server shutting down"), closeGoingAway)
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
