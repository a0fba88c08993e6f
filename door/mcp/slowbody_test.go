package mcp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/require"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestSlowBodyIsCutOff: a peer that sends a POST's headers and then
// withholds its body must not hold the connection for ever (the server
// sets no read timeout). Invariant: with a 1 s body timeout, an
// initialize with a valid token whose 1,000-byte body stops after 12 bytes is answered 408
// naming the timeout, the connection is closed, and a real session
// opens meanwhile. The wait is bounded by the client's 20 s read
// deadline: a door without the timeout never answers and the test fails.
func TestSlowBodyIsCutOff(t *testing.T) {
	v := vattest.Start(t, vattest.Options{})
	h := mcpdoor.NewHTTPHandler(mcpdoor.HTTPOptions{
		Bootstrap:   func(peer string) capnp.Client { return v.Vat.Bootstrap(peer) },
		BodyTimeout: time.Second,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	d := &door{vat: v, url: srv.URL + "/mcp"}

	tok := d.vat.MustCreate(t, "slow")
	host := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.Dial("tcp", host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", host, tok)
	require.NoError(t, err)

	must(t, d.session(t, d.vat.MustCreate(t, "meanwhile")), "share_info", nil, nil)

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "the door did not answer a withheld body")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode, "%s", body)
	require.Contains(t, string(body), "invalid: the request body did not arrive within 1s")
	_, err = br.ReadByte()
	require.Error(t, err, "the connection of a cut-off body stays open")
}
