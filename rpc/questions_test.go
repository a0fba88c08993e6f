package rpc

import (
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// TestTrackerNoFinishNeeded: a Return that says noFinishNeeded ends the
// answer's accounting at once (the peer will send no Finish for it);
// one that does not keeps it counted until the peer's Finish.
func TestTrackerNoFinishNeeded(t *testing.T) {
	for _, noFinish := range []bool{true, false} {
		b := newConnBudget(1<<20, nil, nil)
		opts := CodecOptions{}.withDefaults()
		tr := newTracker(&opts, b)
		call := trackerMsg(t, func(m rpccp.Message) error { return seedCall(m, 0, nil) })
		if lerr := tr.received(call, 100); lerr != nil {
			t.Fatal(lerr)
		}
		ret := trackerMsg(t, func(m rpccp.Message) error {
			r, err := m.NewReturn()
			r.SetAnswerId(2) // seedCall's question
			r.SetNoFinishNeeded(noFinish)
			return err
		})
		if lerr := tr.sent(ret.Message(), 100); lerr != nil {
			t.Fatal(lerr)
		}
		got, want := b.used, int64(0)
		if !noFinish {
			want = answerOverhead + 100
		}
		if got != want || (len(tr.answers) == 0) != noFinish {
			t.Fatalf("noFinishNeeded %v: %d bytes and %d answers held, want %d bytes", noFinish, got, len(tr.answers), want)
		}
	}
}

func trackerMsg(tb testing.TB, build func(rpccp.Message) error) rpccp.Message {
	tb.Helper()
	_, seg := capnp.NewSingleSegmentMessage(nil)
	root, err := rpccp.NewRootMessage(seg)
	if err == nil {
		err = build(root)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return root
}
