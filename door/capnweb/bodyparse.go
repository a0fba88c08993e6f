package capnweb

import (
	"encoding/json"

	"github.com/sharevat/sharevat/capnweb"
)

// maxDecodeDepth bounds the nesting decodeBody follows (encoding/json's
// own limit); a deeper body is answered as its bytes.
const maxDecodeDepth = 10000

// bodyParser reads one JSON value from b in place: strings and numbers
// are copied out of b only as the values they become, with no buffer
// holding the whole body again (a json.Decoder would).
type bodyParser struct {
	b []byte
	i int
}

// space skips white space and returns the position after it.
func (p *bodyParser) space() int {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return p.i
		}
	}
	return p.i
}

// value reads the value at p.i; ok is false when b is not JSON there.
func (p *bodyParser) value(depth int) (v capnweb.Value, ok bool) {
	if depth > maxDecodeDepth || p.space() >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return p.number()
}

func (p *bodyParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

// str reads a string: its end found by scanning, its text checked and
// unescaped by encoding/json.
func (p *bodyParser) str() (capnweb.Value, bool) {
	j := p.i + 1
	for j < len(p.b) && p.b[j] != '"' {
		if p.b[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(p.b) {
		return nil, false
	}
	var s string
	if json.Unmarshal(p.b[p.i:j+1], &s) != nil {
		return nil, false
	}
	p.i = j + 1
	return s, true
}

func (p *bodyParser) number() (capnweb.Value, bool) {
	j := p.i
	for j < len(p.b) && isNumberByte(p.b[j]) {
		j++
	}
	if j == p.i || !json.Valid(p.b[p.i:j]) {
		return nil, false
	}
	n := json.Number(p.b[p.i:j])
	p.i = j
	return n, true
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (p *bodyParser) array(depth int) (capnweb.Value, bool) {
	p.i++ // [
	l := []capnweb.Value{}
	if p.space() < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return l, true
	}
	for {
		e, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		l = append(l, e)
		if more, ok := p.next(']'); !more {
			return l, ok
		}
	}
}

// next consumes the separator after an element: more after a comma,
// ok after end (the container is closed), neither on anything else.
func (p *bodyParser) next(end byte) (more, ok bool) {
	if p.space() >= len(p.b) {
		return false, false
	}
	c := p.b[p.i]
	p.i++
	return c == ',', c == ',' || c == end
}

func (p *bodyParser) object(depth int) (capnweb.Value, bool) {
	p.i++ // {
	o := capnweb.NewObject()
	if p.space() < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return o, true
	}
	for {
		if p.space() >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok || p.space() >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		o.Fields = append(o.Fields, capnweb.Field{Name: k.(string), Value: v})
		if more, ok := p.next('}'); !more {
			return o, ok
		}
	}
}
