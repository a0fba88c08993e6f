// Package version is the one version string of sharevat: what `sharevat
// version` and `--version` print, what MCP's initialize answers as
// serverInfo.version and what the sharevat_build_info metric carries.
//
// A release build stamps it with the linker (make build, make install,
// make dist and the Dockerfile all do):
//
//	-X github.com/sharevat/sharevat/internal/version.version=v0.1.0
//	-X github.com/sharevat/sharevat/internal/version.commit=<full git revision>
//
// Without stamping it falls back on the build info Go records: the
// module's version (`go install …/cmd/sharevat@v0.1.0` records v0.1.0;
// go build in a git clone, a pseudo-version) and the VCS revision; a
// program that embeds the server reports the version of the sharevat
// module it requires. "(devel)" and "unknown" say nothing was recorded.
package version

import (
	"runtime"
	"runtime/debug"
)

// Module is sharevat's module path.
const Module = "github.com/sharevat/sharevat"

// Set by the linker (-ldflags -X); empty in an unstamped build.
var (
	version string
	commit  string
)

// Info is what a binary knows of the source it was built from.
type Info struct {
	Version string // a semantic version: v0.1.0, a pseudo-version, or "(devel)"
	Commit  string // the full git revision, or "unknown"
	Go      string // the Go toolchain that built it, e.g. go1.26.8
}

// Get returns the stamped version and commit, or what the build info
// records where the linker stamped nothing.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fill(Info{Version: version, Commit: commit, Go: runtime.Version()}, bi)
}

// String is the version alone, e.g. "v0.1.0".
func String() string { return Get().Version }

// fill completes what the linker did not stamp from the build info bi
// (nil: none).
func fill(in Info, bi *debug.BuildInfo) Info {
	if bi != nil && in.Version == "" {
		in.Version = moduleVersion(bi)
	}
	if bi != nil && in.Commit == "" {
		in.Commit = revision(bi.Settings)
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	if in.Commit == "" {
		in.Commit = "unknown"
	}
	return in
}

// moduleVersion is the version of sharevat's module in bi: the main
// module's in sharevat's own binaries, the required module's in a
// program that embeds it ("" where none was recorded, as for a module
// replaced by a directory).
func moduleVersion(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != Module {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				m = d
			}
		}
	}
	if m == nil || m.Version == "(devel)" {
		return ""
	}
	if m.Replace != nil { // a directory replacement has no version
		return m.Replace.Version
	}
	return m.Version
}

// revision is the VCS revision go build recorded, "+dirty" when the
// work tree had changes.
func revision(settings []debug.BuildSetting) string {
	var rev, dirty string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}
