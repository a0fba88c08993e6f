package opencodetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Call is one request a Recorder or a Proxy received, and its answer.
type Call struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Status int    // the answer's status
	Answer []byte // the answer's body (a Proxy keeps its first 64 KiB)
}

// Item is one element of a sync's data array.
type Item struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// SyncBody is the body of POST …/api/share/{id}/sync.
type SyncBody struct {
	Secret string `json:"secret"`
	Data   []Item `json:"data"`
}

// Recorder is a logging stand-in for a share server speaking opencode's
// share API under any base path: POST {base}/api/share answers
// {"id","url","secret"} (url = <origin>/share/<LinkSlug(id)>), POST
// {base}/api/share/{id}/sync keeps the items (the latest per key),
// DELETE {base}/api/share/{id} forgets the share, and GET
// /api/share/{id}/data answers the kept items sorted by key (what
// `opencode import` reads). Every request is recorded. It checks
// nothing beyond what it needs to answer: the tests assert on Calls.
type Recorder struct {
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	calls    []Call
	shares   map[string]map[string]Item // id → key → latest item
	n        int
	failSync int // the status every sync gets, when not 0
}

// FailSyncs makes every later sync answer status (to see what opencode
// does with a failed sync); 0 goes back to accepting them.
func (r *Recorder) FailSyncs(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failSync = status
}

// NewRecorder starts a Recorder, closed at the test's end.
func NewRecorder(t testing.TB) *Recorder {
	t.Helper()
	r := &Recorder{shares: map[string]map[string]Item{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

// Calls returns the requests received so far.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Items returns share id's kept items, latest per key, keyed by
// ItemKey.
func (r *Recorder) Items(id string) map[string]Item {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]Item{}
	for k, v := range r.shares[id] {
		out[k] = v
	}
	return out
}

func (r *Recorder) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	status, answer := r.answer(req.Method, req.URL.Path, body)
	r.mu.Lock()
	r.calls = append(r.calls, Call{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body, Status: status, Answer: answer})
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// answer serves one request of the share API.
func (r *Recorder) answer(method, path string, body []byte) (int, []byte) {
	i := strings.Index(path, "/api/share")
	if i < 0 {
		return http.StatusNotFound, []byte(`{"error":"not found"}`)
	}
	rest := strings.Trim(path[i+len("/api/share"):], "/")
	parts := strings.Split(rest, "/")
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case method == http.MethodPost && rest == "":
		r.n++
		id := fmt.Sprintf("shr%04d", r.n)
		r.shares[id] = map[string]Item{}
		b, _ := json.Marshal(map[string]string{"id": id, "url": r.URL + "/share/" + LinkSlug(id), "secret": "sec-" + id})
		return http.StatusOK, b
	case method == http.MethodPost && len(parts) == 2 && parts[1] == "sync":
		return r.sync(parts[0], body)
	case method == http.MethodDelete && len(parts) == 1:
		delete(r.shares, parts[0])
		return http.StatusOK, []byte(`{}`)
	case method == http.MethodGet && len(parts) == 2 && parts[1] == "data":
		items, ok := r.shares[strings.TrimPrefix(parts[0], "link-")]
		if !ok || !strings.HasPrefix(parts[0], "link-") {
			return http.StatusNotFound, []byte(`{"error":"not found"}`)
		}
		keys := make([]string, 0, len(items))
		for k := range items {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		list := make([]Item, 0, len(keys))
		for _, k := range keys {
			list = append(list, items[k])
		}
		b, _ := json.Marshal(list)
		return http.StatusOK, b
	}
	return http.StatusNotFound, []byte(`{"error":"not found"}`)
}

func (r *Recorder) sync(id string, body []byte) (int, []byte) {
	items, ok := r.shares[id]
	if !ok {
		return http.StatusNotFound, []byte(`{"error":"not found"}`)
	}
	if r.failSync != 0 {
		return r.failSync, []byte(`{"error":"refused by the test"}`)
	}
	var sb SyncBody
	if err := json.Unmarshal(body, &sb); err != nil {
		return http.StatusBadRequest, []byte(`{"error":"bad json"}`)
	}
	for _, it := range sb.Data {
		items[ItemKey(it)] = it
	}
	return http.StatusOK, []byte(`{}`)
}

// LinkSlug is the slug of the url the Recorder answers for share id:
// it differs from id, so a test sees which one opencode uses where
// (the id to sync and delete, the slug to import).
func LinkSlug(id string) string { return "link-" + id }

// ItemKey is the client-side key opencode gives an item: "session",
// "message/{id}", "part/{messageID}/{id}", "session_diff", "model".
func ItemKey(it Item) string {
	var d struct {
		ID        string `json:"id"`
		MessageID string `json:"messageID"`
	}
	_ = json.Unmarshal(it.Data, &d)
	switch it.Type {
	case "message":
		return "message/" + d.ID
	case "part":
		return "part/" + d.MessageID + "/" + d.ID
	}
	return it.Type
}
