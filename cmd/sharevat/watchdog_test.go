package main_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// slowStore wraps the vat's store (whose pages hold readPage ops): while
// slow, each Read answers after waiting delay (a server that is slow but keeps
// making progress), or, with stall set, waits until the test ends (one
// that stopped); Compact calls past the first passCompacts wait until
// the test ends too.
type slowStore struct {
	sharevat.Store
	delay        time.Duration
	stall        atomic.Bool
	slow         atomic.Bool
	passCompacts atomic.Int64 // < 0: every Compact passes
	released     chan struct{}
	once         sync.Once
}

const readPage = 10

func newSlowStore(t *testing.T, delay time.Duration) *slowStore {
	s := &slowStore{delay: delay, released: make(chan struct{})}
	s.passCompacts.Store(-1)
	t.Cleanup(func() { s.once.Do(func() { close(s.released) }) })
	return s
}

func (s *slowStore) wrap(st sharevat.Store) sharevat.Store { s.Store = st; return s }

func (s *slowStore) Read(ctx context.Context, id sharevat.ShareID, after sharevat.Cursor, limit int) ([]sharevat.Entry, sharevat.Cursor, error) {
	if s.slow.Load() {
		if err := s.wait(ctx, s.stall.Load()); err != nil {
			return nil, 0, err
		}
	}
	return s.Store.Read(ctx, id, after, limit)
}

func (s *slowStore) Compact(ctx context.Context, id sharevat.ShareID, before sharevat.Cursor) (sharevat.Cursor, error) {
	if s.passCompacts.Load() >= 0 && s.passCompacts.Add(-1) < 0 {
		if err := s.wait(ctx, true); err != nil {
			return 0, err
		}
	}
	return s.Store.Compact(ctx, id, before)
}

// wait waits delay, or until the test ends when stalled; a cancelled
// ctx ends it with ctx's error.
func (s *slowStore) wait(ctx context.Context, stalled bool) error {
	var after <-chan time.Time
	if !stalled {
		t := time.NewTimer(s.delay)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-after:
		return nil
	case <-s.released:
		return context.Canceled
	case <-ctx.Done():
		return ctx.Err()
	}
}

// slowShare starts a vat on a slowStore with a share of n events and
// returns the store and the CLI's environment for the share's owner.
func slowShare(t *testing.T, delay time.Duration, n int) (*slowStore, []string) {
	st := newSlowStore(t, delay)
	srv := vattest.Start(t, vattest.Options{Wrap: st.wrap, Config: func(c *vat.Config) { c.MaxReadOps = readPage }})
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + srv.MustCreate(t, "slow"), "SHAREVAT_STATE=" + t.TempDir()}
	_, stderr, code := cliIn(t, i9Ops("op", n), env, "append", "--quiet")
	require.Equal(t, 0, code, stderr)
	return st, env
}

// TestReadBoundedByProgress: --timeout bounds the time without a page,
// not the whole read: a read whose every page comes well within it but
// which takes twice as long in all succeeds (before, it failed at
// --timeout with "context deadline exceeded").
func TestReadBoundedByProgress(t *testing.T) {
	st, env := slowShare(t, 400*time.Millisecond, 6*readPage)
	st.slow.Store(true)
	out, stderr, code := cliIn(t, "", env, "read", "--from", "0", "--timeout", "1200ms")
	require.Equal(t, 0, code, "a read that keeps making progress is not cut off: %s", stderr)
	assert.Equal(t, 6*readPage, strings.Count(out, "\n"), "every op read")
}

// TestReadStalledTimesOut: a server that stops answering is given up on
// after --timeout without progress, saying so.
func TestReadStalledTimesOut(t *testing.T) {
	st, env := slowShare(t, 0, 3*readPage)
	st.stall.Store(true)
	st.slow.Store(true)
	_, stderr, code := cliIn(t, "", env, "read", "--from", "0", "--timeout", "300ms")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "no progress for --timeout 300ms")
}

// TestTailCatchUpBoundedByProgress: tail's --timeout ends it once no op
// has arrived for that long; a catch-up slower than --timeout in all
// but quick push to push prints every op first (before, tail stopped
// at --timeout part way through). A push is up to 256 ops, read in five
// store calls (vat/subscribe.go readPush).
func TestTailCatchUpBoundedByProgress(t *testing.T) {
	const pushes = 6
	st, env := slowShare(t, 100*time.Millisecond, pushes*256)
	st.slow.Store(true)
	out, stderr, code := cliIn(t, "", env, "tail", "--from", "0", "--timeout", "1500ms", "--quiet")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, pushes*256, strings.Count(out, "\n"), "the whole catch-up printed before tail stopped")
}

// TestCompactInterruptedResumes: a compaction whose second step never
// finishes (a stalled server) stops at --timeout without progress,
// saying how far it got; the share is then consistent: compacted to the
// end of the first step, readable from there, the rest still there. The
// same command run again finishes it, with a progress bar. Before, compact was one call cut
// off at --timeout, saying only "context deadline exceeded".
func TestCompactInterruptedResumes(t *testing.T) {
	const n, step = 4200, 4096
	st, env := slowShare(t, 0, n)
	st.passCompacts.Store(1)
	_, stderr, code := cliIn(t, "", env, "compact", "--before", "4201", "--timeout", "500ms", "--quiet")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "no progress for --timeout 500ms")
	assert.Contains(t, stderr, "the compaction stopped part way: the share is consistent and readable from cursor 4097")
	assert.Contains(t, stderr, "run the same command again")

	out, stderr, code := cliIn(t, "", env, "read", "--from", "4096")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, n-step, strings.Count(out, "\n"), "the ops after the first step are all there")
	_, stderr, code = cliIn(t, "", env, "read", "--from", "0")
	assert.Equal(t, 1, code, "the first step's ops are gone: %s", stderr)
	assert.Contains(t, stderr, "compacted")

	st.passCompacts.Store(-1)
	out, stderr, code = cliIn(t, "", env, "compact", "--before", "4201", "--json", "--progress")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "104/104", "the bar counts the ops the second run dropped")
	var got struct{ Earliest uint64 }
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, uint64(n+1), got.Earliest, "the second run finished the compaction")
}
