package capnweb

import (
	"fmt"
	"strings"
	"sync"
)

// callItem is one call the peer asked for, waiting to be delivered.
type callItem struct {
	key    int64    // the export it is made on: calls on one key keep their order
	target Target   // the receiver, when it is a Target export, else
	recv   *future  // the answer it is pipelined on
	path   []string // property path to the function
	args   []Value  // evaluated arguments (may hold pendings)
	ev     *evalState
	result *future
	fwd    *future // a forwarded call's own answer, whose refs go once taken
}

// newCall starts a call on export e (under mu) and returns the pending
// for its result.
func (s *session) newCall(x *exRef, e *exportEntry, ev *evalState) (Value, error) {
	argEv := &evalState{}
	args := make([]Value, len(x.args))
	for i, a := range x.args {
		v, err := s.eval(a, argEv)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	c := &callItem{key: x.id, target: e.target, recv: e.fut, path: x.path, args: args, ev: argEv}
	c.result = newFuture()
	c.result.nested = true
	if c.target != nil {
		s.holdTarget(c.target)
		argEv.refs.targets = append(argEv.refs.targets, c.target)
	}
	prev := s.order[x.id]
	mine := make(chan struct{})
	s.order[x.id] = mine
	s.wg.Add(1)
	go s.runCall(c, prev, mine)
	p := &pending{fut: c.result}
	ev.pend = append(ev.pend, p)
	return p, nil
}

// runCall waits for the call before it on the same key and for its
// receiver, then (once its arguments are known) hands it to the dispatch
// goroutine. The next call on the key goes once this one is delivered.
func (s *session) runCall(c *callItem, prev, mine chan struct{}) {
	defer s.wg.Done()
	var once sync.Once
	next := func() { once.Do(func() { s.delivered(c.key, mine) }) }
	defer next() // when the call fails or the session ends first
	if !s.waitAll(prev, c.recv, nil) {
		return
	}
	if len(c.ev.pend) > 0 {
		// As in capnweb, a call whose arguments are still promises does
		// not hold up the calls after it on the same receiver (it would
		// deadlock if they are what resolves those promises).
		next()
		if !s.waitAll(nil, nil, c.ev.pend) {
			return
		}
	}
	s.mu.Lock()
	target, stub, method, err := s.prepareCall(c)
	if err != nil {
		s.dropRefs(c.ev.refs)
		s.resolveLocked(c.result, nil, err, refs{})
		s.unlock()
		return
	}
	s.unlock()
	deliver := func() {
		var ans Answer
		if stub != nil {
			ans, c.fwd = s.forward(stub, method, c.args)
		} else {
			ans = s.safeCall(target, method, c.args)
		}
		next()
		s.wg.Add(1)
		go s.awaitAnswer(c, ans)
	}
	select {
	case s.dispatch <- deliver:
	case <-s.ctx.Done():
		s.mu.Lock()
		s.dropRefs(c.ev.refs)
		s.unlock()
	}
}

// waitAll waits for prev to close and each future to resolve; false when
// the session ended first.
func (s *session) waitAll(prev chan struct{}, recv *future, pend []*pending) bool {
	if prev != nil {
		select {
		case <-prev:
		case <-s.ctx.Done():
			return false
		}
	}
	if recv != nil {
		select {
		case <-recv.done:
		case <-s.ctx.Done():
			return false
		}
	}
	for _, p := range pend {
		select {
		case <-p.fut.done:
		case <-s.ctx.Done():
			return false
		}
	}
	return true
}

// prepareCall (under mu, everything resolved) substitutes the arguments
// and finds what to call: a Target and method, or a peer's stub.
func (s *session) prepareCall(c *callItem) (Target, *Stub, string, error) {
	for i := range c.args {
		v, err := s.substitute(c.args[i], &c.ev.refs)
		if err != nil {
			s.dropNested(c.ev.pend)
			return nil, nil, "", err
		}
		c.args[i] = v
	}
	s.dropNested(c.ev.pend)
	recv := Value(c.target)
	if c.target == nil {
		if c.recv.err != nil {
			return nil, nil, "", c.recv.err
		}
		recv = c.recv.val
	}
	target, stub, method, err := findCallee(recv, c.path)
	if err != nil {
		return nil, nil, "", err
	}
	if target != nil && c.target == nil {
		s.holdTarget(target) // kept alive until the answer returns
		c.ev.refs.targets = append(c.ev.refs.targets, target)
	}
	if stub != nil {
		s.holdValue(stub, &c.ev.refs, 0)
	}
	return target, stub, method, nil
}

// findCallee follows path from v to a Target (or stub) and the method to
// call on it ("" to call it as a function).
func findCallee(v Value, path []string) (Target, *Stub, string, error) {
	for i := 0; i <= len(path); i++ {
		rest := path[i:]
		switch x := v.(type) {
		case *Stub:
			return nil, x, strings.Join(rest, "."), nil
		case Target:
			if len(rest) > 1 {
				return nil, nil, "", propertyOfTarget(rest[0])
			}
			if len(rest) == 1 {
				return x, nil, rest[0], nil
			}
			return x, nil, "", nil
		}
		if i == len(path) {
			break
		}
		next, err := navigate(v, path[i:i+1])
		if err != nil {
			return nil, nil, "", err
		}
		v = next
	}
	return nil, nil, "", &Error{Type: "TypeError", Message: "'" + SafeName(strings.Join(path, ".")) + "' is not a function."}
}

// delivered lets the next call on key go.
func (s *session) delivered(key int64, mine chan struct{}) {
	close(mine)
	s.mu.Lock()
	if s.order[key] == mine {
		delete(s.order, key)
	}
	s.unlock()
}

// safeCall calls t.Call, turning a panic into a rejected answer.
func (s *session) safeCall(t Target, method string, args []Value) (ans Answer) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("capnweb: Target.Call panicked", "method", SafeName(method), "panic", fmt.Sprint(p))
			ans = Returning(nil, &Error{Type: "Error", Message: "internal error"})
		}
	}()
	ans = t.Call(s.ctx, method, args)
	if ans == nil {
		ans = Returning(Undefined, nil)
	}
	return ans
}

// awaitAnswer waits for a call's answer and resolves its future.
func (s *session) awaitAnswer(c *callItem, ans Answer) {
	defer s.wg.Done()
	v, err := s.safeAnswer(ans)
	s.mu.Lock()
	defer s.unlock()
	var r refs
	if err == nil {
		s.holdValue(v, &r, 0)
	}
	s.dropRefs(c.ev.refs)
	if c.fwd != nil {
		s.dropRefs(c.fwd.refs)
		c.fwd.refs = refs{}
	}
	s.resolveLocked(c.result, v, err, r)
}

func (s *session) safeAnswer(ans Answer) (v Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("capnweb: Answer panicked", "panic", fmt.Sprint(p))
			v, err = nil, &Error{Type: "Error", Message: "internal error"}
		}
	}()
	return ans()
}

// forward makes a call the peer pipelined onto one of its own stubs.
// Its answer's value is the future's own (not copied for a caller): the
// references it holds are dropped once awaitAnswer has taken its own.
func (s *session) forward(st *Stub, method string, args []Value) (Answer, *future) {
	var path []string
	if method != "" {
		path = strings.Split(method, ".")
	}
	p := s.push(st.id, nil, path, args, &chain{})
	return func() (Value, error) {
		if p.err != nil {
			return nil, p.err
		}
		s.mu.Lock()
		s.pullLocked(p)
		s.unlock()
		select {
		case <-p.fut.done:
			return p.fut.val, p.fut.err
		case <-s.ctx.Done():
			return nil, s.closedErr()
		}
	}, p.fut
}
