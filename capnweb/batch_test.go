package capnweb_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sharevat/sharevat/capnweb"
)

func postBatch(t *testing.T, s *server, body string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, s.URL, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestBatch(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	status, body, h := postBatch(t, s, strings.Join([]string{
		`["push",["pipeline",0,["counter"],[]]]`,
		`["push",["pipeline",1,["inc"],[]]]`,
		`["push",["pipeline",1,["add"],[["pipeline",2]]]]`,
		`["pull",3]`,
		`["push",["pipeline",0,["first"],[{"b":1,"a":2}]]]`,
		`["pull",4]`,
	}, "\n"))
	if status != http.StatusOK || h.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("status %d, content type %q", status, h.Get("Content-Type"))
	}
	got := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		got[line] = true
	}
	expectAll(t, got, `["resolve",3,2]`, `["resolve",4,{"b":1,"a":2}]`)
	if len(got) != 2 {
		t.Errorf("body %q, want exactly two answers", body)
	}
	m := s.main(0)
	m.released.wait(t, "the main interface's release at the end of the batch", 1)
	m.counters[0].released.wait(t, "the counter's release at the end of the batch", 1)
}

func TestBatchCallbackImpossible(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	status, body, _ := postBatch(t, s, `["push",["pipeline",0,["callBack"],[["export",-1]]]]`+"\n"+`["pull",1]`+"\n")
	if status != http.StatusOK || !strings.Contains(body, `["reject",1,["error","Error","capnweb: calls back to the client's objects are not possible in an HTTP batch session`) {
		t.Errorf("%d %s, want a reject naming the limitation", status, body)
	}
}

func TestBatchErrors(t *testing.T) {
	s := mustServe(t, capnweb.Options{ReadLimit: 100, BatchLimit: 1000})
	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"empty", "", http.StatusOK},
		{"malformed", `["push",`, http.StatusBadRequest},
		{"unknown id", `["pull",5]`, http.StatusBadRequest},
		{"line over ReadLimit", `["push","` + strings.Repeat("x", 200) + `"]`, http.StatusRequestEntityTooLarge},
		{"body over BatchLimit", strings.Repeat(`["push",1]`+"\n", 200), http.StatusRequestEntityTooLarge},
	} {
		status, body, _ := postBatch(t, s, tc.body)
		if status != tc.want || leaks(body, fakeSecret) {
			t.Errorf("%s: %d %q, want %d", tc.name, status, body, tc.want)
		}
	}
	c := mustDial(t, s, nil)
	if v, err := c.Main().Call(testCtx(t), "first", "ok"); err != nil || v != "ok" {
		t.Errorf("a WebSocket session after bad batches: %v, %v", v, err)
	}
}

// TestBatchRefusedRunsNothing: a batch whose later message breaks a rule
// (a limit, malformed input, an id it never made) is refused before any
// of its calls runs: no session is even started. Before the fix the
// calls ahead of the bad line ran, and their answers were lost.
func TestBatchRefusedRunsNothing(t *testing.T) {
	s := mustServe(t, capnweb.Options{ReadLimit: 200, MaxDepth: 8, MaxImports: 2, MaxInflight: 4, MaxExports: 100})
	head := []string{`["push",["pipeline",0,["echo"],["ran"]]]`, `["pull",1]`}
	for _, tc := range []struct {
		name, limit string
		tail        []string
		want        int
	}{
		{"too many pushes", "inflight", strings.Split(strings.Repeat(`["push",["pipeline",0,["echo"],[1]]]`+"\n", 4), "\n"), http.StatusBadRequest},
		{"malformed last line", "malformed", []string{`["push",`}, http.StatusBadRequest},
		{"unknown message type", "malformed", []string{`["hello",1]`}, http.StatusBadRequest},
		{"line over ReadLimit", "read-limit", []string{`["push","` + strings.Repeat("x", 300) + `"]`}, http.StatusRequestEntityTooLarge},
		{"too deep", "depth", []string{`["push",` + strings.Repeat("[[", 6) + strings.Repeat("]]", 6) + `]`}, http.StatusBadRequest},
		{"pull of an unknown id", "malformed", []string{`["pull",2]`}, http.StatusBadRequest},
		{"pull of a server's export", "malformed", []string{`["pull",-1]`}, http.StatusBadRequest},
		{"reference to an unknown id", "malformed", []string{`["push",["pipeline",5,["inc"],[]]]`}, http.StatusBadRequest},
		{"reference to a released id", "malformed", []string{`["release",1,1]`, `["push",["pipeline",1,["x"],[]]]`}, http.StatusBadRequest},
		{"over-release", "malformed", []string{`["release",1,2]`}, http.StatusBadRequest},
		{"abort", "malformed", []string{`["abort",["error","Error","` + fakeToken + `"]]`}, http.StatusBadRequest},
		{"too many imports", "imports", []string{`["push",["pipeline",0,["echo"],[["export",-1],["export",-2],["export",-3]]]]`}, http.StatusBadRequest},
		{"promise reusing an id", "malformed", []string{`["push",["pipeline",0,["echo"],[["export",-1],["promise",-1]]]]`}, http.StatusBadRequest},
	} {
		status, body, _ := postBatch(t, s, strings.Join(append(append([]string{}, head...), tc.tail...), "\n"))
		if status != tc.want || leaks(body, fakeSecret) {
			t.Errorf("%s: %d %q, want %d", tc.name, status, body, tc.want)
		}
		if got := <-s.limits; got != tc.limit {
			t.Errorf("%s: OnLimit(%q), want %q", tc.name, got, tc.limit)
		}
		s.mu.Lock()
		started := len(s.mains)
		s.mu.Unlock()
		if started != 0 {
			t.Fatalf("%s: a refused batch started a session and ran %v", tc.name, s.main(0).log)
		}
	}
	// The limits are the session's: exactly MaxInflight pushes run.
	status, body, _ := postBatch(t, s, strings.Join(append(head, strings.Repeat(`["push",["pipeline",0,["echo"],[1]]]`+"\n", 3)), "\n"))
	if status != http.StatusOK || body != `["resolve",1,[["ran"]]]` {
		t.Errorf("a batch of MaxInflight pushes: %d %q", status, body)
	}
}

// TestBatchRunsUnpulledPushes: every push of a batch is carried out,
// pulled or not, before the batch answers (capnweb's protocol: a push is
// evaluated on receipt, a pull only asks for the answer). Five inc calls
// pipelined on a counter, none pulled, all run.
func TestBatchRunsUnpulledPushes(t *testing.T) {
	s := mustServe(t, capnweb.Options{})
	lines := []string{`["push",["pipeline",0,["counter"],[]]]`, `["pull",0]`}
	for range 5 {
		lines = append(lines, `["push",["pipeline",1,["inc"],[]]]`)
	}
	status, body, _ := postBatch(t, s, strings.Join(lines, "\n"))
	if status != http.StatusOK {
		t.Fatalf("%d %q", status, body)
	}
	if n := s.main(0).counters[0].n.Load(); n != 5 {
		t.Errorf("the counter after the batch: %d, want 5 (unpulled pushes not run)", n)
	}
}
