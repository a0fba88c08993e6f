package pg_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
)

// TestForkWithinTwoStores: two stores on one database (as two vats)
// fork one share at once, 8 forks each, with a limit of 3 live forks:
// exactly 3 are made, the rest refused tooLarge with the vat's words,
// and deleting one frees its place.
func TestForkWithinTwoStores(t *testing.T) {
	dsn := pgtest.DB(t)
	a, b := MustOpenDSN(t, dsn), MustOpenDSN(t, dsn)
	createShare(t, a, "p")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		made    []sharevat.ShareID
		refused int
	)
	for i := range 16 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Go(func() {
			s, owner := forkOf(i)
			got, err := st.ForkWithin(t.Context(), "p", 0, s, owner, sharevat.ForkQuota{MaxForks: 3})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made = append(made, got.ID)
			case sharevat.ErrorCode(err) == sharevat.ETooLarge:
				assert.Equal(t, "this share has 3 live forks (the limit is 3); delete some first", sharevat.ErrorMessage(err))
				refused++
			default:
				t.Errorf("fork %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	assert.Len(t, made, 3, "live forks made")
	assert.Equal(t, 13, refused)
	kids, err := b.Children(t.Context(), "p")
	require.NoError(t, err)
	assert.Len(t, kids, 3)

	require.NoError(t, a.Delete(t.Context(), made[0], time.Now()))
	s, owner := forkOf(99)
	_, err = b.ForkWithin(t.Context(), "p", 0, s, owner, sharevat.ForkQuota{MaxForks: 3})
	assert.NoError(t, err, "a deleted fork frees its place")
}

// forkOf is fork i's share record and owner grant.
func forkOf(i int) (sharevat.Share, sharevat.Grant) {
	id := sharevat.ShareID(fmt.Sprint("f", i))
	s := sharevat.Share{ID: id, Epoch: 1, Meta: sharevat.Meta{Title: string(id), CreatedAt: time.Now()}}
	owner := sharevat.Grant{ID: sharevat.GrantID(id + "-owner"), ShareID: id, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: time.Now()}
	return s, owner
}

// TestForkWithinTreeTwoStores: two stores on one database fork one fork
// tree at once — its root and a fork of it, 8 forks each — with a limit
// of 4 live forks in the tree: exactly 3 more are made (the first fork
// is one of the 4), the rest refused tooLarge with the tree's words.
func TestForkWithinTreeTwoStores(t *testing.T) {
	dsn := pgtest.DB(t)
	a, b := MustOpenDSN(t, dsn), MustOpenDSN(t, dsn)
	createShare(t, a, "p")
	s, owner := forkOf(100)
	_, err := a.Fork(t.Context(), "p", 0, s, owner)
	require.NoError(t, err)
	q := sharevat.ForkQuota{MaxTreeForks: 4}
	var (
		wg            sync.WaitGroup
		mu            sync.Mutex
		made, refused int
	)
	for i := range 16 {
		st, parent := a, sharevat.ShareID("p")
		if i%2 == 1 {
			st, parent = b, s.ID
		}
		wg.Go(func() {
			f, g := forkOf(i)
			_, err := st.ForkWithin(t.Context(), parent, 0, f, g, q)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case sharevat.ErrorCode(err) == sharevat.ETooLarge:
				assert.Equal(t, "this share's fork tree has 4 live forks (the limit is 4); delete some first", sharevat.ErrorMessage(err))
				refused++
			default:
				t.Errorf("fork %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 3, made, "forks made besides the first")
	assert.Equal(t, 13, refused)
}
