package capnweb_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/capnweb"
)

// TestLimitsCloseOnlyThatSession sends each kind of bad input on its own
// connection: that connection gets an abort and a close with 1008 (1009
// for an oversized message), OnLimit names the limit, and a second
// session on the same server keeps working.
func TestLimitsCloseOnlyThatSession(t *testing.T) {
	s := mustServe(t, capnweb.Options{ReadLimit: 4096, MaxDepth: 16, MaxImports: 4, MaxExports: 8, MaxInflight: 4, ConnMemory: 256 << 10})
	good := mustDial(t, s, nil)
	exports := strings.Repeat(`["push",1]`+"\n", 8)
	waits := strings.Repeat(`["push",["pipeline",0,["wait"],[]]]`+"\n", 5)
	for _, tc := range []struct {
		name, limit string
		msgs        []string
		binary      bool
		code        int
	}{
		{"bad json", "malformed", []string{`["push",`}, false, 1008},
		{"unknown message", "malformed", []string{`["hello",1]`}, false, 1008},
		{"stream message", "malformed", []string{`["stream",["pipeline",0,["echo"],[]]]`}, false, 1008},
		{"binary frame", "malformed", []string{`["pull",0]`}, true, 1008},
		{"unknown id", "malformed", []string{`["pull",99]`}, false, 1008},
		{"absurd id", "malformed", []string{`["pull",1e300]`}, false, 1008},
		{"reference to unknown id", "malformed", []string{`["push",["pipeline",7,["x"],[]]]`}, false, 1008},
		{"over-release", "malformed", []string{`["push",1]`, `["release",1,2]`}, false, 1008},
		{"release unknown", "malformed", []string{`["release",-5,1]`}, false, 1008},
		{"depth", "depth", []string{`["push",` + strings.Repeat("[[", 10) + strings.Repeat("]]", 10) + `]`}, false, 1008},
		{"read limit", "read-limit", []string{`["push","` + strings.Repeat("x", 5000) + `"]`}, false, 1009},
		{"imports", "imports", []string{`["push",["pipeline",0,["echo"],[["export",-1],["export",-2],["export",-3],["export",-4],["export",-5]]]]`}, false, 1008},
		{"exports", "exports", strings.Split(strings.TrimSpace(exports), "\n"), false, 1008},
		{"inflight", "inflight", strings.Split(strings.TrimSpace(waits), "\n"), false, 1008},
		{"memory", "memory", []string{`["push",["pipeline",0,["big"],[1]]]`, `["pull",1]`}, false, 1008},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustDialRaw(t, s)
			for _, m := range tc.msgs {
				typ := websocket.TextMessage
				if tc.binary {
					typ = websocket.BinaryMessage
				}
				_ = c.WriteMessage(typ, []byte(m))
			}
			code, msgs := c.closeCode()
			if code != tc.code {
				t.Errorf("close code %d, want %d", code, tc.code)
			}
			if tc.code == 1008 && (len(msgs) == 0 || !strings.HasPrefix(msgs[len(msgs)-1], `["abort",["error","Error","capnweb: `)) {
				t.Errorf("messages before the close: %q, want an abort last", msgs)
			}
			if got := <-s.limits; got != tc.limit {
				t.Errorf("OnLimit(%q), want %q", got, tc.limit)
			}
			if v, err := good.Main().Call(testCtx(t), "first", "still here"); err != nil || v != "still here" {
				t.Fatalf("the other session: %v, %v", v, err)
			}
		})
	}
}

func TestHTTPRules(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	for _, tc := range []struct {
		method, origin string
		upgrade        bool
		want           int
	}{
		{"GET", "", false, http.StatusMethodNotAllowed},
		{"PUT", "", false, http.StatusMethodNotAllowed},
		{"POST", "https://evil.example", false, http.StatusForbidden},
		{"GET", "https://evil.example", true, http.StatusForbidden},
		{"POST", "", false, http.StatusOK},
	} {
		req, _ := http.NewRequestWithContext(testCtx(t), tc.method, s.URL, strings.NewReader(""))
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.upgrade {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s origin=%q upgrade=%v: %d, want %d", tc.method, tc.origin, tc.upgrade, resp.StatusCode, tc.want)
		}
	}
	// The browser rule: an Origin naming the server's own host is allowed.
	h := http.Header{"Origin": {s.URL}}
	c, err := capnweb.Dial(testCtx(t), s.wsURL(), nil, h)
	if err != nil {
		t.Fatalf("same-origin dial: %v", err)
	}
	_ = c.Close()
	_, resp, err := websocket.DefaultDialer.Dial(s.wsURL(), http.Header{"Origin": {"http://other.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin dial: %v, want 403", err)
	}
}

func TestHandlerCloseGoingAway(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	c := mustDialRaw(t, s)
	c.send(`["push",1]`, `["pull",1]`)
	if got := c.read(); got != `["resolve",1,1]` {
		t.Fatalf("got %s", got)
	}
	if err := s.h.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if code, _ := c.closeCode(); code != 1001 {
		t.Errorf("close code %d, want 1001", code)
	}
}
