package capnweb

import "context"

// Target is a local object the session exports to the peer: the main
// interface (import id 0 on the peer's side) and every Target found in a
// result. The session calls Call for each call the peer makes on it.
//
// Call is invoked on the session's dispatch order: calls the peer sent
// on one Target reach it in the order they were sent (E-order), calls
// pipelined on a promise in order once it resolves. Call must therefore
// not block: it starts the call and returns an Answer, which the session
// waits for on its own goroutine. ctx ends when the session ends.
//
// method is the property called ("" when the peer calls the stub itself
// as a function); args are the evaluated arguments. Stubs among args are
// released by the session when the Answer returns, unless the Target
// kept them (Stub.Keep).
type Target interface {
	Call(ctx context.Context, method string, args []Value) Answer
}

// Answer waits for a call's result. It is called once, off the dispatch
// order.
type Answer func() (Value, error)

// Releaser is implemented by Targets that hold resources: the session
// calls Release once, when the peer has released every reference to the
// Target (or the session ended), and never calls the Target again.
type Releaser interface {
	Release()
}

// Returning is a convenience Answer for a result known at once.
func Returning(v Value, err error) Answer { return func() (Value, error) { return v, err } }
