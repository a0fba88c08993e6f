package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sharevat/sharevat/client"
	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/version"

	"github.com/spf13/pflag"
)

// mcpCommand serves a share's tools to an AI agent over MCP's stdio
// transport (docs/mcp.md): the agent launches it as a local MCP server,
// and it is a client of the vat at --server, over /rpc.
var mcpCommand = command{
	name:    "mcp",
	args:    "[--server URL]",
	summary: "serve a share's rights as MCP tools to an agent, over stdio",
	long: `Runs a Model Context Protocol server on stdin and stdout, the way agents
(opencode, Claude Code, Codex, …) launch local tools. Its tools act on the
share of the token in SHAREVAT_TOKEN (or the file SHAREVAT_TOKEN_FILE
names) with that token's rights, on the vat at --server (SHAREVAT_URL),
over /rpc: info, read, follow, snapshot, append, grant, list grants,
revoke, fork (docs/mcp.md). The token is never a flag, never logged.
It reconnects and redeems again after the vat restarts. A vat can also
serve MCP itself, over HTTP at /mcp.`,
	setup: func(fs *pflag.FlagSet) runner {
		var server string
		fs.StringVar(&server, "server", "", "vat URL (env SHAREVAT_URL; default "+defaultServer+")")
		return func(ctx context.Context, env *Env) error {
			return serveMCP(ctx, env, firstNonEmpty(server, env.Getenv("SHAREVAT_URL"), defaultServer))
		}
	},
}

// mcpToken reads the token from SHAREVAT_TOKEN or SHAREVAT_TOKEN_FILE.
func mcpToken(env *Env) (string, error) {
	if t := strings.TrimSpace(env.Getenv("SHAREVAT_TOKEN")); t != "" {
		return t, nil
	}
	f := env.Getenv("SHAREVAT_TOKEN_FILE")
	if f == "" {
		return "", usagef("no token: set SHAREVAT_TOKEN, or SHAREVAT_TOKEN_FILE to a file holding it, in the MCP server's environment")
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func serveMCP(ctx context.Context, env *Env, server string) error {
	if err := checkServer(server); err != nil {
		return err
	}
	server = vatRPC(server)
	tok, err := mcpToken(env)
	if err != nil {
		return err
	}
	var src mcpdoor.Source
	if err := checkToken(tok); err != nil {
		// Served anyway: the agent reads why in every tool's error,
		// where a server that exits at start shows only that it failed.
		src = refused{err}
	} else {
		r := client.NewRedeemer(server, tok, nil)
		defer r.Close()
		src = r
	}
	srv := mcpdoor.NewServer(src, mcpdoor.Options{Version: version.String()})
	fmt.Fprintf(env.Stderr, "sharevat mcp: serving share tools over stdio, vat %s\n", server)
	// A line that is not JSON, is too long, or appends too many ops is
	// answered with a JSON-RPC error and the session goes on.
	t := mcpdoor.NewStdioTransport(env.Stdin, env.Stdout, 0, 0)
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !isEOF(err) {
		return err
	}
	return nil
}

// refused is the Source of a token that cannot be one: every call
// answers why.
type refused struct{ err error }

func (r refused) Share(context.Context) (*client.Share, error) { return nil, r.err }
func (refused) Fail(*client.Share, error)                      {}

// isEOF reports the end of the client's input: the agent closed it.
func isEOF(err error) bool {
	return err == io.EOF || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}
