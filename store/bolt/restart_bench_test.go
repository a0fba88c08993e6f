package bolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// restartLogOps is how many ops every restartFile leaves in its
// write-ahead log, so that files of every size replay the same log.
const restartLogOps = 1_000

// restartFile returns a closed data file holding share "s" with n ops of
// a coding session's shape (2.9 KB bodies, every third op rewriting an
// earlier message), built quickly with NoSync: all but the last
// restartLogOps straight into the data file (NoWAL), those last through
// the write-ahead log, which keeps them.
func restartFile(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "sharevat.db")
	db := MustOpenAt(b, path, bolt.Options{NoSync: true, NoWAL: true})
	createShare(b, db, "s")
	appendSession(b, db, 0, n-restartLogOps)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	db = MustOpenAt(b, path, bolt.Options{NoSync: true})
	appendSession(b, db, n-restartLogOps, n)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// appendSession appends ops from to n of restartFile's session to "s".
func appendSession(b *testing.B, db *bolt.DB, from, n int) {
	body := []byte(`{"text":"` + strings.Repeat("x", 2900) + `"}`)
	for i := from; i < n; i += 500 {
		ops := make([]sharevat.Op, 0, 500)
		for j := i; j < i+500 && j < n; j++ {
			key := strconv.Itoa(j)
			if j%3 == 2 {
				key = strconv.Itoa(j / 2)
			}
			ops = append(ops, sharevat.Op{OpID: fmt.Sprint("op", j), Kind: sharevat.KindMessage, Key: key, Body: body})
		}
		appendOps(b, db, "s", 1, ops...)
	}
}

// BenchmarkRestart opens and closes a data file holding one share of 1k
// and of 100k ops (or SHAREVAT_RESTART_OPS, e.g. 400000 for a 3 GB
// file), each with the same write-ahead log (restartLogOps): what the
// data file's size adds to a restart. It reports the resident memory the open added (the
// data file's pages it touched count) next to the file's size.
func BenchmarkRestart(b *testing.B) {
	large := 100_000
	if v, err := strconv.Atoi(os.Getenv("SHAREVAT_RESTART_OPS")); err == nil && v > restartLogOps {
		large = v
	}
	for _, n := range []int{1_000, large} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			path := restartFile(b, n)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			var rss int64
			for b.Loop() {
				before := residentBytes(b)
				db, err := bolt.Open(path, bolt.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rss = max(rss, residentBytes(b)-before)
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
			b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
		})
	}
}

// residentBytes is the process's resident set size (Linux; 0 elsewhere).
func residentBytes(b *testing.B) int64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkCommitWithFreePages appends 100-op batches durably, each its
// own bbolt commit (NoWAL), to a file whose 100k-op share was deleted:
// what persisting the freelist (8 bytes a free page, every commit) costs
// a commit when the file has many free pages.
func BenchmarkCommitWithFreePages(b *testing.B) {
	path := restartFile(b, 100_000)
	db := MustOpenAt(b, path, bolt.Options{NoWAL: true})
	if err := db.Delete(context.Background(), "s", time.Now()); err != nil {
		b.Fatal(err)
	}
	createShare(b, db, "t")
	i := 0
	for b.Loop() {
		appendOps(b, db, "t", 1, eventBatch(fmt.Sprint(i), 100).Ops...)
		i++
	}
	reportOps(b, i*100)
}
