package capnweb

// Concurrency. A session has one reader (the goroutine that hands each
// incoming message to handle), one dispatch goroutine (the only one that
// calls Target.Call, so calls reach Targets one at a time and in order),
// one goroutine per call waiting for its receiver and arguments, one per
// Answer, one per pulled answer waiting to send it, and the transport's
// writer. All table state is under mu. Never hold mu while calling a
// Target, an Answer, a Releaser or user callbacks other than
// Options.OnLimit: Releases found under mu are queued in rel and run by
// unlock.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// ErrClosed is the error of calls on a session that has ended.
var ErrClosed = errors.New("capnweb: session closed")

// WebSocket close codes used by the engine.
const (
	closeNormal    = 1000
	closeGoingAway = 1001
	closePolicy    = 1008
	closeTooBig    = 1009
	closeTryAgain  = 1013 // evicted by the server's memory pool
)

// outbox is a session's way out: send queues one message (never blocks);
// close stops the transport, first sending abort (when not nil) and a
// close with code.
type outbox interface {
	send(frame []byte)
	close(code int, text string, abort []byte)
}

// exportEntry is an entry of our export table.
type exportEntry struct {
	refs   int64
	target Target  // a local object, or
	fut    *future // an answer or promise
	pulled bool
}

// importEntry is an entry of our import table.
type importEntry struct {
	remote int64   // times the peer introduced the id (sent in our release)
	local  int64   // references we hold
	fut    *future // for promises and our own pushes
	peer   bool    // created by the peer (counts against MaxImports)
	pulled bool
}

type session struct {
	o     *Options
	log   *slog.Logger
	out   outbox
	meter *budget
	batch bool

	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed by fail
	failOnce sync.Once
	reason   error
	finished chan struct{} // closed when teardown is over

	dispatch chan func()
	wg       sync.WaitGroup // every goroutine of the session but the writer
	pulls    sync.WaitGroup // goroutines waiting to send a pulled answer

	mu          sync.Mutex
	rel         []Releaser
	exports     map[int64]*exportEntry
	lastPush    int64
	nextExport  int64
	byTarget    map[Target]int64
	holds       map[Target]int
	imports     map[int64]*importEntry
	peerImports int
	lastImport  int64
	inflight    int
	order       map[int64]chan struct{}
	// roots are the answers of a batch's pushes, which the batch waits
	// for before it ends (nil on a WebSocket).
	roots []*future
}

// newSession starts a session whose main interface is main (nil: none).
func newSession(o *Options, out outbox, meter *budget, main Target, batch bool) *session {
	ctx, cancel := context.WithCancel(withMeter(context.Background(), meter))
	s := &session{
		o: o, log: o.Logger, out: out, meter: meter, batch: batch,
		ctx: ctx, cancel: cancel, done: make(chan struct{}), finished: make(chan struct{}),
		dispatch: make(chan func()), exports: map[int64]*exportEntry{}, nextExport: -1,
		byTarget: map[Target]int64{}, holds: map[Target]int{}, imports: map[int64]*importEntry{},
		order: map[int64]chan struct{}{},
	}
	if main == nil {
		main = noMain{}
	}
	s.exports[0] = &exportEntry{refs: 1, target: main}
	s.holdTarget(main)
	s.imports[0] = &importEntry{remote: 1, local: 1}
	s.wg.Add(1)
	go s.dispatchLoop()
	return s
}

// noMain is the main interface of a side that offers none.
type noMain struct{}

func (noMain) Call(context.Context, string, []Value) Answer {
	return Returning(nil, &Error{Type: "Error", Message: "This connection has no main object."})
}

func (s *session) dispatchLoop() {
	defer s.wg.Done()
	for {
		select {
		case f := <-s.dispatch:
			f()
		case <-s.ctx.Done():
			return
		}
	}
}

func (s *session) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// unlock releases mu, then runs the Releases queued under it.
func (s *session) unlock() {
	rel := s.rel
	s.rel = nil
	s.mu.Unlock()
	for _, r := range rel {
		s.safeRelease(r)
	}
}

func (s *session) safeRelease(r Releaser) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("capnweb: Release panicked", "panic", fmt.Sprint(p))
		}
	}()
	r.Release()
}

// fail ends the session once: limit names the limit that closed it (""
// for none), err the reason sent to the peer in an abort (nil: none).
// It never takes mu, so it may be called under it.
func (s *session) fail(limit string, err error, code int) {
	s.failOnce.Do(func() {
		s.reason = err
		if limit != "" && s.o.OnLimit != nil {
			s.o.OnLimit(limit)
		}
		var abort []byte
		if err != nil && (code == closePolicy || code == closeTooBig || code == closeTryAgain) {
			abort = abortFrame(err)
			s.log.Info("capnweb: session aborted", "limit", limit)
		}
		close(s.done)
		s.cancel()
		text := ""
		if code == closePolicy || code == closeTooBig || code == closeTryAgain {
			text = limit
		}
		s.out.close(code, text, abort)
	})
}

func abortFrame(err error) []byte {
	e := encoder{}
	e.raw(`["abort",`)
	_ = e.error(&Error{Type: "Error", Message: err.Error()}, 0)
	e.raw("]")
	return e.buf
}

// failProto ends the session for peer input err.
func (s *session) failProto(err error) {
	code := closePolicy
	limit := limitOf(err)
	if limit == "read-limit" {
		code = closeTooBig
	}
	s.fail(limit, err, code)
}

// closedErr is the error of a call made after the session ended.
func (s *session) closedErr() error {
	if s.reason != nil {
		return fmt.Errorf("%w: %v", ErrClosed, s.reason)
	}
	return ErrClosed
}

// teardown waits for the session's goroutines (after fail), then releases
// every Target still held, once each.
func (s *session) teardown() {
	s.fail("", nil, closeNormal)
	s.wg.Wait()
	s.mu.Lock()
	for t := range s.holds {
		if r, ok := t.(Releaser); ok {
			s.rel = append(s.rel, r)
		}
	}
	s.holds = nil
	s.exports = map[int64]*exportEntry{}
	s.imports = map[int64]*importEntry{}
	s.unlock()
	close(s.finished)
}

// sendLocked queues a frame, charging it to the budget until written.
func (s *session) sendLocked(frame []byte) {
	if s.isDone() {
		return
	}
	if s.meter.Charge(int64(len(frame))) != nil {
		return
	}
	s.out.send(frame)
}

// handleCharged reads and carries out one message from the peer, whose
// bytes the caller has charged to the budget (charged of them: the
// WebSocket reader's buffer; 0 for a batch line, charged with the whole
// body): they are released once it is handled, with what its parse
// charged.
func (s *session) handleCharged(data []byte, charged int64) {
	defer s.meter.Release(charged)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("capnweb: panic handling a message", "panic", fmt.Sprint(p))
			s.fail("malformed", errors.New("internal error"), closePolicy)
		}
	}()
	raw, parsed, err := parseCharged(data, s.o.MaxDepth, s.meter)
	defer s.meter.Release(parsed)
	if err != nil {
		s.failProto(err)
		return
	}
	m, err := readMessage(raw)
	if err != nil {
		s.failProto(err)
		return
	}
	s.mu.Lock()
	defer s.unlock()
	if err := s.handleLocked(m); err != nil {
		s.failProto(err)
	}
}

func (s *session) handleLocked(m message) error {
	if s.isDone() {
		return nil
	}
	switch m.kind {
	case "push":
		return s.onPush(m)
	case "pull":
		return s.onPull(m.id)
	case "resolve", "reject":
		return s.onResolve(m)
	case "release":
		return s.onRelease(m.id, m.count)
	case "abort":
		var reason error = &Error{Type: "Error", Message: "peer aborted the session"}
		if x, ok := m.expr.(*exError); ok {
			reason = &Error{Type: x.typ, Message: x.msg}
		}
		s.fail("", reason, closeNormal)
		return nil
	}
	return malformed("unknown message type")
}

func (s *session) onPush(m message) error {
	if len(s.exports) >= s.o.MaxExports {
		return &protoError{limit: "exports", msg: "too many exports"}
	}
	if s.inflight >= s.o.MaxInflight {
		return &protoError{limit: "inflight", msg: "too many calls in flight"}
	}
	s.lastPush++
	fut := newFuture()
	fut.root = true
	s.inflight++
	s.exports[s.lastPush] = &exportEntry{refs: 1, fut: fut}
	if s.batch {
		s.roots = append(s.roots, fut)
	}
	if m.exprErr != nil {
		s.resolveLocked(fut, nil, m.exprErr, refs{})
		return nil
	}
	ev := &evalState{}
	tree, err := s.eval(m.expr, ev)
	if err != nil {
		return err
	}
	s.settle(fut, tree, ev)
	return nil
}

func (s *session) onPull(id int64) error {
	e := s.exports[id]
	if e == nil {
		return malformed("pull of an unknown id")
	}
	if e.pulled {
		return nil
	}
	e.pulled = true
	if e.fut == nil {
		s.sendAnswer(id, e.target, nil)
		return nil
	}
	s.wg.Add(1)
	s.pulls.Add(1)
	go s.awaitPull(id, e)
	return nil
}

// awaitPull sends the answer of export id once it is known, unless the
// peer released it meanwhile.
func (s *session) awaitPull(id int64, e *exportEntry) {
	defer s.wg.Done()
	defer s.pulls.Done()
	select {
	case <-e.fut.done:
	case <-s.ctx.Done():
		return
	}
	s.mu.Lock()
	defer s.unlock()
	if s.exports[id] == e {
		s.sendAnswer(id, e.fut.val, e.fut.err)
	}
}

// sendAnswer sends ["resolve", id, v] or, for err (or a v that cannot be
// sent), ["reject", id, error].
func (s *session) sendAnswer(id int64, v Value, err error) {
	if err == nil {
		frame, eerr := s.encodeLocked(fmt.Sprintf(`["resolve",%d,`, id), v)
		if eerr == nil {
			s.sendLocked(frame)
			return
		}
		if limitOf(eerr) == "exports" {
			s.failProto(eerr)
			return
		}
		err = eerr
	}
	e := encoder{}
	e.buf = fmt.Appendf(e.buf, `["reject",%d,`, id)
	if e.error(toError(err), 0) != nil {
		e.buf = fmt.Appendf(e.buf[:0], `["reject",%d,`, id)
		_ = e.error(&Error{Type: "Error", Message: toError(err).Message}, 0)
	}
	e.raw("]")
	s.sendLocked(e.buf)
}

func (s *session) onRelease(id, n int64) error {
	e := s.exports[id]
	if e == nil {
		return malformed("release of an unknown id")
	}
	if n > e.refs {
		return malformed("release of more references than held")
	}
	e.refs -= n
	if e.refs == 0 {
		s.dropExport(id, e)
	}
	return nil
}

func (s *session) dropExport(id int64, e *exportEntry) {
	delete(s.exports, id)
	if e.target != nil {
		if cur, ok := s.byTarget[e.target]; ok && cur == id {
			delete(s.byTarget, e.target)
		}
		s.dropTarget(e.target)
	}
	if e.fut != nil {
		s.killFuture(e.fut)
	}
}

// killFuture drops what fut holds, now or when it resolves.
func (s *session) killFuture(f *future) {
	f.dead = true
	if f.resolved() {
		s.dropRefs(f.refs)
		f.refs = refs{}
		s.meter.Release(f.charged)
		f.charged = 0
	}
}

// onResolve takes the peer's answer to one of our pushes or promises.
func (s *session) onResolve(m message) error {
	e := s.imports[m.id]
	fut := newFuture()
	fut.dead = true // nobody waits: just release what it introduces
	if e != nil && e.fut != nil && !e.fut.resolved() {
		fut = e.fut
		s.releaseImport(m.id, e)
	}
	if m.exprErr != nil {
		s.resolveLocked(fut, nil, m.exprErr, refs{})
		return nil
	}
	ev := &evalState{}
	tree, err := s.eval(m.expr, ev)
	if err != nil {
		return err
	}
	if m.kind == "reject" {
		s.settle(fut, rejection{tree}, ev)
		return nil
	}
	s.settle(fut, tree, ev)
	return nil
}

// rejection wraps the evaluated value of a reject message for settle.
type rejection struct{ v Value }

// rejectionError turns a rejection's value into an error.
func rejectionError(v Value) error {
	if e, ok := v.(*Error); ok {
		return e
	}
	if s, ok := v.(string); ok {
		return &Error{Type: "Error", Message: s}
	}
	return &Error{Type: "Error", Message: fmt.Sprintf("rejected with a %T", v)}
}

// releaseImport sends the release of every reference to import id the
// peer gave us and forgets it.
func (s *session) releaseImport(id int64, e *importEntry) {
	if s.imports[id] != e {
		return
	}
	delete(s.imports, id)
	if e.peer {
		s.peerImports--
	}
	if e.remote > 0 {
		s.sendLocked(fmt.Appendf(nil, `["release",%d,%d]`, id, e.remote))
	}
}
