package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var statusCommand = command{
	name:    "status",
	args:    "[--set idle|busy|error] | --all --token-file <data>/admin.token",
	summary: "show or set the share's status (idle, busy, error); --all: every share's",
	long: `Shows this share's status — idle, busy or error — and since when, or sets
it with --set (which needs the admin right: an owner token). With --all
and the server's admin token, shows the status of every live share: id,
status, since, title (what opencode's /session/status answers). --json
prints {"share_id","status","status_at","title"}, an array of them with
--all.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var set string
		var all bool
		cf.register(fs)
		fs.StringVar(&set, "set", "", "set the status: idle, busy or error")
		fs.BoolVar(&all, "all", false, "every share's status (needs the server's admin token)")
		return cf.run(func(ctx context.Context, env *Env) error {
			if all {
				if fs.Changed("set") {
					return usagef("--set and --all do not go together: --set changes this token's share")
				}
				return allStatuses(ctx, env, &cf)
			}
			var st sharevat.Status
			if fs.Changed("set") {
				var err error
				if st, err = sharevat.ParseStatus(set); err != nil {
					return usagef("--set: %s", sharevat.ErrorMessage(err))
				}
			}
			return shareStatus(ctx, env, &cf, st)
		})
	},
}

// shareStatus prints the token's share's status, after setting it to st
// unless st is unset.
func shareStatus(ctx context.Context, env *Env, cf *clientFlags, st sharevat.Status) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	info := sh.Info
	if st != sharevat.StatusUnset {
		if info, err = sh.Update(ctx, sharevat.MetaPatch{Status: st}); err != nil {
			return err
		}
	}
	s := sharevat.ShareStatus{ID: info.ID, Title: info.Meta.Title, Status: info.Meta.Status, StatusAt: info.Meta.StatusAt}
	if cf.json {
		return writeJSON(env.Stdout, statusJSONOf(s))
	}
	_, err = fmt.Fprintf(env.Stdout, "share %s is %s since %s\n", s.ID, orDash(s.Status.String()), stamp(s.StatusAt, "its creation"))
	return err
}

// allStatuses prints every live share's status, with the admin token.
func allStatuses(ctx context.Context, env *Env, cf *clientFlags) error {
	conn, admin, refused, err := dialAdmin(ctx, cf)
	switch {
	case err != nil:
		return err
	case refused != nil:
		return statusDenied(refused)
	}
	defer conn.Close()
	defer admin.Release()
	sts, err := admin.Statuses(ctx)
	if err != nil {
		return err
	}
	if cf.json {
		out := make([]jsonStatus, 0, len(sts))
		for _, s := range sts {
			out = append(out, statusJSONOf(s))
		}
		return writeJSON(env.Stdout, out)
	}
	return printStatuses(env.Stdout, sts)
}

// statusDenied makes an unauthorized `status --all` say which token it
// needs.
func statusDenied(err error) error {
	if sharevat.ErrorCode(err) != sharevat.EUnauthorized {
		return err
	}
	return fmt.Errorf("%w (status --all needs the server's admin token, not a share token: "+
		"it is <data>/admin.token on the server; pass it with --token-file)", err)
}

// printStatuses prints the table of `status --all`: busy shares first,
// then those in error, then idle ones, each newest change first. A
// status never changed since the share was created (or forked) is
// "since creation".
func printStatuses(w io.Writer, sts []sharevat.ShareStatus) error {
	sts = slices.Clone(sts)
	slices.SortStableFunc(sts, func(a, b sharevat.ShareStatus) int {
		if c := cmp.Compare(statusRank[a.Status], statusRank[b.Status]); c != 0 {
			return c
		}
		return b.StatusAt.Compare(a.StatusAt)
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tSINCE\tTITLE")
	for _, s := range sts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, orDash(s.Status.String()), stamp(s.StatusAt, "creation"), orDash(printable(s.Title)))
	}
	return tw.Flush()
}

// statusRank orders the statuses for people: what is running first.
var statusRank = map[sharevat.Status]int{sharevat.StatusBusy: 0, sharevat.StatusError: 1, sharevat.StatusIdle: 2, sharevat.StatusUnset: 3}

// jsonStatus is one share's status for --json.
type jsonStatus struct {
	ShareID  sharevat.ShareID `json:"share_id"`
	Status   *string          `json:"status"`
	StatusAt *string          `json:"status_at"`
	Title    string           `json:"title"`
}

func statusJSONOf(s sharevat.ShareStatus) jsonStatus {
	return jsonStatus{ShareID: s.ID, Status: statusJSON(s.Status), StatusAt: jsonTime(s.StatusAt), Title: s.Title}
}
