package capnweb

// An internal test: the body and integer conversions are pure functions
// with edge cases that are awkward to reach through a session.

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
)

func TestEncodeBody(t *testing.T) {
	for _, tc := range []struct {
		in   capnweb.Value
		want string
	}{
		{capnweb.NewObject().Set("b", json.Number("1.0")).Set("a", capnweb.Undefined).Set("c", nil), `{"b":1.0,"c":null}`},
		{[]capnweb.Value{capnweb.Undefined, json.Number("-0")}, `[null,-0]`},
		{"\x00\u2028<\"\\\xff", `"\u0000` + "\u2028" + `<\"\\\ufffd"`},
		{big.NewInt(-5), `-5`},
		{[]byte(` {"raw": 1} `), ` {"raw": 1} `},
	} {
		got, err := encodeBody(tc.in, "body")
		require.NoError(t, err, "%v", tc.in)
		assert.Equal(t, tc.want, string(got))
		assert.True(t, json.Valid(got), "%q", got)
	}
	got, err := encodeBody(capnweb.Undefined, "body")
	assert.NoError(t, err)
	assert.Nil(t, got, "undefined is no body")
	for _, bad := range []capnweb.Value{math.Inf(1), json.Number("1x"), []byte("{"), &capnweb.Stub{},
		[]capnweb.Value{[]byte("1")}, &capnweb.Error{Type: "Error"}} {
		_, err := encodeBody(bad, "body")
		assert.Error(t, err, "%#v", bad)
	}
	deep := capnweb.Value(nil)
	for range maxBodyDepth + 5 {
		deep = []capnweb.Value{deep}
	}
	_, err = encodeBody(deep, "body")
	assert.Error(t, err, "too deep")
}

func TestNumberInteger(t *testing.T) {
	for text, want := range map[string]string{
		"0": "0", "-0": "0", "18446744073709551615": "18446744073709551615", "1e+3": "1000",
		"2.0": "2", "-12": "-12",
	} {
		n := numberInteger(text)
		require.NotNil(t, n, text)
		assert.Equal(t, want, n.String(), text)
	}
	for _, text := range []string{"1.5", "1e400", "1" + string(make([]byte, 50)), "NaN", "0x10", "1e-3", "1e+21"} {
		assert.Nil(t, numberInteger(text), text)
	}
	var d dec
	assert.Equal(t, uint64(math.MaxUint64), d.u64(json.Number("18446744073709551615"), "n", math.MaxUint64))
	assert.NoError(t, d.err)
	d.u64(json.Number("18446744073709551616"), "n", math.MaxUint64)
	assert.Error(t, d.err)
}

// FuzzBody: decoding any stored body never panics, and a JSON body
// decoded and encoded again is the same JSON value.
func FuzzBody(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.50,{"b":null}],"z":"é"}`, `7`, `"x"`, `[]`, `{`, ``, `{"a":1}{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v := decodeBody(body)
		if !json.Valid(body) {
			return
		}
		again, err := encodeBody(v, "body")
		require.NoError(t, err)
		var x, y any
		require.NoError(t, json.Unmarshal(body, &x))
		require.NoError(t, json.Unmarshal(again, &y))
		assert.Equal(t, x, y)
	})
}

// TestDecodeBody: the in-place parser answers what a json.Decoder with
// UseNumber would (field order and number text kept), and a body that is
// not exactly one JSON value as its bytes.
func TestDecodeBody(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want capnweb.Value
	}{
		{` {"b":1.0, "a":[true,false,null,"x\"\u00e9\\n"],"a":{}} `, &capnweb.Object{Fields: []capnweb.Field{
			{Name: "b", Value: json.Number("1.0")},
			{Name: "a", Value: []capnweb.Value{true, false, nil, "x\"é\\n"}},
			{Name: "a", Value: capnweb.NewObject()}, // a repeated name is kept, as sent
		}}},
		{`[]`, []capnweb.Value{}},
		{`-0.5e+3`, json.Number("-0.5e+3")},
		{"\"\xff\"", "\ufffd"},
		{`[[1],[2,[3]]]`, []capnweb.Value{[]capnweb.Value{json.Number("1")},
			[]capnweb.Value{json.Number("2"), []capnweb.Value{json.Number("3")}}}},
	} {
		got := decodeBody([]byte(tc.in))
		if o, ok := tc.want.(*capnweb.Object); ok {
			require.IsType(t, o, got, tc.in)
			assert.Equal(t, o.Fields, got.(*capnweb.Object).Fields, tc.in)
			continue
		}
		assert.Equal(t, tc.want, got, tc.in)
	}
	assert.Equal(t, capnweb.Undefined, decodeBody(nil))
	for _, bad := range []string{`{`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":1,}`, `{1:2}`, `"x`, "\"a\x01\"", `01`,
		`1.`, `tru`, `nul`, `1 2`, `[1]]`, `{"a":1}}`, `-`, `"\q"`, ` `} {
		got := decodeBody([]byte(bad))
		assert.Equal(t, []byte(bad), got, "%q is answered as its bytes", bad)
	}
	view := []byte(`{`)
	got := decodeBodyView(view)
	view[0] = 'x'
	assert.Equal(t, []byte(`{`), got, "a view's bytes are copied")
	deep := strings.Repeat("[", maxDecodeDepth+2) + strings.Repeat("]", maxDecodeDepth+2)
	assert.Equal(t, []byte(deep), decodeBody([]byte(deep)), "too deep")
}
