package version_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/internal/version"
)

// TestFill: the linker's stamp wins; without it the build info gives
// the version of sharevat's module (main or required) and the revision.
func TestFill(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "45b085db896c85c32d05cc7c318194baa80e5eea"}, {Key: "vcs.modified", Value: "true"}}
	dep := &debug.Module{Path: version.Module, Version: "v0.2.0"}
	for _, c := range []struct {
		name      string
		stamped   version.Info
		bi        *debug.BuildInfo
		ver, comm string
	}{
		{"stamped", version.Info{Version: "v0.1.0", Commit: "abc"}, &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v9.9.9"}, Settings: vcs}, "v0.1.0", "abc"},
		{"go install @v0.1.0", version.Info{}, &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.1.0"}}, "v0.1.0", "unknown"},
		{"go build in a clone", version.Info{}, &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v0.0.0-20261127213009-45b085db896c+dirty"}, Settings: vcs}, "v0.0.0-20261127213009-45b085db896c+dirty", "45b085db896c85c32d05cc7c318194baa80e5eea+dirty"},
		{"no VCS", version.Info{}, &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "(devel)"}}, "(devel)", "unknown"},
		{"embedded", version.Info{}, &debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v1.0.0"}, Deps: []*debug.Module{dep}}, "v0.2.0", "unknown"},
		{"embedded, replaced", version.Info{}, &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: version.Module, Version: "v0.2.0", Replace: &debug.Module{Path: "../sharevat"}}}}, "(devel)", "unknown"},
		{"no build info", version.Info{}, nil, "(devel)", "unknown"},
	} {
		got := version.Fill(c.stamped, c.bi)
		assert.Equal(t, c.ver, got.Version, "%s: version", c.name)
		assert.Equal(t, c.comm, got.Commit, "%s: commit", c.name)
	}
}

// TestGet: the test binary is unstamped, so Get says what Go recorded,
// never an empty field.
func TestGet(t *testing.T) {
	got := version.Get()
	assert.NotEmpty(t, got.Version)
	assert.NotEmpty(t, got.Commit)
	assert.Equal(t, runtime.Version(), got.Go)
	assert.Equal(t, got.Version, version.String())
}
