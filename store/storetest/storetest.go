// Package storetest is the contract suite for sharevat.Store (docs/design.md
// §8): every backend's tests call Run, and a backend is correct only if
// the whole suite passes.
//
// The suite covers every method and every error code that store.go
// documents, the append semantics of docs/design.md §5 end to end through
// Append, concurrent appends, and the share lifecycle: forks, children,
// deletion, listing, statuses, settings and compaction, each checked
// against a model replay of the log (stateAt), also while writers append. Each subtest opens a fresh, empty store
// with the open function it is given; open must register any cleanup
// (closing the store, removing files) with t.Cleanup. What the suite
// cannot see through the interface — durability across a close and
// reopen, file locking — each backend tests itself.
//
// Times in fixtures are whole milliseconds in UTC, so a backend may store
// them at millisecond precision; times are compared with time.Equal.
package storetest

import (
	"testing"

	"github.com/sharevat/sharevat"
)

// test is one subtest, given a fresh store.
type test struct {
	name string
	fn   func(t *testing.T, st sharevat.Store)
}

// Run runs the contract suite. open must return a new, empty store on
// each call and close it when t ends.
func Run(t *testing.T, open func(t *testing.T) sharevat.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Share", shareTests},
		{"Epoch", epochTests},
		{"Grant", grantTests},
		{"Append", appendTests},
		{"Checks", checkTests},
		{"Read", readTests},
		{"Snapshot", snapshotTests},
		{"StatePage", statePageTests},
		{"Audit", auditTests},
		{"Concurrent", concurrentTests},
		{"Fork", forkTests},
		{"Children", childrenTests},
		{"Delete", deleteTests},
		{"List", listTests},
		{"Status", statusTests},
		{"Settings", settingsTests},
		{"Compact", compactTests},
		{"ConcurrentLifecycle", concurrentLifecycleTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
			}
		})
	}
}
