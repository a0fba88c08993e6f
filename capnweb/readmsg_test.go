package capnweb_test

import (
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/capnweb"
)

// TestMemoryChargedAsRead: a message is charged to its session's budget
// as it is read and as it is parsed, not only once whole. A frame that
// never ends, or a message that parses into far more values than its
// size, closes that session with 1008 "memory" when the budget is spent
// (each alone is under the read limit), and a second session keeps
// working.
func TestMemoryChargedAsRead(t *testing.T) {
	s := mustServe(t, capnweb.Options{ReadLimit: 4 << 20, ConnMemory: 1 << 20})
	good := mustDial(t, s, nil)
	wide := `["push",[[` + strings.Repeat("0,", 200_000) + `0]]]`
	for _, tc := range []struct {
		name string
		send func(c *rawConn)
	}{
		{"unfinished frame", func(c *rawConn) {
			w, err := c.NextWriter(websocket.TextMessage)
			if err != nil {
				t.Fatal(err)
			}
			// gorilla sends each full buffer as a fragment; the message
			// is never closed.
			_, _ = w.Write([]byte(`["push","` + strings.Repeat("x", 2<<20)))
		}},
		{"wide array", func(c *rawConn) { c.send(wide) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustDialRaw(t, s)
			tc.send(c)
			if code, _ := c.closeCode(); code != 1008 {
				t.Errorf("close code %d, want 1008", code)
			}
			if got := <-s.limits; got != "memory" {
				t.Errorf("OnLimit(%q), want memory", got)
			}
			if v, err := good.Main().Call(testCtx(t), "first", "still here"); err != nil || v != "still here" {
				t.Fatalf("the other session: %v, %v", v, err)
			}
		})
	}
}
