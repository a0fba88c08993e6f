package loadgen

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// soakRetention is the retention a soak sets on each of its shares
// (Share.Configure) before it starts appending; the zero value sets
// none. The vat's background job then compacts each share's log as it
// would in production (docs/guide.md, "Retention and compaction").
type soakRetention struct {
	KeepOps        uint64        `json:"keep_ops,omitempty"`
	KeepFor        time.Duration `json:"-"`
	KeepForSeconds float64       `json:"keep_for_seconds,omitempty"`
}

func retentionOf(cfg *Config) soakRetention {
	return soakRetention{KeepOps: cfg.RetainOps, KeepFor: cfg.RetainFor, KeepForSeconds: cfg.RetainFor.Seconds()}
}

func (r soakRetention) on() bool { return r.KeepOps > 0 || r.KeepFor > 0 }

// String says what the vat keeps of each share, in words.
func (r soakRetention) String() string {
	var keep []string
	if r.KeepOps > 0 {
		keep = append(keep, "the last "+count(int64(r.KeepOps))+" ops")
	}
	if r.KeepFor > 0 {
		keep = append(keep, "the ops of the last "+r.KeepFor.String())
	}
	if len(keep) == 0 {
		return "off (every op kept)"
	}
	return "keep " + strings.Join(keep, " and ") + " of each share"
}

// soakLog is the soak's shares at the end: how many ops were appended
// and how many the retention job compacted.
type soakLog struct {
	Shares    int    `json:"shares"`
	Appended  uint64 `json:"ops_appended"`  // the shares' heads, summed
	Compacted uint64 `json:"ops_compacted"` // ops before each share's earliest cursor, summed
	Readable  uint64 `json:"ops_readable"`
}

// soakShares are the soak's distinct shares: one per connection, or the
// first connection's for all (Shares "one").
func soakShares(conns []*benchConn, shape soakShape) []*benchConn {
	if shape.Shares == "one" {
		return conns[:1]
	}
	return conns
}

// retain sets the soak's retention on each of its shares, keeping their
// other settings (Configure replaces them all), and checks that it is
// stored as asked.
func retain(ctx context.Context, conns []*benchConn, r soakRetention) error {
	if !r.on() {
		return nil
	}
	return forEach(ctx, len(conns), benchDialPar, func(ctx context.Context, i int) error {
		sh := conns[i].share
		set, err := sh.Settings(ctx)
		if err != nil {
			return fmt.Errorf("bench: settings: %w", err)
		}
		set.RetainOps, set.RetainFor = r.KeepOps, r.KeepFor
		got, err := sh.Configure(ctx, set)
		if err != nil {
			return fmt.Errorf("bench: retention: %w", err)
		}
		if got != set {
			return fmt.Errorf("bench: retention: the vat stored %+v, not %+v", got, set)
		}
		return nil
	})
}

// logOf fetches every share of the soak and sums their logs.
func logOf(ctx context.Context, conns []*benchConn) (soakLog, error) {
	var appended, compacted atomic.Uint64
	err := forEach(ctx, len(conns), benchDialPar, func(ctx context.Context, i int) error {
		s, _, err := conns[i].share.Fetch(ctx)
		if err != nil {
			return fmt.Errorf("bench: fetch share: %w", err)
		}
		appended.Add(uint64(s.Head))
		compacted.Add(uint64(max(s.Earliest, 1) - 1))
		return nil
	})
	l := soakLog{Shares: len(conns), Appended: appended.Load(), Compacted: compacted.Load()}
	l.Readable = l.Appended - l.Compacted
	return l, err
}

// String says in words what the soak appended and what was compacted.
func (l soakLog) String() string {
	return fmt.Sprintf("%s ops appended to %d share(s), %s compacted, %s readable",
		count(int64(l.Appended)), l.Shares, count(int64(l.Compacted)), count(int64(l.Readable)))
}
