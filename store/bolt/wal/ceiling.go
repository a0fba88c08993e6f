package wal

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"
)

// CeilingShape is the load Ceiling runs.
type CeilingShape struct {
	RecordBytes int           // data bytes per record, at least 1
	Records     int           // records per write (and fdatasync), at least 1
	Duration    time.Duration // how long to run (at least one write)
}

// CeilingResult is the raw rate of sequential record appends, each write
// followed by one fdatasync, on one disk: what no log on that disk beats
// for writes of the same size.
type CeilingResult struct {
	RecordBytes   int
	Records       int // per write
	Writes        int
	Elapsed       time.Duration
	WritesPerSec  float64
	RecordsPerSec float64
	BytesPerSec   float64       // frames included
	P50           time.Duration // per write + fdatasync
	P95           time.Duration
	P99           time.Duration
}

// Ceiling measures the write-ahead log's ceiling `sharevat bench`
// compares the store against: a fresh log in a temporary directory
// under dir (so on the disk the caller chose), appending sh.Records
// records of sh.RecordBytes with one write and one fdatasync for
// sh.Duration, through Log.Append itself (frames, checksums, segments),
// then removed.
func Ceiling(ctx context.Context, dir string, sh CeilingShape) (CeilingResult, error) {
	if sh.RecordBytes < 1 || sh.Records < 1 || sh.Duration <= 0 {
		return CeilingResult{}, fmt.Errorf("wal: ceiling: want record bytes ≥ 1, records ≥ 1, duration > 0")
	}
	tmp, err := os.MkdirTemp(dir, "sharevat-wal-ceiling-")
	if err != nil {
		return CeilingResult{}, fmt.Errorf("wal: ceiling: %w", err)
	}
	defer os.RemoveAll(tmp)
	l, _, err := Open(tmp, 0, Options{})
	if err != nil {
		return CeilingResult{}, err
	}
	defer l.Close()
	data := make([][]byte, sh.Records)
	for i := range data {
		data[i] = make([]byte, sh.RecordBytes)
	}
	var lat []time.Duration
	start := time.Now()
	for len(lat) == 0 || (time.Since(start) < sh.Duration && ctx.Err() == nil) {
		t := time.Now()
		if _, err := l.Append(data...); err != nil {
			return CeilingResult{}, err
		}
		lat = append(lat, time.Since(t))
	}
	return ceilingResult(sh, lat, time.Since(start), l.Written()), nil
}

func ceilingResult(sh CeilingShape, lat []time.Duration, elapsed time.Duration, written int64) CeilingResult {
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	s := elapsed.Seconds()
	return CeilingResult{
		RecordBytes: sh.RecordBytes, Records: sh.Records, Writes: len(lat), Elapsed: elapsed,
		WritesPerSec: float64(len(lat)) / s, RecordsPerSec: float64(len(lat)*sh.Records) / s,
		BytesPerSec: float64(written) / s, P50: q(0.5), P95: q(0.95), P99: q(0.99),
	}
}
