// Command dist builds sharevat's release archives (`make dist`): for each
// platform a sharevat_<version>_<os>_<arch>.tar.gz holding the binary,
// LICENSE, README.md and CHANGELOG.md in a directory of the same name, and
// a SHA256SUMS file over the archives in sha256sum's format.
//
// The archives are reproducible: the same commit gives byte-identical
// files on any machine with the same Go toolchain. The binaries are built
// with CGO_ENABLED=0, -trimpath (no build or module-cache path in the
// binary) and -buildvcs=false (Go's VCS stamp depends on whether .git is
// a directory, so it differs between a clone and a git worktree); the
// version and commit are stamped with -ldflags -X instead
// (internal/version). Every archive entry has the commit's time, owner 0
// and a fixed mode; gzip records no name or time.
//
//	go run ./internal/dist [-out dist] [-version V] [-commit C] [-platforms linux/amd64,…]
//	go run ./internal/dist version   # the version make stamps: see gitVersion
//
// A plain Go program rather than GoReleaser: four cross builds, tar, gzip
// and SHA-256 are all in Go's standard library, and GoReleaser would add
// hundreds of modules and a config file for what this does in a page.
// Windows is not built: the server does not compile there (it reads the
// open-file rlimit through syscall).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// defaultPlatforms are the release's GOOS/GOARCH pairs.
const defaultPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64"

// release is one run: what to build and how to stamp it.
type release struct {
	root      string    // the module's directory
	out       string    // where the archives and SHA256SUMS go
	version   string    // stamped version, e.g. v0.1.0
	commit    string    // stamped commit
	mtime     time.Time // every archive entry's time
	platforms []string  // GOOS/GOARCH pairs
}

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	if len(args) == 1 && args[0] == "version" {
		v, err := gitVersion(ctx, root)
		if err == nil {
			fmt.Println(v)
		}
		return err
	}
	r, err := parse(ctx, root, args)
	if err != nil {
		return err
	}
	return r.build(ctx)
}

// parse reads the flags; the version, commit and time default to the
// git checkout's.
func parse(ctx context.Context, root string, args []string) (*release, error) {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	r := &release{root: root}
	fs.StringVar(&r.out, "out", "dist", "directory for the archives and SHA256SUMS")
	fs.StringVar(&r.version, "version", "", "version to stamp (default: from git, see `version`)")
	fs.StringVar(&r.commit, "commit", "", "commit to stamp (default: git rev-parse HEAD)")
	platforms := fs.String("platforms", defaultPlatforms, "comma-separated GOOS/GOARCH pairs")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	r.platforms = strings.Split(*platforms, ",")
	return r, r.fromGit(ctx)
}

// fromGit fills what the flags left unset from the checkout.
func (r *release) fromGit(ctx context.Context) error {
	var err error
	if r.version == "" {
		if r.version, err = gitVersion(ctx, r.root); err != nil {
			return err
		}
	}
	if r.commit == "" {
		if r.commit, err = git(ctx, r.root, "rev-parse", "HEAD"); err != nil {
			return err
		}
	}
	r.mtime, err = commitTime(ctx, r.root)
	return err
}

// build builds every platform's archive, then SHA256SUMS.
func (r *release) build(ctx context.Context) error {
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "sharevat-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var archives []string
	for _, p := range r.platforms {
		name, err := r.platform(ctx, p, tmp)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		archives = append(archives, name)
		fmt.Println(filepath.Join(r.out, name))
	}
	return writeSums(r.out, archives)
}

// platform builds the binary for "goos/goarch" in tmp and archives it,
// returning the archive's name.
func (r *release) platform(ctx context.Context, p, tmp string) (string, error) {
	goos, goarch, ok := strings.Cut(p, "/")
	if !ok {
		return "", fmt.Errorf("not GOOS/GOARCH")
	}
	bin := filepath.Join(tmp, goos+"_"+goarch, "sharevat")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", ldflags(r.version, r.commit), "-o", bin, "./cmd/sharevat")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	base := fmt.Sprintf("sharevat_%s_%s_%s", r.version, goos, goarch)
	files := []file{{"sharevat", bin, 0o755}}
	for _, doc := range []string{"LICENSE", "README.md", "CHANGELOG.md"} {
		files = append(files, file{doc, filepath.Join(r.root, doc), 0o644})
	}
	return base + ".tar.gz", writeTarGz(filepath.Join(r.out, base+".tar.gz"), base, r.mtime, files)
}

// ldflags are the linker flags of a release binary: stripped, with the
// version and commit stamped into internal/version.
func ldflags(version, commit string) string {
	const pkg = "github.com/sharevat/sharevat/internal/version"
	return fmt.Sprintf("-s -w -X %s.version=%s -X %s.commit=%s", pkg, version, pkg, commit)
}
