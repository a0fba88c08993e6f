package tsclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// chromiumPath is Debian's chromium, which CI installs.
const chromiumPath = "/usr/bin/chromium"

// TestBrowserClient runs the compiled package in headless Chromium, as a
// web app would load it: test/browser/index.html imports the package
// root through an import map (no bundler) from a loopback page server,
// and the vat (`sharevat serve --origins <that page's origin>`) is
// reached over the browser's own WebSocket. The page connects, redeems a
// token the test made with the Go client, appends a batch and reads it
// back, follows a tail that sees an op appended from Go, gets a
// SharevatError with its code for a bad token, and closes. Every module
// the page fetched is checked: all served, none of the outbox (which
// needs node:fs), and the import itself would fail on a node: module.
func TestBrowserClient(t *testing.T) {
	node := needNode(t)
	if _, err := os.Stat(chromiumPath); err != nil {
		nodetest.Missing(t, "chromium is not installed at "+chromiumPath+": the TypeScript client's browser test did not run (CI installs Debian's chromium)")
	}
	compile(t, node)
	pages := servePages(t)
	srv := proctest.StartServe(t, server.Binary(t), "--origins", pages.origin)
	capnweb := strings.TrimSuffix(srv.URL, "/rpc") + "/capnweb"
	vat := newGoShare(t, srv)

	b := newTab(t)
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Navigate(pages.origin+"/")))
	b.waitFor(t, "the package to import", `window.loaded !== undefined`)
	require.Equal(t, "ok", evalJS[string](t, b, `window.loaded`), "the page logged:\n%s", b.logged())

	got := evalJS[readBack](t, b, call("steps.appendAndRead", capnweb, vat.token))
	require.Equal(t, 2, got.Applied)
	require.Equal(t, 2, got.AckHead)
	require.Equal(t, 2, got.Head)
	require.Equal(t, [][]any{{1.0, "b1", "browser-1", "b1"}, {2.0, "b2", "browser-1", "b2"}}, got.Ops)

	require.True(t, evalJS[bool](t, b, call("steps.follow", capnweb, vat.token, 1)))
	vat.append(t, "from-go")
	b.waitFor(t, "the tail to see the op appended from Go", `steps.seen().length >= 2`)
	require.Equal(t, [][]any{{2.0, "b2"}, {3.0, "from-go"}}, evalJS[[][]any](t, b, `steps.seen()`))

	bad := "svt1_" + strings.Repeat("a", 24) + "_" + strings.Repeat("b", 43)
	e := evalJS[jsError](t, b, call("steps.badToken", bad))
	require.True(t, e.SharevatError, "not a SharevatError: %+v", e)
	require.Equal(t, "unauthorized", e.Code)
	require.Equal(t, "unauthorized: invalid or expired token", e.Message)
	require.NotContains(t, e.Stack, bad)

	closed := evalJS[struct {
		Tail       string
		ConnClosed bool
	}](t, b, `steps.close()`)
	require.Equal(t, "resolved", closed.Tail, "closing the Redeemer ends the tail")
	require.True(t, closed.ConnClosed)
	vat.close()
	waitNoConnections(t, srv)

	pages.check(t)
	b.assertClean(t)
	refusedElsewhere(t, b, pages, capnweb)
}

// refusedElsewhere loads the same page from an origin the vat does not
// list (localhost instead of 127.0.0.1) and checks that the vat's Origin
// check refuses its connection: the test passes because of --origins,
// not because the guard lets browsers through.
func refusedElsewhere(t *testing.T, b *tab, pages *pageServer, capnweb string) {
	t.Helper()
	other := strings.Replace(pages.origin, "127.0.0.1", "localhost", 1)
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Navigate(other+"/")))
	b.waitFor(t, "the package to import", `window.loaded === "ok"`)
	e := evalJS[jsError](t, b, call("steps.connectRefused", capnweb))
	require.True(t, e.SharevatError, "the vat took a page of an origin it does not list: %+v", e)
	require.Equal(t, "unavailable", e.Code, "%+v", e)
	t.Logf("refused: %s", e.Message)
}

// readBack is what the page's appendAndRead answers: the ack's counts
// and the log read back as [cursor, opId, batchId, text].
type readBack struct {
	Applied, AckHead, Head int
	Ops                    [][]any
}

// jsError is what the page's describe() answers for an error.
type jsError struct {
	SharevatError bool
	Code          string
	Message       string
	Stack         string
}

// call is a JavaScript call of fn with args, each encoded as JSON.
func call(fn string, args ...any) string {
	enc := make([]string, len(args))
	for i, a := range args {
		j, err := json.Marshal(a)
		if err != nil {
			panic(err)
		}
		enc[i] = string(j)
	}
	return fn + "(" + strings.Join(enc, ", ") + ")"
}

// goShare is a share made with the Go client, on a connection kept open
// to append to it from Go.
type goShare struct {
	conn  *client.Conn
	share *client.Share
	token string
}

// newGoShare creates a share with the vat's admin token and keeps its
// owner token.
func newGoShare(t *testing.T, srv *proctest.Server) *goShare {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := os.ReadFile(filepath.Join(srv.Data, "admin.token"))
	require.NoError(t, err)
	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	a, err := conn.RedeemAdmin(ctx, strings.TrimSpace(string(admin)))
	require.NoError(t, err)
	title := "browser"
	share, owner, err := a.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	return &goShare{conn: conn, share: share, token: owner.Token}
}

// append appends one event op with this id from Go.
func (g *goShare) append(t *testing.T, opID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	app, err := g.share.Appender(ctx)
	require.NoError(t, err)
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "go-" + opID, Epoch: g.share.Access.Epoch,
		Ops: []sharevat.Op{{OpID: opID, Kind: sharevat.KindEvent, Body: []byte(`{"from":"go"}`)}}})
	require.NoError(t, err)
	require.Equal(t, 1, ack.Applied, "%+v", ack)
}

// close closes the Go client's connection.
func (g *goShare) close() { _ = g.conn.Close() }

// waitNoConnections waits until the vat's metrics count no live
// connection: the page's close() closed its WebSockets.
func waitNoConnections(t *testing.T, srv *proctest.Server) {
	t.Helper()
	metrics := "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc") + "/metrics"
	var last string
	require.Eventually(t, func() bool {
		last = liveConnections(metrics)
		return last == "0"
	}, time.Minute, 50*time.Millisecond, "sharevat_live_connections stayed %s after close()", &last)
}

// liveConnections is the value of sharevat_live_connections at metrics.
func liveConnections(metrics string) string {
	resp, err := http.Get(metrics) //nolint:noctx // loopback, the test's own vat
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "sharevat_live_connections "); ok {
			return v
		}
	}
	return "absent"
}

// pageServer serves the test page, dist/ and capnweb's ESM build on
// loopback and records every request.
type pageServer struct {
	origin string
	mu     sync.Mutex
	seen   []string // "path status"
}

// servePages starts the page server: / is test/browser, /pkg/ is dist/,
// /capnweb/ is node_modules/capnweb/dist/.
func servePages(t *testing.T) *pageServer {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join("test", "browser"))))
	mux.Handle("/pkg/", http.StripPrefix("/pkg/", http.FileServer(http.Dir("dist"))))
	mux.Handle("/capnweb/", http.StripPrefix("/capnweb/", http.FileServer(http.Dir(filepath.Join("node_modules", "capnweb", "dist")))))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &pageServer{origin: "http://" + ln.Addr().String()}
	hs := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		mux.ServeHTTP(rec, r)
		p.mu.Lock()
		p.seen = append(p.seen, fmt.Sprintf("%s %d", r.URL.Path, rec.status))
		p.mu.Unlock()
	})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return p
}

// check fails t unless every request was answered 200, the package root
// and capnweb were among them, and nothing of the outbox was fetched.
func (p *pageServer) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	seen := append([]string(nil), p.seen...)
	p.mu.Unlock()
	t.Logf("the page fetched %d files: %s", len(seen), strings.Join(seen, ", "))
	for _, s := range seen {
		if strings.HasPrefix(s, "/favicon.ico ") {
			continue
		}
		require.True(t, strings.HasSuffix(s, " 200") || strings.HasSuffix(s, " 304"), "not served: %s", s)
		require.NotContains(t, s, "/pkg/outbox/", "the package root pulled the outbox (node:fs) into the browser")
	}
	require.Contains(t, seen, "/pkg/index.js 200")
	require.Contains(t, seen, "/capnweb/index.js 200")
}

// statusWriter records the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records status.
func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}
