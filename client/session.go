package client

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"sharevat"
)

// SessionOptions tune a Session; the zero value is fine.
type SessionOptions struct {
	Dial       *Options      // transport options for each connection
	MinBackoff time.Duration // first wait after a failure; default 100ms
	MaxBackoff time.Duration // longest wait; default 10s
}

// Session is a reconnecting handle on one share token: redeem-and-resume
// (docs/design.md §6). Share returns a live capability, dialing and redeeming
// again whenever the last connection died, with exponential backoff and
// jitter between failed attempts. Safe for concurrent use.
type Session struct {
	url   string
	token string
	opts  SessionOptions

	mu       sync.Mutex
	conn     *Conn
	share    *Share
	failures int
}

// NewSession returns a Session for token at url. Nothing is dialed until
// the first Share call.
func NewSession(url, token string, opts *SessionOptions) *Session {
	s := &Session{url: url, token: token}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MinBackoff <= 0 {
		s.opts.MinBackoff = 100 * time.Millisecond
	}
	if s.opts.MaxBackoff < s.opts.MinBackoff {
		s.opts.MaxBackoff = max(10*time.Second, s.opts.MinBackoff)
	}
	return s
}

// IsPermanent reports whether err will not go away by retrying: the token
// is unauthorized, revoked or lacks the right, or the request is invalid.
func IsPermanent(err error) bool {
	switch sharevat.ErrorCode(err) {
	case sharevat.EUnauthorized, sharevat.ERevoked, sharevat.EPermissionDenied,
		sharevat.EInvalid, sharevat.ETooLarge, sharevat.ENotFound:
		return true
	}
	return false
}

// Share returns the live Share, redeeming the token on a new connection
// if there is none or the last one died. Transient failures are retried
// with backoff until ctx ends; permanent ones (IsPermanent) are returned
// at once.
func (s *Session) Share(ctx context.Context) (*Share, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.share != nil && !closed(s.conn.Done()) {
			return s.share, nil
		}
		s.dropLocked()
		err := s.connectLocked(ctx)
		if err == nil {
			return s.share, nil
		}
		if IsPermanent(err) || ctx.Err() != nil {
			return nil, err
		}
		if err := s.waitLocked(ctx); err != nil {
			return nil, err
		}
	}
}

func (s *Session) connectLocked(ctx context.Context) error {
	conn, err := Dial(ctx, s.url, s.opts.Dial)
	if err != nil {
		return err
	}
	sh, err := conn.Redeem(ctx, s.token)
	if err != nil {
		conn.Close()
		return err
	}
	s.conn, s.share, s.failures = conn, sh, 0
	return nil
}

// waitLocked sleeps the next backoff: min·2^failures, capped, with full
// jitter in its upper half.
func (s *Session) waitLocked(ctx context.Context) error {
	d := s.opts.MinBackoff << min(s.failures, 16)
	if d > s.opts.MaxBackoff || d <= 0 {
		d = s.opts.MaxBackoff
	}
	d = d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
	s.failures++
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fail reports that a call on sh failed with err. A transport failure
// drops the connection, so the next Share call reconnects; other errors
// leave it alone.
func (s *Session) Fail(sh *Share, err error) {
	if err == nil || IsPermanent(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.share == sh {
		s.dropLocked()
	}
}

func (s *Session) dropLocked() {
	if s.conn != nil {
		s.share.Release()
		s.conn.Close()
	}
	s.conn, s.share = nil, nil
}

// Close closes the current connection, if any.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked()
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
