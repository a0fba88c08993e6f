package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
)

// A share link opens the read-only share page (package sharepage):
// <base>/s/#<token>. The token is in the fragment, which browsers never
// send to a server. grant --link asks the vat for its base (GET
// <server>/s/base answers {"base": "…"}: serve --public-url, or the
// scheme and host it was reached at); a vat too old to answer gets the
// base derived from --server (ws://host/rpc → http://host, wss → https).

// checkLinkScope refuses --link with any right beyond read: whoever has
// the link holds its token, and the page only reads.
func checkLinkScope(sc sharevat.Scope) error {
	if sc != sharevat.ScopeRead {
		return usagef("--link makes a link to the read-only share page, and whoever has a link holds its token: use --scope read (not %s)", sc)
	}
	return nil
}

// shareLink is the page's link for token.
func shareLink(base, token string) string {
	return strings.TrimRight(base, "/") + "/s/#" + token
}

// linkBase returns the base of share links for the vat at server (a
// ws:// or wss:// URL ending in /rpc).
func linkBase(ctx context.Context, server string) string {
	derived := derivedBase(server)
	if b, ok := askBase(ctx, derived+"/s/base"); ok {
		return b
	}
	return derived
}

// derivedBase is server with http(s) for ws(s) and without its /rpc.
func derivedBase(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Scheme = map[string]string{"wss": "https"}[u.Scheme]
	if u.Scheme == "" {
		u.Scheme = "http"
	}
	u.Path = strings.TrimSuffix(u.Path, "/rpc")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return strings.TrimRight(u.String(), "/")
}

// askBase asks the vat's /s/base; ok is false when it does not answer
// with an http(s) URL within 5 s.
func askBase(ctx context.Context, endpoint string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return "", false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var got struct {
		Base string `json:"base"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&got) != nil {
		return "", false
	}
	u, err := url.Parse(got.Base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return strings.TrimRight(got.Base, "/"), true
}

// printLink prints the share page link of a grant just minted (with
// --json, its fields and the link).
func printLink(ctx context.Context, env *Env, cf *clientFlags, m sharevat.Minted) error {
	link := shareLink(linkBase(ctx, cf.server), m.Token)
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{
			"link": link, "token": m.Token, "grant_id": m.GrantID, "scope": m.Scope.String(), "expires_at": jsonTime(m.ExpiresAt),
		})
	}
	fmt.Fprintf(env.Stderr, "granted %s (scope %s, expires %s); its link is printed on stdout, once: anyone with it can read the session\n",
		m.GrantID, m.Scope, stamp(m.ExpiresAt, "never"))
	_, err := fmt.Fprintln(env.Stdout, link)
	return err
}
