package bolt_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestWALPipelineStress: many clients append to a few shares while the
// applier runs all the time (groups are decided while earlier ones are
// still syncing, and the overlay is trimmed under them); every fifth
// call re-sends an earlier batch of its client. Every acknowledged op
// has one cursor, re-sent ones are answered as duplicates at that
// cursor, each share's log holds exactly the acknowledged ops at their
// cursors, before and after a crash and replay.
func TestWALPipelineStress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	opts := bolt.Options{ApplyBytes: 2 << 10, ApplyEvery: time.Millisecond}
	db := openDB(t, path, opts)
	shares := []sharevat.ShareID{"p", "q", "r"}
	for _, s := range shares {
		createShare(t, db, s)
	}
	const clients, calls = 16, 60
	var mu sync.Mutex
	acked := map[string]sharevat.Cursor{}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			share := shares[c%len(shares)]
			var sent []*sharevat.Batch
			for i := range calls {
				b := &sharevat.Batch{BatchID: "b", Epoch: 1}
				if i%5 == 4 {
					b = sent[i/2]
				} else {
					for j := range 1 + i%3 {
						b.Ops = append(b.Ops, event(fmt.Sprintf("c%d-%d-%d", c, i, j), `{}`))
					}
				}
				sent = append(sent, b)
				ack, err := db.Append(t.Context(), sharevat.AppendRequest{Share: share, Batch: b, Limits: sharevat.DefaultLimits(), Now: t0})
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				for k, r := range ack.Results {
					op := b.Ops[k].OpID
					if prev, ok := acked[op]; ok {
						assert.Equal(t, sharevat.StatusDuplicate, r.Status, op)
						assert.Equal(t, prev, r.Cursor, "%s answered at its cursor", op)
					} else {
						assert.Equal(t, sharevat.StatusApplied, r.Status, op)
						acked[op] = r.Cursor
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	check := func(db *bolt.DB) {
		total := 0
		for _, s := range shares {
			es, head := readAll(t, db, s)
			require.Len(t, es, int(head))
			for i, e := range es {
				assert.Equal(t, sharevat.Cursor(i+1), e.Cursor)
				assert.Equal(t, acked[e.OpID], e.Cursor, e.OpID)
			}
			total += len(es)
		}
		assert.Equal(t, len(acked), total, "exactly the acknowledged ops")
	}
	check(db)
	require.NoError(t, bolt.Crash(db))
	requireClean(t, path)
	db = openDB(t, path, noApply())
	check(db)
	require.NoError(t, db.Close())
	requireClean(t, path)
}
