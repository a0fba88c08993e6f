package hostile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sharevat/sharevat/capnweb"
)

// StartWebHealthy is StartHealthy over Cap'n Web: a capnweb.Dial client
// of rpcURL's /capnweb door that restores token (read and append), then
// appends one small op and reads it back, over and over, redialling a
// lost session, until Stop. It connects before it returns.
func StartWebHealthy(ctx context.Context, rpcURL, token string) (*Healthy, error) {
	url := WebURL(rpcURL)
	sess, err := dialWebHealthy(ctx, url, token)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Healthy{url: url, token: token, start: time.Now(), cancel: cancel, done: make(chan struct{})}
	go h.runWeb(ctx, sess)
	return h, nil
}

// webSession is a healthy Cap'n Web session's stubs.
type webSession struct {
	c     *capnweb.Client
	epoch capnweb.Value
	app   *capnweb.Stub
	rd    *capnweb.Stub
}

func (s *webSession) close() {
	if s != nil {
		_ = s.c.Close()
	}
}

func dialWebHealthy(ctx context.Context, url, token string) (*webSession, error) {
	c, err := capnweb.Dial(ctx, url, nil, nil)
	if err != nil {
		return nil, err
	}
	s := &webSession{c: c}
	if err := s.restore(ctx, token); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// restore redeems token and takes the share's appender and reader.
func (s *webSession) restore(ctx context.Context, token string) error {
	share, epoch, err := WebShare(ctx, s.c, token)
	if err != nil {
		return err
	}
	defer share.Release()
	s.epoch = epoch
	if s.app, err = stubCall(ctx, share, "appender"); err != nil {
		return err
	}
	s.rd, err = stubCall(ctx, share, "reader")
	return err
}

// WebShare redeems token on c (Vault.restore) and returns the share's
// stub, which the caller releases, and the grant's epoch.
func WebShare(ctx context.Context, c *capnweb.Client, token string) (*capnweb.Stub, capnweb.Value, error) {
	res, err := c.Main().Call(ctx, "restore", token)
	if err != nil {
		return nil, nil, fmt.Errorf("restore: %w", err)
	}
	share, ok := field(res, "share").(*capnweb.Stub)
	if !ok {
		return nil, nil, errors.New("restore: no share stub")
	}
	return share, field(field(res, "access"), "epoch"), nil
}

// WebReaderOf redeems token on c and returns its share's reader.
func WebReaderOf(ctx context.Context, c *capnweb.Client, token string) (*capnweb.Stub, error) {
	share, _, err := WebShare(ctx, c, token)
	if err != nil {
		return nil, err
	}
	defer share.Release()
	return stubCall(ctx, share, "reader")
}

// field is v's field name when v is an object (nil otherwise).
func field(v capnweb.Value, name string) capnweb.Value {
	o, ok := v.(*capnweb.Object)
	if !ok {
		return nil
	}
	f, _ := o.Get(name)
	return f
}

func stubCall(ctx context.Context, st *capnweb.Stub, method string) (*capnweb.Stub, error) {
	v, err := st.Call(ctx, method)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	got, ok := v.(*capnweb.Stub)
	if !ok {
		return nil, fmt.Errorf("%s: answered %T, not a stub", method, v)
	}
	return got, nil
}

func (h *Healthy) runWeb(ctx context.Context, s *webSession) {
	defer close(h.done)
	defer func() { s.close() }()
	for i := 0; ctx.Err() == nil; i++ {
		if s == nil {
			var err error
			if s, err = h.redialWeb(ctx); err != nil {
				continue
			}
		}
		if err := h.webRound(ctx, s, i); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.failed(err)
			select {
			case <-s.c.Done():
				s.close()
				s = nil
			default:
				pause(ctx, 50*time.Millisecond) // an error answered at once must not spin
			}
		}
	}
}

func (h *Healthy) redialWeb(ctx context.Context) (*webSession, error) {
	h.mu.Lock()
	h.redials++
	h.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := dialWebHealthy(dctx, h.url, h.token)
	if err != nil && ctx.Err() == nil {
		h.failed(err)
		pause(ctx, 100*time.Millisecond) // back off; a refused dial returns at once
	}
	return s, err
}

// webRound appends one op and reads it back.
func (h *Healthy) webRound(ctx context.Context, s *webSession, i int) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id := fmt.Sprintf("web-healthy-%d-%d", h.start.UnixNano(), i)
	op := capnweb.NewObject().Set("opId", id).Set("kind", "event").Set("body", capnweb.NewObject().Set("healthy", true))
	ack, err := s.app.Call(ctx, "append", capnweb.NewObject().Set("batchId", id).Set("epoch", s.epoch).Set("ops", []capnweb.Value{op}))
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	results, _ := field(ack, "results").([]capnweb.Value)
	if len(results) != 1 || field(results[0], "status") != "applied" {
		return fmt.Errorf("append: results %v", results)
	}
	h.count(&h.appends, false)
	cursor, err := webInt(field(results[0], "cursor"))
	if err != nil {
		return fmt.Errorf("append: cursor: %w", err)
	}
	got, err := s.rd.Call(ctx, "read", cursor-1, 1)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	ops, _ := field(got, "ops").([]capnweb.Value)
	if len(ops) != 1 || field(ops[0], "opId") != id {
		return fmt.Errorf("read back %d entries, not op %s", len(ops), id)
	}
	h.count(&h.reads, true)
	return nil
}

// webInt reads a Cap'n Web number (json.Number) as an int64.
func webInt(v capnweb.Value) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%T is not a number", v)
	}
	return n.Int64()
}
