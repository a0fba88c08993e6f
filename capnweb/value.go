package capnweb

// Value is one Cap'n Web value, as the session hands it to a Target and
// as a Target hands it back. Decoded values (arguments, a Stub call's
// result) are always one of:
//
//   - nil: null
//   - Undefined
//   - bool
//   - json.Number: a number, exactly as the peer wrote it
//   - float64: only for ["inf"], ["-inf"] and ["nan"]
//   - string
//   - []Value: an array (on the wire, an escaped array [[…]])
//   - *Object: an object, its fields in the peer's order
//   - *big.Int: ["bigint", "…"]
//   - []byte: ["bytes", base64] (any byte container type)
//   - time.Time: ["date", ms]
//   - *Error: ["error", type, message, stack?, props?]
//   - *Stub: a stub or function the peer exported (["export", id]),
//     or a promise it exported, once resolved to one
//
// Promises (["promise", id], ["pipeline", …]) are awaited before a value
// is handed over: a Target never sees one.
//
// Encoding (results, arguments of Stub.Call) accepts every type above
// (any float64, finite or not), plus Go integers of any size (int, int64, uint32, uint64, …: a
// magnitude above 2^53-1 is sent as a bigint, so it arrives exact), a
// map[string]Value (fields in sorted order), []Value, and Target (a
// local object exported to the peer, ["export", -n]). Anything else is
// an encoding error, which the session answers as a reject.
type Value = any

// Undefined is JavaScript's undefined (["undefined"] on the wire).
var Undefined = undefined{}

type undefined struct{}

// Object is a JSON object whose fields keep the order they were sent or
// set in. The zero value is an empty object.
type Object struct {
	Fields []Field
}

// Field is one property of an Object.
type Field struct {
	Name  string
	Value Value
}

// NewObject returns an empty object; chain Set to fill it.
func NewObject() *Object { return &Object{} }

// Set sets name to v (replacing an earlier field of that name in place)
// and returns o.
func (o *Object) Set(name string, v Value) *Object {
	for i := range o.Fields {
		if o.Fields[i].Name == name {
			o.Fields[i].Value = v
			return o
		}
	}
	o.Fields = append(o.Fields, Field{Name: name, Value: v})
	return o
}

// Get returns the value of field name and whether it is present. A nil
// *Object has no fields.
func (o *Object) Get(name string) (Value, bool) {
	if o == nil {
		return nil, false
	}
	for _, f := range o.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// Error is a JavaScript Error value: ["error", Type, Message, stack,
// Props]. A Target's error that is an *Error is sent as it is; any other
// error is sent as ["error", "Error", err.Error()]. Stacks are never
// sent.
type Error struct {
	Type    string  // "Error", "TypeError", "RangeError", …
	Message string  //
	Props   *Object // own properties (e.g. code); nil: none
}

func (e *Error) Error() string {
	if e.Type == "" || e.Type == "Error" {
		return e.Message
	}
	return e.Type + ": " + e.Message
}
