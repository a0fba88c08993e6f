package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
)

var checkCommand = command{
	name:    "check",
	args:    "--data DIR | --file F",
	summary: "verify a stopped data directory (or a backup) offline: exit 0 clean, 1 damaged",
	long: `Verifies a data directory a vat is not running on, read-only: bbolt's own
consistency check; every share's log record against its digest and the
op-id index; the op-id index, the materialized state and the head against
the log; the share, grant and audit indexes. --file checks a data file
alone, e.g. a copy made by 'sharevat backup'; --data also checks that the
directory's pepper.key is there.

It reads the whole file, which 'sharevat serve' does not do when it
starts (it reads the meta pages, the freelist and the top-level roots,
and every record as it is served): run it on a backup now and then to
find damage in what no call has read yet (docs/operations.md).

Prints each problem on a line of its own (share and cursor when it is about
one, never op contents) and exits 1, or says the file is sound and exits
0. A directory a running vat holds is refused (exit 1): stop the vat, or
check a copy ('sharevat backup --to F' then 'sharevat check --file F').
--json prints {"path","ok","problems":[...]}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var data, file string
		var asJSON bool
		fs.StringVar(&data, "data", "", "the data directory to check (its sharevat.db and pepper.key)")
		fs.StringVar(&file, "file", "", "a data file to check, e.g. a backup")
		fs.BoolVar(&asJSON, "json", false, "machine-readable output")
		return func(ctx context.Context, env *Env) error {
			switch {
			case (data == "") == (file == ""):
				return usagef("give --data DIR or --file F (one of them)")
			case data != "":
				return checkData(ctx, env, data, asJSON)
			}
			return checkFile(ctx, env, file, asJSON)
		}
	},
}

// checkData checks a data directory: its data file and its pepper.
func checkData(ctx context.Context, env *Env, dir string, asJSON bool) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("--data %q is not a directory", dir)
	}
	extra := pepperProblems(dir)
	return runCheck(ctx, env, filepath.Join(dir, dbFile), asJSON, extra)
}

// checkFile checks one data file.
func checkFile(ctx context.Context, env *Env, path string, asJSON bool) error {
	return runCheck(ctx, env, path, asJSON, nil)
}

// pepperProblems says what is wrong with dir's pepper file, if anything.
func pepperProblems(dir string) []string {
	path := filepath.Join(dir, pepperFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []string{fmt.Sprintf("%s is missing: no token of this vault can be verified; restore it from the backup kept with the data file", path)}
	case err != nil:
		return []string{fmt.Sprintf("%s: %v", path, err)}
	case len(b) < sturdyref.MinPepperLen:
		return []string{fmt.Sprintf("%s is damaged (%d bytes); restore it from a backup", path, len(b))}
	}
	return nil
}

// runCheck checks the data file at path (server.CheckFile) and reports;
// exit 1 on any problem.
func runCheck(ctx context.Context, env *Env, path string, asJSON bool, extra []string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file", path)
	}
	start := time.Now()
	found, err := server.CheckFile(ctx, path)
	if sharevat.ErrorCode(err) == sharevat.EUnavailable {
		return fmt.Errorf("%s is in use by a running vat (bbolt's lock is held): stop the vat first, "+
			"or check a copy: 'sharevat backup --to F' then 'sharevat check --file F'", path)
	}
	if err != nil {
		return err
	}
	problems := append(extra, found...)
	return reportCheck(env, path, problems, time.Since(start), asJSON)
}

// reportCheck prints the problems, one a line, and the verdict.
func reportCheck(env *Env, path string, problems []string, took time.Duration, asJSON bool) error {
	if asJSON {
		if problems == nil {
			problems = []string{}
		}
		writeJSON(env.Stdout, map[string]any{"path": path, "ok": len(problems) == 0, "problems": problems})
	} else {
		for _, p := range problems {
			fmt.Fprintln(env.Stdout, oneLine(p))
		}
	}
	if len(problems) == 0 {
		fmt.Fprintf(env.Stderr, "%s: no problem found (checked in %s)\n", path, took.Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(env.Stderr, "sharevat: %s is damaged: %d problem(s); restore it from a backup\n", path, len(problems))
	return errSilent
}
