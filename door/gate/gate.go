package gate

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/sharevat/sharevat"
)

// Defaults of Options.
const (
	// DefaultMaxBody is the default Options.MaxBody.
	DefaultMaxBody = 4 << 20
	// DefaultBodyTimeout is the default Options.BodyTimeout.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultExpansion is the default Options.Expansion: a JSON body
	// decoded into Go values and re-encoded for the vat is held about
	// this many times over while its request is served.
	DefaultExpansion = 4
)

// Options configure the gate of one door.
type Options struct {
	// Door names the door in the peer given to the vat ("mcp 1.2.3.4:5").
	Door string
	// Vault redeems the tokens; required.
	Vault *Vault
	// Token says where the door carries its token; required.
	Token TokenFunc
	// Kind is the kind of token the door takes; default ShareToken.
	Kind Kind
	// Anonymous lets a request without a token through, with a Pass that
	// holds only the Vault (an open server's creates); a token that is
	// there is still redeemed first. Default: 401.
	Anonymous bool
	// Challenge, when set, is the WWW-Authenticate header of a 401
	// (`Bearer realm="sharevat"` for a bearer door, RFC 6750).
	Challenge string
	// MaxBody bounds a request's body; default DefaultMaxBody.
	MaxBody int64
	// BodyTimeout bounds the reading of the body; default
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// Budget is the server's one memory budget; nil: nothing is counted.
	Budget Budget
	// Expansion is what each body byte is charged (see
	// DefaultExpansion); default DefaultExpansion.
	Expansion int64
	// CallerShare is the most one caller (a grant; a peer without a
	// token) may hold of Budget at once; <= 0: no bound but Budget.
	CallerShare int64
}

// Gate admits the requests of one door (see the package comment for the
// order of its checks) and serves the admitted ones with the door's
// handler.
type Gate struct {
	opts    Options
	charges *charges
	next    http.Handler
}

var _ http.Handler = (*Gate)(nil)

// New returns the gate of a door whose handler is next.
func New(opts Options, next http.Handler) *Gate {
	if opts.Vault == nil || opts.Token == nil {
		panic("gate.New: Vault and Token are required") // a wiring bug
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.Expansion <= 0 {
		opts.Expansion = DefaultExpansion
	}
	return &Gate{opts: opts, charges: newCharges(opts.Budget, opts.CallerShare), next: next}
}

// passKey is the context key of the request's Pass.
type passKey struct{}

// PassFrom returns the Pass the gate admitted ctx's request with; nil
// outside a gate.
func PassFrom(ctx context.Context) *Pass {
	p, _ := ctx.Value(passKey{}).(*Pass)
	return p
}

// ServeHTTP implements http.Handler: the checks in their order, then the
// door.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > g.opts.MaxBody { // 1. the size limit
		g.refuse(w, tooLarge(g.opts.MaxBody))
		return
	}
	p, no := g.redeem(r) // 2. the token
	if no != nil {
		g.refuse(w, no)
		return
	}
	defer p.release()
	charged, no := g.charge(p, r) // 3. the caller's share of the budget
	defer func() { g.charges.give(p.Caller(), charged) }()
	if no == nil {
		no = readBody(w, r, g.opts.MaxBody, g.opts.BodyTimeout) // 5. the body
	}
	if no != nil {
		g.refuse(w, no)
		return
	}
	charged = g.settle(p, r, charged)
	// 4. the grant's quotas, and the call: the vat's, on p's capabilities.
	g.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), passKey{}, p)))
}

// redeem takes the request's token and redeems it.
func (g *Gate) redeem(r *http.Request) (*Pass, *refusal) {
	peer := g.opts.Door + " " + r.RemoteAddr
	tok := g.opts.Token(r)
	if tok == "" && g.opts.Anonymous {
		return g.opts.Vault.open(peer), nil
	}
	p, err := g.opts.Vault.Redeem(r.Context(), tok, peer, g.opts.Kind)
	if err != nil {
		return nil, redeemRefusal(err)
	}
	return p, nil
}

// charge charges the body the request may bring to p's caller: what it
// declares, or MaxBody when it declares nothing, times Expansion.
func (g *Gate) charge(p *Pass, r *http.Request) (int64, *refusal) {
	n := r.ContentLength
	if n < 0 {
		n = g.opts.MaxBody
	}
	n *= g.opts.Expansion
	if !g.charges.take(p.Caller(), n) {
		return 0, refuse(http.StatusServiceUnavailable, "unavailable: the server's memory budget is full; retry later")
	}
	return n, nil
}

// settle gives back what was charged for a body longer than the one
// that came (a body that declared no length), and returns what stays
// charged.
func (g *Gate) settle(p *Pass, r *http.Request, charged int64) int64 {
	keep := max(r.ContentLength, 0) * g.opts.Expansion
	if keep >= charged {
		return charged
	}
	g.charges.give(p.Caller(), charged-keep)
	return keep
}

// refusal is an answer the gate gives instead of the door.
type refusal struct {
	status int
	text   string
}

func refuse(status int, text string) *refusal { return &refusal{status: status, text: text} }

func tooLarge(limit int64) *refusal {
	return refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("tooLarge: the request body is over this door's limit of %d bytes", limit))
}

// redeemRefusal answers a failed redeem: 401 for the token, 503 for a vat
// that could not decide.
func redeemRefusal(err error) *refusal {
	switch sharevat.ErrorCode(err) {
	case sharevat.EUnavailable:
		return refuse(http.StatusServiceUnavailable, "unavailable: "+sharevat.ErrCannotCheckToken.Message)
	case sharevat.ECorrupt:
		return refuse(http.StatusInternalServerError, sharevat.PublicError(err).Error())
	}
	return refuse(http.StatusUnauthorized, ErrToken.Error())
}

// refuse writes no's answer; the connection is closed after it, since
// the body a refused request may still be sending is not read.
func (g *Gate) refuse(w http.ResponseWriter, no *refusal) {
	if no.status == http.StatusUnauthorized && g.opts.Challenge != "" {
		w.Header().Set("WWW-Authenticate", g.opts.Challenge)
	}
	w.Header().Set("Connection", "close")
	http.Error(w, no.text, no.status)
}
