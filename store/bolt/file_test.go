package bolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// createShare creates share id at epoch 1 with owner grant <id>-owner.
func createShare(tb testing.TB, db *bolt.DB, id sharevat.ShareID) {
	tb.Helper()
	s := sharevat.Share{ID: id, Epoch: 1, Meta: sharevat.Meta{Title: "t", CreatedAt: t0}}
	g := sharevat.Grant{ID: sharevat.GrantID(id) + "-owner", ShareID: id, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: t0}
	if err := db.CreateShare(context.Background(), s, g); err != nil {
		tb.Fatalf("CreateShare: %v", err)
	}
}

// event returns an event op with the given id and body.
func event(id, body string) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: sharevat.KindEvent, Body: []byte(body)}
}

// appendOps appends ops at epoch to share and fails tb on error.
func appendOps(tb testing.TB, db *bolt.DB, share sharevat.ShareID, epoch sharevat.Epoch, ops ...sharevat.Op) sharevat.Ack {
	tb.Helper()
	ack, err := db.Append(context.Background(), sharevat.AppendRequest{
		Share: share, Batch: &sharevat.Batch{BatchID: "b", Epoch: epoch, Ops: ops},
		Limits: sharevat.DefaultLimits(), Now: t0,
	})
	if err != nil {
		tb.Fatalf("Append: %v", err)
	}
	return ack
}

func TestReopen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := MustOpenAt(t, path, bolt.Options{})
	createShare(t, db, "s")
	ops := []sharevat.Op{event("a", `{}`), {OpID: "b", Kind: sharevat.KindMessage, Key: "m", Body: []byte(`{"x":1}`)}}
	appendOps(t, db, "s", 1, ops...)
	owner := sharevat.Grant{ID: "s-owner-2", ShareID: "s", Scope: sharevat.ScopeOwner, Epoch: 2, CreatedAt: t0}
	if _, err := db.BumpEpoch(ctx, "s", owner); err != nil {
		t.Fatal(err)
	}
	if err := db.Audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditBump, ShareID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = MustOpenAt(t, path, bolt.Options{})
	s, err := db.Share(ctx, "s")
	if err != nil || s.Head != 2 || s.Epoch != 2 || s.OwnerRoot != owner.ID {
		t.Fatalf("share after reopen = %+v, %v; want head 2, epoch 2, owner root %s", s, err, owner.ID)
	}
	ack := appendOps(t, db, "s", 2, append(ops, event("c", `{}`))...)
	if ack.Duplicates != 2 || ack.Applied != 1 || ack.Results[1].Cursor != 2 || ack.Head != 3 {
		t.Fatalf("append after reopen = %+v; want a, b duplicates at 1, 2 and c applied at 3", ack)
	}
	checkReopened(t, db)
}

// checkReopened checks the state TestReopen left in db.
func checkReopened(t *testing.T, db *bolt.DB) {
	ctx := t.Context()
	ents, head, err := db.Snapshot(ctx, "s")
	if err != nil || head != 3 || len(ents) != 1 || string(ents[0].Body) != `{"x":1}` {
		t.Errorf("snapshot after reopen = %+v, head %d, %v; want message m, head 3", ents, head, err)
	}
	gs, err := db.Grants(ctx, "s")
	if err != nil || len(gs) != 2 {
		t.Errorf("grants after reopen = %+v, %v; want 2", gs, err)
	}
	recs, err := db.AuditLog(ctx, "s", 0, 10)
	if err != nil || len(recs) != 1 || recs[0].Seq != 1 {
		t.Errorf("audit after reopen = %+v, %v; want one record with seq 1", recs, err)
	}
}

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := MustOpenAt(t, path, bolt.Options{})
	start := time.Now()
	second, err := bolt.Open(path, bolt.Options{LockTimeout: 100 * time.Millisecond})
	if err == nil {
		second.Close()
		t.Fatal("second Open of a held file succeeded")
	}
	if code := sharevat.ErrorCode(err); code != sharevat.EUnavailable {
		t.Errorf("second Open: code %q (%v), want unavailable", code, err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "in use by another sharevat process") {
		t.Errorf("second Open: message %q does not name the file and say it is in use", msg)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("second Open took %v; want about the lock timeout", waited)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	MustOpenAt(t, path, bolt.Options{LockTimeout: 100 * time.Millisecond})
}

func TestFileMode(t *testing.T) {
	db := MustOpen(t)
	fi, err := os.Stat(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("data file mode = %v, want 0600", got)
	}
}

func TestClosed(t *testing.T) {
	db := MustOpen(t)
	createShare(t, db, "s")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := db.Share(t.Context(), "s")
	if code := sharevat.ErrorCode(err); code != sharevat.EUnavailable {
		t.Errorf("Share after Close: code %q (%v), want unavailable", code, err)
	}
	_, err = db.Append(t.Context(), sharevat.AppendRequest{
		Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event("a", `{}`)}}, Limits: sharevat.DefaultLimits(),
	})
	if code := sharevat.ErrorCode(err); code != sharevat.EUnavailable {
		t.Errorf("Append after Close: code %q (%v), want unavailable", code, err)
	}
}

func TestCanceledContext(t *testing.T) {
	db := MustOpen(t)
	createShare(t, db, "s")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := db.Share(ctx, "s"); err == nil {
		t.Error("Share with a canceled context succeeded")
	}
	_, err := db.Append(ctx, sharevat.AppendRequest{
		Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event("a", `{}`)}}, Limits: sharevat.DefaultLimits(),
	})
	if err == nil {
		t.Error("Append with a canceled context succeeded")
	}
	if s, _ := db.Share(t.Context(), "s"); s.Head != 0 {
		t.Errorf("head after a canceled append = %d, want 0", s.Head)
	}
}

// TestConcurrentReadWrite runs readers alongside appenders, for -race.
func TestConcurrentReadWrite(t *testing.T) {
	db := MustOpen(t)
	createShare(t, db, "s")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 20 {
				_, err := db.Append(t.Context(), sharevat.AppendRequest{
					Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event(fmt.Sprint(w, "-", i), `{}`)}},
					Limits: sharevat.DefaultLimits(),
				})
				if _, _, rerr := db.Read(t.Context(), "s", 0, 100); err != nil || rerr != nil {
					t.Error(err, rerr)
				}
			}
		})
	}
	wg.Wait()
	if s, _ := db.Share(t.Context(), "s"); s.Head != 80 {
		t.Errorf("head = %d, want 80", s.Head)
	}
}

// TestSize: Size grows as data is stored, is page-aligned, stays within
// the file, and is 0 after Close.
func TestSize(t *testing.T) {
	db := MustOpen(t)
	createShare(t, db, "s")
	before := db.Size()
	require.Positive(t, before)
	body := `{"text":"` + strings.Repeat("x", 4000) + `"}`
	for i := range 50 {
		appendOps(t, db, "s", 1, event(fmt.Sprint("op-", i), body))
	}
	require.NoError(t, db.Flush(t.Context())) // Size counts the data file only
	after := db.Size()
	assert.Greater(t, after, before+50*4000, "50 ops of 4 KB are stored")
	assert.Zero(t, after%int64(os.Getpagesize()), "whole pages")
	st, err := os.Stat(db.Path())
	require.NoError(t, err)
	assert.LessOrEqual(t, after, st.Size(), "within the file")
	require.NoError(t, db.Close())
	assert.Zero(t, db.Size())
}
