package rpc

import (
	"runtime"
	"testing"
	"time"
)

// awaitWaiter returns once a charge is waiting for room in b.
func awaitWaiter(b *connBudget) {
	for {
		b.mu.Lock()
		waiting := b.room != nil
		b.mu.Unlock()
		if waiting {
			return
		}
		runtime.Gosched()
	}
}

// TestChargeAwaitingFinish: the application's charge waits for answers
// awaiting the peer's Finish while they hold the room it wants, and does
// not wait when their release would not make that room.
func TestChargeAwaitingFinish(t *testing.T) {
	b := newConnBudget(100, nil, nil)
	if err := b.chargeFinishing(60); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if err := b.charge(10); err != nil {
		t.Fatalf("frame: %v", err)
	}

	got := make(chan *budgetError, 1)
	go func() { got <- b.chargeAwaiting(20, 40, time.Minute) }() // 20 fit, 40 do not
	awaitWaiter(b)
	b.releaseFinished(60) // the peer's Finish
	if err := <-got; err != nil {
		t.Fatalf("after the Finish: %v", err)
	}

	// 30 held, none of it an answer awaiting Finish: charged at once.
	if err := b.chargeAwaiting(50, 100, time.Minute); err != nil {
		t.Fatalf("nothing to wait for: %v", err)
	}
	if err := b.chargeAwaiting(30, 60, time.Minute); err == nil || err.limit != LimitConnMemory {
		t.Fatalf("over the budget, nothing to wait for: %v, want %s", err, LimitConnMemory)
	}
}

// TestChargeAwaitingNoFinish: a peer that never finishes gets the plain
// charge once the wait is over, and a wait ends at once when the
// connection closes.
func TestChargeAwaitingNoFinish(t *testing.T) {
	b := newConnBudget(100, nil, nil)
	if err := b.chargeFinishing(90); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if err := b.chargeAwaiting(20, 40, 10*time.Millisecond); err == nil || err.limit != LimitConnMemory {
		t.Fatalf("no Finish: %v, want %s", err, LimitConnMemory)
	}
	got := make(chan *budgetError, 1)
	go func() { got <- b.chargeAwaiting(5, 40, time.Minute) }()
	awaitWaiter(b)
	b.close()
	if err := <-got; err != errBudgetClosed {
		t.Fatalf("closed while waiting: %v, want %v", err, errBudgetClosed)
	}
}
