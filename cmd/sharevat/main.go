// Command sharevat runs a sharevat vat and talks to one: serve, create,
// list, append, flush, outbox, read, tail, snapshot, grant, grants, revoke,
// inspect, the session's life (fork, children, delete, status, compact,
// retention, privacy), export, import, backup, check, health, bench,
// version (docs/design.md §11). Each command is one file
// (cli.go builds the command line with cobra); `sharevat help` lists them;
// main only wires signals and exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/sharevat/sharevat/internal/loadgen"
)

func main() {
	if os.Getenv(loadgen.EchoHelperEnv) != "" {
		os.Exit(loadgen.ServeEcho(os.Stdin, os.Stdout)) // bench's transport ceiling
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintln(os.Stderr, "sharevat: "+oneLine(err.Error()))
	}
	os.Exit(exitCode(err))
}
