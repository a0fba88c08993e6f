package capnweb_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// TestRestoreAcrossDoors: a token minted over /rpc restores over
// /capnweb with its info and access; a share created over /capnweb (via
// restoreAdmin) restores over /rpc.
func TestRestoreAcrossDoors(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "from rpc")
	vault := e.dial(t)
	res := must(t, vault, "restore", token)
	stubOf(t, get(t, res, "share"))
	info := get(t, res, "info")
	assert.Equal(t, "from rpc", get(t, get(t, info, "meta"), "title"))
	assert.Equal(t, "idle", get(t, get(t, info, "meta"), "status"))
	assert.IsType(t, time.Time{}, get(t, get(t, info, "meta"), "createdAt"))
	access := get(t, res, "access")
	assert.Nil(t, get(t, access, "expiresAt"), "an owner token never expires: null")
	for _, right := range []string{"read", "append", "delegate", "admin"} {
		assert.Equal(t, true, get(t, get(t, access, "scope"), right), right)
	}
	share := stubOf(t, get(t, res, "share"))
	again := must(t, share, "info")
	assert.Equal(t, get(t, info, "id"), get(t, get(t, again, "info"), "id"))

	admin := stubOf(t, must(t, vault, "restoreAdmin", e.srv.Admin))
	created := must(t, admin, "createShare", capnweb.NewObject().Set("title", "from capnweb").Set("status", "busy"))
	stubOf(t, get(t, created, "share"))
	owner := get(t, get(t, created, "owner"), "token").(string)
	sh := e.srv.MustRestore(t, owner)
	got, _, err := sh.Fetch(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "from capnweb", got.Meta.Title)
	assert.Equal(t, sharevat.StatusBusy, got.Meta.Status)
}

// TestBadTokens: every token that does not redeem answers the same
// unauthorized error, which never quotes it.
func TestBadTokens(t *testing.T) {
	e := start(t, vattest.Options{})
	good := e.srv.MustCreate(t, "t")
	unknown := good[:5] + strings.Repeat("a", 24) + good[29:]
	vault := e.dial(t)
	for name, tok := range map[string]string{
		"wrong secret": vattest.WrongSecret(good), "unknown grant": unknown, "malformed": "svt1_nope",
		"empty": "", "admin with a wrong secret": vattest.WrongSecret(e.srv.Admin), "with newline": good + "\n",
	} {
		_, err := call(vault, "restore", tok)
		code, msg := codeOf(t, err)
		assert.Equal(t, "unauthorized", code, name)
		assert.Equal(t, "unauthorized: invalid or expired token", msg, name)
		if tok != "" {
			assert.NotContains(t, err.Error(), tok, name)
		}
	}
	_, err := call(vault, "restoreAdmin", good)
	code, msg := codeOf(t, err)
	assert.Equal(t, "unauthorized", code)
	assert.Equal(t, "unauthorized: invalid or expired token", msg)
	// The admin token itself, its secret verified, is told it is one.
	_, err = call(vault, "restore", e.srv.Admin)
	code, msg = codeOf(t, err)
	assert.Equal(t, "unauthorized", code)
	assert.Equal(t, sharevat.ErrAdminAsShare.Error(), msg)
}

// TestUnknownMethodAndInvalidArguments: an unknown method is capnweb's
// TypeError; an argument of the wrong type or out of range is invalid.
func TestUnknownMethodAndInvalidArguments(t *testing.T) {
	e := start(t, vattest.Options{})
	share := e.restore(t, e.srv.MustCreate(t, "t"))
	_, err := call(share, "frobnicate")
	var we *capnweb.Error
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "TypeError", we.Type)
	assert.Equal(t, "'frobnicate' is not a function.", we.Message)

	rd := stubOf(t, must(t, share, "reader"))
	for name, args := range map[string][]capnweb.Value{
		"string cursor":   {"1"},
		"negative cursor": {json.Number("-1")},
		"fractional":      {json.Number("1.5")},
		"limit too large": {0, json.Number("4294967296")},
	} {
		_, err := call(rd, "read", args...)
		code, _ := codeOf(t, err)
		assert.Equal(t, "invalid", code, name)
	}
	_, err = call(share, "update", capnweb.NewObject().Set("status", "sleeping"))
	code, _ := codeOf(t, err)
	assert.Equal(t, "invalid", code)
	_, err = call(share, "configure", capnweb.NewObject().Set("privacy", "loud"))
	code, _ = codeOf(t, err)
	assert.Equal(t, "invalid", code)
}

// appendOps appends ops (objects) in one batch at epoch and answers the
// Ack.
func appendOps(t *testing.T, app *capnweb.Stub, epoch capnweb.Value, ops ...capnweb.Value) capnweb.Value {
	t.Helper()
	return must(t, app, "append", capnweb.NewObject().Set("batchId", "b").Set("epoch", epoch).Set("ops", ops))
}

func op(id, kind, key string, body capnweb.Value) *capnweb.Object {
	return capnweb.NewObject().Set("opId", id).Set("kind", kind).Set("key", key).Set("body", body)
}

// results returns an Ack's results as (status, reason) pairs.
func results(t *testing.T, ack capnweb.Value) [][2]string {
	var out [][2]string
	for _, r := range get(t, ack, "results").([]capnweb.Value) {
		out = append(out, [2]string{get(t, r, "status").(string), get(t, r, "reason").(string)})
	}
	return out
}

// TestAppendAck: applied, duplicate and each rejection reason are in the
// Ack, with the counts.
func TestAppendAck(t *testing.T) {
	e := start(t, vattest.Options{Config: func(c *vat.Config) { c.Limits = sharevat.DefaultLimits(); c.Limits.MaxBodyBytes = 1024 }})
	vault := e.dial(t)
	res := must(t, vault, "restore", e.srv.MustCreate(t, "t"))
	share := stubOf(t, get(t, res, "share"))
	epoch := get(t, get(t, res, "access"), "epoch")
	app := stubOf(t, must(t, share, "appender"))

	body := capnweb.NewObject().Set("text", "hi")
	ack := appendOps(t, app, epoch, op("a", "message", "m1", body))
	assert.Equal(t, [][2]string{{"applied", "none"}}, results(t, ack))
	assert.Equal(t, int64(1), num(t, get(t, ack, "head")))

	ack = appendOps(t, app, epoch,
		op("a", "message", "m1", body),                                                       // duplicate
		op("a", "message", "m1", capnweb.NewObject().Set("text", "changed")),                 // idReused
		op("d", "message", "m2", body).Set("dependsOn", []capnweb.Value{"zz"}),               // missingDependency
		op("c", "message", "m3", body).Set("expected", capnweb.NewObject().Set("cursor", 0)), // conflict
		op("i", "no such kind", "k", body),                                                   // invalid
		op("l", "message", "m4", capnweb.NewObject().Set("x", strings.Repeat("x", 2000))),    // tooLarge
		op("ok", "message", "m5", body).Set("expected", capnweb.NewObject().Set("cursor", 1)),
	)
	assert.Equal(t, [][2]string{
		{"duplicate", "none"}, {"rejected", "idReused"}, {"rejected", "missingDependency"}, {"rejected", "conflict"},
		{"rejected", "invalid"}, {"rejected", "tooLarge"}, {"applied", "none"},
	}, results(t, ack))
	assert.Equal(t, int64(1), num(t, get(t, ack, "applied")))
	assert.Equal(t, int64(1), num(t, get(t, ack, "duplicates")))
	assert.Equal(t, int64(5), num(t, get(t, ack, "rejected")))
	detail := get(t, get(t, ack, "results").([]capnweb.Value)[5], "detail").(string)
	assert.NotEmpty(t, detail, "a rejection says why")

	stale := json.Number("99")
	ack = appendOps(t, app, stale, op("s", "message", "m6", body))
	assert.Equal(t, [][2]string{{"rejected", "staleEpoch"}}, results(t, ack))

	must(t, share, "configure", capnweb.NewObject().Set("privacy", "reject"))
	ack = appendOps(t, app, epoch, op("k", "message", "m7", capnweb.NewObject().Set("key", "AKIAQWERTYUIOPASDFGH")))
	assert.Equal(t, [][2]string{{"rejected", "secret"}}, results(t, ack))
}
