package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
)

var outboxShowCommand = command{
	name:    "show",
	args:    "[--outbox FILE | --grant ID | --token-file F]",
	summary: "show one outbox: its summary and each pending and failed op",
	long: `Shows one outbox — by default the token's own — with its share, counts and
last flush error, then each pending op (and its batch, once assigned) and
each failed op with the server's reason, and each damaged record (one
that fails its checksum: never sent; 'outbox discard --damaged' drops it)
with its enqueue seq and its op id as far as it can be read. Op bodies
are not printed.
--json prints {"outbox": {...as list...}, "ops": [{"op_id","state",
"batch_id","reason","message","record"}]}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var of outboxFlags
		of.register(fs)
		return func(_ context.Context, env *Env) error { return showOutbox(env, &of) }
	},
}

// outboxOp is one pending or failed op as show prints it.
type outboxOp struct {
	OpID    string `json:"op_id"`
	State   string `json:"state"`
	BatchID string `json:"batch_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Record  uint64 `json:"record,omitempty"` // a damaged record's enqueue seq
}

func showOutbox(env *Env, of *outboxFlags) error {
	info, err := of.read(env)
	if err != nil {
		return err
	}
	ops, err := outboxOps(info.Path, of.lockWait)
	if err != nil {
		return err
	}
	if of.json {
		return writeJSON(env.Stdout, map[string]any{"outbox": info, "ops": ops})
	}
	return printOutbox(env, info, ops)
}

// outboxOps lists the pending then the failed ops of the outbox at path.
func outboxOps(path string, lockWait time.Duration) ([]outboxOp, error) {
	db, err := outbox.Open(path, outbox.Options{LockTimeout: lockWait})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	pending, err := db.Pending()
	if err != nil {
		return nil, err
	}
	failed, err := db.Failed()
	if err != nil {
		return nil, err
	}
	damaged, err := db.Damaged()
	if err != nil {
		return nil, err
	}
	ops := make([]outboxOp, 0, len(pending)+len(failed)+len(damaged))
	for _, r := range append(pending, failed...) {
		op := outboxOp{OpID: r.OpID, State: r.State.String(), BatchID: r.BatchID, Message: r.Message}
		if r.State == outbox.StateFailed {
			op.Reason = r.Reason.String()
		}
		ops = append(ops, op)
	}
	return append(ops, damagedOps(damaged)...), nil
}

func printOutbox(env *Env, in outboxInfo, ops []outboxOp) error {
	w := env.Stdout
	fmt.Fprintf(w, "outbox %s\nshare %s, grant %s: %d pending, %d failed, %d done, %s\n",
		in.Path, orDash(string(in.ShareID)), orDash(string(in.GrantID)), in.Pending, in.Failed, in.Done, humanBytes(in.Size))
	if in.Damaged > 0 {
		fmt.Fprintf(w, "%d damaged record(s), never sent: drop them with 'sharevat outbox discard --damaged'\n", in.Damaged)
	}
	if in.LastError != "" {
		fmt.Fprintf(w, "last flush error: %s\n", in.LastError)
	}
	if len(ops) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OP ID\tSTATE\tBATCH\tREASON")
	for _, op := range ops {
		reason := strings.TrimSpace(op.Reason + " " + printable(op.Message))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printable(op.OpID), op.State, orDash(op.BatchID), orDash(reason))
	}
	return tw.Flush()
}

var outboxDiscardCommand = command{
	name:    "discard",
	args:    "--pending|--failed|--damaged [--op ID]... [--yes] [--outbox FILE | --grant ID | --token-file F]",
	summary: "drop pending, failed or damaged ops from an outbox",
	long: `Drops ops from one outbox — by default the token's own: with --pending the
ops not yet acknowledged (they are never sent; one already sent whose
answer was lost may still have been applied), with --failed the ops the
server rejected (they are only kept to be looked at), with --damaged
exactly the records that fail their checksum (never sent; 'outbox show'
lists them), and nothing else. --op limits --pending and --failed to
those op ids. Asks for confirmation on a terminal; elsewhere pass --yes.`,
	setup: func(fs *pflag.FlagSet) runner {
		var of outboxFlags
		var pending, failed, damaged, yes bool
		var ids []string
		of.register(fs)
		fs.BoolVar(&pending, "pending", false, "discard pending ops")
		fs.BoolVar(&failed, "failed", false, "discard failed (rejected) ops")
		fs.BoolVar(&damaged, "damaged", false, "discard the damaged records (those that fail their checksum), and only them")
		fs.StringArrayVar(&ids, "op", nil, "only this op id (repeat for more)")
		fs.BoolVar(&yes, "yes", false, "do not ask for confirmation")
		return func(_ context.Context, env *Env) error {
			if n := btoi(pending) + btoi(failed) + btoi(damaged); n != 1 {
				return usagef("pass exactly one of --pending, --failed and --damaged")
			}
			if damaged {
				if len(ids) > 0 {
					return usagef("--op does not go with --damaged: a damaged record's op id cannot be trusted")
				}
				return discardDamaged(env, &of, yes)
			}
			state := outbox.StatePending
			if failed {
				state = outbox.StateFailed
			}
			return discard(env, &of, state, ids, yes)
		}
	},
}

func discard(env *Env, of *outboxFlags, state outbox.State, ids []string, yes bool) error {
	path, err := of.locate(env)
	if err != nil {
		return err
	}
	info := readOutbox(path, of.lockWait)
	n := info.Pending
	if state == outbox.StateFailed {
		n = info.Failed
	}
	if info.Problem == "" && n == 0 {
		_, err := fmt.Fprintf(env.Stderr, "no %s ops in %s\n", state, path)
		return err
	}
	what := fmt.Sprintf("all %d %s op(s)", n, state)
	if len(ids) > 0 {
		what = fmt.Sprintf("%d of the %s op(s)", len(ids), state)
	}
	if err := confirm(env, yes, fmt.Sprintf("discard %s of outbox %s?", what, path)); err != nil {
		return err
	}
	db, err := outbox.Open(path, outbox.Options{LockTimeout: of.lockWait})
	if err != nil {
		return err
	}
	defer db.Close()
	dropped, err := db.Discard(state, ids...)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "discarded %d %s op(s) from %s\n", len(dropped), state, path)
	return nil
}

// confirm asks the question on a terminal and wants "y" or "yes";
// without a terminal only --yes goes on.
func confirm(env *Env, yes bool, question string) error {
	if yes {
		return nil
	}
	f, ok := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return usagef("%s: not asked without a terminal; pass --yes", strings.TrimSuffix(question, "?"))
	}
	fmt.Fprintf(env.Stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(f).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errors.Join(errSilent, errors.New("not confirmed"))
}

var outboxGCCommand = command{
	name:    "gc",
	args:    "[--empty] [--dry-run]",
	summary: "remove the empty outboxes of tokens the server refused",
	long: `Removes each outbox of the state directory that holds no pending and no
failed op and whose last flush the server refused because the token is
revoked, fenced by 'revoke --all', expired or unknown: that token can never
use it again. With --empty, every outbox without pending or failed ops
goes (append makes a new one when it needs it). Outboxes another sharevat
process is using are left alone. --dry-run only says what would go.`,
	setup: func(fs *pflag.FlagSet) runner {
		var sf stateFlags
		var empty, dry bool
		sf.registerLocation(fs)
		fs.BoolVar(&empty, "empty", false, "remove every empty outbox, not only those of refused tokens")
		fs.BoolVar(&dry, "dry-run", false, "say what would be removed, remove nothing")
		return func(_ context.Context, env *Env) error { return gcOutboxes(env, &sf, empty, dry) }
	},
}

func gcOutboxes(env *Env, sf *stateFlags, empty, dry bool) error {
	infos, err := listOutboxes(env, sf)
	if err != nil {
		return err
	}
	removed := 0
	for _, in := range infos {
		if in.Problem != "" || in.Pending+in.Failed+in.Damaged > 0 || !(empty || refusedToken(in.LastError)) {
			continue
		}
		if !dry {
			if err := outbox.Remove(in.Path, outbox.Options{LockTimeout: sf.lockWait}); err != nil {
				fmt.Fprintf(env.Stderr, "kept %s: %s\n", in.Path, oneLine(err.Error()))
				continue
			}
		}
		removed++
		fmt.Fprintln(env.Stdout, in.Path)
	}
	verb := "removed"
	if dry {
		verb = "would remove"
	}
	fmt.Fprintf(env.Stderr, "%s %d of %d outbox(es)\n", verb, removed, len(infos))
	return nil
}

// refusedToken reports whether an outbox's last flush error says its
// token can never be redeemed again.
func refusedToken(lastError string) bool {
	for rest := lastError; rest != ""; {
		if e := sharevat.ParseError(rest); e != nil {
			return e.Code == sharevat.ERevoked || e.Code == sharevat.EUnauthorized
		}
		_, rest, _ = strings.Cut(rest, ": ") // past a prefix such as "redeem: "
	}
	return false
}
