package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"sharevat/rpc"
	"sharevat/schema"
	"sharevat/vat"

	"github.com/spf13/pflag"
)

// peerLimits are serve's flags for what one peer, and all of them, may
// make the vat hold (README "Limits").
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

// config returns the vat's retention settings; onPass receives every
// pass (metrics).
func (r *retentionFlags) config(onPass func(vat.RetentionPass)) vat.Retention {
	every := r.interval
	if every == 0 {
		every = -1 // no job
	}
	return vat.Retention{Every: every, Ops: r.ops, OnPass: onPass}
}

// Defaults that are serve's own (the others are the packages').
const (
	defaultMemoryBudget  = 512 << 20
	defaultMaxConnsPerIP = 256
	// fdReserve is what the file limit keeps back from --max-conns: the
	// data and log files, the listener, /healthz and /metrics requests.
	fdReserve = 64
	// minAnswerRoom is what one read answer (up to 8 MiB) takes of a
	// connection's budget while it is sent: the answer go-capnp keeps
	// until Finish and the frame queued for the peer.
	minAnswerRoom = 16 << 20
	// maxForkDepth bounds --max-fork-depth: a fork reads every ancestor
	// up to it, holding its parent's fork lock.
	maxForkDepth = 1000
)

func (l *peerLimits) register(fs *pflag.FlagSet) {
	l.connMemory, l.memoryBudget = rpc.DefaultConnMemory, defaultMemoryBudget
	l.subWindow, l.connPushWindow = vat.PushWindow, vat.ConnPushWindow
	fs.IntVar(&l.maxConns, "max-conns", defaultMaxConns(), "most connections at once; the default is the process's file limit less 64")
	fs.IntVar(&l.maxConnsPerIP, "max-conns-per-ip", defaultMaxConnsPerIP, "most connections from one IP address (0: no limit); loopback addresses are exempt, bounded by --max-conns and the memory budget")
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
	} {
		if !c.ok {
			return usagef("%s", c.what)
		}
	}
	return nil
}

// defaultMaxConns is the process's file limit (Go raises the soft limit
// to the hard one at start) less fdReserve.
func defaultMaxConns() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur < 2*fdReserve {
		return 1024
	}
	return int(min(r.Cur, 1<<20)) - fdReserve
}

// handlerOptions sets the limits of the rpc handler.
func (l *peerLimits) handlerOptions(o *rpc.HandlerOptions, onLimit func(string)) {
	o.MaxConns = l.maxConns
	o.MaxConnsPerIP = l.maxConnsPerIP
	o.LoopbackExempt = !l.perIPLoopback
	o.ConnMemory = int64(l.connMemory)
	o.Pool = rpc.NewMemoryPool(int64(l.memoryBudget))
	o.MaxInflightCalls = l.maxInflight
	o.MaxCapsPerMessage = l.maxCapsPerMessage
	o.AssembleTimeout = l.assembleTimeout
	o.PipelineTargets = schema.PipelineTarget
	o.OnLimit = onLimit
}

// setMemoryLimit gives the Go runtime a soft memory limit that follows
// the memory budget (unless GOMEMLIMIT is set): the budget counts the
// bytes peers make the vat hold, and without a limit the garbage
// collector lets the heap grow to twice what is live before it runs, so
// bytes freed by closed connections would linger in RSS.
func (l *peerLimits) setMemoryLimit(log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := int64(l.memoryBudget)*9/8 + 64<<20
	debug.SetMemoryLimit(limit)
	log.Debug("Go memory limit set from --memory-budget", "bytes", limit)
}

// vatQuotas returns the vat's quotas.
func (l *peerLimits) vatQuotas() vat.Quotas {
	q := l.quotas
	q.PushWindow, q.ConnPushWindow = int64(l.subWindow), int64(l.connPushWindow)
	return q
}

// hosts returns the Host names requests may carry and whether loopback
// addresses are allowed too: --allowed-hosts, or, when listening on
// loopback, "localhost" and the loopback addresses; nil: any.
func (l *peerLimits) hosts(listen string) ([]string, bool) {
	if l.allowedHosts != "" {
		return strings.Split(l.allowedHosts, ","), false
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, false
	}
	if isLoopback(host) {
		return []string{"localhost"}, true
	}
	return nil, false
}
