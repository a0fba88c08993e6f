package engine_test

// The engine closes its codec once, however many paths notice the end
// (a failed write, the reader's failed Decode, Close): a codec's Close
// need not be idempotent (go-capnp's transport pipe panics on a second
// one).

import (
	"errors"
	"sync/atomic"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"

	"github.com/sharevat/sharevat/rpc/engine"
)

// failingCodec fails every write and counts Close calls.
type failingCodec struct {
	transport.Codec
	closes atomic.Int32
}

func (f *failingCodec) Encode(*capnp.Message) error { return errors.New("write refused") }

func (f *failingCodec) Close() error {
	f.closes.Add(1)
	return f.Codec.Close()
}

// TestCodecClosedOnce: a failed write, the reader's end and Close close
// the codec once between them.
func TestCodecClosedOnce(t *testing.T) {
	a, b := newPipe()
	defer b.Close()
	codec := &failingCodec{Codec: a}
	conn := engine.NewConn(codec, nil)
	boot := conn.Bootstrap(testCtx(t)) // the write fails: the codec closes
	boot.Release()
	waitDone(t, conn.Done())
	_ = conn.Close()
	if n := codec.closes.Load(); n != 1 {
		t.Fatalf("the codec was closed %d times, want once", n)
	}
}
