package rpc_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

const testReadLimit = 1024

// TestBadFrames sends one bad frame from a raw client and expects the
// matching close frame, while another client on the same server keeps
// working.
func TestBadFrames(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{ReadLimit: testReadLimit})
	good := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	boot := bootstrapMessage(t, 0)
	tests := []struct {
		name   string
		typ    int
		data   []byte
		code   int
		reason string
	}{
		{"text frame", websocket.TextMessage, []byte("hello"), websocket.CloseUnsupportedData,
			"sharevat: text frames are not supported; send one Cap'n Proto message per binary frame"},
		{"garbage", websocket.BinaryMessage, []byte("this is not a Cap'n Proto message"),
			websocket.CloseInvalidFramePayloadData, "sharevat: malformed Cap'n Proto message"},
		{"empty", websocket.BinaryMessage, nil,
			websocket.CloseInvalidFramePayloadData, "sharevat: malformed Cap'n Proto message"},
		{"trailing bytes", websocket.BinaryMessage, append(append([]byte{}, boot...), make([]byte, 8)...),
			websocket.CloseInvalidFramePayloadData, "sharevat: malformed Cap'n Proto message"},
		{"truncated", websocket.BinaryMessage, boot[:len(boot)-8],
			websocket.CloseInvalidFramePayloadData, "sharevat: malformed Cap'n Proto message"},
		{"two messages", websocket.BinaryMessage, append(append([]byte{}, boot...), boot...),
			websocket.CloseInvalidFramePayloadData, "sharevat: malformed Cap'n Proto message"},
		{"oversized", websocket.BinaryMessage, make([]byte, 1<<20),
			websocket.CloseMessageTooBig, "sharevat: frame larger than 1024 bytes"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := dialRaw(t, srv.WSURL, nil)
			if err := ws.WriteMessage(tt.typ, tt.data); err != nil {
				t.Fatalf("write: %v", err)
			}
			ce := readClose(t, ws)
			if ce.Code != tt.code || ce.Text != tt.reason {
				t.Errorf("close = %d %q, want %d %q", ce.Code, ce.Text, tt.code, tt.reason)
			}
			mustAdd(t, good, uint64(i))
		})
	}
}

// TestOversizedCallFromClient checks that a Dial client learns why the
// server closed its connection.
func TestOversizedCallFromClient(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{ReadLimit: testReadLimit})
	conn := mustDial(t, srv.WSURL, nil)
	boot := mustBootstrap(t, conn)
	ans, release := boot.SendCall(context.Background(), capnp.Send{
		Method:    addOne,
		ArgsSize:  capnp.ObjectSize{DataSize: 8, PointerCount: 1},
		PlaceArgs: func(s capnp.Struct) error { return setBlob(s, 2*testReadLimit) },
	})
	defer release()
	if _, err := ans.Struct(); err == nil {
		t.Error("oversized call succeeded")
	}
	waitDone(t, conn.Done(), "the connection to end")
	var ce *rpc.CloseError
	if err := conn.Err(); !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("Err() = %v, want a 1009 close", err)
	}
	t.Logf("Err() = %v", conn.Err())
}

func setBlob(s capnp.Struct, n int) error {
	blob, err := capnp.NewData(s.Segment(), make([]byte, n))
	if err != nil {
		return err
	}
	return s.SetPtr(0, blob.ToPtr())
}

// TestBootstrapPanic: a panic in HandlerOptions.Bootstrap closes that
// connection with 1011 and nothing else.
func TestBootstrapPanic(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{Bootstrap: func(p rpc.Peer) capnp.Client {
		if p.UserAgent == "panic" {
			panic("test panic in Bootstrap")
		}
		return newAdder()
	}})
	good := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	ws := dialRaw(t, srv.WSURL, http.Header{"User-Agent": {"panic"}})
	ce := readClose(t, ws)
	if ce.Code != websocket.CloseInternalServerErr || ce.Text != "sharevat: internal error" {
		t.Errorf("close = %d %q, want 1011 %q", ce.Code, ce.Text, "sharevat: internal error")
	}
	mustAdd(t, good, 1)
}

func TestCloseReasonsFit(t *testing.T) {
	// 123 bytes is all a close frame leaves for the reason.
	for _, reason := range []string{
		"sharevat: text frames are not supported; send one Cap'n Proto message per binary frame",
		"sharevat: malformed Cap'n Proto message",
		"sharevat: frame larger than 9223372036854775807 bytes",
		"sharevat: keepalive timeout: nothing received for 2562047h47m16.854775807s",
		"sharevat: more than 9223372036854775807 calls in flight",
	} {
		if len(reason) > 123 {
			t.Errorf("reason %q is %d bytes, max 123", reason, len(reason))
		}
	}
}
