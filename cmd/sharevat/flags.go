package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
func (c *clientFlags) resolve(env *Env) {
	c.server = firstNonEmpty(c.server, env.Getenv("SHAREVAT_URL"), defaultServer)
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
			if c.token == "" && filepath.Base(c.tokenFile) == "admin.token" {
				err = adminMistake(ctx, conn, tok, err)
			}
			conn.Close()
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return conn, sh, nil
}

// adminMistake says so when a refused share token is the server's admin
// token: it redeems it as the admin token on the same connection, as
// `sharevat inspect` does (the vat answers every failed redeem alike, so
// only the client can tell). Any other refusal comes back as it was.
// restore asks it only for a token read from a file named admin.token,
// the usual mistake, so that no other failed redeem is made twice.
func adminMistake(ctx context.Context, conn *client.Conn, tok string, refused error) error {
	if sharevat.ErrorCode(refused) != sharevat.EUnauthorized {
		return refused
	}
	admin, err := conn.RedeemAdmin(ctx, tok)
	if err != nil {
		return refused
	}
	admin.Release()
	return errAdminToken
}

// errAdminToken is adminMistake's answer: unauthorized (exit 3), with
// the fix; denied leaves it as it is.
var errAdminToken = sharevat.Errorf(sharevat.EUnauthorized, "this is the server's admin token, not a share token: "+
	"it can only create shares; use a share's token (the owner token 'sharevat create' printed, or one from 'sharevat grant')")

// withTimeout bounds a client command.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// denied makes "unauthorized" errors say what to check.
func denied(err error) error {
	if sharevat.ErrorCode(err) == sharevat.EUnauthorized && !errors.Is(err, errMalformedToken) && err != errAdminToken {
		return fmt.Errorf("%w (check the token: it may be wrong, revoked or expired)", err)
	}
	return err
}

// checkServer says how to fix a --server (or SHAREVAT_URL) that cannot
// be the vat's URL: a usage error (exit 2) naming the URL to use. The
// vat speaks WebSocket at /rpc: ws:// (wss:// behind TLS).
func checkServer(s string) error {
	if !strings.Contains(s, "://") {
		return usagef("server URL %q has no scheme: use ws://%s/rpc", s, strings.TrimSuffix(strings.TrimSuffix(s, "/"), "/rpc"))
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return usagef("server URL %q is not a URL: use ws://HOST:PORT/rpc", s)
	}
	want := *u
	want.Path, want.RawPath = "/rpc", ""
	if err := checkScheme(s, want); err != nil {
		return err
	}
	if u.Path != "/rpc" && !strings.HasSuffix(u.Path, "/rpc") {
		return usagef("server URL %q: the vat answers at the path /rpc; use %s", s, want.String())
	}
	return nil
}

// checkScheme refuses a scheme other than ws or wss, naming want (the
// URL s with its path set to /rpc) with the scheme to use.
func checkScheme(s string, want url.URL) error {
	switch want.Scheme {
	case "ws", "wss":
		return nil
	case "http":
		want.Scheme = "ws"
		return usagef("server URL %q is http: use %s (or wss:// for https)", s, want.String())
	case "https":
		want.Scheme = "wss"
		return usagef("server URL %q is https: use %s", s, want.String())
	}
	want.Scheme = "ws"
	return usagef("server URL %q: the scheme must be ws:// or wss://; use %s", s, want.String())
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
