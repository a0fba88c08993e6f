package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/storetest"
)

// TestStatePageWALTail runs the StatePage contract with the state split
// between the data file and the write-ahead log's tail: one store never
// applies (everything in the tail), one applies every few KiB (a mix).
func TestStatePageWALTail(t *testing.T) {
	for name, opts := range map[string]bolt.Options{"tail": noApply(), "mixed": {ApplyBytes: 4 << 10}} {
		t.Run(name, func(t *testing.T) {
			storetest.RunStatePage(t, func(t *testing.T) sharevat.Store {
				return MustOpenAt(t, filepath.Join(t.TempDir(), "sharevat.db"), opts)
			})
		})
	}
}
