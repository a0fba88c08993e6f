package hostile

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/schema"
)

// TestBuildersRoundTrip: what the builders write decodes to what was
// asked, including a patched Bootstrap id and a cap table.
func TestBuildersRoundTrip(t *testing.T) {
	b := Bootstrap(0)
	putBootstrapID(b, 0x01020304)
	in, err := Decode(b)
	if err != nil || in.Which != rpccp.Message_Which_bootstrap || in.ID != 0x01020304 {
		t.Fatalf("patched bootstrap = %+v, %v", in, err)
	}
	msg, err := Call(CallSpec{QuestionID: 7, Target: ImportedCap(9), InterfaceID: schema.Reader_TypeID, MethodID: 2, NCaps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if in, err = Decode(msg); err != nil || in.Which != rpccp.Message_Which_call || in.ID != 7 || in.Target != 9 ||
		in.InterfaceID != schema.Reader_TypeID || in.MethodID != 2 {
		t.Fatalf("call = %+v, %v", in, err)
	}
	if in, err = Decode(Finish(5, true)); err != nil || in.Which != rpccp.Message_Which_finish || in.ID != 5 {
		t.Fatalf("finish = %+v, %v", in, err)
	}
	for _, m := range [][]byte{RestoreCall(1, 0, "svt1_x"), ReaderCall(2, 1), ReadCall(3, 2, 0, 10), SubscribeCall(4, 2, 0, 1), PingCall(5, PromisedAnswer(1, 0)), Release(1, 1)} {
		if _, err := Decode(m); err != nil {
			t.Fatalf("decode: %v", err)
		}
	}
}

// TestFramesReachGorilla: masked frames written by Conn — a message in
// fragments with a ping between them, and one larger than the write
// buffer — arrive intact at a gorilla server.
func TestFramesReachGorilla(t *testing.T) {
	got := make(chan []byte, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			got <- data
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.WriteFrame(OpBinary, false, []byte("abc")))
	must(c.WriteFrame(OpPing, true, []byte("p")))
	must(c.WriteFrame(OpContinuation, true, []byte("def")))
	big := bytes.Repeat([]byte("0123456789"), 100_000)
	must(c.Queue(big))
	must(c.Flush())
	for _, want := range [][]byte{[]byte("abcdef"), big} {
		select {
		case data := <-got:
			if !bytes.Equal(data, want) {
				t.Fatalf("server got %d bytes %.20q, want %d bytes", len(data), data, len(want))
			}
		case <-ctx.Done():
			t.Fatal("timed out")
		}
	}
	if c.Sent() != 2 {
		t.Errorf("Sent = %d, want 2", c.Sent())
	}
}
