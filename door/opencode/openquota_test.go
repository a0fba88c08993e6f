package opencode_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// from is an HTTP client whose connections come from the loopback
// address ip (127.0.0.0/8 is all loopback on Linux).
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// TestOpenCreateQuota: the open door made 2,000 shares in 11.8 s for
// whoever asked (issue 32). Invariant: past its hourly quota per remote
// address a create answers 429 naming the flag and makes nothing; another
// address still creates until the overall quota, then it gets 429 too;
// a create answered with an existing (joinable) share counts nothing.
func TestOpenCreateQuota(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen, c.OpencodeOpenPerAddr, c.OpencodeOpenTotal = true, 3, 5
	}})
	post := func(hc *http.Client, session string) reply {
		res, err := hc.Do(newReq(t, "POST", s.HTTP+"/api/share", map[string]string{"sessionID": session}))
		require.NoError(t, err)
		defer res.Body.Close()
		var r reply
		r.status = res.StatusCode
		r.body = readAll(t, res)
		return r
	}
	a, b := from("127.0.0.1"), from("127.0.0.2")
	for i := range 3 {
		r := post(a, "ses_a"+strconv.Itoa(i))
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	}
	require.Equal(t, http.StatusOK, post(a, "ses_a0").status, "the same new session again counts nothing")
	r := post(a, "ses_a3")
	require.Equal(t, http.StatusTooManyRequests, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "--opencode-open-per-addr")
	for i := range 2 {
		r := post(b, "ses_b"+strconv.Itoa(i))
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	}
	r = post(b, "ses_b2")
	require.Equal(t, http.StatusTooManyRequests, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "--opencode-open-total")
	require.Equal(t, 5, countShares(t, s))
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return b
}
