package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
	"github.com/sharevat/sharevat/sturdyref"
)

// outboxCommand groups the commands that look after the outboxes of the
// state directory: list, show, discard, gc (outbox_edit.go).
var outboxCommand = command{
	name:    "outbox",
	args:    "list|show|discard|gc",
	summary: "look after the append outboxes: list, show, discard, gc",
	long: `append stores ops in a durable outbox file before it sends them, one file
per token (outbox-<grant id>.db in the state directory: --state,
SHAREVAT_STATE, $XDG_STATE_HOME/sharevat or ~/.local/state/sharevat), and
flush sends what is left. These commands show and tidy those files; they
never dial the server, and they never store or print a token.`,
	sub: []command{outboxListCommand, outboxShowCommand, outboxDiscardCommand, outboxGCCommand},
}

// outboxFlags locate one outbox: --outbox FILE, --grant ID (its file in
// the state directory), or the token's own file.
type outboxFlags struct {
	stateFlags
	grant     string
	token     string
	tokenFile string
	json      bool
}

func (f *outboxFlags) register(fs *pflag.FlagSet) {
	f.stateFlags.registerLocation(fs)
	fs.StringVar(&f.grant, "grant", "", "the outbox of this grant id (as 'sharevat outbox list' shows it)")
	fs.StringVar(&f.token, "token", "", "the outbox of this token (env SHAREVAT_TOKEN)")
	fs.StringVar(&f.tokenFile, "token-file", "", "the outbox of the token in this file (env SHAREVAT_TOKEN_FILE)")
	fs.BoolVar(&f.json, "json", false, "machine-readable output")
}

// locate returns the outbox file the flags name; it must exist.
func (f *outboxFlags) locate(env *Env) (string, error) {
	path, err := f.chosenPath(env)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err != nil {
		return "", usagef("no outbox at %s (run 'sharevat outbox list' to see the outboxes)", path)
	}
	return path, nil
}

// read locates the outbox the flags name and reads it; an outbox that
// readOutbox found a problem with is refused, naming its file.
func (f *outboxFlags) read(env *Env) (outboxInfo, error) {
	path, err := f.locate(env)
	if err != nil {
		return outboxInfo{}, err
	}
	info := readOutbox(path, f.lockWait)
	if info.Problem != "" {
		return outboxInfo{}, fmt.Errorf("outbox %s: %s", path, info.Problem)
	}
	return info, nil
}

func (f *outboxFlags) chosenPath(env *Env) (string, error) {
	switch {
	case f.file != "":
		return f.file, nil
	case f.grant != "":
		dir, err := f.stateDir(env)
		return filepath.Join(dir, outboxName(sharevat.GrantID(f.grant))), err
	}
	cf := clientFlags{token: f.token, tokenFile: f.tokenFile, server: defaultServer}
	cf.resolve(env)
	tok, err := cf.theToken()
	if err != nil {
		return "", usagef("which outbox? pass --outbox FILE, --grant ID, or the token (--token-file F or SHAREVAT_TOKEN)")
	}
	return f.path(env, tok)
}

// outboxName is the file name of a grant's outbox in the state directory.
func outboxName(g sharevat.GrantID) string { return "outbox-" + string(g) + ".db" }

// grantOf returns the grant id in an outbox file's name, or "".
func grantOf(path string) sharevat.GrantID {
	name := filepath.Base(path)
	if !strings.HasPrefix(name, "outbox-") || !strings.HasSuffix(name, ".db") {
		return ""
	}
	g := strings.TrimSuffix(strings.TrimPrefix(name, "outbox-"), ".db")
	if !sturdyref.ValidID(g) {
		return ""
	}
	return sharevat.GrantID(g)
}

// outboxInfo is one outbox as list shows it.
type outboxInfo struct {
	Path      string           `json:"path"`
	ShareID   sharevat.ShareID `json:"share_id"`
	GrantID   sharevat.GrantID `json:"grant_id"`
	Pending   int              `json:"pending"`
	Failed    int              `json:"failed"`
	Done      int              `json:"done"`
	Damaged   int              `json:"damaged"` // records failing their checksum: never sent
	Size      int64            `json:"size"`
	Head      sharevat.Cursor  `json:"last_acked_head"`
	LastError string           `json:"last_error,omitempty"`
	Problem   string           `json:"problem,omitempty"` // why it could not be read
}

// readOutbox opens the outbox at path briefly and summarises it; an
// outbox that cannot be opened is reported, not skipped.
func readOutbox(path string, lockWait time.Duration) outboxInfo {
	info := outboxInfo{Path: path, GrantID: grantOf(path)}
	if fi, err := os.Stat(path); err == nil {
		info.Size = fi.Size()
	}
	db, err := outbox.Open(path, outbox.Options{LockTimeout: lockWait})
	if err != nil {
		info.Problem = oneLine(err.Error())
		return info
	}
	defer db.Close()
	st, err := db.Status()
	if err != nil {
		info.Problem = oneLine(err.Error())
		return info
	}
	info.ShareID, info.Pending, info.Failed, info.Done, info.Damaged = st.ShareID, st.Pending, st.Failed, st.Done, st.Damaged
	info.Head, info.LastError = st.LastAckedCursor, oneLine(st.LastError)
	return info
}

// outboxFiles lists the outbox files of the state directory, sorted.
func outboxFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "outbox-*.db"))
	sort.Strings(paths)
	return paths, err
}

var outboxListCommand = command{
	name:    "list",
	summary: "list the outboxes of the state directory",
	long: `Lists every outbox of the state directory: its share (once a flush has
bound it), grant, pending, failed and done ops, size on disk, and the last
flush error. An outbox another sharevat process is using is waited for
(--lock-wait); one that cannot be read is listed with why.
--json prints an array of {"path","share_id","grant_id","pending","failed",
"done","damaged","size","last_acked_head","last_error","problem"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var sf stateFlags
		var asJSON bool
		sf.registerLocation(fs)
		fs.BoolVar(&asJSON, "json", false, "machine-readable output")
		return func(_ context.Context, env *Env) error {
			infos, err := listOutboxes(env, &sf)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(env.Stdout, infos)
			}
			return printOutboxes(env, infos)
		}
	},
}

// listOutboxes reads every outbox of the state directory.
func listOutboxes(env *Env, sf *stateFlags) ([]outboxInfo, error) {
	dir, err := sf.stateDir(env)
	if err != nil {
		return nil, err
	}
	paths, err := outboxFiles(dir)
	if err != nil {
		return nil, err
	}
	infos := make([]outboxInfo, 0, len(paths))
	for _, p := range paths {
		infos = append(infos, readOutbox(p, sf.lockWait))
	}
	return infos, nil
}

func printOutboxes(env *Env, infos []outboxInfo) error {
	if len(infos) == 0 {
		_, err := fmt.Fprintln(env.Stderr, "no outboxes")
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHARE\tGRANT\tPENDING\tFAILED\tSIZE\tLAST ERROR")
	for _, in := range infos {
		last := orDash(in.LastError)
		if in.Damaged > 0 {
			last = fmt.Sprintf("%d damaged record(s), never sent: see 'sharevat outbox show'", in.Damaged)
		}
		if in.Problem != "" {
			last = "cannot read: " + in.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", orDash(string(in.ShareID)), orDash(string(in.GrantID)),
			in.Pending, in.Failed, humanBytes(in.Size), last)
	}
	return tw.Flush()
}

// humanBytes writes n for a person: 812 B, 3.4 KiB, 117.0 MiB.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for ; v >= unit && i < 3; i++ {
		v /= unit
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}
