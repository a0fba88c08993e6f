package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	capnp "capnproto.org/go/capnp/v3"
	capnprpc "capnproto.org/go/capnp/v3/rpc"
	"capnproto.org/go/capnp/v3/rpc/transport"

	"github.com/sharevat/sharevat/rpc/engine"
)

// Engine selects the Cap'n Proto RPC implementation a connection runs.
// The zero value defers to the environment variable SHAREVAT_RPC_ENGINE
// ("sharevat" or "go-capnp"), and to EngineGoCapnp when that is unset.
type Engine string

const (
	// EngineGoCapnp is go-capnp v3's rpc.Conn (the default).
	EngineGoCapnp Engine = "go-capnp"
	// EngineSharevat is package rpc/engine, our own level-1 engine.
	EngineSharevat Engine = "sharevat"
)

// EngineEnv names the environment variable that picks the engine when
// the options leave it unset.
const EngineEnv = "SHAREVAT_RPC_ENGINE"

// ParseEngine parses an engine name ("" means unset).
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "", EngineGoCapnp, EngineSharevat:
		return e, nil
	}
	return "", fmt.Errorf("unknown RPC engine %q: want %q or %q", s, EngineSharevat, EngineGoCapnp)
}

// resolve applies the environment default to an unset engine.
func (e Engine) resolve() Engine {
	if e != "" {
		return e
	}
	if env, err := ParseEngine(os.Getenv(EngineEnv)); err == nil && env != "" {
		return env
	}
	return EngineGoCapnp
}

// engineConn is what the Handler and Dial need of either engine.
type engineConn interface {
	Bootstrap(ctx context.Context) capnp.Client
	Close() error
	Done() <-chan struct{}
}

var (
	_ engineConn = (*capnprpc.Conn)(nil)
	_ engineConn = (*engine.Conn)(nil)
)

// startEngine runs RPC on codec with engine e (already resolved). It takes
// ownership of boot. logger is go-capnp's adapter; log is ours.
func startEngine(e Engine, codec *Codec, boot capnp.Client, log *slog.Logger, logger capnprpc.Logger) engineConn {
	if e == EngineSharevat {
		return engine.NewConn(codec, &engine.Options{BootstrapClient: boot, Logger: log})
	}
	return capnprpc.NewConn(transport.New(codec), &capnprpc.Options{BootstrapClient: boot, Logger: logger})
}
