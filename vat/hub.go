package vat

import (
	"context"
	"sync"

	"sharevat"
)

// Subscription limits. A subscribe over either answers ETooLarge; the
// slot is freed when the subscription ends.
const (
	// MaxSubscriptions bounds the live subscriptions of one Vat.
	MaxSubscriptions = 10_000
	// MaxConnSubscriptions bounds the live subscriptions of one
	// connection (one peer address).
	MaxConnSubscriptions = 1_000
)

// hub tells subscriptions that a share's log grew, and owns their
// goroutines.
//
// Notification is level-triggered and lossless by construction: a
// subscription takes its share's wake channel (watch) before it reads
// the store, and every publish after a commit closes the channel it
// finds and installs a fresh one. So a commit either happened before the
// read (and the read sees it) or its publish closes the channel the
// subscription holds; notifications may coalesce, ops are never missed,
// because a woken subscription reads the store from its own cursor.
//
// Lifecycle: each subscription goroutine is counted in wg while it
// runs; Close cancels ctx (every subscription's parent context) and
// waits for wg. mu guards topics, the counters and closed; it is held
// only for map updates, never across store I/O or a capability call.
type hub struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	topics map[sharevat.ShareID]*topic
	total  int
	byPeer map[string]int
}

// topic is one share's wake channel and its subscriber count; it exists
// only while the share has subscribers.
type topic struct {
	head    sharevat.Cursor // highest head published since the topic exists
	changed chan struct{}   // closed by the next publish that moves head
	subs    int
}

func newHub() *hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &hub{
		ctx: ctx, cancel: cancel,
		topics: make(map[sharevat.ShareID]*topic),
		byPeer: make(map[string]int),
	}
}

// publish announces that share's head is now at least head. Cheap when
// the share has no subscribers. Called after every successful append.
func (h *hub) publish(share sharevat.ShareID, head sharevat.Cursor) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.topics[share]
	if t == nil || head <= t.head {
		return
	}
	t.head = head
	close(t.changed)
	t.changed = make(chan struct{})
}

// watch returns the channel the next publish for share closes. The
// caller must have joined share.
func (h *hub) watch(share sharevat.ShareID) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.topics[share].changed
}

// join reserves a subscription slot on share for peer and counts its
// goroutine in wg. Errors: ETooLarge over a limit; EUnavailable once
// the vat is closing.
func (h *hub) join(share sharevat.ShareID, peer string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return sharevat.Errorf(sharevat.EUnavailable, "server shutting down")
	case h.total >= MaxSubscriptions:
		return sharevat.Errorf(sharevat.ETooLarge, "the server has %d live subscriptions, its limit", MaxSubscriptions)
	case h.byPeer[peer] >= MaxConnSubscriptions:
		return sharevat.Errorf(sharevat.ETooLarge, "this connection has %d live subscriptions, its limit", MaxConnSubscriptions)
	}
	t := h.topics[share]
	if t == nil {
		t = &topic{changed: make(chan struct{})}
		h.topics[share] = t
	}
	t.subs++
	h.total++
	h.byPeer[peer]++
	h.wg.Add(1)
	return nil
}

// leave frees the slot join reserved (the goroutine still calls
// wg.Done when it returns).
func (h *hub) leave(share sharevat.ShareID, peer string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[share]; t != nil {
		if t.subs--; t.subs == 0 {
			delete(h.topics, share)
		}
	}
	h.total--
	if h.byPeer[peer]--; h.byPeer[peer] == 0 {
		delete(h.byPeer, peer)
	}
}

// closeSubscriptions ends every live subscription (without an end()
// call: their connections are about to close too) and waits for their
// goroutines, or for ctx. Later subscribes answer EUnavailable.
func (v *Vat) closeSubscriptions(ctx context.Context) error {
	h := v.hub
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	return waitCtx(ctx, &h.wg)
}
