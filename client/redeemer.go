package client

import (
	"context"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
)

// RedeemerOptions tune a Redeemer; the zero value is fine.
type RedeemerOptions struct {
	Dial       *Options      // transport options for each connection
	MinBackoff time.Duration // first wait after a failure; default 100ms
	MaxBackoff time.Duration // longest wait; default 10s

	// The hooks below, when set, let a program say what is happening
	// (the CLI prints "connection refused; retrying in 2s"). Each is
	// called with the Redeemer's lock held: it must return quickly and
	// must not call the Redeemer.

	// OnRetry is called after a dial or redeem failed with a transient
	// error, with that error and the wait before the next attempt.
	OnRetry func(err error, wait time.Duration)
	// OnRedeem is called each time the token is redeemed on a new
	// connection, the first time included.
	OnRedeem func()
	// OnLost is called when a call reported by Fail lost the connection
	// that the Share lived on.
	OnLost func(err error)
}

// Redeemer holds a share token and the vat's URL, and keeps a live Share
// of it: redeem-and-resume (docs/design.md §6). Share dials and redeems
// on first use, and again, on a new connection, whenever the last one
// died, with exponential backoff and jitter between failed attempts; Fail
// tells it a call failed. It is what code that must outlive a connection
// holds — Tail and Outbox.Flush take one — where Conn.Redeem gives one
// Share that dies with its connection. (Cap'n Proto C++ calls this
// pattern autoReconnect.) Safe for concurrent use.
type Redeemer struct {
	url   string
	token string
	opts  RedeemerOptions

	mu       sync.Mutex
	conn     *Conn
	share    *Share
	failures int
	// lastFail is the last dial or redeem failure since the
	// last redeem that worked (nil after it); lastDial says it was the
	// dial. An Outbox records it when a flush gives up.
	lastFail error
	lastDial bool
}

// NewRedeemer returns a Redeemer of token at url. Nothing is dialed until
// the first Share call.
func NewRedeemer(url, token string, opts *RedeemerOptions) *Redeemer {
	r := &Redeemer{url: url, token: token}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.MinBackoff <= 0 {
		r.opts.MinBackoff = 100 * time.Millisecond
	}
	if r.opts.MaxBackoff < r.opts.MinBackoff {
		r.opts.MaxBackoff = max(10*time.Second, r.opts.MinBackoff)
	}
	return r
}

// Share returns the live Share, redeeming the token on a new connection
// if there is none or the last one died. Transient failures are retried
// with backoff until ctx ends; permanent ones (IsPermanent) are returned
// at once. The Share belongs to the Redeemer: do not Release it; after a
// failed call on it, call Fail and then Share again.
func (r *Redeemer) Share(ctx context.Context) (*Share, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.share != nil && !closed(r.conn.Done()) {
			return r.share, nil
		}
		r.dropLocked()
		err := r.connectLocked(ctx)
		if err == nil {
			return r.share, nil
		}
		if IsPermanent(err) || ctx.Err() != nil {
			return nil, err
		}
		if err := r.waitLocked(ctx, err); err != nil {
			return nil, err
		}
	}
}

func (r *Redeemer) connectLocked(ctx context.Context) error {
	conn, err := Dial(ctx, r.url, r.opts.Dial)
	if err != nil {
		r.noteLocked(ctx, err, true)
		return err
	}
	sh, err := conn.Redeem(ctx, r.token)
	if err != nil {
		conn.Close()
		r.noteLocked(ctx, err, false)
		return err
	}
	r.conn, r.share, r.failures, r.lastFail = conn, sh, 0, nil
	if r.opts.OnRedeem != nil {
		r.opts.OnRedeem()
	}
	return nil
}

// noteLocked keeps err, a failed dial (dial) or redeem, as the last
// failure, unless ctx ended (or its deadline passed, which a dial sees
// before ctx's own timer fires): then err only says the attempt was cut
// short, and the failure before it is kept.
func (r *Redeemer) noteLocked(ctx context.Context, err error, dial bool) {
	if d, ok := ctx.Deadline(); ctx.Err() != nil || ok && !time.Now().Before(d) {
		return
	}
	r.lastFail, r.lastDial = err, dial
}

// lastFailure returns whether the last dial or redeem failure since the
// last redeem that worked was the dial, and that failure (nil if none).
func (r *Redeemer) lastFailure() (dial bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastDial, r.lastFail
}

// waitLocked sleeps the next backoff after the failure err:
// min·2^failures, capped, with full jitter in its upper half.
func (r *Redeemer) waitLocked(ctx context.Context, err error) error {
	d := jittered(backoff(r.opts.MinBackoff, r.opts.MaxBackoff, r.failures))
	r.failures++
	if r.opts.OnRetry != nil {
		r.opts.OnRetry(err, d)
	}
	return sleep(ctx, d)
}

// Fail reports that a call on sh failed with err. A transport failure
// drops the connection, so the next Share call reconnects; other errors
// leave it alone.
func (r *Redeemer) Fail(sh *Share, err error) {
	if err == nil || IsPermanent(err) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.share == sh {
		r.dropLocked()
		if r.opts.OnLost != nil {
			r.opts.OnLost(err)
		}
	}
}

func (r *Redeemer) dropLocked() {
	if r.conn != nil {
		r.share.Release()
		r.conn.Close()
	}
	r.conn, r.share = nil, nil
}

// Close closes the current connection, if any, and with it the Share. A
// later Share call dials again.
func (r *Redeemer) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked()
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// limits returns the append limits of the vat that sh lives on, while
// sh is the Redeemer's live Share.
func (r *Redeemer) limits(ctx context.Context, sh *Share) (sharevat.Limits, error) {
	r.mu.Lock()
	conn, live := r.conn, r.share == sh
	r.mu.Unlock()
	if !live || conn == nil {
		return sharevat.Limits{}, sharevat.Errorf(sharevat.EUnavailable, "the connection is gone")
	}
	return conn.Limits(ctx)
}
