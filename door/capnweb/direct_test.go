package capnweb_test

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	webvat "github.com/sharevat/sharevat/door/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
)

// These tests call the Targets directly, in-process, without a Cap'n Web
// session: the bridge's conversions and errors over a real vat.

// callT calls method on target and waits for its answer.
func callT(target capnweb.Target, method string, args ...capnweb.Value) (capnweb.Value, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return target.Call(ctx, method, args)()
}

// mustT is callT that fails the test on an error.
func mustT(t *testing.T, target capnweb.Target, method string, args ...capnweb.Value) capnweb.Value {
	t.Helper()
	v, err := callT(target, method, args...)
	require.NoError(t, err, "%s", method)
	return v
}

// released releases a Target at cleanup.
func released(t *testing.T, v capnweb.Value) capnweb.Target {
	t.Helper()
	target, ok := v.(capnweb.Target)
	require.True(t, ok, "want a Target, got %T", v)
	t.Cleanup(target.(capnweb.Releaser).Release)
	return target
}

func directVault(t *testing.T, srv *vattest.Server) capnweb.Target {
	v := webvat.NewVault(srv.Vat.BootstrapMetered("127.0.0.1:1", nil))
	t.Cleanup(v.(capnweb.Releaser).Release)
	return v
}

// TestDirectAppendRead: createShare through restoreAdmin, append, read
// back with the body's field order and number text intact.
func TestDirectAppendRead(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	vault := directVault(t, srv)
	admin := released(t, mustT(t, vault, "restoreAdmin", srv.Admin))
	created := mustT(t, admin, "createShare", capnweb.NewObject().Set("title", "direct"))
	released(t, get(t, created, "share"))
	token := get(t, get(t, created, "owner"), "token").(string)

	res := mustT(t, vault, "restore", token)
	share := released(t, get(t, res, "share"))
	assert.Equal(t, "direct", get(t, get(t, get(t, res, "info"), "meta"), "title"))
	epoch := get(t, get(t, res, "access"), "epoch")

	app := released(t, mustT(t, share, "appender"))
	body := capnweb.NewObject().Set("z", json.Number("1.50")).Set("a", []capnweb.Value{json.Number("12345678901234567890"), "x"})
	op := capnweb.NewObject().Set("opId", "op-1").Set("kind", "message").Set("key", "m1").Set("body", body)
	ack := mustT(t, app, "append", capnweb.NewObject().Set("batchId", "b1").Set("epoch", epoch).Set("ops", []capnweb.Value{op}))
	assert.Equal(t, 1, get(t, ack, "applied"))
	r0 := get(t, ack, "results").([]capnweb.Value)[0]
	assert.Equal(t, "applied", get(t, r0, "status"))
	assert.Equal(t, "none", get(t, r0, "reason"))

	rd := released(t, mustT(t, share, "reader"))
	got := mustT(t, rd, "read", 0)
	ops := get(t, got, "ops").([]capnweb.Value)
	require.Len(t, ops, 1)
	gb := get(t, ops[0], "body").(*capnweb.Object)
	assert.Equal(t, body, gb)

	_, err := callT(share, "nope")
	var we *capnweb.Error
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "TypeError", we.Type)
	assert.Equal(t, "'nope' is not a function.", we.Message)

	_, err = callT(vault, "restore", vattest.WrongSecret(token))
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "unauthorized: invalid or expired token", we.Message)
	code, _ := we.Props.Get("code")
	assert.Equal(t, "unauthorized", code)
}

// TestDirectGarbageArguments: every method of every object, called with
// arguments of every kind of value, answers (a value or an error) and
// never panics; an error never quotes the token.
func TestDirectGarbageArguments(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	token := srv.MustCreate(t, "garbage")
	vault := directVault(t, srv)
	share := released(t, get(t, mustT(t, vault, "restore", token), "share"))
	targets := map[string]capnweb.Target{
		"vault":    vault,
		"admin":    released(t, mustT(t, vault, "restoreAdmin", srv.Admin)),
		"appender": released(t, mustT(t, share, "appender")),
		"reader":   released(t, mustT(t, share, "reader")),
		"share":    share,
	}
	methods := []string{"restore", "restoreAdmin", "openAdmin", "ping", "limits", "createShare", "list", "resetOwner",
		"statuses", "info", "update", "appender", "reader", "grant", "revoke", "grants", "save", "fork", "children",
		"settings", "configure", "compact", "append", "read", "snapshot", "subscribe", "cursor", "", "constructor",
		"bumpEpoch", "delete"}
	values := []capnweb.Value{capnweb.Undefined, nil, true, "x", token, json.Number("-1"), json.Number("1e999"),
		math.NaN(), big.NewInt(-1), []byte("{"), time.Time{}, &capnweb.Error{}, []capnweb.Value{nil},
		capnweb.NewObject().Set("ops", "x").Set("scope", 1).Set("status", 7).Set("expected", "x")}
	for name, target := range targets {
		for _, m := range methods {
			for _, v := range values {
				_, err := callT(target, m, v, v, v)
				if err != nil {
					assert.NotContains(t, err.Error(), token, "%s.%s", name, m)
				}
			}
		}
	}
}

// TestDirectErrorsHideTokens: a token passed where an id belongs (or as
// a method name) is never quoted back with its secret: the vat does not
// quote a malformed id, and webvat cuts the secret of anything
// token-shaped that would reach a message.
func TestDirectErrorsHideTokens(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	token := srv.MustCreate(t, "hide")
	share := released(t, get(t, mustT(t, directVault(t, srv), "restore", token), "share"))
	for _, method := range []string{"revoke", token} {
		_, err := callT(share, method, token)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), token[30:], method)
	}
}
