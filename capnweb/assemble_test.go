package capnweb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sharevat/sharevat/capnweb"

	"github.com/gorilla/websocket"
)

// TestAssembleTimeout: a message whose first frame arrived but whose
// last does not within AssembleTimeout closes that session (1008, an
// abort naming the limit, limit "assemble-timeout"), pings or not; other
// sessions go on. The assembly gets three pings; the other session, idle,
// must answer each ping within 2 × PingInterval, which a loaded CI
// machine once missed at 50 ms (the session closed as silent).
func TestAssembleTimeout(t *testing.T) {
	s := mustServe(t, capnweb.Options{AssembleTimeout: 2 * time.Second, PingInterval: 600 * time.Millisecond})
	good := mustDial(t, s, nil)
	c := mustDialRaw(t, s)
	w, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	// More than gorilla's write buffer: a frame without FIN goes out, and
	// the message is never finished.
	if _, err := w.Write([]byte(`["push","` + strings.Repeat("x", 64<<10))); err != nil {
		t.Fatal(err)
	}
	code, msgs := c.closeCode()
	if code != 1008 || len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], "not complete within") {
		t.Fatalf("close %d after %q, want 1008 after an abort naming the assemble timeout", code, msgs)
	}
	if got := <-s.limits; got != "assemble-timeout" {
		t.Errorf("OnLimit(%q), want assemble-timeout", got)
	}
	if v, err := good.Main().Call(testCtx(t), "first", "still here"); err != nil || v != "still here" {
		t.Fatalf("the other session: %v, %v", v, err)
	}
}
