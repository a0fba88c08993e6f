package vat_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/vat"
)

// TestForkTreeCountQuota: one fork tree (a created share and every share
// forked from it, at any depth) has at most MaxTreeForks live forks,
// whoever forks and wherever in the tree; a deleted fork frees its
// place, and the forks below a deleted fork still count. Another tree
// has its own room. Before: only each share's direct forks were counted,
// so forks of forks grew without bound.
func TestForkTreeCountQuota(t *testing.T) { onEachStore(t, testForkTreeCountQuota) }

func testForkTreeCountQuota(t *testing.T, on storeKind) {
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.MaxTreeForks = 3 })
	a := tv.MustRestore(t, tv.MustCreate(t, "tree"))
	f1, _ := mustFork(t, a)
	f2, _ := mustFork(t, f1)
	f3, _ := mustFork(t, f2)
	_, _, err := a.Fork(bg, 0, sharevat.MetaPatch{})
	isTreeFull(t, err, "a fourth fork, of the root")
	_, _, err = f3.Fork(bg, 0, sharevat.MetaPatch{})
	isTreeFull(t, err, "a fourth fork, of a fork of a fork")

	require.NoError(t, f2.Delete(bg))
	mustFork(t, f3) // f1, f3 and this one
	_, _, err = f1.Fork(bg, 0, sharevat.MetaPatch{})
	isTreeFull(t, err, "the forks below a deleted fork still count")

	other := tv.MustRestore(t, tv.MustCreate(t, "another tree"))
	mustFork(t, other)
}

// TestForkTreeBytesQuota: the forks of one tree may copy at most
// MaxTreeForkBytes between them, charged to the tree while they live; a
// fork that copies nothing costs nothing, and deleting a fork gives its
// bytes back.
func TestForkTreeBytesQuota(t *testing.T) { onEachStore(t, testForkTreeBytesQuota) }

func testForkTreeBytesQuota(t *testing.T, on storeKind) {
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.MaxTreeForkBytes = 300 << 10 })
	a := tv.MustRestore(t, tv.MustCreate(t, "bytes"))
	appendN(t, a, "big", 10, 10, `"`+strings.Repeat("x", 10<<10)+`"`) // ~100 KiB
	head := sharevat.Cursor(10)
	f1, _, err := a.Fork(bg, head, sharevat.MetaPatch{})
	require.NoError(t, err)
	t.Cleanup(f1.Release)
	f2, _, err := f1.Fork(bg, head, sharevat.MetaPatch{})
	require.NoError(t, err, "a fork of the fork, charged to the same tree")
	t.Cleanup(f2.Release)
	_, _, err = a.Fork(bg, head, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrTooLarge, "a third ~100 KiB fork")
	assert.Contains(t, sharevat.ErrorMessage(err), "fork tree holds")
	_, _, err = f2.Fork(bg, head, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrTooLarge, "a third ~100 KiB fork, deeper")
	mustFork(t, a) // at cursor 0: nothing copied

	require.NoError(t, f1.Delete(bg))
	_, _, err = f2.Fork(bg, head, sharevat.MetaPatch{})
	assert.NoError(t, err, "a deleted fork gives its bytes back")
}

// TestReaderCannotFillTheDiskWithForks (issue 32, bug 4): a read-only
// token's 100 forks of a 3 MB share are refused and the data directory
// does not grow by them (before: each succeeded, and the directory grew
// by ~3 MB a fork).
func TestReaderCannotFillTheDiskWithForks(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "3 MB"))
	appendN(t, a, "big", 30, 10, `"`+strings.Repeat("x", 100<<10)+`"`)
	reader := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeRead, 0, "a link").Token)

	before := dirSize(t, tv.Dir)
	refused := 0
	for range 100 {
		f, _, err := reader.Fork(bg, 30, sharevat.MetaPatch{})
		if err != nil {
			refused++
			continue
		}
		f.Release()
	}
	grew := dirSize(t, tv.Dir) - before
	t.Logf("the data directory grew by %d bytes (from %d)", grew, before)
	assert.Equal(t, 100, refused, "forks by a read-only token")
	assert.Less(t, grew, int64(1<<20), "the data directory grew by %d bytes", grew)
}

// isTreeFull checks err is the fork-tree count refusal.
func isTreeFull(t *testing.T, err error, what string) {
	t.Helper()
	isCode(t, err, sharevat.ErrTooLarge, what)
	assert.Contains(t, sharevat.ErrorMessage(err), "fork tree has 3 live forks", what)
}

// dirSize is the bytes of the files under dir.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	require.NoError(t, err)
	return n
}
