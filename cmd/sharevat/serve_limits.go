package main

import (
	"flag"
	"net"
	"strings"
	"syscall"
	"time"

	"sharevat/rpc"
	"sharevat/schema"
	"sharevat/vat"
)

// peerLimits are serve's flags for what one peer, and all of them, may
// make the vat hold (README "Limits").
type peerLimits struct {
	maxConns          int
	maxConnsPerIP     int
	connMemory        byteSize
	memoryBudget      byteSize
	maxInflight       int
	maxCapsPerMessage int
	assembleTimeout   time.Duration
	quotas            vat.Quotas
	subWindow         byteSize
	connPushWindow    byteSize
	allowedHosts      string
}

// Defaults that are serve's own (the others are the packages').
const (
	defaultMemoryBudget  = 1 << 30
	defaultMaxConnsPerIP = 256
	// fdReserve is what the file limit keeps back from --max-conns: the
	// data and log files, the listener, /healthz and /metrics requests.
	fdReserve = 64
)

func (l *peerLimits) register(fs *flag.FlagSet) {
	l.connMemory, l.memoryBudget = rpc.DefaultConnMemory, defaultMemoryBudget
	l.subWindow, l.connPushWindow = vat.PushWindow, vat.ConnPushWindow
	fs.IntVar(&l.maxConns, "max-conns", defaultMaxConns(), "most connections at once (default: the file limit less 64)")
	fs.IntVar(&l.maxConnsPerIP, "max-conns-per-ip", defaultMaxConnsPerIP, "most connections from one IP address (0: no limit)")
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
	fs.StringVar(&l.allowedHosts, "allowed-hosts", "", "comma-separated Host names HTTP requests may carry (default: any, or only loopback names when listening on loopback)")
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
	o.ConnMemory = int64(l.connMemory)
	o.Pool = rpc.NewMemoryPool(int64(l.memoryBudget))
	o.MaxInflightCalls = l.maxInflight
	o.MaxCapsPerMessage = l.maxCapsPerMessage
	o.AssembleTimeout = l.assembleTimeout
	o.PipelineTargets = pipelineTargets
	o.OnLimit = onLimit
}

// vatQuotas returns the vat's quotas.
func (l *peerLimits) vatQuotas() vat.Quotas {
	q := l.quotas
	q.PushWindow, q.ConnPushWindow = int64(l.subWindow), int64(l.connPushWindow)
	return q
}

// pipelineTargets adapts schema.PipelineTarget for the transport.
func pipelineTargets(iface uint64, method uint16, transform []uint16) (bool, bool) {
	return schema.PipelineTarget(schema.MethodKey{Interface: iface, Method: method}, transform)
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
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
		return []string{"localhost"}, true
	}
	return nil, false
}
