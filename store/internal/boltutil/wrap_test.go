package boltutil_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

var file = boltutil.File{Prefix: "bolt", What: "store", DiskFull: "the server's disk is full; retry later"}

// TestWrapDiskFull: a real ENOSPC from the OS (a write to /dev/full),
// also when bbolt formatted it with %s and lost the errno, is
// EUnavailable with the file's message; the OS error stays in the chain
// for the log.
func TestWrapDiskFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("SKIPPED LOUDLY: no /dev/full on this machine (%v); the real-process test in cmd/sharevat covers a full disk", err)
	}
	_, werr := f.Write([]byte("x"))
	f.Close()
	require.Error(t, werr)
	for _, err := range []error{werr, fmt.Errorf("file resize error: %s", werr)} {
		got := file.Wrap("append", err)
		assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(got), "%v", err)
		assert.Equal(t, "the server's disk is full; retry later", sharevat.ErrorMessage(got))
		assert.Contains(t, got.Error(), "no space left on device", "the cause is kept for the log")
	}
	other := file.Wrap("append", errors.New("input/output error"))
	assert.Equal(t, sharevat.EInternal, sharevat.ErrorCode(other))
}
