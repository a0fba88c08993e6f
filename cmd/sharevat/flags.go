package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"sharevat"
	"sharevat/client"
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

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "vat URL (env SHAREVAT_URL; default "+defaultServer+")")
	fs.StringVar(&c.token, "token", "", "token (env SHAREVAT_TOKEN; prefer the env or --token-file: arguments are visible to other users)")
	fs.StringVar(&c.tokenFile, "token-file", "", "read the token from this file (env SHAREVAT_TOKEN_FILE)")
	fs.BoolVar(&c.json, "json", false, "machine-readable output")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up after this long")
}

// resolve fills unset flags from the environment and defaults.
func (c *clientFlags) resolve(env *Env) {
	c.server = firstNonEmpty(c.server, env.Getenv("SHAREVAT_URL"), defaultServer)
	c.token = firstNonEmpty(c.token, env.Getenv("SHAREVAT_TOKEN"))
	c.tokenFile = firstNonEmpty(c.tokenFile, env.Getenv("SHAREVAT_TOKEN_FILE"))
}

// theToken returns the token from --token, the env, or the token file.
func (c *clientFlags) theToken() (string, error) {
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

// dial connects to the server.
func (c *clientFlags) dial(ctx context.Context) (*client.Conn, error) {
	return client.Dial(ctx, c.server, nil)
}

// restore dials and redeems the share token.
func (c *clientFlags) restore(ctx context.Context) (*client.Conn, *client.Share, error) {
	tok, err := c.theToken()
	if err != nil {
		return nil, nil, err
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	sh, err := conn.Redeem(ctx, tok)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, sh, nil
}

// parseFlags parses args; -h prints usage and is not an error.
func parseFlags(fs *flag.FlagSet, env *Env, args []string) error {
	fs.SetOutput(env.Stderr)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errSilentHelp
	case err != nil:
		return &usageError{msg: err.Error()}
	case fs.NArg() > 0:
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// errSilentHelp ends a command after -h printed its usage.
var errSilentHelp = errors.New("help shown")

// withTimeout bounds a client command.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// denied makes "unauthorized" errors say what to check.
func denied(err error) error {
	if sharevat.ErrorCode(err) == sharevat.EUnauthorized {
		return fmt.Errorf("%w (check the token: it may be wrong, revoked or expired)", err)
	}
	return err
}
