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

// TestBodyChargedAsItArrives: the memory budget counts the bytes of a
// body the door holds, not the length it declares nor the door's 32 MiB
// limit. Invariant, under a 4 MiB budget: a create sent chunked (no
// declared length) is served; while a peer that declared a 3.5 MiB body
// has sent 12 bytes of it, a 900 KB sync is served; a body over the
// budget is still refused 503 (TestDoorCountsAgainstMemoryBudget).
func TestBodyChargedAsItArrives(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 4 << 20
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

	big := `{"type":"part","data":{"id":"prt_1","messageID":"msg_1","text":"` + strings.Repeat("z", 900<<10) + `"}}`
	r = syncRaw(t, d.base, sh, big)
	require.Equal(t, http.StatusOK, r.status, "a sync beside a withheld body: %.200s", r.body)
}
