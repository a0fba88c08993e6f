package hostile

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Report is what one vector did.
type Report struct {
	Vector   string
	Conns    int            // connections opened
	Refused  int            // connections refused at the upgrade (HTTP error, e.g. 503)
	DialErrs int            // other dial failures (e.g. connection refused: no server)
	Sent     int64          // data messages sent, over all connections
	Received int64          // data messages read, over all connections
	Ends     map[string]int // how the connections ended (End.String) → how many
	// NoClose counts connections that ended without a close frame: a
	// reset or EOF, which is what a crashed server looks like.
	NoClose int
	Elapsed time.Duration
	Err     error  // why the vector stopped early, if it did
	Detail  string // what the vector saw, in its own words

	mu sync.Mutex
}

func newReport(name string) *Report { return &Report{Vector: name, Ends: map[string]int{}} }

// ended records one connection's end and its counts.
func (r *Report) ended(c *Conn, e End) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Ends[e.String()]++
	if e.Dropped() {
		r.NoClose++
	}
	r.Sent += c.Sent()
	r.Received += c.Received()
}

// dialed records a dial attempt.
// timed starts the report's clock; the func it returns stops it
// (defer r.timed()()).
func (r *Report) timed() func() {
	start := time.Now()
	return func() { r.Elapsed = time.Since(start) }
}

// dial dials url for the vector and records how it went; nil when the
// dial failed.
func (r *Report) dial(ctx context.Context, url string) *Conn {
	c, err := Dial(ctx, url)
	r.dialed(err)
	if err != nil {
		return nil
	}
	return c
}

func (r *Report) dialed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil:
		r.Conns++
	case errors.Is(err, ErrRefused):
		r.Refused++
	default:
		r.DialErrs++
		if r.Err == nil {
			r.Err = err
		}
	}
}

func (r *Report) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err == nil {
		r.Err = err
	}
}

// EndSummary lists how the connections ended, most frequent first, e.g.
// `98× close 1008 "…"; 2× still open`.
func (r *Report) EndSummary() string {
	keys := slices.Collect(maps.Keys(r.Ends))
	slices.SortFunc(keys, func(a, b string) int {
		if d := r.Ends[b] - r.Ends[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d× %s", r.Ends[k], k))
	}
	if r.Refused > 0 {
		parts = append(parts, fmt.Sprintf("%d× refused at upgrade", r.Refused))
	}
	if r.DialErrs > 0 {
		parts = append(parts, fmt.Sprintf("%d× dial failed", r.DialErrs))
	}
	return strings.Join(parts, "; ")
}

func (r *Report) String() string {
	s := fmt.Sprintf("%s: %d conns, sent %d, received %d, %.1fs; ended: %s",
		r.Vector, r.Conns, r.Sent, r.Received, r.Elapsed.Seconds(), r.EndSummary())
	if r.Detail != "" {
		s += "; " + r.Detail
	}
	if r.Err != nil {
		s += "; stopped: " + r.Err.Error()
	}
	return s
}
