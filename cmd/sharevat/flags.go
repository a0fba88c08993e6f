package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
)

// defaultServer is the vat URL used when neither --server nor
// SHAREVAT_URL is given.
const defaultServer = "ws://127.0.0.1:7420/rpc"

func osGetenv(k string) string { return os.Getenv(k) }

// clientFlags are the flags every client command shares.
type clientFlags struct {
	server    string
	token     string
	tokenFile string
	json      bool
	timeout   time.Duration
}

func (c *clientFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "vat URL (env SHAREVAT_URL; default "+defaultServer+")")
	fs.StringVar(&c.token, "token", "", "token (env SHAREVAT_TOKEN; prefer the env or --token-file: arguments are visible to other users)")
	fs.StringVar(&c.tokenFile, "token-file", "", "read the token from this file (env SHAREVAT_TOKEN_FILE)")
	fs.BoolVar(&c.json, "json", false, "machine-readable output")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up after this long")
}

// resolve fills unset flags from the environment and defaults. A token
// given on the command line (--token or --token-file) wins over both
// SHAREVAT_TOKEN and SHAREVAT_TOKEN_FILE; of those two, the token wins.
//
// The server URL may be given in any form every sharevat client takes
// (client.RPCURL: http(s)://HOST:PORT, ws(s)://…/rpc or …/capnweb); it
// is kept as its /rpc endpoint, which every command derives the rest
// from. One that cannot name a vat is kept as it is, for checkServer to
// refuse.
func (c *clientFlags) resolve(env *Env) {
	c.server = vatRPC(firstNonEmpty(c.server, env.Getenv("SHAREVAT_URL"), defaultServer))
	if c.token == "" && c.tokenFile == "" {
		c.token = env.Getenv("SHAREVAT_TOKEN")
		c.tokenFile = env.Getenv("SHAREVAT_TOKEN_FILE")
	}
}

// run wraps a client command's body: it fills the client flags from the
// environment and bounds the command with --timeout.
func (c *clientFlags) run(body runner) runner {
	return func(ctx context.Context, env *Env) error {
		c.resolve(env)
		ctx, cancel := withTimeout(ctx, c.timeout)
		defer cancel()
		return body(ctx, env)
	}
}

// theToken returns the token from --token, the env, or the token file.
// It checks the server URL first: every command that sends something
// asks for its token before it stores or sends anything (append stores
// its ops in the outbox before it dials).
func (c *clientFlags) theToken() (string, error) {
	if err := checkServer(c.server); err != nil {
		return "", err
	}
	if c.token != "" {
		return strings.TrimSpace(c.token), nil
	}
	if c.tokenFile == "" {
		return "", usagef("no token: pass --token-file F, set SHAREVAT_TOKEN, or pass --token")
	}
	b, err := os.ReadFile(c.tokenFile)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// dial connects to the server. It first checks the server URL, and the
// token when one is given, so that a mistake in either is reported with
// its fix before anything is dialled.
func (c *clientFlags) dial(ctx context.Context) (*client.Conn, error) {
	if err := checkServer(c.server); err != nil {
		return nil, err
	}
	if tok, err := c.theToken(); err == nil {
		if err := checkToken(tok); err != nil {
			return nil, err
		}
	}
	return client.Dial(ctx, c.server, nil)
}

// restore dials and redeems the share token. A server that cannot check
// the token now (its store is down) is asked again within --timeout
// (retryUnavailable); a server that cannot be reached fails at once.
func (c *clientFlags) restore(ctx context.Context) (*client.Conn, *client.Share, error) {
	tok, err := c.theToken()
	if err != nil {
		return nil, nil, err
	}
	var conn *client.Conn
	var sh *client.Share
	err = c.retryUnavailable(ctx, func() error {
		if conn, err = c.dial(ctx); err != nil {
			return err
		}
		if sh, err = conn.Redeem(ctx, tok); err != nil {
			conn.Close()
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return conn, sh, nil
}

// withTimeout bounds a client command.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// denied makes "unauthorized" errors say what to check.
func denied(err error) error {
	if sharevat.ErrorCode(err) == sharevat.EUnauthorized && !errors.Is(err, errMalformedToken) && !sharevat.IsAdminAsShare(err) {
		return fmt.Errorf("%w (check the token: it may be wrong, revoked or expired)", err)
	}
	return err
}

// checkServer says how to fix a --server (or SHAREVAT_URL) that cannot
// name the vat: a usage error (exit 2) naming the URL to use.
func checkServer(s string) error {
	if _, err := client.RPCURL(s); err != nil {
		return usagef("%s", sharevat.ErrorMessage(err))
	}
	return nil
}

// vatRPC is the /rpc endpoint of the vat s names (client.RPCURL), or s
// as it is when it names none (checkServer says why).
func vatRPC(s string) string {
	if u, err := client.RPCURL(s); err == nil {
		return u
	}
	return s
}

// checkToken refuses a token that is not a token's text before anything
// is dialled: exit 3, like the server's answer to it (docs/design.md §4),
// and the message never quotes the token.
func checkToken(tok string) error {
	if _, err := sturdyref.Parse(tok); err != nil {
		return errMalformedToken
	}
	return nil
}

// errMalformedToken is checkToken's answer: unauthorized (exit 3). It
// wraps the *sharevat.Error so that errors.Is tells it from other
// unauthorized errors (an *sharevat.Error matches any of its code).
var errMalformedToken = fmt.Errorf("%w", sharevat.Errorf(sharevat.EUnauthorized,
	"the token is malformed: a token is svt1_, 24 letters and digits, _, and 43 more characters; check that it was copied whole"))
