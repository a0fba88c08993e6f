package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/internal/version"
)

// The command line is built with cobra (github.com/spf13/cobra): it gives
// every command its help (on stdout, `sharevat help CMD` and `CMD -h`),
// "did you mean" suggestions for a mistyped command, and completion
// scripts for bash, zsh, fish and PowerShell, which is what users of a Go
// CLI expect and what we would otherwise write and keep by hand.

// runner runs one command once its flags are parsed.
type runner func(ctx context.Context, env *Env) error

// command is one subcommand: its name, the rest of its usage line, a
// one-line summary, the text of its help, and setup, which registers its
// flags and returns what runs it.
type command struct {
	name    string
	args    string
	summary string
	long    string
	setup   func(fs *pflag.FlagSet) runner
	sub     []command // a command with subcommands has no setup
}

// commands lists every subcommand in the order help shows them.
func commands() []command {
	return []command{
		serveCommand, createCommand, listCommand, appendCommand, flushCommand,
		statusCommand, forkCommand, childrenCommand, deleteCommand, compactCommand, retentionCommand, privacyCommand,
		outboxCommand, readCommand, tailCommand, snapshotCommand, grantCommand,
		grantsCommand, revokeCommand, inspectCommand, exportCommand, importCommand, backupCommand, checkCommand,
		healthCommand, benchCommand, migrateCommand, adminTokenCommand, opencodeTokenCommand, mcpCommand, versionCommand,
	}
}

const rootLong = `sharevat — durable, capability-secured session shares over Cap'n Proto RPC.

Run 'sharevat serve' for a vat on 127.0.0.1:7420 (data in ./sharevat-data),
then 'sharevat create --token-file sharevat-data/admin.token' for a share.

Environment: SHAREVAT_URL (server), SHAREVAT_TOKEN (token),
SHAREVAT_TOKEN_FILE (file holding the token), SHAREVAT_STATE (the append
outbox directory); serve reads SHAREVAT_<FLAG> for each of its flags.
Exit codes: 0 ok, 2 usage, 3 unauthorized/revoked/permission denied,
4 rejected or conflict, 1 anything else.`

// newRoot builds the command tree around env.
func newRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "sharevat",
		Short:         "durable, capability-secured session shares",
		Long:          rootLong,
		Version:       version.String(),
		Args:          unknownCommand,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(c *cobra.Command, _ []string) error {
			c.SetOut(env.Stderr)
			c.Usage()
			return usagef("no command given")
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate(versionText())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v; run 'sharevat help %s'", err, c.Name())
	})
	root.SuggestionsMinimumDistance = 2
	for _, c := range commands() {
		root.AddCommand(c.cobra(env))
	}
	return root
}

// cobra turns c into its cobra command.
func (c command) cobra(env *Env) *cobra.Command {
	cc := &cobra.Command{
		Use:   strings.TrimSpace(c.name + " " + c.args),
		Short: c.summary,
		Long:  c.summary + ".\n\n" + c.long,
		Args:  noArgs,
	}
	for _, s := range c.sub {
		cc.AddCommand(s.cobra(env))
	}
	if c.setup == nil {
		cc.Args, cc.SuggestionsMinimumDistance = unknownCommand, 2
		cc.RunE = func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(env.Stderr)
			cmd.Usage()
			return usagef("%s needs a subcommand", c.name)
		}
		return cc
	}
	run := c.setup(cc.Flags())
	cc.Flags().SortFlags = false
	completeFlagValues(cc)
	cc.RunE = func(cmd *cobra.Command, _ []string) error {
		return run(cmd.Context(), env)
	}
	return cc
}

// noArgs refuses positional arguments: every command takes flags only.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q; run 'sharevat help %s'", args[0], c.Name())
	}
	return nil
}

// unknownCommand is the root's answer to a word that names no command,
// with cobra's suggestions ("did you mean append?").
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", s[0])
	}
	return usagef("%s (run '%s --help' for the list)", msg, c.CommandPath())
}

// completeFlagValues offers the values of the flags that take one of a
// few words.
func completeFlagValues(c *cobra.Command) {
	words := map[string][]string{
		"scope":      {"read", "append", "read,append", "read,delegate", "read,append,delegate", "owner"},
		"log-level":  {"debug", "info", "warn", "error"},
		"log-format": {"text", "json"},
		"mode":       {"append", "restore", "tail", "conns", "soak", "all"},
		"shares":     {"each", "one"},
	}
	for name, vals := range words {
		if c.Flags().Lookup(name) == nil {
			continue
		}
		c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}
}
