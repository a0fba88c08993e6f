package opencode_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestDoorStateIsBounded: the door remembers the version of each item
// of the shares syncing through it, to spare the log versions the
// state would not take; that memory grew with the share. Invariant:
// with OpencodeStateBytes at 256 KiB, a share of 60,000 items synced
// through the door is right all along and after: an item sent again is
// a duplicate, an older version synced late does not replace the newer
// one in …/data. The server's heap after the fill is logged (the door's
// bound itself is held by TestStatesStayUnderStateBytes).
func TestDoorStateIsBounded(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.OpencodeStateBytes = 256 << 10
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_bounded")
	before := heapAfterGC()
	const n, perSync = 60000, 5000
	for i := 0; i < n; i += perSync {
		var b strings.Builder
		for j := i; j < i+perSync; j++ {
			if j > i {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"part","data":{"id":"prt_%06d","messageID":"msg_1","time":{"start":%d}}}`, j, 100)
		}
		r := syncRaw(t, d.base, sh, b.String())
		require.Equal(t, http.StatusOK, r.status, "%.300s", r.body)
	}
	after := heapAfterGC()
	t.Logf("heap %d MiB before, %d MiB after syncing %d items", before>>20, after>>20, n)

	r := syncRaw(t, d.base, sh, `{"type":"part","data":{"id":"prt_000007","messageID":"msg_1","time":{"start":100}}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Contains(t, string(r.body), `"duplicates":1`)
	r = syncRaw(t, d.base, sh, `{"type":"part","data":{"id":"prt_000008","messageID":"msg_1","time":{"start":50},"text":"stale"}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	status, got := items(t, d, sh)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, got, n)
	require.NotContains(t, string(got[8].Data), "stale")
}

// heapAfterGC is the live heap after two collections (a sync.Pool
// keeps what it held for one).
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
