// Package opencodetest runs the real opencode client (npm opencode-ai,
// pinned in interop/opencode/package.json and installed there by
// `npm ci`) in tests: against sharevat's opencode door, a logging share
// server, plugins or MCP servers. Only tests import it.
//
// The pieces:
//
//   - Binary finds the pinned binary and skips the test with a NOTICE
//     when it is not installed (CI installs it, so CI fails on the skip).
//   - NewModel starts a mock OpenAI-compatible model on loopback that
//     streams scripted turns as SSE chunks ending in [DONE]: Text, Echo
//     (streams back a match from the prompt), Bash (a tool call, so tool,
//     step and patch parts appear) and Stalled (hangs mid-answer, for
//     kill tests; StallStarted says when). Requests without tools
//     (opencode's title calls) get TitleAnswer and use no turn.
//   - NewRoot makes a scratch installation: HOME, XDG_*_HOME, a git
//     project directory that is $PWD of every run, the env flags that
//     keep opencode offline (no models fetch, autoupdate, LSP download or
//     default plugins) and the project's opencode.json from a Config
//     (provider "mock", enterprise.url, share, plugin, mcp, extra keys).
//     NewRootIn makes one that outlives a test and Root.NewProject a
//     project of it per test: opencode's plugin set-up, tens of seconds
//     at an installation's first start, then happens once per package.
//   - Root.Prompt runs `opencode run --format json [flags] prompt` and
//     returns the session id; Root.Export, Root.Import and Root.Serve
//     (the local API, e.g. Serve.Unshare for DELETE /session/{id}/share)
//     drive the rest. Every process runs in its own process group,
//     bounded by RunTimeout and killed at the test's end; at most Slots
//     opencode commands run at once on the machine (a file lock), over
//     all test processes.
//   - NewRecorder is a logging share server speaking opencode's share
//     API under any base path; Missing, Extra and Keys compare what a
//     server holds with `opencode export`.
//
// A typical test:
//
//	m := opencodetest.NewModel(t, opencodetest.Bash("echo hi > f"), opencodetest.Text("done"))
//	r := opencodetest.NewRoot(t, opencodetest.Config{Model: m, EnterpriseURL: vatURL + "/opencode/" + token})
//	res, sessionID := r.Prompt("write f", "--share")
//	link := opencodetest.ShareURL(res.Stdout + res.Stderr)
//
// Each opencode run takes seconds to a minute on a loaded machine: keep
// the number of runs per test small and run such tests in parallel.
package opencodetest
