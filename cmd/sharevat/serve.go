package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/server"

	"github.com/spf13/pflag"
)

// serveFlags configure `sharevat serve`.
type serveFlags struct {
	listen       string
	data         string
	open         bool
	openWide     bool
	opencodeOpen bool
	origins      string
	publicURL    string
	logLevel     string
	logFormat    string
	debug        string
	tls          tlsFlags // serve_tls.go
	limits       sharevat.Limits
	peers        peerLimits     // serve_limits.go
	retention    retentionFlags // serve_limits.go
	stores       storeFlags     // serve_store.go
	wal          walFlags       // serve_wal.go

	// the open opencode door's hourly quotas of creates
	opencodeOpenPerAddr, opencodeOpenTotal int
}

func (f *serveFlags) register(fs *pflag.FlagSet) {
	d := sharevat.DefaultLimits()
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7420", "address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&f.data, "data", "./sharevat-data", "data directory (created on first start)")
	f.stores.register(fs)
	f.wal.register(fs)
	fs.BoolVar(&f.open, "open", false, "let any connected client create shares (single-user, loopback use: refused on any other --listen)")
	fs.BoolVar(&f.opencodeOpen, "opencode-open", false, "let opencode create shares through the opencode door without a creation token (single-user, loopback only: refused on any other --listen; docs/opencode.md)")
	fs.IntVar(&f.opencodeOpenPerAddr, "opencode-open-per-addr", opencodeshare.DefaultOpenPerAddr, "with --opencode-open: most shares the door makes in an hour for one remote address (-1: no limit)")
	fs.IntVar(&f.opencodeOpenTotal, "opencode-open-total", opencodeshare.DefaultOpenTotal, "with --opencode-open: most shares the door makes in an hour in all (-1: no limit)")
	fs.BoolVar(&f.openWide, "open-beyond-loopback", false, "with --open on a --listen beyond loopback: let anyone who reaches it create shares (needs --allowed-hosts; logged as a warning)")
	fs.StringVar(&f.origins, "origins", "", "comma-separated browser Origins allowed to connect (* for any; default: same host only)")
	fs.StringVar(&f.publicURL, "public-url", "", "the base URL users reach this server at (e.g. https://vat.example.com), for share page links (grant --link); default: derived from each request")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	f.tls.register(fs)
	fs.StringVar(&f.debug, "debug-listen", "", "serve Go profiles (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060")
	fs.IntVar(&f.limits.MaxBodyBytes, "max-body-bytes", d.MaxBodyBytes, "largest op body")
	fs.IntVar(&f.limits.MaxOpsPerBatch, "max-batch-ops", d.MaxOpsPerBatch, "most ops in one append")
	fs.IntVar(&f.limits.MaxBatchBytes, "max-batch-bytes", d.MaxBatchBytes, "largest append, in bytes")
	fs.IntVar(&f.limits.MaxOpIDLen, "max-op-id", d.MaxOpIDLen, "longest op id, in bytes")
	f.limits.MaxKeyLen, f.limits.MaxDependsOn = d.MaxKeyLen, d.MaxDependsOn
	f.peers.register(fs)
	f.retention.register(fs)
}

var serveCommand = command{
	name:    "serve",
	args:    "[--listen ADDR] [--data DIR]",
	summary: "run the vat",
	long: `Runs the vat: it serves Cap'n Proto RPC over WebSocket at /rpc, the same
capabilities over Cap'n Web at /capnweb (WebSocket and HTTP batch), the
read-only share page at /s/ (links: grant --link; --public-url sets their
base), /healthz, /metrics, /backup and an index page at / on --listen
(bound before anything is written), keeping everything in
the embedded bbolt file under --data (created on first start, with the
server's admin token in <data>/admin.token). It prints the URL clients dial. Stop it with Ctrl-C or
SIGTERM: it drains connections and closes the file.

With --store postgres://… the vault is in PostgreSQL instead, and any
number of vats may serve one database behind a load balancer: they must
share the pepper (--pepper-file, or SHAREVAT_PEPPER with the pepper in
base64) and the admin token, which the first vat writes to its
<data>/admin.token (docs/several-vats.md). /backup then answers 501:
back the database up with pg_dump.

Every flag can also be set with an environment variable, SHAREVAT_ and the
flag's name in capitals with '-' as '_' (SHAREVAT_LISTEN, SHAREVAT_DATA,
SHAREVAT_MAX_CONNS_PER_IP, ...); the command line wins.`,
	setup: func(fs *pflag.FlagSet) runner {
		var f serveFlags
		f.register(fs)
		addEnvUsage(fs)
		return func(ctx context.Context, env *Env) error {
			if err := applyEnv(fs, env.Getenv); err != nil {
				return err
			}
			return runServe(ctx, env, &f)
		}
	},
}

// runServe checks serve's settings and runs the vat.
func runServe(ctx context.Context, env *Env, f *serveFlags) error {
	if err := f.tls.validate(); err != nil {
		return err
	}
	if err := f.limits.Validate(); err != nil {
		return usagef("%s", sharevat.ErrorMessage(err))
	}
	if err := f.peers.validate(server.ReadLimit(f.limits)); err != nil {
		return err
	}
	if err := f.validateOpen(); err != nil { // serve_guard.go
		return err
	}
	if err := f.retention.validate(); err != nil {
		return err
	}
	if err := f.stores.validate(); err != nil {
		return err
	}
	if err := f.wal.validate(f.stores.postgres()); err != nil {
		return err
	}
	if err := validateDebug(f.debug); err != nil {
		return err
	}
	logger, err := newLogger(env, f.logLevel, f.logFormat)
	if err != nil {
		return err
	}
	return serve(ctx, env, f, logger)
}

// newLogger writes records of level and above to stderr as text
// (key=value) or JSON lines.
func newLogger(env *Env, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("bad --log-level %q (want debug, info, warn or error)", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(env.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(env.Stderr, opts)), nil
	}
	return nil, usagef("bad --log-format %q (want text or json)", format)
}

// serve builds the configuration (the last flag and environment checks),
// binds the listener, then builds the server (server.New opens the data
// directory, the store and the vat) and runs it until ctx ends. Every
// setting is checked before the bind, so a bad one is a usage error
// whether or not the port is free; nothing is written before the bind
// succeeds.
func serve(ctx context.Context, env *Env, f *serveFlags, log *slog.Logger) error {
	cfg, err := f.config(env, log)
	if err != nil {
		return err
	}
	ln, err := server.Listen(f.listen)
	if err != nil {
		return err
	}
	defer ln.Close() // for an early return; the HTTP server closes it too
	if err := f.checkOpenListener(ln.Addr(), log); err != nil {
		return err
	}
	srv, err := server.New(ctx, cfg)
	if err != nil {
		return err
	}
	server.SetMemoryLimit(cfg.Peers.MemoryBudget, log)
	return run(ctx, srv, ln)
}

// run serves srv on ln until ctx ends or serving fails, then closes srv,
// waiting up to 10 s for its connections.
func run(ctx context.Context, srv *server.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	served := false
	select {
	case serveErr = <-errc:
		served = true
	case <-ctx.Done():
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closeErr := srv.Close(cctx)
	if !served {
		serveErr = <-errc
	}
	return errors.Join(serveErr, closeErr)
}

// config is the server configuration the flags (and SHAREVAT_PEPPER)
// give.
func (f *serveFlags) config(env *Env, log *slog.Logger) (server.Config, error) {
	cfg := server.Config{
		Data: f.data, Store: f.stores.store, PepperFile: f.stores.pepperFile, WAL: f.wal.config(),
		TLSCert: f.tls.cert, TLSKey: f.tls.key, Open: f.open, OpencodeOpen: f.opencodeOpen, OpencodeOpenPerAddr: f.opencodeOpenPerAddr, OpencodeOpenTotal: f.opencodeOpenTotal, Origins: splitList(f.origins), PublicURL: f.publicURL,
		DebugListen: f.debug, Limits: f.limits, Peers: f.peers.config(), Retention: f.retention.config(),
		Logger: log, Stderr: env.Stderr,
	}
	if f.stores.postgres() {
		p, err := envPepper(env.Getenv)
		if err != nil {
			return server.Config{}, err
		}
		cfg.Pepper = p
	}
	return cfg, nil
}

// validateDebug checks --debug-listen: a loopback address, since it
// serves profiles.
func validateDebug(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("bad --debug-listen %q: %v", addr, err)
	}
	if !server.IsLoopback(host) {
		return usagef("--debug-listen must be a loopback address (it serves profiles), not %q", host)
	}
	return nil
}

// splitList splits a comma-separated flag value (nil when empty).
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
