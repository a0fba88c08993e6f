package opencode

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

// chargeStep is the unit in which a body's bytes are charged to the
// memory budget as they arrive.
const chargeStep = 64 << 10

// errBudgetFull is a body refused because the memory budget cannot
// hold its bytes.
var errBudgetFull = fail(http.StatusServiceUnavailable, "unavailable: the server's memory budget is full; retry later")

// readAll reads at most MaxBody+1 bytes of r's body at the pace above,
// charging them to the budget as they arrive (a body that trickles in
// holds only what it sent, not what it declared); it answers the bytes
// and what it charged, which the caller gives back. A body cut off
// answers 408, over the budget 503, a body that fails 400; each closes
// the connection after the answer (net/http would otherwise wait on for
// the rest of the body to reuse it).
func (d *Door) readAll(w http.ResponseWriter, r *http.Request) ([]byte, int64, error) {
	p := &paced{r: io.LimitReader(r.Body, d.o.MaxBody+1), rc: http.NewResponseController(w),
		start: time.Now(), grace: d.o.BodyTimeout, budget: d.o.Budget}
	b, err := io.ReadAll(p)
	if err == nil {
		_ = p.rc.SetReadDeadline(time.Time{})
		return b, p.charged, nil
	}
	w.Header().Set("Connection", "close")
	var ne net.Error
	switch {
	case errors.Is(err, errBudgetFull):
		return nil, p.charged, errBudgetFull
	case errors.As(err, &ne) && ne.Timeout():
		return nil, p.charged, fail(http.StatusRequestTimeout, fmt.Sprintf(
			"invalid: the request body did not arrive within %s plus 1s per 64 KiB", d.o.BodyTimeout.Round(time.Second)))
	}
	return nil, p.charged, fail(http.StatusBadRequest, "invalid: the request body could not be read")
}

// paced reads r with a read deadline that moves on as bytes arrive,
// charging them to budget (nil: none) in steps of chargeStep.
type paced struct {
	r       io.Reader
	rc      *http.ResponseController
	start   time.Time
	grace   time.Duration
	budget  Budget
	n       int64 // bytes read so far
	charged int64 // bytes charged to budget so far
}

func (p *paced) Read(b []byte) (int, error) {
	if p.budget != nil && p.n+int64(len(b)) > p.charged {
		step := max(chargeStep, min(int64(len(b)), 1<<20))
		if !p.budget.Take(step) {
			return 0, errBudgetFull
		}
		p.charged += step
		b = b[:min(int64(len(b)), p.charged-p.n)]
	}
	// An error here (a writer that cannot set deadlines) leaves the read
	// unbounded, as without this reader.
	_ = p.rc.SetReadDeadline(p.start.Add(p.grace + time.Duration(p.n)*time.Second/bodyRate))
	k, err := p.r.Read(b)
	p.n += int64(k)
	return k, err
}
