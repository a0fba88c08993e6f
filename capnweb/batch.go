package capnweb

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// batchOut collects a batch session's messages for the response.
type batchOut struct {
	mu     sync.Mutex
	frames [][]byte
	closed bool
}

func (b *batchOut) send(frame []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.frames = append(b.frames, frame)
	}
}

func (b *batchOut) close(int, string, []byte) {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// writeTo writes the messages separated by newlines, each straight from
// its frame: no copy of the whole answer, which the session's budget has
// counted once, is made.
func (b *batchOut) writeTo(w io.Writer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, f := range b.frames {
		if i > 0 {
			if _, err := w.Write([]byte("\n")); err != nil {
				return
			}
		}
		if _, err := w.Write(f); err != nil {
			return
		}
	}
}

// serveBatch runs one HTTP batch: the body's messages are checked
// (checkBatch: a batch refused runs nothing), then evaluated as one
// session, every push carried out and every pull answered, then
// everything is released.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		http.Error(w, "capnweb: server shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.wg.Done()
	meter := &budget{limit: h.o.ConnMemory, pool: h.o.Pool}
	defer meter.close()
	meter.join(func() { h.limit("server-memory") }) // evicted: its charges fail, so it answers 503
	body, status, text := h.readBatch(w, r, meter)
	out := &batchOut{}
	if status == http.StatusOK {
		status, text = h.runBatch(r, body, meter, out)
	}
	if status != http.StatusOK {
		http.Error(w, text, status)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	out.writeTo(w)
}

func (h *Handler) limit(name string) {
	if h.o.OnLimit != nil {
		h.o.OnLimit(name)
	}
}

// readBatch reads the request body, at most BatchLimit bytes, charging
// them to meter (and so to the server's Pool) as they arrive: many large
// batches at once cannot hold more than the budget. It answers the body,
// or the status and text to refuse it with.
func (h *Handler) readBatch(w http.ResponseWriter, r *http.Request, meter *budget) ([]byte, int, string) {
	src := http.MaxBytesReader(w, r.Body, h.o.BatchLimit)
	var body []byte
	chunk := make([]byte, 32<<10)
	for {
		n, err := src.Read(chunk)
		if n > 0 {
			if meter.Charge(int64(n)) != nil {
				h.limit("memory")
				return nil, http.StatusServiceUnavailable, "capnweb: server memory budget exhausted; try again later"
			}
			body = append(body, chunk[:n]...)
		}
		var tooBig *http.MaxBytesError
		switch {
		case err == io.EOF:
			return body, http.StatusOK, ""
		case errors.As(err, &tooBig):
			h.limit("read-limit")
			return nil, http.StatusRequestEntityTooLarge, "capnweb: batch over " + strconv.FormatInt(h.o.BatchLimit, 10) + " bytes"
		case err != nil:
			return nil, http.StatusBadRequest, "capnweb: reading the batch failed"
		}
	}
}

// runBatch evaluates the batch into out and returns the status (and for
// an error, the text) to send.
func (h *Handler) runBatch(r *http.Request, body []byte, meter *budget, out *batchOut) (int, string) {
	if status, text, limit := h.checkBatch(body, meter); status != http.StatusOK {
		h.limit(limit)
		return status, text
	}
	peer := peerOf(r)
	peer.Meter = meter
	s := newSession(h.o, out, meter, h.main(peer), true)
	meter.over = func() { s.failProto(&protoError{limit: "memory", msg: "session memory budget exceeded"}) }
	defer s.teardown()
	batchLines(body, func(line []byte) bool {
		s.handleCharged(line, 0) // the body is charged as it is read
		return !s.isDone()
	})
	if !s.isDone() {
		s.drain(r)
	}
	if s.isDone() && s.reason != nil {
		return http.StatusBadRequest, s.reason.Error()
	}
	if s.isDone() {
		return http.StatusBadRequest, "capnweb: batch ended early"
	}
	return http.StatusOK, ""
}

// drain waits until every push of the batch has been carried out (pulled
// or not: a push is a call the peer made, the pull only asks for its
// answer) and every pulled answer has been sent, or the request ends.
func (s *session) drain(r *http.Request) {
	done := make(chan struct{})
	go func() {
		for _, f := range s.roots {
			select {
			case <-f.done:
			case <-s.done:
				return
			}
		}
		s.pulls.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-r.Context().Done():
		s.fail("", errors.New("request canceled"), 0)
	case <-s.done:
	}
}
