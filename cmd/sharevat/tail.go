package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"

	"github.com/spf13/pflag"
)

// runTail prints the log like read, then follows it live: it keeps one
// subscription open, resubscribing from the last printed op after a
// reconnect (the server restarting, the network dropping), so every op is
// printed exactly once, in order. It runs until interrupted (exit 0), or
// until the token is revoked or refused (exit 3).
var tailCommand = command{
	name:    "tail",
	args:    "[--from N]",
	summary: "print a share's log as JSON Lines, then follow new ops live",
	long: `Prints ops as JSON Lines like read, then follows new ops as they are
appended until interrupted. Like read, it fails if the server cannot be
reached at start; after that it rides through reconnects and server
restarts, printing every op exactly once, and says on stderr when it is
disconnected and when it resumes. --timeout, when given, stops following
once no op has arrived for that long (exit 0): a long catch-up never
ends it while ops keep coming; by default tail never times out.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var from uint64
		var quiet bool
		cf.register(fs)
		never := fs.Lookup("timeout")
		never.Usage, never.DefValue = "stop following once no op has arrived for this long (default: never)", "0s"
		fs.Uint64Var(&from, "from", 0, "print ops after this cursor")
		fs.BoolVar(&quiet, "quiet", false, "say nothing on stderr about disconnects and resumes")
		return func(ctx context.Context, env *Env) error {
			cf.resolve(env)
			if !fs.Changed("timeout") {
				cf.timeout = 0
			}
			ctx, w, stop := withWatchdog(ctx, cf.timeout)
			defer stop()
			return tail(ctx, env, &cf, w, sharevat.Cursor(from), quiet)
		}
	},
}

// startTimeout bounds tail's first dial.
const startTimeout = 30 * time.Second

// tail prints the ops after from and follows new ones; each op is
// progress for w.
func tail(ctx context.Context, env *Env, cf *clientFlags, w *watchdog, from sharevat.Cursor, quiet bool) error {
	tok, err := cf.theToken()
	if err != nil {
		return err
	}
	if err := probe(ctx, cf); err != nil {
		return err
	}
	var last atomic.Uint64
	last.Store(uint64(from))
	s := client.NewRedeemer(cf.server, tok, tailNotes(env, quiet, &last))
	defer s.Close()
	err = client.Tail(ctx, s, from, func(e sharevat.Entry) error {
		w.progress()
		if err := writeJSON(env.Stdout, toJSONEntry(&e)); err != nil {
			return err
		}
		last.Store(uint64(e.Cursor))
		return nil
	})
	if ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
		return nil // interrupted, or --timeout passed: a normal end
	}
	return denied(err)
}

// probe fails fast, like read, when the server cannot be reached at
// start; once tail has started, outages are ridden through.
func probe(ctx context.Context, cf *clientFlags) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	conn, err := cf.dial(ctx)
	if err != nil {
		return err
	}
	return conn.Close()
}

// tailNotes are tail's Redeemer options: unless quiet, they say on
// stderr when the connection is lost, while reconnecting fails, and when
// tail resumes, naming the last cursor printed (last).
func tailNotes(env *Env, quiet bool, last *atomic.Uint64) *client.RedeemerOptions {
	p := newProgress(env, &progressFlags{quiet: quiet}, 0)
	if p == nil {
		return nil
	}
	var lost atomic.Bool
	return &client.RedeemerOptions{
		OnLost: func(err error) {
			lost.Store(true)
			p.note(fmt.Sprintf("disconnected (%s); resuming after cursor %d", oneLine(err.Error()), last.Load()))
		},
		OnRetry: p.retrying,
		OnRedeem: func() {
			if lost.Swap(false) {
				p.note(fmt.Sprintf("resumed after cursor %d", last.Load()))
			}
		},
	}
}
