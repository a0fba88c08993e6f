package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sharepage "github.com/sharevat/sharevat/door/page"

	"github.com/sharevat/sharevat/internal/servertest"
)

// linkRE is a share page link: base, /s/#, the token.
var linkRE = regexp.MustCompile(`^(https?://[^/#]+)/s/#(svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43})$`)

// TestGrantLink: grant --scope read --link prints <base>/s/#<token>
// whose token reads the share; --json adds the link; any scope beyond
// read is refused before anything is minted.
func TestGrantLink(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	d, admin := newDelegation(t, srv)
	owner := d.mint(admin, "create", "--title", "linked")

	out, stderr, code := d.run(owner, "grant", "--scope", "read", "--link", "--label", "page")
	require.Equal(t, 0, code, stderr)
	m := linkRE.FindStringSubmatch(strings.TrimSpace(out))
	require.NotNil(t, m, "stdout is one link: %q", out)
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "http://"+u.Host, m[1], "the base is the address --server reaches the vat at")
	assert.Contains(t, stderr, "its link is printed on stdout")
	_, stderr, code = d.run(m[2], "read")
	assert.Equal(t, 0, code, "the link's token reads the share: %s", stderr)
	_, stderr, code = d.runIn(`{"op_id":"x","kind":"event","body":{}}`+"\n", m[2], "append")
	assert.Equal(t, 3, code, "and only reads: %s", stderr)

	out, stderr, code = cliIn(t, "", []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner}, "grant", "--scope", "read", "--link", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct{ Link, Token, Scope string }
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "http://"+u.Host+"/s/#"+got.Token, got.Link)
	assert.Equal(t, "read", got.Scope)

	for _, scope := range []string{"read,append", "read,delegate", "append", "owner"} {
		_, stderr, code := d.run(owner, "grant", "--scope", scope, "--link")
		assert.Equal(t, 2, code, "--scope %s --link is a usage error", scope)
		assert.Contains(t, stderr, "use --scope read", scope)
	}
	assert.Len(t, d.grants(owner), 3, "the owner and the two links: nothing minted for a refused --link")
}

// TestGrantLinkPublicURL: the base comes from the vat's /s/base (serve
// --public-url) when it answers it; here a proxy in front of the real vat
// serves the share page with a public URL.
func TestGrantLinkPublicURL(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	d, admin := newDelegation(t, srv)
	owner := d.mint(admin, "create", "--title", "public")
	vat, err := url.Parse(strings.Replace(srv.URL, "ws://", "http://", 1))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/rpc", httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: vat.Host}))
	mux.Handle("/s/", sharepage.Handler(sharepage.Options{PublicURL: "https://vat.example.com"}))
	proxy := httptest.NewServer(mux)
	defer proxy.Close()

	out, stderr, code := cliIn(t, "", []string{"SHAREVAT_URL=ws" + strings.TrimPrefix(proxy.URL, "http") + "/rpc", "SHAREVAT_TOKEN=" + owner},
		"grant", "--scope", "read", "--link")
	require.Equal(t, 0, code, stderr)
	m := linkRE.FindStringSubmatch(strings.TrimSpace(out))
	require.NotNil(t, m, "stdout is one link: %q", out)
	assert.Equal(t, "https://vat.example.com", m[1])
}
