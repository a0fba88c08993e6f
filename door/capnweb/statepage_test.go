package capnweb_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestSnapshotPage: Reader.snapshotPage over Cap'n Web walks the state
// in both orders page by page (next fed back as after), each page within
// maxEntities, and refuses an unknown order as invalid.
func TestSnapshotPage(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "pages")
	res := must(t, e.dial(t), "restore", token)
	share := stubOf(t, get(t, res, "share"))
	epoch := get(t, get(t, res, "access"), "epoch")
	app := stubOf(t, must(t, share, "appender"))
	var ops []capnweb.Value
	for i := range 7 {
		ops = append(ops, op(fmt.Sprint(i), "part", fmt.Sprintf("p%d", i), []byte(`{}`)))
	}
	appendOps(t, app, epoch, ops...)
	rd := stubOf(t, must(t, share, "reader"))

	for order, want := range map[string][]string{
		"byKey":    {"p0", "p1", "p2", "p3", "p4", "p5", "p6"},
		"byChange": {"p6", "p5", "p4", "p3", "p2", "p1", "p0"},
	} {
		var keys []string
		var after capnweb.Value = capnweb.Undefined
		for pages := 0; ; pages++ {
			require.Less(t, pages, 10, "the walk ends")
			page := must(t, rd, "snapshotPage", order, after, 3)
			ents := get(t, page, "entities").([]capnweb.Value)
			assert.LessOrEqual(t, len(ents), 3)
			for _, en := range ents {
				keys = append(keys, get(t, en, "key").(string))
			}
			assert.Equal(t, int64(7), num(t, get(t, page, "head")))
			if get(t, page, "done") == true {
				break
			}
			after = get(t, page, "next")
		}
		assert.Equal(t, want, keys, order)
	}
	_, err := call(rd, "snapshotPage", "sideways")
	code, _ := codeOf(t, err)
	assert.Equal(t, "invalid", code)
}
