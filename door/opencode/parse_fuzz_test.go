package opencode

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sharevat/sharevat"
)

// FuzzParseSync feeds arbitrary bytes to the sync body parser and the
// item mapping behind it. Invariants: nothing panics; a failure is an
// httpError with a 4xx status; a parsed body holds at most MaxSyncItems
// items; every op mapped from one has a body that is valid JSON, a kind
// that is one of opencode's, and an op id that starts with
// "opencode:<kind>:<key>:".
func FuzzParseSync(f *testing.F) {
	for _, s := range []string{
		`{"secret":"s","data":[]}`,
		`{"secret":"s","data":[{"type":"session","data":{"id":"ses_1","time":{"created":1,"updated":2}}}]}`,
		`{"secret":"s","data":[{"type":"part","data":{"id":"p","messageID":"m","state":{"time":{"start":3}}}},{"type":"model","data":[1]}]}`,
		`{"secret":"s","data":[{"type":"message","data":{"id":5}}]}`,
		`{"secret":"s","data":[0,0,0]}`,
		`{"secret":null,"data":{"type":"session"}}`,
		`{"data":[{"type":"session_diff","data":"x"}`,
		`[[[[[[[[[[[[[[[[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := parseSync(b)
		if err != nil {
			requireClientError(t, err)
			return
		}
		if len(in.items) > MaxSyncItems {
			t.Fatalf("%d items parsed, over the limit of %d", len(in.items), MaxSyncItems)
		}
		for _, it := range in.items {
			m, err := toOp(it, "ses_fuzz")
			if err != nil {
				requireClientError(t, err)
				continue
			}
			if !json.Valid(m.op.Body) {
				t.Fatalf("op body %q is not JSON", m.op.Body)
			}
			if !sharevat.IsStateKind(m.op.Kind) {
				t.Fatalf("op kind %q is not a state kind", m.op.Kind)
			}
			if p := "opencode:" + m.op.Kind + ":" + m.op.Key + ":"; len(m.op.OpID) <= len(p) || m.op.OpID[:len(p)] != p {
				t.Fatalf("op id %q does not start with %q", m.op.OpID, p)
			}
		}
	})
}

func requireClientError(t *testing.T, err error) {
	t.Helper()
	var he *httpError
	if !errors.As(err, &he) || he.status < 400 || he.status > 499 {
		t.Fatalf("error %v is not a 4xx httpError", err)
	}
}
