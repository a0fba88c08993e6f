package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
)

// Every call of the door with a body passes a gate (door/gate) before
// the door parses anything: the size limit, then the token redeemed,
// then the caller's share of the one memory budget charged for the
// body, then the body read. The door then works on the Pass's
// capabilities. The token is where opencode puts it: a creation token
// in the path (/opencode/<token>, creates), the share's secret as the
// first field of the JSON body (syncs and deletes: opencode sends
// {"secret":…,"data":…}, no header), which peekSecret reads — at most
// secretPeek bytes — before the gate. GET …/data carries no body and
// redeems its slug itself (data.go).

// createBodyMax bounds a create's and a delete's body ({"sessionID"},
// {"secret"}), and the creation-token API's.
const createBodyMax = 64 << 10

// secretPeek bounds what is read of a body before its secret is
// redeemed.
const secretPeek = 1 << 10

// gates are the door's gates, one per kind of token and body.
type gates struct {
	create, sync, unshare, tokens *gate.Gate
}

// newGates builds the gates of d in front of its handlers.
func (d *Door) newGates() gates {
	base := gate.Options{
		Door: "opencode",
		// A body is held twice while parsed (the gate's bytes and the
		// door's), then as the batch the vat appends and what the append
		// path makes of it; the items and ops made of it are charged
		// apart, when known (sync.go), and the state a sync reads too
		// (hold.go). Measured under attack, 2 let the heap pass the
		// budget.
		Expansion:   4,
		Vault:       gate.NewVault(func(peer string) capnp.Client { return d.o.Vat.BootstrapMetered(peer, nil) }),
		BodyTimeout: d.o.BodyTimeout,
		CallerShare: d.o.CallerShare,
		Refuse:      refusal,
	}
	if d.o.Budget != nil {
		base.Budget = d.o.Budget
	}
	with := func(kind gate.Kind, tok gate.TokenFunc, need sharevat.Scope, max int64, anon bool, h http.HandlerFunc) *gate.Gate {
		o := base
		o.Kind, o.Token, o.Need, o.MaxBody, o.Anonymous = kind, tok, need, max, anon
		return gate.New(o, h)
	}
	return gates{
		create:  with(gate.AdminToken, gate.PathSegment("/opencode/"), 0, createBodyMax, d.o.Open, d.serveCreate),
		sync:    with(gate.ShareToken, peeked, sharevat.ScopeAppend, d.o.MaxBody, false, d.serveSync),
		unshare: with(gate.ShareToken, peeked, sharevat.ScopeAdmin, createBodyMax, false, d.serveUnshare),
		tokens:  with(gate.AdminToken, gate.Bearer, 0, createBodyMax, false, d.serveTokensPassed),
	}
}

// secretKey is the context key of the secret peekSecret read.
type secretKey struct{}

// peeked is the gate's TokenFunc of syncs and deletes.
func peeked(r *http.Request) string {
	s, _ := r.Context().Value(secretKey{}).(string)
	return s
}

// peekSecret reads the secret, the first field of r's JSON body, within
// BodyTimeout and at most secretPeek bytes, puts what it read back in
// front of the body, and returns r with the secret in its context. A
// body that does not start with it is 401 (no secret), one that is not
// JSON 400.
func (d *Door) peekSecret(w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil, fail(http.StatusBadRequest, "invalid: a JSON body is required")
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(d.o.BodyTimeout))
	var seen bytes.Buffer
	rd := &readErr{r: io.LimitReader(r.Body, secretPeek)}
	secret, err := firstSecret(io.TeeReader(rd, &seen))
	_ = rc.SetReadDeadline(time.Time{})
	var ne net.Error
	switch {
	case errors.As(rd.err, &ne) && ne.Timeout():
		return nil, fail(http.StatusRequestTimeout, fmt.Sprintf("invalid: the request body did not arrive within %s", d.o.BodyTimeout.Round(time.Second)))
	case rd.err != nil:
		return nil, fail(http.StatusBadRequest, "invalid: the request body could not be read")
	case err != nil:
		return nil, err
	}
	body := r.Body
	r2 := r.WithContext(context.WithValue(r.Context(), secretKey{}, secret))
	r2.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(&seen, body), body}
	return r2, nil
}

// readErr remembers the last error of r other than its end.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// firstSecret reads `{"secret": "<token>"` from the start of a body.
func firstSecret(rd io.Reader) (string, error) {
	dec := json.NewDecoder(rd)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", errNotJSON
	}
	key, err := dec.Token()
	if err != nil {
		return "", errNotJSON
	}
	if k, ok := key.(string); !ok || k != "secret" {
		return "", errUnauthorized // no secret up front: opencode sends {"secret":…,"data":…}
	}
	v, err := dec.Token()
	if err != nil {
		return "", errNotJSON
	}
	if s, ok := v.(string); ok && s != "" {
		return s, nil
	}
	return "", errUnauthorized
}

var errNotJSON = fail(http.StatusBadRequest, "invalid: the body is not the JSON object this call takes")

// refusal answers a gate's refusal as the door answers its own: JSON
// {"error": "<code>: <message>"} (gate.Options.Refuse).
func refusal(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Del("X-Content-Type-Options")
	setHeaders(h)
	writeError(w, fail(status, text))
}

// passed is the share the gate redeemed r's secret to, if it is share
// id's: one 401 for an unknown id, a wrong secret and a revoked one. The
// rights were checked by the gate (Options.Need in newGates: append for
// a sync, admin for a delete), so a token of the share without them
// (its public link, read only, is no secret) never gets here.
func (d *Door) passed(r *http.Request, id sharevat.ShareID) (*restored, error) {
	p := gate.PassFrom(r.Context())
	if p == nil || !p.Share().IsValid() || p.Info.ID != id {
		return nil, errUnauthorized
	}
	return &restored{share: p.Share().AddRef(), access: p.Access, info: p.Info}, nil
}
