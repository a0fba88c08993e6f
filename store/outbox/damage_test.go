package outbox_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
)

// refused opens path, expects it refused with one line naming the file,
// and checks the file was left byte for byte as it was.
func refused(t *testing.T, path, want string) {
	t.Helper()
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	db, err := outbox.Open(path, outbox.Options{})
	if err == nil {
		db.Close()
		t.Fatalf("Open of %s succeeded", want)
	}
	msg := err.Error()
	assert.Contains(t, msg, "the outbox file "+path+" is ")
	assert.Contains(t, msg, want)
	assert.Contains(t, msg, "restore it from a backup")
	assert.NotContains(t, msg, "\n")
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(before, after), "the file is kept untouched")
}

// TestOpenEmptyOutbox: a 0-byte outbox is refused, never taken for an
// empty one (its pending ops would be silently gone).
func TestOpenEmptyOutbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	refused(t, path, "empty (0 bytes)")
}

// TestNewOutboxAppearsWhole: a new outbox works, and only the finished
// file is ever at its path (no temporary file is left).
func TestNewOutboxAppearsWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "outbox.db")
	db := mustOpenAt(t, path, outbox.Options{})
	err := db.Enqueue(ops("a", 3), now)
	require.NoError(t, err)
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, 3, st.Pending)
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{path}, names)
}

// pendingOutbox returns a closed outbox file holding n pending ops.
func pendingOutbox(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "outbox.db")
	db, err := outbox.Open(path, outbox.Options{})
	require.NoError(t, err)
	for i := 0; i < n; i += 50 {
		err := db.Enqueue(ops(fmt.Sprint("p", i, "-"), 50), now)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())
	return path
}

// TestOpenDamagedOutbox: an outbox cut short, or with a page header
// overwritten, is refused at Open with one line naming the file (or, if
// the damage is not reached at Open, every call fails cleanly): never a
// panic.
func TestOpenDamagedOutbox(t *testing.T) {
	src := pendingOutbox(t, 300)
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "outbox.db")
	require.NoError(t, os.WriteFile(cut, b[:len(b)/2], 0o600))
	refused(t, cut, "damaged: ")

	ps := os.Getpagesize()
	nRefused := 0
	for p := 0; p < len(b)/ps; p++ {
		for _, fill := range []byte{0x00, 0xff} {
			d := bytes.Clone(b)
			copy(d[p*ps:p*ps+16], bytes.Repeat([]byte{fill}, 16))
			path := filepath.Join(t.TempDir(), "outbox.db")
			require.NoError(t, os.WriteFile(path, d, 0o600))
			db, err := outbox.Open(path, outbox.Options{})
			if err != nil {
				nRefused++
				assert.True(t, strings.HasPrefix(err.Error(), "the outbox file "+path+" is damaged: "), "page %d: %v", p, err)
				continue
			}
			_, err = db.Pending()
			if err == nil {
				err = db.Enqueue(ops("new", 1), now)
			}
			require.NoError(t, db.Close())
			if err != nil {
				assert.Contains(t, err.Error(), path, "page %d: the error names the file", p)
			}
		}
	}
	assert.Positive(t, nRefused)
}
