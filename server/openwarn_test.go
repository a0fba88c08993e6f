package server_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestOpenWithPublicHostWarns: --open or --opencode-open on loopback
// with a public name in --allowed-hosts is reached from beyond this
// machine through a proxy, and started without a word (issue 32).
// Invariant: such a start prints a WARNING naming the flag and the host;
// a loopback name, or a server that is not open, prints none.
func TestOpenWithPublicHostWarns(t *testing.T) {
	for _, c := range []struct {
		name       string
		open, oc   bool
		hosts      []string
		warn, says string
	}{
		{"opencode-open, public", false, true, []string{"localhost", "vat.example.com"}, "WARNING", "--opencode-open with --allowed-hosts vat.example.com"},
		{"open, public with port", true, false, []string{"vat.example.com:443"}, "WARNING", "--open with --allowed-hosts vat.example.com"},
		{"open, loopback names", true, false, []string{"localhost", "127.0.0.1:7421", "[::1]:80"}, "", ""},
		{"not open, public", false, false, []string{"vat.example.com"}, "", ""},
	} {
		s := servertest.Start(t, servertest.Options{Config: func(cfg *server.Config) {
			cfg.Open, cfg.OpencodeOpen, cfg.Peers.AllowedHosts = c.open, c.oc, c.hosts
		}})
		s.Close(t.Context())
		if c.warn == "" {
			require.NotContains(t, s.Log.String(), "WARNING", c.name)
			continue
		}
		require.Contains(t, s.Log.String(), "sharevat: WARNING: "+c.says, c.name)
	}
}
