package capnweb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// rawArray is a JSON array as parsed, before it is read as an expression.
// Other JSON values parse to nil, bool, json.Number, string and *Object
// (whose field values are raw values too).
type rawArray []any

// protoError is peer input that ends the session: limit names the limit
// it broke ("malformed", "depth", …) for Options.OnLimit.
type protoError struct {
	limit string
	msg   string
}

func (e *protoError) Error() string { return "capnweb: " + e.msg }

func malformed(format string, args ...any) error {
	return &protoError{limit: "malformed", msg: fmt.Sprintf(format, args...)}
}

// limitOf names the limit behind err ("malformed" when it names none).
func limitOf(err error) string {
	var pe *protoError
	if errors.As(err, &pe) {
		return pe.limit
	}
	return "malformed"
}

// parseJSON parses one JSON text into raw values, keeping the order of
// object fields, refusing nesting deeper than maxDepth and anything after
// the value.
func parseJSON(data []byte, maxDepth int) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	p := jsonParser{d: d, maxDepth: maxDepth}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, malformed("trailing data after the message")
	}
	return v, nil
}

type jsonParser struct {
	d        *json.Decoder
	maxDepth int
}

func (p *jsonParser) token() (json.Token, error) {
	tok, err := p.d.Token()
	if err != nil {
		return nil, malformed("invalid JSON")
	}
	return tok, nil
}

func (p *jsonParser) value(depth int) (any, error) {
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= p.maxDepth {
		return nil, &protoError{limit: "depth", msg: fmt.Sprintf("message nested deeper than %d", p.maxDepth)}
	}
	switch delim {
	case '[':
		return p.array(depth + 1)
	case '{':
		return p.object(depth + 1)
	}
	return nil, malformed("invalid JSON")
}

func (p *jsonParser) array(depth int) (any, error) {
	arr := rawArray{}
	for p.d.More() {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	if _, err := p.token(); err != nil { // ']'
		return nil, err
	}
	return arr, nil
}

func (p *jsonParser) object(depth int) (any, error) {
	o := &Object{}
	var index map[string]int // built once an object is large, for duplicates
	for p.d.More() {
		tok, err := p.token()
		if err != nil {
			return nil, err
		}
		name, ok := tok.(string)
		if !ok {
			return nil, malformed("invalid JSON")
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		index = setField(o, index, name, v)
	}
	if _, err := p.token(); err != nil { // '}'
		return nil, err
	}
	return o, nil
}

// setField sets name as JSON.parse does (a repeated name keeps its first
// position and its last value) without going quadratic on large objects.
func setField(o *Object, index map[string]int, name string, v any) map[string]int {
	if index == nil && len(o.Fields) < 16 {
		o.Set(name, v)
		return nil
	}
	if index == nil {
		index = make(map[string]int, 2*len(o.Fields))
		for i, f := range o.Fields {
			index[f.Name] = i
		}
	}
	if i, ok := index[name]; ok {
		o.Fields[i].Value = v
		return index
	}
	index[name] = len(o.Fields)
	o.Fields = append(o.Fields, Field{Name: name, Value: v})
	return index
}
