package mcp_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestJunkBearersTakeNoSessionSlot (issue 32, bug 2): any bearer string
// opened a session, so junk-bearer initializes filled the slots and the
// owner's initialize got 503 for the idle timeout. Invariant: with 16
// slots, 64 initializes with junk bearers are each refused 401 with
// WWW-Authenticate, before any session is kept, and the owner's session
// then opens and works.
func TestJunkBearersTakeNoSessionSlot(t *testing.T) {
	d := startBounded(t, 16, 16, nil)
	owner := d.vat.MustCreate(t, "owner")
	for i := range 64 {
		status, msg := initialize(t, d.url, fmt.Sprintf("junk-%d", i))
		require.Equal(t, http.StatusUnauthorized, status, "junk bearer %d: %s", i, msg)
	}
	must(t, d.session(t, owner), "share_info", nil, nil)
}

// TestJunkBearerBodyIsNeverRead (issue 32, bug 3): the body was read and
// parsed before the token was judged, so 16 parallel ~7 MiB append_ops
// with bearer "garbage" took the vat to 2.3 GiB. Invariant: 16 parallel
// POSTs that declare 7 MiB bodies, send 12 bytes of them and withhold
// the rest, bearer "garbage", are each answered 401 with
// WWW-Authenticate: the answer needs none of the body. Before the gate
// the door waited for the body (its body timeout is a minute here), and
// each client's 20 s read deadline failed the test.
func TestJunkBearerBodyIsNeverRead(t *testing.T) {
	v := vattest.Start(t, vattest.Options{})
	h := mcpdoor.NewHTTPHandler(mcpdoor.HTTPOptions{
		Bootstrap:       func(peer string) capnp.Client { return v.Vat.Bootstrap(peer) },
		MaxRequestBytes: 9 << 20, BodyTimeout: time.Minute,
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			conn, err := net.Dial("tcp", host)
			if !assert.NoError(t, err) {
				return
			}
			defer conn.Close()
			_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer garbage\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n{\"jsonrpc\":", host, 7<<20)
			assert.NoError(t, err)
			assert.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if !assert.NoError(t, err, "no answer without the body") {
				return
			}
			res.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
			assert.Equal(t, mcpdoor.Challenge, res.Header.Get("WWW-Authenticate"))
		})
	}
	wg.Wait()
}

// TestRequestWithoutSessionIs400: a request that is not an initialize
// and names no session is 400 with a JSON-RPC error (Streamable HTTP:
// "Servers that require a session ID SHOULD respond to requests without
// an Mcp-Session-Id header (other than initialization) with HTTP 400").
func TestRequestWithoutSessionIs400(t *testing.T) {
	d := startDoor(t)
	tok := d.vat.MustCreate(t, "nosession")
	req, err := http.NewRequest(http.MethodPost, d.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, jsonDecode(res.Body, &body))
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Equal(t, 7, body.ID)
	assert.Equal(t, -32600, body.Error.Code)
	assert.Contains(t, body.Error.Message, "Mcp-Session-Id")
}

// TestAppendOpsOverTheLimit: an append_ops of more ops than the vat
// takes in a batch is answered, before the SDK decodes it, with an
// invalid-params error naming the limit (it was "internal: internal
// error"), and the session keeps serving.
func TestAppendOpsOverTheLimit(t *testing.T) {
	d := startDoor(t)
	cs := d.session(t, d.vat.MustCreate(t, "many"))
	ops := make([]any, 2000)
	for i := range ops {
		ops[i] = map[string]any{"kind": "event"}
	}
	_, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "append_ops", Arguments: map[string]any{"ops": ops}})
	require.ErrorContains(t, err, "invalid: append_ops takes at most 1000 ops per call")
	must(t, cs, "share_info", nil, nil)
}
