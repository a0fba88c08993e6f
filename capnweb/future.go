package capnweb

import (
	"reflect"
	"time"
)

// future is a value not known yet: the answer to a push, a call inside
// an expression, a promise the peer exported, or the answer to one of our
// own pushes. It is resolved once; done is closed then, after which val,
// err and refs may be read (refs only under the session's lock).
type future struct {
	done chan struct{}
	val  Value
	err  error
	// refs are the references val holds (stubs, Targets), dropped with it.
	refs refs
	// root marks a push's answer: it counts as in flight until resolved,
	// and its size is charged to the session while it is kept.
	root    bool
	charged int64
	// nested marks a future with exactly one consumer, which takes its
	// own references to the value; the future's are then dropped.
	nested bool
	// dead marks a future nobody will read: its refs are dropped as soon
	// as it resolves.
	dead bool
}

func newFuture() *future { return &future{done: make(chan struct{})} }

func (f *future) resolved() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// pending stands in an evaluated tree for the value of fut at path until
// it is known; settle replaces it. It never reaches a Target.
type pending struct {
	fut  *future
	path []string
}

// refs are references a value holds on the session's tables: import ids
// of the peer's stubs (one local reference each) and local Targets (one
// hold each).
type refs struct {
	stubs   []int64
	targets []Target
}

// comparable reports whether t can key a map (pointers and plain values
// can; a func or a struct holding a map cannot).
func comparableTarget(t Target) bool {
	v := reflect.ValueOf(t)
	return v.IsValid() && v.Comparable()
}

// sizeOf estimates the bytes v takes when kept, for the memory budget.
func sizeOf(v Value, depth int) int64 {
	if depth > maxEncodeDepth {
		return 16
	}
	switch v := v.(type) {
	case string:
		return 16 + int64(len(v))
	case []byte:
		return 24 + int64(len(v))
	case []Value:
		n := int64(24)
		for _, e := range v {
			n += sizeOf(e, depth+1)
		}
		return n
	case *Object:
		if v == nil {
			return 8
		}
		n := int64(24)
		for _, f := range v.Fields {
			n += 16 + int64(len(f.Name)) + sizeOf(f.Value, depth+1)
		}
		return n
	case map[string]Value:
		n := int64(48)
		for k, e := range v {
			n += 16 + int64(len(k)) + sizeOf(e, depth+1)
		}
		return n
	case *Error:
		n := 48 + int64(len(v.Type)+len(v.Message))
		if v.Props != nil {
			n += sizeOf(v.Props, depth+1)
		}
		return n
	case time.Time:
		return 24
	}
	return 16
}
