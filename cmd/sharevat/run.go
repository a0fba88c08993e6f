package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/exportfile"
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

// rejectedError marks an append some of whose ops were rejected (exit 4);
// msg, when set, says why.
type rejectedError struct {
	n   int
	msg string
}

func (e *rejectedError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("%d op(s) rejected", e.n)
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ue *usageError
	var fe *exportfile.FormatError // a malformed export: a bad input, like a bad flag
	var re *rejectedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.As(err, &fe):
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

// Env is what a command reads and writes besides its arguments.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string

	// tuneOutbox, if set, adjusts the options append and flush open
	// their outbox with (client.OutboxOptions: KeepDone, MaxBatchBytes).
	// main never sets it; only tests do (through export_test.go), so a
	// test of what happens past the outbox's 10,000 kept results or its
	// 4 MiB batch needs a few hundred ops or a few hundred kilobytes.
	tuneOutbox func(*client.OutboxOptions)
}

// Run runs the command line args (without the program name). Help goes
// to stdout and ends with a nil error; a bad command line is a
// *usageError (exit 2) after the help of the command was named.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: osGetenv}
	root := newRoot(env)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}
