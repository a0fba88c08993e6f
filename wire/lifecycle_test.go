package wire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// TestSettingsRoundTrip: every policy and retention survives the wire;
// a retention by age under a second is rounded up, never turned off.
func TestSettingsRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want sharevat.Settings }{
		{sharevat.Settings{}, sharevat.Settings{}},
		{sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 10}, sharevat.Settings{Privacy: sharevat.PrivacyReject, RetainOps: 10}},
		{sharevat.Settings{Privacy: sharevat.PrivacyOff, RetainFor: time.Hour}, sharevat.Settings{Privacy: sharevat.PrivacyOff, RetainFor: time.Hour}},
		{sharevat.Settings{RetainFor: time.Millisecond}, sharevat.Settings{RetainFor: time.Second}},
	} {
		dst, err := schema.NewRootSettings(newSeg(t))
		require.NoError(t, err)
		wire.SetSettings(dst, tc.in)
		got, err := wire.ReadSettings(dst)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

// TestSettingsRefusesWhatItDoesNotKnow: an unknown policy or a retention
// out of range is invalid, not silently mapped.
func TestSettingsRefusesWhatItDoesNotKnow(t *testing.T) {
	for name, set := range map[string]func(schema.Settings){
		"unknown privacy": func(s schema.Settings) { s.SetPrivacy(schema.Privacy(7)) },
		"negative age":    func(s schema.Settings) { s.SetRetainSeconds(-1) },
		"age too long":    func(s schema.Settings) { s.SetRetainSeconds(int64(wire.MaxRetainFor/time.Second) + 1) },
	} {
		dst, err := schema.NewRootSettings(newSeg(t))
		require.NoError(t, err)
		set(dst)
		_, err = wire.ReadSettings(dst)
		assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), name)
	}
}

// TestShareInfoCarriesLineageAndCompaction: the parent, fork cursor,
// deletion flag, earliest cursor and status time survive the wire; the
// owner grant, deletion time and settings do not travel.
func TestShareInfoCarriesLineageAndCompaction(t *testing.T) {
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	in := sharevat.Share{
		ID: "child", Epoch: 2, Head: 9, Deleted: true, ParentID: "parent", ForkCursor: 4, Earliest: 3,
		Meta:      sharevat.Meta{Title: "t", Status: sharevat.StatusBusy, CreatedAt: at, UpdatedAt: at.Add(time.Second), StatusAt: at.Add(time.Minute)},
		OwnerRoot: "secret-ish", DeletedAt: at, Settings: sharevat.Settings{RetainOps: 5},
	}
	dst, err := schema.NewRootShareInfo(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetShareInfo(dst, in))
	out, err := wire.ReadShareInfo(dst)
	require.NoError(t, err)
	want := in
	want.OwnerRoot, want.DeletedAt, want.Settings = "", time.Time{}, sharevat.Settings{}
	assert.Equal(t, want, out)
}

// TestListFilterRoundTrip: every field of a filter survives the wire; a
// status the version does not know is invalid.
func TestListFilterRoundTrip(t *testing.T) {
	in := sharevat.ListFilter{ProjectID: "p", Directory: "/d", Status: sharevat.StatusError, ParentID: "x",
		WithDeleted: true, Limit: 7, PageToken: "opaque"}
	dst, err := schema.NewRootListFilter(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetListFilter(dst, in))
	out, err := wire.ReadListFilter(dst)
	require.NoError(t, err)
	assert.Equal(t, in, out)

	dst.SetStatus(schema.Status(9))
	_, err = wire.ReadListFilter(dst)
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))
}

func TestShareStatusesRoundTrip(t *testing.T) {
	in := []sharevat.ShareStatus{
		{ID: "a", Title: "one", Status: sharevat.StatusBusy, StatusAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
		{ID: "b", Status: sharevat.StatusIdle},
	}
	dst, err := schema.NewRootAdmin_statuses_Results(newSeg(t))
	require.NoError(t, err)
	require.NoError(t, wire.SetShareStatuses(dst.NewStatuses, in))
	l, err := dst.Statuses()
	require.NoError(t, err)
	out, err := wire.ReadShareStatuses(l)
	require.NoError(t, err)
	assert.Equal(t, in, out)
}
