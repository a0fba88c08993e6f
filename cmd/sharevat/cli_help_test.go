package main_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpGoesToStdout: `help`, `--help`, `help CMD` and
// `CMD -h` print on stdout and exit 0; every command has a description.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		out, stderr, code := cliIn(t, "", nil, args...)
		assert.Equal(t, 0, code, "%v: %s", args, stderr)
		assert.Empty(t, stderr, "%v", args)
		assert.Contains(t, out, "Available Commands:", "%v", args)
	}
	cmds := []string{"serve", "create", "list", "append", "flush", "outbox", "read", "tail",
		"snapshot", "grant", "grants", "revoke", "inspect", "version", "completion"}
	for _, c := range cmds {
		viaHelp, stderr, code := cliIn(t, "", nil, "help", c)
		assert.Equal(t, 0, code, "help %s: %s", c, stderr)
		viaFlag, _, code := cliIn(t, "", nil, c, "--help")
		assert.Equal(t, 0, code, "%s --help", c)
		assert.Equal(t, viaHelp, viaFlag, "help %s and %s --help say the same", c, c)
		first, _, _ := strings.Cut(viaHelp, "\n")
		assert.NotEmpty(t, strings.TrimSpace(first), "%s has a description", c)
		assert.Contains(t, viaHelp, "Usage:\n  sharevat "+c, "%s", c)
	}
	serve, _, _ := cliIn(t, "", nil, "help", "serve")
	assert.Contains(t, serve, "Runs the vat", "serve's help says what it does")
}

// TestUnknownCommandSuggests: a typo exits 2 and names the
// command the user meant; an unknown flag and a stray argument exit 2
// and name the help to read.
func TestUnknownCommandSuggests(t *testing.T) {
	out, stderr, code := cli(t, "", nil, "apend")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, `sharevat: unknown command "apend": did you mean "append"? (run 'sharevat --help' for the list)`, strings.TrimSpace(stderr))

	_, stderr, code = cli(t, "", nil, "outbox", "lst")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `did you mean "list"?`)

	_, stderr, code = cli(t, "", nil, "read", "--form", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "unknown flag: --form; run 'sharevat help read'")

	_, stderr, code = cli(t, "", nil, "snapshot", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unexpected argument "extra"`)

	_, stderr, code = cli(t, "", nil)
	assert.Equal(t, 2, code, "no command is a usage error")
	assert.Contains(t, stderr, "Available Commands:", "and shows the commands")
}

// TestVersion: `version` and `--version` print the same three lines:
// the version, the commit and the Go version with the platform. The
// tests' binary is not stamped (internal/dist's tests run a stamped one).
func TestVersion(t *testing.T) {
	out, stderr, code := cli(t, "", nil, "version")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Regexp(t, `^sharevat \S+$`, lines[0])
	assert.Regexp(t, `^commit \S+$`, lines[1])
	assert.Equal(t, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH, lines[2])
	flagOut, _, code := cli(t, "", nil, "--version")
	assert.Equal(t, 0, code)
	assert.Equal(t, out, flagOut, "--version prints what version prints")
}

// TestCompletion: completion scripts for bash, zsh and fish,
// and completion of commands and of flag values.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "complete -o default -F __start_sharevat sharevat",
		"zsh": "#compdef sharevat", "fish": "complete -c sharevat"} {
		out, stderr, code := cli(t, "", nil, "completion", shell)
		assert.Equal(t, 0, code, "%s: %s", shell, stderr)
		assert.Contains(t, out, marker, shell)
	}
	out, _, code := cli(t, "", nil, "__complete", "ap")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "append\t")
	out, _, _ = cli(t, "", nil, "__complete", "grant", "--scope", "")
	assert.Contains(t, out, "read,append")
	out, _, _ = cli(t, "", nil, "__complete", "serve", "--log-format", "")
	assert.Contains(t, out, "json")
}
