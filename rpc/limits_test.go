package rpc_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/rpc"
)

// blob is a second method of the test interface: it answers n zero bytes.
var blob = capnp.Method{InterfaceID: addOne.InterfaceID, MethodID: 2, InterfaceName: "rpc_test.Adder", MethodName: "blob"}

// self is a third: it answers a new adder in its results' pointer 0.
var self = capnp.Method{InterfaceID: addOne.InterfaceID, MethodID: 3, InterfaceName: "rpc_test.Adder", MethodName: "self"}

func blobServer() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{
		{Method: addOne, Impl: addOneImpl},
		{Method: self, Impl: func(_ context.Context, call *server.Call) error {
			res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
			if err != nil {
				return err
			}
			seg := res.Segment()
			id := seg.Message().CapTable().Add(newAdder())
			return res.SetPtr(0, capnp.NewInterface(seg, id).ToPtr())
		}},
		{Method: blob, Impl: func(_ context.Context, call *server.Call) error {
			res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
			if err != nil {
				return err
			}
			return res.SetData(0, make([]byte, call.Args().Uint64(0)))
		}},
	}, nil, nil))
}

// rawCall is a serialized Call of m with question id q on target
// (promisedAnswer of question `on`, through the pointer fields path), with
// a uint64 argument and caps capability descriptors in its params.
func rawCall(tb testing.TB, q, on uint32, path []uint16, m capnp.Method, arg uint64, caps int) []byte {
	tb.Helper()
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	root, err := rpccp.NewRootMessage(seg)
	must(tb, err)
	call, err := root.NewCall()
	must(tb, err)
	call.SetQuestionId(q)
	call.SetInterfaceId(m.InterfaceID)
	call.SetMethodId(m.MethodID)
	target, err := call.NewTarget()
	must(tb, err)
	pa, err := target.NewPromisedAnswer()
	must(tb, err)
	pa.SetQuestionId(on)
	ops, err := pa.NewTransform(int32(len(path)))
	must(tb, err)
	for i, f := range path {
		ops.At(i).SetGetPointerField(f)
	}
	params, err := call.NewParams()
	must(tb, err)
	args, err := capnp.NewStruct(seg, capnp.ObjectSize{DataSize: 8})
	must(tb, err)
	args.SetUint64(0, arg)
	must(tb, params.SetContent(args.ToPtr()))
	if caps > 0 {
		table, err := params.NewCapTable(int32(caps))
		must(tb, err)
		for i := range caps {
			table.At(i).SetSenderHosted(uint32(i))
		}
	}
	data, err := msg.Marshal()
	must(tb, err)
	return data
}

func finishMessage(tb testing.TB, q uint32) []byte {
	tb.Helper()
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	root, err := rpccp.NewRootMessage(seg)
	must(tb, err)
	fin, err := root.NewFinish()
	must(tb, err)
	fin.SetQuestionId(q)
	data, err := msg.Marshal()
	must(tb, err)
	return data
}

// limits records the limits OnLimit reports.
type limits struct {
	mu  sync.Mutex
	got []string
}

func (l *limits) hit(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, name)
}

func (l *limits) names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

func writeAll(tb testing.TB, ws *websocket.Conn, frames ...[]byte) {
	tb.Helper()
	for _, f := range frames {
		must(tb, ws.WriteMessage(websocket.BinaryMessage, f))
	}
}

func assertClose(tb testing.TB, ws *websocket.Conn, code int, reason string) {
	tb.Helper()
	ce := readClose(tb, ws)
	assert.Equal(tb, code, ce.Code, "close code (reason %q)", ce.Text)
	assert.Equal(tb, reason, ce.Text)
}

// TestAnswersKeptUntilFinish: answers the peer never finishes count
// against its connection's budget (go-capnp keeps each until Finish), so
// a peer that never sends Finish is closed with 1008, while one that does
// runs any number of calls; another connection is served throughout.
func TestAnswersKeptUntilFinish(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	srv := mustServe(t, rpc.HandlerOptions{ConnMemory: 64 << 10, OnLimit: hits.hit})
	good := mustBootstrap(t, mustDial(t, srv.WSURL, nil))

	polite := dialRaw(t, srv.WSURL, nil)
	writeAll(t, polite, bootstrapMessage(t, 0))
	for q := uint32(1); q <= 200; q++ { // 200 × 3 KiB would be far over 64 KiB
		writeAll(t, polite, rawCall(t, q, 0, nil, addOne, uint64(q), 0))
		_, _, err := polite.ReadMessage() // the Return
		require.NoError(t, err, "call %d", q)
		writeAll(t, polite, finishMessage(t, q))
	}

	rude := dialRaw(t, srv.WSURL, nil)
	writeAll(t, rude, bootstrapMessage(t, 0))
	for q := uint32(1); q <= 200; q++ {
		writeAll(t, rude, rawCall(t, q, 0, nil, addOne, uint64(q), 0))
	}
	assertClose(t, rude, websocket.ClosePolicyViolation, "sharevat: connection memory budget of 65536 bytes exceeded")
	assert.Equal(t, []string{rpc.LimitConnMemory}, hits.names())
	mustAdd(t, good, 1)
	writeAll(t, polite, rawCall(t, 201, 0, nil, addOne, 1, 0))
	_, _, err := polite.ReadMessage()
	assert.NoError(t, err, "the polite connection is still served")
}

// TestPeerThatDoesNotRead: answers queued for a peer that reads nothing
// count against its budget; it is closed instead of growing the server.
func TestPeerThatDoesNotRead(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{
		ConnMemory: 4 << 20,
		Bootstrap:  func(rpc.Peer) capnp.Client { return blobServer() },
	})
	good := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	ws := dialRaw(t, srv.WSURL, nil)
	writeAll(t, ws, bootstrapMessage(t, 0))
	// 16 × 1 MiB answers, never read: four times the budget. (64 made
	// go-capnp's shutdown zero 64 MiB of arenas byte by byte, which under
	// the race detector on a busy machine outlasted checkGoroutines.)
	for q := uint32(1); q <= 16; q++ {
		writeAll(t, ws, rawCall(t, q, 0, nil, blob, 1<<20, 0))
	}
	waitFor(t, func() bool { return srv.Handler.Conns() == 1 }, "the server to drop the peer that does not read")
	mustAdd(t, good, 1)
}

// TestCapsPerMessage: a message carrying more capability descriptors than
// allowed closes the connection before go-capnp imports any of them.
func TestCapsPerMessage(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	srv := mustServe(t, rpc.HandlerOptions{MaxCapsPerMessage: 8, OnLimit: hits.hit})
	ok := dialRaw(t, srv.WSURL, nil)
	writeAll(t, ok, bootstrapMessage(t, 0), rawCall(t, 1, 0, nil, addOne, 1, 8))
	ws := dialRaw(t, srv.WSURL, nil)
	writeAll(t, ws, bootstrapMessage(t, 0), rawCall(t, 1, 0, nil, addOne, 1, 9))
	assertClose(t, ws, websocket.ClosePolicyViolation, "sharevat: 9 capabilities in one message (limit 8)")
	assert.Equal(t, []string{rpc.LimitCapsPerMessage}, hits.names())
}

// TestPipelinedOnNoCapability: a call pipelined on one of the peer's
// questions at a field that holds no capability (another field, the
// results themselves, inside the bootstrap capability, a method that
// returns none), or on a question the peer never asked, is refused
// safely by the engine (an Abort or an exception Return), and the
// process goes on serving; a call at a capability field is answered.
// (go-capnp v3.1.0-alpha.2 crashed the process on the first kind, which
// the transport used to refuse before it; the engine needs no such guard.)
func TestPipelinedOnNoCapability(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{Bootstrap: func(rpc.Peer) capnp.Client { return blobServer() }})
	for _, c := range []struct {
		name   string
		on     uint32
		path   []uint16
		refuse bool
	}{
		{"a capability field", 1, []uint16{0}, false},
		{"another field", 1, []uint16{1}, true},
		{"the results themselves", 1, nil, true},
		{"inside the bootstrap capability", 0, []uint16{0}, true},
		{"a field of a method that returns none", 3, []uint16{0}, true},
		{"a question never asked", 7, []uint16{3}, true},
	} {
		ws := dialRaw(t, srv.WSURL, nil)
		writeAll(t, ws, bootstrapMessage(t, 0), rawCall(t, 1, 0, nil, self, 0, 0), rawCall(t, 3, 0, nil, addOne, 1, 0),
			rawCall(t, 2, c.on, c.path, addOne, 1, 0))
		if c.refuse {
			readRefusal(t, ws, 2)
			continue
		}
		for range 4 { // the returns of the bootstrap, the two calls and the pipelined call
			_, _, err := ws.ReadMessage()
			require.NoError(t, err, c.name)
		}
	}
}

// readRefusal reads until the connection closes or question q is
// answered, which must be with an exception.
func readRefusal(tb testing.TB, ws *websocket.Conn, q uint32) {
	tb.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(safety))
	for {
		_, data, err := ws.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return
		}
		require.NoError(tb, err)
		msg, err := capnp.Unmarshal(data)
		require.NoError(tb, err)
		m, err := rpccp.ReadRootMessage(msg)
		require.NoError(tb, err)
		if m.Which() != rpccp.Message_Which_return {
			continue
		}
		if r, err := m.Return(); err == nil && r.AnswerId() == q {
			require.Equal(tb, rpccp.Return_Which_exception, r.Which(), "the call on an unknown question")
			return
		}
	}
}

// TestAssembleTimeout: a message whose last frame does not arrive within
// AssembleTimeout closes the connection, even with pings between its
// frames (which keep an idle connection alive).
func TestAssembleTimeout(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	srv := mustServe(t, rpc.HandlerOptions{AssembleTimeout: 300 * time.Millisecond, OnLimit: hits.hit})
	d := websocket.Dialer{WriteBufferSize: 1024}
	ws, _, err := d.Dial(srv.WSURL, nil)
	require.NoError(t, err)
	defer ws.Close()
	w, err := ws.NextWriter(websocket.BinaryMessage)
	require.NoError(t, err)
	part := append([]byte{0, 0, 0, 0, 0, 0, 1, 0}, make([]byte, 4096)...) // one segment of 65536 words announced
	_, err = w.Write(part)
	require.NoError(t, err) // frames of 1 KiB go out; the message stays open
	closed := make(chan *websocket.CloseError, 1)
	go func() {
		_, _, err := ws.ReadMessage()
		var ce *websocket.CloseError
		errors.As(err, &ce)
		closed <- ce
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(safety)
	for {
		select {
		case ce := <-closed:
			require.NotNil(t, ce)
			assert.Equal(t, websocket.ClosePolicyViolation, ce.Code)
			assert.Equal(t, "sharevat: message not complete within 300ms of its first frame", ce.Text)
			assert.Equal(t, []string{rpc.LimitAssembleTime}, hits.names())
			return
		case <-tick.C:
			_ = ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
		case <-giveUp:
			t.Fatal("the half-sent message was never refused")
		}
	}
}

// TestMaxConnsPerIP: beyond the per-address cap the upgrade is refused
// with 503; a closed connection frees its slot.
func TestMaxConnsPerIP(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	srv := mustServe(t, rpc.HandlerOptions{MaxConnsPerIP: 2, OnLimit: hits.hit})
	a := dialRaw(t, srv.WSURL, nil)
	dialRaw(t, srv.WSURL, nil)
	_, resp, err := websocket.DefaultDialer.Dial(srv.WSURL, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, []string{rpc.LimitConnsPerIP}, hits.names())
	_ = a.Close()
	waitFor(t, func() bool { return srv.Handler.Conns() == 1 }, "the closed connection to be released")
	dialRaw(t, srv.WSURL, nil)
}

// TestMemoryPool: connections share the server-wide pool; a connection
// whose charge would exhaust it is closed with 1013 (try again later),
// and the bytes of closed connections return to the pool.
func TestMemoryPool(t *testing.T) {
	checkGoroutines(t)
	pool := rpc.NewMemoryPool(40 << 10)
	srv := mustServe(t, rpc.HandlerOptions{Pool: pool, Bootstrap: func(rpc.Peer) capnp.Client { return blobServer() }})
	ws := dialRaw(t, srv.WSURL, nil)
	writeAll(t, ws, bootstrapMessage(t, 0))
	for q := uint32(1); q <= 20; q++ { // unfinished answers (a capability each: a Finish is needed): 20 × 3 KiB and more
		writeAll(t, ws, rawCall(t, q, 0, nil, self, 0, 0))
	}
	assertClose(t, ws, websocket.CloseTryAgainLater, "sharevat: server memory budget exhausted; try again later")
	waitFor(t, func() bool { return pool.Used() == 0 }, "the closed connection's bytes to return to the pool")
	mustAdd(t, mustBootstrap(t, mustDial(t, srv.WSURL, nil)), 1)
}

// TestMemoryPoolEvictsTheLargest: when the pool runs out, the connection
// holding the most is closed with 1013, not the one that needs a little:
// a hoarding peer cannot lock a polite one out.
func TestMemoryPoolEvictsTheLargest(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	pool := rpc.NewMemoryPool(64 << 10)
	srv := mustServe(t, rpc.HandlerOptions{Pool: pool, OnLimit: hits.hit, Bootstrap: func(rpc.Peer) capnp.Client { return blobServer() }})
	hoard := dialRaw(t, srv.WSURL, nil)
	writeAll(t, hoard, bootstrapMessage(t, 0))
	const calls = 19 // unfinished answers (a capability each: a Finish is needed): 20 × ~3.2 KiB, nearly all the pool
	for q := uint32(1); q <= calls; q++ {
		writeAll(t, hoard, rawCall(t, q, 0, nil, self, 0, 0))
	}
	for range calls + 1 {
		_, _, err := hoard.ReadMessage()
		require.NoError(t, err)
	}
	mustAdd(t, mustBootstrap(t, mustDial(t, srv.WSURL, nil)), 1)
	assertClose(t, hoard, websocket.CloseTryAgainLater,
		"sharevat: server memory budget exhausted and this connection holds the most; try again later")
	assert.Equal(t, []string{rpc.LimitServerMemory}, hits.names())
}

// TestMaxConnsPerIPLoopbackExempt: with LoopbackExempt, connections from
// loopback pass MaxConnsPerIP (every local client shares the address)
// while MaxConns still bounds them.
func TestMaxConnsPerIPLoopbackExempt(t *testing.T) {
	checkGoroutines(t)
	var hits limits
	srv := mustServe(t, rpc.HandlerOptions{MaxConnsPerIP: 1, MaxConns: 3, LoopbackExempt: true, OnLimit: hits.hit})
	for range 3 {
		dialRaw(t, srv.WSURL, nil)
	}
	_, resp, err := websocket.DefaultDialer.Dial(srv.WSURL, nil)
	require.Error(t, err, "MaxConns still counts loopback")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, []string{rpc.LimitConns}, hits.names())
}
