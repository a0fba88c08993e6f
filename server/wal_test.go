package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/store/bolt"
)

// TestWALOptions: the server's WAL settings become the bbolt store's
// options field for field; the zero value is bolt's defaults.
func TestWALOptions(t *testing.T) {
	var opts bolt.Options
	WAL{}.apply(&opts)
	assert.Equal(t, bolt.Options{}, opts, "the defaults are bolt's")
	WAL{Off: true, Dir: "/fast/wal", MaxPendingBytes: 256 << 20, ApplyEvery: 2 * time.Second, ApplyBytes: 8 << 20}.apply(&opts)
	assert.Equal(t, bolt.Options{NoWAL: true, WALDir: "/fast/wal", MaxPendingBytes: 256 << 20, ApplyEvery: 2 * time.Second, ApplyBytes: 8 << 20}, opts)
}
