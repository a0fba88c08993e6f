package vat_test

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// BenchmarkStatePages fills a share of SHAREVAT_PAGED_OPS ops (default
// 10,000) of a coding session's shape (2.9 KB bodies, 30% rewrites), then
// per iteration walks its whole state page by page in both orders, and
// takes one Reader.snapshot. It reports what docs/performance.md lists:
// bytes allocated by the refused (or served) snapshot, the most any one
// page allocated, the heap's high-water growth over the walk, and the
// time of a whole walk.
func BenchmarkStatePages(b *testing.B) {
	ops := 10_000
	if s := os.Getenv("SHAREVAT_PAGED_OPS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		ops = n
	}
	tv := MustServe(b, sharevat.Limits{}, nil)
	sh := tv.MustRestore(b, tv.MustCreate(b, "bench"))
	fillSession(b, sh, ops, 2900)
	rd, err := sh.Reader(b.Context())
	require.NoError(b, err)
	defer rd.Release()
	var snapAlloc, pageAlloc, high uint64
	var walk time.Duration
	b.ResetTimer()
	for b.Loop() {
		snapAlloc = allocated(func() { _, _, _ = rd.Snapshot(b.Context()) })
		for _, order := range []sharevat.StateOrder{sharevat.ByKey, sharevat.ByChange} {
			runtime.GC()
			var base, ms runtime.MemStats
			runtime.ReadMemStats(&base)
			start := time.Now()
			req := sharevat.StatePageRequest{Order: order}
			for done := false; !done; {
				var page sharevat.StatePage
				n := allocated(func() { page, err = rd.SnapshotPage(b.Context(), req) })
				require.NoError(b, err)
				pageAlloc = max(pageAlloc, n)
				runtime.ReadMemStats(&ms)
				high = max(high, ms.HeapAlloc-min(ms.HeapAlloc, base.HeapAlloc))
				req.After, done = page.Next, page.Done
			}
			walk = max(walk, time.Since(start))
		}
	}
	b.ReportMetric(float64(snapAlloc)/(1<<20), "MiB-snapshot")
	b.ReportMetric(float64(pageAlloc)/(1<<20), "MiB-page-max")
	b.ReportMetric(float64(high)/(1<<20), "MiB-heap-growth")
	b.ReportMetric(float64(walk.Milliseconds()), "ms-walk")
}
