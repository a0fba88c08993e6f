package capnweb

import "fmt"

// evalState collects what evaluating one expression tree produced: the
// references it holds and the pendings it waits for.
type evalState struct {
	refs refs
	pend []*pending
}

// eval evaluates x against the tables (under mu). The result may hold
// *pending values; settle replaces them. An error is a protoError.
func (s *session) eval(x any, ev *evalState) (Value, error) {
	switch x := x.(type) {
	case exArray:
		out := make([]Value, len(x))
		for i, e := range x {
			v, err := s.eval(e, ev)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *exObject:
		return s.evalObject(x, ev)
	case *exError:
		e := &Error{Type: x.typ, Message: x.msg}
		if x.props != nil {
			p, err := s.evalObject(x.props, ev)
			if err != nil {
				return nil, err
			}
			e.Props = p
		}
		return e, nil
	case *exRef:
		return s.evalRef(x, ev)
	case *exExport:
		return s.evalExport(x, ev)
	}
	return x, nil
}

func (s *session) evalObject(x *exObject, ev *evalState) (*Object, error) {
	o := &Object{Fields: make([]Field, len(x.names))}
	for i, name := range x.names {
		v, err := s.eval(x.vals[i], ev)
		if err != nil {
			return nil, err
		}
		o.Fields[i] = Field{Name: name, Value: v}
	}
	return o, nil
}

// evalRef evaluates a reference to our export x.id.
func (s *session) evalRef(x *exRef, ev *evalState) (Value, error) {
	e := s.exports[x.id]
	if e == nil {
		return nil, malformed("reference to an unknown id")
	}
	if x.call {
		return s.newCall(x, e, ev)
	}
	if e.target != nil {
		if len(x.path) > 0 {
			return s.rejected(ev, propertyOfTarget(x.path[0])), nil
		}
		s.holdTarget(e.target)
		ev.refs.targets = append(ev.refs.targets, e.target)
		return e.target, nil
	}
	p := &pending{fut: e.fut, path: x.path}
	ev.pend = append(ev.pend, p)
	return p, nil
}

// rejected is a pending already failed with err.
func (s *session) rejected(ev *evalState, err error) *pending {
	f := newFuture()
	f.err = err
	close(f.done)
	p := &pending{fut: f}
	ev.pend = append(ev.pend, p)
	return p
}

func propertyOfTarget(name string) error {
	return &Error{Type: "TypeError", Message: fmt.Sprintf(
		"capnweb: cannot read property %s of an RPC object; only calls of its methods are supported", quoteName(name))}
}

// evalExport evaluates a stub or promise the peer exports to us.
func (s *session) evalExport(x *exExport, ev *evalState) (Value, error) {
	e := s.imports[x.id]
	if x.promise && e != nil {
		return nil, malformed("promise reusing an id")
	}
	if e == nil {
		if s.peerImports >= s.o.MaxImports {
			return nil, &protoError{limit: "imports", msg: "too many imports"}
		}
		e = &importEntry{peer: true}
		s.imports[x.id] = e
		s.peerImports++
	}
	e.remote++
	if x.promise {
		e.fut = newFuture()
		e.fut.nested = true
		e.pulled = true // the peer resolves it unasked
		p := &pending{fut: e.fut}
		ev.pend = append(ev.pend, p)
		return p, nil
	}
	e.local++
	ev.refs.stubs = append(ev.refs.stubs, x.id)
	return &Stub{s: s, id: x.id}, nil
}

// settle resolves fut with tree once every pending in it is known.
func (s *session) settle(fut *future, tree Value, ev *evalState) {
	if len(ev.pend) == 0 {
		s.finishSettle(fut, tree, ev)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, p := range ev.pend {
			select {
			case <-p.fut.done:
			case <-s.ctx.Done():
				return
			}
		}
		s.mu.Lock()
		defer s.unlock()
		s.finishSettle(fut, tree, ev)
	}()
}

// finishSettle (under mu, every pending resolved) substitutes the
// pendings of tree and resolves fut.
func (s *session) finishSettle(fut *future, tree Value, ev *evalState) {
	v, err := s.substitute(tree, &ev.refs)
	s.dropNested(ev.pend)
	if r, ok := v.(rejection); ok && err == nil {
		err = rejectionError(r.v)
	}
	if err != nil {
		s.dropRefs(ev.refs)
		s.resolveLocked(fut, nil, err, refs{})
		return
	}
	s.resolveLocked(fut, v, nil, ev.refs)
}

// dropNested drops the references of the single-consumer futures among
// pend, whose consumer has taken its own.
func (s *session) dropNested(pend []*pending) {
	for _, p := range pend {
		if p.fut.nested {
			s.dropRefs(p.fut.refs)
			p.fut.refs = refs{}
		}
	}
}

// substitute replaces, in place, each pending of v by its value, taking
// references to what it holds into r. The first rejection met is the
// error.
func (s *session) substitute(v Value, r *refs) (Value, error) {
	switch x := v.(type) {
	case *pending:
		if x.fut.err != nil {
			return nil, x.fut.err
		}
		val, err := navigate(x.fut.val, x.path)
		if err != nil {
			return nil, err
		}
		val = normalize(val, 0)
		s.holdValue(val, r, 0)
		return val, nil
	case []Value:
		for i := range x {
			e, err := s.substitute(x[i], r)
			if err != nil {
				return nil, err
			}
			x[i] = e
		}
	case *Object:
		for i := range x.Fields {
			e, err := s.substitute(x.Fields[i].Value, r)
			if err != nil {
				return nil, err
			}
			x.Fields[i].Value = e
		}
	case *Error:
		if x.Props != nil {
			if _, err := s.substitute(x.Props, r); err != nil {
				return nil, err
			}
		}
	case rejection:
		inner, err := s.substitute(x.v, r)
		return rejection{inner}, err
	}
	return v, nil
}

// holdValue takes one reference to each stub and Target in v into r.
func (s *session) holdValue(v Value, r *refs, depth int) {
	if depth > maxEncodeDepth {
		return
	}
	switch x := v.(type) {
	case *Stub:
		if x.s == s {
			if e := s.imports[x.id]; e != nil {
				e.local++
				r.stubs = append(r.stubs, x.id)
			}
		}
	case []Value:
		for _, e := range x {
			s.holdValue(e, r, depth+1)
		}
	case *Object:
		if x != nil {
			for _, f := range x.Fields {
				s.holdValue(f.Value, r, depth+1)
			}
		}
	case map[string]Value:
		for _, e := range x {
			s.holdValue(e, r, depth+1)
		}
	case *Error:
		if x.Props != nil {
			s.holdValue(x.Props, r, depth+1)
		}
	case Target:
		s.holdTarget(x)
		r.targets = append(r.targets, x)
	}
}

// dropRefs gives back the references in r.
func (s *session) dropRefs(r refs) {
	for _, id := range r.stubs {
		s.dropStub(id)
	}
	for _, t := range r.targets {
		s.dropTarget(t)
	}
}

// dropStub gives back one local reference to import id; the last one
// releases it to the peer.
func (s *session) dropStub(id int64) {
	e := s.imports[id]
	if e == nil || e.local <= 0 {
		return
	}
	e.local--
	if e.local == 0 && id != 0 {
		s.releaseImport(id, e)
	}
}

func (s *session) holdTarget(t Target) {
	if s.holds != nil && comparableTarget(t) {
		s.holds[t]++
	}
}

// dropTarget gives back one hold on t; the last one queues its Release.
func (s *session) dropTarget(t Target) {
	if s.holds == nil || !comparableTarget(t) {
		return
	}
	n, ok := s.holds[t]
	if !ok {
		return
	}
	if n > 1 {
		s.holds[t] = n - 1
		return
	}
	delete(s.holds, t)
	if r, ok := t.(Releaser); ok {
		s.rel = append(s.rel, r)
	}
}

// resolveLocked resolves fut (under mu).
func (s *session) resolveLocked(fut *future, v Value, err error, r refs) {
	if fut.resolved() {
		s.dropRefs(r)
		return
	}
	fut.val, fut.err, fut.refs = v, err, r
	if fut.root {
		s.inflight--
		if !fut.dead {
			fut.charged = sizeOf(v, 0)
			if s.meter.Charge(fut.charged) != nil {
				fut.charged = 0
			}
		}
	}
	close(fut.done)
	if fut.dead {
		s.dropRefs(r)
		fut.refs = refs{}
	}
}

// encodeLocked encodes v between prefix and "]", exporting the Targets
// it holds; on error the exports it made are undone.
func (s *session) encodeLocked(prefix string, v Value) ([]byte, error) {
	ex := &txExporter{s: s}
	e := encoder{buf: []byte(prefix), ex: ex}
	if err := e.value(v, 0); err != nil {
		ex.rollback()
		return nil, err
	}
	e.raw("]")
	return e.buf, nil
}

// txExporter exports for one encoding, remembering what to undo.
type txExporter struct {
	s   *session
	ids []int64
}

func (x *txExporter) exportTarget(t Target) (int64, error) {
	s := x.s
	if comparableTarget(t) {
		if id, ok := s.byTarget[t]; ok {
			s.exports[id].refs++
			x.ids = append(x.ids, id)
			return id, nil
		}
	}
	if len(s.exports) >= s.o.MaxExports {
		return 0, &protoError{limit: "exports", msg: "too many exports"}
	}
	id := s.nextExport
	s.nextExport--
	s.exports[id] = &exportEntry{refs: 1, target: t}
	s.holdTarget(t)
	if comparableTarget(t) {
		s.byTarget[t] = id
	}
	x.ids = append(x.ids, id)
	return id, nil
}

func (x *txExporter) importID(st *Stub) (int64, error) {
	if st.s != x.s {
		return 0, fmt.Errorf("capnweb: a stub of another session cannot be sent")
	}
	if x.s.imports[st.id] == nil {
		return 0, fmt.Errorf("capnweb: a released stub cannot be sent")
	}
	return st.id, nil
}

func (x *txExporter) promiseID(p *Promise) (int64, error) {
	if p.s != x.s || p.err != nil {
		return 0, fmt.Errorf("capnweb: a promise of another session cannot be sent")
	}
	if e := x.s.imports[p.id]; e == nil || e.fut != p.fut {
		return 0, fmt.Errorf("capnweb: a settled or released promise cannot be sent; send its value")
	}
	return p.id, nil
}

func (x *txExporter) rollback() {
	for _, id := range x.ids {
		if e := x.s.exports[id]; e != nil {
			e.refs--
			if e.refs == 0 {
				x.s.dropExport(id, e)
			}
		}
	}
}
