package capnweb

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// An expression, as read from a message, is either a Value with no
// references (nil, bool, json.Number, string, Undefined, float64,
// *big.Int, []byte, time.Time) or one of the ex* nodes below. Reading an
// expression has no side effect; evaluating it (eval.go) touches the
// session's tables.

// exArray is an escaped array [[…]].
type exArray []any

// exObject is an object whose fields are expressions.
type exObject struct {
	names []string
	vals  []any
}

// exError is ["error", type, message, stack?, props?].
type exError struct {
	typ, msg string
	props    *exObject
}

// exRef is ["import"|"pipeline", id, path?, args?]: a reference to an
// entry of the receiver's export table, maybe a property of it, maybe a
// call of that property.
type exRef struct {
	pipeline bool
	id       int64
	path     []string
	call     bool
	args     []any
}

// exExport is ["export"|"promise", id]: an entry of the sender's export
// table, new or introduced again.
type exExport struct {
	promise bool
	id      int64
}

// unsupportedError names a protocol feature this engine does not
// implement; a push using it is rejected, the session goes on.
type unsupportedError struct{ feature string }

func (e *unsupportedError) Error() string {
	return "capnweb: " + e.feature + " is not supported by this server"
}

// unsupportedTags are the expression tags of capnweb 0.12 left out.
var unsupportedTags = map[string]bool{
	"remap": true, "stream": true, "pipe": true, "writable": true, "readable": true,
	"blob": true, "request": true, "response": true, "headers": true, "url": true,
}

// maxBigIntDigits bounds the text of a ["bigint", …] (as capnweb does).
const maxBigIntDigits = 16384

// maxID bounds every id a peer may send: 2^53, JavaScript's safe range.
const maxID = 1 << 53

// readExpr reads raw (a parsed JSON value) as an expression.
func readExpr(raw any) (any, error) {
	switch v := raw.(type) {
	case *Object:
		return readObject(v)
	case rawArray:
		return readArrayExpr(v)
	default:
		return v, nil
	}
}

func readObject(o *Object) (*exObject, error) {
	x := &exObject{names: make([]string, len(o.Fields)), vals: make([]any, len(o.Fields))}
	for i, f := range o.Fields {
		v, err := readExpr(f.Value)
		if err != nil {
			return nil, err
		}
		x.names[i], x.vals[i] = f.Name, v
	}
	return x, nil
}

func readArrayExpr(a rawArray) (any, error) {
	if len(a) == 1 {
		if inner, ok := a[0].(rawArray); ok {
			return readList(inner)
		}
	}
	if len(a) == 0 {
		return nil, malformed("empty array expression")
	}
	tag, ok := a[0].(string)
	if !ok {
		return nil, malformed("array expression without a type")
	}
	return readTagged(tag, a)
}

// readList reads the elements of an escaped array (or call arguments).
func readList(a rawArray) (exArray, error) {
	out := make(exArray, len(a))
	for i, e := range a {
		v, err := readExpr(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func readTagged(tag string, a rawArray) (any, error) {
	switch tag {
	case "undefined":
		return Undefined, nil
	case "inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	case "nan":
		return math.NaN(), nil
	case "bigint":
		return readBigInt(a)
	case "date":
		return readDate(a)
	case "bytes":
		return readBytes(a)
	case "error":
		return readError(a)
	case "import", "pipeline":
		return readRef(tag == "pipeline", a)
	case "export", "promise":
		if len(a) != 2 {
			return nil, malformed("bad %s expression", tag)
		}
		id, err := readID(a[1])
		if err != nil {
			return nil, err
		}
		if id >= 0 {
			return nil, malformed("%s of a non-negative id", tag)
		}
		return &exExport{promise: tag == "promise", id: id}, nil
	}
	if unsupportedTags[tag] {
		return nil, &unsupportedError{feature: tag}
	}
	return nil, &unsupportedError{feature: "the expression type " + quoteName(tag)}
}

func readBigInt(a rawArray) (any, error) {
	s, ok := at(a, 1).(string)
	if !ok || len(a) != 2 || len(strings.TrimPrefix(s, "-")) > maxBigIntDigits {
		return nil, malformed("bad bigint")
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, malformed("bad bigint")
	}
	return n, nil
}

func readDate(a rawArray) (any, error) {
	if len(a) != 2 {
		return nil, malformed("bad date")
	}
	if a[1] == nil {
		return time.Time{}, nil // an invalid Date
	}
	n, ok := a[1].(json.Number)
	if !ok {
		return nil, malformed("bad date")
	}
	ms, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.Abs(ms) > 8.64e15 { // JavaScript's Date range
		return nil, malformed("bad date")
	}
	whole := math.Trunc(ms)
	return time.UnixMilli(int64(whole)).Add(time.Duration((ms - whole) * 1e6)).UTC(), nil
}

func readBytes(a rawArray) (any, error) {
	s, ok := at(a, 1).(string)
	if !ok || len(a) > 3 {
		return nil, malformed("bad bytes")
	}
	if len(a) == 3 {
		if _, ok := a[2].(string); !ok {
			return nil, malformed("bad bytes")
		}
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, malformed("bad base64 in bytes")
	}
	return b, nil
}

func readError(a rawArray) (any, error) {
	typ, ok1 := at(a, 1).(string)
	msg, ok2 := at(a, 2).(string)
	if !ok1 || !ok2 || len(a) > 5 {
		return nil, malformed("bad error")
	}
	x := &exError{typ: typ, msg: msg}
	if len(a) == 5 {
		props, ok := a[4].(*Object)
		if !ok {
			return nil, malformed("bad error properties")
		}
		p, err := readObject(props)
		if err != nil {
			return nil, err
		}
		x.props = p
	}
	return x, nil
}

func readRef(pipeline bool, a rawArray) (any, error) {
	if len(a) < 2 || len(a) > 4 {
		return nil, malformed("bad import expression")
	}
	id, err := readID(a[1])
	if err != nil {
		return nil, err
	}
	ref := &exRef{pipeline: pipeline, id: id}
	if len(a) >= 3 {
		if ref.path, err = readPath(a[2]); err != nil {
			return nil, err
		}
	}
	if len(a) == 4 {
		args, ok := a[3].(rawArray)
		if !ok {
			return nil, malformed("bad call arguments")
		}
		if ref.args, err = readList(args); err != nil {
			return nil, err
		}
		ref.call = true
	}
	return ref, nil
}

func readPath(raw any) ([]string, error) {
	a, ok := raw.(rawArray)
	if !ok {
		return nil, malformed("bad property path")
	}
	path := make([]string, len(a))
	for i, p := range a {
		switch p := p.(type) {
		case string:
			path[i] = p
		case json.Number:
			path[i] = string(p)
		default:
			return nil, malformed("bad property path")
		}
	}
	return path, nil
}

// readID reads a table id: an integer within ±2^53.
func readID(raw any) (int64, error) {
	n, ok := raw.(json.Number)
	if !ok {
		return 0, malformed("id is not a number")
	}
	id, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(n), 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > maxID {
			return 0, malformed("bad id")
		}
		id = int64(f)
	}
	if id > maxID || id < -maxID {
		return 0, malformed("bad id")
	}
	return id, nil
}

func at(a rawArray, i int) any {
	if i < len(a) {
		return a[i]
	}
	return nil
}

// message is one top-level message.
type message struct {
	kind  string // push, pull, resolve, reject, release, abort
	id    int64
	count int64
	expr  any
	// exprErr is an unsupportedError met in expr (which is then nil).
	exprErr error
}

// readMessage reads a parsed message. A message type capnweb 0.12 has but
// this engine does not implement (stream, pipe) is a protoError naming it.
func readMessage(raw any) (message, error) {
	a, ok := raw.(rawArray)
	if !ok || len(a) == 0 {
		return message{}, malformed("a message must be a non-empty array")
	}
	kind, ok := a[0].(string)
	if !ok {
		return message{}, malformed("message type is not a string")
	}
	m := message{kind: kind}
	var err error
	switch kind {
	case "push", "abort":
		if len(a) != 2 {
			return m, malformed("bad %s message", kind)
		}
		err = m.readExpr(a[1])
	case "pull":
		if len(a) != 2 {
			return m, malformed("bad pull message")
		}
		m.id, err = readID(a[1])
	case "resolve", "reject":
		if len(a) != 3 {
			return m, malformed("bad %s message", kind)
		}
		if m.id, err = readID(a[1]); err == nil {
			err = m.readExpr(a[2])
		}
	case "release":
		if len(a) != 3 {
			return m, malformed("bad release message")
		}
		if m.id, err = readID(a[1]); err == nil {
			m.count, err = readID(a[2])
		}
		if err == nil && m.count < 1 {
			err = malformed("bad release count")
		}
	case "stream", "pipe":
		err = malformed("the %s message is not supported by this server", kind)
	default:
		err = malformed("unknown message type %s", quoteName(kind))
	}
	return m, err
}

func (m *message) readExpr(raw any) error {
	x, err := readExpr(raw)
	if u, ok := err.(*unsupportedError); ok {
		m.exprErr = u
		return nil
	}
	m.expr = x
	return err
}
