package loadgen_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/internal/loadgen"
)

// TestBenchDefaults: a zero field takes the default, some of which
// depend on the mode; a field set is kept.
func TestBenchDefaults(t *testing.T) {
	for _, tc := range []struct {
		mode              string
		clients, inflight int
		rate              int
		duration          time.Duration
	}{
		{"append", 64, 1, 1000, 10 * time.Second},
		{"restore", 1, 1, 1000, 10 * time.Second},
		{"soak", 16, 4, 5000, 10 * time.Minute},
		{"all", 64, 1, 5000, 10 * time.Second},
	} {
		got := loadgen.Config{Mode: tc.mode}.WithDefaults()
		assert.Equal(t, tc.clients, got.Clients, "%s: clients", tc.mode)
		assert.Equal(t, tc.inflight, got.Inflight, "%s: inflight", tc.mode)
		assert.Equal(t, tc.rate, got.Rate, "%s: rate", tc.mode)
		assert.Equal(t, tc.duration, got.Duration, "%s: duration", tc.mode)
		assert.Equal(t, got.Duration, got.CeilingDuration, "%s: the ceilings run as long as the phase", tc.mode)
		assert.Equal(t, 20*tc.duration+5*time.Minute, got.Timeout, "%s: timeout", tc.mode)
	}
	got := loadgen.Config{Clients: 3, Duration: time.Second, CeilingDuration: 2 * time.Second}.WithDefaults()
	assert.Equal(t, "append", got.Mode)
	assert.Equal(t, 3, got.Clients)
	assert.Equal(t, 5*time.Minute+40*time.Second, got.Timeout, "20 × the longest phase + 5m")
	soak := loadgen.Config{Mode: "all", Soak: true, SoakDuration: time.Minute}.WithDefaults()
	assert.Equal(t, 25*time.Minute, soak.Timeout, "the soak is the longest phase")
}

// TestBenchCheckServer: the bench drives only ws:// or wss:// URLs on this
// machine.
func TestBenchCheckServer(t *testing.T) {
	for _, u := range []string{"ws://127.0.0.1:7420/rpc", "wss://localhost:1/rpc", "ws://[::1]:7420/rpc"} {
		assert.NoError(t, loadgen.CheckServer(u), u)
	}
	for _, u := range []string{"http://127.0.0.1:7420/rpc", "ws://192.0.2.1:7420/rpc", "ws:///rpc", "127.0.0.1:7420"} {
		assert.Error(t, loadgen.CheckServer(u), u)
	}
}
