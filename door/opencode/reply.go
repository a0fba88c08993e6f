package opencode

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/door/gate"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// httpError is a failure with the status and message the client sees.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func fail(status int, msg string) error { return &httpError{status: status, msg: msg} }

// errUnauthorized is the one answer for an unknown share id, a wrong
// secret and a dead slug alike: the gate's, for every failure of a token.
var errUnauthorized = &httpError{status: http.StatusUnauthorized, msg: gate.ErrToken.Error()}

// setHeaders sets the headers of every answer of the door.
func setHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"internal: cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers err as {"error": …} with its status.
func writeError(w http.ResponseWriter, err error) {
	status, msg := classify(err)
	writeJSON(w, status, map[string]string{"error": scrub(msg)})
}

// classify maps err to a status and a message fit to show.
func classify(err error) (int, string) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.msg
	}
	de := wire.DomainError(err)
	switch de.Code {
	case sharevat.EUnauthorized, sharevat.ERevoked:
		return http.StatusUnauthorized, errUnauthorized.msg
	case sharevat.ENotFound:
		return http.StatusNotFound, de.Error()
	case sharevat.EInvalid, sharevat.EConflict, sharevat.ECompacted:
		return http.StatusBadRequest, de.Error()
	case sharevat.EPermissionDenied:
		return http.StatusForbidden, de.Error()
	case sharevat.ETooLarge:
		return http.StatusRequestEntityTooLarge, de.Error()
	case sharevat.EUnavailable:
		return http.StatusServiceUnavailable, de.Error()
	}
	return http.StatusInternalServerError, sharevat.ErrInternal.Error()
}

// scrub removes the secret half of any token from msg.
func scrub(msg string) string { return sturdyref.RedactText(msg) }
