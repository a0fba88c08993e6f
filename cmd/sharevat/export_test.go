package main

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// RunInProcess runs the command line args as main does — the same
// command tree, the same "sharevat: …" line for a failure, the same exit
// code — but in the test's process, with getenv in place of the
// environment, so process tests whose subject is not the binary itself
// (signals, crashes, exit at a kill) run without starting one.
func RunInProcess(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunInProcessKeepDone(ctx, 0, args, getenv, stdin, stdout, stderr)
}

// RunInProcessKeepDone is RunInProcess with append's and flush's outbox
// keeping only keepDone done results (0: the default, 10,000), so a test
// of an outbox that has pruned some needs a few hundred ops.
func RunInProcessKeepDone(ctx context.Context, keepDone int, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv, outboxKeepDone: keepDone}
	root := newRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintln(stderr, "sharevat: "+oneLine(err.Error()))
	}
	return exitCode(err)
}
