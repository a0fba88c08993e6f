package opencodeshare

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// bodyRate is the slowest a body may arrive past BodyTimeout, in bytes
// per second: its first n bytes are due BodyTimeout + n/bodyRate after
// the read began. A body that keeps this pace may be as long as MaxBody;
// one that trickles slower is cut off however little it declared.
const bodyRate = 64 << 10

// readAll reads at most MaxBody+1 bytes of r's body at the pace above.
// A body cut off answers 408, a body that fails 400; either closes the
// connection after the answer (net/http would otherwise wait on for the
// rest of the body to reuse it).
func (d *Door) readAll(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	p := &paced{r: io.LimitReader(r.Body, d.o.MaxBody+1), rc: http.NewResponseController(w),
		start: time.Now(), grace: d.o.BodyTimeout}
	b, err := io.ReadAll(p)
	if err != nil {
		w.Header().Set("Connection", "close")
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fail(http.StatusRequestTimeout, fmt.Sprintf(
				"invalid: the request body did not arrive within %s plus 1s per 64 KiB", d.o.BodyTimeout.Round(time.Second)))
		}
		return nil, fail(http.StatusBadRequest, "invalid: the request body could not be read")
	}
	_ = p.rc.SetReadDeadline(time.Time{})
	return b, nil
}

// paced reads r with a read deadline that moves on as bytes arrive.
type paced struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	n     int64 // bytes read so far
}

func (p *paced) Read(b []byte) (int, error) {
	// An error here (a writer that cannot set deadlines) leaves the read
	// unbounded, as without this reader.
	_ = p.rc.SetReadDeadline(p.start.Add(p.grace + time.Duration(p.n)*time.Second/bodyRate))
	k, err := p.r.Read(b)
	p.n += int64(k)
	return k, err
}
