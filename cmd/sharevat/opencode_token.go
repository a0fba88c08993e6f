package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/sturdyref"
)

var opencodeTokenCommand = command{
	name:    "opencode-token",
	args:    "mint|list|revoke",
	summary: "creation tokens for opencode's enterprise.url: mint, list, revoke (token: admin)",
	long: `A creation token lets opencode create shares on this vat through the
opencode door, and nothing else (docs/opencode.md): it goes into the path
of opencode's enterprise.url, e.g.
  {"enterprise":{"url":"http://127.0.0.1:7420/opencode/<token>"}}
Each token has quotas: shares it may create per hour, and bytes one share
made with it may hold. These commands need the server's admin token
(--token-file <data>/admin.token); they reach the vat at --server over
HTTP (ws://HOST:PORT/rpc becomes http://HOST:PORT/opencode-tokens).
Rotating the admin token revokes every creation token.`,
	sub: []command{opencodeMintCommand, opencodeListCommand, opencodeRevokeCommand},
}

var opencodeMintCommand = command{
	name:    "mint",
	args:    "--token-file <data>/admin.token [--name NAME] [--shares-per-hour N] [--bytes-per-share SIZE]",
	summary: "mint a creation token and print the opencode config line that uses it",
	long: `Mints a creation token and prints it once, alone on stdout (shown once:
keep it secret; 'mint > creation.token' keeps it off the terminal), and on
stderr the line of opencode config that uses it, with <token> in its
place. --json prints {"token","grant_id","name","shares_per_hour",
"bytes_per_share","config"} on stdout, the config holding the token.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var in opencodeshare.MintRequest
		var size string
		cf.register(fs)
		fs.StringVar(&in.Name, "name", "", "a name to tell the token by in 'opencode-token list' (e.g. the laptop it is for)")
		fs.IntVar(&in.SharesPerHour, "shares-per-hour", 60, "shares the token may create in any hour (0: unlimited)")
		fs.StringVar(&size, "bytes-per-share", "64MiB", "bytes one share created with the token may hold (0: unlimited)")
		return cf.run(func(ctx context.Context, env *Env) error {
			n, err := parseBytes(size)
			if err != nil || in.SharesPerHour < 0 {
				return usagef("--bytes-per-share and --shares-per-hour take a size (64MiB) and a count, 0 or more")
			}
			in.BytesPerShare = n
			var m opencodeshare.Minted
			if err := tokensCall(ctx, &cf, http.MethodPost, "", in, &m); err != nil {
				return err
			}
			return printMinted(env, &cf, m)
		})
	},
}

var opencodeListCommand = command{
	name:    "list",
	args:    "--token-file <data>/admin.token",
	summary: "list the creation tokens: id, name, quotas, state (never a token)",
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		cf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error {
			var ts []opencodeshare.TokenInfo
			if err := tokensCall(ctx, &cf, http.MethodGet, "", nil, &ts); err != nil {
				return err
			}
			if cf.json {
				return writeJSON(env.Stdout, ts)
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "GRANT\tNAME\tSHARES/H\tBYTES/SHARE\tCREATED\tSTATE")
			for _, t := range ts {
				state := "live"
				if t.Revoked {
					state = "revoked"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", t.GrantID, t.Name, t.SharesPerHour, t.BytesPerShare, t.CreatedAt.Format(time.RFC3339), state)
			}
			return tw.Flush()
		})
	},
}

var opencodeRevokeCommand = command{
	name:    "revoke",
	args:    "--grant ID --token-file <data>/admin.token",
	summary: "revoke a creation token: its next create is refused (its shares stay)",
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var id string
		cf.register(fs)
		fs.StringVar(&id, "grant", "", "the creation token's grant id, as 'opencode-token list' shows it")
		return cf.run(func(ctx context.Context, env *Env) error {
			if !sturdyref.ValidID(id) {
				return usagef("--grant takes a grant id, as 'sharevat opencode-token list' shows it")
			}
			if err := tokensCall(ctx, &cf, http.MethodDelete, "/"+id, nil, nil); err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "revoked creation token %s\n", id)
			return nil
		})
	},
}

// printMinted prints a minted token once, on stdout, and the opencode
// config line: on stderr with <token> in the token's place (so `mint >
// file` keeps the token off the terminal), or with --json on stdout with
// the token in it.
func printMinted(env *Env, cf *clientFlags, m opencodeshare.Minted) error {
	if cf.json {
		return writeJSON(env.Stdout, struct {
			opencodeshare.Minted
			Config string `json:"config"`
		}{m, opencodeConfig(cf.server, m.Token)})
	}
	fmt.Fprintln(env.Stdout, m.Token)
	fmt.Fprintf(env.Stderr, "creation token %s minted (shown once, on stdout: keep it secret); opencode config, the token in place of <token>:\n  %s\n",
		m.GrantID, opencodeConfig(cf.server, "<token>"))
	return nil
}

// opencodeConfig is the line of opencode config that shares into the vat
// at server with a creation token.
func opencodeConfig(server, token string) string {
	u, _ := tokensURL(server, "")
	return fmt.Sprintf(`{"enterprise":{"url":%q}}`, strings.TrimSuffix(u, opencodeshare.TokensPath)+"/opencode/"+token)
}

// tokensURL is the creation-token API beside the server's /rpc.
func tokensURL(server, rest string) (string, error) {
	if err := checkServer(server); err != nil {
		return "", err
	}
	u, _ := url.Parse(server)
	u.Scheme = map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	u.Path = strings.TrimSuffix(u.Path, "/rpc") + opencodeshare.TokensPath + rest
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// tokensCall calls the creation-token API with the admin token and
// decodes the answer into out (nil: ignore it).
func tokensCall(ctx context.Context, cf *clientFlags, method, rest string, in, out any) error {
	u, err := tokensURL(cf.server, rest)
	if err != nil {
		return err
	}
	tok, err := cf.theToken()
	if err != nil {
		return err
	}
	if err := checkToken(tok); err != nil {
		return err
	}
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("opencode-token: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return sharevat.Errorf(sharevat.EUnauthorized, "the vat refused the token: opencode-token needs the server's admin token (<data>/admin.token; pass it with --token-file)")
	case resp.StatusCode == http.StatusNotFound && rest != "":
		return sharevat.Errorf(sharevat.ENotFound, "no live creation token %s", strings.TrimPrefix(rest, "/"))
	case resp.StatusCode != http.StatusOK:
		var e struct{ Error string }
		_ = json.Unmarshal(b, &e)
		return fmt.Errorf("%s answered %s: %s", u, resp.Status, oneLine(e.Error))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
