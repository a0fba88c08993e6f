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
// a 1 s assemble timeout, a sync with a valid secret that declares a
// 16 MiB body (within the 32 MiB limit) and stops after its secret is
// answered 408 after about a second (its gate's body timeout) with a
// JSON error and the headers of every answer, and the connection is
// closed; meanwhile the door serves others. The wait is bounded by the
// client's 20 s read deadline: a door without the body timeout never
// answers and the test fails.
func TestSlowBodyIsCutOff(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.AssembleTimeout = time.Second
	}})
	sh := create(t, s.HTTP, "ses_slow")
	host := strings.TrimPrefix(s.HTTP, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/share/%s/sync HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"secret\":%q,", sh.ID, host, 16<<20, sh.Secret)
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
	require.Contains(t, string(body), `"error":"invalid: the request body did not arrive within 1s"`)
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	require.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
	_, err = br.ReadByte()
	require.Error(t, err, "the connection of a cut-off body stays open")
	require.Equal(t, 2, countShares(t, s))
}
