package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"sharevat"
)

// Exit codes (docs/design.md §11).
const (
	exitOK       = 0
	exitFailure  = 1 // anything else
	exitUsage    = 2 // bad command line
	exitDenied   = 3 // unauthorized, revoked, permission denied
	exitRejected = 4 // an op was rejected, or a conflict
)

// errSilent is returned after the command already reported its failure.
var errSilent = errors.New("already reported")

// usageError marks a bad command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// rejectedError marks an append some of whose ops were rejected (exit 4).
type rejectedError struct{ n int }

func (e *rejectedError) Error() string { return fmt.Sprintf("%d op(s) rejected", e.n) }

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue *usageError
	var re *rejectedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue) || errors.Is(err, flag.ErrHelp):
		return exitUsage
	case errors.As(err, &re):
		return exitRejected
	}
	switch sharevat.ErrorCode(err) {
	case sharevat.EUnauthorized, sharevat.ERevoked, sharevat.EPermissionDenied:
		return exitDenied
	case sharevat.EConflict:
		return exitRejected
	}
	return exitFailure
}

// oneLine folds an error message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

var commands = []command{
	{"serve", "run the vat", runServe},
	{"create", "create a share (token: admin) and print its owner token", runCreate},
	{"list", "list the shares: id, title, status, head, updated (token: admin)", runList},
	{"append", "append ops (JSON Lines) to a share", runAppend},
	{"flush", "send the ops still pending in the token's outbox", runFlush},
	{"read", "print a share's log as JSON Lines", runRead},
	{"tail", "print a share's log as JSON Lines, then follow new ops live", runTail},
	{"snapshot", "print a share's materialized state as JSON", runSnapshot},
	{"grant", "mint a token for a narrower right and print it", runGrant},
	{"grants", "show who has access: the tree of grants", runGrants},
	{"revoke", "revoke a grant and its subtree (--grant ID), or every token (--all)", runRevoke},
	{"inspect", "say what a token is and whether it is valid, without its secret", runInspect},
	{"bench", "measure throughput, latency and memory against the ceilings (load generator)", runBench},
}

// Env is what a command reads and writes besides its arguments.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Run runs the command line args (without the program name).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: osGetenv}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stderr)
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, env, args[1:])
		}
	}
	return usagef("unknown command %q; run 'sharevat help'", args[0])
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "sharevat — durable, capability-secured session shares over Cap'n Proto RPC.")
	fmt.Fprintln(w, "\nUsage: sharevat <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'sharevat <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Environment: SHAREVAT_URL (server), SHAREVAT_TOKEN (token), SHAREVAT_TOKEN_FILE (file holding the token),")
	fmt.Fprintln(w, "             SHAREVAT_STATE (the append outbox directory).")
	fmt.Fprintln(w, "Exit codes: 0 ok, 2 usage, 3 unauthorized/revoked/permission denied, 4 rejected or conflict, 1 anything else.")
}
