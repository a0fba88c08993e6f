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

// BodyDeadline is how long the first n bytes of a body may take to
// arrive: base plus one second per 64 KiB of n (a slow but honest link
// of 64 KiB/s). The deadline grows as the body arrives, so a large body
// is not cut off while a withheld or trickled one still is, after base.
func BodyDeadline(base time.Duration, n int64) time.Duration {
	return base + time.Duration(max(n, 0)/(64<<10))*time.Second
}

// readBody reads r's whole body (at most limit bytes) within timeout
// grown by BodyDeadline and puts it back in memory for the door. A body
// with nothing to read is left alone. The read deadline is cleared
// afterwards, so a response streamed long after (an SSE stream) is not
// cut off.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration) *refusal {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	rc := http.NewResponseController(w)
	dr := &deadlineReader{r: r.Body, rc: rc, start: time.Now(), base: timeout}
	_ = rc.SetReadDeadline(dr.start.Add(timeout)) // fails only on a writer that cannot
	b, err := io.ReadAll(io.LimitReader(dr, limit+1))
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

// deadlineReader moves the connection's read deadline on as the body
// arrives: start plus BodyDeadline of what has arrived.
type deadlineReader struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	base  time.Duration
	n     int64
}

func (d *deadlineReader) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if n > 0 && (d.n+int64(n))/(64<<10) > d.n/(64<<10) { // another second earned
		_ = d.rc.SetReadDeadline(d.start.Add(BodyDeadline(d.base, d.n+int64(n))))
	}
	d.n += int64(n)
	return n, err
}
