package capnweb

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
)

// dec decodes a call's arguments, remembering the first problem as an
// invalid error that names the method and the argument (never its
// value: a token must not appear in an error).
type dec struct {
	method string // "Share.grant"
	err    error
}

// fail records an invalid argument.
func (d *dec) fail(name, want string) {
	if d.err == nil {
		d.err = sharevat.Errorf(sharevat.EInvalid, "%s: %s must be %s", d.method, name, want)
	}
}

// missing reports whether v stands for "not given": undefined or null.
func missing(v capnweb.Value) bool { return v == nil || v == capnweb.Undefined }

// arg returns argument i, undefined when the caller sent fewer.
func arg(args []capnweb.Value, i int) capnweb.Value {
	if i < len(args) {
		return args[i]
	}
	return capnweb.Undefined
}

// field returns o's field name, undefined when absent (or o is nil).
func field(o *capnweb.Object, name string) capnweb.Value {
	if v, ok := o.Get(name); ok {
		return v
	}
	return capnweb.Undefined
}

// text decodes a Text: a string, or "" when missing.
func (d *dec) text(v capnweb.Value, name string) string {
	if missing(v) {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(name, "a string")
	}
	return s
}

// optText decodes a Meta text field: nil when missing (unset).
func (d *dec) optText(v capnweb.Value, name string) *string {
	if missing(v) {
		return nil
	}
	s := d.text(v, name)
	return &s
}

// boolean decodes a Bool: false when missing.
func (d *dec) boolean(v capnweb.Value, name string) bool {
	if missing(v) {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		d.fail(name, "a boolean")
	}
	return b
}

// object decodes a struct: nil (every field its default) when missing.
func (d *dec) object(v capnweb.Value, name string) *capnweb.Object {
	if missing(v) {
		return nil
	}
	o, ok := v.(*capnweb.Object)
	if !ok {
		d.fail(name, "an object")
	}
	return o
}

// list decodes a List: nil when missing.
func (d *dec) list(v capnweb.Value, name string) []capnweb.Value {
	if missing(v) {
		return nil
	}
	l, ok := v.([]capnweb.Value)
	if !ok {
		d.fail(name, "an array")
	}
	return l
}

// u64 decodes an unsigned integer of at most max: 0 when missing.
func (d *dec) u64(v capnweb.Value, name string, max uint64) uint64 {
	if missing(v) {
		return 0
	}
	n := integer(v)
	if n == nil || n.Sign() < 0 || !n.IsUint64() || n.Uint64() > max {
		d.fail(name, "an integer from 0 to "+strconv.FormatUint(max, 10))
		return 0
	}
	return n.Uint64()
}

// u32 decodes a UInt32.
func (d *dec) u32(v capnweb.Value, name string) uint32 {
	return uint32(d.u64(v, name, math.MaxUint32))
}

// i64 decodes an Int64: 0 when missing.
func (d *dec) i64(v capnweb.Value, name string) int64 {
	if missing(v) {
		return 0
	}
	n := integer(v)
	if n == nil || !n.IsInt64() {
		d.fail(name, "an integer that fits 64 bits")
		return 0
	}
	return n.Int64()
}

// maxDigits bounds the integer text integer parses exactly: longer is
// out of every range (and not worth the work).
const maxDigits = 40

// integer returns v as an integer, or nil when it is not one: a number
// with a fraction, a non-finite number, anything else.
func integer(v capnweb.Value) *big.Int {
	switch n := v.(type) {
	case json.Number:
		return numberInteger(string(n))
	case *big.Int:
		return n
	case int:
		return big.NewInt(int64(n))
	case int64:
		return big.NewInt(n)
	case uint64:
		return new(big.Int).SetUint64(n)
	}
	return nil
}

// numberInteger parses a JSON number's text as an integer. Plain digits
// are parsed exactly; a fraction or an exponent (1e+21, as JavaScript
// writes large numbers) goes through a float64 and must be integral.
func numberInteger(s string) *big.Int {
	if !strings.ContainsAny(s, ".eE") {
		if len(s) > maxDigits {
			return nil
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil
		}
		return n
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) >= 1<<64 {
		return nil
	}
	n, _ := big.NewFloat(f).Int(nil)
	return n
}
