package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRPCEngineFlagIsChecked: serve and bench refuse an engine they do
// not have, before anything starts, with a usage error naming the two
// they do.
func TestRPCEngineFlagIsChecked(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--data", t.TempDir(), "--rpc-engine", "grpc"},
		{"bench", "--rpc-engine", "grpc"},
	} {
		_, stderr, code := cliIn(t, "", nil, args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, `--rpc-engine: unknown RPC engine "grpc": want "sharevat" or "go-capnp"`, "%v", args)
	}
}
