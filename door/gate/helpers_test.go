package gate_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/internal/vattest"
)

// fixture is a vat and a gate in front of a door handler, on a real
// HTTP server.
type fixture struct {
	vat  *vattest.Server
	url  string
	door chan seen // what the door saw of each Pass, when reached
}

// seen is what the door saw of a request's Pass while serving it.
type seen struct {
	scope                  sharevat.Scope
	share, admin, vaultCap bool
}

// startGate starts a vat and a gate with opts (Vault, Token defaulted)
// in front of a door that records its Pass, reads the body and answers
// 200 with the body's length; hold, if set, is waited on before it
// answers.
func startGate(t *testing.T, vopts vattest.Options, opts gate.Options, hold <-chan struct{}) *fixture {
	t.Helper()
	v := vattest.Start(t, vopts)
	f := &fixture{vat: v, door: make(chan seen, 64)}
	if opts.Vault == nil {
		opts.Vault = gate.NewVault(func(peer string) capnp.Client { return v.Vat.Bootstrap(peer) })
	}
	if opts.Token == nil {
		opts.Token = gate.Bearer
	}
	door := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := gate.PassFrom(r.Context())
		f.door <- seen{scope: p.Access.Scope, share: p.Share().IsValid(), admin: p.Admin().IsValid(), vaultCap: p.Vault().IsValid()}
		b, _ := io.ReadAll(r.Body)
		if hold != nil {
			<-hold
		}
		_, _ = io.WriteString(w, strings.Repeat("x", len(b)))
	})
	srv := httptest.NewServer(gate.New(opts, door))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// post sends body with bearer token (none when "") and returns the
// status and the answer's text.
func (f *fixture) post(t *testing.T, token, path, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, f.url+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, strings.TrimSpace(string(b)), res.Header
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
