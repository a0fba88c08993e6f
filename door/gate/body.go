package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// readBody reads r's whole body (at most limit bytes) within timeout and
// puts it back in memory for the door. A body with nothing to read is
// left alone. The read deadline is cleared afterwards, so a response
// streamed long after (an SSE stream) is not cut off.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) *refusal {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(timeout)) // fails only on a writer that cannot
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return refuse(http.StatusRequestTimeout, fmt.Sprintf("invalid: the request body did not arrive within %s", timeout.Round(time.Second)))
		}
		return refuse(http.StatusBadRequest, "invalid: the request body could not be read")
	}
	if int64(len(b)) > limit {
		return tooLarge(limit)
	}
	_ = rc.SetReadDeadline(time.Time{})
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	return nil
}
