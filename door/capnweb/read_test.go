package capnweb_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestReadSnapshotBodies: op bodies travel as JSON values, keeping the
// objects' field order and the numbers' text (a number beyond a double's
// precision, "1.50", an exponent); a delete has no body (undefined); the
// Go client over /rpc reads the very JSON text that was sent.
func TestReadSnapshotBodies(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "bodies")
	vault := e.dial(t)
	res := must(t, vault, "restore", token)
	share := stubOf(t, get(t, res, "share"))
	epoch := get(t, get(t, res, "access"), "epoch")
	app := stubOf(t, must(t, share, "appender"))

	body := capnweb.NewObject().
		Set("zeta", json.Number("12345678901234567890123")).
		Set("alpha", []capnweb.Value{json.Number("1.50"), json.Number("-0"), json.Number("1e+21"), nil, true}).
		Set("nested", capnweb.NewObject().Set("é\"\n", "日本 <&>").Set("b", false)).
		Set("dropped", capnweb.Undefined)
	const text = `{"zeta":12345678901234567890123,"alpha":[1.50,-0,1e+21,null,true],"nested":{"é\"\n":"日本 <&>","b":false}}`
	appendOps(t, app, epoch,
		op("1", "message", "m1", body),
		op("2", "part", "p1", []byte(`{"raw" : [1, 2.0]}`)),
		op("3", "event", "", json.Number("7")),
		capnweb.NewObject().Set("opId", "4").Set("kind", "part").Set("key", "p1").Set("delete", true),
	)

	rd := stubOf(t, must(t, share, "reader"))
	got := must(t, rd, "read", 0, 10)
	assert.Equal(t, int64(4), num(t, get(t, got, "head")))
	ops := get(t, got, "ops").([]capnweb.Value)
	require.Len(t, ops, 4)
	want := capnweb.NewObject().Set("zeta", body.Fields[0].Value).Set("alpha", body.Fields[1].Value).Set("nested", body.Fields[2].Value)
	assert.Equal(t, want, get(t, ops[0], "body"))
	assert.Equal(t, capnweb.NewObject().Set("raw", []capnweb.Value{json.Number("1"), json.Number("2.0")}), get(t, ops[1], "body"))
	assert.Equal(t, json.Number("7"), get(t, ops[2], "body"))
	assert.Equal(t, capnweb.Undefined, get(t, ops[3], "body"), "a delete carries no body")
	assert.Equal(t, true, get(t, ops[3], "delete"))
	assert.Equal(t, "message", get(t, ops[0], "kind"))
	assert.Equal(t, int64(2), num(t, get(t, ops[1], "cursor")))

	// The same op read over /rpc holds the exact text.
	r, err := e.srv.MustRestore(t, token).Reader(t.Context())
	require.NoError(t, err)
	defer r.Release()
	entries, _, err := r.Read(t.Context(), 0, 10)
	require.NoError(t, err)
	assert.Equal(t, text, string(entries[0].Body))
	assert.Equal(t, `{"raw" : [1, 2.0]}`, string(entries[1].Body), "bytes are taken as they are")

	snap := must(t, rd, "snapshot")
	assert.Equal(t, int64(4), num(t, get(t, snap, "cursor")))
	ents := get(t, snap, "entities").([]capnweb.Value)
	require.Len(t, ents, 1, "the part was deleted, the event is no entity")
	assert.Equal(t, want, get(t, ents[0], "body"))
	assert.Equal(t, "m1", get(t, ents[0], "key"))

	_, err = call(app, "append", capnweb.NewObject().Set("epoch", epoch).Set("ops", []capnweb.Value{op("5", "part", "p", []byte("{nope"))}))
	code, _ := codeOf(t, err)
	assert.Equal(t, "invalid", code, "bytes that are not JSON")
}
