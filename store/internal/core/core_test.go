package core

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestNewShare: a valid new share is reset to an empty, unforked,
// uncompacted log owned by its grant; each bad pair is EInvalid and
// leaves the share as it was.
func TestNewShare(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s := sharevat.Share{ID: "s", Epoch: 2, Head: 9, Earliest: 5, Deleted: true, DeletedAt: at, ParentID: "p", ForkCursor: 3}
	owner := sharevat.Grant{ID: "g", ShareID: "s", Epoch: 2}
	require.NoError(t, NewShare(&s, &owner))
	assert.Equal(t, sharevat.Share{ID: "s", Epoch: 2, Earliest: 1, OwnerRoot: "g"}, s)
	for name, bad := range map[string]func(*sharevat.Share, *sharevat.Grant){
		"no share id":  func(s *sharevat.Share, _ *sharevat.Grant) { s.ID = "" },
		"no grant id":  func(_ *sharevat.Share, g *sharevat.Grant) { g.ID = "" },
		"other share":  func(_ *sharevat.Share, g *sharevat.Grant) { g.ShareID = "t" },
		"other epoch":  func(_ *sharevat.Share, g *sharevat.Grant) { g.Epoch = 3 },
		"bad privacy":  func(s *sharevat.Share, _ *sharevat.Grant) { s.Settings.Privacy = sharevat.PrivacyOff + 1 },
		"negative age": func(s *sharevat.Share, _ *sharevat.Grant) { s.Settings.RetainFor = -time.Second },
	} {
		s, owner := sharevat.Share{ID: "s", Epoch: 2, Head: 9}, sharevat.Grant{ID: "g", ShareID: "s", Epoch: 2}
		bad(&s, &owner)
		err := NewShare(&s, &owner)
		assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), name)
		assert.Equal(t, sharevat.Cursor(9), s.Head, "%s: the share is untouched", name)
	}
}

// TestForkAndCompactBounds: a fork is known from earliest-1 to the
// head; a compaction may drop up to the head, and drops nothing at or
// before earliest.
func TestForkAndCompactBounds(t *testing.T) {
	p := sharevat.Share{Head: 10, Earliest: 4}
	assert.NoError(t, CheckFork(&p, 3))
	assert.NoError(t, CheckFork(&p, 10))
	assert.Equal(t, sharevat.ECompacted, sharevat.ErrorCode(CheckFork(&p, 2)))
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(CheckFork(&p, 11)))
	for before, want := range map[sharevat.Cursor]bool{1: false, 4: false, 5: true, 11: true} {
		drop, err := CheckCompact(&p, before)
		require.NoError(t, err, "before %d", before)
		assert.Equal(t, want, drop, "before %d", before)
	}
	_, err := CheckCompact(&p, 12)
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))
}

// TestEpochAndMeta: an epoch bump takes exactly the next epoch and its
// owner; a status change stamps StatusAt, another patch does not.
func TestEpochAndMeta(t *testing.T) {
	s := sharevat.Share{ID: "s", Epoch: 1, OwnerRoot: "g1"}
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(CheckNewOwner("s", &sharevat.Grant{ID: "g2", ShareID: "t"})))
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(CheckNewOwner("s", &sharevat.Grant{ShareID: "s"})))
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(BumpEpoch(&s, &sharevat.Grant{ID: "g3", Epoch: 3})))
	require.NoError(t, BumpEpoch(&s, &sharevat.Grant{ID: "g2", Epoch: 2}))
	assert.Equal(t, sharevat.Share{ID: "s", Epoch: 2, OwnerRoot: "g2"}, s)

	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	title := "t"
	require.NoError(t, UpdateMeta(&s, sharevat.MetaPatch{Title: &title}, now))
	assert.True(t, s.Meta.StatusAt.IsZero())
	require.NoError(t, UpdateMeta(&s, sharevat.MetaPatch{Status: sharevat.StatusBusy}, now))
	assert.Equal(t, now, s.Meta.StatusAt)
}

// TestCheckAppendAndListLimit: an append needs a batch, valid limits
// and a live context (its error names the backend); a listing's page
// size defaults, is capped, and a negative limit or unknown status is
// EInvalid.
func TestCheckAppendAndListLimit(t *testing.T) {
	req := sharevat.AppendRequest{Share: "s", Limits: sharevat.DefaultLimits()}
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(CheckAppend(t.Context(), "bolt", &req)))
	req.Batch = &sharevat.Batch{}
	assert.NoError(t, CheckAppend(t.Context(), "bolt", &req))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := CheckAppend(ctx, "pg", &req)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorContains(t, err, "pg: append: ")

	for limit, want := range map[int]int{0: sharevat.DefaultListLimit, 3: 3, sharevat.MaxListLimit + 1: sharevat.MaxListLimit} {
		got, err := ListLimit(&sharevat.ListFilter{Limit: limit})
		require.NoError(t, err)
		assert.Equal(t, want, got, "limit %d", limit)
	}
	_, err = ListLimit(&sharevat.ListFilter{Limit: -1})
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))
	_, err = ListLimit(&sharevat.ListFilter{Status: sharevat.StatusError + 1})
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))
}

// TestRecordErrors: a damaged record's error is ErrCorrupt, keeps the
// first share and cursor named, and its answer is ECorrupt naming them
// but not the detail.
func TestRecordErrors(t *testing.T) {
	assert.NoError(t, BadRecord("s", 3, nil))
	err := BadRecord("s", 3, errors.New("digest mismatch"))
	assert.ErrorIs(t, err, ErrCorrupt)
	wrapped := BadRecord("t", 9, fmt.Errorf("reading: %w", err))
	var re *RecordError
	require.ErrorAs(t, wrapped, &re)
	assert.Equal(t, RecordError{Share: "s", Cursor: 3, Detail: "digest mismatch"}, *re)
	answer := Corrupt(re)
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(answer))
	assert.Contains(t, answer.Error(), "share s, cursor 3")
	assert.NotContains(t, answer.Error(), "digest mismatch")
	assert.ErrorIs(t, BadRecordf("s", 4, "a digest of %d bytes", 7), ErrCorrupt)
	assert.Equal(t, sharevat.ENotFound, sharevat.ErrorCode(NotFound("s")))
	assert.Equal(t, sharevat.ECompacted, sharevat.ErrorCode(Compacted(5)))
	v, err := OrZero(7, errors.New("x"))
	assert.Equal(t, 0, v)
	assert.Error(t, err)
}
