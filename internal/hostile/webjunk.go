package hostile

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// WebRelease is Cap'n Web's release of one reference to import id.
func WebRelease(id int64) string { return fmt.Sprintf(`["release",%d,1]`, id) }

// WebJunkRestores is JunkRestores on one /capnweb session: n
// restore(junk token) pushes, each pulled, at most window unanswered at
// once, each answer's import released. A restore that resolves is a
// junk token taken for a valid one: the report fails.
func WebJunkRestores(ctx context.Context, url string, n, window int) *Report {
	r := newReport("web-junk-restores")
	defer r.timed()()
	c := r.webDial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	sem := make(chan struct{}, max(window, 1))
	var refused, accepted atomic.Int64
	c.ReadText(func(msg []byte) {
		kind, id, ok := webAnswer(msg)
		if !ok {
			return
		}
		if kind == "reject" {
			refused.Add(1)
		} else {
			accepted.Add(1)
		}
		_ = queueAll(c, WebRelease(id))
		<-sem
	})
	setDeadline(ctx, c)
	sent := 0
	for ; sent < n && acquire(ctx, c, sem); sent++ {
		if err := queueAll(c, WebRestore(JunkToken(sent, true)), WebPull(int64(sent+1))); err != nil {
			break
		}
	}
	waitUntil(ctx, c, func() bool { return refused.Load()+accepted.Load() >= int64(sent) })
	if a := accepted.Load(); a > 0 {
		r.fail(fmt.Errorf("%w: %d", ErrJunkAccepted, a))
	}
	r.Detail = fmt.Sprintf("%d junk restores sent, %d rejected, %d resolved", sent, refused.Load(), accepted.Load())
	r.ended(c, c.Wait(100*time.Millisecond))
	return r
}

// webAnswer decodes a resolve or reject message: its kind and import id.
func webAnswer(msg []byte) (kind string, id int64, ok bool) {
	kind = webKind(msg)
	if kind != "resolve" && kind != "reject" {
		return "", 0, false
	}
	var m []json.RawMessage
	if json.Unmarshal(msg, &m) != nil || len(m) < 2 || json.Unmarshal(m[1], &id) != nil {
		return "", 0, false
	}
	return kind, id, true
}

// WebJunkFrames is JunkFrames on /capnweb: text frames of size bytes
// that are not Cap'n Web (not even JSON), n in all, on sessions dialed
// one after the other as the server ends each.
func WebJunkFrames(ctx context.Context, url string, n, size int) *Report {
	r := newReport("web-junk-frames")
	defer r.timed()()
	head := make([]byte, 12)
	sent := 0
	for sent < n && ctx.Err() == nil {
		c := r.webDial(ctx, url)
		if c == nil {
			break
		}
		c.ReadText(func([]byte) {})
		setDeadline(ctx, c)
		for ; sent < n && ctx.Err() == nil; sent++ {
			_, _ = rand.Read(head)
			if queueAll(c, fmt.Sprintf("[%x", head)+strings.Repeat("{", size-25)) != nil {
				break
			}
		}
		r.ended(c, c.Drain(DrainFor))
		c.Close()
	}
	r.Detail = fmt.Sprintf("%d junk text frames of %d bytes sent", sent, size)
	return r
}
