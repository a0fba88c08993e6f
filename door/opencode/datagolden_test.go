package opencode_test

import (
	"flag"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/data/answer.json from the door's answer")

// TestDataAnswerIsGolden: GET …/data streams the state now, and
// opencode import must see the bytes it saw before. Invariant: the
// answer for the fixture's items (every kind, out of order, a key synced
// twice, escapes and number texts) is testdata/data/answer.json byte for
// byte, recorded from the door that built the whole answer in memory
// (data.go's itemsJSON on main at 633f338).
func TestDataAnswerIsGolden(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_gold")
	fixture, err := os.ReadFile("testdata/data/items.json")
	require.NoError(t, err)
	items := strings.TrimSpace(string(fixture))
	items = items[1 : len(items)-1]
	r := syncRaw(t, d.base, sh, items)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = call(t, "GET", d.HTTP+"/api/share/"+slug(sh)+"/data", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	if *updateGolden {
		require.NoError(t, os.WriteFile("testdata/data/answer.json", r.body, 0o644))
	}
	want, err := os.ReadFile("testdata/data/answer.json")
	require.NoError(t, err)
	require.Equal(t, string(want), string(r.body))
}
