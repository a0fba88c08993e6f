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
	v, _, err := parseCharged(data, maxDepth, nil)
	return v, err
}

// parseCharged is parseJSON charging meter (when not nil) for what the
// parse holds: the decoder's copy of data, then each value as it is
// parsed (tokenCost plus its text), so a message that parses into far
// more memory than its size (millions of tiny values) is refused when
// its budget is spent, not after. It returns what it charged, which the
// caller releases once done with the values (on error nothing stays
// charged).
func parseCharged(data []byte, maxDepth int, meter *budget) (any, int64, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	p := jsonParser{d: d, maxDepth: maxDepth, meter: meter, pending: int64(len(data))}
	v, err := p.value(0)
	if err == nil {
		if _, terr := d.Token(); terr != io.EOF {
			err = malformed("trailing data after the message")
		}
	}
	if err == nil {
		err = p.flush()
	}
	if err != nil {
		p.release()
		return nil, 0, err
	}
	return v, p.charged, nil
}

// tokenCost is what one parsed value costs beyond its text: its slot in
// an array or object, the interface box, the string header.
const tokenCost = 40

// chargeGrain is how many bytes of parsed values are counted before they
// are charged at once.
const chargeGrain = 64 << 10

type jsonParser struct {
	d        *json.Decoder
	maxDepth int
	meter    *budget // nil: nothing is charged
	charged  int64   // charged to meter so far
	pending  int64   // counted, not yet charged
}

func (p *jsonParser) token() (json.Token, error) {
	tok, err := p.d.Token()
	if err != nil {
		return nil, malformed("invalid JSON")
	}
	p.pending += tokenCost
	switch t := tok.(type) {
	case string:
		p.pending += int64(len(t))
	case json.Number:
		p.pending += int64(len(t))
	}
	if p.pending >= chargeGrain {
		if err := p.flush(); err != nil {
			return nil, err
		}
	}
	return tok, nil
}

// flush charges what was counted.
func (p *jsonParser) flush() error {
	n := p.pending
	p.pending = 0
	if p.meter == nil || n == 0 {
		return nil
	}
	if p.meter.Charge(n) != nil {
		return &protoError{limit: "memory", msg: "message parses into more than the session's memory budget"}
	}
	p.charged += n
	return nil
}

func (p *jsonParser) release() {
	if p.meter != nil {
		p.meter.Release(p.charged)
	}
	p.charged = 0
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
