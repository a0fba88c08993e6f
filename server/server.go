package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/sharevat/sharevat/capnweb"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// Server is one vat process: its store, its vat and its routes. Make it
// with New, run it with Serve, end it with Close.
type Server struct {
	cfg     Config
	log     *slog.Logger
	stderr  io.Writer
	tls     *tls.Config
	metrics *metrics
	db      *servedStore
	vat     *vat.Vat
	rpc     *rpc.Handler
	web     *capnweb.Handler
	door    *opencodeshare.Door
	debug   func() // stops the profiling listener; nil when there is none

	mu     sync.Mutex
	http   *http.Server // set by Serve
	closed bool
}

// New opens the data directory and the store, builds the vat (starting
// its retention job), mints the admin token into Data/admin.token on
// first start and builds the RPC and Cap'n Web handlers. It serves
// nothing until Serve. On error everything it opened is closed again.
func New(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{cfg: cfg, log: cfg.Logger, stderr: cfg.Stderr}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.stderr == nil {
		s.stderr = io.Discard
	}
	tlsCfg, err := loadTLS(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, err
	}
	s.tls = tlsCfg
	if err := s.open(ctx); err != nil {
		return nil, errors.Join(err, s.closeVault())
	}
	return s, nil
}

// open does New's work in start order (doc.go).
func (s *Server) open(ctx context.Context) error {
	if err := os.MkdirAll(s.cfg.Data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	if s.cfg.DebugListen != "" {
		stop, err := startDebug(s.cfg.DebugListen, s.log)
		if err != nil {
			return err
		}
		s.debug = stop
	}
	s.metrics = newMetrics()
	db, err := openStore(ctx, &s.cfg, s.metrics, s.log) // store.go
	if err != nil {
		return err
	}
	s.db = db
	var pepper []byte
	if s.vat, pepper, err = openVat(ctx, &s.cfg, db, s.metrics, s.log); err != nil {
		return err
	}
	s.rpc = newRPCHandler(s.vat, &s.cfg, s.metrics, s.log)
	s.metrics.watchConns(s.rpc.Conns)
	s.web = newWebHandler(s.vat, &s.cfg, s.rpc, s.metrics, s.log)
	s.door, err = newDoor(ctx, s.vat, db, pepper, &s.cfg, s.rpc, s.log) // opencode.go
	warnOpenHosts(&s.cfg, s.stderr, s.log)                              // listen.go
	return err
}

// Serve serves every route on ln until Close, then returns nil (at once,
// when Close came first); it returns the listener's error if accepting
// fails, and an error if the server is already serving. It closes ln. A
// TLS configuration (Config.TLSCert) serves TLS on ln. Serve logs, and
// writes to Config.Stderr, the URL clients dial.
func (s *Server) Serve(ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(ln.Addr()), ReadHeaderTimeout: 10 * time.Second}
	if s.tls != nil {
		useTLS(srv, s.tls)
	}
	s.mu.Lock()
	closed, serving := s.closed, s.http != nil
	if !closed && !serving {
		s.http = srv
	}
	s.mu.Unlock()
	if closed || serving {
		ln.Close()
		if serving {
			return errors.New("server: Serve called twice")
		}
		return nil
	}
	announce(s.stderr, ln.Addr(), s.tls != nil, s.db.where, s.log)
	var err error
	if s.tls != nil {
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serve: %w", err)
}

// Close shuts the server down in the order doc.go gives, waiting for
// connections until ctx ends, and returns every error met. It may be
// called once, whether or not Serve was.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	srv, closed := s.http, s.closed
	s.closed = true
	s.mu.Unlock()
	if closed {
		return nil
	}
	s.log.Info("shutting down")
	var err error
	if srv != nil {
		err = srv.Shutdown(ctx)
	}
	err = errors.Join(err, s.web.Close(ctx), s.rpc.Close(ctx))
	return errors.Join(err, s.closeVault())
}

// closeVault closes the vat, the store and the profiling listener,
// whichever are open.
func (s *Server) closeVault() error {
	var err error
	if s.door != nil {
		err = s.door.Close()
	}
	if s.vat != nil {
		err = errors.Join(err, CloseVat(s.vat))
	}
	if s.db != nil {
		err = errors.Join(err, s.db.Close())
	}
	if s.debug != nil {
		s.debug()
	}
	return err
}

// CloseVat ends a vat's subscriptions and saves last-use times, waiting
// at most 10 s.
func CloseVat(v *vat.Vat) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v.FlushUsage(ctx)
	return v.Close(ctx)
}
