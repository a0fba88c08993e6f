package mcp_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotToolPages: the snapshot tool serves the state page by page
// from the vat's paged state (after → nextAfter), in (kind, key) order or
// newest first, and refuses an after of the other order as invalid.
func TestSnapshotToolPages(t *testing.T) {
	d := startDoor(t)
	owner := d.session(t, d.vat.MustCreate(t, "pages"))
	var ops []any
	for i := range 5 {
		ops = append(ops, map[string]any{"opId": fmt.Sprint(i), "kind": "part", "key": fmt.Sprintf("p%d", i), "body": map[string]any{"n": i}})
	}
	var ack ackT
	must(t, owner, "append_ops", map[string]any{"ops": ops}, &ack)
	require.Equal(t, 5, ack.Applied)

	type snapT struct {
		Entities  []struct{ Key string }
		Cursor    int
		NextAfter string
	}
	for newest, want := range map[bool][]string{false: {"p0", "p1", "p2", "p3", "p4"}, true: {"p4", "p3", "p2", "p1", "p0"}} {
		var keys []string
		args := map[string]any{"limit": 2, "newest": newest}
		for pages := 1; ; pages++ {
			require.LessOrEqual(t, pages, 3)
			var snap snapT
			must(t, owner, "snapshot", args, &snap)
			assert.Equal(t, 5, snap.Cursor)
			for _, e := range snap.Entities {
				keys = append(keys, e.Key)
			}
			if snap.NextAfter == "" {
				break
			}
			args["after"] = snap.NextAfter
			if pages == 1 {
				other := map[string]any{"after": snap.NextAfter, "newest": !newest}
				assert.Contains(t, call(t, owner, "snapshot", other, nil), "invalid")
			}
		}
		assert.Equal(t, want, keys, "newest %v", newest)
	}
}
