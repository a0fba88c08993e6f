package bolt_test

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestWALBackpressure: the log not yet in the data file stays within
// Options.MaxPendingBytes (plus one group). While the applier works,
// appends past the bound wait for it; while it keeps failing (a full
// disk), they are refused with EUnavailable and leave nothing behind;
// once it succeeds again, appends go on, and every acknowledged op is
// there once.
func TestWALBackpressure(t *testing.T) {
	const bound = 64 << 10
	path := filepath.Join(t.TempDir(), "sharevat.db")
	opts := noApply()
	opts.MaxPendingBytes = bound
	db := openDB(t, path, opts)
	createShare(t, db, "s")
	body := `{"t":"` + strings.Repeat("x", 1000) + `"}`
	acked := 0
	for i := range 400 { // ~400 KiB: six times the bound, with no applier of its own
		appendOps(t, db, "s", 1, event("w"+strconv.Itoa(i), body))
		acked++
		require.Less(t, bolt.PendingBytes(db), int64(bound+2<<10))
	}

	full := errors.New("no space left on device")
	bolt.FailApply(db, func() error { return full })
	refused := 0
	for i := range 200 {
		_, err := db.Append(t.Context(), sharevat.AppendRequest{Share: "s", Limits: sharevat.DefaultLimits(), Now: t0,
			Batch: &sharevat.Batch{BatchID: "b", Epoch: 1, Ops: []sharevat.Op{event("f"+strconv.Itoa(i), body)}}})
		if err != nil {
			require.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "%v", err)
			refused++
			continue
		}
		require.Zero(t, refused, "once refused, refused until the applier succeeds")
		acked++
		require.Less(t, bolt.PendingBytes(db), int64(bound+2<<10))
	}
	assert.Positive(t, refused)

	bolt.FailApply(db, nil)
	appendOps(t, db, "s", 1, event("after", body)) // waits for one good attempt
	acked++
	es, head := readAll(t, db, "s")
	assert.Equal(t, sharevat.Cursor(acked), head)
	assert.Len(t, es, acked)
	require.NoError(t, db.Close())
	requireClean(t, path)
}
