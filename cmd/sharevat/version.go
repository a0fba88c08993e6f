package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/internal/version"
)

var versionCommand = command{
	name:    "version",
	summary: "print the version, the git commit and the Go version",
	long: `Prints what the binary was built from, one per line: the version (v0.1.0
for a release; a Go pseudo-version for a build of another commit, with
"+dirty" when the work tree had changes; "(devel)" when nothing was
recorded), the git commit ("unknown" when none was recorded), and the Go
version with the platform. 'sharevat --version' prints the same. The
same version string is MCP's serverInfo.version and the version label of
the sharevat_build_info metric.`,
	setup: func(fs *pflag.FlagSet) runner {
		return func(_ context.Context, env *Env) error {
			_, err := fmt.Fprint(env.Stdout, versionText())
			return err
		}
	},
}

// versionText is what version and --version print:
//
//	sharevat v0.1.0
//	commit 45b085db896c85c32d05cc7c318194baa80e5eea
//	go1.26.8 linux/amd64
func versionText() string {
	v := version.Get()
	return fmt.Sprintf("sharevat %s\ncommit %s\n%s %s/%s\n", v.Version, v.Commit, v.Go, runtime.GOOS, runtime.GOARCH)
}
