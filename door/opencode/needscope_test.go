package opencode_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestLinkSecretRefusedBeforeCharge: a share's public link (read only)
// sent as a sync's secret is refused by the gate's scope check before
// its body is charged or read. Invariant: a sync declaring 3.5 MiB —
// more than the whole 1 MiB budget could be charged — whose body starts
// with the link and withholds the rest answers the door's one 401, in
// the door's JSON, at once (a charge would answer 503, a read would
// wait for the body).
func TestLinkSecretRefusedBeforeCharge(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 1 << 20
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_needscope")

	host := strings.TrimPrefix(s.HTTP, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/share/%s/sync HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"secret\":%q,", sh.ID, host, 3584<<10, slug(sh))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s", body)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	require.JSONEq(t, `{"error":"unauthorized: invalid or expired token"}`, string(body))
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
}
