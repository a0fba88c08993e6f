package client

import (
	"net/url"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

// The vat's URL (SHAREVAT_URL, --server) means the same to every sharevat
// client, whichever endpoint it speaks (docs/guide.md, "The vat's URL").
// Each of these names the vat at HOST:PORT, behind an optional path
// PREFIX (a reverse proxy's):
//
//	http://HOST:PORT[/PREFIX]          the vat's base (https:// behind TLS)
//	ws://HOST:PORT[/PREFIX]/rpc        its Cap'n Proto endpoint, as `sharevat serve` prints it
//	ws://HOST:PORT[/PREFIX]/capnweb    its Cap'n Web endpoint
//
// ws:// and wss:// without an endpoint are the base too, and a trailing
// slash is ignored. A client maps the URL to the endpoint it speaks: this
// package and the CLI to /rpc, the TypeScript client to /capnweb, the
// opencode plugin to the base. http and ws are one scheme here, https and
// wss the other.

// endpoints are the path suffixes that name an endpoint, not a prefix.
var endpoints = []string{"/rpc", "/capnweb"}

// RPCURL returns the WebSocket URL of the /rpc endpoint of the vat that
// raw names in any of the forms above: ws(s)://HOST:PORT[/PREFIX]/rpc. A
// raw that cannot name a vat is EInvalid, its message saying what to use;
// a message never holds a password the URL held, nor a token's secret (a
// token set as the URL by mistake).
func RPCURL(raw string) (string, error) {
	u, err := vatURL(raw)
	if err != nil {
		return "", err
	}
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path += "/rpc"
	return u.String(), nil
}

// BaseURL returns the vat's base URL for raw, in any of the forms above:
// http(s)://HOST:PORT[/PREFIX], without a trailing slash; errors as RPCURL.
func BaseURL(raw string) (string, error) {
	u, err := vatURL(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// vatURL parses raw into the vat's base: scheme http or https, the path
// its prefix without an endpoint or a trailing slash.
func vatURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	q := shown(raw)
	if !strings.Contains(raw, "://") {
		return nil, sharevat.Errorf(sharevat.EInvalid, "the vat URL %q has no scheme: use http://%s", q, strings.TrimSuffix(q, "/"))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, sharevat.Errorf(sharevat.EInvalid, "the vat URL %q is not a URL: use http://HOST:PORT", q)
	}
	if u.User != nil {
		return nil, sharevat.Errorf(sharevat.EInvalid, "the vat URL %q holds a user name or password: give the token with SHAREVAT_TOKEN or --token-file", q)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, sharevat.Errorf(sharevat.EInvalid, "the vat URL %q has a query or fragment: use http://%s", q, u.Host)
	}
	switch u.Scheme = strings.ToLower(u.Scheme); u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return nil, sharevat.Errorf(sharevat.EInvalid, "the vat URL %q: the scheme must be http, https, ws or wss; use http://%s", q, u.Host)
	}
	u.Path, u.RawPath = strings.TrimRight(u.Path, "/"), ""
	for _, e := range endpoints {
		if p, ok := strings.CutSuffix(u.Path, e); ok {
			u.Path = p
			break
		}
	}
	return u, nil
}

// shown is raw as an error may quote it: without a password, or a
// placeholder when raw does not parse (it may hold one), and with any
// token's secret redacted.
func shown(raw string) string {
	const assumed = "http://"
	s := raw
	if !strings.Contains(raw, "://") {
		s = assumed + raw
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable)"
	}
	r := u.Redacted()
	if s != raw {
		r = strings.TrimPrefix(r, assumed)
	}
	return sturdyref.RedactText(r)
}
