package opencode_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/hostile"
	"github.com/sharevat/sharevat/internal/proctest"
)

var (
	buildOnce sync.Once
	binary    string
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// sharevatBinary builds cmd/sharevat once for the process tests.
func sharevatBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { binary, binDir, buildErr = proctest.Build("../../cmd/sharevat", false) })
	require.NoError(t, buildErr)
	return binary
}

// startServe runs `sharevat serve --opencode-open` on dir and returns
// the process and the door's base URL.
func startServe(t *testing.T, dir string) (*proctest.Server, string) {
	t.Helper()
	s, err := proctest.Start(t, sharevatBinary(t), nil, "serve", "--opencode-open", "--listen", "127.0.0.1:0", "--data", dir, "--log-level", "warn")
	require.NoError(t, err)
	return s, hostile.OpencodeBase(s.URL)
}

// TestDataOf30kItemsIsBounded: GET …/data of a long session's share
// streams. Invariant: a share of 30,000 items of about 2.9 KB (87 MB of
// state) is answered whole (every item, in order, valid JSON) by a real
// `sharevat serve` process whose memory grows by
// less than 256 MiB over what it held after start (its anonymous
// memory, sampled: anonPeak). Folding the state whole grew it by over
// 300 MiB.
func TestDataOf30kItemsIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a share of 30,000 items")
	}
	const n, perSync = 30000, 1000
	dir := t.TempDir()
	s, base := startServe(t, dir)
	sh := create(t, base, "ses_long")
	text := strings.Repeat("x", 2800)
	for i := 0; i < n; i += perSync {
		var b strings.Builder
		for j := i; j < i+perSync; j++ {
			if j > i {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"part","data":{"id":"prt_%06d","messageID":"msg_%03d","type":"text","text":"%s"}}`, j, j%100, text)
		}
		r := syncRaw(t, base, sh, b.String())
		require.Equal(t, http.StatusOK, r.status, "%.300s", r.body)
	}
	s.Stop(t)

	s, base = startServe(t, dir)
	before, err := hostile.ReadRssAnon(s.Cmd.Process.Pid)
	require.NoError(t, err)
	stop := make(chan struct{})
	peak := anonPeak(t, s.Cmd.Process.Pid, stop)
	res, err := http.Get(base + "/api/share/" + slug(sh) + "/data")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	got := countItems(t, json.NewDecoder(res.Body))
	require.Equal(t, n, got)
	close(stop)
	after := <-peak
	t.Logf("vat anonymous memory: %s after start, at most %s while answering", hostile.MiB(before), hostile.MiB(after))
	require.Less(t, after-before, int64(256<<20), "the vat grew by %s answering the data of %d items", hostile.MiB(after-before), n)
}

// anonPeak samples process pid's resident anonymous memory (RssAnon)
// until stop is closed and sends the highest it saw. The kernel keeps
// no high-water mark of it (VmHWM counts the mapped data file's pages
// too, which reading a share brings in), so this is a sample: a spike
// shorter than its millisecond period may pass unseen, a held state
// (the whole answer built in memory) may not.
func anonPeak(t *testing.T, pid int, stop <-chan struct{}) <-chan int64 {
	t.Helper()
	out := make(chan int64, 1)
	go func() {
		peak := int64(0)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if n, err := hostile.ReadRssAnon(pid); err == nil {
				peak = max(peak, n)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// countItems reads a JSON array of items one by one (never whole),
// checking they come in client-key order, and returns how many there are.
func countItems(t *testing.T, dec *json.Decoder) int {
	t.Helper()
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('['), tok)
	n, last := 0, ""
	for dec.More() {
		var it struct {
			Type string `json:"type"`
			Data struct {
				ID        string `json:"id"`
				MessageID string `json:"messageID"`
			} `json:"data"`
		}
		require.NoError(t, dec.Decode(&it))
		key := it.Type + "/" + it.Data.MessageID + "/" + it.Data.ID
		require.Less(t, last, key, "item %d is out of order", n)
		last, n = key, n+1
	}
	tok, err = dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim(']'), tok)
	return n
}
