package engine

// The wire-level harness of the conformance suite: the test plays the
// remote vat. One end of transport.NewPipe goes to the engine under test
// (ours, or go-capnp's for comparison), the other is driven by hand-built
// rpccp.Messages, and every message the engine sends back is decoded and
// kept, in order, for the assertions.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	capnprpc "capnproto.org/go/capnp/v3/rpc"
	"capnproto.org/go/capnp/v3/rpc/transport"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// hangGuard bounds every wait for a message the engine must send: it only
// turns a hang into a failure with the history printed, it measures
// nothing (the machine is shared and slow).
const hangGuard = 60 * time.Second

// engineConn is what the suite needs of a connection, whichever engine.
type engineConn interface {
	Done() <-chan struct{}
	Close() error
}

// errConn is an engineConn that says why it ended (ours does; go-capnp's
// Conn does not).
type errConn interface{ Err() error }

// engineUnderTest is one engine the suite runs against.
type engineUnderTest struct {
	name string
	// start gives codec to a new connection serving boot; the connection
	// owns boot from then on.
	start func(codec transport.Codec, boot capnp.Client) engineConn
	// deviations names the spec rules this engine is known to break: a
	// subtest guarded by one of them skips on this engine (with the
	// reason) unless ENGINETEST_STRICT=1, which runs it to show the
	// failure.
	deviations map[string]string
}

// goCapnp is go-capnp's own engine (v3.1.0-alpha.2), the reference the
// suite was developed against and the one ours replaces.
var goCapnp = engineUnderTest{
	name: "gocapnp",
	start: func(codec transport.Codec, boot capnp.Client) engineConn {
		return capnprpc.NewConn(transport.New(codec), &capnprpc.Options{BootstrapClient: boot})
	},
	deviations: map[string]string{
		// A call pipelined through a transform that reaches no
		// capability (a list, a null or absent pointer), when it is
		// queued before the answer is fulfilled, panics in
		// capnp.(*AnswerQueue).Fulfill (answerqueue.go:104, nil pointer
		// dereference) and kills the process: the crash our hardening
		// guards exist for. Whether it is queued is a race.
		"bad-transform-crash": "panics in AnswerQueue.Fulfill (nil dereference), killing the process",
		// getPointerField(0) applied to a Bootstrap's answer (a
		// capability pointer, not a struct) is served by the bootstrap
		// capability itself instead of failing.
		// The engine's Finish for its own question goes out on a 250 ms
		// timer after the answer is released, not at once (so after
		// later messages, here the answer to a later Bootstrap).
		"prompt-finish": "sends Finish on a 250 ms timer after the answer is released",
		// Close waits (rpc.go:414, shutdown's WaitGroup) for the calls
		// the engine made on the peer's capabilities, which a silent
		// peer never answers: Close hangs until the codec is closed
		// under it.
		"close-with-outstanding-calls": "Close blocks while a call on the peer's capability is unanswered",
		"transform-into-capability":    "serves a getPointerField transform applied to a capability",
	},
}

// engines lists the engines every conformance test runs against; ours
// (named "sharevat") is appended by engines_sharevat_test.go.
var engines = []engineUnderTest{goCapnp}

// forEachEngine runs fn as a subtest per engine.
func forEachEngine(t *testing.T, fn func(t *testing.T, e engineUnderTest)) {
	t.Helper()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { fn(t, e) })
	}
}

// openBugs are the known bugs of engines defined outside this file, by
// "engine/rule"; delete a line with the fix.
var openBugs = map[string]string{}

// deviation skips t when e is known to break rule (see
// engineUnderTest.deviations and openBugs).
func deviation(t *testing.T, e engineUnderTest, rule string) {
	t.Helper()
	why, ok := e.deviations[rule]
	if !ok {
		why, ok = openBugs[e.name+"/"+rule]
	}
	if ok && os.Getenv("ENGINETEST_STRICT") != "1" {
		t.Skipf("known deviation of %s (%s): %s; ENGINETEST_STRICT=1 runs it", e.name, rule, why)
	}
}

// peer is the remote vat, played by the test at the message level.
type peer struct {
	t     *testing.T
	e     engineUnderTest
	codec transport.Codec
	conn  engineConn
	boot  *bootServer
	in    chan rpccp.Message // closed when the engine's end is closed
	// seen holds every message received so far, in order (the test
	// goroutine only).
	seen    []rpccp.Message
	readErr error // why in was closed; read after it is
	nextQ   uint32
	hangUp  sync.Once
	// returns holds the Returns received and not yet claimed by
	// awaitReturn, by answer id: an await for one message passes over
	// others (a pipelined call may be answered before its target).
	returns map[uint32]rpccp.Return
}

// hangup closes the peer's end of the pipe (once).
func (p *peer) hangup() { p.hangUp.Do(func() { _ = p.codec.Close() }) }

// start connects a new engine e, serving a fresh bootServer, to a peer
// the test drives. Cleanup closes both ends.
func start(t *testing.T, e engineUnderTest) *peer {
	t.Helper()
	ours, theirs := transport.NewPipe(64)
	p := &peer{t: t, e: e, codec: ours, boot: newBootServer(), in: make(chan rpccp.Message, 4096), returns: map[uint32]rpccp.Return{}}
	p.conn = e.start(theirs, p.boot.client())
	go p.readLoop()
	t.Cleanup(func() {
		if !closesWithin(p.conn, hangGuard) {
			t.Errorf("%s: Close did not return in %v", e.name, hangGuard)
		}
		p.hangup()
		select {
		case <-p.conn.Done():
		case <-time.After(hangGuard):
			t.Errorf("%s: Done not closed %v after Close", e.name, hangGuard)
		}
	})
	return p
}

func (p *peer) readLoop() {
	defer close(p.in)
	for {
		m, err := p.codec.Decode()
		if err != nil {
			p.readErr = err
			return
		}
		msg, err := rpccp.ReadRootMessage(m)
		if err != nil {
			p.readErr = fmt.Errorf("engine sent an undecodable message: %w", err)
			return
		}
		p.in <- msg
	}
}

// question allocates a fresh question id of the peer.
func (p *peer) question() uint32 {
	q := p.nextQ
	p.nextQ++
	return q
}

// builder fills in one message.
type builder func(m rpccp.Message) error

// trySend encodes and sends one message to the engine.
func (p *peer) trySend(b builder) error {
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	if err != nil {
		return err
	}
	if err := b(m); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return p.codec.Encode(msg)
}

// send is trySend that fails the test on error.
func (p *peer) send(b builder) {
	p.t.Helper()
	if err := p.trySend(b); err != nil {
		p.t.Fatalf("send: %v\n%s", err, p.history())
	}
}

// errClosed is what recv answers once the engine closed its end.
var errClosed = errors.New("engine closed the connection")

// recv waits for the engine's next message.
func (p *peer) recv() (rpccp.Message, error) {
	select {
	case m, ok := <-p.in:
		if !ok {
			return rpccp.Message{}, fmt.Errorf("%w (%v)", errClosed, p.readErr)
		}
		p.seen = append(p.seen, m)
		if m.Which() == rpccp.Message_Which_return {
			r := must(m.Return())
			p.returns[r.AnswerId()] = r
		}
		return m, nil
	case <-time.After(hangGuard):
		return rpccp.Message{}, fmt.Errorf("no message from the engine in %v", hangGuard)
	}
}

// await receives until a message satisfies match and returns it; every
// message passed over stays in the history. It fails the test if the
// engine closes the connection or goes quiet first.
func (p *peer) await(what string, match func(rpccp.Message) bool) rpccp.Message {
	p.t.Helper()
	for {
		m, err := p.recv()
		if err != nil {
			p.t.Fatalf("waiting for %s: %v\n%s", what, err, p.history())
		}
		if match(m) {
			return m
		}
	}
}

// awaitSeen is await that first looks through the messages already
// received.
func (p *peer) awaitSeen(what string, match func(rpccp.Message) bool) rpccp.Message {
	p.t.Helper()
	for _, m := range p.seen {
		if match(m) {
			return m
		}
	}
	return p.await(what, match)
}

// awaitReturn waits for the Return answering question q (or takes it
// if it was received already).
func (p *peer) awaitReturn(q uint32) rpccp.Return {
	p.t.Helper()
	if r, ok := p.returns[q]; ok {
		delete(p.returns, q)
		return r
	}
	m := p.await(fmt.Sprintf("Return for question %d", q), func(m rpccp.Message) bool {
		return m.Which() == rpccp.Message_Which_return && must(m.Return()).AnswerId() == q
	})
	delete(p.returns, q)
	return must(m.Return())
}

// outcome is how the engine treated a message it should refuse.
type outcome struct {
	abort     string // the Abort's reason, or "" when it sent none
	closed    bool   // the engine closed the connection
	exception string // the exception Return's reason, when it answered one
	results   bool   // it answered results: refusal failed
}

func (o outcome) String() string {
	switch {
	case o.results:
		return "answered results"
	case o.exception != "":
		return "exception Return: " + o.exception
	case o.abort != "":
		return "Abort: " + o.abort
	case o.closed:
		return "connection closed without Abort"
	}
	return "nothing"
}

// refused waits until the engine either answers question q (when
// hasQuestion) or aborts/closes, and reports which.
func (p *peer) refused(q uint32, hasQuestion bool) outcome {
	p.t.Helper()
	if r, ok := p.returns[q]; hasQuestion && ok {
		delete(p.returns, q)
		return returnOutcome(r)
	}
	for {
		m, err := p.recv()
		if errors.Is(err, errClosed) {
			return outcome{closed: true}
		}
		if err != nil {
			p.t.Fatalf("waiting for a refusal: %v\n%s", err, p.history())
		}
		switch m.Which() {
		case rpccp.Message_Which_abort:
			return outcome{abort: must(must(m.Abort()).Reason()), closed: true}
		case rpccp.Message_Which_return:
			r := must(m.Return())
			if !hasQuestion || r.AnswerId() != q {
				continue
			}
			delete(p.returns, q)
			return returnOutcome(r)
		}
	}
}

// returnOutcome is the outcome a Return for the question stands for.
func returnOutcome(r rpccp.Return) outcome {
	if r.Which() == rpccp.Return_Which_exception {
		return outcome{exception: must(must(r.Exception()).Reason())}
	}
	return outcome{results: true}
}

// awaitEnd waits until the engine closes its end, skipping whatever it
// sends first, and returns the Abort it sent on the way, if any.
func (p *peer) awaitEnd() (abort string, sent bool) {
	p.t.Helper()
	for {
		m, err := p.recv()
		if errors.Is(err, errClosed) {
			return abort, sent
		}
		if err != nil {
			p.t.Fatalf("waiting for the engine to close: %v\n%s", err, p.history())
		}
		if m.Which() == rpccp.Message_Which_abort {
			abort, sent = must(must(m.Abort()).Reason()), true
		}
	}
}

// awaitDone waits for the engine's Done channel.
func (p *peer) awaitDone() {
	p.t.Helper()
	select {
	case <-p.conn.Done():
	case <-time.After(hangGuard):
		p.t.Fatalf("Done not closed in %v\n%s", hangGuard, p.history())
	}
}

// history describes every message received so far, for failures.
func (p *peer) history() string {
	var b strings.Builder
	fmt.Fprintf(&b, "engine %s sent %d message(s):", p.e.name, len(p.seen))
	for i, m := range p.seen {
		fmt.Fprintf(&b, "\n  %d. %s", i+1, describe(m))
	}
	return b.String()
}

// describe is a one-line rendering of an RPC message.
func describe(m rpccp.Message) string {
	switch m.Which() {
	case rpccp.Message_Which_return:
		r := must(m.Return())
		s := fmt.Sprintf("Return answer=%d %s", r.AnswerId(), r.Which())
		if r.Which() == rpccp.Return_Which_exception {
			s += ": " + must(must(r.Exception()).Reason())
		}
		return s
	case rpccp.Message_Which_call:
		c := must(m.Call())
		return fmt.Sprintf("Call q=%d iface=%#x method=%d", c.QuestionId(), c.InterfaceId(), c.MethodId())
	case rpccp.Message_Which_finish:
		f := must(m.Finish())
		return fmt.Sprintf("Finish q=%d releaseResultCaps=%v", f.QuestionId(), f.ReleaseResultCaps())
	case rpccp.Message_Which_release:
		r := must(m.Release())
		return fmt.Sprintf("Release id=%d count=%d", r.Id(), r.ReferenceCount())
	case rpccp.Message_Which_abort:
		return "Abort: " + must(must(m.Abort()).Reason())
	case rpccp.Message_Which_unimplemented:
		return fmt.Sprintf("Unimplemented(%s)", must(m.Unimplemented()).Which())
	}
	return m.Which().String()
}

// must is for reading messages the engine sent: the pipe copies every
// message through Marshal/Unmarshal, so a read error is a bug in the
// harness or the engine's encoding, and it panics to show where.
func must[T any](v T, err error) T {
	if err != nil && !errors.Is(err, io.EOF) {
		panic(err)
	}
	return v
}

// closesWithin closes c and reports whether Close returned within d.
func closesWithin(c engineConn, d time.Duration) bool {
	closed := make(chan struct{})
	go func() {
		_ = c.Close()
		close(closed)
	}()
	select {
	case <-closed:
		return true
	case <-time.After(d):
		return false
	}
}
