package vat

import (
	"net"
	"strings"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
)

// Redeems are the audit log's only records a caller without a token can
// cause, and every request of an HTTP door is one (door/gate). So that
// neither junk tokens nor a door's repeated redeem of one grant grow the
// disk with each request, redeem records are thinned per interval
// (design.md §"Audit log"):
//
//   - a redeem that succeeded writes one record per grant, peer (one
//     connection: a door's requests on one keep-alive connection are
//     one) and interval;
//   - a failed redeem writes one record per result, remote host and
//     interval, whatever grant its token named (junk tokens name a new
//     one each), and at most maxFailedRedeemRecords in an interval in
//     all;
//   - at most maxRedeemKeys records are written in an interval in all.
//
// Every redeem still counts in the metrics (sharevat_redeems_total).
// The count resets when an interval ends; no goroutine is involved.

// redeemAuditInterval is the interval of redeem records.
const redeemAuditInterval = time.Minute

// maxFailedRedeemRecords bounds the failed redeem records of an interval.
const maxFailedRedeemRecords = 64

// maxRedeemKeys bounds the redeem records (and the memory that
// remembers them) of an interval.
const maxRedeemKeys = 4096

// redeemAudit decides which redeem records are written.
type redeemAudit struct {
	mu       sync.Mutex
	start    time.Time
	seen     map[string]struct{}
	failures int
}

// admit reports whether rec, a redeem record stamped now, is written.
func (a *redeemAudit) admit(rec sharevat.AuditRecord, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil || now.Sub(a.start) >= redeemAuditInterval || now.Before(a.start) {
		a.start, a.seen, a.failures = now, map[string]struct{}{}, 0
	}
	failed := rec.Result != "ok"
	key := rec.Result + " " + peerHost(rec.Peer)
	if !failed {
		key = "ok " + rec.Peer + " " + string(rec.GrantID)
	}
	if _, ok := a.seen[key]; ok || len(a.seen) >= maxRedeemKeys {
		return false
	}
	if failed {
		if a.failures >= maxFailedRedeemRecords {
			return false
		}
		a.failures++
	}
	a.seen[key] = struct{}{}
	return true
}

// peerHost is peer without its port: "mcp 1.2.3.4:5" → "mcp 1.2.3.4",
// so that a client's new connections are one caller.
func peerHost(peer string) string {
	door, addr, ok := strings.Cut(peer, " ")
	if !ok {
		door, addr = "", peer
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	return door + " " + addr
}
