package capnweb

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wsOut is a WebSocket session's outbox: frames are queued and written
// by one writer goroutine, which also pings.
type wsOut struct {
	conn  *websocket.Conn
	meter *budget
	o     *Options
	lost  func() // the connection broke while writing

	mu      sync.Mutex
	q       [][]byte
	closing bool
	code    int
	text    string
	abort   []byte

	wake chan struct{}
	done chan struct{} // the writer has ended and closed conn
}

func newWSOut(conn *websocket.Conn, meter *budget, o *Options) *wsOut {
	return &wsOut{conn: conn, meter: meter, o: o, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (w *wsOut) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *wsOut) send(frame []byte) {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		w.meter.Release(int64(len(frame)))
		return
	}
	w.q = append(w.q, frame)
	w.mu.Unlock()
	w.signal()
}

// close drops what is queued, then has the writer send abort (if any)
// and a close frame with code (none when code is 0), and close the conn.
func (w *wsOut) close(code int, text string, abort []byte) {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return
	}
	w.closing, w.code, w.text, w.abort = true, code, text, abort
	dropped := w.q
	w.q = nil
	w.mu.Unlock()
	for _, f := range dropped {
		w.meter.Release(int64(len(f)))
	}
	w.signal()
}

// run is the writer goroutine.
func (w *wsOut) run() {
	defer close(w.done)
	defer w.conn.Close()
	ping := time.NewTicker(w.o.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-w.wake:
		case <-ping.C:
			if w.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(w.o.WriteTimeout)) != nil {
				w.lost()
				return
			}
		}
		w.mu.Lock()
		q, closing := w.q, w.closing
		w.q = nil
		w.mu.Unlock()
		if !w.write(q) {
			w.lost()
			return
		}
		if closing {
			w.finish()
			return
		}
	}
}

func (w *wsOut) write(q [][]byte) bool {
	for i, f := range q {
		_ = w.conn.SetWriteDeadline(time.Now().Add(w.o.WriteTimeout))
		err := w.conn.WriteMessage(websocket.TextMessage, f)
		w.meter.Release(int64(len(f)))
		if err != nil {
			for _, rest := range q[i+1:] {
				w.meter.Release(int64(len(rest)))
			}
			return false
		}
	}
	return true
}

func (w *wsOut) finish() {
	deadline := time.Now().Add(w.o.WriteTimeout)
	if w.abort != nil {
		_ = w.conn.SetWriteDeadline(deadline)
		_ = w.conn.WriteMessage(websocket.TextMessage, w.abort)
	}
	if w.code != 0 {
		_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(w.code, w.text), deadline)
	}
}

// serveConn runs a WebSocket session until it ends: it reads frames and
// hands them to the session, then tears it down.
func serveConn(s *session, conn *websocket.Conn, out *wsOut) {
	o := s.o
	conn.SetReadLimit(o.ReadLimit)
	// The read deadline: the peer's silence (twice the ping interval,
	// renewed by every pong and message) and, while a message is being
	// assembled, the time left to finish it. Pong handlers run on this
	// goroutine, inside the reads, so assembleBy needs no lock.
	var assembleBy time.Time
	alive := func() {
		d := time.Now().Add(2 * o.PingInterval)
		if !assembleBy.IsZero() && assembleBy.Before(d) {
			d = assembleBy
		}
		_ = conn.SetReadDeadline(d)
	}
	alive()
	conn.SetPongHandler(func(string) error { alive(); return nil })
	go out.run()
	for {
		typ, r, err := conn.NextReader()
		if err != nil {
			readFailed(s, err)
			break
		}
		if typ != websocket.TextMessage {
			s.failProto(malformed("binary frames are not part of the protocol"))
			break
		}
		assembleBy = time.Now().Add(o.AssembleTimeout)
		alive()
		data, charged, err := readCharged(r, s.meter)
		if err != nil {
			if isTimeout(err) {
				err = &protoError{limit: "assemble-timeout", msg: "message not complete within " + o.AssembleTimeout.String() + " of its first frame"}
			}
			readFailed(s, err)
			break
		}
		assembleBy = time.Time{}
		alive()
		s.handleCharged(data, charged)
		if s.isDone() {
			break
		}
	}
	s.teardown()
	<-out.done
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readFailed ends the session after a read error.
func readFailed(s *session, err error) {
	var pe *protoError
	if errors.As(err, &pe) && pe != errReadMemory {
		s.failProto(pe)
		return
	}
	if errors.Is(err, websocket.ErrReadLimit) {
		s.failProto(&protoError{limit: "read-limit", msg: "message over the size limit"})
		return
	}
	if errors.Is(err, errReadMemory) {
		s.failProto(errReadMemory) // the budget's over has done it already
		return
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		s.fail("", nil, closeNormal)
		return
	}
	s.fail("", nil, 0) // gone: nothing more can be written
}
