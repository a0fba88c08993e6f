package vat

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/sturdyref"
)

// BenchmarkValidityCheck measures the check every call on a live
// capability pays: a live grant three levels deep, re-validated
// (revocation, fencing, expiry) and its rights checked.
func BenchmarkValidityCheck(b *testing.B) {
	f := benchFacet(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := f.check(sharevat.ScopeRead); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidityCheckParallel is the same check from every core at once.
func BenchmarkValidityCheckParallel(b *testing.B) {
	f := benchFacet(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := f.check(sharevat.ScopeRead); err != nil {
				b.Error(err)
			}
		}
	})
}

// benchFacet builds owner → child → grandchild and a facet on the last.
func benchFacet(b *testing.B) *facet {
	ctx := context.Background()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "db"), bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	pepper, _ := sturdyref.NewPepper(rand.Reader)
	ver, _ := sturdyref.NewVerifier(pepper)
	v, err := New(Config{Store: db, Verifier: ver})
	if err != nil {
		b.Fatal(err)
	}
	sh := sharevat.Share{ID: "benchshare", Epoch: 1}
	owner, _, _ := v.newGrant(sh.ID, "", sharevat.ScopeOwner, 1, time.Time{}, "owner", "local")
	if err := db.CreateShare(ctx, sh, owner); err != nil {
		b.Fatal(err)
	}
	id := owner.ID
	for range 2 {
		g, _, _ := v.newGrant(sh.ID, id, sharevat.ScopeRead|sharevat.ScopeDelegate, 1, time.Time{}, "child", "local")
		if err := db.CreateGrant(ctx, g); err != nil {
			b.Fatal(err)
		}
		id = g.ID
	}
	lg, err := v.reg.get(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	return &facet{vat: v, lg: lg, rights: lg.g.Scope, peer: "local"}
}
