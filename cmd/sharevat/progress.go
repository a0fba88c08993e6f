package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/sharevat/sharevat"
)

// Progress of a long append or flush is drawn by
// github.com/schollz/progressbar: a maintained bar with rate and time
// left that redraws in place, which a terminal user expects and which we
// would otherwise write by hand.

// progressFlags say whether to show progress and retry notes.
type progressFlags struct {
	quiet  bool
	always bool
}

func (p *progressFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&p.quiet, "quiet", false, "print no progress and no retry notes on stderr, only the result and errors")
	fs.BoolVar(&p.always, "progress", false, "show progress even when stderr is not a terminal")
}

// barMinOps is the smallest run worth a progress bar.
const barMinOps = 1000

// progress reports a run on stderr: a bar of the ops acknowledged (with
// those sent, the rate and the time left) when stderr is a terminal and
// the run is long, and notes about lost connections and retries unless
// quiet. Its methods are safe for concurrent use; a nil *progress
// reports nothing.
type progress struct {
	env *Env

	mu        sync.Mutex
	bar       *progressbar.ProgressBar // nil: no bar
	total     int
	sent      int
	batches   map[string]bool // the batches counted in sent
	acked     int
	lastNote  time.Time
	noteEvery time.Duration
}

// newProgress returns the reporter for a run of total ops; nil with
// --quiet.
func newProgress(env *Env, pf *progressFlags, total int) *progress {
	if pf.quiet {
		return nil
	}
	p := &progress{env: env, total: total, noteEvery: 5 * time.Second, batches: map[string]bool{}}
	if pf.always || (isTerminal(env.Stderr) && total >= barMinOps) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(env.Stderr),
			progressbar.OptionSetDescription("acknowledged"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("ops"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowDescriptionAtLineEnd(),
		)
	}
	return p
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stored says the ops are in the outbox, before the first send.
func (p *progress) stored(n int, path string) {
	if p == nil || p.bar == nil {
		return
	}
	p.note(fmt.Sprintf("stored %d op(s) in %s; sending", n, path))
}

// sentOps counts the n ops of a batch handed to the server
// (OutboxOptions.OnSend), once however often it is resent.
func (p *progress) sentOps(batchID string, n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.batches[batchID] {
		p.batches[batchID] = true
		p.sent += n
	}
	p.describe()
}

// ackedOps counts ops the server acknowledged (OutboxOptions.OnAck).
func (p *progress) ackedOps(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.acked += n
	if p.bar != nil {
		p.bar.Set(min(p.acked, p.total))
	}
}

// describe puts the sent count beside the bar; p.mu is held.
func (p *progress) describe() {
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("acknowledged, %d sent", min(p.sent, p.total)))
	}
}

// retrying notes a failed connection and the wait before the next try:
// the first one at once, then one every few seconds.
func (p *progress) retrying(err error, wait time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	due := time.Since(p.lastNote) >= p.noteEvery
	if due {
		p.lastNote = time.Now()
	}
	p.mu.Unlock()
	if due {
		what := "no connection"
		if sharevat.IsCannotCheckToken(err) {
			what = "the server is unavailable"
		}
		p.note(fmt.Sprintf("%s (%s); retrying in %s", what, dialCause(err), wait.Round(time.Millisecond)))
	}
}

// lost notes that the connection died under a call: the ops it carried
// are sent again, with the same ids, once a new one is up.
func (p *progress) lost(err error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.lastNote = time.Now()
	p.mu.Unlock()
	p.note(fmt.Sprintf("connection lost (%s); reconnecting to send again", oneLine(err.Error())))
}

// connected notes that a connection works again after a failure.
func (p *progress) connected() {
	if p == nil {
		return
	}
	p.mu.Lock()
	failed := !p.lastNote.IsZero()
	p.lastNote = time.Time{}
	p.mu.Unlock()
	if failed {
		p.note("connected; sending")
	}
}

// note prints one line on stderr above the bar.
func (p *progress) note(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(p.env.Stderr, "sharevat: "+line)
}

// finish removes the bar before the summary is printed.
func (p *progress) finish() {
	if p == nil || p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Finish()
	fmt.Fprintln(p.env.Stderr)
}

// dialCause words a failed dial or redeem for a note: a network error by
// its cause alone ("connection refused"), others by their message.
func dialCause(err error) string {
	msg := oneLine(err.Error())
	if se := (*sharevat.Error)(nil); errors.As(err, &se) {
		msg = oneLine(se.Message)
	}
	if strings.Contains(msg, "dial tcp") {
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			return msg[i+2:]
		}
	}
	return msg
}
