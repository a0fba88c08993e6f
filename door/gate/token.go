package gate

import (
	"net/http"
	"strings"
)

// A TokenFunc says where a door carries its token: it returns the
// token's text, or "" when the request carries none.
type TokenFunc func(r *http.Request) string

// Bearer takes the token from "Authorization: Bearer <token>" (the scheme
// in any case, as RFC 6750 allows).
func Bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// PathSegment takes the token from the segment of the URL path that
// follows prefix ("/opencode/" for "/opencode/<token>/api/share"); "" when
// the path does not start with prefix.
func PathSegment(prefix string) TokenFunc {
	return func(r *http.Request) string {
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			return ""
		}
		tok, _, _ := strings.Cut(rest, "/")
		return tok
	}
}
