package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

var bg = context.Background()

// appendOps appends ops to sh in one batch and requires each applied.
func appendOps(t *testing.T, sh *client.Share, ops ...sharevat.Op) {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err)
	defer app.Release()
	ack, err := app.Append(bg, &sharevat.Batch{BatchID: "b-" + ops[0].OpID, Epoch: sh.Access.Epoch, Ops: ops})
	require.NoError(t, err)
	require.Equal(t, len(ops), ack.Applied, "%+v", ack.Results)
}

func msg(id, key, text string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: key, Body: []byte(fmt.Sprintf(`{"text":%q}`, text))}
}

func readLog(t *testing.T, sh *client.Share) ([]sharevat.Entry, []sharevat.Entity, sharevat.Cursor) {
	t.Helper()
	rd, err := sh.Reader(bg)
	require.NoError(t, err)
	defer rd.Release()
	var log []sharevat.Entry
	_, err = rd.ReadAll(bg, 0, func(es []sharevat.Entry) error { log = append(log, es...); return nil })
	require.NoError(t, err)
	state, cur, err := rd.Snapshot(bg)
	require.NoError(t, err)
	return log, state, cur
}

// TestForkThenReadBoth: a fork's log is the parent's ops 1..at (same op
// ids, batch ids, kinds, keys, bodies, times), its snapshot the parent's
// state at that cursor; later appends to either share do not reach the
// other; Children lists the fork with its fork cursor.
func TestForkThenReadBoth(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	parent := srv.MustRestore(t, srv.MustCreate(t, "parent"))
	appendOps(t, parent, msg("m1", "k1", "one"), msg("m2", "k2", "two"))
	appendOps(t, parent, msg("m3", "k1", "one, edited"), sharevat.Op{OpID: "d2", Kind: sharevat.KindMessage, Key: "k2", Delete: true})
	wantLog, _, _ := readLog(t, parent)

	// The parent's state at cursor 3, built from a share that stopped there.
	ref := srv.MustRestore(t, srv.MustCreate(t, "reference"))
	appendOps(t, ref, msg("m1", "k1", "one"), msg("m2", "k2", "two"))
	appendOps(t, ref, msg("m3", "k1", "one, edited"))
	_, wantState, _ := readLog(t, ref)

	fork, owner, err := parent.Fork(bg, 3, sharevat.MetaPatch{})
	require.NoError(t, err)
	t.Cleanup(fork.Release)
	assert.NotEmpty(t, owner.Token)
	assert.Equal(t, parent.Info.ID, fork.Info.ParentID)
	assert.Equal(t, sharevat.Cursor(3), fork.Info.ForkCursor)
	assert.Equal(t, "parent", fork.Info.Meta.Title, "the parent's title, not overridden")

	gotLog, gotState, cur := readLog(t, fork)
	assert.Equal(t, wantLog[:3], gotLog, "the fork's log is the parent's ops 1..3")
	assert.Equal(t, sharevat.Cursor(3), cur)
	for i := range gotState {
		gotState[i].At, wantState[i].At = time.Time{}, time.Time{}
	}
	assert.Equal(t, wantState, gotState, "the fork's state is the parent's at cursor 3")

	appendOps(t, fork, msg("f4", "k9", "fork only"))
	appendOps(t, parent, msg("p5", "k8", "parent only"))
	pLog, _, _ := readLog(t, parent)
	fLog, _, _ := readLog(t, fork)
	assert.Equal(t, []string{"m1", "m2", "m3", "d2", "p5"}, opIDs(pLog))
	assert.Equal(t, []string{"m1", "m2", "m3", "f4"}, opIDs(fLog))

	// A fork's op ids are its own: the parent's later op is new to it.
	appendOps(t, fork, msg("p5", "k8", "parent only"))

	kids, err := parent.Children(bg)
	require.NoError(t, err)
	require.Len(t, kids, 1)
	assert.Equal(t, fork.Info.ID, kids[0].ID)
	assert.Equal(t, sharevat.Cursor(3), kids[0].ForkCursor)
	assert.Equal(t, sharevat.Cursor(5), kids[0].Head)
}

func opIDs(es []sharevat.Entry) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].OpID
	}
	return out
}

// TestListFiltersAndPages: Admin.List filters by project, directory,
// status and parent, newest update first; pages of Limit shares follow
// each other through the page token without a gap or a repeat; ListAll
// follows them; deleted shares only on request.
func TestListFiltersAndPages(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	admin, err := srv.MustDial(t).RedeemAdmin(bg, srv.Admin)
	require.NoError(t, err)
	t.Cleanup(admin.Release)
	made := map[string]*client.Share{}
	for i := range 7 {
		proj, dir := fmt.Sprintf("p%d", i%2), "/d"
		title := fmt.Sprintf("s%d", i)
		sh, _, err := admin.CreateShare(bg, sharevat.MetaPatch{Title: &title, ProjectID: &proj, Directory: &dir})
		require.NoError(t, err)
		t.Cleanup(sh.Release)
		made[title] = sh
	}
	_, err = made["s2"].Update(bg, sharevat.MetaPatch{Status: sharevat.StatusBusy})
	require.NoError(t, err)
	appendOps(t, made["s0"], msg("x", "k", "moves s0 to the top"))
	fork, _, err := made["s0"].Fork(bg, 1, sharevat.MetaPatch{})
	require.NoError(t, err)
	t.Cleanup(fork.Release)

	titles := func(f sharevat.ListFilter) []string {
		var out []string
		for sh, err := range admin.ListAll(bg, f) {
			require.NoError(t, err)
			out = append(out, sh.Meta.Title)
		}
		return out
	}
	all := titles(sharevat.ListFilter{Limit: 3})
	require.Len(t, all, 8, "7 shares and a fork, over 3 pages")
	assert.Equal(t, []string{"s0", "s0", "s2"}, all[:3], "newest update first: the fork, the appended share, the updated one")
	assert.ElementsMatch(t, []string{"s0", "s0", "s2", "s4", "s6"}, titles(sharevat.ListFilter{ProjectID: "p0"}))
	assert.Equal(t, []string{"s2"}, titles(sharevat.ListFilter{Status: sharevat.StatusBusy}))
	assert.Empty(t, titles(sharevat.ListFilter{Directory: "/elsewhere"}))
	kids := titles(sharevat.ListFilter{ParentID: made["s0"].Info.ID})
	assert.Equal(t, []string{"s0"}, kids, "the fork keeps its parent's title")

	page, next, err := admin.List(bg, sharevat.ListFilter{Limit: 5})
	require.NoError(t, err)
	assert.Len(t, page, 5)
	assert.NotEmpty(t, next)
	rest, last, err := admin.List(bg, sharevat.ListFilter{Limit: 5, PageToken: next})
	require.NoError(t, err)
	assert.Len(t, rest, 3)
	assert.Empty(t, last, "the last page has no next")
	_, _, err = admin.List(bg, sharevat.ListFilter{PageToken: "not-a-token"})
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))

	require.NoError(t, made["s6"].Delete(bg))
	assert.NotContains(t, titles(sharevat.ListFilter{}), "s6")
	assert.Contains(t, titles(sharevat.ListFilter{WithDeleted: true}), "s6")
}

// TestStatuses: Share.Update sets the status and its time (the vat's
// clock); Admin.Statuses answers every live share's status.
func TestStatuses(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	srv := vattest.Start(t, vattest.Options{Config: func(c *vat.Config) { c.Now = func() time.Time { return at } }})
	a := srv.MustRestore(t, srv.MustCreate(t, "a"))
	b := srv.MustRestore(t, srv.MustCreate(t, "b"))
	info, err := a.Update(bg, sharevat.MetaPatch{Status: sharevat.StatusBusy})
	require.NoError(t, err)
	assert.Equal(t, sharevat.StatusBusy, info.Meta.Status)
	assert.Equal(t, at, info.Meta.StatusAt)

	admin, err := srv.MustDial(t).RedeemAdmin(bg, srv.Admin)
	require.NoError(t, err)
	t.Cleanup(admin.Release)
	sts, err := admin.Statuses(bg)
	require.NoError(t, err)
	got := map[sharevat.ShareID]sharevat.ShareStatus{}
	for _, s := range sts {
		got[s.ID] = s
	}
	require.Len(t, got, 2)
	assert.Equal(t, sharevat.ShareStatus{ID: a.Info.ID, Title: "a", Status: sharevat.StatusBusy, StatusAt: at}, got[a.Info.ID])
	assert.Equal(t, sharevat.StatusIdle, got[b.Info.ID].Status)
}

// TestSettingsAndCompact: Configure replaces the settings and answers
// them as stored; Settings reads them (read is enough); Compact answers
// the earliest readable cursor, and a read before it is ECompacted.
func TestSettingsAndCompact(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	owner := srv.MustRestore(t, srv.MustCreate(t, "settings"))
	set, err := owner.Settings(bg)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Settings{}, set, "redact, keep everything: the defaults")
	want := sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 100, RetainFor: 24 * time.Hour}
	got, err := owner.Configure(bg, want)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	m, err := owner.Grant(bg, sharevat.ScopeRead, 0, "reader")
	require.NoError(t, err)
	reader := srv.MustRestore(t, m.Token)
	got, err = reader.Settings(bg)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = reader.Configure(bg, sharevat.Settings{})
	assert.Equal(t, sharevat.EPermissionDenied, sharevat.ErrorCode(err))

	appendOps(t, owner, msg("m1", "k", "1"), msg("m2", "k", "2"), msg("m3", "k", "3"))
	earliest, err := owner.Compact(bg, 3)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(3), earliest)
	rd, err := reader.Reader(bg)
	require.NoError(t, err)
	_, _, err = rd.Read(bg, 0, 0)
	assert.Equal(t, sharevat.ECompacted, sharevat.ErrorCode(err))
	assert.Contains(t, err.Error(), "cursor 3")
}
