package opencodetest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Config is what a test sets in the project's opencode.json. The mock
// provider (provider "mock", model "mock/mock-1", also the small model)
// is always configured from Model.
type Config struct {
	Model         *Model         // the mock model server (required)
	EnterpriseURL string         // enterprise.url: the share server's base ("" leaves it out)
	Share         string         // "manual", "auto" or "disabled" ("" leaves it out)
	Plugin        []string       // plugin specifiers (paths or npm names)
	MCP           map[string]any // the mcp section as opencode takes it
	Extra         map[string]any // more top-level keys, written as given
}

// JSON is the opencode.json document for c.
func (c Config) JSON() ([]byte, error) {
	doc := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"options": map[string]any{"baseURL": c.Model.URL, "apiKey": "x"},
			"models":  map[string]any{"mock-1": map[string]any{}},
		}},
		"model":       "mock/mock-1",
		"small_model": "mock/mock-1",
		"autoupdate":  false,
	}
	if c.EnterpriseURL != "" {
		doc["enterprise"] = map[string]any{"url": c.EnterpriseURL}
	}
	if c.Share != "" {
		doc["share"] = c.Share
	}
	if c.Plugin != nil {
		doc["plugin"] = c.Plugin
	}
	if c.MCP != nil {
		doc["mcp"] = c.MCP
	}
	for k, v := range c.Extra {
		doc[k] = v
	}
	return json.MarshalIndent(doc, "", "  ")
}

// Root is one scratch opencode installation: its own HOME, XDG_* dirs
// and a project directory (a git repository, so opencode records
// snapshots and patches) holding opencode.json. Two Roots share
// nothing: a second Root is a second machine.
type Root struct {
	Bin     string // the opencode binary
	Dir     string // the scratch root holding everything below
	Project string // the project directory ($PWD of every run)
	Env     []string

	t testing.TB
}

// NewRoot makes a Root in a new t.TempDir() and writes cfg into its
// project's opencode.json. It skips the test (NOTICE) when the opencode
// binary is not installed.
func NewRoot(t testing.TB, cfg Config) *Root {
	t.Helper()
	return NewRootIn(t, t.TempDir(), cfg)
}

// NewRootIn is NewRoot in dir, which outlives t and the caller removes:
// an installation a package's tests share, each in a project of its own
// (NewProject). With a zero cfg (no Model) it writes no opencode.json.
func NewRootIn(t testing.TB, dir string, cfg Config) *Root {
	t.Helper()
	bin := Binary(t)
	r := &Root{Bin: bin, Dir: dir, Project: filepath.Join(dir, "project"), t: t}
	env := map[string]string{
		"HOME":            filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_DATA_HOME":   filepath.Join(dir, "data"),
		"XDG_CACHE_HOME":  filepath.Join(dir, "cache"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
	}
	for _, d := range append(mapValues(env), r.Project) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r.Env = []string{
		"PWD=" + r.Project, // opencode takes its directory from $PWD
		"PATH=" + os.Getenv("PATH"),
		"TERM=dumb", "NO_COLOR=1", "CI=true",
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid",
	}
	for k, v := range env {
		r.Env = append(r.Env, k+"="+v)
	}
	if cfg.Model != nil {
		r.WriteConfig(cfg)
	}
	r.gitInit()
	return r
}

// NewProject is a second project of r's installation, for test t: a new
// git project directory in t.TempDir() holding cfg, and a copy of r's
// environment (PWD set to it) that t may add to. The installation's
// HOME, caches and data are shared: opencode's plugin set-up, tens of
// seconds at an installation's first start, happens once, and sessions
// live in one database (so tests sharing an installation run one after
// the other: `run --continue` continues the newest session).
func (r *Root) NewProject(t testing.TB, cfg Config) *Root {
	t.Helper()
	p := &Root{Bin: r.Bin, Dir: r.Dir, Project: filepath.Join(t.TempDir(), "project"), t: t}
	if err := os.MkdirAll(p.Project, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, kv := range r.Env {
		if strings.HasPrefix(kv, "PWD=") {
			kv = "PWD=" + p.Project
		}
		p.Env = append(p.Env, kv)
	}
	p.WriteConfig(cfg)
	p.gitInit()
	return p
}

// gitInit makes r's project a git repository.
func (r *Root) gitInit() {
	r.t.Helper()
	if out, err := exec.Command("git", "init", "-q", r.Project).CombinedOutput(); err != nil {
		r.t.Fatalf("git init: %v: %s", err, out)
	}
}

// WriteConfig replaces the project's opencode.json with cfg.
func (r *Root) WriteConfig(cfg Config) {
	r.t.Helper()
	b, err := cfg.JSON()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Project, "opencode.json"), b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// LogDir is where opencode writes its log files in this Root.
func (r *Root) LogDir() string { return filepath.Join(r.Dir, "data", "opencode", "log") }

func mapValues(m map[string]string) []string {
	var v []string
	for _, s := range m {
		v = append(v, s)
	}
	return v
}

// Logs is the text of opencode's log files in this Root so far (where
// it logs, among others, a share it could not create or sync).
func (r *Root) Logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(r.LogDir(), "*.log"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			b.Write(data)
		}
	}
	return b.String()
}
