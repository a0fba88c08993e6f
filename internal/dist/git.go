package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/module"
)

// gitVersion is the version of the checkout at root, named as the Go
// toolchain names a main module's version: the tag (v0.1.0) when HEAD is
// tagged, else a pseudo-version after the last tag
// (v0.1.1-0.20261127213009-45b085db896c, or v0.0.0-… before any tag),
// with "+dirty" when the work tree has changes.
func gitVersion(ctx context.Context, root string) (string, error) {
	v, err := git(ctx, root, "describe", "--tags", "--exact-match", "--match", "v[0-9]*")
	if err != nil {
		if v, err = pseudoVersion(ctx, root); err != nil {
			return "", err
		}
	}
	status, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		return "", err
	}
	if status != "" {
		v += "+dirty"
	}
	return v, nil
}

// pseudoVersion names HEAD after the last tag before it.
func pseudoVersion(ctx context.Context, root string) (string, error) {
	older, err := git(ctx, root, "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*")
	if err != nil {
		older = "" // no tag yet: v0.0.0-…
	}
	rev, err := git(ctx, root, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	at, err := commitTime(ctx, root)
	if err != nil {
		return "", err
	}
	return module.PseudoVersion("", older, at, rev[:12]), nil
}

// commitTime is HEAD's commit time.
func commitTime(ctx context.Context, root string) (time.Time, error) {
	s, err := git(ctx, root, "log", "-1", "--format=%ct")
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("commit time %q: %w", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// git runs git in root and returns its trimmed output.
func git(ctx context.Context, root string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == "/dev/null" {
		return "", fmt.Errorf("not in a Go module (go env GOMOD: %q, %v)", gomod, err)
	}
	return filepath.Dir(gomod), nil
}
