package opencode

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// The open door (serve --opencode-open) creates shares for anyone who
// reaches it, so it counts the shares it made in the last hour, per
// remote address and in all, and refuses a create past either (429).
// The counts live in this process (a restart starts them anew). Memory:
// at most Total timestamps in all, since each one in a per-address list
// is also in the overall one.

// Defaults of Options.OpenPerAddr and Options.OpenTotal.
const (
	DefaultOpenPerAddr = 120
	DefaultOpenTotal   = 600
)

// quotaWindow is the span the open door's quota counts over.
const quotaWindow = time.Hour

// openQuota is the open door's count of the shares it made.
type openQuota struct {
	perAddr, total int // <= 0: no limit

	mu     sync.Mutex
	all    []time.Time
	byAddr map[string][]time.Time
}

func newOpenQuota(perAddr, total int) *openQuota {
	return &openQuota{perAddr: perAddr, total: total, byAddr: map[string][]time.Time{}}
}

// take counts one create from r's remote address at now, or refuses it
// with the 429 naming the limit it would pass.
func (q *openQuota) take(r *http.Request, now time.Time) error {
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	since := now.Add(-quotaWindow)
	q.all = recent(q.all, since)
	mine := recent(q.byAddr[addr], since)
	switch {
	case q.total > 0 && len(q.all) >= q.total:
		return fail(http.StatusTooManyRequests, fmt.Sprintf("tooLarge: the open door made its %d shares of the last hour (serve --opencode-open-total); retry later", q.total))
	case q.perAddr > 0 && len(mine) >= q.perAddr:
		return fail(http.StatusTooManyRequests, fmt.Sprintf("tooLarge: the open door made %d shares for this address in the last hour (serve --opencode-open-per-addr); retry later", q.perAddr))
	}
	q.all = append(q.all, now)
	q.byAddr[addr] = append(mine, now)
	if len(q.byAddr) > max(q.total, 1024) {
		q.sweep(since)
	}
	return nil
}

// sweep drops the addresses with nothing in the window.
func (q *openQuota) sweep(since time.Time) {
	for a, ts := range q.byAddr {
		if ts = recent(ts, since); len(ts) == 0 {
			delete(q.byAddr, a)
		} else {
			q.byAddr[a] = ts
		}
	}
}

// recent is ts (oldest first) without the times before since.
func recent(ts []time.Time, since time.Time) []time.Time {
	i := 0
	for i < len(ts) && ts[i].Before(since) {
		i++
	}
	return ts[i:]
}
