// Command sharevat runs a sharevat vat and talks to one: serve, create,
// append, read, snapshot, grant, grants, revoke, inspect (docs/design.md §11).
// `sharevat help` lists them; main only wires signals and exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, errSilentHelp) {
		err = nil
	}
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintln(os.Stderr, "sharevat: "+oneLine(err.Error()))
	}
	os.Exit(exitCode(err))
}
