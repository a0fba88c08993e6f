package opencode_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/internal/servertest"
)

// TestMintNameIsBounded: a creation token's name is shown in every
// listing of the creation-token API and `sharevat grants`. Invariant: a
// 1 MiB name is refused 413 by the gate (the API's body limit, 64 KiB,
// before the body is read), a 4 KiB one 413 naming the name's limit, a
// name with a NUL or a
// right-to-left override 400, and nothing is minted for them; a plain
// name (spaces folded) is minted and listed as given.
func TestMintNameIsBounded(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	for _, c := range []struct {
		name   string
		status int
		says   string
	}{
		{strings.Repeat("n", 1<<20), http.StatusRequestEntityTooLarge, "limit of 65536 bytes"},
		{strings.Repeat("n", 4<<10), http.StatusRequestEntityTooLarge, "limit is 160"},
		{"lap\x00top", http.StatusBadRequest, "does not print"},
		{"laptop \u202egnp.exe", http.StatusBadRequest, "does not print"},
	} {
		r := adminCall(t, s, "POST", "", opencodeshare.MintRequest{Name: c.name, SharesPerHour: 1})
		require.Equal(t, c.status, r.status, "%.200s", r.body)
		require.Contains(t, string(r.body), c.says)
	}
	r := adminCall(t, s, "POST", "", opencodeshare.MintRequest{Name: "  alice's   laptop ", SharesPerHour: 1})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = adminCall(t, s, "GET", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	var ts []opencodeshare.TokenInfo
	r.json(t, &ts)
	require.Len(t, ts, 1)
	require.Equal(t, "alice's laptop", ts[0].Name)
}
