package main_test

import (
	"bufio"
	"context"
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
)

// writeBigOpencode writes an opencode session export of messages
// messages of parts parts, each with a text of partBytes, and returns
// its path and size.
func writeBigOpencode(t *testing.T, messages, parts, partBytes int) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big-opencode.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	text := strings.Repeat("lorem ipsum ", partBytes/12+1)[:partBytes]
	fmt.Fprint(w, `{"info":{"id":"ses_big","projectID":"p","directory":"/src","title":"big","version":"1.0.0","time":{"created":1,"updated":2}},"messages":[`)
	for m := 0; m < messages; m++ {
		if m > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"info":{"id":"msg_%06d","role":"user","model":{"providerID":"anthropic","modelID":"claude"}},"parts":[`, m)
		for p := 0; p < parts; p++ {
			if p > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"id":"prt_%06d_%03d","messageID":"msg_%06d","type":"text","text":"%s"}`, m, p, m, text)
		}
		w.WriteString("]}")
	}
	w.WriteString(`],"todos":[]}`)
	require.NoError(t, w.Flush())
	fi, err := f.Stat()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path, fi.Size()
}

// peakRSS runs the CLI with args and returns its exit code, stderr and
// peak resident set size in bytes (getrusage's ru_maxrss).
func peakRSS(t *testing.T, env []string, args ...string) (int, string, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "GORACE=atexit_sleep_ms=0"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return code, stderr.String(), ru.Maxrss * 1024
}

// TestImportBigOpencodeBoundedMemory: import reads an opencode export of
// 160 MB, cut short at its very end, through (to refuse it before
// creating anything) holding one part at a time: its peak RSS stays far
// below the file's size (measured with the race detector's overhead:
// ~40 MB; the bound is 96 MB). Before: the export was decoded whole, a
// peak of several times its size (~1 GB here), and the damage was
// reported as "neither a sharevat export nor an opencode session
// export".
func TestImportBigOpencodeBoundedMemory(t *testing.T) {
	x := newXIEnv(t, onBolt)
	path, size := writeBigOpencode(t, 1250, 8, 16<<10)
	require.NoError(t, os.Truncate(path, size-100))
	code, stderr, rss := peakRSS(t, []string{"SHAREVAT_URL=" + x.srv.URL, "SHAREVAT_STATE=" + x.state},
		append([]string{"import", "--file", path}, x.admin()...)...)
	t.Logf("import of a %d MB opencode export: peak RSS %d MB", size>>20, rss>>20)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "cut short")
	assert.Less(t, rss, int64(96<<20), "peak RSS of the check pass, for a %d MB file", size>>20)
	assert.Zero(t, x.shareCount(), "nothing is created")
}
