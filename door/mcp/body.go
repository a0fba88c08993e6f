package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// DefaultBodyTimeout is the default HTTPOptions.BodyTimeout.
const DefaultBodyTimeout = 30 * time.Second

// readBodies reads every POST's body (up to limit+1 bytes; the SDK
// refuses a longer one 413) within timeout before next sees it: the
// server sets no read timeout of its own, so a peer that sends headers
// and withholds the body would otherwise hold its connection for ever.
// A body cut off answers 408 and closes the connection.
func readBodies(limit int64, timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(timeout)) // fails only on a writer that cannot
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			w.Header().Set("Connection", "close")
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				http.Error(w, fmt.Sprintf("invalid: the request body did not arrive within %s", timeout.Round(time.Second)), http.StatusRequestTimeout)
				return
			}
			http.Error(w, "invalid: the request body could not be read", http.StatusBadRequest)
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(b))
		next.ServeHTTP(w, r)
	})
}
