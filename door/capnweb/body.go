package capnweb

import (
	"bytes"
	"encoding/json"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
)

// maxBodyDepth bounds the nesting of an op body. The capnweb session
// already bounds a message's depth; this keeps the encoder safe on its
// own.
const maxBodyDepth = 128

// encodeBody turns an op body given as a JSON value into compact JSON
// text, keeping the objects' field order and the numbers' text as sent.
// Undefined is no body; undefined fields are dropped and undefined array
// elements are null, as JSON.stringify does; a Uint8Array holding JSON
// text is taken as it is. Errors: invalid for what JSON cannot hold
// (stubs, errors, non-finite numbers, bytes inside a value).
func encodeBody(v capnweb.Value, name string) ([]byte, error) {
	if v == capnweb.Undefined {
		return nil, nil
	}
	if raw, ok := v.([]byte); ok {
		if !json.Valid(raw) {
			return nil, sharevat.Errorf(sharevat.EInvalid, "%s: the bytes are not JSON text", name)
		}
		return raw, nil
	}
	var buf bytes.Buffer
	if what := appendJSON(&buf, v, 0); what != "" {
		return nil, sharevat.Errorf(sharevat.EInvalid, "%s: %s cannot be JSON", name, what)
	}
	return buf.Bytes(), nil
}

// appendJSON writes v as JSON; it answers what it could not write ("" when
// all went well).
func appendJSON(buf *bytes.Buffer, v capnweb.Value, depth int) string {
	if depth > maxBodyDepth {
		return "a value nested this deep"
	}
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(map[bool]string{true: "true", false: "false"}[x])
	case json.Number:
		if !json.Valid([]byte(x)) {
			return "a malformed number"
		}
		buf.WriteString(string(x))
	case string:
		appendString(buf, x)
	case *big.Int:
		buf.WriteString(x.String())
	case time.Time:
		appendString(buf, x.UTC().Format("2006-01-02T15:04:05.000Z"))
	case []capnweb.Value:
		return appendArray(buf, x, depth)
	case *capnweb.Object:
		return appendObject(buf, x, depth)
	case float64:
		return "a non-finite number"
	default:
		return describe(v)
	}
	return ""
}

func appendArray(buf *bytes.Buffer, l []capnweb.Value, depth int) string {
	buf.WriteByte('[')
	for i, e := range l {
		if i > 0 {
			buf.WriteByte(',')
		}
		if e == capnweb.Undefined {
			e = nil
		}
		if what := appendJSON(buf, e, depth+1); what != "" {
			return what
		}
	}
	buf.WriteByte(']')
	return ""
}

func appendObject(buf *bytes.Buffer, o *capnweb.Object, depth int) string {
	buf.WriteByte('{')
	first := true
	for _, f := range o.Fields {
		if f.Value == capnweb.Undefined {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		appendString(buf, f.Name)
		buf.WriteByte(':')
		if what := appendJSON(buf, f.Value, depth+1); what != "" {
			return what
		}
	}
	buf.WriteByte('}')
	return ""
}

// describe names a value JSON cannot hold, for the error.
func describe(v capnweb.Value) string {
	switch v.(type) {
	case []byte:
		return "bytes inside a value"
	case *capnweb.Error:
		return "an error"
	case *capnweb.Stub:
		return "a stub"
	}
	if v == capnweb.Undefined {
		return "undefined"
	}
	return "this value"
}

// appendString writes s as a JSON string, escaping only what JSON needs
// (quotes, backslashes, control characters); invalid UTF-8 becomes
// U+FFFD.
func appendString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case c == '\n':
				buf.WriteString(`\n`)
			case c == '\r':
				buf.WriteString(`\r`)
			case c == '\t':
				buf.WriteString(`\t`)
			case c < 0x20:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&0xf])
			default:
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			buf.WriteString(`\ufffd`)
		} else {
			buf.WriteString(s[i : i+n])
		}
		i += n
	}
	buf.WriteByte('"')
}

// decodeBody turns a stored body into a JSON value, keeping the objects'
// field order and the numbers' text: objects are *capnweb.Object,
// numbers json.Number. An empty body is undefined; a body that is not
// JSON (no kind the vat accepts has one) is answered as its bytes.
func decodeBody(body []byte) capnweb.Value {
	if len(body) == 0 {
		return capnweb.Undefined
	}
	p := bodyParser{b: body}
	v, ok := p.value(0)
	if !ok || p.space() < len(body) {
		return body
	}
	return v
}

// decodeBodyView is decodeBody for a body it may not keep (a view into
// a Cap'n Proto message): one that is not JSON is answered as a copy.
func decodeBodyView(body []byte) capnweb.Value {
	v := decodeBody(body)
	if b, ok := v.([]byte); ok {
		return bytes.Clone(b)
	}
	return v
}
