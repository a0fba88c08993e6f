package bolt_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/storetest"
)

// MustOpen opens a durable DB in a new temporary directory and closes it
// when tb ends.
func MustOpen(tb testing.TB) *bolt.DB {
	tb.Helper()
	return MustOpenAt(tb, filepath.Join(tb.TempDir(), "sharevat.db"), bolt.Options{})
}

// MustOpenAt opens the DB at path with opts and closes it when tb ends.
// Closing twice is harmless, so tests may close it early.
func MustOpenAt(tb testing.TB, path string, opts bolt.Options) *bolt.DB {
	tb.Helper()
	db, err := bolt.Open(path, opts)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sharevat.Store { return MustOpen(t) })
}

// TestOnCommit: the commit hook reports every durable append transaction
// with its calls and ops.
func TestOnCommit(t *testing.T) {
	type commit struct{ calls, ops int }
	got := make(chan commit, 10)
	db, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{
		OnCommit: func(calls, ops int, took time.Duration) {
			assert.Positive(t, took)
			got <- commit{calls, ops}
		},
	})
	require.NoError(t, err)
	defer db.Close()
	ctx := context.Background()
	sh := sharevat.Share{ID: "s", Epoch: 1}
	require.NoError(t, db.CreateShare(ctx, sh, sharevat.Grant{ID: "g", ShareID: "s", Epoch: 1, Scope: sharevat.ScopeOwner}))
	batch := &sharevat.Batch{BatchID: "b", Epoch: 1, Ops: []sharevat.Op{
		{OpID: "a", Kind: "event", Body: []byte(`{}`)}, {OpID: "b", Kind: "event", Body: []byte(`{}`)},
	}}
	_, err = db.Append(ctx, sharevat.AppendRequest{Share: "s", Batch: batch, Limits: sharevat.DefaultLimits(), Now: time.Now()})
	require.NoError(t, err)
	assert.Equal(t, commit{1, 2}, <-got)
}
