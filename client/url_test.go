package client_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestVatURLForms: every form of the vat's URL that any sharevat client
// accepts (http(s) base, ws(s) base, the /rpc and /capnweb endpoints,
// behind a prefix, with a trailing slash) maps to the one /rpc endpoint
// and the one base. Before, the Go client took only ws(s)://…/rpc, and
// the CLI refused the plugin's http://HOST:PORT.
func TestVatURLForms(t *testing.T) {
	for _, tc := range []struct{ in, rpc, base string }{
		{"http://127.0.0.1:7420", "ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"},
		{"http://127.0.0.1:7420/", "ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"},
		{"ws://127.0.0.1:7420/rpc", "ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"},
		{"ws://127.0.0.1:7420/capnweb", "ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"},
		{"ws://127.0.0.1:7420", "ws://127.0.0.1:7420/rpc", "http://127.0.0.1:7420"},
		{"https://vat.example", "wss://vat.example/rpc", "https://vat.example"},
		{"wss://vat.example/rpc/", "wss://vat.example/rpc", "https://vat.example"},
		{"WSS://vat.example:8443/capnweb", "wss://vat.example:8443/rpc", "https://vat.example:8443"},
		{"https://proxy.example/sharevat", "wss://proxy.example/sharevat/rpc", "https://proxy.example/sharevat"},
		{"wss://proxy.example/sharevat/capnweb", "wss://proxy.example/sharevat/rpc", "https://proxy.example/sharevat"},
		{" http://[::1]:7420 ", "ws://[::1]:7420/rpc", "http://[::1]:7420"},
	} {
		rpc, err := client.RPCURL(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.rpc, rpc, "RPCURL(%q)", tc.in)
		base, err := client.BaseURL(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.base, base, "BaseURL(%q)", tc.in)
	}
}

// TestVatURLMistakes: a URL that cannot name a vat is invalid, and the
// message says what to use; it never quotes a password or a token's
// secret.
func TestVatURLMistakes(t *testing.T) {
	const secret = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	token := "svt1_abcdefghijklmnopqrstuvwx_" + secret
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1:7420", "has no scheme: use http://127.0.0.1:7420"},
		{"ftp://127.0.0.1:7420", "the scheme must be http, https, ws or wss; use http://127.0.0.1:7420"},
		{"http://127.0.0.1:7420/rpc?x=1", "has a query or fragment: use http://127.0.0.1:7420"},
		{"http:///rpc", "is not a URL"},
		{"http://me:hunter2@127.0.0.1:7420", "holds a user name or password"},
		{token, "has no scheme"},
		{"ws://127.0.0.1:7420/rpc#" + token, "has a query or fragment"},
	} {
		_, err := client.RPCURL(tc.in)
		require.Error(t, err, tc.in)
		assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
		assert.NotContains(t, err.Error(), "hunter2")
		assert.NotContains(t, err.Error(), secret)
		_, err = client.BaseURL(tc.in)
		assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), tc.in)
	}
	_, err := client.Dial(t.Context(), "127.0.0.1:1", nil)
	assert.True(t, strings.Contains(err.Error(), "use http://127.0.0.1:1"), "Dial says the fix: %v", err)
}

// TestDialEveryURLForm: a real vat is reached, and a token redeemed,
// through each form of its URL: the base (http://HOST:PORT, a trailing
// slash), the /rpc endpoint and the /capnweb one. Before, every form but
// ws://…/rpc failed to dial.
func TestDialEveryURLForm(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	token := srv.MustCreate(t, "url forms")
	for _, u := range []string{"http://" + srv.Addr, "http://" + srv.Addr + "/", "ws://" + srv.Addr, "ws://" + srv.Addr + "/rpc", "ws://" + srv.Addr + "/capnweb"} {
		share := srv.MustRestore(t, token, u)
		_, _, err := share.Fetch(t.Context())
		require.NoError(t, err, u)
	}
}
