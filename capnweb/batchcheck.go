package capnweb

import (
	"bytes"
	"net/http"
	"strconv"
)

// A batch is checked whole before any of its calls runs: a batch the
// session would refuse part way (a line too long, malformed JSON, too
// many calls, a reference to an id it never made…) is refused with
// nothing done. Only limits that depend on the answers (the memory
// budget, exports made for stubs in answers) can still end a batch that
// has started; docs/capnweb.md says so.

// batchCheck is the state of checkBatch: what the batch's earlier
// messages made, as the session would have it.
type batchCheck struct {
	o        *Options
	pushes   int64           // pushes so far: ids 1..pushes are answers
	released map[int64]int64 // references released per export id ≥ 0
	imports  map[int64]bool  // ids the peer exported (stubs and promises)
}

// batchLines calls f with each non-blank line of body.
func batchLines(body []byte, f func(line []byte) bool) {
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !f(line) {
			return
		}
	}
}

// checkBatch reads every message of body as runBatch would and checks
// the limits and ids a batch can be held to before it runs. It answers
// the status to refuse the batch with and the text (http.StatusOK: run
// it), and the limit that refused it ("" for none).
func (h *Handler) checkBatch(body []byte, meter *budget) (status int, text, limit string) {
	c := &batchCheck{o: h.o, released: map[int64]int64{}, imports: map[int64]bool{}}
	status = http.StatusOK
	batchLines(body, func(line []byte) bool {
		if int64(len(line)) > h.o.ReadLimit {
			status, limit = http.StatusRequestEntityTooLarge, "read-limit"
			text = "capnweb: message over " + strconv.FormatInt(h.o.ReadLimit, 10) + " bytes"
			return false
		}
		if err := c.line(line, meter); err != nil {
			status, text, limit = http.StatusBadRequest, err.Error(), limitOf(err)
			if limit == "memory" {
				status = http.StatusServiceUnavailable
			}
			return false
		}
		return true
	})
	return status, text, limit
}

// line checks one message, charging its parse to meter while it does.
func (c *batchCheck) line(line []byte, meter *budget) error {
	raw, parsed, err := parseCharged(line, c.o.MaxDepth, meter)
	defer meter.Release(parsed)
	if err != nil {
		return err
	}
	m, err := readMessage(raw)
	if err != nil {
		return err
	}
	return c.message(m)
}

func (c *batchCheck) message(m message) error {
	switch m.kind {
	case "push":
		if c.pushes >= int64(c.o.MaxInflight) {
			return &protoError{limit: "inflight", msg: "too many calls in flight: a batch holds at most " + strconv.Itoa(c.o.MaxInflight) + " pushes"}
		}
		if c.pushes+1 >= int64(c.o.MaxExports) {
			return &protoError{limit: "exports", msg: "too many exports"}
		}
		if err := c.expr(m.expr); err != nil {
			return err
		}
		c.pushes++
		return nil
	case "pull":
		if !c.live(m.id) {
			return malformed("pull of an unknown id")
		}
	case "release":
		if !c.live(m.id) {
			return malformed("release of an unknown id")
		}
		c.released[m.id] += m.count
		if c.released[m.id] > 1 {
			return malformed("release of more references than held")
		}
	case "resolve", "reject":
		return c.expr(m.expr)
	case "abort":
		// It would end the batch after the calls before it ran, and its
		// text is the peer's own (never repeated).
		return malformed("a batch that aborts itself is not run")
	}
	return nil
}

// live reports whether export id exists when the message is read: the
// main interface or an answer to an earlier push, not released. A batch
// has received nothing, so it cannot name an export of the server's own
// choosing (a negative id).
func (c *batchCheck) live(id int64) bool {
	return id >= 0 && id <= c.pushes && c.released[id] == 0
}

// expr checks the ids an expression refers to and counts the stubs and
// promises it exports to the server.
func (c *batchCheck) expr(x any) error {
	switch x := x.(type) {
	case exArray:
		return c.exprs(x)
	case *exObject:
		return c.exprs(x.vals)
	case *exError:
		if x.props != nil {
			return c.exprs(x.props.vals)
		}
	case *exRef:
		if !c.live(x.id) {
			return malformed("reference to an unknown id")
		}
		return c.exprs(x.args)
	case *exExport:
		if x.promise && c.imports[x.id] {
			return malformed("promise reusing an id")
		}
		if !c.imports[x.id] && len(c.imports) >= c.o.MaxImports {
			return &protoError{limit: "imports", msg: "too many imports"}
		}
		c.imports[x.id] = true
	}
	return nil
}

func (c *batchCheck) exprs(xs []any) error {
	for _, x := range xs {
		if err := c.expr(x); err != nil {
			return err
		}
	}
	return nil
}
