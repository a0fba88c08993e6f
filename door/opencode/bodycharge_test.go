package opencode_test

import (
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

// TestWithheldBodyHoldsNoBudget: a peer that declares a large body and
// withholds it must not hold the memory budget others need. Invariant,
// under an 8 MiB budget: a create sent chunked (no declared length) is
// served; a create declaring 3.5 MiB is refused at once by its size
// limit (64 KiB), and a sync declaring 3.5 MiB whose body starts with a
// junk secret is refused 401 before its body is read, so neither holds
// anything; while both peers withhold the rest, a 900 KB sync (charged
// four times its length to its caller, at most half the budget) is
// served.
func TestWithheldBodyHoldsNoBudget(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 8 << 20
	}})
	d := &door{Server: s, base: s.HTTP}

	req := newReq(t, "POST", d.base+"/api/share", nil)
	req.Body = io.NopCloser(strings.NewReader(`{"sessionID":"ses_chunked"}`))
	req.ContentLength = -1 // sent chunked
	r := do(t, req)
	require.Equal(t, http.StatusOK, r.status, "a chunked create: %s", r.body)
	var sh share
	r.json(t, &sh)

	host := strings.TrimPrefix(s.HTTP, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/share HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"sessionID\"", host, 3584<<10)
	require.NoError(t, err)
	conn2, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn2.Close()
	_, err = fmt.Fprintf(conn2, "POST /api/share/%s/sync HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"secret\":%q,", sh.ID, host, 3584<<10, junkToken)
	require.NoError(t, err)

	big := `{"type":"part","data":{"id":"prt_1","messageID":"msg_1","text":"` + strings.Repeat("z", 900<<10) + `"}}`
	r = syncRaw(t, d.base, sh, big)
	require.Equal(t, http.StatusOK, r.status, "a sync beside a withheld body: %.200s", r.body)
}
