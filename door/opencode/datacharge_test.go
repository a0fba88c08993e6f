package opencode_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestShareDataCountsAgainstMemoryBudget: GET …/data, which anyone with
// the public link may send as often as they like, streams the share's
// state page by page, each page counted in the memory budget while it is
// held. Invariant: under a 6 MiB budget the data of a share of 3.5 MB of
// state (refused 503 when the door built it whole) is served whole; under
// a 1 MiB budget, which cannot hold a page of one of its 700 KB items
// (twice: decoded and as received), the same data is refused with 503
// JSON naming the budget, never half an answer, and a small share's data
// is served.
func TestShareDataCountsAgainstMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.Data = dir
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 6 << 20
	}})
	d := &door{Server: s, base: s.HTTP}
	big := create(t, d.base, "ses_bigdata")
	for i := range 5 {
		it := fmt.Sprintf(`{"type":"part","data":{"id":"prt_%d","messageID":"msg_1","text":"%s"}}`, i, strings.Repeat("q", 700<<10))
		r := syncRaw(t, d.base, big, it)
		require.Equal(t, http.StatusOK, r.status, "%.200s", r.body)
	}
	status, got := items(t, d, big)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, got, 5)
	small := create(t, d.base, "ses_smalldata")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, small, itSession).status)
	closeServer(t, s)

	s = servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.Data = dir
		c.Peers.MemoryBudget = 1 << 20
	}})
	r := call(t, "GET", s.HTTP+"/api/share/"+slug(big)+"/data", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%.200s", r.body)
	require.Contains(t, string(r.body), `"error":"unavailable: the server's memory budget is full`)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))
	status, got = items(t, &door{Server: s, base: s.HTTP}, small)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, got, 1)
}

// TestSyncItemsCountAgainstMemoryBudget: a sync holds its body, then
// its items and the ops made of them (two more copies of the data) until
// they are appended; all of them count in the memory budget (the body
// four times, by its gate, before it is read; the items and ops twice,
// once parsed). Invariant, under a 12 MiB budget (6 MiB per caller): a
// 2.2 MB sync (8.8 MB charged) is refused 503 JSON naming the budget and
// writes nothing; a 1 MB one (4 MB, then 2 MB more) is applied.
func TestSyncItemsCountAgainstMemoryBudget(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 12 << 20
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_syncmem")
	part := func(i, n int) string {
		return fmt.Sprintf(`{"type":"part","data":{"id":"prt_%d","messageID":"msg_1","text":"%s"}}`, i, strings.Repeat("q", n))
	}
	r := syncRaw(t, d.base, sh, part(1, 750<<10)+","+part(2, 750<<10)+","+part(3, 750<<10))
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%.200s", r.body)
	require.Contains(t, string(r.body), `"error":"unavailable: the server's memory budget is full`)
	_, got := items(t, d, sh)
	require.Empty(t, got)
	r = syncRaw(t, d.base, sh, part(1, 500<<10)+","+part(2, 500<<10))
	require.Equal(t, http.StatusOK, r.status, "%.200s", r.body)
}
