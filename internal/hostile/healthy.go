package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// Fixture is what Setup made on a fresh vat.
type Fixture struct {
	Owner string // the share's owner token
	Read  string // a read-only token of the same share
	Head  sharevat.Cursor
}

// Setup creates a share with the admin token in dataDir/admin.token,
// mints a read token and appends ops ops of opBytes bytes of JSON body
// each, one op per batch (an op of 1 MB is close to the default body
// limit, so no batch holds two).
func Setup(ctx context.Context, url, dataDir string, ops, opBytes int) (Fixture, error) {
	var f Fixture
	admin, err := os.ReadFile(filepath.Join(dataDir, "admin.token"))
	if err != nil {
		return f, err
	}
	conn, err := client.Dial(ctx, url, nil)
	if err != nil {
		return f, err
	}
	defer conn.Close()
	adm, err := conn.RedeemAdmin(ctx, strings.TrimSpace(string(admin)))
	if err != nil {
		return f, fmt.Errorf("admin: %w", err)
	}
	defer adm.Release()
	title := "hostile"
	sh, owner, err := adm.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	if err != nil {
		return f, fmt.Errorf("create share: %w", err)
	}
	defer sh.Release()
	f.Owner = owner.Token
	read, err := sh.Grant(ctx, sharevat.ScopeRead, 0, "hostile reader")
	if err != nil {
		return f, fmt.Errorf("grant read: %w", err)
	}
	f.Read = read.Token
	if ops == 0 {
		return f, nil
	}
	app, err := sh.Appender(ctx)
	if err != nil {
		return f, err
	}
	defer app.Release()
	body := []byte(`"` + strings.Repeat("x", max(0, opBytes-2)) + `"`)
	for i := range ops {
		id := fmt.Sprintf("seed-%d", i)
		ack, err := app.Append(ctx, &sharevat.Batch{BatchID: id, Epoch: sh.Access.Epoch,
			Ops: []sharevat.Op{{OpID: id, Kind: "event", Body: body}}})
		if err != nil {
			return f, fmt.Errorf("seed op %d: %w", i, err)
		}
		if ack.Applied != 1 {
			return f, fmt.Errorf("seed op %d: %+v", i, ack.Results)
		}
		f.Head = ack.Head
	}
	return f, nil
}

// Healthy is a well-behaved client that appends one small op and reads
// it back, over and over, on one connection (redialled if it is lost),
// counting what succeeds in each second since it started.
type Healthy struct {
	url, token string
	start      time.Time
	cancel     context.CancelFunc
	done       chan struct{}

	mu       sync.Mutex
	appends  int
	reads    int
	failures int
	redials  int
	lastErr  error
	windows  []int // successful append+read rounds in each second since start
}

// HealthyStats is what a Healthy client did.
type HealthyStats struct {
	Appends, Reads, Failures, Redials int
	LastErr                           error
	// Windows are the successful rounds (an append and its read) in each
	// second since the client started; the last may be partial.
	Windows []int
	Elapsed time.Duration
}

// EmptyWindows counts the full one-second windows without a success.
func (s HealthyStats) EmptyWindows() int {
	n := 0
	for i, w := range s.Windows {
		if w == 0 && i < len(s.Windows)-1 {
			n++
		}
	}
	return n
}

func (s HealthyStats) String() string {
	str := fmt.Sprintf("%d appends, %d reads, %d failures, %d redials, %d empty 1 s windows of %d",
		s.Appends, s.Reads, s.Failures, s.Redials, s.EmptyWindows(), len(s.Windows))
	if s.LastErr != nil {
		str += fmt.Sprintf(" (last error: %v)", s.LastErr)
	}
	return str
}

// StartHealthy connects and redeems token (which needs read and append)
// before it returns, then keeps working in the background until Stop.
func StartHealthy(ctx context.Context, url, token string) (*Healthy, error) {
	sess, err := dialHealthy(ctx, url, token)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Healthy{url: url, token: token, start: time.Now(), cancel: cancel, done: make(chan struct{})}
	go h.run(ctx, sess)
	return h, nil
}

type healthySession struct {
	conn *client.Conn
	sh   *client.Share
	app  *client.Appender
	rd   *client.Reader
}

func (s *healthySession) close() {
	if s != nil && s.conn != nil {
		_ = s.conn.Close()
	}
}

func dialHealthy(ctx context.Context, url, token string) (*healthySession, error) {
	s := &healthySession{}
	var err error
	if s.conn, err = client.Dial(ctx, url, nil); err != nil {
		return nil, err
	}
	if s.sh, err = s.conn.Redeem(ctx, token); err == nil {
		if s.app, err = s.sh.Appender(ctx); err == nil {
			s.rd, err = s.sh.Reader(ctx)
		}
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (h *Healthy) run(ctx context.Context, s *healthySession) {
	defer close(h.done)
	defer func() { s.close() }()
	for i := 0; ctx.Err() == nil; i++ {
		if s == nil {
			var err error
			if s, err = h.redial(ctx); err != nil {
				continue
			}
		}
		if err := h.round(ctx, s, i); err != nil {
			if ctx.Err() != nil {
				return
			}
			h.failed(err)
			select {
			case <-s.conn.Done():
				s.close()
				s = nil
			default:
				pause(ctx, 50*time.Millisecond) // an error answered at once must not spin
			}
		}
	}
}

func (h *Healthy) redial(ctx context.Context) (*healthySession, error) {
	h.mu.Lock()
	h.redials++
	h.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := dialHealthy(dctx, h.url, h.token)
	if err != nil && ctx.Err() == nil {
		h.failed(err)
		pause(ctx, 100*time.Millisecond) // back off; a refused dial returns at once
	}
	return s, err
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// round appends one op and reads it back.
func (h *Healthy) round(ctx context.Context, s *healthySession, i int) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id := fmt.Sprintf("healthy-%d-%d", h.start.UnixNano(), i)
	ack, err := s.app.Append(ctx, &sharevat.Batch{BatchID: id, Epoch: s.sh.Access.Epoch,
		Ops: []sharevat.Op{{OpID: id, Kind: "event", Body: []byte(`{"healthy":true}`)}}})
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if len(ack.Results) != 1 || ack.Results[0].Status == sharevat.StatusRejected {
		return fmt.Errorf("append: %+v", ack.Results)
	}
	h.count(&h.appends, false)
	entries, _, err := s.rd.Read(ctx, ack.Results[0].Cursor-1, 1)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(entries) != 1 || entries[0].OpID != id {
		return fmt.Errorf("read back %d entries, not op %s", len(entries), id)
	}
	h.count(&h.reads, true)
	return nil
}

func (h *Healthy) count(n *int, round bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	*n++
	if !round {
		return
	}
	w := int(time.Since(h.start) / time.Second)
	for len(h.windows) <= w {
		h.windows = append(h.windows, 0)
	}
	h.windows[w]++
}

func (h *Healthy) failed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures++
	h.lastErr = err
}

// Stats returns what the client has done so far.
func (h *Healthy) Stats() HealthyStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	el := time.Since(h.start)
	w := append([]int(nil), h.windows...)
	for len(w) <= int(el/time.Second) {
		w = append(w, 0)
	}
	return HealthyStats{Appends: h.appends, Reads: h.reads, Failures: h.failures, Redials: h.redials,
		LastErr: h.lastErr, Windows: w, Elapsed: el}
}

// Stop ends the client (waiting for its round in progress, at most 10 s)
// and returns its stats.
func (h *Healthy) Stop() HealthyStats {
	st := h.Stats()
	h.cancel()
	<-h.done
	return st
}
