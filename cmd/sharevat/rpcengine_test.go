package main_test

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRPCEngineFlagIsChecked: serve and bench refuse an engine they do
// not have, before anything starts, with a usage error naming the two
// they do. serve checks it before it binds: its --listen address is
// held by the test, so a serve that bound first would fail on the bind
// instead (and no test needs the default port free).
func TestRPCEngineFlagIsChecked(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { held.Close() })
	for _, args := range [][]string{
		{"serve", "--data", t.TempDir(), "--listen", held.Addr().String(), "--rpc-engine", "grpc"},
		{"bench", "--rpc-engine", "grpc"},
	} {
		_, stderr, code := cliIn(t, "", nil, args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, `--rpc-engine: unknown RPC engine "grpc": want "sharevat" or "go-capnp"`, "%v", args)
	}
}
