package opencode_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLargeShareData: a long session's share outgrows one snapshot
// answer (8 MiB). Invariant: GET …/data still answers every item (the
// state folded from the log), and a later sync of an older version of
// one of them, after a restart emptied the door's memory, is still
// skipped.
func TestLargeShareData(t *testing.T) {
	dir := t.TempDir()
	s := startOpenOn(t, dir)
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_big")
	var parts []string
	for i := range 10 {
		parts = append(parts, fmt.Sprintf(`{"type":"part","data":{"id":"prt_%d","messageID":"msg_1","text":"%s","time":{"start":%d}}}`, i, strings.Repeat("y", 900<<10), 100+i))
	}
	r := syncRaw(t, d.base, sh, itMessage+","+strings.Join(parts, ","))
	require.Equal(t, http.StatusOK, r.status, "%.300s", r.body)
	status, got := items(t, d, sh)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, got, 11)

	closeServer(t, s)
	s = startOpenOn(t, dir)
	d = &door{Server: s, base: s.HTTP}
	older := `{"type":"part","data":{"id":"prt_3","messageID":"msg_1","text":"short","time":{"start":50}}}`
	r = syncRaw(t, d.base, sh, older)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Contains(t, string(r.body), `"older":1`)
	_, got = items(t, d, sh)
	require.Len(t, got, 11)
	require.NotContains(t, string(got[4].Data), `"short"`)
}
