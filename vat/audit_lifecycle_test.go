package vat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestLifecycleAudit: fork, configure, compact and delete each write an
// audit record on the share they touched (the fork's on the new share),
// naming the grant that acted, its scope and epoch and the peer, with
// result ok; the retention job's compactions are not audited, and a
// compaction that drops nothing writes no record.
func TestLifecycleAudit(t *testing.T) { onEachStore(t, testLifecycleAudit) }

func testLifecycleAudit(t *testing.T, on storeKind) {
	d := newRetentionDriver()
	tv := on.serveConfig(t, nil, d.config(0))
	a := tv.MustRestore(t, tv.MustCreate(t, "audited"))
	appendN(t, a, "a", 6, 6, `{}`)
	reader := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend, 0, "reader").Token)

	fork, _, err := reader.Fork(bg, 2, sharevat.MetaPatch{})
	require.NoError(t, err)
	_, err = a.Configure(bg, sharevat.Settings{Privacy: sharevat.PrivacyReject})
	require.NoError(t, err)
	_, err = a.Compact(bg, 3)
	require.NoError(t, err)
	_, err = a.Compact(bg, 2) // below the earliest: drops nothing
	require.NoError(t, err)
	_, err = a.Configure(bg, sharevat.Settings{RetainOps: 2})
	require.NoError(t, err)
	d.drain(t)
	require.Equal(t, sharevat.Cursor(5), earliestOf(t, a), "the retention job compacted")
	require.NoError(t, a.Delete(bg))

	tv.Vat.SyncAudit()
	got := lifecycleRecords(t, tv, a.Info.ID)
	want := []sharevat.AuditAction{sharevat.AuditConfigure, sharevat.AuditCompact, sharevat.AuditConfigure, sharevat.AuditDelete}
	require.Equal(t, want, actions(got), "the lifecycle records of the share, in order")
	for _, r := range got {
		assert.Equal(t, a.Access.GrantID, r.GrantID, "%s names the owner grant", r.Action)
		assert.Equal(t, sharevat.ScopeOwner, r.Scope, "%s: the scope", r.Action)
		assert.Equal(t, sharevat.Epoch(1), r.Epoch, "%s: the epoch", r.Action)
		assert.NotEmpty(t, r.Peer, "%s: the peer", r.Action)
		assert.Equal(t, "ok", r.Result, "%s: the result", r.Action)
	}

	got = lifecycleRecords(t, tv, fork.Info.ID)
	require.Equal(t, []sharevat.AuditAction{sharevat.AuditFork}, actions(got), "the fork's record is on the new share")
	assert.Equal(t, reader.Access.GrantID, got[0].Parent, "it names the grant that forked")
	assert.Equal(t, fork.Access.GrantID, got[0].GrantID, "and the fork's owner grant")
}

// lifecycleRecords returns share's audit records of the session
// lifecycle (fork, configure, compact, delete), oldest first.
func lifecycleRecords(t *testing.T, tv *testVat, share sharevat.ShareID) []sharevat.AuditRecord {
	t.Helper()
	recs, err := tv.Store.AuditLog(bg, share, 0, 1000)
	require.NoError(t, err)
	var out []sharevat.AuditRecord
	for _, r := range recs {
		switch r.Action {
		case sharevat.AuditFork, sharevat.AuditConfigure, sharevat.AuditCompact, sharevat.AuditDelete:
			out = append(out, r)
		}
	}
	return out
}

func actions(recs []sharevat.AuditRecord) []sharevat.AuditAction {
	out := make([]sharevat.AuditAction, len(recs))
	for i := range recs {
		out[i] = recs[i].Action
	}
	return out
}
