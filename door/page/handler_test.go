package page_test

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sharepage "github.com/sharevat/sharevat/door/page"
)

// mustServe mounts the handler at /s/ as serve does, on a loopback
// server closed at cleanup.
func mustServe(tb testing.TB, o sharepage.Options) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	h := sharepage.Handler(o)
	mux.Handle("/s/", h)
	mux.Handle("/s", h)
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(tb testing.TB, method, url string) (*http.Response, string) {
	tb.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(tb, err)
	resp, err := noRedirect.Do(req)
	require.NoError(tb, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(tb, err)
	return resp, string(b)
}

// TestHeaders checks that every answer, the page, its assets, the base,
// a 404 and a 405, carries the security headers.
func TestHeaders(t *testing.T) {
	srv := mustServe(t, sharepage.Options{})
	want := map[string]string{
		"Content-Security-Policy": sharepage.CSP,
		"Referrer-Policy":         "no-referrer",
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           "no-store",
	}
	cases := []struct {
		method, path string
		code         int
		ctype        string
	}{
		{"GET", "/s/", 200, "text/html; charset=utf-8"},
		{"GET", "/s/index.html", 200, "text/html; charset=utf-8"},
		{"GET", "/s/app.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/s/capnweb-lite.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/s/style.css", 200, "text/css; charset=utf-8"},
		{"HEAD", "/s/app.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/s/base", 200, "application/json"},
		{"GET", "/s/nope.js", 404, ""},
		{"GET", "/s/assets/app.js", 404, ""},
		{"POST", "/s/", 405, ""},
		{"GET", "/s", 301, ""},
	}
	for _, c := range cases {
		resp, _ := get(t, c.method, srv.URL+c.path)
		assert.Equal(t, c.code, resp.StatusCode, "%s %s", c.method, c.path)
		for k, v := range want {
			assert.Equal(t, v, resp.Header.Get(k), "%s %s: %s", c.method, c.path, k)
		}
		if c.ctype != "" {
			assert.Equal(t, c.ctype, resp.Header.Get("Content-Type"), "%s %s", c.method, c.path)
		}
	}
}

// TestCSPForbidsInline checks the policy allows nothing inline and no
// other origin, and that the page has no inline script or style for it
// to forbid.
func TestCSPForbidsInline(t *testing.T) {
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		assert.NotContains(t, sharepage.CSP, bad)
	}
	assert.Contains(t, sharepage.CSP, "default-src 'none'")
	assert.Contains(t, sharepage.CSP, "frame-ancestors 'none'")
	srv := mustServe(t, sharepage.Options{})
	_, page := get(t, "GET", srv.URL+"/s/")
	assert.Contains(t, page, `<meta name="viewport"`)
	assert.Contains(t, page, `<script type="module" src="app.js"></script>`)
	assert.Equal(t, 1, strings.Count(page, "<script"), "the one script is the module file")
	assert.NotContains(t, page, "<style")
	assert.NotContains(t, page, "style=")
	assert.NotContains(t, page, " on", "no inline event handler")
}

// TestNoHTMLSinks checks the page's scripts never hand a string to an
// HTML parser: data reaches the DOM as text nodes only.
func TestNoHTMLSinks(t *testing.T) {
	srv := mustServe(t, sharepage.Options{})
	for _, f := range []string{"app.js", "view.js", "parts.js", "dom.js", "capnweb-lite.js"} {
		resp, src := get(t, "GET", srv.URL+"/s/"+f)
		require.Equal(t, 200, resp.StatusCode, f)
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			assert.NotContains(t, src, sink, "%s uses %s", f, sink)
		}
	}
}

// TestBase checks the link base: --public-url when set, else the
// request's scheme and host.
func TestBase(t *testing.T) {
	base := func(srv *httptest.Server, hdr map[string]string) string {
		req, err := http.NewRequest("GET", srv.URL+"/s/base", nil)
		require.NoError(t, err)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var got struct{ Base string }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
		return got.Base
	}
	plain := mustServe(t, sharepage.Options{})
	assert.Equal(t, plain.URL, base(plain, nil))
	assert.Equal(t, "https://"+strings.TrimPrefix(plain.URL, "http://"), base(plain, map[string]string{"X-Forwarded-Proto": "https"}))

	public := mustServe(t, sharepage.Options{PublicURL: "https://vat.example.com/"})
	assert.Equal(t, "https://vat.example.com", base(public, nil))

	tlsSrv := httptest.NewUnstartedServer(sharepage.Handler(sharepage.Options{}))
	tlsSrv.TLS = &tls.Config{}
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	assert.Equal(t, tlsSrv.URL, base(tlsSrv, nil))
}
