package hostile

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/sturdyref"
)

// Junk credentials: what anyone who can reach the vat can send without
// holding a token. Every junk token must be refused, each refusal must
// cost the vat no more than a refusal, and none may touch another peer.

// ErrJunkAccepted is the error of a junk vector that saw a junk token
// restored (wrapped in Report.Err, with the count).
var ErrJunkAccepted = errors.New("junk tokens restored")

// JunkToken returns the i-th junk token: every other one has the token
// format (a random grant id and secret, so the vat looks it up and
// checks it), the rest are up to 4 KiB of random bytes, or of random
// base64 when printable (for Cap'n Web, whose JSON must be UTF-8).
func JunkToken(i int, printable bool) string {
	if i%2 == 0 {
		t, err := sturdyref.New(rand.Reader)
		if err == nil {
			return t.Reveal()
		}
	}
	b := make([]byte, 1+mrand.IntN(3<<10))
	_, _ = rand.Read(b)
	if printable {
		return base64.StdEncoding.EncodeToString(b)
	}
	return string(b)
}

// JunkRestores is Vault.restore flooded with junk tokens on one /rpc
// connection: n restores (question ids 1…n) on the bootstrapped Vault, at
// most window unanswered at once, each answer finished. A restore that
// answers anything but an exception is a junk token taken for a valid
// one: the report fails.
func JunkRestores(ctx context.Context, url string, n, window int) *Report {
	r := newReport("junk-restores")
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	sem := make(chan struct{}, max(window, 1))
	var refused, accepted atomic.Int64
	c.Read(func(data []byte) {
		in, err := Decode(data)
		if err != nil || in.Which != rpc.Message_Which_return || in.ID == 0 {
			return
		}
		if in.IsException() {
			refused.Add(1)
		} else {
			accepted.Add(1)
		}
		_ = c.Send(Finish(in.ID, true))
		<-sem
	})
	setDeadline(ctx, c)
	_ = c.Send(Bootstrap(0))
	sent := 0
	for ; sent < n && acquire(ctx, c, sem); sent++ {
		if err := c.Send(RestoreCall(uint32(sent+1), 0, JunkToken(sent, false))); err != nil {
			break
		}
	}
	waitUntil(ctx, c, func() bool { return refused.Load()+accepted.Load() >= int64(sent) })
	if a := accepted.Load(); a > 0 {
		r.fail(fmt.Errorf("%w: %d", ErrJunkAccepted, a))
	}
	r.Detail = fmt.Sprintf("%d junk restores sent, %d refused, %d accepted", sent, refused.Load(), accepted.Load())
	r.ended(c, c.Wait(100*time.Millisecond))
	return r
}

// acquire takes a place in sem, unless c or ctx ends first.
func acquire(ctx context.Context, c *Conn, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-c.Done():
	case <-ctx.Done():
	}
	return false
}

// JunkFrames is binary frames of random bytes, each size bytes, n in
// all, on /rpc connections dialed one after the other as the server
// ends each: no Cap'n Proto message, no token. The server must end each
// connection without holding more than its budget for it.
func JunkFrames(ctx context.Context, url string, n, size int) *Report {
	r := newReport("junk-frames")
	defer r.timed()()
	frame := make([]byte, size)
	_, _ = rand.Read(frame)
	sent := 0
	for sent < n && ctx.Err() == nil {
		c := r.dial(ctx, url)
		if c == nil {
			break
		}
		c.Read(func([]byte) {})
		setDeadline(ctx, c)
		for ; sent < n && ctx.Err() == nil; sent++ {
			_, _ = rand.Read(frame[:min(size, 4096)]) // a fresh head each time
			if c.Send(frame) != nil {
				break
			}
		}
		r.ended(c, c.Drain(DrainFor))
		c.Close()
	}
	r.Detail = fmt.Sprintf("%d junk frames of %d bytes sent", sent, size)
	return r
}
