package main

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/server"
)

// TestWALFlags: the write-ahead log's serve flags parse, are checked,
// and set the server's WAL settings (server.TestWALOptions checks that
// these become bolt.Options); they are refused with --store postgres://.
func TestWALFlags(t *testing.T) {
	parse := func(args ...string) *walFlags {
		var f walFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		f.register(fs)
		require.NoError(t, fs.Parse(args))
		return &f
	}
	f := parse()
	require.NoError(t, f.validate(false))
	require.NoError(t, f.validate(true), "the defaults are fine with PostgreSQL")
	assert.Equal(t, server.WAL{}, f.config(), "the defaults are bolt's")

	f = parse("--wal=off", "--wal-dir", "/fast/wal", "--wal-max-pending", "256MiB", "--wal-apply-every", "2s", "--wal-apply-bytes", "8MiB")
	require.NoError(t, f.validate(false))
	assert.Equal(t, server.WAL{Off: true, Dir: "/fast/wal", MaxPendingBytes: 256 << 20, ApplyEvery: 2 * time.Second, ApplyBytes: 8 << 20}, f.config())
	assert.Error(t, f.validate(true))

	assert.Error(t, parse("--wal", "maybe").validate(false))
	assert.Error(t, parse("--wal-apply-every", "-1s").validate(false))
}
