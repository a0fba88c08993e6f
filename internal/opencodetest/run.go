package opencodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// RunTimeout bounds every opencode command a Root runs, from the moment
// it has a slot (see Slots). A run against the mock model takes 10 s
// alone and minutes on a loaded machine.
var RunTimeout = 10 * time.Minute

// Result is what one opencode command printed and how it ended.
type Result struct {
	Args   []string
	Stdout string
	Stderr string
	Err    error // exec's error: nil for exit status 0
}

// String is the command and its output, for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("opencode %s: %v\n--- stdout\n%s\n--- stderr\n%s", strings.Join(r.Args, " "), r.Err, r.Stdout, r.Stderr)
}

// command is opencode args in r's project with r's environment, in a
// process group of its own that ctx's end (or RunTimeout) kills whole.
func (r *Root) command(ctx context.Context, args ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, RunTimeout)
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Project
	cmd.Env = r.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd, cancel
}

// Run runs `opencode args...` to its end (at most RunTimeout).
func (r *Root) Run(args ...string) Result {
	return r.RunContext(context.Background(), args...)
}

// RunContext is Run ended early (the process group SIGKILLed) when ctx
// ends.
func (r *Root) RunContext(ctx context.Context, args ...string) Result {
	release, err := slot()
	if err != nil {
		return Result{Args: args, Err: err}
	}
	defer release()
	cmd, cancel := r.command(ctx, args...)
	defer cancel()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return Result{Args: args, Stdout: out.String(), Stderr: errb.String(), Err: err}
}

// Prompt runs `opencode run --format json [flags...] prompt` and returns
// its result and the session id its events name ("" when none did).
// Typical flags: "--share", "--continue".
func (r *Root) Prompt(prompt string, flags ...string) (Result, string) {
	args := append([]string{"run", "--format", "json"}, flags...)
	res := r.Run(append(args, prompt)...)
	return res, SessionID(res.Stdout)
}

// SessionID is the first sessionID in opencode's JSON event lines.
func SessionID(jsonEvents string) string {
	sc := bufio.NewScanner(strings.NewReader(jsonEvents))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	return ""
}

// shareURL finds a URL ending in /share/<slug> in text.
var shareURL = regexp.MustCompile(`https?://[^\s"']+/share/[A-Za-z0-9_\-]+`)

// ShareURL is the last share link in text (opencode prints it on
// stdout or stderr after `run --share`), or "".
func ShareURL(text string) string {
	all := shareURL.FindAllString(text, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// Export runs `opencode export <sessionID>` and decodes its JSON: the
// session as opencode holds it locally ({"info":…, "messages":[{"info":…,
// "parts":[…]}]}).
func (r *Root) Export(sessionID string) (Export, Result, error) {
	res := r.Run("export", sessionID)
	if res.Err != nil {
		return Export{}, res, res.Err
	}
	var e Export
	s := res.Stdout
	if i := strings.Index(s, "{"); i > 0 {
		s = s[i:] // past any line opencode prints before the JSON
	}
	err := json.Unmarshal([]byte(s), &e)
	return e, res, err
}

// Import runs `opencode import <url>`.
func (r *Root) Import(url string) Result { return r.Run("import", url) }

// Export is `opencode export`'s document.
type Export struct {
	Info     map[string]any  `json:"info"`
	Messages []ExportMessage `json:"messages"`
}

// ExportMessage is one message of an Export with its parts.
type ExportMessage struct {
	Info  map[string]any   `json:"info"`
	Parts []map[string]any `json:"parts"`
}

// PartCount is the number of parts over all messages.
func (e Export) PartCount() int {
	n := 0
	for _, m := range e.Messages {
		n += len(m.Parts)
	}
	return n
}

// importedRe matches `opencode import`'s "Imported session: ses_…".
var importedRe = regexp.MustCompile(`Imported session: (ses_[A-Za-z0-9]+)`)

// ImportedSession is the session id `opencode import` printed, or "".
func ImportedSession(stdout string) string {
	if m := importedRe.FindStringSubmatch(stdout); m != nil {
		return m[1]
	}
	return ""
}

// LocalShare is what opencode keeps locally of a session's share (its
// session_share row): the server's id, secret and url.
type LocalShare struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
	URL    string `json:"url"`
}

// Share reads sessionID's share from opencode's database (`opencode db`);
// ok is false when the session is not shared.
func (r *Root) Share(sessionID string) (s LocalShare, ok bool, err error) {
	if !regexp.MustCompile(`^ses_[A-Za-z0-9]+$`).MatchString(sessionID) {
		return s, false, fmt.Errorf("opencodetest: not a session id: %q", sessionID)
	}
	res := r.Run("db", "--format", "json", "select id, secret, url from session_share where session_id = '"+sessionID+"'")
	if res.Err != nil {
		return s, false, fmt.Errorf("%s", res)
	}
	var rows []LocalShare
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &rows); err != nil {
		return s, false, fmt.Errorf("opencode db: %v: %s", err, res.Stdout)
	}
	if len(rows) == 0 {
		return s, false, nil
	}
	return rows[0], true, nil
}
