package pg

import (
	"context"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/commit"
)

// noticeTimeout bounds one round of append notices.
const noticeTimeout = 10 * time.Second

// notifier sends the append notices (kind a) of a Store's commits on
// sharevat_changes, after the commit and outside its transaction
// (migration 004 says why), from one goroutine: heads committed while
// a round is being sent are coalesced, per share the highest, into the
// next round. A notice lost to a crash between the commit and the round
// only delays the op on other vats: their subscriptions re-read the log
// every few seconds anyway (vat/changes.go).
type notifier struct {
	st      *Store
	mu      sync.Mutex
	pending map[sharevat.ShareID]sharevat.Cursor
	wake    chan struct{} // 1-buffered: a round is due
	cancel  context.CancelFunc
	done    chan struct{}
}

// startNotifier starts st's notifier goroutine; stop ends it.
func (st *Store) startNotifier() {
	ctx, cancel := context.WithCancel(context.Background())
	st.notices = &notifier{st: st, pending: map[sharevat.ShareID]sharevat.Cursor{},
		wake: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go st.notices.run(ctx)
}

// committed records the heads of a committed group's appends.
func (n *notifier) committed(group []*commit.Call) {
	n.mu.Lock()
	for _, call := range group {
		if call.Err == nil && call.Ack.Applied > 0 {
			n.pending[call.Req.Share] = max(n.pending[call.Req.Share], call.Ack.Head)
		}
	}
	due := len(n.pending) > 0
	n.mu.Unlock()
	if due {
		select {
		case n.wake <- struct{}{}:
		default:
		}
	}
}

// run sends rounds until ctx ends, then a last one.
func (n *notifier) run(ctx context.Context) {
	defer close(n.done)
	for {
		select {
		case <-n.wake:
			n.round(ctx)
		case <-ctx.Done():
			n.round(context.Background())
			return
		}
	}
}

// round sends every pending notice in one batch (one implicit
// transaction, which writes nothing and so waits for no WAL flush).
func (n *notifier) round(ctx context.Context) {
	n.mu.Lock()
	heads := n.pending
	n.pending = map[sharevat.ShareID]sharevat.Cursor{}
	n.mu.Unlock()
	if len(heads) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, noticeTimeout)
	defer cancel()
	at := strconv.FormatInt(time.Now().UnixMicro(), 10)
	batch := &pgx.Batch{}
	for id, head := range heads {
		batch.Queue("SELECT pg_notify($1, $2)", changesChannel,
			"a "+hex.EncodeToString([]byte(id))+" "+strconv.FormatInt(int64(head), 10)+" "+at)
	}
	if err := n.st.pool.SendBatch(ctx, batch).Close(); err != nil {
		n.st.opts.Logger.Warn("pg: append notices not sent; other vats see the ops at their next re-read", "shares", len(heads), "err", err)
	}
}

// stop ends the goroutine after a last round, or when ctx ends.
func (n *notifier) stop(ctx context.Context) {
	n.cancel()
	select {
	case <-n.done:
	case <-ctx.Done():
	}
}
