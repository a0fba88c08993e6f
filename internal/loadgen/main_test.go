package loadgen_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/sharevat/sharevat/internal/proctest"
)

// binary is the sharevat executable whose serve the bench starts, built
// once for the tests.
var binary string

func TestMain(m *testing.M) { os.Exit(runWithBinary(m)) }

// runWithBinary builds the sharevat command, runs the tests and removes
// the build.
func runWithBinary(m *testing.M) int {
	bin, dir, err := proctest.Build("../../cmd/sharevat", true)
	defer os.RemoveAll(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binary = bin
	return m.Run()
}
