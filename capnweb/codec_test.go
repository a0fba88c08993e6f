package capnweb

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// decodeValue reads a reference-free expression as a Value.
func decodeValue(t testing.TB, text string) (Value, error) {
	t.Helper()
	raw, err := parseJSON([]byte(text), 64)
	if err != nil {
		return nil, err
	}
	x, err := readExpr(raw)
	if err != nil {
		return nil, err
	}
	return (&session{}).eval(x, &evalState{})
}

func encodeValue(t testing.TB, v Value) string {
	t.Helper()
	e := encoder{}
	if err := e.value(v, 0); err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	return string(e.buf)
}

func TestEncodeWire(t *testing.T) {
	big1 := new(big.Int).Lsh(big.NewInt(1), 70)
	date := time.UnixMilli(1749342170815)
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{nil, `null`},
		{Undefined, `["undefined"]`},
		{true, `true`},
		{"a\"b\n\x01é", `"a\"b\n\u0001é"`},
		{json.Number("1.5e3"), `1.5e3`},
		{42, `42`},
		{int64(maxSafeInt), `9007199254740991`},
		{int64(maxSafeInt + 1), `["bigint","9007199254740992"]`},
		{uint64(math.MaxUint64), `["bigint","18446744073709551615"]`},
		{big1, `["bigint","1180591620717411303424"]`},
		{math.Inf(1), `["inf"]`},
		{math.Inf(-1), `["-inf"]`},
		{math.NaN(), `["nan"]`},
		{0.25, `0.25`},
		{[]byte{1, 2, 3, 4}, `["bytes","AQIDBA"]`},
		{date, `["date",1749342170815]`},
		{[]Value{"x", []Value{}}, `[["x",[[]]]]`},
		{NewObject().Set("z", 1).Set("a", 2), `{"z":1,"a":2}`},
		{map[string]Value{"b": 1, "a": 2}, `{"a":2,"b":1}`},
		{&Error{Type: "TypeError", Message: "m"}, `["error","TypeError","m"]`},
		{&Error{Message: "m", Props: NewObject().Set("code", "revoked")}, `["error","Error","m",null,{"code":"revoked"}]`},
	} {
		if got := encodeValue(t, tc.v); got != tc.want {
			t.Errorf("encode %#v = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestEncodeRefusesUnknownTypes(t *testing.T) {
	for _, v := range []Value{struct{}{}, []string{"a"}, json.Number("1x"), make(chan int)} {
		e := encoder{}
		if err := e.value(v, 0); err == nil {
			t.Errorf("encode %T: no error, want one", v)
		}
	}
	o := NewObject()
	o.Set("self", o)
	if err := (&encoder{}).value(o, 0); err == nil {
		t.Error("encoding a cycle: no error")
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	values := []Value{
		nil, Undefined, true, "s", json.Number("12345678901234567890"),
		[]Value{json.Number("1"), []Value{"nested"}},
		NewObject().Set("z", json.Number("1")).Set("a", []Value{}),
		new(big.Int).Lsh(big.NewInt(3), 80),
		[]byte("bytes\x00\xff"),
		time.UnixMilli(1749342170815).UTC(),
		&Error{Type: "RangeError", Message: "m", Props: NewObject().Set("code", "revoked")},
	}
	for _, v := range values {
		text := encodeValue(t, v)
		got, err := decodeValue(t, text)
		if err != nil {
			t.Fatalf("decode %s: %v", text, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("round trip of %s: got %#v, want %#v", text, got, v)
		}
	}
}

func TestDecodeSpecials(t *testing.T) {
	got, err := decodeValue(t, `[[["inf"],["-inf"],["nan"],["bytes","AQID=="],["bytes","AQID","Int8Array"],["date",null],{"a":1,"a":2,"b":3}]]`)
	if err != nil {
		t.Fatal(err)
	}
	a := got.([]Value)
	if !math.IsInf(a[0].(float64), 1) || !math.IsInf(a[1].(float64), -1) || !math.IsNaN(a[2].(float64)) {
		t.Errorf("inf/-inf/nan = %v %v %v", a[0], a[1], a[2])
	}
	if string(a[3].([]byte)) != "\x01\x02\x03" || string(a[4].([]byte)) != "\x01\x02\x03" {
		t.Errorf("bytes = %v, %v", a[3], a[4])
	}
	if !a[5].(time.Time).IsZero() {
		t.Errorf("invalid date = %v, want the zero time", a[5])
	}
	o := a[6].(*Object)
	if len(o.Fields) != 2 || o.Fields[0].Name != "a" || o.Fields[0].Value != json.Number("2") {
		t.Errorf("duplicate field: %#v, want a=2 first, as JSON.parse", o.Fields)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ text, limit string }{
		{`[`, "malformed"},
		{`[1] [2]`, "malformed"},
		{`[]`, "malformed"},
		{`[1,2]`, "malformed"},
		{`["bigint",5]`, "malformed"},
		{`["bigint","12a"]`, "malformed"},
		{`["bytes","!!"]`, "malformed"},
		{`["date","x"]`, "malformed"},
		{`["error","E"]`, "malformed"},
		{`["error","E","m",null,[1]]`, "malformed"},
		{`["import",1.5]`, "malformed"},
		{`["import",1e300]`, "malformed"},
		{`["export",3]`, "malformed"},
		{`["pipeline",0,"p"]`, "malformed"},
		{strings.Repeat("[[", 40) + strings.Repeat("]]", 40), "depth"},
	} {
		_, err := decodeValue(t, tc.text)
		if err == nil || limitOf(err) != tc.limit {
			t.Errorf("decode %.40s: err %v, want a %s error", tc.text, err, tc.limit)
		}
	}
	for _, tag := range []string{"remap", "stream", "blob", "url", "headers", "request", "response", "writable", "readable", "mystery"} {
		_, err := decodeValue(t, `["`+tag+`",1]`)
		if _, ok := err.(*unsupportedError); !ok || !strings.Contains(err.Error(), tag) {
			t.Errorf("decode %s: err %v, want an unsupported error naming it", tag, err)
		}
	}
}

func TestReadMessage(t *testing.T) {
	for _, text := range []string{`{}`, `[]`, `[1]`, `["push"]`, `["pull","x"]`, `["release",1,0]`, `["release",1]`, `["resolve",1]`, `["stream",["import",0]]`, `["pipe"]`, `["hello"]`} {
		raw, err := parseJSON([]byte(text), 64)
		if err == nil {
			_, err = readMessage(raw)
		}
		if err == nil {
			t.Errorf("message %s: no error", text)
		}
	}
}

// FuzzDecode feeds arbitrary messages to a session: nothing may panic.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`["push",["pipeline",0,["echo"],[1,"a",[["x"]],{"k":["bigint","12"]}]]]`,
		`["push",["import",0,["m"],[["export",-1],["promise",-2]]]]`,
		`["pull",1]`, `["release",1,1]`, `["resolve",-1,["error","E","m",null,{"a":1}]]`,
		`["push",["remap",0,[],[],[]]]`, `["abort",["error","Error","x"]]`,
		`[[[[[[[[]]]]]]]]`, `["push",{"a":["date",1],"b":["bytes","AA"],"c":["nan"]}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := (Options{MaxDepth: 32}).withDefaults()
		s := newSession(o, &batchOut{}, &budget{limit: 1 << 20}, echoTarget{}, true)
		defer s.teardown()
		raw, err := parseJSON(data, o.MaxDepth)
		if err != nil {
			return
		}
		m, err := readMessage(raw)
		if err != nil {
			return
		}
		s.mu.Lock()
		defer s.unlock()
		_ = s.handleLocked(m)
	})
}

type echoTarget struct{}

func (echoTarget) Call(_ context.Context, _ string, args []Value) Answer {
	return Returning(args, nil)
}
