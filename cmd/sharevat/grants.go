package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var grantsCommand = command{
	name:    "grants",
	summary: "show who has access: the tree of grants",
	long: `Shows who has access: the tree of grants minted from this token (every
grant of the share for an owner token), each indented under the grant that
minted it, with its scope, label, times and state (live, revoked, expired,
or fenced: minted before the last 'revoke --all'). Never shows a token.
--json prints an array of {"grant_id","parent","scope","label","epoch",
"created_by","created_at","last_used_at","expires_at","revoked",
"revoked_at","state"} in the same order.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		cf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error { return listGrants(ctx, env, &cf) })
	},
}

func listGrants(ctx context.Context, env *Env, cf *clientFlags) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	gs, err := sh.Grants(ctx)
	if err != nil {
		return err
	}
	nodes := treeOrder(gs)
	now := time.Now()
	if cf.json {
		return writeJSON(env.Stdout, grantsJSON(nodes, sh.Info.Epoch, now))
	}
	return printGrants(env.Stdout, nodes, sh.Info.Epoch, now)
}

// grantNode is a grant at its depth in the delegation tree.
type grantNode struct {
	g     *sharevat.Grant
	depth int
}

// treeOrder lists grants depth first, each under the grant that minted
// it, siblings by creation time. A grant whose parent is not in the list
// is a root.
func treeOrder(gs []sharevat.Grant) []grantNode {
	sorted := slices.Clone(gs)
	slices.SortStableFunc(sorted, func(a, b sharevat.Grant) int {
		return cmpCreated(&a, &b)
	})
	present := map[sharevat.GrantID]bool{}
	children := map[sharevat.GrantID][]*sharevat.Grant{}
	for i := range sorted {
		present[sorted[i].ID] = true
		children[sorted[i].Parent] = append(children[sorted[i].Parent], &sorted[i])
	}
	w := treeWalk{children: children, seen: map[sharevat.GrantID]bool{}}
	for i := range sorted {
		if !present[sorted[i].Parent] {
			w.visit(&sorted[i], 0)
		}
	}
	for i := range sorted { // grants caught in a parent cycle, if a store ever held one
		w.visit(&sorted[i], 0)
	}
	return w.out
}

func cmpCreated(a, b *sharevat.Grant) int {
	if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(string(a.ID), string(b.ID))
}

// treeWalk collects grants depth first, each once.
type treeWalk struct {
	children map[sharevat.GrantID][]*sharevat.Grant
	seen     map[sharevat.GrantID]bool
	out      []grantNode
}

func (w *treeWalk) visit(g *sharevat.Grant, depth int) {
	if w.seen[g.ID] {
		return
	}
	w.seen[g.ID] = true
	w.out = append(w.out, grantNode{g: g, depth: depth})
	for _, c := range w.children[g.ID] {
		w.visit(c, depth+1)
	}
}

// grantState says whether a grant can still be redeemed: "live", or why
// not. epoch is the share's current epoch.
func grantState(g *sharevat.Grant, epoch sharevat.Epoch, now time.Time) string {
	switch {
	case g.Revoked:
		return "revoked"
	case g.Epoch != epoch:
		return "fenced"
	case g.Expired(now):
		return "expired"
	}
	return "live"
}

// stateText is grantState with the detail a person wants.
func stateText(g *sharevat.Grant, epoch sharevat.Epoch, now time.Time) string {
	switch st := grantState(g, epoch, now); st {
	case "revoked":
		return strings.TrimSpace("revoked " + stamp(g.RevokedAt, ""))
	case "fenced":
		return fmt.Sprintf("fenced (epoch %d of %d)", g.Epoch, epoch)
	default:
		return st
	}
}

func printGrants(w io.Writer, nodes []grantNode, epoch sharevat.Epoch, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GRANT\tSCOPE\tLABEL\tCREATED\tLAST USED\tEXPIRES\tSTATE")
	for _, n := range nodes {
		g := n.g
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", strings.Repeat("  ", n.depth), g.ID, g.Scope,
			orDash(printable(g.Label)), stamp(g.CreatedAt, "-"), stamp(g.LastUsed, "-"),
			stamp(g.ExpiresAt, "never"), stateText(g, epoch, now))
	}
	return tw.Flush()
}

// jsonGrant is one grant of `grants --json`. It has no token and no
// verifier: the server sends neither.
type jsonGrant struct {
	GrantID    sharevat.GrantID `json:"grant_id"`
	Parent     *string          `json:"parent"`
	Scope      string           `json:"scope"`
	Label      string           `json:"label"`
	Epoch      sharevat.Epoch   `json:"epoch"`
	CreatedBy  string           `json:"created_by"`
	CreatedAt  *string          `json:"created_at"`
	LastUsedAt *string          `json:"last_used_at"`
	ExpiresAt  *string          `json:"expires_at"`
	Revoked    bool             `json:"revoked"`
	RevokedAt  *string          `json:"revoked_at"`
	State      string           `json:"state"`
}

func grantsJSON(nodes []grantNode, epoch sharevat.Epoch, now time.Time) []jsonGrant {
	out := make([]jsonGrant, len(nodes))
	for i, n := range nodes {
		g := n.g
		out[i] = jsonGrant{
			GrantID: g.ID, Parent: parentJSON(g.Parent), Scope: g.Scope.String(), Label: g.Label,
			Epoch: g.Epoch, CreatedBy: g.CreatedBy, CreatedAt: jsonTime(g.CreatedAt),
			LastUsedAt: jsonTime(g.LastUsed), ExpiresAt: jsonTime(g.ExpiresAt),
			Revoked: g.Revoked, RevokedAt: jsonTime(g.RevokedAt), State: grantState(g, epoch, now),
		}
	}
	return out
}

// parentJSON is a grant's parent id, or null for a root grant.
func parentJSON(id sharevat.GrantID) *string {
	if id == "" {
		return nil
	}
	s := string(id)
	return &s
}
