package rpc_test

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

// TestInteropFraming speaks to the server the way a C++ or capnp-es peer
// does: one hand-built Bootstrap message in one binary frame. It reads the
// answer below gorilla, from the TCP stream, to prove that the Return
// arrives as exactly one unfragmented binary frame holding exactly one
// Cap'n Proto message.
func TestInteropFraming(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{PingInterval: -1})
	ws := dialRaw(t, srv.WSURL, nil)
	if err := ws.WriteMessage(websocket.BinaryMessage, bootstrapMessage(t, 7)); err != nil {
		t.Fatalf("write: %v", err)
	}
	fin, opcode, payload := readRawFrame(t, ws.NetConn())
	if !fin || opcode != websocket.BinaryMessage {
		t.Fatalf("frame fin=%v opcode=%d, want one final binary frame", fin, opcode)
	}
	if got, want := len(payload), framedLen(payload); got != want {
		t.Fatalf("frame holds %d bytes, its segment table announces %d", got, want)
	}
	checkReturn(t, payload, 7)
}

// readRawFrame parses one server-to-client WebSocket frame (RFC 6455 §5.2;
// server frames are unmasked).
func readRawFrame(t *testing.T, c net.Conn) (fin bool, opcode int, payload []byte) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(safety))
	hdr := make([]byte, 2)
	mustReadFull(t, c, hdr)
	if hdr[1]&0x80 != 0 {
		t.Fatal("server frame is masked")
	}
	n := uint64(hdr[1] & 0x7f)
	switch n {
	case 126:
		ext := make([]byte, 2)
		mustReadFull(t, c, ext)
		n = uint64(binary.BigEndian.Uint16(ext))
	case 127:
		ext := make([]byte, 8)
		mustReadFull(t, c, ext)
		n = binary.BigEndian.Uint64(ext)
	}
	payload = make([]byte, n)
	mustReadFull(t, c, payload)
	return hdr[0]&0x80 != 0, int(hdr[0] & 0x0f), payload
}

func mustReadFull(t *testing.T, r io.Reader, buf []byte) {
	t.Helper()
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatalf("read frame: %v", err)
	}
}

// checkReturn parses payload as a Return for question id carrying the
// bootstrap capability.
func checkReturn(t *testing.T, payload []byte, id uint32) {
	t.Helper()
	msg, err := capnp.Unmarshal(payload)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	m, err := rpccp.ReadRootMessage(msg)
	if err != nil {
		t.Fatalf("ReadRootMessage: %v", err)
	}
	if m.Which() != rpccp.Message_Which_return {
		t.Fatalf("message is %v, want return", m.Which())
	}
	ret, err := m.Return()
	if err != nil {
		t.Fatal(err)
	}
	if ret.AnswerId() != id || ret.Which() != rpccp.Return_Which_results {
		t.Fatalf("return answer=%d which=%v, want answer=%d results", ret.AnswerId(), ret.Which(), id)
	}
	results, err := ret.Results()
	if err != nil {
		t.Fatal(err)
	}
	caps, err := results.CapTable()
	if err != nil || caps.Len() != 1 {
		t.Fatalf("cap table: %d entries, err %v; want 1", caps.Len(), err)
	}
}
