package vaultcopy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// t0 is the time of the fixture's first write; each write is a second
// after the one before (clock).
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// vault is the fixture a test builds on a store: the ops sent to each
// share in cursor order (a fork's begin with its parent's up to the
// fork cursor), and a clock for the next write.
type vault struct {
	st   sharevat.Store
	now  time.Time
	sent map[sharevat.ShareID][]sharevat.Op
}

// clock returns the time of the next write.
func (v *vault) clock() time.Time {
	v.now = v.now.Add(time.Second)
	return v.now
}

// mustBolt opens a new bbolt file in t's temporary directory.
func mustBolt(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "sharevat.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mustPG opens a new, empty PostgreSQL database; it returns the store
// and its URL.
func mustPG(t *testing.T) (*pg.Store, string) {
	t.Helper()
	dsn := pgtest.DB(t)
	st, err := pg.Open(t.Context(), dsn, pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dsn
}

// share returns a share and its owner grant, made now.
func (v *vault) share(id string) (sharevat.Share, sharevat.Grant) {
	at := v.clock()
	s := sharevat.Share{ID: sharevat.ShareID(id), Epoch: 1, OwnerRoot: sharevat.GrantID(id + "-owner"),
		Meta: sharevat.Meta{Title: "title " + id, Status: sharevat.StatusIdle, CreatedAt: at, UpdatedAt: at}}
	return s, v.grant(id, "", sharevat.ScopeOwner, id+"-owner")
}

// grant returns a grant of share (parent "" for a root grant) made now.
func (v *vault) grant(share string, parent sharevat.GrantID, scope sharevat.Scope, id string) sharevat.Grant {
	return sharevat.Grant{ID: sharevat.GrantID(id), ShareID: sharevat.ShareID(share), Parent: parent, Scope: scope, Epoch: 1,
		Verifier: []byte("verifier-" + id), Label: id, CreatedBy: "peer", CreatedAt: v.clock()}
}

// create creates share id.
func (v *vault) create(t *testing.T, id string) {
	t.Helper()
	s, owner := v.share(id)
	must(t, v.st.CreateShare(t.Context(), s, owner))
}

// fork forks parent at cursor at into a new share id.
func (v *vault) fork(t *testing.T, parent, id string, at sharevat.Cursor) {
	t.Helper()
	s, owner := v.share(id)
	_, err := v.st.Fork(t.Context(), sharevat.ShareID(parent), at, s, owner)
	must(t, err)
	v.sent[s.ID] = append([]sharevat.Op(nil), v.sent[sharevat.ShareID(parent)][:at]...)
}

// write appends n ops to share id, one a batch, numbered from first:
// message m<i%4> rewritten, every fifth op an event, every seventh a
// deletion.
func (v *vault) write(t *testing.T, id string, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		op := sharevat.Op{OpID: fmt.Sprintf("op%d", i), Kind: sharevat.KindMessage, Key: fmt.Sprintf("m%d", i%4), Body: fmt.Appendf(nil, `{"n":%d}`, i)}
		switch {
		case i%5 == 4:
			op.Kind, op.Key = sharevat.KindEvent, ""
		case i%7 == 6:
			op.Delete, op.Body = true, nil
		}
		ack := appendOps(t, v.st, id, v.clock(), "b-"+op.OpID, op)
		if ack.Applied != 1 {
			t.Fatalf("op %s: %d applied, want 1", op.OpID, ack.Applied)
		}
		v.sent[sharevat.ShareID(id)] = append(v.sent[sharevat.ShareID(id)], op)
	}
}

// appendOps appends ops to share id in one batch at now.
func appendOps(t *testing.T, st sharevat.Store, id string, now time.Time, batchID string, ops ...sharevat.Op) sharevat.Ack {
	t.Helper()
	b := &sharevat.Batch{BatchID: batchID, Epoch: 1, Ops: ops}
	for i := range b.Ops {
		b.Ops[i].Seq = uint32(i + 1)
	}
	ack, err := st.Append(t.Context(), sharevat.AppendRequest{Share: sharevat.ShareID(id), Batch: b, Limits: sharevat.DefaultLimits(), Now: now})
	must(t, err)
	return ack
}

// buildVault writes the fixture into st: share a (3 ops, forked at 3
// into f, which gets 5 ops of its own; 9 more ops, compacted before
// cursor 8, 4 more; forked at 10 into g after the compaction, so g is
// compacted too; a read grant and a revoked one); share d (3 ops, a read
// grant, forked at 3 into df, which gets 2 ops, then d deleted); an
// admin grant and three audit records.
func buildVault(t *testing.T, st sharevat.Store) *vault {
	t.Helper()
	ctx := t.Context()
	v := &vault{st: st, now: t0, sent: map[sharevat.ShareID][]sharevat.Op{}}
	v.create(t, "a")
	v.write(t, "a", 0, 3)
	v.fork(t, "a", "f", 3)
	v.write(t, "f", 100, 5)
	v.write(t, "a", 3, 9)
	earliest, err := st.Compact(ctx, "a", 8)
	must(t, err)
	if earliest != 8 {
		t.Fatalf("Compact(a, 8) = %d, want 8", earliest)
	}
	v.write(t, "a", 12, 4)
	v.fork(t, "a", "g", 10)
	must(t, st.CreateGrant(ctx, v.grant("a", "a-owner", sharevat.ScopeRead, "a-read")))
	must(t, st.CreateGrant(ctx, v.grant("a", "a-owner", sharevat.ScopeRead, "a-gone")))
	must(t, st.RevokeGrants(ctx, []sharevat.GrantID{"a-gone"}, v.clock()))
	v.create(t, "d")
	v.write(t, "d", 200, 3)
	must(t, st.CreateGrant(ctx, v.grant("d", "d-owner", sharevat.ScopeRead, "d-read")))
	v.fork(t, "d", "df", 3)
	v.write(t, "df", 300, 2)
	must(t, st.Delete(ctx, "d", v.clock()))
	must(t, st.CreateGrant(ctx, v.grant("", "", sharevat.ScopeAdmin, "admin")))
	for _, a := range []sharevat.AuditAction{sharevat.AuditCreate, sharevat.AuditMint, sharevat.AuditRedeem} {
		must(t, st.Audit(ctx, sharevat.AuditRecord{At: v.clock(), Action: a, ShareID: "a", GrantID: "a-owner", Scope: sharevat.ScopeOwner, Epoch: 1, Peer: "peer", Result: "ok"}))
	}
	return v
}

// must fails t on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
