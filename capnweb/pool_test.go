package capnweb_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat/capnweb"
)

// countPool is a Pool of limit bytes that records what it holds and
// signals every Give on gave (nil: none).
type countPool struct {
	mu          sync.Mutex
	used, limit int64
	gave        chan struct{}
}

func (p *countPool) Take(n int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used+n > p.limit {
		return false
	}
	p.used += n
	return true
}

func (p *countPool) Give(n int64) {
	p.mu.Lock()
	p.used -= n
	p.mu.Unlock()
	if p.gave != nil {
		select {
		case p.gave <- struct{}{}:
		default: // unread signals: held() says it
		}
	}
}

// waitEmpty blocks until the pool holds nothing, or fails tb after 5 s.
func (p *countPool) waitEmpty(tb testing.TB, what string) {
	tb.Helper()
	timeout := time.After(5 * time.Second)
	for p.held() != 0 {
		select {
		case <-p.gave:
		case <-timeout:
			tb.Fatalf("timed out waiting for %s: it holds %d bytes", what, p.held())
		}
	}
}

func (p *countPool) held() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// TestPoolBoundsEverySession: a session's bytes count against the
// server-wide Pool too; an answer the pool cannot hold closes that
// session (1008, limit "memory") although its own budget had room, other
// sessions go on, and every byte goes back to the pool when sessions end.
func TestPoolBoundsEverySession(t *testing.T) {
	pool := &countPool{limit: 512 << 10, gave: make(chan struct{}, 64)}
	s := mustServe(t, capnweb.Options{ConnMemory: 64 << 20, Pool: pool})
	good := mustDial(t, s, nil)

	c := mustDialRaw(t, s)
	c.send(`["push",["pipeline",0,["big"],[1]]]`, `["pull",1]`) // a 1 MiB answer
	code, msgs := c.closeCode()
	if code != 1008 || len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], "memory") {
		t.Fatalf("close %d after %q, want 1008 after an abort naming the memory budget", code, msgs)
	}
	if got := <-s.limits; got != "memory" {
		t.Errorf("OnLimit(%q), want memory", got)
	}
	if v, err := good.Main().Call(testCtx(t), "first", "still here"); err != nil || v != "still here" {
		t.Fatalf("the other session: %v, %v", v, err)
	}
	good.Close()
	pool.waitEmpty(t, "the pool to be empty once the sessions ended")
}

// TestPoolBoundsBatches: an HTTP batch's body is counted against the
// Pool as it is read, so many large batches at once cannot hold more
// than the budget: one the pool cannot hold is refused with 503 and
// limit "memory", a small one is served, and the pool is empty after.
func TestPoolBoundsBatches(t *testing.T) {
	pool := &countPool{limit: 256 << 10}
	s := mustServe(t, capnweb.Options{ReadLimit: 1 << 20, Pool: pool})
	big := `["push",["pipeline",0,["first"],["` + strings.Repeat("x", 300<<10) + `"]]]`
	resp, err := http.Post(s.URL, "text/plain", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a batch over the pool: %d, want 503", resp.StatusCode)
	}
	if got := <-s.limits; got != "memory" {
		t.Errorf("OnLimit(%q), want memory", got)
	}
	resp, err = http.Post(s.URL, "text/plain", strings.NewReader(`["push",["pipeline",0,["first"],["ok"]]]`+"\n"+`["pull",1]`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("a small batch: %d %s", resp.StatusCode, body)
	}
	if n := pool.held(); n != 0 {
		t.Errorf("the pool holds %d bytes after the batches", n)
	}
}
