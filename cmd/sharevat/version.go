package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"
)

var versionCommand = command{
	name:    "version",
	summary: "print the version: module version, VCS revision and Go version",
	long: `Prints what the binary was built from, from its build info: the module
version (a tag, or a pseudo-version for a build from a checkout; "(devel)"
when Go had no version control information), the VCS revision and time,
"dirty" when the work tree had changes, and the Go version. 'sharevat
--version' prints the first line.`,
	setup: func(fs *pflag.FlagSet) runner {
		return func(_ context.Context, env *Env) error {
			_, err := fmt.Fprintf(env.Stdout, "sharevat %s\n%s\n", versionString(), runtime.Version())
			return err
		}
	},
}

// versionString is the module version and the VCS revision the binary
// was built from, e.g. "v0.3.0 (rev 1715928, 2026-11-24T01:02:03Z)" or
// "(devel) (rev 1715928, …, dirty)".
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown: no build info)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, at, dirty := vcsInfo(bi.Settings)
	if rev == "" {
		return v
	}
	v += " (rev " + rev
	if at != "" {
		v += ", " + at
	}
	if dirty {
		v += ", dirty"
	}
	return v + ")"
}

// vcsInfo reads the VCS settings go build stamps into the binary.
func vcsInfo(settings []debug.BuildSetting) (rev, at string, dirty bool) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return rev, at, dirty
}
