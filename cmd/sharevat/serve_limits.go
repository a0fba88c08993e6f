package main

import (
	"fmt"
	"time"

	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/vat"

	"github.com/spf13/pflag"
)

// peerLimits are serve's flags for what one peer, and all of them, may
// make the vat hold (docs/operations.md, "Limits").
type peerLimits struct {
	maxConns          int
	maxConnsPerIP     int
	perIPLoopback     bool
	connMemory        byteSize
	memoryBudget      byteSize
	maxInflight       int
	maxCapsPerMessage int
	assembleTimeout   time.Duration
	quotas            vat.Quotas
	subWindow         byteSize
	connPushWindow    byteSize
	allowedHosts      string
	maxChildGrants    int
	maxForks          int
	maxForkDepth      int
	maxTreeForks      int
	maxTreeForkBytes  byteSize
}

// retentionFlags are serve's flags for the background retention job
// (vat.Retention): how often it looks at the shares and how many ops one
// pass may drop.
type retentionFlags struct {
	interval time.Duration
	ops      int
}

// maxRetentionOps bounds --retention-ops: a pass that drops this many
// ops takes tens of seconds of write transactions.
const maxRetentionOps = 10_000_000

func (r *retentionFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&r.interval, "retention-interval", vat.DefaultRetentionEvery, "time between passes of the background retention job (at least 1s; 0 turns the job off, and with it every share's retention setting)")
	fs.IntVar(&r.ops, "retention-ops", vat.DefaultRetentionOps, "most ops one retention pass drops (a pass that stops on it with work left is followed a second later)")
}

func (r *retentionFlags) validate() error {
	switch {
	case r.interval != 0 && r.interval < time.Second:
		return usagef("--retention-interval must be at least 1s (0 turns the retention job off)")
	case r.ops < 1 || r.ops > maxRetentionOps:
		return usagef("--retention-ops must be 1 to %d", maxRetentionOps)
	}
	return nil
}

// config returns the server's retention settings.
func (r *retentionFlags) config() server.Retention {
	return server.Retention{Every: r.interval, Ops: r.ops}
}

// Limits of serve's flags.
const (
	// minAnswerRoom is what one read answer (up to 8 MiB) takes of a
	// connection's budget while it is sent: the answer go-capnp keeps
	// until Finish and the frame queued for the peer.
	minAnswerRoom = 16 << 20
	// maxForkDepth bounds --max-fork-depth: a fork reads every ancestor
	// up to it, holding its parent's fork lock.
	maxForkDepth = 1000
)

func (l *peerLimits) register(fs *pflag.FlagSet) {
	l.connMemory, l.memoryBudget = rpc.DefaultConnMemory, server.DefaultMemoryBudget
	l.subWindow, l.connPushWindow = vat.PushWindow, vat.ConnPushWindow
	l.maxTreeForkBytes = vat.DefaultMaxTreeForkBytes
	fs.IntVar(&l.maxConns, "max-conns", server.DefaultMaxConns(), "most connections at once; the default is the process's file limit less 64")
	fs.IntVar(&l.maxConnsPerIP, "max-conns-per-ip", server.DefaultMaxConnsPerIP, "most connections from one IP address (0: no limit); loopback addresses are exempt, bounded by --max-conns and the memory budget")
	fs.BoolVar(&l.perIPLoopback, "per-ip-loopback", false, "count loopback addresses against --max-conns-per-ip too (for a machine whose local users are not trusted)")
	fs.Var(&l.connMemory, "conn-memory", "memory budget of one connection: what the vat holds for it (e.g. 64MiB)")
	fs.Var(&l.memoryBudget, "memory-budget", "memory budget of all connections together (e.g. 1GiB)")
	fs.IntVar(&l.maxInflight, "max-inflight", rpc.DefaultMaxInflightCalls, "most calls one connection may have unanswered")
	fs.IntVar(&l.maxCapsPerMessage, "max-caps-per-message", rpc.DefaultMaxCapsPerMessage, "most capabilities one incoming message may carry")
	fs.DurationVar(&l.assembleTimeout, "assemble-timeout", rpc.DefaultAssembleTimeout, "longest time one message may take from its first frame to its last")
	fs.IntVar(&l.quotas.MaxSubscriptions, "max-subscriptions", vat.MaxSubscriptions, "most live subscriptions in the server")
	fs.IntVar(&l.quotas.MaxConnSubscriptions, "max-conn-subscriptions", vat.MaxConnSubscriptions, "most live subscriptions of one connection")
	fs.IntVar(&l.quotas.MaxShareSubscriptions, "max-share-subscriptions", vat.MaxShareSubscriptions, "most live subscriptions of one share")
	fs.IntVar(&l.quotas.MaxGrantSubscriptions, "max-subscriptions-per-grant", vat.MaxGrantSubscriptions, "most live subscriptions made with one token")
	fs.Var(&l.subWindow, "subscription-window", "bytes one subscription may have pushed and not acknowledged")
	fs.Var(&l.connPushWindow, "conn-push-window", "bytes all of one connection's subscriptions may have read and not had acknowledged")
	fs.IntVar(&l.maxChildGrants, "max-grants-per-grant", vat.DefaultMaxChildGrants, "most live grants one grant may have minted directly")
	fs.IntVar(&l.maxForks, "max-forks", vat.DefaultMaxForks, "most live forks of one share")
	fs.IntVar(&l.maxForkDepth, "max-fork-depth", vat.DefaultMaxForkDepth, "longest chain of forks (a fork of a fork of …): a share this many forks deep cannot be forked")
	fs.IntVar(&l.maxTreeForks, "max-tree-forks", vat.DefaultMaxTreeForks, "most live forks of one fork tree (a share that was not forked and every share forked from it, at any depth)")
	fs.Var(&l.maxTreeForkBytes, "max-tree-fork-bytes", "most bytes one fork tree's live forks may have copied when they were made")
	fs.StringVar(&l.allowedHosts, "allowed-hosts", "", "comma-separated Host names HTTP requests may carry (default: any, or only loopback names when listening on loopback)")
}

// validate refuses settings no server can work with; readLimit is the
// largest message the server accepts.
func (l *peerLimits) validate(readLimit int64) error {
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{l.maxConns >= 1, "--max-conns must be at least 1"},
		{l.maxConnsPerIP >= 0, "--max-conns-per-ip must not be negative (0: no limit)"},
		{int64(l.connMemory) >= readLimit+minAnswerRoom, fmt.Sprintf("--conn-memory must be at least %s: the largest message (%s) and room to answer a read (%s)",
			formatBytes(readLimit+minAnswerRoom), formatBytes(readLimit), formatBytes(minAnswerRoom))},
		{l.memoryBudget >= l.connMemory, "--memory-budget must be at least --conn-memory"},
		{l.maxInflight >= 1, "--max-inflight must be at least 1"},
		{l.maxCapsPerMessage >= 1, "--max-caps-per-message must be at least 1"},
		{l.assembleTimeout >= 100*time.Millisecond, "--assemble-timeout must be at least 100ms"},
		{min(l.quotas.MaxSubscriptions, l.quotas.MaxConnSubscriptions, l.quotas.MaxShareSubscriptions, l.quotas.MaxGrantSubscriptions) >= 1, "subscription limits must be at least 1"},
		{l.subWindow >= 64<<10 && l.connPushWindow >= 64<<10, "--subscription-window and --conn-push-window must be at least 64KiB"},
		{l.maxChildGrants >= 1 && l.maxChildGrants <= 1_000_000, "--max-grants-per-grant must be 1 to 1000000"},
		{l.maxForks >= 1 && l.maxForks <= 1_000_000, "--max-forks must be 1 to 1000000"},
		{l.maxForkDepth >= 1 && l.maxForkDepth <= maxForkDepth, fmt.Sprintf("--max-fork-depth must be 1 to %d", maxForkDepth)},
		{l.maxTreeForks >= 1 && l.maxTreeForks <= 1_000_000, "--max-tree-forks must be 1 to 1000000"},
		{l.maxTreeForkBytes >= 1, "--max-tree-fork-bytes must be at least 1B"},
	} {
		if !c.ok {
			return usagef("%s", c.what)
		}
	}
	return nil
}

// config returns the server's peer limits.
func (l *peerLimits) config() server.Peers {
	q := l.quotas
	q.PushWindow, q.ConnPushWindow = int64(l.subWindow), int64(l.connPushWindow)
	return server.Peers{
		MaxConns: l.maxConns, MaxConnsPerIP: l.maxConnsPerIP, PerIPLoopback: l.perIPLoopback,
		ConnMemory: int64(l.connMemory), MemoryBudget: int64(l.memoryBudget),
		MaxInflight: l.maxInflight, MaxCapsPerMessage: l.maxCapsPerMessage, AssembleTimeout: l.assembleTimeout,
		Quotas: q, AllowedHosts: splitList(l.allowedHosts),
		MaxChildGrants: l.maxChildGrants, MaxForks: l.maxForks, MaxForkDepth: l.maxForkDepth,
		MaxTreeForks: l.maxTreeForks, MaxTreeForkBytes: int64(l.maxTreeForkBytes),
	}
}
