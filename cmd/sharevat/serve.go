package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"capnproto.org/go/capnp/v3"

	"sharevat"
	"sharevat/capnweb"
	"sharevat/rpc"
	"sharevat/sturdyref"
	"sharevat/vat"

	"github.com/spf13/pflag"
)

// serveFlags configure `sharevat serve`.
type serveFlags struct {
	listen    string
	data      string
	open      bool
	openWide  bool
	origins   string
	publicURL string
	logLevel  string
	logFormat string
	debug     string
	tls       tlsFlags // serve_tls.go
	limits    sharevat.Limits
	peers     peerLimits     // serve_limits.go
	retention retentionFlags // serve_limits.go
	stores    storeFlags     // serve_store.go
	wal       walFlags       // serve_wal.go
}

func (f *serveFlags) register(fs *pflag.FlagSet) {
	d := sharevat.DefaultLimits()
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7420", "address to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&f.data, "data", "./sharevat-data", "data directory (created on first start)")
	f.stores.register(fs)
	f.wal.register(fs)
	fs.BoolVar(&f.open, "open", false, "let any connected client create shares (single-user, loopback use: refused on any other --listen)")
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
	if err := f.peers.validate(readLimit(f.limits)); err != nil {
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

// serve binds the listener, then opens the data directory and serves
// until ctx ends. Nothing is written before the bind succeeds.
func serve(ctx context.Context, env *Env, f *serveFlags, log *slog.Logger) error {
	ln, err := listen(f.listen) // listen.go
	if err != nil {
		return err
	}
	defer ln.Close() // for an early return; the HTTP server closes it too
	if err := f.checkOpenListener(ln.Addr(), log); err != nil {
		return err
	}
	tlsCfg, err := f.tls.config()
	if err != nil {
		return err
	}
	return serveOn(ctx, env, f, ln, tlsCfg, log)
}

// serveOn opens the data directory and the store, builds the vat and
// serves on ln until ctx ends.
func serveOn(ctx context.Context, env *Env, f *serveFlags, ln net.Listener, tlsCfg *tls.Config, log *slog.Logger) error {
	if err := os.MkdirAll(f.data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if f.debug != "" {
		stop, err := startDebug(f.debug, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	m := newMetrics()
	db, err := openStore(ctx, f, m, log) // serve_store.go
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := openVat(ctx, env, f, db, m, log)
	if err != nil {
		return err
	}
	f.peers.setMemoryLimit(log)
	h := newHandler(v, f, m, log)
	m.watchConns(h.Conns)
	hosts, loopback := f.peers.hosts(ln.Addr().String())
	r := routes{db: db, metrics: m.handler(), hosts: hosts, loopback: loopback, backup: db.backupRoute(v, log),
		web: newWebHandler(v, f, h, m, log), page: newPageHandler(f),
		origins: allowedOrigins(f.origins), publicHTTPS: publicHTTPS(f.publicURL)}
	err = runServer(ctx, env, ln, tlsCfg, h, r, log)
	return errors.Join(err, closeVat(v))
}

// openVat loads the pepper, builds the vat and mints the admin token on
// first start.
func openVat(ctx context.Context, env *Env, f *serveFlags, db *servedStore, m *metrics, log *slog.Logger) (*vat.Vat, error) {
	pepper, err := db.pepper(ctx, f, env.Getenv)
	if err != nil {
		return nil, err
	}
	verifier, err := sturdyref.NewVerifier(pepper)
	if err != nil {
		return nil, err
	}
	v, err := vat.New(vat.Config{Store: db.Store, Verifier: verifier, Limits: f.limits, Open: f.open, Logger: log, Observer: m,
		Quotas: f.peers.vatQuotas(), MaxChildGrants: f.peers.maxChildGrants,
		MaxForks: f.peers.maxForks, MaxForkDepth: f.peers.maxForkDepth, Retention: f.retention.config(m.RetentionPassed)})
	if err != nil {
		return nil, err
	}
	if err := db.ensureAdmin(ctx, v, f.data, log); err != nil {
		return nil, errors.Join(err, closeVat(v))
	}
	return v, nil
}

// ensureAdminToken mints the admin token into <data>/admin.token when the
// file is missing (first start, or deleted to rotate the token).
func ensureAdminToken(ctx context.Context, v *vat.Vat, dir string, log *slog.Logger) error {
	ok, err := adminTokenExists(dir)
	if err != nil || ok {
		return err
	}
	m, err := v.MintAdminToken(ctx)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, adminFile)
	if err := writeSecretFile(path, []byte(m.Token+"\n")); err != nil {
		return fmt.Errorf("admin token: %w", err)
	}
	log.Info("admin token written; use it with --token-file to create shares", "path", path, "grant", m.GrantID)
	return nil
}

func newHandler(v *vat.Vat, f *serveFlags, m *metrics, log *slog.Logger) *rpc.Handler {
	opts := rpc.HandlerOptions{
		Bootstrap:      func(p rpc.Peer) capnp.Client { return v.BootstrapMetered(p.RemoteAddr, p.Meter) },
		ReadLimit:      readLimit(f.limits),
		AllowedOrigins: allowedOrigins(f.origins),
		Logger:         log,
	}
	f.peers.handlerOptions(&opts, m.LimitHit)
	m.watchMemory(opts.Pool)
	return rpc.NewHandler(opts)
}

// readLimit is the largest message the transport accepts: the largest
// append and room for its framing.
func readLimit(l sharevat.Limits) int64 { return int64(l.MaxBatchBytes) + 1<<20 }

// closeVat ends the vat's subscriptions and saves last-use times.
func closeVat(v *vat.Vat) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v.FlushUsage(ctx)
	return v.Close(ctx)
}

// routes are the plain HTTP endpoints beside /rpc.
type routes struct {
	db       *servedStore
	metrics  http.Handler
	hosts    []string         // Host names served (nil: any); see hostGuard
	loopback bool             // loopback addresses are served too
	backup   http.Handler     // GET /backup (backup.go)
	web      *capnweb.Handler // /capnweb (serve_web.go)
	page     http.Handler     // /s/, the share page (serve_web.go)
	// origins (--origins) and publicHTTPS (--public-url is https) set
	// originGuard's rule (serve_guard.go).
	origins     []string
	publicHTTPS bool
}

// runServer serves /rpc, /capnweb, /s/, /healthz, /metrics and /backup on ln until ctx ends, then
// shuts down: stop accepting, close every RPC connection, wait for them.
// A non-nil tlsCfg serves TLS.
func runServer(ctx context.Context, env *Env, ln net.Listener, tlsCfg *tls.Config, h *rpc.Handler, r routes, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("/rpc", h)
	mux.HandleFunc("/healthz", healthz(r.db))
	mux.Handle("/metrics", r.metrics)
	mux.Handle("/backup", r.backup)
	mux.Handle("/capnweb", admitted(h, r.web))
	mux.Handle("/s/", r.page)
	mux.Handle("/s", r.page)
	mux.HandleFunc("/{$}", indexHandler) // index.go
	guarded := hostGuard(r.hosts, r.loopback, originGuard(r.origins, r.publicHTTPS, mux))
	srv := &http.Server{Handler: guarded, ReadHeaderTimeout: 10 * time.Second}
	if tlsCfg != nil {
		useTLS(srv, tlsCfg)
	}
	announce(env, ln.Addr(), tlsCfg != nil, r.db.where, log)
	errc := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return shutdown(srv, h, r.web, errc, log)
}

// shutdown stops accepting, then closes the Cap'n Web sessions before the
// RPC connections (rpc.Handler.Close also waits for the WebSockets it
// admitted for /capnweb).
func shutdown(srv *http.Server, h *rpc.Handler, web *capnweb.Handler, errc <-chan error, log *slog.Logger) error {
	log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := errors.Join(srv.Shutdown(ctx), web.Close(ctx), h.Close(ctx))
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// healthz answers 200 "ok" while the store answers a (cheap) lookup.
func healthz(db sharevat.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := db.Share(r.Context(), "healthz"); err != nil && sharevat.ErrorCode(err) != sharevat.ENotFound {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	}
}
