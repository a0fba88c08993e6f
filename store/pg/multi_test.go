package pg_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/store/pg"
)

// mustConn is a plain connection to dsn, closed when t ends.
func mustConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(t.Context()) })
	return conn
}

// TestMigrateConcurrent: stores opened at once on an empty database
// apply each migration once, and opening again changes nothing.
func TestMigrateConcurrent(t *testing.T) {
	dsn := pgtest.DB(t)
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			st, err := pg.Open(t.Context(), dsn, pg.Options{})
			if err == nil {
				err = st.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "open %d", i)
	}
	MustOpenDSN(t, dsn)
	var versions []int
	rows, err := mustConn(t, dsn).Query(t.Context(), "SELECT version FROM schema_migrations ORDER BY version")
	require.NoError(t, err)
	versions, err = pgx.CollectRows(rows, pgx.RowTo[int])
	require.NoError(t, err)
	want := []int{}
	for v := 1; v <= pg.SchemaVersion(); v++ {
		want = append(want, v)
	}
	assert.Equal(t, want, versions, "each migration recorded once")
}

// TestMigrateRefusesNewer: a database migrated by a newer build is
// refused, not written.
func TestMigrateRefusesNewer(t *testing.T) {
	dsn := pgtest.DB(t)
	MustOpenDSN(t, dsn)
	_, err := mustConn(t, dsn).Exec(t.Context(), "INSERT INTO schema_migrations (version, name) VALUES (999, 'future')")
	require.NoError(t, err)
	_, err = pg.Open(t.Context(), dsn, pg.Options{})
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), "err %v", err)
}

// TestTwoStoresOneShare: two stores on one database (as two vats) append
// to one share at once: every op is applied once, at cursors 1..n with
// no gap, in the order the log gives; then each store answers the
// other's ops as duplicates at their cursors.
func TestTwoStoresOneShare(t *testing.T) {
	dsn := pgtest.DB(t)
	stores := []*pg.Store{MustOpenDSN(t, dsn), MustOpenDSN(t, dsn)}
	createShare(t, stores[0], "s")
	const writers, batches = 6, 8
	sent := make([]*sharevat.Batch, 0, writers*batches)
	acks := make([]sharevat.Ack, writers*batches)
	for w := range writers {
		for i := range batches {
			sent = append(sent, eventBatch(fmt.Sprintf("w%d-b%d", w, i), 3))
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		wg.Go(func() {
			st := stores[w%2]
			for i := range batches {
				k := w*batches + i
				if acks[k], errs[w] = appendTo(t, st, "s", sent[k]); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	byOp := map[string]sharevat.Cursor{}
	var cursors []sharevat.Cursor
	for _, ack := range acks {
		for _, r := range ack.Results {
			require.Equal(t, sharevat.StatusApplied, r.Status, "op %s", r.OpID)
			byOp[r.OpID] = r.Cursor
			cursors = append(cursors, r.Cursor)
		}
	}
	slices.Sort(cursors)
	for i, c := range cursors {
		require.Equal(t, sharevat.Cursor(i+1), c, "cursors are 1..n without gap or repeat")
	}
	entries, head, err := stores[1].Read(t.Context(), "s", 0, 1000)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(len(cursors)), head)
	for _, e := range entries {
		require.Equal(t, byOp[e.OpID], e.Cursor, "the log holds op %s where its ack said", e.OpID)
	}
	for k, b := range sent {
		ack, err := appendTo(t, stores[(k+1)%2], "s", b) // through the other store
		require.NoError(t, err)
		for i, r := range ack.Results {
			assert.Equal(t, sharevat.StatusDuplicate, r.Status)
			assert.Equal(t, acks[k].Results[i].Cursor, r.Cursor, "a retry through the other store is a duplicate at its cursor")
		}
	}
}

// TestTwoStoresRace: the same batch sent through two stores at once (a
// retry racing its original on another vat) is applied once.
func TestTwoStoresRace(t *testing.T) {
	dsn := pgtest.DB(t)
	stores := []*pg.Store{MustOpenDSN(t, dsn), MustOpenDSN(t, dsn)}
	createShare(t, stores[0], "s")
	for round := range 10 {
		b := eventBatch(fmt.Sprintf("r%d", round), 2)
		acks := make([]sharevat.Ack, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range acks {
			wg.Go(func() { acks[i], errs[i] = appendTo(t, stores[i%2], "s", b) })
		}
		wg.Wait()
		applied := 0
		for i, ack := range acks {
			require.NoError(t, errs[i])
			applied += ack.Applied
			for j, r := range ack.Results {
				assert.Equal(t, sharevat.Cursor(2*round+j+1), r.Cursor, "round %d op %d", round, j)
			}
		}
		assert.Equal(t, 2, applied, "round %d: each op applied once across the stores", round)
	}
}

// TestGroupCommit: concurrent appends of one store, to several shares,
// share transactions, and each is acknowledged only once committed.
func TestGroupCommit(t *testing.T) {
	var mu sync.Mutex
	calls, commits := 0, 0
	st, err := pg.Open(t.Context(), pgtest.DB(t), pg.Options{OnCommit: func(n, ops int, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		calls, commits = calls+n, commits+1
	}})
	require.NoError(t, err)
	defer st.Close()
	for _, id := range []sharevat.ShareID{"a", "b"} {
		createShare(t, st, id)
	}
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := appendTo(t, st, []sharevat.ShareID{"a", "b"}[i%2], eventBatch(fmt.Sprint("g", i), 1))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, n, calls, "every append committed")
	assert.Less(t, commits, n, "some appends shared a transaction")
	for _, id := range []sharevat.ShareID{"a", "b"} {
		s, err := st.Share(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, sharevat.Cursor(n/2), s.Head)
	}
}

// TestClosed: after Close every method is unavailable.
func TestClosed(t *testing.T) {
	st := MustOpen(t)
	createShare(t, st, "s")
	require.NoError(t, st.Close())
	_, err := st.Share(t.Context(), "s")
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err))
	_, err = appendTo(t, st, "s", eventBatch("x", 1))
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err))
}

// createShare creates share id at epoch 1 with an owner grant.
func createShare(t *testing.T, st *pg.Store, id sharevat.ShareID) {
	t.Helper()
	now := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	s := sharevat.Share{ID: id, Epoch: 1, Meta: sharevat.Meta{Title: string(id), CreatedAt: now, UpdatedAt: now}}
	owner := sharevat.Grant{ID: sharevat.GrantID(id) + "-owner", ShareID: id, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: now}
	require.NoError(t, st.CreateShare(t.Context(), s, owner))
}

// eventBatch is a batch of n events with op ids <prefix>-0…
func eventBatch(prefix string, n int) *sharevat.Batch {
	b := &sharevat.Batch{BatchID: prefix, Epoch: 1}
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		b.Ops = append(b.Ops, sharevat.Op{OpID: id, Seq: uint32(i), Kind: sharevat.KindEvent, Body: fmt.Appendf(nil, `{"id":%q}`, id)})
	}
	return b
}

// appendTo appends b to share through st.
func appendTo(t *testing.T, st *pg.Store, share sharevat.ShareID, b *sharevat.Batch) (sharevat.Ack, error) {
	return st.Append(t.Context(), sharevat.AppendRequest{Share: share, Batch: b, Limits: sharevat.DefaultLimits(), Now: time.Now()})
}
