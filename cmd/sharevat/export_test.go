package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sharevat/sharevat/client"
)

// RunInProcess runs the command line args as main does — the same
// command tree, the same "sharevat: …" line for a failure, the same exit
// code — but in the test's process, with getenv in place of the
// environment, so process tests whose subject is not the binary itself
// (signals, crashes, exit at a kill) run without starting one.
func RunInProcess(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunInProcessTuned(ctx, nil, args, getenv, stdin, stdout, stderr)
}

// RunInProcessTuned is RunInProcess with tune (if not nil) adjusting the
// options append and flush open their outbox with: a test of an outbox
// that has pruned results (KeepDone, 10,000 by default) or of an op over
// its batch size (MaxBatchBytes, 4 MiB) then needs few ops and bytes.
func RunInProcessTuned(ctx context.Context, tune func(*client.OutboxOptions), args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv, tuneOutbox: tune}
	root := newRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintln(stderr, "sharevat: "+oneLine(err.Error()))
	}
	return exitCode(err)
}
