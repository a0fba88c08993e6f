package capnweb

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"time"
)

// normalize turns a local answer into what a decoded value would be
// (json.Number for Go numbers, *Object for maps, *Error for errors), so a
// Target's arguments keep the Value contract when they come from a
// pipelined answer rather than from the wire.
func normalize(v Value, depth int) Value {
	if depth > maxEncodeDepth {
		return v
	}
	switch x := v.(type) {
	case nil, undefined, bool, string, json.Number, *big.Int, []byte, time.Time, *Stub, *Object, *Error:
		return v
	case float64:
		return normalFloat(x)
	case float32:
		return normalFloat(float64(x))
	case []Value:
		out := make([]Value, len(x))
		for i, e := range x {
			out[i] = normalize(e, depth+1)
		}
		return out
	case map[string]Value:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		o := &Object{Fields: make([]Field, len(names))}
		for i, k := range names {
			o.Fields[i] = Field{Name: k, Value: normalize(x[k], depth+1)}
		}
		return o
	case Target:
		return v
	case error:
		return toError(x)
	}
	var e encoder
	if n, ok := signed(v); ok {
		e.integer(big.NewInt(n))
	} else if n, ok := unsigned(v); ok {
		e.integer(new(big.Int).SetUint64(n))
	} else {
		return v
	}
	if e.buf[0] == '[' {
		n, _ := new(big.Int).SetString(bigDigits(e.buf), 10)
		return n
	}
	return json.Number(e.buf)
}

func normalFloat(f float64) Value {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

// bigDigits takes the digits out of an encoded ["bigint","…"].
func bigDigits(b []byte) string {
	s := string(b)
	return s[len(`["bigint","`) : len(s)-2]
}

// navigate follows a property path into a value (not into a Target).
func navigate(v Value, path []string) (Value, error) {
	for _, name := range path {
		switch x := v.(type) {
		case *Object:
			v = field(x.Get(name))
		case map[string]Value:
			f, ok := x[name]
			v = field(f, ok)
		case []Value:
			i, err := strconv.Atoi(name)
			if err != nil || i < 0 || i >= len(x) {
				v = Undefined
			} else {
				v = x[i]
			}
		case nil, undefined:
			return nil, &Error{Type: "TypeError", Message: fmt.Sprintf(
				"Cannot read properties of %s (reading %s)", jsName(x), quoteName(name))}
		case *Stub:
			return nil, &Error{Type: "TypeError", Message: "capnweb: reading a property of a stub is not supported"}
		case Target:
			return nil, propertyOfTarget(name)
		default:
			v = Undefined
		}
	}
	return v, nil
}

func field(v Value, ok bool) Value {
	if !ok {
		return Undefined
	}
	return v
}

func jsName(v Value) string {
	if v == nil {
		return "null"
	}
	return "undefined"
}
