package capnweb

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxEncodeDepth bounds the nesting of a value we send (a cycle of
// *Objects would otherwise never end).
const maxEncodeDepth = 512

// maxSafeInt is 2^53-1, the largest integer a JavaScript number holds
// exactly.
const maxSafeInt = 1<<53 - 1

// exporter is what the encoder needs from a session: an id for a local
// Target (exported, one more reference) and the id of a peer's stub.
type exporter interface {
	exportTarget(t Target) (int64, error)
	importID(st *Stub) (int64, error)
	promiseID(p *Promise) (int64, error)
}

// encoder writes values as Cap'n Web expressions.
type encoder struct {
	buf []byte
	ex  exporter // nil: stubs and Targets cannot be encoded
}

func (e *encoder) raw(s string) { e.buf = append(e.buf, s...) }

func (e *encoder) value(v Value, depth int) error {
	if depth > maxEncodeDepth {
		return errors.New("capnweb: value nested too deeply (a cycle?)")
	}
	switch v := v.(type) {
	case nil:
		e.raw("null")
	case undefined:
		e.raw(`["undefined"]`)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case string:
		e.buf = appendString(e.buf, v)
	case json.Number:
		if !validNumber(string(v)) {
			return errors.New("capnweb: a json.Number that is not a number cannot be sent")
		}
		e.raw(string(v))
	case float64:
		e.float(v)
	case float32:
		e.float(float64(v))
	case []Value:
		return e.array(v, depth)
	case *Object:
		return e.object(v, depth)
	case map[string]Value:
		return e.mapValue(v, depth)
	case *big.Int:
		e.bigint(v.String())
	case []byte:
		e.raw(`["bytes",`)
		e.buf = appendString(e.buf, base64.RawStdEncoding.EncodeToString(v))
		e.raw("]")
	case time.Time:
		e.date(v)
	case *Error:
		return e.error(v, depth)
	case *Stub:
		return e.stub(v)
	case *Promise:
		return e.promise(v)
	default:
		return e.other(v, depth)
	}
	return nil
}

// other encodes Go integers, Targets and plain errors.
func (e *encoder) other(v Value, depth int) error {
	if n, ok := signed(v); ok {
		e.integer(big.NewInt(n))
		return nil
	}
	if n, ok := unsigned(v); ok {
		e.integer(new(big.Int).SetUint64(n))
		return nil
	}
	if t, ok := v.(Target); ok {
		if e.ex == nil {
			return errors.New("capnweb: an RPC object cannot be sent here")
		}
		id, err := e.ex.exportTarget(t)
		if err != nil {
			return err
		}
		e.buf = fmt.Appendf(e.buf, `["export",%d]`, id)
		return nil
	}
	if err, ok := v.(error); ok {
		return e.error(toError(err), depth)
	}
	return fmt.Errorf("capnweb: cannot send a value of type %T", v)
}

func signed(v Value) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

func unsigned(v Value) (uint64, bool) {
	switch n := v.(type) {
	case uint:
		return uint64(n), true
	case uint8:
		return uint64(n), true
	case uint16:
		return uint64(n), true
	case uint32:
		return uint64(n), true
	case uint64:
		return n, true
	case uintptr:
		return uint64(n), true
	}
	return 0, false
}

// integer sends n as a number when JavaScript holds it exactly, else as
// a bigint.
func (e *encoder) integer(n *big.Int) {
	if n.IsInt64() && n.Int64() <= maxSafeInt && n.Int64() >= -maxSafeInt {
		e.buf = n.Append(e.buf, 10)
		return
	}
	e.bigint(n.String())
}

func (e *encoder) bigint(s string) {
	e.raw(`["bigint",`)
	e.buf = appendString(e.buf, s)
	e.raw("]")
}

func (e *encoder) float(f float64) {
	switch {
	case math.IsNaN(f):
		e.raw(`["nan"]`)
	case math.IsInf(f, 1):
		e.raw(`["inf"]`)
	case math.IsInf(f, -1):
		e.raw(`["-inf"]`)
	default:
		e.buf = strconv.AppendFloat(e.buf, f, 'g', -1, 64)
	}
}

func (e *encoder) date(t time.Time) {
	if t.IsZero() {
		e.raw(`["date",null]`)
		return
	}
	ms := float64(t.UnixNano()) / 1e6
	if t.Nanosecond()%1e6 == 0 {
		ms = float64(t.UnixMilli())
	}
	e.raw(`["date",`)
	e.buf = strconv.AppendFloat(e.buf, ms, 'f', -1, 64)
	e.raw("]")
}

func (e *encoder) array(a []Value, depth int) error {
	e.raw("[[")
	for i, v := range a {
		if i > 0 {
			e.raw(",")
		}
		if err := e.value(v, depth+1); err != nil {
			return err
		}
	}
	e.raw("]]")
	return nil
}

func (e *encoder) object(o *Object, depth int) error {
	e.raw("{")
	if o != nil {
		for i, f := range o.Fields {
			if err := e.field(i, f.Name, f.Value, depth); err != nil {
				return err
			}
		}
	}
	e.raw("}")
	return nil
}

func (e *encoder) mapValue(m map[string]Value, depth int) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	e.raw("{")
	for i, k := range names {
		if err := e.field(i, k, m[k], depth); err != nil {
			return err
		}
	}
	e.raw("}")
	return nil
}

func (e *encoder) field(i int, name string, v Value, depth int) error {
	if i > 0 {
		e.raw(",")
	}
	e.buf = appendString(e.buf, name)
	e.raw(":")
	return e.value(v, depth+1)
}

// error encodes err without a stack; props, when present, after a null
// stack.
func (e *encoder) error(err *Error, depth int) error {
	typ := err.Type
	if typ == "" {
		typ = "Error"
	}
	e.raw(`["error",`)
	e.buf = appendString(e.buf, typ)
	e.raw(",")
	e.buf = appendString(e.buf, err.Message)
	if err.Props != nil {
		e.raw(",null,")
		if perr := e.object(err.Props, depth); perr != nil {
			return perr
		}
	}
	e.raw("]")
	return nil
}

func (e *encoder) stub(st *Stub) error {
	if e.ex == nil {
		return errors.New("capnweb: a stub cannot be sent here")
	}
	id, err := e.ex.importID(st)
	if err != nil {
		return err
	}
	e.buf = fmt.Appendf(e.buf, `["import",%d]`, id)
	return nil
}

func (e *encoder) promise(p *Promise) error {
	if e.ex == nil {
		return errors.New("capnweb: a promise cannot be sent here")
	}
	id, err := e.ex.promiseID(p)
	if err != nil {
		return err
	}
	e.buf = fmt.Appendf(e.buf, `["pipeline",%d,[`, id)
	for i, name := range p.path {
		if i > 0 {
			e.raw(",")
		}
		e.buf = appendString(e.buf, name)
	}
	e.raw("]]")
	return nil
}

// toError is how an error reaches the peer: an *Error as it is, any other
// error as a plain Error with its text.
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Type: "Error", Message: err.Error()}
}

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && s[start] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
