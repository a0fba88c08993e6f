package opencode

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/vat"
)

// DefaultMaxBody is the largest request body the door reads: a full sync
// of a long session is several MB.
const DefaultMaxBody = 32 << 20

// DefaultBodyTimeout is the default Options.BodyTimeout.
const DefaultBodyTimeout = 30 * time.Second

// Options configure a Door. Vat, Pepper and Index are required.
type Options struct {
	Vat    *vat.Vat
	Pepper []byte // the vat's pepper: the index's sealing key derives from it
	// Index is the store's session index (index.go), shared by every vat
	// on the store.
	Index sharevat.SessionIndex
	// PublicURL is the base of the links (serve --public-url); "": the
	// request's scheme and Host.
	PublicURL string
	// Open lets a create without a creation token through (serve
	// --opencode-open, loopback only).
	Open bool
	// OpenPerAddr and OpenTotal bound the shares an open door makes in
	// an hour for one remote address and in all (openquota.go); zero:
	// DefaultOpenPerAddr and DefaultOpenTotal; negative: no limit.
	OpenPerAddr, OpenTotal int
	// Limits are the vat's limits: a sync is appended in batches of at
	// most MaxOpsPerBatch ops and MaxBatchBytes bytes.
	Limits sharevat.Limits
	// MaxBody caps a request body; zero: DefaultMaxBody.
	MaxBody int64
	// BodyTimeout bounds the reading of a request body: its first n
	// bytes must have arrived within BodyTimeout plus one second per
	// 64 KiB of n (gate.BodyDeadline; 408 past it); zero: DefaultBodyTimeout. A
	// body that trickles in would otherwise hold its connection and its
	// share of the memory budget for ever.
	BodyTimeout time.Duration
	// Admit counts a request against the server's connection limits
	// (--max-conns, --max-conns-per-ip); nil: none. A nil done refuses
	// with the refusal.
	Admit func(*http.Request) (done func(), refusal string)
	// Budget is the server's one memory budget: the gates charge each
	// body to it before reading it (gates.go), the door the state it
	// reads (hold.go); nil: none.
	Budget Budget
	// StateBytes bounds what the door keeps of the versions of the
	// shares syncing through it (states.go); zero: DefaultStateBytes.
	StateBytes int64
	// CallerShare is the most one caller (a grant; a peer without a
	// token) may hold of Budget at once; <= 0: no bound but Budget's.
	CallerShare int64
	Logger      *slog.Logger
}

// Budget is a memory budget (the /rpc handler's pool).
type Budget interface {
	Take(n int64) bool
	Give(n int64)
}

// Door is the opencode share API's handler.
type Door struct {
	o      Options
	idx    *index
	states states
	creats keyedLocks
	quota  *openQuota
	g      gates // gates.go
}

// New opens the index and returns the door. Close it with Close.
func New(o Options) (*Door, error) {
	if o.Vat == nil || len(o.Pepper) == 0 || o.Index == nil {
		return nil, errors.New("opencodeshare: Vat, Pepper and Index are required")
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.Limits == (sharevat.Limits{}) {
		o.Limits = sharevat.DefaultLimits()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	idx, err := newIndex(o.Index, o.Pepper)
	if err != nil {
		return nil, err
	}
	if o.OpenPerAddr == 0 {
		o.OpenPerAddr = DefaultOpenPerAddr
	}
	if o.OpenTotal == 0 {
		o.OpenTotal = DefaultOpenTotal
	}
	if o.StateBytes <= 0 {
		o.StateBytes = DefaultStateBytes
	}
	d := &Door{o: o, idx: idx, states: newStates(o.StateBytes),
		quota: newOpenQuota(o.OpenPerAddr, o.OpenTotal)}
	d.g = d.newGates()
	return d, nil
}

// Close releases the door (the index is the store's: nothing to close).
func (d *Door) Close() error { return nil }

// route is a parsed request path.
type route struct {
	token string // the creation token of an /opencode/<token> prefix
	rest  []string
}

// parse splits p into the optional /opencode/<token> prefix and the rest.
func parse(p string) (route, bool) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var r route
	if len(segs) >= 2 && segs[0] == "opencode" {
		r.token, segs = segs[1], segs[2:]
		if r.token == "" {
			return r, false
		}
	}
	r.rest = segs
	return r, true
}

// ServeHTTP implements http.Handler.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header())
	rt, ok := parse(r.URL.Path)
	if !ok || len(rt.rest) < 2 || rt.rest[0] != "api" || rt.rest[1] != "share" {
		writeError(w, fail(http.StatusNotFound, "notFound: no such route"))
		return
	}
	if !sameOrigin(r) {
		writeError(w, errCrossOrigin)
		return
	}
	if d.o.Admit != nil {
		done, refusal := d.o.Admit(r)
		if done == nil {
			writeError(w, fail(http.StatusServiceUnavailable, "unavailable: "+refusal))
			return
		}
		defer done()
	}
	if err := d.serve(w, r, rt); err != nil {
		d.logFailure(r, err)
		writeError(w, err)
	}
}

// sameOrigin reports whether r carries no Origin (opencode sends none)
// or its own: a web page elsewhere must not create shares on an open
// door, nor spend a creation token a browser reaches, by a simple
// cross-origin POST.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

var errCrossOrigin = fail(http.StatusForbidden, "permissionDenied: the opencode door answers no cross-origin request")

// serve dispatches one API call: a call with a body through its gate
// (gates.go), which redeems the token before the body is read.
func (d *Door) serve(w http.ResponseWriter, r *http.Request, rt route) error {
	rest := rt.rest[2:]
	switch {
	case len(rest) == 0:
		if r.Method != http.MethodPost {
			return methodNot(w, "POST")
		}
		d.g.create.ServeHTTP(w, r)
		return nil
	case len(rest) == 2 && rest[1] == "sync":
		if r.Method != http.MethodPost {
			return methodNot(w, "POST")
		}
		return d.throughSecret(d.g.sync, w, r)
	case len(rest) == 2 && rest[1] == "data":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			return methodNot(w, "GET, HEAD")
		}
		return d.data(w, r, rest[0])
	case len(rest) == 1:
		if r.Method != http.MethodDelete {
			return methodNot(w, "DELETE")
		}
		return d.throughSecret(d.g.unshare, w, r)
	}
	return fail(http.StatusNotFound, "notFound: no such route")
}

// throughSecret serves r through g, with the secret its body starts with.
func (d *Door) throughSecret(g *gate.Gate, w http.ResponseWriter, r *http.Request) error {
	r2, err := d.peekSecret(w, r)
	if err != nil {
		w.Header().Set("Connection", "close") // the rest of the body is not read
		return err
	}
	g.ServeHTTP(w, r2)
	return nil
}

// The door's handlers behind the gates: the route again from the path.
func (d *Door) serveCreate(w http.ResponseWriter, r *http.Request) {
	rt, _ := parse(r.URL.Path)
	d.finish(w, r, d.create(w, r, rt.token))
}

func (d *Door) serveSync(w http.ResponseWriter, r *http.Request) {
	rt, _ := parse(r.URL.Path)
	d.finish(w, r, d.sync(w, r, sharevat.ShareID(rt.rest[2])))
}

func (d *Door) serveUnshare(w http.ResponseWriter, r *http.Request) {
	rt, _ := parse(r.URL.Path)
	d.finish(w, r, d.unshare(w, r, sharevat.ShareID(rt.rest[2])))
}

// finish answers a handler's failure.
func (d *Door) finish(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		d.logFailure(r, err)
		writeError(w, err)
	}
}

func methodNot(w http.ResponseWriter, allow string) error {
	w.Header().Set("Allow", allow)
	return fail(http.StatusMethodNotAllowed, "invalid: method not allowed; use "+allow)
}

// logFailure logs a failure the client did not cause (5xx) by route
// shape only: the path holds tokens and is never logged.
func (d *Door) logFailure(r *http.Request, err error) {
	status, msg := classify(err)
	if status >= 500 {
		d.o.Logger.Warn("opencode door: request failed", "method", r.Method, "status", status, "error", scrub(msg), "cause", scrub(err.Error()))
	}
}

// vault returns the vat's Vault for the request's peer; release it.
func (d *Door) vault(r *http.Request) schema.Vault {
	return schema.Vault(d.o.Vat.BootstrapMetered("opencode "+r.RemoteAddr, nil))
}

// readBody decodes the request's JSON body into v.
func (d *Door) readBody(r *http.Request, v any) error {
	return d.readBodyWith(r, func(b []byte) error {
		if err := json.Unmarshal(b, v); err != nil {
			return fail(http.StatusBadRequest, "invalid: the body is not the JSON object this call takes")
		}
		return nil
	})
}

// readBodyWith reads the request's body, which its gate read (within
// MaxBody and BodyTimeout) and charged to the budget, and parses it with
// parse.
func (d *Door) readBodyWith(r *http.Request, parse func([]byte) error) error {
	b := make([]byte, max(r.ContentLength, 0)) // the gate set its length
	if _, err := io.ReadFull(r.Body, b); err != nil {
		return fail(http.StatusBadRequest, "invalid: the request body could not be read")
	}
	if len(b) == 0 {
		return fail(http.StatusBadRequest, "invalid: a JSON body is required")
	}
	if !utf8.Valid(b) { // else stored and served raw, or changed to U+FFFD by a decode
		return errNotUTF8
	}
	return parse(b)
}

var errNotUTF8 = fail(http.StatusBadRequest, "invalid: the body is not UTF-8 (JSON text is)")

// keyedLocks serializes work on one key (a creator's session).
type keyedLocks struct {
	mu sync.Mutex
	m  map[string]*keyedLock
}

type keyedLock struct {
	mu   sync.Mutex
	refs int
}

// lock locks key and returns its unlock.
func (k *keyedLocks) lock(key string) func() {
	k.mu.Lock()
	if k.m == nil {
		k.m = map[string]*keyedLock{}
	}
	l := k.m[key]
	if l == nil {
		l = &keyedLock{}
		k.m[key] = l
	}
	l.refs++
	k.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}

// base is the links' base: PublicURL, or the request's scheme and Host.
func (d *Door) base(r *http.Request) string {
	if d.o.PublicURL != "" {
		return strings.TrimRight(d.o.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
