package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
)

// serveRefused runs `sharevat serve` on data and expects it to exit 1
// without serving; it returns what the process printed.
func serveRefused(t *testing.T, data string) string {
	t.Helper()
	s, err := proctest.Start(t, binary, []string{"GORACE=atexit_sleep_ms=0"},
		"serve", "--listen", "127.0.0.1:0", "--data", data)
	require.Error(t, err, "the server started on a damaged data directory:\n%s", s.Log)
	_ = s.Err()
	assert.Equal(t, 1, s.Cmd.ProcessState.ExitCode(), "exit code; it printed:\n%s", s.Log)
	out := s.Log.String()
	assert.NotContains(t, out, "panic", "no Go panic")
	assert.NotContains(t, out, "goroutine ", "no Go trace")
	assert.NotContains(t, out, "fatal error", "no Go fatal error")
	return out
}

// lastLine returns the last non-empty line of s: the error main prints.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// usedVault runs a server on a new data directory, creates a share and
// appends ops with bodies {"text":"<marker>-<i>"}, then stops it. It
// returns the data directory and the owner token.
func usedVault(t *testing.T, ops int, marker string) (string, string) {
	t.Helper()
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh, app := mustAppender(ctx, t, srv.URL, owner)
	for i := 0; i < ops; i += 100 {
		batch := &sharevat.Batch{BatchID: fmt.Sprint("b", i), Epoch: sh.Access.Epoch}
		for j := i; j < min(i+100, ops); j++ {
			batch.Ops = append(batch.Ops, sharevat.Op{OpID: fmt.Sprint("op-", j), Kind: "event",
				Body: []byte(fmt.Sprintf(`{"text":"%s-%d","pad":"%s"}`, marker, j, strings.Repeat("x", 400)))})
		}
		_, err := app.Append(ctx, batch)
		require.NoError(t, err)
	}
	srv.Stop(t)
	return data, owner
}

// mustAppender redeems token on a new connection (closed at cleanup) and
// returns its share and Appender.
func mustAppender(ctx context.Context, t *testing.T, url, token string) (*client.Share, *client.Appender) {
	t.Helper()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	sh, err := conn.Redeem(ctx, token)
	require.NoError(t, err)
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	return sh, app
}

// TestServeRefusesEmptyDataFile: sharevat.db truncated to 0 bytes beside
// admin.token and pepper.key: the vat refuses to start, says why in one
// line, and leaves the files alone (it does not start a new, empty vault).
func TestServeRefusesEmptyDataFile(t *testing.T) {
	data, _ := usedVault(t, 10, "m")
	db := filepath.Join(data, "sharevat.db")
	require.NoError(t, os.Truncate(db, 0))
	out := serveRefused(t, data)
	assert.Equal(t, "sharevat: the data file "+db+" is empty but "+filepath.Join(data, "admin.token")+
		" exists: the data file was lost or truncated; restore it from a backup (or, to start a new empty vault, move the directory aside)", lastLine(out))
	fi, err := os.Stat(db)
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "the data file is left as it was")
}

// TestServeRefusesMissingPepper: pepper.key deleted from a vault that
// holds grants: the vat refuses to start (a new pepper would kill every
// token) and does not write a new pepper.
func TestServeRefusesMissingPepper(t *testing.T) {
	data, _ := usedVault(t, 1, "m")
	pepper := filepath.Join(data, "pepper.key")
	require.NoError(t, os.Remove(pepper))
	out := serveRefused(t, data)
	assert.Contains(t, lastLine(out), "sharevat: the pepper file "+pepper+" is missing but the vault holds grants")
	assert.Contains(t, lastLine(out), "restore it from a backup")
	assert.NoFileExists(t, pepper, "no new pepper is written")
}

// TestServeRefusesDamagedDataFile: structural damage (the file cut short,
// page headers overwritten) is one line and exit 1, never bbolt's panic.
func TestServeRefusesDamagedDataFile(t *testing.T) {
	data, _ := usedVault(t, 1000, "m")
	db := filepath.Join(data, "sharevat.db")
	orig, err := os.ReadFile(db)
	require.NoError(t, err)
	ps := os.Getpagesize()
	for name, damage := range map[string]func([]byte) []byte{
		"cut in half": func(b []byte) []byte { return b[:len(b)/2] },
		"page headers zeroed": func(b []byte) []byte {
			for p := 2; p < len(b)/ps; p++ {
				copy(b[p*ps:p*ps+16], make([]byte, 16))
			}
			return b
		},
		"counts overwritten": func(b []byte) []byte {
			for p := 2; p < len(b)/ps; p++ {
				b[p*ps+10], b[p*ps+11] = 0xff, 0xff // page.count
			}
			return b
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(db, damage(bytes.Clone(orig)), 0o600))
			out := serveRefused(t, data)
			line := lastLine(out)
			assert.True(t, strings.HasPrefix(line, "sharevat: the data file "+db+" is damaged: "), line)
			assert.True(t, strings.HasSuffix(line, "; restore it from a backup"), line)
		})
	}
}

// TestServeAnswersCorruptRecord: a flipped byte inside one log record:
// the vat starts, and reading the share answers `corrupt` (exit 1) instead
// of the damaged op; the log names the share and cursor, not the op.
func TestServeAnswersCorruptRecord(t *testing.T) {
	data, owner := usedVault(t, 5, "marker")
	db := filepath.Join(data, "sharevat.db")
	b, err := os.ReadFile(db)
	require.NoError(t, err)
	target := []byte("marker-3")
	require.Positive(t, bytes.Count(b, target))
	// Old copies of the page may sit in free pages: damage them all.
	for i := bytes.Index(b, target); i >= 0; i = bytes.Index(b, target) {
		b[i+len(target)-1] = '8' // "marker-3" reads "marker-8"
	}
	require.NoError(t, os.WriteFile(db, b, 0o600))

	srv := startServer(t, data)
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, obNoExitSleep}
	out, stderr, code := cli(t, "", env, "read", "--from", "0")
	assert.Equal(t, 1, code, "stdout %s stderr %s", out, stderr)
	assert.NotContains(t, out, "marker-8", "the damaged op is never served")
	assert.Contains(t, stderr, "corrupt: stored data failed its integrity check (share ")
	assert.Contains(t, stderr, "cursor 4")
	log := srv.Log.String()
	assert.Contains(t, log, "cursor=4")
	assert.Contains(t, log, "share=")
	assert.NotContains(t, log, "marker-", "op contents never reach the log")
	assert.NotContains(t, log, owner)

	out, stderr, code = cli(t, "", env, "read", "--from", "4")
	assert.Equal(t, 0, code, "ops after the damaged one still read: %s", stderr)
	assert.Contains(t, out, "marker-4")
}
