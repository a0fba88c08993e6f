package vat

import (
	"context"
	"sync"

	"github.com/sharevat/sharevat"
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

	quotas Quotas

	mu      sync.Mutex
	closed  bool
	topics  map[sharevat.ShareID]*topic
	total   int
	byConn  map[*peerConn]int
	byGrant map[sharevat.GrantID]int
}

// topic is one share's wake channel and its subscriber count; it exists
// only while the share has subscribers.
type topic struct {
	head    sharevat.Cursor // highest head published since the topic exists
	changed chan struct{}   // closed by the next publish that moves head
	subs    int
}

func newHub(q Quotas) *hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &hub{
		ctx: ctx, cancel: cancel, quotas: q,
		topics:  make(map[sharevat.ShareID]*topic),
		byConn:  make(map[*peerConn]int),
		byGrant: make(map[sharevat.GrantID]int),
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

// join reserves a subscription slot for facet f (its share, grant and
// connection) and counts its goroutine in wg. Errors: ETooLarge over a
// quota; EUnavailable once the vat is closing.
func (h *hub) join(f *facet) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.checkQuotas(f); err != nil {
		return err
	}
	share := f.share()
	t := h.topics[share]
	if t == nil {
		t = &topic{changed: make(chan struct{})}
		h.topics[share] = t
	}
	t.subs++
	h.total++
	h.byConn[f.conn]++
	h.byGrant[f.lg.g.ID]++
	h.wg.Add(1)
	return nil
}

func (h *hub) checkQuotas(f *facet) error {
	q := h.quotas
	full := func(limit, what string, n int) error {
		f.vat.obs.LimitHit(limit)
		return sharevat.Errorf(sharevat.ETooLarge, "%s has %d live subscriptions, its limit", what, n)
	}
	switch {
	case h.closed:
		return sharevat.Errorf(sharevat.EUnavailable, "server shutting down")
	case h.total >= q.MaxSubscriptions:
		return full(LimitSubscriptions, "the server", q.MaxSubscriptions)
	case h.byConn[f.conn] >= q.MaxConnSubscriptions:
		return full(LimitConnSubscriptions, "this connection", q.MaxConnSubscriptions)
	case h.byGrant[f.lg.g.ID] >= q.MaxGrantSubscriptions:
		return full(LimitGrantSubscriptions, "this token", q.MaxGrantSubscriptions)
	case h.topics[f.share()] != nil && h.topics[f.share()].subs >= q.MaxShareSubscriptions:
		return full(LimitShareSubscriptions, "this share", q.MaxShareSubscriptions)
	}
	return nil
}

// leave frees the slot join reserved (the goroutine still calls
// wg.Done when it returns).
func (h *hub) leave(f *facet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.topics[f.share()]; t != nil {
		if t.subs--; t.subs == 0 {
			delete(h.topics, f.share())
		}
	}
	h.total--
	if h.byConn[f.conn]--; h.byConn[f.conn] == 0 {
		delete(h.byConn, f.conn)
	}
	if h.byGrant[f.lg.g.ID]--; h.byGrant[f.lg.g.ID] == 0 {
		delete(h.byGrant, f.lg.g.ID)
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
