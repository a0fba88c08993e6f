package capnweb_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestShareMethods drives the rest of the interface over Cap'n Web:
// delegation (grant, save, grants, revoke), metadata (update), the
// session's life (fork, children, settings, configure, compact,
// bumpEpoch, delete) and the admin's (list, statuses, resetOwner), with
// the result shapes of docs/capnweb.md.
func TestShareMethods(t *testing.T) {
	e := start(t, vattest.Options{})
	vault := e.dial(t)
	assert.Equal(t, capnweb.Undefined, must(t, vault, "ping"))
	lim := must(t, vault, "limits")
	assert.Equal(t, int64(sharevat.DefaultLimits().MaxBodyBytes), num(t, get(t, lim, "maxBodyBytes")))
	_, err := call(vault, "openAdmin")
	code, _ := codeOf(t, err)
	assert.Equal(t, "permissionDenied", code, "not an --open server")

	admin := stubOf(t, must(t, vault, "restoreAdmin", e.srv.Admin))
	created := must(t, admin, "createShare", capnweb.NewObject().Set("title", "life").Set("projectId", "p1"))
	share := stubOf(t, get(t, created, "share"))
	f := follow(t, e, get(t, get(t, created, "owner"), "token").(string))
	f.appendN(t, "x", 3, 10)

	info := must(t, share, "update", capnweb.NewObject().Set("title", "renamed").Set("directory", nil).Set("status", "error"))
	assert.Equal(t, "renamed", get(t, get(t, info, "meta"), "title"))
	assert.Equal(t, "p1", get(t, get(t, info, "meta"), "projectId"), "a missing field is left unchanged")
	assert.Equal(t, "error", get(t, get(t, info, "meta"), "status"))

	minted := must(t, share, "grant", capnweb.NewObject().Set("read", true), 60, "reader")
	assert.Equal(t, false, get(t, get(t, minted, "scope"), "append"))
	assert.IsType(t, time.Time{}, get(t, minted, "expiresAt"))
	saved := must(t, share, "save", 0, "copy")
	grants := must(t, share, "grants").([]capnweb.Value)
	assert.Len(t, grants, 3)
	assert.Equal(t, capnweb.Undefined, must(t, share, "revoke", get(t, minted, "grantId")))
	_, err = call(vault, "restore", get(t, minted, "token"))
	code, _ = codeOf(t, err)
	assert.Equal(t, "unauthorized", code, "the revoked grant's token")
	e.restore(t, get(t, saved, "token").(string))

	forked := must(t, share, "fork", 2, capnweb.NewObject().Set("title", "child"))
	stubOf(t, get(t, forked, "share"))
	assert.Equal(t, int64(2), num(t, get(t, get(t, forked, "info"), "head")))
	children := must(t, share, "children").([]capnweb.Value)
	require.Len(t, children, 1)
	assert.Equal(t, "child", get(t, get(t, children[0], "meta"), "title"))

	set := must(t, share, "configure", capnweb.NewObject().Set("privacy", "off").Set("retainOps", 10).Set("retainSeconds", 3600))
	assert.Equal(t, "off", get(t, set, "privacy"))
	assert.Equal(t, int64(3600), num(t, get(t, must(t, share, "settings"), "retainSeconds")))
	assert.Equal(t, int64(3), num(t, must(t, share, "compact", 3)))
	_, err = call(f.rd, "read", 0)
	code, msg := codeOf(t, err)
	assert.Equal(t, "compacted", code, msg)

	list := must(t, admin, "list", capnweb.NewObject().Set("projectId", "p1").Set("limit", 1))
	assert.Len(t, get(t, list, "shares").([]capnweb.Value), 1)
	next := get(t, list, "nextPageToken")
	list = must(t, admin, "list", capnweb.NewObject().Set("projectId", "p1").Set("pageToken", next))
	assert.Len(t, get(t, list, "shares").([]capnweb.Value), 1, "the fork kept the project: the second page")
	assert.Equal(t, "", get(t, list, "nextPageToken"))
	assert.Len(t, get(t, must(t, admin, "list"), "shares").([]capnweb.Value), 2, "no filter: every live share")
	assert.Len(t, must(t, admin, "statuses").([]capnweb.Value), 2)

	bumped := must(t, share, "bumpEpoch")
	assert.Equal(t, int64(2), num(t, get(t, bumped, "epoch")))
	_, err = call(share, "info")
	code, _ = codeOf(t, err)
	assert.Equal(t, "revoked", code, "the epoch bump fences the caller too")
	id := get(t, get(t, created, "info"), "id")
	reset := must(t, admin, "resetOwner", id)
	assert.Equal(t, int64(3), num(t, get(t, reset, "epoch")))
	owner := e.restore(t, get(t, get(t, reset, "owner"), "token").(string))
	assert.Equal(t, capnweb.Undefined, must(t, owner, "delete"))
	_, err = call(owner, "info")
	code, _ = codeOf(t, err)
	assert.Equal(t, "revoked", code, "a deleted share's capabilities")
}

// TestPipelining: the contract's one-round-trip append, restore →
// share → appender → append, pipelined on promises.
func TestPipelining(t *testing.T) {
	e := start(t, vattest.Options{})
	vault := e.dial(t)
	batch := capnweb.NewObject().Set("epoch", 1).Set("ops", []capnweb.Value{op("p", "event", "", json.Number("1"))})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := vault.Pipe("restore", e.srv.MustCreate(t, "pipe")).Get("share").Pipe("appender").Pipe("append", batch)
	defer p.Release()
	ack, err := p.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"applied", "none"}}, results(t, ack))

	bad := vault.Pipe("restore", "svt1_bad").Get("share").Pipe("appender")
	defer bad.Release()
	_, err = bad.Await(ctx)
	code, _ := codeOf(t, err)
	assert.Equal(t, "unauthorized", code, "a call pipelined on a failed restore")
}
