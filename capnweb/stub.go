package capnweb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// Stub is an object or function the peer exported: a Target argument, a
// value in a Stub.Call result, or a Client's Main. Its methods are safe
// from any goroutine.
//
// A Stub found in a Target's arguments lives until the Answer returns;
// Keep gives a reference that outlives it. Stubs in a value returned by
// Call or Promise.Await are the caller's: Release each when done.
type Stub struct {
	s        *session
	id       int64
	owned    bool // Release gives back a reference (Keep, results)
	released atomic.Bool
}

// errBatchCallback is the error of a call on a client's stub in an HTTP
// batch session, where the client cannot answer.
var errBatchCallback = &Error{Type: "Error", Message: "capnweb: calls back to the client's objects are not possible in an HTTP batch session; use a WebSocket"}

// Call calls method on the stub ("" calls the stub itself as a function)
// and waits for the answer. A rejection comes back as *Error.
func (st *Stub) Call(ctx context.Context, method string, args ...Value) (Value, error) {
	p := st.Pipe(method, args...)
	defer p.Release()
	return p.Await(ctx)
}

// Pipe calls method on the stub without waiting: the call is sent at
// once, and the Promise can be pipelined on before it is awaited.
func (st *Stub) Pipe(method string, args ...Value) *Promise {
	var path []string
	if method != "" {
		path = []string{method}
	}
	return st.s.push(st.id, nil, path, args, &chain{})
}

// Keep returns a new reference to the stub, which the caller must
// Release. A Target that holds a stub it received as an argument beyond
// its Answer keeps it.
func (st *Stub) Keep() *Stub {
	s := st.s
	k := &Stub{s: s, id: st.id, owned: true}
	s.mu.Lock()
	defer s.unlock()
	if e := s.imports[st.id]; e != nil && !s.isDone() {
		e.local++
	} else {
		k.released.Store(true)
	}
	return k
}

// Release gives back this reference (a no-op for a stub the session
// owns, such as an argument not kept, or a Client's Main). Idempotent.
func (st *Stub) Release() {
	if !st.owned || !st.released.CompareAndSwap(false, true) {
		return
	}
	st.s.mu.Lock()
	defer st.s.unlock()
	if !st.s.isDone() {
		st.s.dropStub(st.id)
	}
}

// Promise is the answer of a call not awaited yet. Calls pipelined on it
// (Pipe) are sent at once, before its answer is known.
type Promise struct {
	s     *session
	id    int64    // our import id for the push
	path  []string // property path into its answer
	fut   *future
	err   error // set when the call could not be sent
	chain *chain
}

// chain is the pushes of one pipeline, released together.
type chain struct {
	futs     map[int64]*future
	released bool
}

// push sends ["push", ["pipeline", ref, refPath+path, args]] and
// returns its Promise.
func (s *session) push(ref int64, refPath, path []string, args []Value, ch *chain) *Promise {
	if s.batch {
		return &Promise{s: s, err: errBatchCallback, chain: ch}
	}
	s.mu.Lock()
	defer s.unlock()
	if s.isDone() {
		return &Promise{s: s, err: s.closedErr(), chain: ch}
	}
	if s.imports[ref] == nil || ch.released {
		return &Promise{s: s, err: errors.New("capnweb: call on a released stub or promise"), chain: ch}
	}
	frame, err := s.encodePush(ref, append(append([]string(nil), refPath...), path...), args)
	if err != nil {
		if limitOf(err) == "exports" {
			s.failProto(err)
		}
		return &Promise{s: s, err: err, chain: ch}
	}
	s.lastImport++
	p := &Promise{s: s, id: s.lastImport, fut: newFuture(), chain: ch}
	s.imports[p.id] = &importEntry{remote: 1, local: 1, fut: p.fut}
	if ch.futs == nil {
		ch.futs = map[int64]*future{}
	}
	ch.futs[p.id] = p.fut
	s.sendLocked(frame)
	return p
}

func (s *session) encodePush(ref int64, path []string, args []Value) ([]byte, error) {
	ex := &txExporter{s: s}
	e := encoder{ex: ex}
	e.buf = fmt.Appendf(e.buf, `["push",["pipeline",%d,[`, ref)
	for i, name := range path {
		if i > 0 {
			e.raw(",")
		}
		e.buf = appendString(e.buf, name)
	}
	e.raw("],[")
	for i, a := range args {
		if i > 0 {
			e.raw(",")
		}
		if err := e.value(a, 1); err != nil {
			ex.rollback()
			return nil, err
		}
	}
	e.raw("]]]")
	return e.buf, nil
}

// Get is the property path of the answer (nothing is sent).
func (p *Promise) Get(path ...string) *Promise {
	q := *p
	q.path = append(append([]string(nil), p.path...), path...)
	return &q
}

// Pipe calls method on the answer (at p's path) without waiting for it.
func (p *Promise) Pipe(method string, args ...Value) *Promise {
	if p.err != nil {
		return p
	}
	var path []string
	if method != "" {
		path = []string{method}
	}
	return p.s.push(p.id, p.path, path, args, p.chain)
}

// Await waits for the answer and returns the value at p's path. Stubs
// in it are the caller's to Release.
func (p *Promise) Await(ctx context.Context) (Value, error) {
	if p.err != nil {
		return nil, p.err
	}
	s := p.s
	s.mu.Lock()
	s.pullLocked(p)
	s.unlock()
	select {
	case <-p.fut.done:
	case <-ctx.Done():
		p.Release()
		return nil, ctx.Err()
	case <-s.done:
		return nil, s.closedErr()
	}
	if p.fut.err != nil {
		return nil, p.fut.err
	}
	s.mu.Lock()
	defer s.unlock()
	v, err := navigate(p.fut.val, p.path)
	if err != nil {
		return nil, err
	}
	return s.ownCopy(v, 0), nil
}

// pullLocked asks for p's answer once.
func (s *session) pullLocked(p *Promise) {
	if e := s.imports[p.id]; e != nil && e.fut == p.fut && !e.pulled {
		e.pulled = true
		s.sendLocked(fmt.Appendf(nil, `["pull",%d]`, p.id))
	}
}

// Release lets go of every call of p's pipeline (Stub.Call does it
// itself). Idempotent.
func (p *Promise) Release() {
	s := p.s
	s.mu.Lock()
	defer s.unlock()
	ch := p.chain
	if ch.released {
		return
	}
	ch.released = true
	for id, f := range ch.futs {
		if e := s.imports[id]; e != nil && e.fut == f {
			s.releaseImport(id, e)
		}
		s.killFuture(f)
	}
}

// ownCopy copies v for a caller, each stub in it a reference of its own.
func (s *session) ownCopy(v Value, depth int) Value {
	if depth > maxEncodeDepth {
		return v
	}
	switch x := v.(type) {
	case *Stub:
		if x.s == s {
			if e := s.imports[x.id]; e != nil && !s.isDone() {
				e.local++
				return &Stub{s: s, id: x.id, owned: true}
			}
		}
		return x
	case []Value:
		out := make([]Value, len(x))
		for i, e := range x {
			out[i] = s.ownCopy(e, depth+1)
		}
		return out
	case *Object:
		if x == nil {
			return x
		}
		o := &Object{Fields: make([]Field, len(x.Fields))}
		for i, f := range x.Fields {
			o.Fields[i] = Field{Name: f.Name, Value: s.ownCopy(f.Value, depth+1)}
		}
		return o
	case *Error:
		c := *x
		if x.Props != nil {
			c.Props, _ = s.ownCopy(x.Props, depth+1).(*Object)
		}
		return &c
	}
	return v
}
