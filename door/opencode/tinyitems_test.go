package opencode_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestSyncOfTinyItemsCostsItsBytes: a hostile sync body made of
// millions of two-byte items must not make the server allocate many
// times its size (the memory budget counts the body's bytes only).
// Invariant: a 4 MiB body of `0,` items, and one of 160,000 tiny model
// items, are refused with a JSON 4xx (the second 413 naming the item
// limit), write nothing, and cost the server under 12 bytes allocated
// per body byte; the door serves the next sync.
func TestSyncOfTinyItemsCostsItsBytes(t *testing.T) {
	const limit = 4 << 20
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.OpencodeMaxBody = limit
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_tiny")
	head := `{"secret":` + quote(sh.Secret) + `,"data":[`
	zeros := head + strings.Repeat("0,", (limit-len(head))/2-8) + "0]}"
	models := head + strings.Repeat(`{"type":"model","data":0},`, 160000) + `{"type":"model","data":1}]}`
	require.Less(t, len(models), limit)
	for _, c := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"zeros", zeros, http.StatusBadRequest, "invalid"},
		{"model items", models, http.StatusRequestEntityTooLarge, "at most 65536 items"},
	} {
		req := newReq(t, "POST", d.base+"/api/share/"+sh.ID+"/sync", c.body)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := do(t, req)
		runtime.ReadMemStats(&after)
		require.Equal(t, c.status, r.status, "%s: %s", c.name, r.body)
		require.Contains(t, string(r.body), c.says, c.name)
		perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(c.body))
		t.Logf("%s: %d bytes, %.1f bytes allocated per body byte", c.name, len(c.body), perByte)
		require.Less(t, perByte, 12.0, "%s: the server allocated %.1f bytes per body byte", c.name, perByte)
	}
	_, got := items(t, d, sh)
	require.Empty(t, got, "a refused sync wrote something")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	require.Equal(t, 65536, opencodeshare.MaxSyncItems)
}
