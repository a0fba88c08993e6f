package opencode_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestDoorPathTricksAnswerWithoutRedirect: a door path that is not
// clean (a dot segment, a doubled slash) must not be redirected by the
// server's mux to its clean form: that redirect repeats the creation
// token in Location, without Cache-Control: no-store nor
// Referrer-Policy: no-referrer. Invariant: each such path, and a door
// path under a Host the server does not serve, answers a 4xx with the
// door's headers and no Location; nothing is created; the clean path
// still creates.
func TestDoorPathTricksAnswerWithoutRedirect(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	m := mint(t, s, 100, 0)
	tok := "/opencode/" + m.Token
	for _, p := range []string{
		tok + "/./api/share",
		tok + "/api/share/../share",
		tok + "//api/share",
		"/opencode/x/../" + m.Token + "/api/share",
		"/api/share/x/../y/sync",
		"/share/x/../../opencode-tokens",
	} {
		req, err := http.NewRequest("POST", s.HTTP+p, bytes.NewBufferString(`{"sessionID":"ses_trick"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultTransport.RoundTrip(req) // no redirect followed
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.GreaterOrEqual(t, res.StatusCode, 400, "%s: %d %s", p, res.StatusCode, body)
		require.Less(t, res.StatusCode, 500, "%s: %s", p, body)
		require.Empty(t, res.Header.Get("Location"), p)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), p)
		require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"), p)
		require.False(t, strings.Contains(string(body), m.Token[len(m.Token)-43:]), p)
	}
	req := newReq(t, "POST", s.HTTP+tok+"/api/share", `{"sessionID":"ses_trick"}`)
	req.Host = "elsewhere.example"
	r := do(t, req)
	require.GreaterOrEqual(t, r.status, 400, "%s", r.body)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"), "a refused Host")
	require.Equal(t, "no-referrer", r.header.Get("Referrer-Policy"), "a refused Host")
	require.Zero(t, countShares(t, s))
	create(t, s.HTTP+tok, "ses_trick")
}

// TestDoorPathReachedFromAnotherPrefix: a path outside the door's
// prefixes whose clean form is a door path (/x/../opencode/<token>/…,
// /s/../share/<slug>) was redirected 307 by the mux with the token in
// Location (issue 32). Invariant: it answers 404 with the door's
// headers, no Location, and no token in the body.
func TestDoorPathReachedFromAnotherPrefix(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	m := mint(t, s, 100, 0)
	sh := create(t, s.HTTP+"/opencode/"+m.Token, "ses_prefix")
	for _, p := range []string{
		"/x/../opencode/" + m.Token + "/api/share",
		"/s/../share/" + slug(sh),
		"/s/../api/share/" + slug(sh) + "/data",
		"/rpc/../opencode-tokens",
	} {
		req, err := http.NewRequest("GET", s.HTTP+p, nil)
		require.NoError(t, err)
		res, err := http.DefaultTransport.RoundTrip(req) // no redirect followed
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusNotFound, res.StatusCode, "%s: %s", p, body)
		require.Empty(t, res.Header.Get("Location"), p)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), p)
		require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"), p)
		require.NotContains(t, string(body), m.Token[len(m.Token)-43:], p)
	}
}
