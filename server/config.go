package server

import (
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// Config is what a Server runs with. Start from DefaultConfig: a zero
// Peers or Retention is not a usable setting.
type Config struct {
	// Data is the data directory (created on first start): the bbolt
	// file, pepper.key and admin.token. Required, also on PostgreSQL
	// (the admin token and, by default, the pepper are kept there).
	Data string
	// Store is "" for the bbolt file under Data, or a postgres:// URL
	// of a database that several vats may share.
	Store string
	// PepperFile is the pepper's file; "" is Data/pepper.key.
	PepperFile string
	// Pepper, on PostgreSQL, is the pepper itself (SHAREVAT_PEPPER); it
	// wins over PepperFile.
	Pepper []byte
	// WAL tunes the write-ahead log in front of the bbolt file.
	WAL WAL
	// TLSCert and TLSKey, both set, serve TLS (wss://, https://).
	TLSCert, TLSKey string
	// Open lets any connected client create shares; the caller checks
	// that the listener is loopback (or that this is on purpose).
	Open bool
	// OpencodeOpen lets the opencode door create shares without a
	// creation token (serve --opencode-open); like Open, the caller
	// checks that the listener is loopback.
	OpencodeOpen bool
	// OpencodeOpenPerAddr and OpencodeOpenTotal bound the shares the
	// open door makes in an hour for one remote address and in all;
	// zero: opencodeshare.DefaultOpenPerAddr (120) and DefaultOpenTotal
	// (600); negative: no limit.
	OpencodeOpenPerAddr, OpencodeOpenTotal int
	// OpencodeMaxBody caps a request body of the opencode door; zero:
	// opencodeshare.DefaultMaxBody (32 MiB).
	OpencodeMaxBody int64
	// OpencodeStateBytes bounds what the opencode door keeps of the
	// versions of the shares syncing through it; zero:
	// opencode.DefaultStateBytes.
	OpencodeStateBytes int64
	// Origins are the browser Origins allowed to connect ("*": any;
	// nil: the same host only).
	Origins []string
	// PublicURL is the base URL users reach the server at, for share
	// page links; "" derives it from each request.
	PublicURL string
	// DebugListen, if set, serves Go's profiles (/debug/pprof/) on this
	// loopback address.
	DebugListen string
	// Limits bound ops and appends.
	Limits sharevat.Limits
	// Peers bound what peers may make the vat hold.
	Peers Peers
	// Retention runs the background retention job.
	Retention Retention
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// Stderr receives the "serving on URL" line people and tests read;
	// nil discards it.
	Stderr io.Writer
}

// WAL tunes the write-ahead log (docs/design.md §8); zero values are
// store/bolt's defaults.
type WAL struct {
	Off             bool          // every append group commits a bbolt transaction
	Dir             string        // "" is Data/sharevat.db.wal
	MaxPendingBytes int64         // how far the log may run ahead of the file
	ApplyEvery      time.Duration // apply at least this often while any is pending
	ApplyBytes      int64         // apply as soon as this much is pending
}

// Retention configures the background retention job (vat.Retention).
type Retention struct {
	Every time.Duration // time between passes; 0 turns the job off
	Ops   int           // most ops one pass drops
}

// Peers are the limits on what one peer, and all of them, may make the
// vat hold (docs/operations.md, "Limits").
type Peers struct {
	MaxConns          int           // connections at once
	MaxConnsPerIP     int           // connections from one IP address (0: no limit)
	PerIPLoopback     bool          // count loopback addresses against MaxConnsPerIP too
	ConnMemory        int64         // memory budget of one connection
	MemoryBudget      int64         // memory budget of all connections
	MaxInflight       int           // unanswered calls of one connection
	MaxCapsPerMessage int           // capabilities one incoming message may carry
	AssembleTimeout   time.Duration // one message's first frame to its last
	Quotas            vat.Quotas    // subscriptions and push windows
	AllowedHosts      []string      // Host names served (nil: any, or loopback names on loopback)
	MaxChildGrants    int           // live grants one grant may mint directly
	MaxForks          int           // live forks of one share
	MaxForkDepth      int           // longest chain of forks
	MaxTreeForks      int           // live forks of one fork tree
	MaxTreeForkBytes  int64         // bytes one fork tree's live forks copied
}

// Defaults that are the server's own (the others are the packages').
const (
	DefaultMemoryBudget  = 512 << 20
	DefaultMaxConnsPerIP = 256
	// fdReserve is what the file limit keeps back from MaxConns: the
	// data and log files, the listener, /healthz and /metrics requests.
	fdReserve = 64
)

// DefaultConfig is the configuration of `sharevat serve` with no flags,
// on the data directory data.
func DefaultConfig(data string) Config {
	return Config{
		Data:      data,
		Limits:    sharevat.DefaultLimits(),
		Peers:     DefaultPeers(),
		Retention: Retention{Every: vat.DefaultRetentionEvery, Ops: vat.DefaultRetentionOps},
	}
}

// DefaultPeers are the default peer limits.
func DefaultPeers() Peers {
	return Peers{
		MaxConns:          DefaultMaxConns(),
		MaxConnsPerIP:     DefaultMaxConnsPerIP,
		ConnMemory:        rpc.DefaultConnMemory,
		MemoryBudget:      DefaultMemoryBudget,
		MaxInflight:       rpc.DefaultMaxInflightCalls,
		MaxCapsPerMessage: rpc.DefaultMaxCapsPerMessage,
		AssembleTimeout:   rpc.DefaultAssembleTimeout,
		Quotas: vat.Quotas{MaxSubscriptions: vat.MaxSubscriptions, MaxConnSubscriptions: vat.MaxConnSubscriptions,
			MaxShareSubscriptions: vat.MaxShareSubscriptions, MaxGrantSubscriptions: vat.MaxGrantSubscriptions,
			PushWindow: vat.PushWindow, ConnPushWindow: vat.ConnPushWindow},
		MaxChildGrants:   vat.DefaultMaxChildGrants,
		MaxForks:         vat.DefaultMaxForks,
		MaxForkDepth:     vat.DefaultMaxForkDepth,
		MaxTreeForks:     vat.DefaultMaxTreeForks,
		MaxTreeForkBytes: vat.DefaultMaxTreeForkBytes,
	}
}

// DefaultMaxConns is the process's file limit (Go raises the soft limit
// to the hard one at start) less what the server keeps back.
func DefaultMaxConns() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur < 2*fdReserve {
		return 1024
	}
	return int(min(r.Cur, 1<<20)) - fdReserve
}

// ReadLimit is the largest message the transport accepts: the largest
// append and room for its framing.
func ReadLimit(l sharevat.Limits) int64 { return int64(l.MaxBatchBytes) + 1<<20 }

// postgres reports whether the vault is in PostgreSQL.
func (c *Config) postgres() bool { return IsPostgresURL(c.Store) }

// retention is the vat's retention setting; onPass receives every pass.
func (c *Config) retention(onPass func(vat.RetentionPass)) vat.Retention {
	every := c.Retention.Every
	if every == 0 {
		every = -1 // no job
	}
	return vat.Retention{Every: every, Ops: c.Retention.Ops, OnPass: onPass}
}
