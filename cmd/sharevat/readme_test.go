package main_test

// TestReadmeWalkthrough runs the README's "Five-minute walk-through" (from
// "## Five-minute walk-through" up to "## Where to go next") for real,
// then the ```sh blocks of docs/guide.md marked to run on from it (runMark
// on the line before), in document order and in the same shell, so their
// state carries on; and checks that every command prints what the docs
// show. The docs are the single source: the test reads their ```sh blocks.
//
// Inside those blocks:
//
//   - A line that does not start with "#" is a command. A command with a
//     heredoc (<<'OPS' or <<OPS) runs up to the heredoc's closing line.
//   - The "# " lines that follow a command are everything it prints,
//     stdout and stderr together in the order printed; "#" alone is an
//     empty line. Every "# " line in these blocks is output: prose goes in
//     the text around them.
//   - "…" inside a line matches any text (ids, tokens, times, paths).
//   - A line that is only "# …" matches any number of lines, none included.
//   - Inside a line (not at its start), a run of two or more spaces
//     matches any run of spaces, so a table whose cells are "…" can stay
//     aligned in the README.
//   - A line ending in "— exit code N" says the command exits N (the
//     marker is not part of the output; "# — exit code N" alone adds no
//     line). Otherwise the command must exit 0.
//   - Nothing else may be printed, and output must end with a newline.
//
// The commands run in one bash process, in a temporary directory holding
// the test's binary as ./sharevat, so that export and VAR=$(…) carry over
// from one command to the next. "go build … ./cmd/sharevat" is skipped
// (the binary is there already). The serve command ("go build -o
// sharevat ./cmd/sharevat && ./sharevat serve") is not run by bash: the
// test starts `sharevat serve` in the temporary directory (so its data
// is ./sharevat-data, the default) on a free loopback port, compares
// what it prints up to "sharevat: serving on URL" with the README,
// reading the port as 7420, and gives the other commands its URL in
// SHAREVAT_URL.
// SHAREVAT_STATE and HOME point into the temporary directory, and every
// other SHAREVAT_ variable of the test's environment is dropped (for
// serve: set empty, which counts as unset). Each
// command must finish within stepTimeout. Since every token of the
// walk-through goes into a variable, no output may hold one ("svt1_"),
// whatever a "…" would match; and the server must log no error.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

const (
	walkStart   = "## Five-minute walk-through"
	walkEnd     = "## Where to go next"
	readmeFile  = "README.md"
	guideFile   = "docs/guide.md"
	stepTimeout = 60 * time.Second
)

// step is one command of the walk-through and the output the docs show
// for it.
type step struct {
	file string   // README.md or docs/guide.md
	line int      // the command's line in file
	cmd  string   // one line, or a heredoc group
	want []string // expected output lines, with "…" wildcards
	code int      // expected exit code
}

func TestReadmeWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Log("NOTICE: bash is not installed, so the README's walk-through is NOT checked")
		t.Skip("no bash")
	}
	steps := readSteps(t)
	require.True(t, isServe(steps[0].cmd), "the walk-through must start with %q", serveCommand)

	dir := t.TempDir()
	srv, err := proctest.StartIn(t, dir, binary, serveEnv(), "serve", "--listen", "127.0.0.1:0")
	require.NoError(t, err)
	checkOutput(t, steps[0], 0, serveOutput(srv, dir))

	var shell []step
	for _, s := range steps[1:] {
		switch {
		case isServe(s.cmd):
			t.Fatalf("%s:%d: a second serve", s.file, s.line)
		case strings.HasPrefix(s.cmd, "go build "):
			require.Empty(t, s.want, "%s:%d: go build prints nothing", s.file, s.line)
		default:
			shell = append(shell, s)
		}
	}
	require.NoError(t, os.Symlink(binary, filepath.Join(dir, "sharevat")))
	outs, codes := runSteps(t, dir, walkEnv(dir, srv.URL), shell)
	port := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws://"), "/rpc"), "127.0.0.1:")
	for i, s := range shell {
		checkOutput(t, s, codes[i], strings.ReplaceAll(outs[i], "127.0.0.1:"+port, "127.0.0.1:7420"))
	}
	assert.NotContains(t, srv.Log.String(), "level=ERROR", "the server logged an error during the walk-through")
}

// readSteps returns the steps of README.md's walk-through followed by
// those of docs/guide.md's marked blocks.
func readSteps(t *testing.T) []step {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", readmeFile))
	require.NoError(t, err)
	steps, err := parseWalkthrough(string(readme))
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	guide, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(guideFile)))
	require.NoError(t, err)
	more, err := parseMarked(guideFile, string(guide))
	require.NoError(t, err)
	require.NotEmpty(t, more, "%s has no block marked %q", guideFile, runMark)
	return append(steps, more...)
}

// parseWalkthrough returns the commands of the walk-through's ```sh
// blocks, and of the later ```sh blocks of README.md marked to run on
// from it, with their expected output.
func parseWalkthrough(readme string) ([]step, error) {
	lines := strings.Split(readme, "\n")
	start := indexOf(lines, walkStart, 0)
	end := indexOf(lines, walkEnd, start+1)
	if start < 0 || end < 0 {
		return nil, fmt.Errorf("%s has no section from %q to %q", readmeFile, walkStart, walkEnd)
	}
	return parseBlocks(readmeFile, lines, start, end)
}

// parseMarked returns the commands of the ```sh blocks of doc that are
// marked to run on from the walk-through, with their expected output.
func parseMarked(file, doc string) ([]step, error) {
	return parseBlocks(file, strings.Split(doc, "\n"), 0, -1)
}

// parseBlocks parses the ```sh blocks of lines from line start on: every
// block up to line end, and after it only the blocks marked to run on.
func parseBlocks(file string, lines []string, start, end int) ([]step, error) {
	var steps []step
	for i := start; i < len(lines); i++ {
		if lines[i] != "```sh" || (i > end && !runsOn(lines, i)) {
			continue
		}
		j, err := parseBlock(file, lines, i+1, &steps)
		if err != nil {
			return nil, err
		}
		i = j
	}
	return steps, nil
}

// runMark, on the line before a ```sh block after README.md's
// walk-through or in docs/guide.md, makes the test run that block on from
// the walk-through's state.
const runMark = "<!-- readme_test: runs on from the walk-through -->"

// runsOn reports whether the ```sh block at line i is marked to run.
func runsOn(lines []string, i int) bool {
	return i > 0 && lines[i-1] == runMark
}

// parseBlock adds the commands of the ```sh block whose first line is
// lines[from] to steps and returns the index of its closing line.
func parseBlock(file string, lines []string, from int, steps *[]step) (int, error) {
	for i := from; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "```":
			return i, nil
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "#"):
			if len(*steps) == 0 {
				return 0, fmt.Errorf("%s:%d: output before any command", file, i+1)
			}
			if err := addWant(&(*steps)[len(*steps)-1], l, i+1); err != nil {
				return 0, err
			}
		default:
			s := step{file: file, line: i + 1, cmd: l}
			if m := heredoc.FindStringSubmatch(l); m != nil {
				j := indexOf(lines, m[1], i+1)
				if j < 0 {
					return 0, fmt.Errorf("%s:%d: heredoc %s never closed", file, i+1, m[1])
				}
				s.cmd = strings.Join(lines[i:j+1], "\n")
				i = j
			}
			*steps = append(*steps, s)
		}
	}
	return 0, fmt.Errorf("%s:%d: a ```sh block never closed", file, from)
}

var (
	heredoc  = regexp.MustCompile(`<<-?'?(\w+)'?`)
	exitCode = regexp.MustCompile(`(^|\s+)— exit code (\d+)$`)
)

// addWant adds one "# " line of the docs to s's expected output.
func addWant(s *step, l string, n int) error {
	text, ok := strings.CutPrefix(l, "# ")
	if l == "#" {
		text, ok = "", true
	}
	if !ok {
		return fmt.Errorf("%s:%d: an output line is %q and a space, then the output", s.file, n, "#")
	}
	if m := exitCode.FindStringSubmatchIndex(text); m != nil {
		s.code, _ = strconv.Atoi(text[m[4]:m[5]])
		if text = text[:m[0]]; text == "" {
			return nil
		}
	}
	s.want = append(s.want, text)
	return nil
}

func indexOf(lines []string, l string, from int) int {
	for i := max(from, 0); i < len(lines); i++ {
		if lines[i] == l {
			return i
		}
	}
	return -1
}

// serveCommand is the README's command that builds and runs the vat.
const serveCommand = "go build -o sharevat ./cmd/sharevat && ./sharevat serve"

func isServe(cmd string) bool { return cmd == serveCommand }

// serveOutput is what the server printed up to the line naming its URL,
// with its port read as 7420 and dir left out of its paths, as if it had
// been started in dir with the defaults.
func serveOutput(srv *proctest.Server, dir string) string {
	log := srv.Log.String()
	last := "sharevat: serving on " + srv.URL + "\n"
	log = log[:strings.Index(log, last)+len(last)]
	_, port, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws://"), "/rpc"), ":")
	log = strings.ReplaceAll(log, "127.0.0.1:"+port, "127.0.0.1:7420")
	return strings.ReplaceAll(log, dir+string(filepath.Separator), "")
}

// serveEnv empties every SHAREVAT_ variable of the test's environment
// for `sharevat serve` (an empty one counts as unset), so that none of
// them changes what it prints.
func serveEnv() []string {
	env := []string{"GORACE=atexit_sleep_ms=0"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SHAREVAT_") {
			env = append(env, k+"=")
		}
	}
	return env
}

// walkEnv is the environment of the walk-through's shell: the test's,
// without any SHAREVAT_ variable, with the server's URL, a state
// directory and a home in dir.
func walkEnv(dir, url string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SHAREVAT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+dir, "SHAREVAT_URL="+url,
		"SHAREVAT_STATE="+filepath.Join(dir, "state"), "GORACE=atexit_sleep_ms=0")
}

// endMark follows each command's output: "\n@@step-end I RC@@\n".
var endMark = regexp.MustCompile(`\n@@step-end (\d+) (\d+)@@\n`)

// runSteps runs the steps in one bash process in dir and returns each
// one's output and exit code. It kills bash when a step takes longer
// than stepTimeout.
func runSteps(t *testing.T, dir string, env []string, steps []step) ([]string, []int) {
	t.Helper()
	var script strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&script, "%s\nprintf '\\n@@step-end %d %%d@@\\n' $?\n", s.cmd, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out := &stepOutput{ended: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	err := watch(waited, out.ended, cancel)
	outs, codes := out.split()
	if len(outs) < len(steps) {
		s := steps[len(outs)]
		t.Fatalf("%s:%d: %s\ndid not finish within %v (%v); it printed:\n%s", s.file, s.line, s.cmd, stepTimeout, err, out.rest())
	}
	require.NoError(t, err, "bash")
	return outs, codes
}

// watch waits for bash to exit, calling cancel when no step ends within
// stepTimeout of the previous one.
func watch(waited <-chan error, ended <-chan struct{}, cancel func()) error {
	timer := time.NewTimer(stepTimeout)
	defer timer.Stop()
	for {
		select {
		case err := <-waited:
			return err
		case <-ended:
			timer.Reset(stepTimeout)
		case <-timer.C:
			cancel()
			return fmt.Errorf("killed: %w", <-waited)
		}
	}
}

// stepOutput is bash's stdout and stderr: one pipe, so the order is the
// order printed. It signals ended at each step's end mark.
type stepOutput struct {
	mu    sync.Mutex
	b     strings.Builder
	marks int
	ended chan struct{}
}

func (o *stepOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(p)
	if n := len(endMark.FindAllStringIndex(o.b.String(), -1)); n > o.marks {
		o.marks = n
		select {
		case o.ended <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// split returns the output and exit code of each step that ended.
func (o *stepOutput) split() (outs []string, codes []int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, from := o.b.String(), 0
	for _, m := range endMark.FindAllStringSubmatchIndex(s, -1) {
		code, _ := strconv.Atoi(s[m[4]:m[5]])
		outs, codes = append(outs, s[from:m[0]]), append(codes, code)
		from = m[1]
	}
	return outs, codes
}

// rest is what was printed after the last end mark.
func (o *stepOutput) rest() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.b.String()
	if m := endMark.FindAllStringIndex(s, -1); len(m) > 0 {
		return s[m[len(m)-1][1]:]
	}
	return s
}

// checkOutput compares one command's exit code and output with the
// README's.
func checkOutput(t *testing.T, s step, code int, out string) {
	t.Helper()
	switch {
	case code != s.code:
		t.Errorf("%s:%d: %s\nexited %d, the docs say %d; it printed:\n%s", s.file, s.line, s.cmd, code, s.code, asComments(out))
	case out != "" && !strings.HasSuffix(out, "\n"):
		t.Errorf("%s:%d: %s\nits output does not end with a newline:\n%s", s.file, s.line, s.cmd, asComments(out))
	case !matchLines(s.want, lines(out)):
		t.Errorf("%s:%d: %s\nprinted:\n%sthe docs show:\n%s", s.file, s.line, s.cmd, asComments(out), shown(s.want))
	}
	assert.NotContains(t, linkToken.ReplaceAllString(out, "/s/#…"), "svt1_", "%s:%d: %s printed a token", s.file, s.line, s.cmd)
}
