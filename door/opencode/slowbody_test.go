package opencode_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestSlowBodyIsCutOff: a peer that sends a request's headers and then
// trickles (or withholds) its body must not hold its connection, and
// the memory budget its declared length took, for ever. Invariant: with
// a 1 s assemble timeout, a create that declares a 16 MiB body (within
// the 32 MiB limit) and stops after 12 bytes is answered 408 after about
// a second (the body must keep a pace of 64 KiB/s, not merely arrive
// within a time its declared length buys) with a JSON error and the headers of every
// answer, and the connection is closed; meanwhile the door serves
// others. The wait is bounded by the client's 20 s read deadline: a
// door without the body timeout never answers and the test fails.
func TestSlowBodyIsCutOff(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.AssembleTimeout = time.Second
	}})
	host := strings.TrimPrefix(s.HTTP, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/share HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"sessionID\"", host, 16<<20)
	require.NoError(t, err)

	other := create(t, s.HTTP, "ses_meanwhile") // the door serves others meanwhile
	require.NotEmpty(t, other.ID)

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "the door did not answer a withheld body")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode, "%s", body)
	require.Contains(t, string(body), `"error":"invalid: the request body did not arrive within 1s plus 1s per 64 KiB"`)
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
	_, err = br.ReadByte()
	require.Error(t, err, "the connection of a cut-off body stays open")
	require.Equal(t, 1, countShares(t, s))
}
