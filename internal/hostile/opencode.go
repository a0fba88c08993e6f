package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The opencode door's vectors (docs/opencode.md): large syncs, with a
// valid secret or with junk credentials, posted over and over by many
// clients at once; and a healthy opencode user beside them.

// OpencodeBase is the HTTP base of the vat whose /rpc URL is rpcURL.
func OpencodeBase(rpcURL string) string {
	u := strings.Replace(strings.Replace(rpcURL, "wss://", "https://", 1), "ws://", "http://", 1)
	return strings.TrimSuffix(u, "/rpc")
}

// OpencodeSyncBody is a sync body with secret of items parts of about
// itemBytes each (one message's parts), stamped n so that each body is
// newer than the last (the door appends it, not skips it as older).
func OpencodeSyncBody(secret string, items, itemBytes int, n int64) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"secret":%q,"data":[`, secret)
	pad := strings.Repeat("x", itemBytes)
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"part","data":{"id":"prt_%d","messageID":"msg_1","type":"text","time":{"start":%d},"text":"%s"}}`, i, n, pad)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// OpencodeFlood is conns clients posting to url, until ctx ends, the
// body body(n) gives for the n-th post; each answer's status is counted
// in the report's ends.
func OpencodeFlood(ctx context.Context, name, method, url string, conns int, body func(n int64) []byte) *Report {
	r := newReport(name)
	defer r.timed()()
	hc := &http.Client{Timeout: 60 * time.Second}
	var n atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				r.posted(send(ctx, hc, method, url, body(n.Add(1))))
			}
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d clients, %s %s, %d posts", conns, method, name, n.Load())
	return r
}

// send sends body and answers "HTTP <status>" or the error.
func send(ctx context.Context, hc *http.Client, method, url string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var sink bytes.Buffer
	_, err = sink.ReadFrom(resp.Body)
	return fmt.Sprintf("HTTP %d", resp.StatusCode), err
}

// OpencodeShare is a share the door made: its id and secret.
type OpencodeShare struct{ ID, Secret string }

// OpencodeCreate creates a share for session through base (with a
// creation token's /opencode/<token> prefix, or an open door's origin).
func OpencodeCreate(ctx context.Context, base, session string) (OpencodeShare, error) {
	hc := &http.Client{Timeout: 30 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/share", strings.NewReader(`{"sessionID":"`+session+`"}`))
	if err != nil {
		return OpencodeShare{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return OpencodeShare{}, err
	}
	defer resp.Body.Close()
	var s OpencodeShare
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("create: HTTP %d", resp.StatusCode)
	}
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// OpencodeUser is a healthy opencode user: it syncs one small item to
// its share, round after round, until Stop.
type OpencodeUser struct {
	stop    context.CancelFunc
	done    chan struct{}
	ok, bad atomic.Int64
	mu      sync.Mutex
	last    string // the last failure
}

// StartOpencodeUser starts a user of share s through base.
func StartOpencodeUser(ctx context.Context, base string, s OpencodeShare) *OpencodeUser {
	ctx, stop := context.WithCancel(ctx)
	u := &OpencodeUser{stop: stop, done: make(chan struct{})}
	hc := &http.Client{Timeout: 30 * time.Second}
	go func() {
		defer close(u.done)
		for n := int64(1); ctx.Err() == nil; n++ {
			status, err := send(ctx, hc, http.MethodPost, base+"/api/share/"+s.ID+"/sync", OpencodeSyncBody(s.Secret, 1, 100, n))
			switch {
			case ctx.Err() != nil:
			case err == nil && status == "HTTP 200":
				u.ok.Add(1)
			default:
				u.bad.Add(1)
				u.mu.Lock()
				u.last = fmt.Sprintf("%s %v", status, err)
				u.mu.Unlock()
			}
			pause(ctx, 50*time.Millisecond)
		}
	}()
	return u
}

// Stop stops the user and answers its syncs that succeeded, those that
// failed, and the last failure.
func (u *OpencodeUser) Stop() (ok, bad int64, last string) {
	u.stop()
	<-u.done
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.ok.Load(), u.bad.Load(), u.last
}
