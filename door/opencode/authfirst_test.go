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

// TestTokenBeforeBody: the door read (and charged) a whole body before
// it looked at the credentials in it, so junk credentials cost the vat a
// body's memory each (issue 32). Invariant, with a 60 s body timeout: a
// sync and a delete whose bodies start with a junk secret, and a create
// with a junk creation token in
// its path, each declaring a body within its limit (16 MiB for the sync)
// and sending only its start, are
// answered 401 JSON at once (within the client's 20 s deadline, without
// the rest of the body), and the connection is closed.
func TestTokenBeforeBody(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.Peers.AssembleTimeout = time.Minute
	}})
	m := mint(t, s, 100, 0)
	sh := create(t, s.HTTP+"/opencode/"+m.Token, "ses_first")
	for _, c := range []struct {
		name, method, path, start string
		length                    int
	}{
		{"junk secret", "POST", "/api/share/" + sh.ID + "/sync", `{"secret":"` + junkToken + `","data":[`, 16 << 20},
		{"junk secret, delete", "DELETE", "/api/share/" + sh.ID, `{"secret":"` + junkToken + `",`, 32 << 10},
		{"junk creation token", "POST", "/opencode/" + junkToken + "/api/share", `{"sessionID":"`, 32 << 10},
	} {
		host := strings.TrimPrefix(s.HTTP, "http://")
		conn, err := net.Dial("tcp", host)
		require.NoError(t, err)
		_, err = fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", c.method, c.path, host, c.length, c.start)
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		require.NoError(t, err, "%s: the door waited for the body", c.name)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s: %s", c.name, body)
		require.Contains(t, string(body), `"error":"unauthorized`, c.name)
		require.Equal(t, "no-store", res.Header.Get("Cache-Control"), c.name)
		conn.Close()
	}
}

// junkToken is a well-formed token no vat minted.
const junkToken = "svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
