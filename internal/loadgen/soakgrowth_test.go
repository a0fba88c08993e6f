package loadgen

import (
	"testing"
	"time"
)

// TestGrowthPerOp: the store's growth from the baseline sample (minute
// 2) to the last is divided by the ops appended in between, each
// sample's rate over its interval.
func TestGrowthPerOp(t *testing.T) {
	samples := []soakSample{
		{AtSeconds: 60, StoreBytes: 1 << 20, CallsPerSec: 900},
		{AtSeconds: 120, StoreBytes: 2 << 20, CallsPerSec: 1000},
		{AtSeconds: 180, StoreBytes: 2<<20 + 60000, CallsPerSec: 1000},
		{AtSeconds: 200, StoreBytes: 2<<20 + 100000, CallsPerSec: 500},
	}
	g := growthOf(samples, 10*time.Minute)
	if g.BaseAtSeconds != 120 || g.StoredBytes != 100000 {
		t.Fatalf("growth from %vs: %v bytes; want from 120s, 100000", g.BaseAtSeconds, g.StoredBytes)
	}
	if want := 100000.0 / (1000*60 + 500*20); g.StoredPerOp != want {
		t.Errorf("StoredPerOp = %v, want %v", g.StoredPerOp, want)
	}
}
