package capnweb

import (
	"bytes"
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

func (b *batchOut) body() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Join(b.frames, []byte("\n"))
}

// serveBatch runs one HTTP batch: the body's messages are evaluated as
// one session, every pull answered, then everything is released.
func (h *Handler) serveBatch(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		http.Error(w, "capnweb: server shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.wg.Done()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.BatchLimit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.limit("read-limit")
			http.Error(w, "capnweb: batch over "+strconv.FormatInt(h.o.BatchLimit, 10)+" bytes", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "capnweb: reading the batch failed", http.StatusBadRequest)
		return
	}
	status, text := h.runBatch(r, body)
	if status != http.StatusOK {
		http.Error(w, text, status)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(text))
}

func (h *Handler) limit(name string) {
	if h.o.OnLimit != nil {
		h.o.OnLimit(name)
	}
}

// runBatch evaluates the batch and returns the status and body to send.
func (h *Handler) runBatch(r *http.Request, body []byte) (int, string) {
	meter := &budget{limit: h.o.ConnMemory, pool: h.o.Pool}
	defer meter.close()
	out := &batchOut{}
	peer := peerOf(r)
	peer.Meter = meter
	s := newSession(h.o, out, meter, h.main(peer), true)
	meter.over = func() { s.failProto(&protoError{limit: "memory", msg: "session memory budget exceeded"}) }
	defer s.teardown()
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if int64(len(line)) > h.o.ReadLimit {
			h.limit("read-limit")
			return http.StatusRequestEntityTooLarge, "capnweb: message over " + strconv.FormatInt(h.o.ReadLimit, 10) + " bytes"
		}
		s.handle(line)
		if s.isDone() {
			break
		}
	}
	if !s.isDone() {
		s.drain(r)
	}
	if s.isDone() && s.reason != nil {
		return http.StatusBadRequest, s.reason.Error()
	}
	if s.isDone() {
		return http.StatusBadRequest, "capnweb: batch ended early"
	}
	return http.StatusOK, string(out.body())
}

// drain waits until every pulled answer has been sent, or the request
// ends.
func (s *session) drain(r *http.Request) {
	done := make(chan struct{})
	go func() {
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
