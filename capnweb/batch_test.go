package capnweb_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"sharevat/capnweb"
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
		if status != tc.want {
			t.Errorf("%s: %d %q, want %d", tc.name, status, body, tc.want)
		}
	}
	c := mustDial(t, s, nil)
	if v, err := c.Main().Call(testCtx(t), "first", "ok"); err != nil || v != "ok" {
		t.Errorf("a WebSocket session after bad batches: %v, %v", v, err)
	}
}
