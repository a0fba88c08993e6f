package wire_test

import (
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

func newSeg(t *testing.T) *capnp.Segment {
	t.Helper()
	_, seg, err := capnp.NewMessage(capnp.SingleSegment(nil))
	require.NoError(t, err)
	return seg
}

// TestBatchRoundTrip: every op field survives the wire, including the
// difference between "no expected cursor" and "expected cursor 0".
func TestBatchRoundTrip(t *testing.T) {
	zero, five := sharevat.Cursor(0), sharevat.Cursor(5)
	in := &sharevat.Batch{BatchID: "b", Epoch: 3, Ops: []sharevat.Op{
		{OpID: "a", Seq: 0, Kind: "message", Key: "k", Body: []byte(`{"x":"é"}`), DependsOn: []string{"p", "q"}, ExpectedCursor: &zero},
		{OpID: "b", Seq: 1, Kind: "part", Key: "k2", Delete: true, ExpectedCursor: &five},
		{OpID: "c", Seq: 2, Kind: "event", Body: []byte(`{}`)},
	}}
	dst, err := schema.NewRootBatch(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetBatch(dst, in))
	out, err := wire.ReadBatch(dst)
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Nil(t, out.Ops[2].ExpectedCursor, "absent stays absent")
	assert.Equal(t, sharevat.Cursor(0), *out.Ops[0].ExpectedCursor, "expected cursor 0 is not absent")
}

func TestAckRoundTrip(t *testing.T) {
	in := sharevat.Ack{Head: 9, Results: []sharevat.OpResult{
		{OpID: "a", Status: sharevat.StatusApplied, Cursor: 9},
		{OpID: "b", Status: sharevat.StatusDuplicate, Cursor: 2},
		{OpID: "c", Status: sharevat.StatusRejected, Reason: sharevat.ReasonConflict, Message: "expected head 1, head is 8"},
	}}
	in.Count()
	dst, err := schema.NewRootAck(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetAck(dst, in))
	out, err := wire.ReadAck(dst)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}

// TestMetaPatchKeepsUnsetFields: a null text field means "not given", an
// empty one "clear it".
func TestMetaPatchKeepsUnsetFields(t *testing.T) {
	empty, title := "", "t"
	in := sharevat.MetaPatch{Title: &title, Directory: &empty, Status: sharevat.StatusBusy}
	dst, err := schema.NewRootMeta(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetMetaPatch(dst, in))
	out, err := wire.ReadMetaPatch(dst)
	require.NoError(t, err)
	assert.Equal(t, in, out)
	assert.Nil(t, out.ProjectID)
	assert.Nil(t, out.Version)
}

func TestGrantInfosCarryNoVerifier(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	in := []sharevat.Grant{{
		ID: "g", Parent: "p", Scope: sharevat.ScopeRead | sharevat.ScopeDelegate, Label: "l", Epoch: 2,
		CreatedBy: "127.0.0.1:1", CreatedAt: at, LastUsed: at.Add(time.Second), ExpiresAt: at.Add(time.Hour),
		Revoked: true, RevokedAt: at.Add(time.Minute), Verifier: []byte("secret-derived"),
	}}
	dst, err := schema.NewRootShare_grants_Results(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetGrantInfos(dst.NewGrants, in))
	l, err := dst.Grants()
	require.NoError(t, err)
	out, err := wire.ReadGrantInfos(l)
	require.NoError(t, err)
	want := in[0]
	want.Verifier = nil
	assert.Equal(t, []sharevat.Grant{want}, out)
}

func TestTimesAndScope(t *testing.T) {
	assert.Equal(t, int64(0), wire.Nanos(time.Time{}))
	assert.True(t, wire.Time(0).IsZero())
	now := time.Now().UTC()
	assert.True(t, now.Equal(wire.Time(wire.Nanos(now))))
	for s := sharevat.Scope(0); s <= sharevat.ScopeOwner; s++ {
		dst, err := schema.NewRootScope(newSeg(t))
		require.NoError(t, err)
		wire.SetScope(dst, s)
		assert.Equal(t, s, wire.ReadScope(dst))
	}
}
