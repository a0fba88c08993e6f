package opencodetest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a logging reverse proxy in front of a real share server (a
// vat): opencode's enterprise.url and the share links point at it, so a
// test sees every call and its status, and can restart the server
// behind it on another port (SetTarget) while opencode keeps its
// configuration. WebSocket upgrades (the share page) pass through.
type Proxy struct {
	URL string // http://127.0.0.1:PORT

	srv    *httptest.Server
	mu     sync.Mutex
	target *url.URL
	calls  []Call
}

// NewProxy starts a Proxy to target (an http:// base URL), closed at the
// test's end.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{}
	p.SetTarget(t, target)
	rp := &httputil.ReverseProxy{Rewrite: p.rewrite}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, r)
		p.mu.Lock()
		p.calls = append(p.calls, Call{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Status: sw.status, Answer: sw.body.Bytes()})
		p.mu.Unlock()
	}))
	p.URL = p.srv.URL
	t.Cleanup(func() { p.srv.CloseClientConnections(); p.srv.Close() })
	return p
}

// SetTarget points the proxy at another server (e.g. the same vat
// restarted on a new port).
func (p *Proxy) SetTarget(t testing.TB, target string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.target = u
	p.mu.Unlock()
}

// Calls returns the requests proxied so far (WebSocket upgrades are
// recorded when they end).
func (p *Proxy) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// rewrite sends r to the current target, keeping the Host the client
// used (so links the server derives from it name the proxy).
func (p *Proxy) rewrite(r *httputil.ProxyRequest) {
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	r.SetURL(target)
	r.Out.Host = r.In.Host
}

// statusWriter records the status and the start of the answer a
// handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer // the first 64 KiB of the answer
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if room := 64<<10 - w.body.Len(); room > 0 {
		w.body.Write(b[:min(room, len(b))])
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
