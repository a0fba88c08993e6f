package main_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// smallDisk mounts a tmpfs of size bytes and unmounts it at cleanup,
// after the processes started later are gone. Without the right to
// mount (not root, or in a container without CAP_SYS_ADMIN) the test is
// skipped, loudly.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("SKIPPED LOUDLY: cannot mount a tmpfs to fill (%v: %s); run as root to test a full disk", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file in dir until the disk is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			require.True(t, errors.Is(err, syscall.ENOSPC), "filling: %v", err)
			return path
		}
	}
}

// TestDiskFull: a real server whose data directory is on a full disk
// answers an append with `unavailable` and a detail that says so (the log
// has the OS error); once space is freed the same append succeeds, and
// the log holds it once.
func TestDiskFull(t *testing.T) {
	data := smallDisk(t, 16<<20)
	srv := startServer(t, data)
	owner := createShare(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh, app := mustAppender(ctx, t, srv.URL, owner)
	batch := &sharevat.Batch{BatchID: "big", Epoch: sh.Access.Epoch}
	for i := range 200 {
		batch.Ops = append(batch.Ops, sharevat.Op{OpID: fmt.Sprint("op-", i), Kind: "event",
			Body: []byte(`{"text":"` + strings.Repeat("x", 4000) + `"}`)})
	}

	filler := fill(t, data)
	_, err := app.Append(ctx, batch)
	require.Error(t, err, "an append on a full disk")
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "%v", err)
	assert.Equal(t, "the server's disk is full; retry later", sharevat.ErrorMessage(err))
	assert.True(t, srv.Log.WaitFor("no space left on device", 10*time.Second), "the log has the OS error:\n%s", srv.Log)

	require.NoError(t, os.Remove(filler))
	ack, err := app.Append(ctx, batch)
	require.NoError(t, err, "the same append once space is freed")
	assert.Equal(t, 200, ack.Applied)
	assert.Len(t, readAll(t, srv.URL, owner), 200)
}
