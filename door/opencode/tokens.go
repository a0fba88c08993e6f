package opencode

import (
	"net/http"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/vat"
	"github.com/sharevat/sharevat/wire"
)

// TokensPath is the route of the creation-token API the CLI's
// `sharevat opencode-token` calls, with the server's admin token in
// "Authorization: Bearer <token>":
//
//	POST   /opencode-tokens        {"name","shares_per_hour","bytes_per_share"} → {"token","grant_id",…}
//	GET    /opencode-tokens        → [{"grant_id","name","shares_per_hour","bytes_per_share","created_at","revoked",…}]
//	DELETE /opencode-tokens/<id>   → {"ok":true}
//
// Every refusal of the admin token is the same 401.
const TokensPath = "/opencode-tokens"

// TokenInfo describes one creation token (never its secret).
type TokenInfo struct {
	GrantID       string    `json:"grant_id"`
	Name          string    `json:"name"`
	SharesPerHour int       `json:"shares_per_hour"`
	BytesPerShare int64     `json:"bytes_per_share"`
	CreatedBy     string    `json:"created_by"`
	CreatedAt     time.Time `json:"created_at"`
	LastUsedAt    time.Time `json:"last_used_at"`
	Revoked       bool      `json:"revoked"`
	RevokedAt     time.Time `json:"revoked_at"`
}

// MintRequest is the body of a mint.
type MintRequest struct {
	Name          string `json:"name"`
	SharesPerHour int    `json:"shares_per_hour"`
	BytesPerShare int64  `json:"bytes_per_share"`
}

// Minted answers a mint: the token, shown once.
type Minted struct {
	Token string `json:"token"`
	TokenInfo
}

// Tokens serves the creation-token API (TokensPath).
func (d *Door) Tokens() http.Handler { return http.HandlerFunc(d.serveTokens) }

func (d *Door) serveTokens(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header())
	if d.o.Admit != nil {
		done, refusal := d.o.Admit(r)
		if done == nil {
			writeError(w, fail(http.StatusServiceUnavailable, "unavailable: "+refusal))
			return
		}
		defer done()
	}
	through(d.g.tokens, w, r) // the admin token redeemed before any body is read
}

func (d *Door) serveTokensPassed(w http.ResponseWriter, r *http.Request) {
	d.finish(w, r, d.tokens(w, r))
}

func (d *Door) tokens(w http.ResponseWriter, r *http.Request) error {
	admin, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return errNotAdmin
	}
	admin = strings.TrimSpace(admin)
	peer := "opencode-tokens " + r.RemoteAddr
	id := strings.Trim(strings.TrimPrefix(r.URL.Path, TokensPath), "/")
	switch {
	case id == "" && r.Method == http.MethodPost:
		var in MintRequest
		if err := d.readBody(r, &in); err != nil {
			return err
		}
		m, err := d.o.Vat.MintCreateToken(r.Context(), admin, peer, in.Name, vat.CreateQuota{SharesPerHour: in.SharesPerHour, BytesPerShare: in.BytesPerShare})
		if err != nil {
			return adminErr(err)
		}
		writeJSON(w, http.StatusOK, Minted{Token: m.Token, TokenInfo: TokenInfo{GrantID: string(m.GrantID), Name: in.Name,
			SharesPerHour: in.SharesPerHour, BytesPerShare: in.BytesPerShare, CreatedBy: peer, CreatedAt: time.Now().UTC()}})
		return nil
	case id == "" && r.Method == http.MethodGet:
		ts, err := d.o.Vat.CreateTokens(r.Context(), admin, peer)
		if err != nil {
			return adminErr(err)
		}
		out := make([]TokenInfo, 0, len(ts))
		for _, t := range ts {
			out = append(out, tokenInfo(t))
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	case id != "" && r.Method == http.MethodDelete:
		if err := d.o.Vat.RevokeCreateToken(r.Context(), admin, peer, sharevat.GrantID(id)); err != nil {
			return adminErr(err)
		}
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
		return nil
	}
	w.Header().Set("Allow", "GET, POST, DELETE")
	return fail(http.StatusMethodNotAllowed, "invalid: GET or POST "+TokensPath+", DELETE "+TokensPath+"/<grant id>")
}

var errNotAdmin = fail(http.StatusUnauthorized, "unauthorized: this needs the server's admin token (Authorization: Bearer …)")

// adminErr answers a refused admin token with the one 401.
func adminErr(err error) error {
	switch wire.DomainError(err).Code {
	case sharevat.EUnauthorized, sharevat.ERevoked:
		return errNotAdmin
	}
	return err
}

func tokenInfo(t vat.CreateToken) TokenInfo {
	g := t.Grant
	return TokenInfo{GrantID: string(g.ID), Name: t.Name, SharesPerHour: t.Quota.SharesPerHour, BytesPerShare: t.Quota.BytesPerShare,
		CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt, LastUsedAt: g.LastUsed, Revoked: g.Revoked, RevokedAt: g.RevokedAt}
}
