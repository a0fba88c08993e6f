package bolt

import (
	"sync"
	"time"

	"github.com/sharevat/sharevat"
)

// DefaultMaxPendingBytes bounds how much write-ahead log the data file
// may lag behind (Options.MaxPendingBytes). The overlay keeps all of it
// in memory (about twice its size), and a restart after a crash replays
// all of it.
const DefaultMaxPendingBytes = 128 << 20

// admitWait is how long an append group waits for the applier to bring
// the log back under its bound before the group is refused.
const admitWait = 10 * time.Second

// applyNotice tells waiting appenders that the applier finished an
// attempt, and how the last attempt went.
type applyNotice struct {
	mu  sync.Mutex
	ch  chan struct{} // closed when the next attempt ends
	err error         // the last attempt's failure; nil once one succeeds
}

func newApplyNotice() *applyNotice { return &applyNotice{ch: make(chan struct{})} }

// ended records the end of an attempt and wakes the waiters.
func (n *applyNotice) ended(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.err = err
	close(n.ch)
	n.ch = make(chan struct{})
}

// state is the channel of the next attempt and the last one's failure.
func (n *applyNotice) state() (<-chan struct{}, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch, n.err
}

// admit holds an append group back while the log not yet in the data
// file is at or past its bound, so the overlay cannot grow without
// limit when the applier cannot keep up or keeps failing (a full disk).
// It waits while the applier makes progress, up to admitWait; it refuses
// the group (EUnavailable) at once when the applier's last attempt
// failed, and after admitWait. The caller holds no lock.
func (w *walState) admit() error {
	var timeout <-chan time.Time
	for {
		if _, bytes := w.ov.size(); bytes < w.maxPending {
			return nil
		}
		next, err := w.notice.state()
		if err != nil {
			return sharevat.Errorf(sharevat.EUnavailable, "the write-ahead log is %d MiB ahead of the data file, which cannot take it now; appends are refused until it can", w.maxPending>>20)
		}
		w.kickNow()
		if timeout == nil {
			t := time.NewTimer(admitWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-next:
		case <-timeout:
			return sharevat.Errorf(sharevat.EUnavailable, "the write-ahead log is %d MiB ahead of the data file and did not catch up in %s", w.maxPending>>20, admitWait)
		case <-w.stop:
			return sharevat.Errorf(sharevat.EUnavailable, "the store is closing")
		}
	}
}

// kickNow wakes the applier.
func (w *walState) kickNow() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}
